#!/usr/bin/env node
// Writes the package's JavaScript into the output directory, minified file by file (run by
// scripts/build-pkg.sh on npm/*.js and on the glues wasm-bindgen generated), so that a page
// that loads pkg/ as it is, without a bundler, loads less; nothing is edited in place. Names
// a module exports by declaration are kept (esbuild's transform without an output format
// renames only the rest: tests/js/minified-names.test.mjs); the target is the edition the
// package promises (npm/README.md); every `new URL('…', import.meta.url)` (the .wasm and
// Worker URLs bundlers look for) must come out as it went in, or the build fails. With
// --map, each file also gets FILE.map holding its source as written (the glues get none:
// they are generated from the Rust bindings). --define NAME=VALUE sets `import.meta.NAME`
// to the string VALUE (esbuild's `define`); the build fails unless some file reads it.
//
// Usage: node scripts/minify.mjs --out DIR [--map] [--define NAME=VALUE]... FILE...
import { readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { parseArgs } from 'node:util';
import { transformSync } from 'esbuild';

const { values, positionals: files } = parseArgs({
  options: { out: { type: 'string' }, map: { type: 'boolean', default: false }, define: { type: 'string', multiple: true, default: [] } },
  allowPositionals: true,
});
if (!values.out || files.length === 0) {
  console.error('usage: node scripts/minify.mjs --out DIR [--map] [--define NAME=VALUE]... FILE...');
  process.exit(2);
}
const define = Object.fromEntries(values.define.map((d) => {
  const eq = d.indexOf('=');
  return [`import.meta.${d.slice(0, eq)}`, JSON.stringify(d.slice(eq + 1))];
}));
const unread = new Set(Object.keys(define));

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
  define,
  ...(values.map ? { sourcemap: 'external', sourcefile: `src/${name}`, sourcesContent: true } : {}),
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
  for (const key of unread) if (source.includes(key.slice('import.meta.'.length)) && out.code.includes(define[key])) unread.delete(key);
  const target = join(values.out, name);
  writeFileSync(target, values.map ? `${out.code}//# sourceMappingURL=${name}.map\n` : out.code);
  if (values.map) writeFileSync(`${target}.map`, out.map);
}
if (unread.size > 0) {
  console.error(`[minify] no file reads ${[...unread].join(', ')}: its --define would change nothing`);
  process.exit(1);
}
