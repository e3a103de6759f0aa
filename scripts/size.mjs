#!/usr/bin/env node
// Prints raw, gzip (-9) and brotli (q11) sizes of what a browser loads from pkg/, in two
// tables, and exits non-zero when either gzip total passes its budget:
//
//   1. what `init()` loads: the browser entry and everything it imports statically
//      (platform.js, guard.js, kit-error.js, passkey.js — the small `passkey` namespace is part of the
//      entry — wallet-client.js and session-store.js, the WalletClient and SessionStore
//      classes without their implementations, and isolated-boot.js, the isolated signer's
//      bootstrap), the signing module's wasm-bindgen glue, the KitError snippet and
//      its .wasm. Budget 92 KB gzip: 80 KB until the newer-deployment exports (encryptOtp,
//      openWalletExport, ClientKey.signRetry: +10.3 KB) joined the signing module; they
//      need the ClientKey's secret, so they cannot move to a lazy module as they are.
//   2. what `init({ passkeys: true })`, the first passkey call or the first WalletClient
//      call loads on top: the wallet module's glue and .wasm, which carry the WebAuthn
//      ceremonies and the flow drivers behind WalletClient. Budget 70 KB gzip (45 KB
//      before the flow drivers moved here out of what init() loads).
//   3. for information only, no budget: what the first WalletClient flow call or
//      `init({ passkeys: true })` loads on top of the wallet module (wallet-client-impl.js,
//      WalletClient's implementation: the async loop around the flow drivers); what the
//      first `SessionStore.open()` loads on top (session-store-impl.js); and what the `embedded-wallet-kit/testing` entry (the
//      software authenticator, for tests) loads — testing.js, its glue and .wasm, which
//      apps never load.
//
// The Node entries are not counted.
//
// Usage: node scripts/size.mjs [pkgDir] [--budget BYTES] [--passkey-budget BYTES]
// Module (bench/run.mjs): the module file names, measure() and the tables' file lists.
import { readFileSync, readdirSync, statSync, existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gzipSync, brotliCompressSync, constants } from 'node:zlib';

/** The wasm modules' base names: each ships as NAME.js (wasm-bindgen glue) + NAME_bg.wasm. */
export const MODULES = {
  signing: 'embedded_wallet_kit',
  passkey: 'embedded_wallet_kit_wallet',
  testing: 'embedded_wallet_kit_testing',
};
export const glue = (module) => `${MODULES[module]}.js`;
export const wasm = (module) => `${MODULES[module]}_bg.wasm`;
export const BUDGETS = { init: 97 * 1024, passkey: 70 * 1024 }; // 99,328 and 71,680 bytes

function walk(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...walk(p));
    else out.push(p);
  }
  return out;
}

const fmt = (n) => n.toLocaleString('en-US');
const kb = (n) => (n / 1024).toFixed(1);

/** Raw, gzip -9 and brotli q11 (text mode for JS, generic for wasm) sizes of pkgDir/f. */
export function measure(pkgDir, f) {
  const buf = readFileSync(join(pkgDir, f));
  return {
    file: f,
    raw: buf.length,
    gzip: gzipSync(buf, { level: 9 }).length,
    brotli: brotliCompressSync(buf, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: 11,
        [constants.BROTLI_PARAM_SIZE_HINT]: buf.length,
        [constants.BROTLI_PARAM_MODE]: f.endsWith('.wasm') ? constants.BROTLI_MODE_GENERIC : constants.BROTLI_MODE_TEXT,
      },
    }).length,
  };
}

/** The sum of measure() rows. */
export const total = (rows) => rows.reduce((t, r) => ({ ...t, raw: t.raw + r.raw, gzip: t.gzip + r.gzip, brotli: t.brotli + r.brotli }),
  { file: 'total', raw: 0, gzip: 0, brotli: 0 });

/** Prints one table; returns whether its gzip total is within `limit` (no limit: informational, true). */
function table(pkgDir, title, files, limit) {
  const rows = files.map((f) => measure(pkgDir, f));
  const sum = total(rows);
  const w = Math.max(...rows.map((r) => r.file.length), 5);
  const line = (r) => `| ${r.file.padEnd(w)} | ${fmt(r.raw).padStart(9)} | ${fmt(r.gzip).padStart(9)} | ${fmt(r.brotli).padStart(9)} |`;
  console.log(`\n${title}\n`);
  console.log(`| ${'file'.padEnd(w)} | ${'raw'.padStart(9)} | ${'gzip -9'.padStart(9)} | ${'brotli 11'.padStart(9)} |`);
  console.log(`|${'-'.repeat(w + 2)}|${'-'.repeat(11)}|${'-'.repeat(11)}|${'-'.repeat(11)}|`);
  for (const r of rows) console.log(line(r));
  console.log(line(sum));
  if (limit === undefined) {
    console.log(`size: info — ${title.split(':')[0]}: gzip total ${fmt(sum.gzip)} B (${kb(sum.gzip)} KB), no budget; brotli ${fmt(sum.brotli)} B`);
    return true;
  }
  const ok = sum.gzip <= limit;
  const verdict = ok ? 'ok' : 'FAIL';
  const relation = ok ? 'within' : 'exceeds';
  const say = ok ? console.log : console.error;
  say(`size: ${verdict} — ${title.split(':')[0]}: gzip total ${fmt(sum.gzip)} B (${kb(sum.gzip)} KB) ${relation} the budget of ${fmt(limit)} B (${kb(limit)} KB); brotli ${fmt(sum.brotli)} B`);
  return ok;
}

/** The tables: [title, files of pkgDir, gzip budget or undefined (informational)]. */
export function sizeTables(pkgDir, budgets = BUDGETS) {
  return [
    ['init(): browser entry + signing module', [
      'browser.js',
      'platform.js',
      'guard.js',
      'kit-error.js',
      'passkey.js',
      'wallet-client.js',
      'session-store.js',
      'session-keeper.js',
      'isolated-boot.js',
      glue('signing'),
      ...walk(join(pkgDir, 'snippets')).filter((p) => p.endsWith('.js')).map((p) => relative(pkgDir, p)),
      wasm('signing'),
    ], budgets.init],
    ['wallet module: loaded by init({ passkeys: true }) or the first passkey call', [
      glue('passkey'),
      wasm('passkey'),
    ], budgets.passkey],
    ['WalletClient implementation (informational, in no budget): loaded with the wallet module by init({ passkeys: true }) or the first WalletClient flow call', [
      'wallet-client-impl.js',
    ]],
    ['session store (informational, in no budget): loaded by the first SessionStore.open()', [
      'session-store-impl.js',
    ]],
    ['session keeper (informational, in no budget): loaded by the first new SessionKeeper()', [
      'session-keeper-impl.js',
    ]],
    ['isolated signer (informational, in no budget): loaded by init({ isolate: \'worker\' }), in the page and in its Worker', [
      'isolated.js',
      'signer-worker.js',
    ]],
    // Shared files it imports (kit-error.js and the snippet, guard.js) are in the first table.
    ['testing module (informational, in no budget): embedded-wallet-kit/testing in the browser', [
      'testing.js',
      glue('testing'),
      wasm('testing'),
    ]],
  ];
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const args = process.argv.slice(2);
  let pkgDir = 'pkg';
  const budgets = { ...BUDGETS };
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--budget') budgets.init = Number(args[++i]);
    else if (args[i] === '--passkey-budget') budgets.passkey = Number(args[++i]);
    else pkgDir = args[i];
  }
  for (const f of ['browser.js', wasm('passkey'), wasm('testing')]) {
    if (!existsSync(join(pkgDir, f))) {
      console.error(`size: ${pkgDir}/${f} not found; run \`make build\` first`);
      process.exit(2);
    }
  }
  // Every table is printed; only the budgeted ones decide the exit code.
  const ok = sizeTables(pkgDir, budgets).map(([title, files, limit]) => table(pkgDir, title, files, limit));
  process.exit(ok.every(Boolean) ? 0 : 1);
}
