// init()'s argument, read alike by both entries (npm/guard.js): an options object —
// any plain object, `{}` and `{ passkeys: false }` too — or where to load the module from.
// Before it was shared, the signing entry handed `{}`, `{ passkeys: false }` and
// `{ isolate: null }` to wasm-bindgen's loader as the module itself (NOT_INITIALIZED in a
// browser). Options are read as own data properties (npm/guard.js; tests/js/options.test.mjs).
// Needs `make build`.
import { test } from 'node:test';
import assert from 'node:assert/strict';

const { readInit } = await import('../../pkg/guard.js');
const { refuseMainOptions } = await import('../../pkg/signing-options.js');
const { KitError } = await import('../../pkg/kit-error.js');

test('an options object without a module has no source: the entry loads its own module', () => {
  for (const options of [undefined, null, {}, { passkeys: false }, { isolate: null }, { passkeys: true }, { module_or_path: undefined }, { module_or_path: null }, Object.create(null)]) {
    assert.equal(readInit(options).source ?? undefined, undefined, JSON.stringify(options));
  }
});

test('a module source, bare or as module_or_path, is the source as it is; a bare one is no options object', () => {
  const bytes = new Uint8Array([0, 97, 115, 109]);
  const url = new URL('https://example.test/x_bg.wasm');
  const response = new Response(bytes);
  const pending = Promise.resolve(bytes);
  for (const source of [bytes, bytes.buffer, url, 'x_bg.wasm', response, pending]) {
    const bare = readInit(source);
    assert.equal(bare.source, source);
    assert.equal(bare.passkeys, undefined, 'a bare source holds no options');
    assert.equal(readInit({ module_or_path: source, passkeys: true }).source, source);
  }
  // Any object with an option of its own is options (a class instance too).
  class Options {
    module_or_path = url;
  }
  assert.equal(readInit(new Options()).source, url);
});

test('the signing entry refuses the main entry\'s options only when they are set', async () => {
  for (const options of [undefined, null, {}, { passkeys: false }, { isolate: null }, { passkeys: undefined }, { enclave: false }, new URL('https://example.test/')]) {
    assert.equal(refuseMainOptions(readInit(options)), undefined, JSON.stringify(options));
  }
  for (const [options, name] of [[{ passkeys: true }, 'passkeys'], [{ isolate: 'worker' }, 'isolate'], [{ passkeys: {} }, 'passkeys'], [{ enclave: true }, 'enclave']]) {
    await assert.rejects(refuseMainOptions(readInit(options)), (err) => err instanceof KitError && err.code === 'INVALID_INPUT' && err.message.includes(name));
  }
});
