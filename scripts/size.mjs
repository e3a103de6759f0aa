#!/usr/bin/env node
// Prints raw, gzip (-9) and brotli (q11) sizes of what a browser loads from pkg/ — the
// browser entry, its imports, the wasm-bindgen glue, the KitError snippet and the .wasm
// (not the Node entry) — and exits non-zero when the gzip total passes the budget.
//
// Usage: node scripts/size.mjs [pkgDir] [--budget BYTES]
import { readFileSync, readdirSync, statSync, existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import { gzipSync, brotliCompressSync, constants } from 'node:zlib';

const args = process.argv.slice(2);
let pkgDir = 'pkg';
let budget = 80 * 1024; // 81,920 bytes
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--budget') budget = Number(args[++i]);
  else pkgDir = args[i];
}
if (!existsSync(join(pkgDir, 'browser.js'))) {
  console.error(`size: ${pkgDir}/browser.js not found; run \`make build\` first`);
  process.exit(2);
}

function walk(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...walk(p));
    else out.push(p);
  }
  return out;
}

const files = [
  'browser.js',
  'guard.js',
  'kit-error.js',
  'embedded_wallet_kit.js',
  ...walk(join(pkgDir, 'snippets')).filter((p) => p.endsWith('.js')).map((p) => relative(pkgDir, p)),
  'embedded_wallet_kit_bg.wasm',
];

const rows = files.map((f) => {
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
});
const total = rows.reduce((t, r) => ({ file: 'total', raw: t.raw + r.raw, gzip: t.gzip + r.gzip, brotli: t.brotli + r.brotli }),
  { file: 'total', raw: 0, gzip: 0, brotli: 0 });

const fmt = (n) => n.toLocaleString('en-US');
const w = Math.max(...rows.map((r) => r.file.length), 5);
const line = (r) => `| ${r.file.padEnd(w)} | ${fmt(r.raw).padStart(9)} | ${fmt(r.gzip).padStart(9)} | ${fmt(r.brotli).padStart(9)} |`;
console.log(`| ${'file'.padEnd(w)} | ${'raw'.padStart(9)} | ${'gzip -9'.padStart(9)} | ${'brotli 11'.padStart(9)} |`);
console.log(`|${'-'.repeat(w + 2)}|${'-'.repeat(11)}|${'-'.repeat(11)}|${'-'.repeat(11)}|`);
for (const r of rows) console.log(line(r));
console.log(line(total));

const kb = (n) => (n / 1024).toFixed(1);
if (total.gzip > budget) {
  console.error(`size: FAIL — gzip total ${fmt(total.gzip)} B (${kb(total.gzip)} KB) exceeds the budget of ${fmt(budget)} B (${kb(budget)} KB)`);
  process.exit(1);
}
console.log(`size: ok — gzip total ${fmt(total.gzip)} B (${kb(total.gzip)} KB) within the budget of ${fmt(budget)} B (${kb(budget)} KB); brotli ${fmt(total.brotli)} B`);
