// The built package's browser entry (pkg/browser.js), exercised in Node: the
// NOT_INITIALIZED guard, init() failure and retry, idempotence, then real use.
// Then the passkey API, which is in the module init() loads: a call before init() loads
// the module itself (in Node the default file: URL cannot be fetched: NOT_INITIALIZED);
// init({ passkeys: true }) after init(); the former { passkeys: { module_or_path } }
// form rejected.
// Runs in its own process (node --test isolates files), so the Node entry is not loaded.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as kit from '../../pkg/browser.js';
import { WASM_PATH, sessionResponse, randomScalar, sealBundle, compressedPublicKeyHex, checkStamp } from '../support/fixtures.mjs';
import { custodyLeaks } from '../support/reachable.mjs';

const { init, ClientKey, Session, KitError, passkey, inspectPayload } = kit;

function notInitialized(fn) {
  assert.throws(fn, (err) => {
    assert.ok(err instanceof KitError, `expected KitError, got ${err?.constructor?.name}: ${err?.message}`);
    assert.equal(err.code, 'NOT_INITIALIZED');
    assert.match(err.message, /init\(\)/, 'the message says to call init()');
    return true;
  });
}

test('exports exactly init, ClientKey, Session, KitError, inspectPayload, passkey, SessionStore, SessionKeeper, WalletClient, encryptOtp, openWalletExport, capabilities', () => {
  assert.deepEqual(Object.keys(kit).sort(), [
    'ClientKey', 'KitError', 'Session', 'SessionKeeper', 'SessionStore', 'WalletClient', 'capabilities', 'encryptOtp', 'init', 'inspectPayload', 'openWalletExport', 'passkey',
  ]);
});

test('before init: sync passkey calls throw NOT_INITIALIZED; a probe without WebAuthn answers false, loading nothing; cancel() is a no-op', async () => {
  for (const fn of [() => passkey.isSupported(), () => passkey.registrationBody('a', 'b', 'AAAA', {})]) {
    assert.throws(fn, (err) => {
      assert.ok(err instanceof KitError, `got ${err?.constructor?.name}: ${err?.message}`);
      assert.equal(err.code, 'NOT_INITIALIZED');
      assert.match(err.message, /await init\(\)/, 'the message says to call init()');
      return true;
    });
  }
  assert.equal(passkey.cancel(), undefined);
  // Node has no WebAuthn: nothing to load for (tests/js/passkey-before-init.test.mjs counts the loads).
  assert.equal(await passkey.platformAuthenticatorAvailable(), false);
  notInitialized(() => ClientKey.generate());
});

test('before init: every static call throws KitError NOT_INITIALIZED', () => {
  notInitialized(() => ClientKey.generate());
  notInitialized(() => Session.open(sessionResponse(), {}));
  notInitialized(() => Session.sandbox(sessionResponse()));
  notInitialized(() => Session.fromClientKey(sessionResponse({ omitBundle: true }), {}));
  notInitialized(() => new ClientKey());
  notInitialized(() => inspectPayload('{}'));
  notInitialized(() => new kit.WalletClient({ transport: () => ({ status: 200 }) }));
  notInitialized(() => kit.encryptOtp('{}', '123456', {}));
  notInitialized(() => kit.openWalletExport('{}', {}));
  // Non-function statics and Function.prototype members are untouched.
  assert.equal(typeof ClientKey.prototype, 'object');
  assert.equal(Session.name, 'Session');
  assert.match(Function.prototype.toString.call(Session), /class|function/);
});

test('before init: SessionStore.open rejects NOT_INITIALIZED (before looking for IndexedDB)', async () => {
  await assert.rejects(kit.SessionStore.open(), (err) => {
    assert.ok(err instanceof KitError);
    assert.equal(err.code, 'NOT_INITIALIZED');
    assert.match(err.message, /init\(\)/);
    return true;
  });
});

test('init() with unusable input rejects with NOT_INITIALIZED and can be retried', async () => {
  const bad = init(new Uint8Array([0, 1, 2, 3]));
  await assert.rejects(bad, (err) => {
    assert.ok(err instanceof KitError);
    assert.equal(err.code, 'NOT_INITIALIZED');
    assert.ok(err.cause !== undefined, 'the loader error is kept as cause');
    return true;
  });
  notInitialized(() => ClientKey.generate());
});

test('init({ module_or_path: bytes }) works; concurrent and repeated calls share one promise', async () => {
  const bytes = readFileSync(WASM_PATH);
  const p1 = init({ module_or_path: bytes });
  const p2 = init(); // would fetch a file: URL if it did not share p1's promise
  assert.equal(p1, p2);
  assert.equal(await p1, undefined);
  const p3 = init({ module_or_path: bytes });
  assert.equal(p3, p1);
  await p3;
});

test('after init: keys, sessions, stamps and KitError work through the browser entry', () => {
  const key = ClientKey.generate();
  assert.match(key.publicKeyHex, /^04[0-9a-f]{128}$/);
  assert.ok(key instanceof ClientKey, 'instanceof works through the guard');
  const scalar = randomScalar();
  const s = Session.open(sessionResponse({ bundle: sealBundle(scalar, key.publicKeyHex) }), key);
  assert.ok(s instanceof Session);
  assert.equal(s.publicKeyHex, compressedPublicKeyHex(scalar));
  const c = checkStamp(s.stamp('browser entry'), 'browser entry', compressedPublicKeyHex(scalar));
  assert.ok(c.ok, JSON.stringify(c));
  // An error thrown inside wasm is the KitError class exported by this entry.
  assert.throws(() => Session.open(sessionResponse({ bundle: '0OIl-not-base58' }), ClientKey.generate()), (err) => {
    assert.ok(err instanceof KitError, `got ${err?.constructor?.name}`);
    assert.equal(err.code, 'INVALID_BUNDLE');
    return true;
  });
  s.free();
});

test('init({ passkeys: { module_or_path } }) (the location of the separate passkey module there once was) rejects INVALID_INPUT', async () => {
  for (const passkeys of [{ module_or_path: readFileSync(WASM_PATH) }, {}]) {
    await assert.rejects(init({ passkeys }), (err) => {
      assert.ok(err instanceof KitError, `got ${err?.constructor?.name}: ${err?.message}`);
      assert.equal(err.code, 'INVALID_INPUT');
      assert.match(err.message, /passkeys takes true or false/);
      return true;
    });
  }
});

test('init({ passkeys: true }) after init(): one shared promise; the passkey API works; errors are the one KitError', async () => {
  const p1 = init({ passkeys: true });
  const p2 = init({ passkeys: true });
  assert.equal(p1, p2, 'concurrent init({ passkeys }) calls share one promise');
  assert.equal(await p1, undefined);
  assert.equal(init(), init(), 'init() still returns its own shared promise');
  assert.equal(passkey.isSupported(), false, 'Node has no WebAuthn');
  assert.equal(await passkey.platformAuthenticatorAvailable(), false);
  await assert.rejects(
    passkey.register({ challenge: 'AAAA', rpId: 'localhost', rpName: 'x', user: { id: 'u', name: 'n' } }),
    (err) => {
      assert.ok(err instanceof KitError, `a passkey error is the entry's KitError (got ${err?.constructor?.name})`);
      assert.equal(err.code, 'PASSKEY_UNSUPPORTED');
      return true;
    },
  );
  assert.throws(() => Session.open(sessionResponse({ bundle: '0OIl' }), ClientKey.generate()),
    (err) => err instanceof KitError && err.code === 'INVALID_BUNDLE');
});

test('init() resolves to undefined, and nothing the browser entry exports leads to the wasm exports, its memory or a store binding', async () => {
  await init(readFileSync(WASM_PATH));
  assert.equal(await init(), undefined);
  assert.deepEqual(custodyLeaks(kit), []);
  // Nor do live handles (their prototypes and constructors included).
  const key = ClientKey.generate();
  const session = Session.sandbox(sessionResponse());
  assert.deepEqual(custodyLeaks({ key, session, keyProto: Object.getPrototypeOf(key), sessionProto: Object.getPrototypeOf(session) }), []);
  assert.deepEqual(Reflect.ownKeys(key), [], 'a ClientKey carries no own property');
  assert.deepEqual(Reflect.ownKeys(session), [], 'a Session carries no own property');
});

test('init({ enclave: true }) after a plain init() is refused with the fix named: enclave: true on the first init', async () => {
  await init(readFileSync(WASM_PATH));
  await assert.rejects(init({ enclave: true }), (err) => {
    assert.ok(err instanceof KitError && err.code === 'INVALID_INPUT', `${err?.code}: ${err?.message}`);
    assert.match(err.message, /pass enclave: true to the first call/);
    return true;
  });
});
