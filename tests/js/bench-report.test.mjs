// `make bench`'s own logic on fixed sample numbers, no browser and no timing: the targets'
// MET / NOT MET verdicts per engine (bench/report.mjs), results.md's shape, and how many
// calls the suite times together on a coarse clock (bench/suite.mjs); then the suite's
// operations for both entries, a few calls each in Node. Needs `make build`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { TARGETS, evaluateTargets, renderResults, speedTable, summaryLine, chartSvg, keepMeasuredByHand } from '../../bench/report.mjs';
import { ORDER, batchSize, createHarness, stats } from '../../bench/suite.mjs';
import { checkStamp, randomScalar, sealBundle } from '../support/fixtures.mjs';
import { serveStatic } from '../../scripts/serve.mjs';
import { sizeTables, glue, wasm, noEnclaveWasm, BUDGETS } from '../../scripts/size.mjs';

const dir = (rel) => fileURLToPath(new URL(rel, import.meta.url));

const at = (ms, batch = 1) => ({ ...stats([ms, ms, ms * 1.5]), batch, drift: 1 });
const set = (gzip, n = 2) => ({
  files: Array.from({ length: n }, (_, i) => ({ file: `f${i}.js`, raw: gzip, gzip: gzip / n, brotli: gzip / n })),
  total: { raw: 2 * gzip, gzip, brotli: gzip },
});

/** A browser engine exactly at every limit, except where `over` says. */
function browserEnv(over = {}) {
  const speed = {
    'kit.keygen': at(0.9), 'peer.keygen': at(1),
    'kit.open': at(0.4), 'peer.open': at(1),
    'kit.stamp': at(0.2), 'peer.stamp': at(0.2),
    'kit.signRetry': at(0.3), 'peer.signRetry': at(0.3),
    'kit.storedStamp': at(0.1), 'floor.sign': at(0.05, 4),
    'signing.keygen': at(0.9), 'signing.open': at(0.4), 'signing.stamp': at(0.2), 'signing.signRetry': at(0.3),
    ...over.speed,
  };
  return {
    id: 'chromium', title: 'Chromium 1', browser: true, speed,
    cold: { firstKeygen: at(2), firstOpen: at(1), firstStamp: at(0.5), ...over.cold },
    sizes: { init: set(TARGETS.initGzip), page: set(TARGETS.pageGzip), ...over.sizes },
  };
}
const verdicts = (rows) => Object.fromEntries(rows.map((r) => [r.target, r.met]));

test('a browser engine exactly at every limit meets every target (limits are inclusive)', () => {
  const rows = evaluateTargets(browserEnv());
  assert.equal(rows.length, 2 + TARGETS.ratios.length + TARGETS.firsts.length);
  assert.deepEqual(rows.filter((r) => r.met !== true).map((r) => r.target), []);
});

test('the signing entry has its own ratio targets, with the main entry\'s limits, against the same peer op', () => {
  const limits = Object.fromEntries(evaluateTargets(browserEnv()).map((r) => [r.target, r.limit]));
  for (const [op, limit] of [['keygen', '0.90'], ['bundle open', '0.40'], ['stamp', '1.00'], ['signRetry', '1.00']]) {
    assert.equal(limits[`${op}: kit / peer`], `≤ ${limit}`, op);
    assert.equal(limits[`${op}, signing entry: kit / peer`], `≤ ${limit}`, `${op}, signing entry`);
  }
  const [, kitOp, peerOp] = TARGETS.ratios.find(([name]) => name === 'bundle open, signing entry');
  assert.deepEqual([kitOp, peerOp], ['signing.open', 'peer.open']);
  // Not measured (an older package without the signing entry): n/a, never MET.
  const rows = evaluateTargets(browserEnv({ speed: { 'signing.stamp': undefined } }));
  assert.equal(rows.find((r) => r.target === 'stamp, signing entry: kit / peer').met, null);
});

test('just over a limit is NOT MET, each target on its own', () => {
  const cases = [
    [{ sizes: { init: set(TARGETS.initGzip + 1) } }, 'a signing-only page\'s `init()` loads (`embedded-wallet-kit/signing`, gzip -9)'],
    [{ sizes: { page: set(TARGETS.pageGzip + 1) } }, 'a passkey wallet page loads (gzip -9)'],
    [{ speed: { 'kit.keygen': at(0.91) } }, 'keygen: kit / peer'],
    [{ speed: { 'kit.open': at(0.41) } }, 'bundle open: kit / peer'],
    [{ speed: { 'kit.stamp': at(0.201) } }, 'stamp: kit / peer'],
    [{ speed: { 'kit.signRetry': at(0.301) } }, 'signRetry: kit / peer'],
    [{ speed: { 'signing.keygen': at(0.91) } }, 'keygen, signing entry: kit / peer'],
    [{ speed: { 'signing.open': at(0.41) } }, 'bundle open, signing entry: kit / peer'],
    [{ speed: { 'signing.stamp': at(0.201) } }, 'stamp, signing entry: kit / peer'],
    [{ speed: { 'signing.signRetry': at(0.301) } }, 'signRetry, signing entry: kit / peer'],
    [{ speed: { 'kit.storedStamp': at(0.11) } }, 'stamp, WebCrypto-backed signer (`SessionStore`): kit / peer'],
    [{ cold: { firstKeygen: at(2.01) } }, 'the first keygen after `init()` resolves (median)'],
    [{ cold: { firstOpen: at(2.5) } }, 'the first open after `init()` resolves (median)'],
    [{ cold: { firstStamp: at(3) } }, 'the first stamp after `init()` resolves (median)'],
  ];
  for (const [over, target] of cases) {
    const v = verdicts(evaluateTargets(browserEnv(over)));
    assert.equal(v[target], false, target);
    assert.equal(Object.values(v).filter((m) => m === false).length, 1, `only ${target} is NOT MET`);
  }
});

test('a ratio is kit / peer of the medians, and an operation that failed or is missing is n/a, not MET', () => {
  const rows = evaluateTargets(browserEnv({ speed: { 'kit.open': at(0.25), 'kit.storedStamp': { error: 'IndexedDB refused' } }, cold: { firstOpen: undefined } }));
  const open = rows.find((r) => r.target === 'bundle open: kit / peer');
  assert.equal(open.value, '0.25');
  assert.match(open.detail, /kit 250 µs vs peer 1,000 µs/);
  const stored = rows.find((r) => r.target.startsWith('stamp, WebCrypto'));
  assert.equal(stored.met, null);
  assert.match(stored.detail, /IndexedDB refused/);
  assert.equal(rows.find((r) => r.target.startsWith('the first open')).met, null);
});

test('Node: every operation no slower than the peer (ratio ≤ 1.0), and nothing else', () => {
  const speed = {
    'kit.keygen': at(1), 'peer.keygen': at(1), 'kit.open': at(0.5), 'peer.open': at(1),
    'kit.stamp': at(0.3), 'peer.stamp': at(0.2), 'kit.signRetry': at(0.2), 'peer.signRetry': at(0.3),
    'signing.keygen': at(1.01), 'signing.open': at(0.9), 'signing.stamp': at(0.2), 'signing.signRetry': at(0.1),
  };
  const rows = evaluateTargets({ id: 'node', title: 'Node', browser: false, speed });
  assert.deepEqual(verdicts(rows), {
    'keygen: kit / peer': true, 'bundle open: kit / peer': true, 'stamp: kit / peer': false, 'signRetry: kit / peer': true,
    'keygen, signing entry: kit / peer': false, 'bundle open, signing entry: kit / peer': true,
    'stamp, signing entry: kit / peer': true, 'signRetry, signing entry: kit / peer': true,
  });
  assert.match(summaryLine({ title: 'Node' }, rows), /6 of 8 MET; NOT MET: stamp: kit \/ peer; keygen, signing entry: kit \/ peer/);
});

test('results.md: a targets table per engine with value, limit and verdict; an engine that failed says so', () => {
  const envs = [browserEnv({ speed: { 'kit.stamp': at(0.3) } }), { id: 'webkit', title: 'WebKitGTK', browser: true, error: 'no display' }];
  const md = renderResults({
    envs, date: '2026-01-01 00:00', seconds: 60, machine: 'test', loadAtStart: '1', loadAtEnd: '1', loadNote: 'loaded',
    nodeVersion: 'v0', kitLabel: 'kit', built: 'then', peerVersions: 'peer', opt: { warmup: 1, iters: 2, cold: 1 }, ticks: 20,
    payloadBytes: 300, esbuildVersion: '0', peer: set(100 * 1024).total, peerLean: set(50 * 1024).total, peerTop: '', leanTop: '',
  });
  assert.match(md, /## Chromium 1\n/);
  assert.match(md, /\| stamp: kit \/ peer \| 1\.50 \| ≤ 1\.00 \| \*\*NOT MET\*\* \|/);
  assert.match(md, /\| keygen: kit \/ peer \| 0\.90 \| ≤ 0\.90 \| \*\*MET\*\* \|/);
  assert.match(md, /\| stamp, signing entry: kit \/ peer \| 1\.00 \| ≤ 1\.00 \| \*\*MET\*\* \|/);
  assert.match(md, /- Chromium 1: 13 of 14 MET; NOT MET: stamp: kit \/ peer/);
  assert.match(md, /- WebKitGTK: \*\*did not run\*\* \(no display\)/);
  assert.match(md, /## WebKitGTK\n\nDid not run: no display/);
  assert.match(chartSvg(envs, 'caption'), /^<svg[^]*Chromium 1[^]*<\/svg>$/);
});

test('the speed table shows calls per sample where they were batched', () => {
  const table = speedTable(browserEnv().speed);
  assert.match(table, /\| stamp \| 200 µs \/ 300 µs \| 200 µs \/ 300 µs \| 50 µs \/ 75 µs ×4 \(subtle\.sign\) \| \*\*1\.00\*\* \|/);
  assert.doesNotMatch(table, /SessionStore.*n\/a/);
  // The signing entry's row follows the main entry's, against the same peer and floor.
  assert.match(table, /\| keygen \| [^\n]*\n\| ↳ keygen, signing entry \(`embedded-wallet-kit\/signing`\) \| 900 µs \/ 1,350 µs \| 1,000 µs \/ 1,500 µs \| [^|]* \| \*\*0\.90\*\* \|/);
  for (const op of ['bundle open', 'stamp', 'signRetry']) assert.match(table, new RegExp(`\\| ↳ ${op}, signing entry \\(`));
});

test('the suite measures both entries with the same loops, each kit op next to its signing-entry and peer ops', async () => {
  const kit = await import('../../pkg/node.js');
  const signing = await import('../../pkg/signing-node.js');
  const peer = await import('../../bench/peer-entry.mjs');
  const harness = createHarness({ kit, signing, peer, warmup: 2, iters: 20 });
  assert.deepEqual([...ORDER].sort(), [...harness.ops].sort(), 'ORDER runs every operation once');
  for (const op of ['keygen', 'open', 'stamp', 'signRetry']) {
    assert.equal(ORDER[ORDER.indexOf(`kit.${op}`) + 1], `signing.${op}`, op);
    assert.ok(ORDER.indexOf(`peer.${op}`) > ORDER.indexOf(`signing.${op}`), `${op}: the peer after both entries`);
  }
  const keys = harness.prepareKitKeys();
  assert.deepEqual(Object.keys(keys).sort(), ['kit.open', 'kit.signRetry', 'kit.stamp', 'kit.storedStamp',
    'signing.open', 'signing.signRetry', 'signing.stamp'].sort());
  assert.equal(keys['signing.open'].length, 22);
  const input = (op) => ({ bundles: keys[op].map((pub) => sealBundle(randomScalar(), pub)) });
  const keygen = await harness.run('signing.keygen');
  assert.equal(keygen.n, 20);
  // Session.open refuses a ClientKey of the other entry: these opens show the keys are the signing entry's.
  assert.equal((await harness.run('signing.open', input('signing.open'))).n, 20);
  for (const op of ['signing.stamp', 'signing.signRetry']) {
    const r = await harness.run(op, input(op));
    assert.equal(r.n, 20, op);
    assert.equal(checkStamp(r.sample.stamp, r.sample.payload, r.sample.publicKeyHex).ok, true, `${op}: its stamp verifies`);
  }
});

test('batchSize: one call per sample on a fine clock, enough calls for 20 ticks on a coarse one, ≥ 10 samples', () => {
  assert.equal(batchSize(0.2, 0.005, 1000), 1); // Chromium, cross-origin isolated
  assert.equal(batchSize(0.25, 0.02, 1000), 2); // 20 µs clock: 20 ticks = 400 µs ≥ 2 × 250 µs
  assert.equal(batchSize(0.5, 1, 1000), 40); // 1 ms clock
  assert.equal(batchSize(0.05, 1, 1000), 100); // would be 400: capped at iters / 10
  assert.equal(batchSize(0, 1, 1000), 100); // a warm-up too fast to see
  assert.equal(batchSize(50, 1, 1000), 1);
});

test('scripts/serve.mjs sends the extra headers (the bench: COOP + COEP) on every response, and none by default', async (t) => {
  const plain = await serveStatic({ '/': dir('../../bench') });
  const isolated = await serveStatic({ '/': dir('../../bench') }, { headers: { 'cross-origin-opener-policy': 'same-origin' } });
  t.after(() => Promise.all([plain.close(), isolated.close()]));
  const get = async (srv, path) => (await fetch(`http://localhost:${srv.port}${path}`)).headers;
  assert.equal((await get(plain, '/peer-entry.mjs')).get('cross-origin-opener-policy'), null);
  for (const path of ['/peer-entry.mjs', '/missing']) {
    assert.equal((await get(isolated, path)).get('cross-origin-opener-policy'), 'same-origin', path);
  }
  assert.equal((await get(isolated, '/peer-entry.mjs')).get('content-type'), 'text/javascript; charset=utf-8');
});

test('scripts/size.mjs imports without running its CLI, and its tables name the modules from one list', () => {
  const [signing, wallet, withEnclave] = sizeTables(dir('../../pkg'));
  assert.deepEqual([signing[1].at(-1), signing[1].includes(glue('signing')), signing[2]], [wasm('signing'), true, BUDGETS.signing]);
  assert.ok(!signing[1].some((f) => f === glue('wallet') || f === wasm('wallet') || f === noEnclaveWasm), 'a signing-only page loads no wallet module');
  // A plain init() loads the wallet module's build without the enclave exports, under the wallet module's glue.
  assert.deepEqual([wallet[1].includes(glue('wallet')), wallet[1].includes(noEnclaveWasm), wallet[1].includes(wasm('wallet')), wallet[2]], [true, true, false, BUDGETS.wallet]);
  assert.ok(!wallet[1].some((f) => f === glue('signing') || f === wasm('signing')), 'a wallet page loads one module');
  assert.deepEqual(withEnclave[1], wallet[1].map((f) => (f === noEnclaveWasm ? wasm('wallet') : f)), 'init({ enclave: true }) loads the build with them instead, and nothing else more');
  assert.equal(withEnclave[2], undefined, 'informational');
});

test('results.md keeps its hand-written measurements section when make bench rewrites the rest', () => {
  const hand = '## Measured by hand\n\n### Something\n\nA number: 1 B.\n';
  const previous = `# Benchmarks\n\nold figures\n\n${hand}`;
  const kept = keepMeasuredByHand(previous, '# Benchmarks\n\nnew figures\n');
  assert.equal(kept, `# Benchmarks\n\nnew figures\n\n${hand}`);
  // No such section before: nothing is added; a rendered file never carries one of its own.
  assert.equal(keepMeasuredByHand('# Benchmarks\n\nold\n', '# Benchmarks\n\nnew\n'), '# Benchmarks\n\nnew\n');
  assert.equal(keepMeasuredByHand(undefined, '# B\n'), '# B\n');
});
