// The signing-only entry, `embedded-wallet-kit/signing`: its module exports exactly
// ClientKey, Session and warmUp (an export that sneaks into bindings/signing fails here:
// every page that only signs would download it), its entry exactly init, ClientKey,
// Session and KitError; it signs like the main entry; and a page that imports both
// entries has two independent ready states (npm/guard.js): one entry's init() does not
// make the other's exports usable. Node cannot fetch file: URLs: the browser variants get
// the module bytes. The ready-state test comes first: importing the Node variant
// (signing-node.js, which instantiates at import) readies the signing entry's state for
// the rest of the process. Needs `make build`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { WASM_PATH, SIGNING_WASM_PATH, sessionResponse, checkStamp, randomScalar, sealBundle } from '../support/fixtures.mjs';

const pkg = new URL('../../pkg/', import.meta.url);
const signing = await import(new URL('signing.js', pkg).href);
const main = await import(new URL('browser.js', pkg).href);

test('the signing module exports ClientKey, Session, warmUp and selfTest, nothing else', async () => {
  const glue = await import(new URL('embedded_wallet_kit_signing.js', pkg).href);
  assert.deepEqual(Object.keys(glue).sort(), ['ClientKey', 'Session', 'default', 'initSync', 'selfTest', 'warmUp']);
  assert.deepEqual(
    Object.getOwnPropertyNames(glue.ClientKey.prototype).filter((n) => n !== 'constructor' && !n.startsWith('__')).sort(),
    ['close', 'compressedPublicKeyHex', 'consumed', 'free', 'oidcNonce', 'publicKeyHex', 'signRetry'],
  );
  assert.deepEqual(Object.getOwnPropertyNames(glue.Session).filter((n) => !['length', 'name', 'prototype'].includes(n) && !n.startsWith('__')).sort(),
    ['fromClientKey', 'open', 'sandbox']);
});

test('one entry\'s init() does not ready the other\'s exports (each its own module and ready state)', async () => {
  const notReady = (fn) => assert.throws(fn, (err) => err instanceof signing.KitError && err.code === 'NOT_INITIALIZED');
  notReady(() => signing.ClientKey.generate());
  notReady(() => main.ClientKey.generate());

  await signing.init({ module_or_path: readFileSync(SIGNING_WASM_PATH) });
  const key = signing.ClientKey.generate();
  assert.match(key.publicKeyHex, /^04[0-9a-f]{128}$/);
  notReady(() => main.ClientKey.generate());
  notReady(() => main.Session.sandbox(sessionResponse()));

  await main.init({ module_or_path: readFileSync(WASM_PATH) });
  const mainKey = main.ClientKey.generate();
  // Two glues, two classes: a key of one is not a key of the other.
  assert.ok(!(mainKey instanceof signing.ClientKey) && !(key instanceof main.ClientKey));
  assert.throws(() => main.Session.open(sessionResponse(), key), (err) => err instanceof main.KitError && err.code === 'INVALID_INPUT');
  assert.equal(signing.KitError, main.KitError, 'one KitError class across the entries');
});

test('both variants of the signing entry export exactly init, ClientKey, Session and KitError', async () => {
  for (const file of ['signing.js', 'signing-node.js']) {
    const mod = await import(new URL(file, pkg).href);
    assert.deepEqual(Object.keys(mod).sort(), ['ClientKey', 'KitError', 'Session', 'init'], file);
  }
});

test('the signing entry signs: a session opened from a sealed bundle stamps, and the stamp verifies', async () => {
  await signing.init({ module_or_path: readFileSync(SIGNING_WASM_PATH) });
  const key = signing.ClientKey.generate();
  const session = signing.Session.open(sessionResponse({ bundle: sealBundle(randomScalar(), key.publicKeyHex) }), key);
  assert.equal(key.consumed, true);
  const payload = '{"hello":"world"}';
  const check = checkStamp(session.stamp(payload), payload, session.publicKeyHex);
  assert.ok(check.ok && check.nobleOk, `the stamp verifies: ${check.error}`);
  assert.equal(typeof session.signQuote, 'function');
  assert.equal(typeof session.signRetry, 'function');
  session.close();
});

test('the signing entry rejects the main entry\'s options with INVALID_INPUT', async () => {
  const { init: nodeInit } = await import(new URL('signing-node.js', pkg).href);
  for (const init of [signing.init, nodeInit]) {
    for (const options of [{ passkeys: true }, { isolate: 'worker' }, { enclave: true }]) {
      await assert.rejects(init(options), (err) => err instanceof signing.KitError && err.code === 'INVALID_INPUT' && /embedded-wallet-kit/.test(err.message));
    }
  }
});

test('the signing entry\'s handle classes are made as the main entry\'s (npm/guard.js): no internals, handles not forgeable', async () => {
  await signing.init({ module_or_path: readFileSync(SIGNING_WASM_PATH) });
  const { ClientKey, Session, KitError } = signing;
  const invalid = (fn) => assert.throws(fn, (err) => err instanceof KitError && err.code === 'INVALID_INPUT');
  const open = () => {
    const key = ClientKey.generate();
    return Session.open(sessionResponse({ bundle: sealBundle(randomScalar(), key.publicKeyHex) }), key);
  };
  const session = open();
  for (const o of [ClientKey, ClientKey.prototype, Session, Session.prototype, session, ClientKey.generate()]) {
    assert.deepEqual(['__wrap', '__destroy_into_raw'].filter((k) => k in o), []);
  }
  const ptr = Object.getOwnPropertyDescriptor(Session.prototype, '__wbg_ptr');
  assert.deepEqual(ptr && { configurable: ptr.configurable, hasSetter: ptr.set !== undefined }, { configurable: false, hasSetter: false });
  const forged = Object.create(Session.prototype);
  Object.defineProperty(forged, '__wbg_ptr', { value: session.__wbg_ptr });
  invalid(() => forged.stamp('forged'));
  const other = open();
  Object.setPrototypeOf(other, ClientKey.prototype);
  invalid(() => other.publicKeyHex);
  invalid(() => Session.open(sessionResponse(), other));
  Object.setPrototypeOf(other, Session.prototype);
  assert.match(other.stamp('back'), /^ey/);
  session.free();
  assert.throws(() => session.stamp('x'), (err) => err instanceof KitError && err.code === 'SESSION_CLOSED');
});
