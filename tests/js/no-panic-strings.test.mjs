// The shipped wasm modules carry no panic machinery: they are built no_std with a
// panic handler that traps (bindings/common, feature `trap-panics`, switched on by
// scripts/build-pkg.sh), so a panic is a `RuntimeError: unreachable` and none of std's
// panic messages, their source locations or the formatting code behind them is in the
// module. Had a build linked std's handler (or a formatting one), these strings would
// be back: each is what a panic site leaves in the data section for its message.
//
// The full module is built without whole-module LTO (scripts/build-pkg.sh `no-lto`: its
// operations came out slower with it), so the precompiled panic paths of core and alloc
// keep their static messages and source locations there; it still has none of std's
// panic machinery ("panicked at").
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

/** std's own panic strings, which no module may carry. */
const STD_PANIC_STRINGS = ['panicked at', 'called `Result::unwrap()` on an `Err` value'];
/** The modules built without LTO: core's and alloc's precompiled panic paths keep the rest. */
const WITHOUT_LTO = ['embedded_wallet_kit_bg.wasm'];

for (const name of modules) {
  const withoutLto = WITHOUT_LTO.includes(name);
  const checked = withoutLto ? STD_PANIC_STRINGS : PANIC_STRINGS;
  const what = withoutLto ? 'none of std\'s panic machinery (built without LTO: core\'s own messages stay)' : 'no panic message or panic location';
  test(`${name} carries ${what}`, () => {
    const text = readFileSync(`${pkg}${name}`).toString('latin1');
    const found = checked.filter((s) => text.includes(s));
    assert.deepEqual(found, [], `${name} still has panic strings (std's or a formatting panic handler linked in?)`);
  });
}
