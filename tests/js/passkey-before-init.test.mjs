// Passkey calls before init() through the browser entry (pkg/browser.js), in Node: in a
// browser without WebAuthn (in-app webviews) ceremonies reject PASSKEY_UNSUPPORTED at once,
// with the reason, and the probes answer false, loading nothing (no .wasm fetched, no
// module of the package loaded);
// with WebAuthn they load the wallet module first, as before (Node cannot fetch it here:
// NOT_INITIALIZED). The fetches are counted by a stub; the ES modules by
// tests/support/module-loads.mjs. Its own process under node --test.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { recordModuleLoads } from '../support/module-loads.mjs';

const moduleLoads = recordModuleLoads();
/** Every fetch the kit makes (the .wasm): refused, as a page that has not got it yet. */
const fetched = [];
globalThis.fetch = (url) => {
  fetched.push(String(url));
  return Promise.reject(new TypeError('no network in this test'));
};
const { passkey, KitError } = await import('../../pkg/browser.js');

const PKG = new URL('../../pkg/', import.meta.url).href;
const pkgLoads = () => moduleLoads().filter((url) => url.startsWith(PKG)).map((url) => url.slice(PKG.length));
const registration = { challenge: 'AAAA', rpId: 'localhost', rpName: 'x', user: { id: 'u', name: 'n' } };
const authentication = { challenge: 'ab'.repeat(32), credentialId: 'AQID', rpId: 'localhost' };

function isKit(code, message) {
  return (err) => {
    assert.ok(err instanceof KitError, `expected KitError ${code}, got ${err?.constructor?.name}: ${err?.message}`);
    assert.equal(err.code, code, err.message);
    if (message !== undefined) assert.match(err.message, message);
    return true;
  };
}

test('no WebAuthn, no init(): register and authenticate reject PASSKEY_UNSUPPORTED with the reason, loading nothing', async () => {
  assert.equal(typeof globalThis.PublicKeyCredential, 'undefined', 'Node has no WebAuthn');
  const before = pkgLoads();
  for (const call of [() => passkey.register(registration), () => passkey.authenticate(authentication)]) {
    const settled = call();
    // At once: rejected before any macrotask (a module load would take one at least).
    const early = await Promise.race([settled.then(() => 'resolved', (err) => err), new Promise((ok) => setImmediate(() => ok('pending')))]);
    isKit('PASSKEY_UNSUPPORTED', /no PublicKeyCredential/)(early);
  }
  assert.deepEqual(fetched, [], 'no .wasm fetched');
  assert.deepEqual(pkgLoads(), before, 'no module of the package loaded');
});

test('no WebAuthn, no init(): the probes answer false / undefined at once, loading nothing', async () => {
  const before = pkgLoads();
  const answers = [passkey.platformAuthenticatorAvailable(), passkey.conditionalMediationAvailable(), passkey.clientCapabilities()];
  const early = await Promise.race([Promise.all(answers), new Promise((ok) => setImmediate(() => ok('pending')))]);
  assert.deepEqual(early, [false, false, undefined]);
  assert.deepEqual(fetched, [], 'no .wasm fetched');
  assert.deepEqual(pkgLoads(), before, 'no module of the package loaded');
});

test('WebAuthn present, no init(): a ceremony loads the wallet module first (here it cannot: NOT_INITIALIZED)', async () => {
  globalThis.PublicKeyCredential = function PublicKeyCredential() {};
  Object.defineProperty(globalThis, 'navigator', {
    value: { credentials: { create: () => assert.fail('create() without the module'), get: () => assert.fail('get() without the module') } },
    configurable: true,
    writable: true,
  });
  const earlier = fetched.length;
  try {
    await assert.rejects(passkey.register(registration), isKit('NOT_INITIALIZED', /WebAssembly module/));
    const now = fetched.slice(earlier);
    assert.equal(now.length, 1, `one .wasm fetch: ${now.join(', ')}`);
    assert.match(now[0], /embedded_wallet_kit_no_enclave_bg\.wasm$/);
  } finally {
    delete globalThis.PublicKeyCredential;
    delete globalThis.navigator;
  }
});
