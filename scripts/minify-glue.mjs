#!/usr/bin/env node
// Minifies wasm-bindgen's generated glue in place (run by scripts/build-pkg.sh after
// scripts/harden-glue.mjs): its source is the Rust bindings, so nothing readable is lost,
// and a page that loads pkg/ as it is (no bundler) saves about a fifth of the glue's gzip
// size. esbuild's transform without an output format keeps the exported names (classes
// keep their `name`) and renames only what the module keeps to itself; the target is the
// ECMAScript edition the package promises (pkg-template/README.md), so nothing newer is
// introduced. The `new URL('…_bg.wasm', import.meta.url)` that bundlers look for stays as
// it is: the build fails if it did not.
//
// Usage: node scripts/minify-glue.mjs pkg/embedded_wallet_kit.js [more glue files ...]
import { readFileSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import { transformSync } from 'esbuild';

for (const file of process.argv.slice(2)) {
  const source = readFileSync(file, 'utf8');
  const { code } = transformSync(source, { minify: true, target: 'es2022', legalComments: 'none', charset: 'utf8' });
  const wasmUrl = `new URL("${basename(file, '.js')}_bg.wasm",import.meta.url)`;
  if (!code.includes(wasmUrl)) {
    console.error(`[minify-glue] ${file}: the minified glue lost ${wasmUrl}, which bundlers need`);
    process.exit(1);
  }
  writeFileSync(file, code);
}
