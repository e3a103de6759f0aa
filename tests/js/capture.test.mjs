// What the kit takes from the page is captured when its module loads (npm/platform.js):
// WebCrypto (crypto.getRandomValues, crypto.subtle.importKey/deriveBits/sign) and the
// clock (Date.now) behind every expiry guard. Script that replaces them later, even while
// init() is still downloading the .wasm, receives no call from the kit: no key choice,
// no key bytes, no ECDH result, and no say in whether a session, 202 or quote expired.
// Through the browser entry (pkg/browser.js), whose init() is asynchronous; its own
// process (node --test isolates files), so the Node entry is not loaded.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { init, ClientKey, Session, SessionStore, KitError } from '../../pkg/browser.js';
import {
  WASM_PATH, sessionResponse, pending202, quote, randomScalar, sealBundle, compressedPublicKeyHex, checkStamp, iso, HOUR,
} from '../support/fixtures.mjs';
import { memoryIndexedDB } from '../support/memory-indexeddb.mjs';

const kitError = (code) => (err) => {
  assert.ok(err instanceof KitError, `expected KitError ${code}, got ${err?.constructor?.name}: ${err?.message}`);
  assert.equal(err.code, code, err.message);
  return true;
};

/** Whether the current call comes from a file of the package. */
function fromPackage() {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 100;
  const stack = new Error().stack ?? '';
  Error.stackTraceLimit = limit;
  return /\/pkg\//.test(stack);
}

/** Replaces `target[name]` by a function that passes calls on and records the kit's. */
function replace(target, name, calls, restore) {
  const original = target[name];
  target[name] = function replaced(...args) {
    if (fromPackage()) calls.push(name);
    return original.apply(target, args);
  };
  restore.push(() => {
    target[name] = original;
  });
}

/** A real session sealed by the service's peer to a fresh ClientKey. */
function realSession(fields = {}) {
  const key = ClientKey.generate();
  const scalar = randomScalar();
  const response = sessionResponse({ bundle: sealBundle(scalar, key.publicKeyHex), ...fields });
  return { session: Session.open(response, key), publicKeyHex: compressedPublicKeyHex(scalar) };
}

test('WebCrypto and Date.now replaced after the module loaded, before init() resolved, get no call from the kit', async () => {
  const calls = [];
  const restore = [];
  try {
    // Before init() is called (the glue used to capture these when init() started) ...
    replace(crypto, 'getRandomValues', calls, restore);
    replace(crypto.subtle, 'importKey', calls, restore);
    const pending = init({ module_or_path: readFileSync(WASM_PATH) });
    // ... and while the .wasm compiles (the store's WebCrypto used to be captured after).
    replace(crypto.subtle, 'deriveBits', calls, restore);
    replace(crypto.subtle, 'sign', calls, restore);
    replace(Date, 'now', calls, restore);
    await pending;

    const store = await SessionStore.open({ indexedDB: memoryIndexedDB() });
    const { session, publicKeyHex } = realSession();
    const saved = await store.save(session);
    assert.ok(checkStamp(await saved.stamp('captured'), 'captured', publicKeyHex).ok);
    await saved.signRetry(pending202());
    await saved.signQuote(quote());
    assert.equal((await store.load(saved.id))?.id, saved.id);
    assert.equal((await store.list()).length, 1);
    // The OAUTH client key: imported at save, ECDH at open.
    const kept = await store.saveClientKey(ClientKey.generate());
    const scalar = randomScalar();
    const opened = await store.openSession(sessionResponse({ bundle: sealBundle(scalar, kept.publicKeyHex) }));
    assert.equal(opened.publicKeyHex, compressedPublicKeyHex(scalar));
    assert.ok(checkStamp(opened.stamp('x'), 'x', compressedPublicKeyHex(scalar)).ok);
    // Outside the store: keys (realSession generates them), the expiry guards.
    const { session: live, publicKeyHex: livePublicKeyHex } = realSession();
    assert.ok(checkStamp(live.stamp('y'), 'y', livePublicKeyHex).ok);
    live.signRetry(pending202());
    live.signQuote(quote());
  } finally {
    for (const undo of restore) undo();
  }
  assert.deepEqual(calls, [], 'functions installed after the kit loaded received calls from it');
});

test('Date.now replaced with an old time: an expired session, 202 or quote is still refused', async () => {
  await init({ module_or_path: readFileSync(WASM_PATH) });
  const store = await SessionStore.open({ indexedDB: memoryIndexedDB() });
  const soon = iso(150);
  const { session } = realSession({ expiresAt: soon });
  const { session: stored } = realSession({ expiresAt: soon });
  const saved = await store.save(stored);
  const { session: live } = realSession({ expiresAt: iso(HOUR) });
  const savedLive = await store.save(realSession({ expiresAt: iso(HOUR) }).session);
  const expired202 = pending202({ expiresAt: iso(-60_000) });
  const expiredQuote = quote({ expiresAt: iso(-60_000) });
  await sleep(300); // the sessions' expiresAt passes (timers do not read Date.now)

  const realNow = Date.now;
  Date.now = () => realNow() - 24 * HOUR;
  try {
    assert.throws(() => session.stamp('x'), kitError('SESSION_EXPIRED'));
    assert.throws(() => session.signRetry(pending202()), kitError('SESSION_EXPIRED'));
    assert.equal(session.isExpired(), true);
    await assert.rejects(saved.stamp('x'), kitError('SESSION_EXPIRED'));
    assert.equal(await store.load(saved.id), null, 'load() skips the expired session');
    assert.throws(() => live.signRetry(expired202), kitError('REQUEST_EXPIRED'));
    assert.throws(() => live.signQuote(expiredQuote), kitError('QUOTE_EXPIRED'));
    await assert.rejects(savedLive.signRetry(expired202), kitError('REQUEST_EXPIRED'));
    await assert.rejects(savedLive.signQuote(expiredQuote), kitError('QUOTE_EXPIRED'));
  } finally {
    Date.now = realNow;
  }
});
