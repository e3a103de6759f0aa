// `make bench`'s verdicts and bench/results.md, from the numbers bench/run.mjs measured.
// Pure functions over plain data (no I/O, no browser), so that tests/js/bench-report.test.mjs
// checks the MET / NOT MET logic on fixed numbers.
//
// An environment (`env`) is one engine's results:
//   { id, title, browser: bool, resolution (ms), isolated, batchNote, error?,
//     speed: { 'kit.keygen': stats | null | { error }, ... },      stats from suite.mjs (ms);
//            kit.* the main entry, signing.* embedded-wallet-kit/signing
//     cold:  { kitInit, firstKeygen, firstOpen, firstStamp, ... }  (browsers; ms)
//     sizes: { init: { files, total }, page: { files, total } } }  (browsers; bytes)

// The four operations both entries run: [name, op suffix, kit / peer limit in browsers].
const ENTRY_OPS = [['keygen', 'keygen', 0.9], ['bundle open', 'open', 0.4], ['stamp', 'stamp', 1.0], ['signRetry', 'signRetry', 1.0]];
/** [name, kit op, peer op, limit] of those four for one entry: `kit` (main) or `signing`, named "<op>, signing entry". */
const entryRatios = (entry) => ENTRY_OPS.map(([name, suffix, limit]) =>
  [entry === 'kit' ? name : `${name}, signing entry`, `${entry}.${suffix}`, `peer.${suffix}`, limit]);

/**
 * The targets, which apply per engine; Node has its own rule.
 * The ratio targets hold for both entries: the main one (kit.*) and
 * `embedded-wallet-kit/signing` (signing.*, the signing module).
 */
export const TARGETS = {
  initGzip: 50 * 1024, // what a signing-only page loads: init() of embedded-wallet-kit/signing
  pageGzip: 100 * 1024, // everything a passkey wallet page loads: signing, passkeys, flows, store
  // kit / peer, medians
  ratios: [
    ...entryRatios('kit'),
    ['stamp, WebCrypto-backed signer (`SessionStore`)', 'kit.storedStamp', 'peer.stamp', 0.5],
    ...entryRatios('signing'),
  ],
  firstMs: 2, // the first keygen / open / stamp after init() resolves
  firsts: [['keygen', 'firstKeygen'], ['open', 'firstOpen'], ['stamp', 'firstStamp']],
  nodeRatio: 1.0, // Node: every operation no slower than the peer
  nodeOps: [...entryRatios('kit'), ...entryRatios('signing')].map(([name, k, p]) => [name, k, p]),
};

export const int = (n) => Math.round(n).toLocaleString('en-US');
export const us = (ms) => `${int(ms * 1000)} µs`;
export const msec = (ms) => `${ms.toFixed(2)} ms`;
export const kb = (b) => `${(b / 1024).toFixed(1)} KB`;
export const ratio = (a, b) => (a / b).toFixed(2);
const ok = (s) => s && typeof s.median === 'number';
const mp = (s, f = us) => (ok(s) ? `${f(s.median)} / ${f(s.p95)}` : s?.error ? `error: ${s.error}` : 'n/a');

/** A target row: `met` true / false, or null when the value could not be measured (n/a). */
function row(target, limit, value, met, detail = '') {
  return { target, limit, value, met, detail };
}

function ratioRow(env, name, kitOp, peerOp, limit) {
  const k = env.speed?.[kitOp];
  const p = env.speed?.[peerOp];
  const label = `${name}: kit / peer`;
  if (!ok(k) || !ok(p)) return row(label, `≤ ${limit.toFixed(2)}`, 'n/a', null, (k?.error ?? p?.error) || 'not measured here');
  const r = k.median / p.median;
  return row(label, `≤ ${limit.toFixed(2)}`, r.toFixed(2), r <= limit, `kit ${us(k.median)} vs peer ${us(p.median)}`);
}

function sizeRow(name, set, limit) {
  if (!set) return row(name, `≤ ${kb(limit)}`, 'n/a', null, 'not measured');
  return row(name, `≤ ${kb(limit)}`, kb(set.total.gzip), set.total.gzip <= limit, `${int(set.total.gzip)} B in ${set.files.length} files`);
}

/** The targets for one environment, each with its value and verdict. */
export function evaluateTargets(env) {
  if (!env.browser) {
    return TARGETS.nodeOps.map(([name, k, p]) => ratioRow(env, name, k, p, TARGETS.nodeRatio));
  }
  const rows = [
    sizeRow('a signing-only page\'s `init()` loads (`embedded-wallet-kit/signing`, gzip -9)', env.sizes?.init, TARGETS.initGzip),
    sizeRow('a passkey wallet page loads (gzip -9)', env.sizes?.page, TARGETS.pageGzip),
    ...TARGETS.ratios.map(([name, k, p, limit]) => ratioRow(env, name, k, p, limit)),
  ];
  for (const [name, key] of TARGETS.firsts) {
    const s = env.cold?.[key];
    const label = `the first ${name} after \`init()\` resolves (median)`;
    rows.push(ok(s)
      ? row(label, `≤ ${TARGETS.firstMs} ms`, msec(s.median), s.median <= TARGETS.firstMs, `p95 ${msec(s.p95)}`)
      : row(label, `≤ ${TARGETS.firstMs} ms`, 'n/a', null, s?.error ?? 'not measured'));
  }
  return rows;
}

export const verdict = (met) => (met === true ? 'MET' : met === false ? 'NOT MET' : 'n/a');

export function targetTable(rows) {
  return [
    '| target | value | limit | verdict | detail |',
    '|---|---:|---:|---|---|',
    ...rows.map((r) => `| ${r.target} | ${r.value} | ${r.limit} | **${verdict(r.met)}** | ${r.detail} |`),
  ].join('\n');
}

/** One line per environment: how many targets are met, and which are not. */
export function summaryLine(env, rows) {
  if (env.error) return `- ${env.title}: **did not run** (${env.error})`;
  const missed = rows.filter((r) => r.met === false).map((r) => r.target);
  const na = rows.filter((r) => r.met === null).length;
  return `- ${env.title}: ${rows.filter((r) => r.met).length} of ${rows.length} MET${na ? `, ${na} n/a` : ''}`
    + (missed.length ? `; NOT MET: ${missed.join('; ')}` : '');
}

const SPEED_ROWS = [
  { op: 'keygen', kit: 'kit.keygen', peer: 'peer.keygen', floor: 'floor.keygen', floorWhat: 'generateKey + exportKey raw' },
  { op: 'bundle open', kit: 'kit.open', peer: 'peer.open', floor: 'floor.ecdh', floorWhat: 'ECDH only: importKey + deriveBits' },
  { op: '↳ open vs `decryptCredentialBundle` alone', kit: 'kit.open', peer: 'peer.decryptOnly' },
  { op: 'stamp', kit: 'kit.stamp', peer: 'peer.stamp', floor: 'floor.sign', floorWhat: 'subtle.sign' },
  { op: '↳ stamp vs the peer forced to `purejs`', kit: 'kit.stamp', peer: 'peer.stampPurejs' },
  { op: '↳ stamp through `SessionStore` (WebCrypto signer, async)', kit: 'kit.storedStamp', peer: 'peer.stamp' },
  { op: 'signRetry', kit: 'kit.signRetry', peer: 'peer.signRetry', floor: 'floor.sign', floorWhat: 'subtle.sign' },
];
// After each main-entry row of a shared operation, the signing entry's, against the same peer and floor.
for (const [name, suffix] of ENTRY_OPS) {
  const main = SPEED_ROWS.findIndex((r) => r.kit === `kit.${suffix}`);
  SPEED_ROWS.splice(main + 1, 0, { ...SPEED_ROWS[main], op: `↳ ${name}, signing entry (\`embedded-wallet-kit/signing\`)`, kit: `signing.${suffix}` });
}

/** Medians and p95 of kit, peer and WebCrypto floor per operation, with calls per sample. */
export function speedTable(speed) {
  const batch = (s) => (ok(s) && s.batch > 1 ? ` ×${s.batch}` : '');
  const lines = [
    '| operation | kit median / p95 | peer median / p95 | WebCrypto floor median / p95 | kit / peer (median) |',
    '|---|---:|---:|---:|---:|',
  ];
  for (const r of SPEED_ROWS) {
    if (speed[r.kit] === null) continue; // not measurable here (SessionStore needs IndexedDB)
    const floor = r.floor ? `${mp(speed[r.floor])}${batch(speed[r.floor])} (${r.floorWhat})` : '';
    const rat = ok(speed[r.kit]) && ok(speed[r.peer]) ? `**${ratio(speed[r.kit].median, speed[r.peer].median)}**` : 'n/a';
    lines.push(`| ${r.op} | ${mp(speed[r.kit])}${batch(speed[r.kit])} | ${mp(speed[r.peer])}${batch(speed[r.peer])} | ${floor} | ${rat} |`);
  }
  return lines.join('\n');
}

/** A browser's cold start: init() and its split, the import against the peer's, the first calls. */
export function browserColdTable(c) {
  const vs = (k, p) => (ok(c[k]) && ok(c[p]) ? ratio(c[k].median, c[p].median) : '');
  return [
    '| cold start (a fresh page each) | kit median / p95 | peer median / p95 | kit / peer |',
    '|---|---:|---:|---:|',
    `| \`await init()\`: fetch + compile + instantiate the signing module (\`embedded-wallet-kit/signing\`) | ${mp(c.kitInit, msec)} | (nothing to init) | |`,
    `| ↳ split, in other fresh pages: \`fetch\` + \`arrayBuffer()\` of the .wasm | ${mp(c.kitFetch, msec)} | | |`,
    `| ↳ split: \`await init({ module_or_path: bytes })\` on those bytes | ${mp(c.kitCompile, msec)} | | |`,
    `| \`import()\` of pkg/browser.js + \`await init()\` · peer: \`import()\` of its bundle | ${mp(c.kitImportInit, msec)} | ${mp(c.peerImport, msec)} | ${vs('kitImportInit', 'peerImport')} |`,
    `| the first keygen after that | ${mp(c.firstKeygen, msec)} | ${mp(c.peerFirst, msec)} | ${vs('firstKeygen', 'peerFirst')} |`,
    `| then the first \`Session.open\` | ${mp(c.firstOpen, msec)} | | |`,
    `| then the first \`stamp\` | ${mp(c.firstStamp, msec)} | | |`,
  ].join('\n');
}

export function nodeColdTable(c) {
  return [
    '| cold start (a fresh process each) | kit median / p95 | peer median / p95 | kit / peer |',
    '|---|---:|---:|---:|',
    `| \`initSync\` of the signing module on its bytes (incl. readFileSync) | ${mp(c.kitInitSync, msec)} | | |`,
    `| \`import\` of pkg/node.js (both modules) · peer: \`import\` of both packages | ${mp(c.kitImport, msec)} | ${mp(c.peerImport, msec)} | ${ratio(c.kitImport.median, c.peerImport.median)} |`,
    `| the first keygen after that | ${mp(c.kitFirst, msec)} | ${mp(c.peerFirst, msec)} | ${ratio(c.kitFirst.median, c.peerFirst.median)} |`,
  ].join('\n');
}

/** The heading of results.md's last section, written by hand: `make bench` keeps it as it is. */
const BY_HAND = '## Measured by hand';

/** `rendered` (a new results.md) followed by the hand-written section of `previous`, if it had one. */
export function keepMeasuredByHand(previous, rendered) {
  const at = previous?.indexOf(`\n${BY_HAND}\n`) ?? -1;
  return at < 0 ? rendered : `${rendered}${previous.slice(at)}`;
}

/** results.md: the header (machine, load), a summary, then a section per environment. */
export function renderResults(f) {
  const rowsOf = new Map(f.envs.map((e) => [e, e.error ? [] : evaluateTargets(e)]));
  const sizeRows = (set, name) => [
    `| ${name} | ${int(set.total.raw)} | ${int(set.total.gzip)} (${kb(set.total.gzip)}) | ${int(set.total.brotli)} (${kb(set.total.brotli)}) | ${ratio(set.total.gzip, f.peer.gzip)} |`,
  ];
  const sized = f.envs.find((e) => e.sizes);
  const section = (e) => {
    if (e.error) return `## ${e.title}\n\nDid not run: ${e.error}\n`;
    const parts = [`## ${e.title}\n`, e.note ? `${e.note}\n` : '', '### Targets\n', targetTable(rowsOf.get(e)), '', '### Speed\n', speedTable(e.speed), ''];
    if (e.cold) parts.push('### Cold start\n', e.browser ? browserColdTable(e.cold) : nodeColdTable(e.cold), '');
    return parts.join('\n');
  };
  return `# Benchmarks: embedded-wallet-kit vs @turnkey/crypto + @turnkey/api-key-stamper

Written by \`make bench\` (\`node bench/run.mjs\`) on ${f.date} UTC, in one run of ${int(f.seconds)} s.

- Machine: ${f.machine}
- **Load average (1 / 5 / 15 min): ${f.loadAtStart} at the start, ${f.loadAtEnd} at the end.** ${f.loadNote}
- Node ${f.nodeVersion}. Kit: ${f.kitLabel}, built ${f.built} UTC. Peer: ${f.peerVersions}. Floor: WebCrypto (\`crypto.subtle\`).
- Iterations: ${f.opt.warmup} warm-up + ${f.opt.iters} timed calls per operation and environment, in each of ${f.opt.passes ?? 1} passes
  over all the operations (fresh keys and bundles each); an operation's figures are those of its pass with the median median. Where the engine's
  \`performance.now()\` is coarse (the resolution is in each section), the calls are timed in batches of ×N calls per sample
  (≥ ${f.ticks} clock ticks each), and median / p95 are over the samples' per-call times. Cold start: ${f.opt.cold} fresh
  pages (Chromium: browser contexts; Firefox, WebKit: navigations in one session) / Node processes per row; in a page,
  the first keygen runs once the page has been idle after \`init()\` resolved (the kit warms up in that idle time).
- Inputs: a ${f.payloadBytes}-byte JSON payload; every open has its own ClientKey (or peer key pair) and bundle, sealed
  beforehand by @turnkey/crypto; every signRetry a 202 with a fresh requestId.

## Summary: the targets, per engine (Chromium is the reference)

${f.envs.map((e) => summaryLine(e, rowsOf.get(e))).join('\n')}

Targets: a signing-only page's \`init()\` ≤ ${kb(TARGETS.initGzip)} gzip; a passkey wallet page ≤ ${kb(TARGETS.pageGzip)}; kit / peer medians:
${TARGETS.ratios.filter(([, k]) => k.startsWith('kit.')).map(([n, , , l]) => `${n} ≤ ${l.toFixed(1)}`).join(', ')} (the first four
for the signing entry too); the first keygen / open / stamp after \`init()\` resolves ≤ ${TARGETS.firstMs} ms; Node: every
operation kit / peer ≤ ${TARGETS.nodeRatio.toFixed(1)}, for both entries.

${f.envs.map(section).join('\n')}
## What the operations are

- keygen: \`ClientKey.generate()\` + reading \`publicKeyHex\` · peer \`generateP256KeyPair()\`.
- bundle open: \`Session.open(response, key)\` · peer \`decryptCredentialBundle\` + \`getPublicKey(sessionKey, true)\` +
  \`new ApiKeyStamper(...)\`, i.e. ready to stamp; the ↳ row compares with \`decryptCredentialBundle\` alone.
- stamp: \`session.stamp(payload)\` · peer \`ApiKeyStamper.stamp(payload)\` with the runtime it picks (WebCrypto in
  browsers: a JWK \`importKey\` on every call, then \`sign\`; \`node:crypto\` in Node); the ↳ row forces its pure-JS path.
- stamp through \`SessionStore\`: a session kept by \`SessionStore.save\`, its key a non-extractable WebCrypto key
  (\`subtle.sign\`, randomized), the guards and the stamp encoding in wasm. Browsers only (IndexedDB).
- signRetry: \`session.signRetry(pending202)\` · peer: the same checks (shape, expiry, one signature per requestId) + \`stamp\`.
- signing entry: the same keygen, open, stamp and signRetry (the same loops) through \`embedded-wallet-kit/signing\`
  (pkg/signing.js; Node: pkg/signing-node.js), the signing module, on ClientKeys of its own.
- WebCrypto floor: native P-256, awaited per call; for open the ECDH step alone, for stamp the bare signature.

## Size

${sized ? `What ${sized.title.split(' (')[0]} fetched from pkg/ (the other engines' sets are in their target rows), compressed
as scripts/size.mjs does (gzip -9; brotli q11):

| what a page loads | raw B | gzip -9 B | brotli q11 B | kit / peer bundle (gzip) |
|---|---:|---:|---:|---:|
${[...sizeRows(sized.sizes.init, `kit: a signing-only page — \`init()\` of \`embedded-wallet-kit/signing\` (${sized.sizes.init.files.length} files)`),
    ...sizeRows(sized.sizes.page, `kit: a passkey wallet page — \`init({ passkeys: true })\` + \`SessionStore.open()\` (${sized.sizes.page.files.length} files)`),
    `| peer: esbuild ${f.esbuildVersion} bundle of bench/peer-entry.mjs (--minify, ESM, browser) | ${int(f.peer.raw)} | ${int(f.peer.gzip)} (${kb(f.peer.gzip)}) | ${int(f.peer.brotli)} (${kb(f.peer.brotli)}) | |`,
    `| peer, lower bound: one @noble copy, every module side-effect free | ${int(f.peerLean.raw)} | ${int(f.peerLean.gzip)} (${kb(f.peerLean.gzip)}) | ${int(f.peerLean.brotli)} (${kb(f.peerLean.brotli)}) | |`,
  ].join('\n')}

| set | file | raw B | gzip -9 B | brotli q11 B |
|---|---|---:|---:|---:|
${[...sized.sizes.init.files.map((x) => ['init()', x]), ...sized.sizes.page.files.filter((x) => !sized.sizes.init.files.some((y) => y.file === x.file)).map((x) => ['page adds', x])]
    .map(([set, x]) => `| ${set} | ${x.file} | ${int(x.raw)} | ${int(x.gzip)} | ${int(x.brotli)} |`).join('\n')}

Largest inputs of the peer bundle (bytes in the minified output): ${f.peerTop}. Lower bound: ${f.leanTop}.` : 'No browser ran: no sizes.'}

![latencies](latency.png)
`;
}

/** The latency chart (SVG; run.mjs screenshots it in Chromium): a panel per environment. */
export function chartSvg(envs, caption) {
  const panels = envs.filter((e) => !e.error);
  const groups = [
    ['keygen', 'kit.keygen', 'peer.keygen', 'floor.keygen'],
    ['bundle open', 'kit.open', 'peer.open', 'floor.ecdh'],
    ['stamp', 'kit.stamp', 'peer.stamp', 'floor.sign'],
    ['signRetry', 'kit.signRetry', 'peer.signRetry', 'floor.sign'],
  ];
  const series = [['embedded-wallet-kit', '#2563eb'], ['@turnkey/crypto + api-key-stamper', '#ea580c'], ['WebCrypto (native floor)', '#9ca3af']];
  const all = panels.flatMap((e) => groups.flatMap((g) => g.slice(1).filter((k) => ok(e.speed[k])).flatMap((k) => [e.speed[k].median, e.speed[k].p95])))
    .map((ms) => ms * 1000).filter((v) => v > 0);
  const lo = 10 ** Math.floor(Math.log10(Math.min(...all)));
  const hi = 10 ** Math.ceil(Math.log10(Math.max(...all)));
  const W = 1000;
  const left = 120;
  const x = (v) => left + (Math.log10(Math.max(v, lo) / lo) / Math.log10(hi / lo)) * (W - left - 60);
  const barH = 17;
  const groupH = barH * 3 + 16;
  const panelH = 34 + groups.length * groupH + 30;
  const top = 84;
  const H = top + panels.length * panelH + 10;
  const esc = (t) => String(t).replace(/&/g, '&amp;').replace(/</g, '&lt;');
  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="DejaVu Sans, Arial, sans-serif" font-size="12">`,
    `<rect width="${W}" height="${H}" fill="#fff"/>`,
    '<text x="20" y="26" font-size="17" font-weight="bold">Latency per operation — bar: median, whisker: p95; log scale, µs (shorter is faster)</text>',
    `<text x="20" y="46" fill="#444">${esc(caption)}</text>`,
  ];
  series.forEach(([name, color], i) => {
    out.push(`<rect x="${20 + i * 290}" y="58" width="14" height="13" fill="${color}"/><text x="${40 + i * 290}" y="69">${esc(name)}</text>`);
  });
  const ticks = [];
  for (let d = lo; d <= hi; d *= 10) for (const m of [1, 2, 5]) if (d * m <= hi) ticks.push(d * m);
  panels.forEach((e, pi) => {
    const y0 = top + pi * panelH;
    out.push(`<text x="20" y="${y0 + 20}" font-size="15" font-weight="bold">${esc(e.title)}</text>`);
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
        const s = e.speed[k];
        if (!ok(s)) return;
        const by = gy + si * barH;
        const [med, p95] = [s.median * 1000, s.p95 * 1000];
        out.push(`<rect x="${left}" y="${by + 1}" width="${Math.max(1, x(med) - left)}" height="${barH - 3}" fill="${series[si][1]}"/>`);
        out.push(`<line x1="${x(med)}" y1="${by + barH / 2 - 1}" x2="${x(p95)}" y2="${by + barH / 2 - 1}" stroke="#222" stroke-width="1.2"/>`);
        out.push(`<line x1="${x(p95)}" y1="${by + 3}" x2="${x(p95)}" y2="${by + barH - 5}" stroke="#222" stroke-width="1.2"/>`);
        out.push(`<text x="${x(p95) + 6}" y="${by + barH - 4}" fill="#111">${int(med)} µs</text>`);
      });
    });
  });
  out.push('</svg>');
  return out.join('\n');
}
