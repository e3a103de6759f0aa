#!/usr/bin/env node
// Checks that a wasm module's generated declarations (wasm-bindgen's <module>.d.ts, written
// from the `///` docs and `unchecked_*_type` attributes of its binding crate) equal, byte for
// byte, the copy in tests/types/glue/ that `make lint-js` type-checks npm/ against before any
// build. It edits nothing: UPDATE_GLUE_TYPES=1 copies the generated file over the one in the
// tree instead of failing. Run by scripts/build-pkg.sh.
//
// Usage: node scripts/check-glue-types.mjs <generated module.d.ts> <copy in the tree>
import { readFileSync, copyFileSync, existsSync } from 'node:fs';

const [generated, copy] = process.argv.slice(2);
if (!generated || !copy) {
  console.error('[check-glue-types] usage: node scripts/check-glue-types.mjs <generated module.d.ts> <copy in the tree>');
  process.exit(1);
}
if (process.env.UPDATE_GLUE_TYPES === '1') {
  copyFileSync(generated, copy);
  console.log(`[check-glue-types] ${copy} rewritten from ${generated}`);
  process.exit(0);
}
const want = readFileSync(generated, 'utf8').split('\n');
const have = existsSync(copy) ? readFileSync(copy, 'utf8').split('\n') : [];
let line = 0;
while (line < Math.max(want.length, have.length) && want[line] === have[line]) line += 1;
if (line < Math.max(want.length, have.length)) {
  console.error(`[check-glue-types] ${copy} is stale (first difference at line ${line + 1}:\n` +
    `  in the tree: ${have[line] ?? '<end>'}\n  generated:   ${want[line] ?? '<end>'}\n` +
    `a binding crate's Rust docs or types changed: run UPDATE_GLUE_TYPES=1 make build and commit ${copy}`);
  process.exit(1);
}
console.log(`[check-glue-types] ${copy} equals ${generated}`);
