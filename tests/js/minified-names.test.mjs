// The package's JavaScript ships minified (scripts/minify.mjs), which renames what a module
// keeps to itself: the classes and functions page script can reach must keep their names
// (constructor.name, what devtools and logs show). Reachable: every export of the entries
// the package.json exports map names, and the classes whose instances the entries hand out
// (the isolated kit's ClientKey and Session, StoredSession, the store and the keeper).
// The wasm-bindgen glues are not in the exports map. Needs `make build` first.
import { test } from 'node:test';
import assert from 'node:assert/strict';

const pkg = new URL('../../pkg/', import.meta.url);
const ENTRIES = ['browser.js', 'node.js', 'signing.js', 'signing-node.js', 'testing-node.js', 'react.js'];
const HANDED_OUT = { 'signer.js': ['ClientKey', 'Session'], 'session-store-impl.js': ['StoredSession', 'Store'], 'session-keeper-impl.js': ['Keeper'] };

test('every function and class the entries export keeps its name in the minified package', async () => {
  const renamed = [];
  for (const file of ENTRIES) {
    const mod = await import(new URL(file, pkg).href);
    for (const [name, value] of Object.entries(mod)) {
      if (typeof value === 'function' && value.name !== name) renamed.push(`${file}: ${name} is named ${JSON.stringify(value.name)}`);
    }
  }
  assert.deepEqual(renamed, []);
});

test('the classes whose instances the kit hands out keep their names in the minified package', async () => {
  for (const [file, classes] of Object.entries(HANDED_OUT)) {
    const mod = await import(new URL(file, pkg).href);
    for (const name of classes) assert.equal(mod[name]?.name, name, `${file}: ${name}`);
  }
});
