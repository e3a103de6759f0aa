// init()'s argument, read alike by both entries (js/init-input.js): an options object —
// any plain object, `{}` and `{ passkeys: false }` too — or where to load the module from.
// Before it was shared, the signing entry handed `{}`, `{ passkeys: false }` and
// `{ isolate: null }` to wasm-bindgen's loader as the module itself (NOT_INITIALIZED in a
// browser). Options are read as own data properties (js/options.js; tests/js/options.test.mjs).
// Needs `make build`.
import { test } from 'node:test';
import assert from 'node:assert/strict';

const { isOptions, readInit, wasmSource, refuseMainOptions } = await import('../../pkg/init-input.js');
const load = (input, ownModule) => wasmSource(readInit(input).source, ownModule);
const { KitError } = await import('../../pkg/kit-error.js');

const own = new URL('https://example.test/own_bg.wasm');
const ownModule = () => own;

test('an options object without a module loads the entry\'s own module', () => {
  for (const options of [undefined, null, {}, { passkeys: false }, { isolate: null }, { passkeys: true }, { module_or_path: undefined }, { module_or_path: null }, Object.create(null)]) {
    assert.deepEqual(load(options, ownModule), { module_or_path: own }, JSON.stringify(options));
  }
});

test('a module source, bare or as module_or_path, is handed over as it is, in a fresh object', () => {
  const bytes = new Uint8Array([0, 97, 115, 109]);
  const url = new URL('https://example.test/x_bg.wasm');
  const response = new Response(bytes);
  const pending = Promise.resolve(bytes);
  for (const source of [bytes, bytes.buffer, url, 'x_bg.wasm', response, pending]) {
    assert.equal(load(source, ownModule).module_or_path, source);
    const options = { module_or_path: source };
    const handed = load(options, ownModule);
    assert.equal(handed.module_or_path, source);
    assert.notEqual(handed, options, 'a fresh object, never the caller\'s');
  }
  assert.equal(isOptions(url), false);
  assert.equal(isOptions(pending), false);
  assert.equal(isOptions(bytes), false);
});

test('the signing entry refuses the main entry\'s options only when they are set', async () => {
  for (const options of [undefined, null, {}, { passkeys: false }, { isolate: null }, { passkeys: undefined }, { enclave: false }, new URL('https://example.test/')]) {
    assert.equal(refuseMainOptions(readInit(options)), undefined, JSON.stringify(options));
  }
  for (const [options, name] of [[{ passkeys: true }, 'passkeys'], [{ isolate: 'worker' }, 'isolate'], [{ passkeys: {} }, 'passkeys'], [{ enclave: true }, 'enclave']]) {
    await assert.rejects(refuseMainOptions(readInit(options)), (err) => err instanceof KitError && err.code === 'INVALID_INPUT' && err.message.includes(name));
  }
});
