// The shipped wasm modules carry no panic machinery: they are built no_std with a
// panic handler that traps (bindings/common, feature `trap-panics`, switched on by
// scripts/build-pkg.sh), so a panic is a `RuntimeError: unreachable` and none of std's
// panic messages, their source locations or the formatting code behind them is in the
// module. Had a build linked std's handler (or a formatting one), these strings would
// be back: each is what a panic site leaves in the data section for its message.
// Every module is built with whole-module LTO (scripts/build-pkg.sh), which also drops
// the precompiled panic paths of core and alloc with their messages and source locations.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const pkg = fileURLToPath(new URL('../../pkg/', import.meta.url));
const modules = readdirSync(pkg).filter((f) => f.endsWith('_bg.wasm')).sort();

const PANIC_STRINGS = [
  'panicked at',
  'called `Option::unwrap()` on a `None` value',
  'called `Result::unwrap()` on an `Err` value',
  'index out of bounds: the len is ',
  'byte index ',
  'capacity overflow',
  // Panic locations: the paths of the standard library's sources.
  '/rustc/',
  'library/core/src/',
  'library/alloc/src/',
];

test('pkg/ holds the shipped wasm modules', () => {
  assert.ok(modules.length >= 2, `expected the shipped modules in pkg/, found: ${modules.join(', ') || 'none'} (run make build)`);
});

for (const name of modules) {
  test(`${name} carries no panic message or panic location`, () => {
    const text = readFileSync(`${pkg}${name}`).toString('latin1');
    const found = PANIC_STRINGS.filter((s) => text.includes(s));
    assert.deepEqual(found, [], `${name} still has panic strings (std's or a formatting panic handler linked in?)`);
  });
}
