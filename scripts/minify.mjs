#!/usr/bin/env node
// Minifies the package's JavaScript in place, file by file (run by scripts/build-pkg.sh on
// every .js it ships), so that a page that loads pkg/ as it is, without a bundler, loads
// less. Names a module exports by declaration are kept (esbuild's transform without an
// output format renames only the rest: tests/js/minified-names.test.mjs); the target is
// the edition the package promises (npm/README.md); every
// `new URL('…', import.meta.url)` (the .wasm and Worker URLs bundlers look for) must come
// out as it went in, or the build fails. With --map, each FILE also gets FILE.map holding
// its source as written; the glues get none (generated from the Rust bindings).
//
// Usage: node scripts/minify.mjs [--map] FILE...
import { readFileSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import { transformSync } from 'esbuild';

const args = process.argv.slice(2);
const withMap = args[0] === '--map';
const files = withMap ? args.slice(1) : args;

// The distinct URLs, each marked with whether a `new Worker(` takes it (bundlers look for
// `new Worker(new URL('…', import.meta.url))` literally).
const assetUrls = (code) => [...new Set([...code.matchAll(/(new Worker\(\s*)?new URL\(\s*(['"])([^'"]+)\2\s*,\s*import\.meta\.url\s*\)/g)].map((m) => `${m[1] ? 'Worker ' : ''}${m[3]}`))].sort();

/** esbuild's minified form of `source`; renaming locals is optional (see below). */
const minify = (source, name, minifyIdentifiers) => transformSync(source, {
  minifyWhitespace: true,
  minifySyntax: true,
  minifyIdentifiers,
  target: 'es2022',
  legalComments: 'none',
  charset: 'utf8',
  ...(withMap ? { sourcemap: 'external', sourcefile: `src/${name}`, sourcesContent: true } : {}),
});

for (const file of files) {
  const source = readFileSync(file, 'utf8');
  const name = basename(file);
  // Read from the source re-printed without its comments, where one may name a URL too.
  const urls = JSON.stringify(assetUrls(transformSync(source, { target: 'es2022', legalComments: 'none' }).code));
  let out = minify(source, name, true);
  // A module that names its own `URL` (or `Worker`) so that the bundlers' pattern reads
  // literally (npm/signer-boot.js) keeps its names.
  if (JSON.stringify(assetUrls(out.code)) !== urls) out = minify(source, name, false);
  if (JSON.stringify(assetUrls(out.code)) !== urls) {
    console.error(`[minify] ${file}: new URL(…, import.meta.url) went from ${urls} to ${JSON.stringify(assetUrls(out.code))}; bundlers need them as written`);
    process.exit(1);
  }
  writeFileSync(file, withMap ? `${out.code}//# sourceMappingURL=${name}.map\n` : out.code);
  if (withMap) writeFileSync(`${file}.map`, out.map);
}
