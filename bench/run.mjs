#!/usr/bin/env node
// `make bench` (issue 7): speed and size of embedded-wallet-kit against what a page would
// use instead — @turnkey/crypto + @turnkey/api-key-stamper (the peer) — and WebCrypto's
// native P-256 (the speed floor), in one run on this machine.
//
//   1. Node, through pkg/node.js: keygen, bundle open, stamp and signRetry (the loops are
//      bench/suite.mjs) for the kit, the peer and WebCrypto. Bundles are sealed beforehand
//      by @turnkey/crypto (tests/support/fixtures.mjs), one per ClientKey.
//   2. Headless Chromium (Debian's, via playwright-core): the same suite in a page on
//      http://localhost that imports pkg/browser.js and the esbuild bundle of the peer. The
//      page is cross-origin isolated, so performance.now() has 5 µs resolution, not 100 µs.
//   3. Cold init. Chromium: `await init()` (fetch + compile + instantiate) in a fresh
//      browser context per sample; Node: importing pkg/node.js, and initSync of the signing
//      module on its bytes, in a fresh process per sample. The peer: importing it.
//   4. Size: gzip -9 and brotli q11 (as scripts/size.mjs measures) of the files Chromium
//      fetched for `init()` and for the passkey module (`init({ passkeys: true })`), against
//      an esbuild-minified ESM bundle of the peer doing the same three operations
//      (bench/peer-entry.mjs) as an app bundles it, and a lower bound of it.
//   5. bench/results.md (tables, ratios kit/peer, targets MET / NOT MET) and
//      bench/latency.png (an SVG chart rendered and screenshotted by the same Chromium).
//
// Usage: node bench/run.mjs [--iters 1000] [--warmup 100] [--cold 25] [--max-load X] [--pkg DIR]
//   --max-load X  first wait (up to 15 min) until the 1-minute load average is at most X.
//   --pkg DIR     the package to measure (default pkg/); --kit-label TEXT names it in results.md.
// Needs pkg/ (`make build`). About 1.5 minutes on 2 idle cores.
import { spawnSync } from 'node:child_process';
import { createReadStream, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import { extname, join, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync, brotliCompressSync, constants as zlib } from 'node:zlib';
import * as esbuild from 'esbuild';
import { chromium } from 'playwright-core';
import { generateP256KeyPair } from '@turnkey/crypto';
import { sealBundle, randomScalar, checkStamp } from '../tests/support/fixtures.mjs';
import { createHarness, stats, PAYLOAD } from './suite.mjs';
import { launchChromium } from '../tests/support/chromium.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));
const root = resolve(here, '..');
const tmpDir = join(root, '.tmp', 'bench');
// Issue 7: ≥ 2× faster than the peer on open and stamp in Chromium; the whole kit ≤ 45 KB
// gzip; cold init ≤ 10 ms.
const TARGET = { speedup: 2, gzipBytes: 45 * 1024, coldMs: 10 };

// The order in which the operations run, in each environment (kit, peer, floor per task).
const ORDER = [
  'kit.keygen', 'peer.keygen', 'floor.keygen',
  'kit.open', 'peer.open', 'peer.decryptOnly', 'floor.ecdh',
  'kit.stamp', 'kit.storedStamp', 'peer.stamp', 'peer.stampPurejs', 'floor.sign',
  'kit.signRetry', 'peer.signRetry',
];

// ---- options and helpers ------------------------------------------------------------------
const USAGE = 'usage: node bench/run.mjs [--iters N] [--warmup N] [--cold N] [--max-load X] [--pkg DIR] [--kit-label TEXT]';
const opt = { iters: 1000, warmup: 100, cold: 25, maxLoad: null, pkg: join(root, 'pkg'), kitLabel: null };
const FLAGS = { '--iters': 'iters', '--warmup': 'warmup', '--cold': 'cold', '--max-load': 'maxLoad', '--pkg': 'pkg', '--kit-label': 'kitLabel' };
for (let i = 2; i < process.argv.length; i += 2) {
  const key = FLAGS[process.argv[i]];
  const text = process.argv[i + 1];
  const value = key === 'pkg' || key === 'kitLabel' ? text : Number(text);
  if (!key || text === undefined || (typeof value === 'number' && !(value >= 0))) {
    console.error(USAGE);
    process.exit(2);
  }
  opt[key] = value;
}
if (opt.iters < 2 || opt.cold < 1) {
  console.error(`${USAGE}\n(--iters at least 2, --cold at least 1)`);
  process.exit(2);
}
// The package under test: pkg/ by default (`make build`), or another build of it.
const pkgDir = resolve(opt.pkg);
const N = opt.warmup + opt.iters;

const started = Date.now();
const log = (msg) => console.log(`[bench ${((Date.now() - started) / 1000).toFixed(1).padStart(5)} s] ${msg}`);
const loadAvg = () => os.loadavg().map((l) => l.toFixed(2)).join(' / ');
const sleep = (ms) => new Promise((ok) => setTimeout(ok, ms));
const int = (n) => Math.round(n).toLocaleString('en-US');
const us = (ms) => `${int(ms * 1000)} µs`;
const msec = (ms) => `${ms.toFixed(2)} ms`;
const kb = (b) => `${(b / 1024).toFixed(1)} KB`;
const ratio = (a, b) => (a / b).toFixed(2);
const mp = (s, f = us) => `${f(s.median)} / ${f(s.p95)}`;
const fileUrl = (p) => pathToFileURL(p).href;

// ---- size ---------------------------------------------------------------------------------
/** Raw, gzip -9 and brotli q11 sizes, with the same settings as scripts/size.mjs. */
function compressed(buf, isWasm) {
  return {
    raw: buf.length,
    gzip: gzipSync(buf, { level: 9 }).length,
    brotli: brotliCompressSync(buf, {
      params: {
        [zlib.BROTLI_PARAM_QUALITY]: 11,
        [zlib.BROTLI_PARAM_SIZE_HINT]: buf.length,
        [zlib.BROTLI_PARAM_MODE]: isWasm ? zlib.BROTLI_MODE_GENERIC : zlib.BROTLI_MODE_TEXT,
      },
    }).length,
  };
}

/** Per-file and total sizes of files of pkg/ (paths relative to it). */
function fileSet(files) {
  const rows = files.map((f) => ({ file: f, ...compressed(readFileSync(join(pkgDir, f)), f.endsWith('.wasm')) }));
  const total = rows.reduce((t, r) => ({ raw: t.raw + r.raw, gzip: t.gzip + r.gzip, brotli: t.brotli + r.brotli }),
    { raw: 0, gzip: 0, brotli: 0 });
  return { files: rows, total };
}

/**
 * The lower bound for the peer: every @noble/* import resolved to @turnkey/crypto's copy
 * (npm installs two @noble/curves: 1.9.0, pinned by @turnkey/crypto, and a 1.9.x for the
 * stamper), and every module marked side-effect free, so that esbuild drops what the three
 * operations never reach (@peculiar/x509, reflect-metadata, … which @turnkey/crypto's index
 * pulls in).
 */
const leanPlugin = {
  name: 'lean-peer',
  setup(build) {
    const cryptoDir = join(root, 'node_modules/@turnkey/crypto');
    build.onResolve({ filter: /.*/ }, async (args) => {
      if (args.kind === 'entry-point' || args.pluginData?.lean) return undefined;
      let r;
      if (args.path.startsWith('@noble/')) {
        r = await build.resolve(args.path, { resolveDir: cryptoDir, kind: args.kind, pluginData: { lean: true } });
      }
      if (!r || r.errors.length) {
        r = await build.resolve(args.path, { resolveDir: args.resolveDir, importer: args.importer, kind: args.kind, pluginData: { lean: true } });
      }
      if (r.errors.length) return { errors: r.errors };
      // Paths the browser field disables (`crypto: false`) resolve to no file: leave them be.
      if (!r.path.startsWith('/')) return undefined;
      return { path: r.path, external: r.external, namespace: r.namespace, sideEffects: false };
    });
  },
};

/** esbuild --bundle --minify of bench/peer-entry.mjs for the browser; sizes and largest inputs. */
async function bundlePeer(outfile, plugins = []) {
  const r = await esbuild.build({
    entryPoints: [join(here, 'peer-entry.mjs')],
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    legalComments: 'none',
    outfile,
    metafile: true,
    logLevel: 'warning',
    plugins,
  });
  const byPackage = {};
  for (const [file, v] of Object.entries(Object.values(r.metafile.outputs)[0].inputs)) {
    const parts = file.split('node_modules/').slice(1).map((p) => p.split('/').slice(0, p.startsWith('@') ? 2 : 1).join('/'));
    const name = parts.length === 0 ? file : parts.length === 1 ? parts[0] : `${parts.at(-1)} (under ${parts.at(-2)})`;
    byPackage[name] = (byPackage[name] ?? 0) + v.bytesInOutput;
  }
  return { ...compressed(readFileSync(outfile), false), byPackage };
}

/** The lean bundle must still do the three operations (checked in Node, pure-JS stamper). */
async function checkLeanBundle(file) {
  const lean = await import(fileUrl(file));
  const kp = lean.generateP256KeyPair();
  const priv = lean.decryptCredentialBundle(sealBundle(randomScalar(), kp.publicKeyUncompressed), kp.privateKey);
  const pub = lean.uint8ArrayToHexString(lean.getPublicKey(priv, true));
  const st = await new lean.ApiKeyStamper({ apiPublicKey: pub, apiPrivateKey: priv, runtimeOverride: 'purejs' }).stamp(PAYLOAD);
  if (!checkStamp(st.stampHeaderValue, PAYLOAD, pub).ok) throw new Error('the lean peer bundle does not stamp correctly');
}

// ---- the suite ----------------------------------------------------------------------------
/** Runs every operation through `run(op, input)`; verifies the kit's sample stamps in Node. */
async function runSuite(env, prepareKitKeys, run, peerBundles) {
  const kitPublicKeys = await prepareKitKeys();
  log(`${env}: sealing ${kitPublicKeys.length} bundles to the kit's ClientKeys (@turnkey/crypto)`);
  const kitBundles = kitPublicKeys.map((pub) => sealBundle(randomScalar(), pub));
  const inputs = {
    'kit.open': { bundles: kitBundles.slice(0, N) },
    'kit.stamp': { bundle: kitBundles[N] },
    'kit.signRetry': { bundle: kitBundles[N + 1] },
    'kit.storedStamp': { bundle: kitBundles[N + 2] },
    'peer.open': { bundles: peerBundles },
    'peer.decryptOnly': { bundles: peerBundles },
    'floor.ecdh': { points: peerBundles.map((b) => b.point) },
  };
  const out = {};
  for (const op of ORDER) {
    out[op] = await run(op, inputs[op] ?? {});
    const r = out[op];
    if (r === null) {
      log(`${env}: ${op.padEnd(17)} n/a here`);
      continue;
    }
    log(`${env}: ${op.padEnd(17)} median ${int(r.median * 1000).padStart(6)} µs   p95 ${int(r.p95 * 1000).padStart(6)} µs   drift ${r.drift.toFixed(2)}`);
  }
  for (const op of ['kit.stamp', 'kit.signRetry', 'kit.storedStamp']) {
    if (out[op] === null) continue;
    const s = out[op].sample;
    const c = checkStamp(s.stamp, s.payload, s.publicKeyHex);
    if (!c.ok) throw new Error(`${env}: ${op} produced a stamp that does not verify: ${JSON.stringify(c)}`);
    delete out[op].sample;
  }
  return out;
}

// ---- the page server ------------------------------------------------------------------------
const MIME = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8', '.wasm': 'application/wasm' };
const PAGES = {
  '/': `<!doctype html><meta charset="utf-8"><title>bench</title>
<script type="module">
import * as kit from '/pkg/browser.js';
import * as peer from '/peer.js';
import { createHarness } from '/bench/suite.mjs';
await kit.init();
const params = new URLSearchParams(location.search);
globalThis.bench = createHarness({ kit, peer, warmup: Number(params.get('warmup')), iters: Number(params.get('iters')) });
globalThis.benchReady = true;
</script>`,
  '/cold.html': '<!doctype html><meta charset="utf-8"><title>cold</title><p>cold</p>',
};

/** Loopback static server; every response cross-origin isolated (COOP + COEP) and no-store. */
async function serve(files) {
  const requests = [];
  const headers = (type) => ({
    'content-type': type,
    'cache-control': 'no-store',
    'cross-origin-opener-policy': 'same-origin',
    'cross-origin-embedder-policy': 'require-corp',
  });
  const handler = (req, res) => {
    const path = new URL(req.url, 'http://localhost').pathname;
    requests.push(path);
    if (path === '/favicon.ico') {
      res.writeHead(204, headers('image/x-icon')).end();
      return;
    }
    if (PAGES[path]) {
      res.writeHead(200, headers(MIME['.html'])).end(PAGES[path]);
      return;
    }
    let file = files[path];
    if (!file && path.startsWith('/pkg/')) {
      file = resolve(join(pkgDir, decodeURIComponent(path.slice('/pkg/'.length))));
      if (!file.startsWith(pkgDir + sep)) file = undefined;
    }
    if (!file || !existsSync(file) || !statSync(file).isFile()) {
      res.writeHead(404, headers('text/plain')).end('not found\n');
      return;
    }
    res.writeHead(200, headers(MIME[extname(file)] ?? 'application/octet-stream'));
    createReadStream(file).pipe(res);
  };
  const servers = [];
  let port = 0;
  for (const host of ['127.0.0.1', '::1']) {
    const s = http.createServer(handler);
    try {
      await new Promise((ok, fail) => s.once('error', fail).listen(port, host, ok));
    } catch (err) {
      if (servers.length === 0) throw err; // IPv6 loopback may be missing; IPv4 must work
      continue;
    }
    port = s.address().port;
    servers.push(s);
  }
  return {
    port,
    requests,
    close: () => Promise.all(servers.map((s) => new Promise((ok) => {
      s.closeAllConnections();
      s.close(ok);
    }))),
  };
}

// ---- Chromium -------------------------------------------------------------------------------
async function chromiumSuite(browser, base, peerBundles) {
  const ctx = await browser.newContext();
  try {
    const page = await ctx.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    await page.goto(`${base}/?warmup=${opt.warmup}&iters=${opt.iters}`);
    await page.waitForFunction(() => globalThis.benchReady === true, null, { timeout: 30_000 }).catch(() => {
      throw new Error(`the bench page did not load: ${errors.join('; ')}`);
    });
    const isolated = await page.evaluate(() => globalThis.crossOriginIsolated);
    if (!isolated) log('chromium: WARNING: the page is not cross-origin isolated; performance.now() has 100 µs resolution');
    const results = await runSuite(
      'chromium',
      () => page.evaluate(() => globalThis.bench.prepareKitKeys()),
      (op, input) => page.evaluate(([o, i]) => globalThis.bench.run(o, i), [op, input]),
      peerBundles,
    );
    if (errors.length) throw new Error(`page errors: ${errors.join('; ')}`);
    return { results, isolated };
  } finally {
    await ctx.close();
  }
}

/** One fresh context (empty cache, new process state for the origin) per call. */
async function inFreshPage(browser, base, fn, arg) {
  const ctx = await browser.newContext();
  try {
    const page = await ctx.newPage();
    await page.goto(`${base}/cold.html`);
    return await page.evaluate(fn, arg);
  } finally {
    await ctx.close();
  }
}

async function chromiumCold(browser, base, server) {
  const s = { kitImportInit: [], kitInit: [], kitFirst: [], kitFetch: [], kitCompile: [], peerImport: [], peerFirst: [] };
  const fetched = (from) => [...new Set(server.requests.slice(from).filter((p) => p.startsWith('/pkg/')).map((p) => p.slice(5)))];
  let initSet;
  for (let i = 0; i < opt.cold; i++) {
    const from = server.requests.length;
    const k = await inFreshPage(browser, base, async () => {
      const t0 = performance.now();
      const m = await import('/pkg/browser.js');
      const t1 = performance.now();
      await m.init();
      const t2 = performance.now();
      const key = m.ClientKey.generate();
      if (key.publicKeyHex.length !== 130) throw new Error('keygen');
      const t3 = performance.now();
      key.free();
      return [t2 - t0, t2 - t1, t3 - t2];
    });
    initSet ??= fetched(from);
    s.kitImportInit.push(k[0]);
    s.kitInit.push(k[1]);
    s.kitFirst.push(k[2]);
    const p = await inFreshPage(browser, base, async () => {
      const t0 = performance.now();
      const m = await import('/peer.js');
      const t1 = performance.now();
      if (m.generateP256KeyPair().publicKeyUncompressed.length !== 130) throw new Error('keygen');
      return [t1 - t0, performance.now() - t1];
    });
    s.peerImport.push(p[0]);
    s.peerFirst.push(p[1]);
    // Where init() goes: fetching the signing module's bytes, then init() on those bytes
    // (compile + instantiate alone).
    const w = await inFreshPage(browser, base, async () => {
      const m = await import('/pkg/browser.js');
      const t0 = performance.now();
      const bytes = await (await fetch('/pkg/embedded_wallet_kit_bg.wasm')).arrayBuffer();
      const t1 = performance.now();
      await m.init({ module_or_path: bytes });
      return [t1 - t0, performance.now() - t1];
    });
    s.kitFetch.push(w[0]);
    s.kitCompile.push(w[1]);
  }
  // What init({ passkeys: true }) fetches on top of init().
  const from = server.requests.length;
  await inFreshPage(browser, base, async () => {
    const m = await import('/pkg/browser.js');
    await m.init({ passkeys: true });
  });
  const passkeySet = fetched(from).filter((f) => !initSet.includes(f));
  return { stats: Object.fromEntries(Object.entries(s).map(([k, v]) => [k, stats(v)])), initSet, passkeySet };
}

// ---- Node cold init ---------------------------------------------------------------------------
function nodeCold() {
  const child = {
    // The Node entry: reads and instantiates both modules (signing + passkey) at import.
    kitImport: `const t0 = performance.now(); const m = await import(${JSON.stringify(fileUrl(join(pkgDir, 'node.js')))});
      const t1 = performance.now(); m.ClientKey.generate().publicKeyHex; console.log(JSON.stringify([t1 - t0, performance.now() - t1]));`,
    // initSync of the signing module alone on its bytes (the glue imported before t0).
    kitInitSync: `const { readFileSync } = await import('node:fs');
      const g = await import(${JSON.stringify(fileUrl(join(pkgDir, 'embedded_wallet_kit.js')))});
      const t0 = performance.now(); g.initSync({ module: readFileSync(${JSON.stringify(join(pkgDir, 'embedded_wallet_kit_bg.wasm'))}) });
      console.log(JSON.stringify([performance.now() - t0]));`,
    peerImport: `const t0 = performance.now(); const m = await import(${JSON.stringify(fileUrl(join(here, 'peer-entry.mjs')))});
      const t1 = performance.now(); m.generateP256KeyPair(); console.log(JSON.stringify([t1 - t0, performance.now() - t1]));`,
  };
  const s = { kitImport: [], kitFirst: [], kitInitSync: [], peerImport: [], peerFirst: [] };
  for (let i = 0; i < opt.cold; i++) {
    for (const [name, code] of Object.entries(child)) {
      const r = spawnSync(process.execPath, ['--input-type=module', '-e', code], { cwd: root, encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`cold child ${name}: ${r.stderr}`);
      const v = JSON.parse(r.stdout.trim().split('\n').at(-1));
      s[name].push(v[0]);
      if (name === 'kitImport') s.kitFirst.push(v[1]);
      if (name === 'peerImport') s.peerFirst.push(v[1]);
    }
  }
  return Object.fromEntries(Object.entries(s).map(([k, v]) => [k, stats(v)]));
}

// ---- report -----------------------------------------------------------------------------------
const ROWS = [
  { op: 'keygen', kit: 'kit.keygen', peer: 'peer.keygen', floor: 'floor.keygen', floorWhat: 'generateKey + exportKey raw' },
  { op: 'bundle open', kit: 'kit.open', peer: 'peer.open', floor: 'floor.ecdh', floorWhat: 'ECDH only: importKey + deriveBits' },
  { op: '↳ open vs `decryptCredentialBundle` alone', kit: 'kit.open', peer: 'peer.decryptOnly' },
  { op: 'stamp', kit: 'kit.stamp', peer: 'peer.stamp', floor: 'floor.sign', floorWhat: 'subtle.sign' },
  { op: '↳ stamp vs the peer forced to `purejs`', kit: 'kit.stamp', peer: 'peer.stampPurejs' },
  { op: '↳ stamp through `SessionStore` (WebCrypto signer, async)', kit: 'kit.storedStamp', peer: 'peer.stamp' },
  { op: 'signRetry', kit: 'kit.signRetry', peer: 'peer.signRetry', floor: 'floor.sign', floorWhat: 'subtle.sign' },
];

function speedTable(r) {
  const lines = [
    '| operation | kit median / p95 | peer median / p95 | WebCrypto floor median / p95 | kit / peer (median) |',
    '|---|---:|---:|---:|---:|',
  ];
  for (const row of ROWS) {
    if (!r[row.kit]) continue; // not measurable here (SessionStore needs IndexedDB)
    const floor = row.floor ? `${mp(r[row.floor])} (${row.floorWhat})` : '';
    lines.push(`| ${row.op} | ${mp(r[row.kit])} | ${mp(r[row.peer])} | ${floor} | **${ratio(r[row.kit].median, r[row.peer].median)}** |`);
  }
  return lines.join('\n');
}

function report({ node, chrome, isolated, chromeCold, coldNode, size, chromiumVersion, loadAtStart, loadAtEnd, date, payloadBytes }) {
  const c = chromeCold.stats;
  const coldTable = [
    '| cold start | kit median / p95 | peer median / p95 | kit / peer |',
    '|---|---:|---:|---:|',
    `| Chromium: \`await init()\` — fetch + compile + instantiate the signing module | ${mp(c.kitInit, msec)} | (nothing to init) | |`,
    `| ↳ split, in other fresh pages: \`fetch\` + \`arrayBuffer()\` of the .wasm | ${mp(c.kitFetch, msec)} | | |`,
    `| ↳ split: \`await init({ module_or_path: bytes })\` on those bytes — compile + instantiate | ${mp(c.kitCompile, msec)} | | |`,
    `| Chromium: \`import()\` of pkg/browser.js + \`await init()\` · peer: \`import()\` of its bundle | ${mp(c.kitImportInit, msec)} | ${mp(c.peerImport, msec)} | ${ratio(c.kitImportInit.median, c.peerImport.median)} |`,
    `| Chromium: the first keygen after that | ${mp(c.kitFirst, msec)} | ${mp(c.peerFirst, msec)} | ${ratio(c.kitFirst.median, c.peerFirst.median)} |`,
    `| Node: \`initSync\` of the signing module on its bytes (incl. readFileSync) | ${mp(coldNode.kitInitSync, msec)} | | |`,
    `| Node: \`import\` of pkg/node.js (both modules) · peer: \`import\` of both packages | ${mp(coldNode.kitImport, msec)} | ${mp(coldNode.peerImport, msec)} | ${ratio(coldNode.kitImport.median, coldNode.peerImport.median)} |`,
    `| Node: the first keygen after that | ${mp(coldNode.kitFirst, msec)} | ${mp(coldNode.peerFirst, msec)} | ${ratio(coldNode.kitFirst.median, coldNode.peerFirst.median)} |`,
  ].join('\n');

  const { kitInit, kitPasskey, kitWhole, peer, peerLean } = size;
  const vs = (v) => `${ratio(v.gzip, peer.gzip)} / ${ratio(v.brotli, peer.brotli)} | ${ratio(v.gzip, peerLean.gzip)} / ${ratio(v.brotli, peerLean.brotli)}`;
  const row = (name, v, withRatios) =>
    `| ${name} | ${int(v.raw)} | ${int(v.gzip)} (${kb(v.gzip)}) | ${int(v.brotli)} (${kb(v.brotli)}) | ${withRatios ? vs(v) : ' | '} |`;
  const sizeTable = [
    '| what a page loads | raw B | gzip -9 B | brotli q11 B | kit / peer bundle (gzip / brotli) | kit / peer lower bound (gzip / brotli) |',
    '|---|---:|---:|---:|---:|---:|',
    row(`kit: what \`init()\` fetches (${kitInit.files.length} files)`, kitInit.total, true),
    row(`kit: what \`init({ passkeys: true })\` adds (${kitPasskey.files.length} files)`, kitPasskey.total, false),
    row('**kit, whole** (both)', kitWhole, true),
    row(`peer: esbuild ${esbuild.version} bundle (--bundle --minify, ESM, browser), as an app bundles it`, peer, false),
    row('peer, lower bound: the same with one @noble copy and every module side-effect free', peerLean, false),
  ].join('\n');
  const fileRows = [...kitInit.files.map((f) => ['init()', f]), ...kitPasskey.files.map((f) => ['passkeys', f])]
    .map(([set, f]) => `| ${set} | ${f.file} | ${int(f.raw)} | ${int(f.gzip)} | ${int(f.brotli)} |`).join('\n');
  const top = (b) => Object.entries(b.byPackage).sort((x, y) => y[1] - x[1]).slice(0, 8).map(([k, v]) => `${k} ${int(v)}`).join(', ');

  const target = (short, name, measured, met) => ({ short, name, measured, met });
  const speed = (short, op, kitOp, peerOp) => {
    const k = chrome[kitOp].median;
    const p = chrome[peerOp].median;
    return target(short, `${op} in Chromium ≥ ${TARGET.speedup}× faster than the peer`,
      `kit ${us(k)} vs peer ${us(p)}: ${(p / k).toFixed(2)}× faster (kit / peer ${ratio(k, p)})`, p / k >= TARGET.speedup);
  };
  const targets = [
    speed('open', 'bundle open', 'kit.open', 'peer.open'),
    speed('stamp', 'stamp', 'kit.stamp', 'peer.stamp'),
    { ...speed('stored stamp', 'stamp through `SessionStore` (a WebCrypto signer, async and randomized)', 'kit.storedStamp', 'peer.stamp'), info: true },
    target('size', `whole kit ≤ ${kb(TARGET.gzipBytes)} gzip`,
      `${kb(kitWhole.gzip)} gzip: init() ${kb(kitInit.total.gzip)} + passkey module ${kb(kitPasskey.total.gzip)}`, kitWhole.gzip <= TARGET.gzipBytes),
    target('cold init', `cold init ≤ ${TARGET.coldMs} ms (Chromium \`await init()\`, median)`,
      `${msec(c.kitInit.median)} (p95 ${msec(c.kitInit.p95)}); split: fetch ${msec(c.kitFetch.median)}, compile + instantiate `
      + `${msec(c.kitCompile.median)}; Node initSync ${msec(coldNode.kitInitSync.median)}`, c.kitInit.median <= TARGET.coldMs),
  ];
  const verdict = (t) => (t.met ? 'MET' : 'NOT MET') + (t.info ? ' (informational: not the default signer)' : '');
  const targetLine = `Targets (issue 7): kit ≥ ${TARGET.speedup}× faster than the peer on open and stamp in Chromium; kit ≤ 45 KB gzip; `
    + `cold init ≤ ${TARGET.coldMs} ms — ${targets.filter((t) => !t.info).map((t) => `${t.short} **${verdict(t)}**`).join(', ')}.`;

  const cpu = os.cpus();
  const git = (...args) => spawnSync('git', ['-C', root, ...args], { encoding: 'utf8' }).stdout.trim();
  const dirty = git('status', '--porcelain', '--', 'src', 'js', 'Cargo.toml', 'Cargo.lock', 'scripts/build-pkg.sh') !== '';
  const built = statSync(join(pkgDir, 'embedded_wallet_kit_bg.wasm')).mtime.toISOString().slice(0, 16).replace('T', ' ');
  const kitLabel = opt.kitLabel
    ?? (pkgDir === join(root, 'pkg') ? `git ${git('rev-parse', '--short', 'HEAD')}${dirty ? ' plus uncommitted changes' : ''}, pkg/` : pkgDir);
  const version = (p) => `${p} ${JSON.parse(readFileSync(join(root, 'node_modules', p, 'package.json'), 'utf8')).version}`;

  const md = `# Benchmarks: embedded-wallet-kit vs @turnkey/crypto + @turnkey/api-key-stamper

Written by \`make bench\` (\`node bench/run.mjs\`) on ${date} UTC, in one run of ${((Date.now() - started) / 1000).toFixed(0)} s.

- Machine: ${cpu[0]?.model ?? 'unknown CPU'}, ${cpu.length} cores, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, ${os.type()} ${os.release()}
- **Load average (1 / 5 / 15 min): ${loadAtStart} at the start, ${loadAtEnd} at the end** (the run itself keeps up to two cores busy)
- Node ${process.version}; Chromium ${chromiumVersion} (Debian, headless, playwright-core; page served on localhost, cross-origin isolated: ${isolated})
- Kit: ${kitLabel}, built ${built} UTC. Peer: ${version('@turnkey/crypto')}, ${version('@turnkey/api-key-stamper')}. Floor: WebCrypto (\`crypto.subtle\`).
- Iterations: ${opt.warmup} warm-up + ${opt.iters} timed per operation and environment, each call timed alone; p95 by nearest rank. Cold start: ${opt.cold} fresh browser contexts / Node processes per row.
- Inputs: a ${payloadBytes}-byte JSON payload; every open has its own ClientKey (or peer key pair) and bundle, sealed beforehand by @turnkey/crypto; every signRetry a 202 with a fresh requestId.

## Targets

${targetLine}

| target | measured (same run) | verdict |
|---|---|---|
${targets.map((t) => `| ${t.name} | ${t.measured} | **${verdict(t)}** |`).join('\n')}

## Chromium ${chromiumVersion} (headless)

${speedTable(chrome)}

## Node ${process.version}

${speedTable(node)}

kit / peer below 1: the kit is faster (the open and stamp targets need ≤ 0.50 in Chromium).

- keygen: \`ClientKey.generate()\` + reading \`publicKeyHex\` · peer \`generateP256KeyPair()\` (hex private key, compressed and uncompressed public key).
- bundle open: \`Session.open(response, key)\` (parse, base58check, HPKE open, session key and its public key) · peer: \`decryptCredentialBundle(bundle, privateKey)\` + \`getPublicKey(sessionKey, true)\` (the stamper's apiPublicKey) + \`new ApiKeyStamper(...)\`, i.e. ready to stamp; the ↳ row compares with \`decryptCredentialBundle\` alone.
- stamp: \`session.stamp(payload)\` · peer \`ApiKeyStamper.stamp(payload)\` with the runtime it picks: WebCrypto in Chromium (a JWK \`importKey\` on every call, then \`sign\`), \`node:crypto\` in Node; the ↳ row forces its pure-JS path (@noble/curves).
- stamp through \`SessionStore\`: \`await stored.stamp(payload)\` on a session kept by \`SessionStore.save\` — its key a non-extractable WebCrypto key, the signature \`subtle.sign\` (randomized, not RFC 6979), the guards and the DER/JSON/base64url stamp in wasm. Chromium only (IndexedDB).
- signRetry: \`session.signRetry(pending202)\` · peer: the same checks (shape, expiry, one signature per requestId) + \`stamp\` + the two headers.
- WebCrypto floor: native P-256, awaited per call; for open it is the ECDH step alone, for stamp and signRetry the bare ECDSA P-256/SHA-256 signature with an imported key (no DER, JSON or base64url).

## Cold start

${coldTable}

Chromium: every sample is a new browser context (empty cache) on a blank page of the same origin, the files served from
loopback with \`no-store\`; even so a request through Chromium's network stack costs milliseconds here (the split rows).
The first keygen after loading includes building p256's basepoint table (p256 0.14 computes it lazily, on first use) in
not-yet-optimised code.
Node: every sample is a new process.

## Size

${sizeTable}

Below 1: the kit is smaller. The peer has no passkeys: for the same three operations compare the \`init()\` row; the
whole-kit row is what the size target counts. The kit's files are the ones Chromium fetched from pkg/ for \`init()\` and then for
\`init({ passkeys: true })\` in the cold-start pages; compressed as scripts/size.mjs does (gzip -9; brotli q11, text
mode for JS, generic for wasm):

| set | file | raw B | gzip -9 B | brotli q11 B |
|---|---|---:|---:|---:|
${fileRows}

The peer bundle is \`bench/peer-entry.mjs\` (generateP256KeyPair, decryptCredentialBundle, getPublicKey, ApiKeyStamper)
bundled by esbuild for the browser, without legal comments. Largest inputs, bytes in the minified output: ${top(peer)}.
Lower bound: ${top(peerLean)}.

![latencies](latency.png)
`;
  return { md, targetLine };
}

// ---- chart --------------------------------------------------------------------------------
function chartSvg({ chrome, node, chromiumVersion, date, loadAtStart }) {
  const panels = [[`Chromium ${chromiumVersion.split('.')[0]} (headless)`, chrome], [`Node ${process.version}`, node]];
  const groups = [
    ['keygen', 'kit.keygen', 'peer.keygen', 'floor.keygen'],
    ['bundle open', 'kit.open', 'peer.open', 'floor.ecdh'],
    ['stamp', 'kit.stamp', 'peer.stamp', 'floor.sign'],
    ['signRetry', 'kit.signRetry', 'peer.signRetry', 'floor.sign'],
  ];
  const series = [['embedded-wallet-kit', '#2563eb'], ['@turnkey/crypto + api-key-stamper', '#ea580c'], ['WebCrypto (native floor)', '#9ca3af']];
  const all = panels.flatMap(([, r]) => groups.flatMap((g) => g.slice(1).flatMap((k) => [r[k].median, r[k].p95]))).map((ms) => ms * 1000);
  const lo = 10 ** Math.floor(Math.log10(Math.min(...all)));
  const hi = 10 ** Math.ceil(Math.log10(Math.max(...all)));
  const W = 1000;
  const left = 120;
  const plotW = W - left - 60;
  const x = (v) => left + (Math.log10(v / lo) / Math.log10(hi / lo)) * plotW;
  const barH = 17;
  const groupH = barH * 3 + 16;
  const panelH = 34 + groups.length * groupH + 30;
  const top = 84;
  const H = top + panels.length * panelH + 30;
  const esc = (t) => String(t).replace(/&/g, '&amp;').replace(/</g, '&lt;');
  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="DejaVu Sans, Arial, sans-serif" font-size="12">`,
    `<rect width="${W}" height="${H}" fill="#fff"/>`,
    `<text x="20" y="26" font-size="17" font-weight="bold">Latency per operation — bar: median, whisker: p95; log scale, µs (shorter is faster)</text>`,
    `<text x="20" y="46" fill="#444">${esc(`${opt.iters} timed calls after ${opt.warmup} warm-up · ${date} UTC · ${os.cpus().length} cores · load average ${loadAtStart}`)}</text>`,
  ];
  series.forEach(([name, color], i) => {
    const lx = 20 + i * 290;
    out.push(`<rect x="${lx}" y="58" width="14" height="13" fill="${color}"/><text x="${lx + 20}" y="69">${esc(name)}</text>`);
  });
  const ticks = [];
  for (let d = lo; d <= hi; d *= 10) for (const m of [1, 2, 5]) if (d * m <= hi) ticks.push(d * m);
  panels.forEach(([title, r], pi) => {
    const y0 = top + pi * panelH;
    out.push(`<text x="20" y="${y0 + 20}" font-size="15" font-weight="bold">${esc(title)}</text>`);
    const py = y0 + 30;
    const ph = groups.length * groupH;
    for (const t of ticks) {
      out.push(`<line x1="${x(t)}" y1="${py}" x2="${x(t)}" y2="${py + ph}" stroke="${String(t)[0] === '1' ? '#cbd0d6' : '#eceef1'}"/>`);
      out.push(`<text x="${x(t)}" y="${py + ph + 15}" text-anchor="middle" fill="#555" font-size="11">${int(t)}</text>`);
    }
    groups.forEach(([label, ...keys], gi) => {
      const gy = py + gi * groupH + 8;
      out.push(`<text x="${left - 10}" y="${gy + barH * 1.5 + 4}" text-anchor="end" font-weight="bold">${esc(label)}</text>`);
      keys.forEach((k, si) => {
        const by = gy + si * barH;
        const med = r[k].median * 1000;
        const p95 = r[k].p95 * 1000;
        const mid = by + barH / 2 - 1;
        out.push(`<rect x="${left}" y="${by + 1}" width="${Math.max(1, x(med) - left)}" height="${barH - 3}" fill="${series[si][1]}"/>`);
        out.push(`<line x1="${x(med)}" y1="${mid}" x2="${x(p95)}" y2="${mid}" stroke="#222" stroke-width="1.2"/>`);
        out.push(`<line x1="${x(p95)}" y1="${by + 3}" x2="${x(p95)}" y2="${by + barH - 5}" stroke="#222" stroke-width="1.2"/>`);
        out.push(`<text x="${x(p95) + 6}" y="${by + barH - 4}" fill="#111">${int(med)} µs</text>`);
      });
    });
  });
  out.push(`<text x="20" y="${H - 10}" fill="#555">${esc(`kit / peer medians in Chromium: open ${ratio(chrome['kit.open'].median, chrome['peer.open'].median)}, stamp ${ratio(chrome['kit.stamp'].median, chrome['peer.stamp'].median)}. Floor: open = ECDH alone; stamp and signRetry = subtle.sign alone.`)}</text>`);
  out.push('</svg>');
  return out.join('\n');
}

// ---- main -----------------------------------------------------------------------------------
for (const f of ['node.js', 'browser.js', 'embedded_wallet_kit_bg.wasm', 'embedded_wallet_kit_wallet_bg.wasm']) {
  if (!existsSync(join(pkgDir, f))) {
    console.error(`bench: ${join(pkgDir, f)} not found; run \`make build\` first`);
    process.exit(2);
  }
}
mkdirSync(tmpDir, { recursive: true });
if (opt.maxLoad !== null) {
  const deadline = Date.now() + 15 * 60_000;
  while (os.loadavg()[0] > opt.maxLoad && Date.now() < deadline) {
    log(`load average ${loadAvg()} > ${opt.maxLoad}: waiting`);
    await sleep(15_000);
  }
}
const loadAtStart = loadAvg();
log(`load average (1/5/15 min) at the start: ${loadAtStart}; ${opt.warmup} warm-up + ${opt.iters} timed calls per operation`);

log('esbuild: the peer bundle and its lower bound');
const peerFile = join(tmpDir, 'peer.js');
const leanFile = join(tmpDir, 'peer-lean.js');
const peerSize = await bundlePeer(peerFile);
const leanSize = await bundlePeer(leanFile, [leanPlugin]);
await checkLeanBundle(leanFile);

log(`sealing ${N} bundles to peer key pairs (@turnkey/crypto), for both environments`);
const peerBundles = Array.from({ length: N }, () => {
  const kp = generateP256KeyPair();
  return { bundle: sealBundle(randomScalar(), kp.publicKeyUncompressed), privateKey: kp.privateKey, point: kp.publicKeyUncompressed };
});

const kitNode = await import(fileUrl(join(pkgDir, 'node.js')));
const peerNode = await import(fileUrl(join(here, 'peer-entry.mjs')));
const harness = createHarness({ kit: kitNode, peer: peerNode, warmup: opt.warmup, iters: opt.iters });
const node = await runSuite('node', () => harness.prepareKitKeys(), (op, input) => harness.run(op, input), peerBundles);

const server = await serve({ '/peer.js': peerFile, '/bench/suite.mjs': join(here, 'suite.mjs') });
const base = `http://localhost:${server.port}`;
let browser;
try {
  browser = await launchChromium(chromium);
  const chromiumVersion = browser.version();
  const { results: chrome, isolated } = await chromiumSuite(browser, base, peerBundles);
  log(`chromium: cold start, ${opt.cold} fresh contexts each for the kit and the peer`);
  const chromeCold = await chromiumCold(browser, base, server);
  log(`chromium: init() fetched ${chromeCold.initSet.join(', ')}; passkeys add ${chromeCold.passkeySet.join(', ')}`);
  log(`node: cold start, ${opt.cold} fresh processes per row`);
  const coldNode = nodeCold();
  const loadAtEnd = loadAvg();
  log(`load average at the end: ${loadAtEnd}`);

  const kitInit = fileSet(chromeCold.initSet);
  const kitPasskey = fileSet(chromeCold.passkeySet);
  const size = {
    kitInit,
    kitPasskey,
    kitWhole: Object.fromEntries(['raw', 'gzip', 'brotli'].map((k) => [k, kitInit.total[k] + kitPasskey.total[k]])),
    peer: peerSize,
    peerLean: leanSize,
  };
  const date = new Date().toISOString().replace('T', ' ').slice(0, 16);
  const facts = { node, chrome, isolated, chromeCold, coldNode, size, chromiumVersion, loadAtStart, loadAtEnd, date, payloadBytes: harness.payloadBytes };
  const { md, targetLine } = report(facts);
  writeFileSync(join(here, 'results.md'), md);
  log('wrote bench/results.md');

  const ctx = await browser.newContext({ deviceScaleFactor: 2, viewport: { width: 1040, height: 900 } });
  const page = await ctx.newPage();
  await page.setContent(`<!doctype html><html><body style="margin:0;background:#fff">${chartSvg(facts)}</body></html>`);
  await page.locator('svg').screenshot({ path: join(here, 'latency.png') });
  await ctx.close();
  log('wrote bench/latency.png');
  console.log(`\n${targetLine.replace(/\*\*/g, '')}`);
} finally {
  await browser?.close();
  await server.close();
}
