#!/usr/bin/env node
// Prints raw, gzip (-9) and brotli (q11) sizes of what a browser loads from pkg/, in
// tables, and exits non-zero when a budgeted gzip total passes its budget. Each page loads
// exactly one wasm module: the signing module (the `embedded-wallet-kit/signing` entry)
// or the wallet module (the main entry).
//
//   1. a signing-only page: what the signing entry's `init()` loads: npm/signing.js and
//      what it imports statically (the signing module's glue among them), and .wasm.
//      Budget: see BUDGETS below (target: 50 KB).
//   2. a passkey wallet page: the main entry's `init()` (browser.js and everything it
//      imports statically, the wallet module's glue, the snippet and its .wasm without the
//      enclave exports: a plain `init()` loads that build) plus the JS a
//      wallet page loads on top: WalletClient's implementation (wallet-client-impl.js),
//      the session store's (session-store-impl.js) and the keeper's
//      (session-keeper-impl.js). Budget: see BUDGETS below (target: 100 KB).
//   3. for information only, no budget: the same page with `init({ enclave: true })` (the
//      wallet module's build with encryptOtp and openWalletExport); the main entry's `init()` alone; the isolated
//      signer (signer.js, signer-boot.js and signer-worker.js, and the wallet module again, in the
//      Worker); the `embedded-wallet-kit/testing` entry (the software authenticator, for
//      tests), which apps never load.
//
// The Node entries are not counted.
//
// Usage: node scripts/size.mjs [pkgDir] [--signing-budget BYTES] [--wallet-budget BYTES]
// Module (bench/run.mjs): the module file names, measure() and the tables' file lists.
import { readFileSync, existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gzipSync, brotliCompressSync, constants } from 'node:zlib';
import { buildSync } from 'esbuild';

/** The wasm modules' base names: each ships as NAME.js (wasm-bindgen glue) + NAME_bg.wasm. */
export const MODULES = {
  wallet: 'embedded_wallet_kit',
  signing: 'embedded_wallet_kit_signing',
  testing: 'embedded_wallet_kit_testing',
};
export const glue = (module) => `${MODULES[module]}.js`;
export const wasm = (module) => `${MODULES[module]}_bg.wasm`;
/** The wallet module's build without the enclave exports (a plain init() of the main entry; the wallet module's glue drives it). */
export const noEnclaveWasm = `${MODULES.wallet}_no_enclave_bg.wasm`;
// What was measured, rounded up to the next KB; lowered with every change that shrinks a
// page by more than the headroom. The targets are 50 and 100 KB (make bench reports them).
export const BUDGETS = { signing: 55 * 1024, wallet: 112 * 1024 }; // 56,320 and 114,688 bytes


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

/**
 * The files of `pkgDir` that `entry` loads with it (itself and its static imports, in the
 * order they are reached) and the targets of its `import()` calls, as esbuild reads them.
 */
export function importGraph(pkgDir, entry) {
  const { metafile } = buildSync({
    entryPoints: [join(pkgDir, entry)],
    bundle: true,
    splitting: true,
    format: 'esm',
    write: false,
    outdir: join(pkgDir, 'unused-out'),
    metafile: true,
    logLevel: 'silent',
  });
  const cwd = process.cwd();
  const inputs = new Map(Object.entries(metafile.inputs).map(([p, input]) => [relative(pkgDir, join(cwd, p)), input]));
  const statics = [];
  const dynamic = new Set();
  const visit = (file) => {
    if (statics.includes(file)) return;
    statics.push(file);
    for (const edge of inputs.get(file)?.imports ?? []) {
      const target = relative(pkgDir, join(cwd, edge.path));
      if (edge.kind === 'import-statement') visit(target);
      else if (edge.kind === 'dynamic-import') dynamic.add(target);
    }
  };
  visit(entry);
  return { statics, dynamic };
}

/** What `entries` load with them, each file once, leaving out `already`. */
const loadedWith = (pkgDir, entries, already = []) =>
  [...new Set(entries.flatMap((entry) => importGraph(pkgDir, entry).statics))].filter((f) => !already.includes(f));

/**
 * What the main entry's init() loads: browser.js, its static imports (the wallet module's
 * glue among them) and the wallet module's build without the enclave exports (`enclave`:
 * with them, init({ enclave: true })).
 */
export const mainInitFiles = (pkgDir, enclave = false) => [...loadedWith(pkgDir, ['browser.js']), enclave ? wasm('wallet') : noEnclaveWasm];

/** The JS a passkey wallet page loads on top of init(): WalletClient's, the store's and the keeper's implementations. */
const WALLET_PAGE_IMPLS = ['wallet-client-impl.js', 'session-store-impl.js', 'session-keeper-impl.js'];

/** The tables: [title, files of pkgDir, gzip budget or undefined (informational)]. */
export function sizeTables(pkgDir, budgets = BUDGETS) {
  const mainInit = mainInitFiles(pkgDir);
  const walletPage = [...mainInit, ...loadedWith(pkgDir, WALLET_PAGE_IMPLS, mainInit)];
  const signingPage = [...loadedWith(pkgDir, ['signing.js']), wasm('signing')];
  return [
    ['signing-only page: init() of embedded-wallet-kit/signing (signing module)', signingPage, budgets.signing],
    ['passkey wallet page: init() of embedded-wallet-kit (wallet module) + WalletClient, SessionStore and SessionKeeper implementations',
      walletPage, budgets.wallet],
    ['passkey wallet page with the enclave exports (informational, in no budget): the same with init({ enclave: true }), which loads the wallet module\'s build with encryptOtp and openWalletExport',
      walletPage.map((f) => (f === noEnclaveWasm ? wasm('wallet') : f))],
    ['main entry init() (informational, in no budget): embedded-wallet-kit\'s init() alone', mainInit],
    ['isolated signer (informational, in no budget): loaded by init({ isolate: \'worker\' }) on top of the main entry; its Worker loads the wallet module again', [
      ...loadedWith(pkgDir, ['signer.js', 'signer-boot.js', 'signer-worker.js', glue('wallet')], mainInit.filter((f) => f !== glue('wallet'))),
      wasm('wallet'),
    ]],
    // Shared files it imports (platform.js, guard.js) are in the first table.
    ['testing module (informational, in no budget): embedded-wallet-kit/testing in the browser',
      [...loadedWith(pkgDir, ['testing.js'], signingPage), wasm('testing')]],
  ];
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const args = process.argv.slice(2);
  let pkgDir = 'pkg';
  const budgets = { ...BUDGETS };
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--signing-budget') budgets.signing = Number(args[++i]);
    else if (args[i] === '--wallet-budget') budgets.wallet = Number(args[++i]);
    else pkgDir = args[i];
  }
  for (const f of ['browser.js', 'signing.js', wasm('wallet'), noEnclaveWasm, wasm('signing'), wasm('testing')]) {
    if (!existsSync(join(pkgDir, f))) {
      console.error(`size: ${pkgDir}/${f} not found; run \`make build\` first`);
      process.exit(2);
    }
  }
  // Every table is printed; only the budgeted ones decide the exit code.
  const ok = sizeTables(pkgDir, budgets).map(([title, files, limit]) => table(pkgDir, title, files, limit));
  process.exit(ok.every(Boolean) ? 0 : 1);
}
