// The session store through the Node entry (pkg/node.js). Node has no IndexedDB: open()
// without one is STORE_UNAVAILABLE. With one injected (a small in-memory IndexedDB
// below; values are structured-cloned, as a browser stores them, and Node's WebCrypto
// keeps the keys) the whole store runs here too: stamps verified by
// tests/support/fixtures.mjs, spent requestIds shared between handles, purging, the
// OAUTH client key. The real browser run, across a page reload, is tests/store/run.mjs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { ClientKey, Session, SessionStore, KitError } from '../../pkg/node.js';
import { initSync as signingExports } from '../../pkg/embedded_wallet_kit.js';
import {
  sessionResponse, pending202, quote, randomScalar, sealBundle, compressedPublicKeyHex, checkStamp, iso, HOUR,
} from '../support/fixtures.mjs';
import { memoryIndexedDB, domError } from '../support/memory-indexeddb.mjs';

const kitError = (code, check) => (err) => {
  assert.ok(err instanceof KitError, `expected KitError ${code}, got ${err?.constructor?.name}: ${err?.message}`);
  assert.equal(err.code, code, err.message);
  assert.ok(err.message.length > 0);
  check?.(err);
  return true;
};
/** A real session sealed by the service's peer to a fresh ClientKey. */
function realSession(fields = {}) {
  const key = ClientKey.generate();
  const scalar = randomScalar();
  const response = sessionResponse({ bundle: sealBundle(scalar, key.publicKeyHex), ...fields });
  return { session: Session.open(response, key), response, publicKeyHex: compressedPublicKeyHex(scalar) };
}

test('Node has no IndexedDB: open() is STORE_UNAVAILABLE, naming IndexedDB', async () => {
  assert.equal(globalThis.indexedDB, undefined);
  await assert.rejects(SessionStore.open(), kitError('STORE_UNAVAILABLE', (e) => assert.match(e.message, /IndexedDB/)));
  await assert.rejects(SessionStore.open({ indexedDB: null }), kitError('STORE_UNAVAILABLE'));
  await assert.rejects(SessionStore.open({ indexedDB: {} }), kitError('STORE_UNAVAILABLE'));
});

test('open() rejects bad options with INVALID_INPUT', async () => {
  for (const options of [null, 'db', 42, { name: '' }, { name: 7 }, { name: null }]) {
    await assert.rejects(SessionStore.open(options), kitError('INVALID_INPUT'), JSON.stringify(options));
  }
});

test('a failing IndexedDB is STORE_UNAVAILABLE with its error as cause', async () => {
  const throwing = { open() { throw domError('SecurityError'); } };
  await assert.rejects(SessionStore.open({ indexedDB: throwing }),
    kitError('STORE_UNAVAILABLE', (e) => assert.equal(e.cause.name, 'SecurityError')));
  const erroring = {
    open() {
      const r = { error: domError('UnknownError') };
      setTimeout(() => r.onerror?.(), 0);
      return r;
    },
  };
  await assert.rejects(SessionStore.open({ indexedDB: erroring }),
    kitError('STORE_UNAVAILABLE', (e) => assert.equal(e.cause.name, 'UnknownError')));
});

// WebCrypto is captured at init, so its absence has to be there before the kit loads (as
// in an insecure context): a child process.
test('without crypto.subtle: STORE_UNAVAILABLE, naming WebCrypto', () => {
  const source = `
    const random = crypto.getRandomValues.bind(crypto);
    Object.defineProperty(globalThis, 'crypto', { value: { getRandomValues: random }, configurable: true });
    const { SessionStore, KitError } = await import(${JSON.stringify(new URL('../../pkg/node.js', import.meta.url).href)});
    try {
      await SessionStore.open({ indexedDB: { open() {} } });
      console.log(JSON.stringify({ opened: true }));
    } catch (e) {
      console.log(JSON.stringify({ kit: e instanceof KitError, code: e.code, message: e.message }));
    }`;
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', source], { encoding: 'utf8', timeout: 60_000 });
  const out = JSON.parse(result.stdout.trim().split('\n').pop() || '{}');
  assert.equal(out.kit, true, `${result.stderr.slice(0, 300)} ${JSON.stringify(out)}`);
  assert.equal(out.code, 'STORE_UNAVAILABLE');
  assert.match(out.message, /WebCrypto/);
});

test('the classes are not constructible', () => {
  assert.throws(() => new SessionStore(), kitError('INVALID_INPUT'));
});

test('with an injected IndexedDB: save, reopen, load, sign (stamps verify), spent ids shared', async () => {
  const indexedDB = memoryIndexedDB();
  const store = await SessionStore.open({ indexedDB });
  const { session, response, publicKeyHex } = realSession();
  assert.ok(store instanceof SessionStore);
  const saved = await store.save(session);
  session.free();
  assert.deepEqual([saved.id, saved.accountId, saved.type, saved.publicKeyHex, saved.sandboxed],
    [response.id, response.accountId, response.type, publicKeyHex, false]);
  assert.ok(saved.expiresAt instanceof Date && !saved.isExpired());
  const p = pending202();
  const h = await saved.signRetry(p);
  assert.deepEqual(Object.keys(h).sort(), ['Request-Id', 'Service-Wallet-Signature']);
  assert.ok(checkStamp(h['Service-Wallet-Signature'], p.payloadToSign, publicKeyHex).ok);

  // What a reload does: a new store on the same database.
  const again = await SessionStore.open({ indexedDB });
  const loaded = await again.load(response.id);
  assert.ok(checkStamp(await loaded.stamp('after'), 'after', publicKeyHex).ok);
  const q = quote();
  const qh = await loaded.signQuote(q);
  assert.deepEqual(Object.keys(qh), ['Service-Wallet-Signature']);
  assert.ok(checkStamp(qh['Service-Wallet-Signature'], q.payloadToSign, publicKeyHex).ok);
  await assert.rejects(loaded.signRetry(p), kitError('REQUEST_ALREADY_SIGNED'));
  assert.deepEqual((await again.list()).map((s) => s.id), [response.id]);
  assert.equal(await again.load('Session:nope'), null);

  // The record: strings, numbers, booleans and one non-extractable CryptoKey.
  const [record] = indexedDB.databases.get('embedded-wallet-kit').get('sessions').rows.values();
  assert.ok(record.key instanceof CryptoKey && record.key.extractable === false);
  assert.deepEqual(record.key.usages, ['sign']);
  await assert.rejects(crypto.subtle.exportKey('pkcs8', record.key));
  assert.deepEqual(record.signed.map(([id]) => id), [p.requestId]);
});

test('with an injected IndexedDB: a requestId the session signed before save() stays spent in the store, across a reload', async () => {
  const indexedDB = memoryIndexedDB();
  const store = await SessionStore.open({ indexedDB, name: 'signed-before-save' });
  const { session } = realSession();
  const before = pending202();
  session.signRetry(before); // signed in wasm, before the session is stored
  const saved = await store.save(session);
  session.free();
  await assert.rejects(saved.signRetry(before), kitError('REQUEST_ALREADY_SIGNED'));
  const upper = { ...before, requestId: `Request:${before.requestId.slice('Request:'.length).toUpperCase()}` };
  const loaded = await (await SessionStore.open({ indexedDB, name: 'signed-before-save' })).load(saved.id);
  await assert.rejects(loaded.signRetry(before), kitError('REQUEST_ALREADY_SIGNED'));
  await assert.rejects(loaded.signRetry(upper), kitError('REQUEST_ALREADY_SIGNED'));
  await loaded.signRetry(pending202()); // another id still signs
});

test('with an injected IndexedDB: a spent requestId stays spent, whatever expiresAt a replayed 202 claims and in any letter case', async () => {
  const indexedDB = memoryIndexedDB();
  const store = await SessionStore.open({ indexedDB, name: 'replay' });
  const { session } = realSession();
  const saved = await store.save(session);
  session.free();
  const first = pending202({ expiresAt: iso(200) });
  await saved.signRetry(first);
  await new Promise((r) => setTimeout(r, 250)); // the first 202's window closes
  const second = pending202();
  await saved.signRetry(second); // another retry meanwhile: nothing spent may be forgotten
  const replay = { ...first, expiresAt: iso(HOUR) };
  const upper = { ...second, requestId: `Request:${second.requestId.slice('Request:'.length).toUpperCase()}` };
  // A reload: only the stored record remembers.
  const loaded = await (await SessionStore.open({ indexedDB, name: 'replay' })).load(saved.id);
  await assert.rejects(loaded.signRetry(replay), kitError('REQUEST_ALREADY_SIGNED'));
  await assert.rejects(loaded.signRetry(upper), kitError('REQUEST_ALREADY_SIGNED'));
  // The same handle.
  await assert.rejects(saved.signRetry(replay), kitError('REQUEST_ALREADY_SIGNED'));
  await assert.rejects(saved.signRetry(upper), kitError('REQUEST_ALREADY_SIGNED'));
  // Upper case signed first, lower case refused after.
  const third = pending202();
  await loaded.signRetry({ ...third, requestId: third.requestId.toUpperCase().replace('REQUEST:', 'Request:') });
  const reloaded = await (await SessionStore.open({ indexedDB, name: 'replay' })).load(saved.id);
  await assert.rejects(reloaded.signRetry(third), kitError('REQUEST_ALREADY_SIGNED'));
});

test('with an injected IndexedDB: the stored spent ids are capped; only ids signed an hour ago are forgotten', async () => {
  const indexedDB = memoryIndexedDB();
  const store = await SessionStore.open({ indexedDB, name: 'cap' });
  const stored = await store.save(Session.sandbox(sessionResponse({ expiresAt: iso(3 * HOUR) })));
  // The stored record (an aborted transaction swaps the row map, so look it up each time).
  const record = () => indexedDB.databases.get('cap').get('sessions').rows.get(stored.id);
  const now = Date.now();
  // 1024 ids this session signed (as other tabs would), the oldest 59 minutes ago.
  record().signed = Array.from({ length: 1024 }, (_, i) => [
    `Request:00000000-0000-4000-8000-${i.toString(16).padStart(12, '0')}`, now - 59 * 60_000 + i,
  ]);
  const [oldestId] = record().signed[0];
  await assert.rejects(stored.signRetry(pending202()), kitError('RATE_LIMITED', (e) => assert.match(e.message, /requestId/)));
  assert.equal(record().signed.length, 1024);
  await assert.rejects(stored.signRetry({ ...pending202(), requestId: oldestId }), kitError('REQUEST_ALREADY_SIGNED'));
  // Signed over an hour ago (by our clock, not any 202's expiresAt): those may go.
  record().signed[0][1] = now - HOUR - 1;
  record().signed[1][1] = now - HOUR - 1;
  const next = pending202();
  await stored.signRetry(next);
  const { signed } = record();
  assert.equal(signed.length, 1023);
  assert.ok(!signed.some(([id]) => id === oldestId));
  assert.equal(signed.at(-1)[0], next.requestId);
  assert.ok(Math.abs(signed.at(-1)[1] - Date.now()) < 60_000, 'the time we signed, not the 202\'s expiresAt');
});

test('with an injected IndexedDB: expired sessions are purged on open; load and list skip them', async () => {
  const indexedDB = memoryIndexedDB();
  const store = await SessionStore.open({ indexedDB, name: 'purge' });
  const { session } = realSession({ expiresAt: iso(300) });
  const short = await store.save(session);
  await store.save(Session.sandbox(sessionResponse({ expiresAt: iso(HOUR) })));
  await new Promise((r) => setTimeout(r, 350));
  assert.equal(await store.load(short.id), null);
  assert.equal((await store.list()).length, 1);
  const rows = indexedDB.databases.get('purge').get('sessions').rows;
  assert.equal(rows.size, 2, 'still stored until the next open');
  await SessionStore.open({ indexedDB, name: 'purge' });
  assert.equal(rows.size, 1);
  await assert.rejects(short.stamp('x'), kitError('SESSION_EXPIRED'));
});

test('with an injected IndexedDB: the OAUTH client key opens one session, once', async () => {
  const indexedDB = memoryIndexedDB();
  const store = await SessionStore.open({ indexedDB });
  const key = ClientKey.generate();
  const kept = await store.saveClientKey(key);
  assert.deepEqual(kept, { publicKeyHex: key.publicKeyHex, compressedPublicKeyHex: key.compressedPublicKeyHex, oidcNonce: key.oidcNonce() });
  assert.equal(key.consumed, false, 'keeping it does not consume the in-memory key');
  key.free();
  const scalar = randomScalar();
  const response = sessionResponse({ type: 'OAUTH', bundle: sealBundle(scalar, kept.publicKeyHex) });
  await assert.rejects((await SessionStore.open({ indexedDB })).openSession({ ...response, encryptedSessionSigningKey: sealBundle(scalar, ClientKey.generate().publicKeyHex) }),
    kitError('DECRYPTION_FAILED'));
  const s = await (await SessionStore.open({ indexedDB })).openSession(response, { publicKeyHex: kept.publicKeyHex });
  assert.ok(s instanceof Session);
  assert.ok(checkStamp(s.stamp('oauth'), 'oauth', compressedPublicKeyHex(scalar)).ok);
  await assert.rejects(store.openSession(response), kitError('KEY_CONSUMED'));
  await assert.rejects(store.saveClientKey(key), kitError('KEY_CONSUMED'));
});

test('with an injected IndexedDB: bad arguments are INVALID_INPUT; closed or expired sessions are refused', async () => {
  const store = await SessionStore.open({ indexedDB: memoryIndexedDB() });
  for (const bad of [undefined, null, {}, 'Session:x', ClientKey.generate()]) {
    await assert.rejects(store.save(bad), kitError('INVALID_INPUT'));
  }
  for (const bad of [undefined, {}, Session]) await assert.rejects(store.saveClientKey(bad), kitError('INVALID_INPUT'));
  for (const bad of [undefined, 1, {}]) {
    await assert.rejects(store.load(bad), kitError('INVALID_INPUT'));
    await assert.rejects(store.delete(bad), kitError('INVALID_INPUT'));
  }
  await assert.rejects(store.openSession(sessionResponse(), { publicKeyHex: 5 }), kitError('INVALID_INPUT'));
  await assert.rejects(store.openSession(sessionResponse()), kitError('KEY_CONSUMED'));
  const { session } = realSession();
  session.free();
  await assert.rejects(store.save(session), kitError('SESSION_CLOSED'));
  await assert.rejects(store.save(Session.sandbox(sessionResponse({ expiresAt: iso(-1000) }))), kitError('SESSION_EXPIRED'));
  const stored = await store.save(Session.sandbox(sessionResponse()));
  await assert.rejects(stored.stamp(1), kitError('INVALID_INPUT'));
  await assert.rejects(stored.signRetry({}), kitError('INVALID_PENDING_SIGNATURE'));
  await assert.rejects(stored.signQuote({}), kitError('INVALID_INPUT'));
});

test('with an injected IndexedDB: a failing write is STORE_UNAVAILABLE (cause kept, no key bytes in the message)', async () => {
  const store = await SessionStore.open({ indexedDB: memoryIndexedDB({ failPut: true }) });
  const { session } = realSession();
  await assert.rejects(store.save(session), kitError('STORE_UNAVAILABLE', (e) => {
    assert.equal(e.cause.name, 'QuotaExceededError');
    assert.doesNotMatch(e.message, /[0-9a-f]{32}/);
  }));
  assert.equal(session.sandboxed, false, 'the in-memory session is untouched');
  store.close();
  await assert.rejects(store.list(), kitError('STORE_UNAVAILABLE'));
});

/** How often `needle` occurs in the signing module's linear memory. */
function occurrences(needle) {
  const mem = new Uint8Array(signingExports().memory.buffer);
  let count = 0;
  for (let i = mem.indexOf(needle[0]); i !== -1; i = mem.indexOf(needle[0], i + 1)) {
    let j = 1;
    while (j < needle.length && mem[i + j] === needle[j]) j++;
    if (j === needle.length) count++;
  }
  return count;
}
const copies = (scalar) => [scalar, Uint8Array.from(scalar).reverse()].map(occurrences);

const count = (scalar) => copies(scalar).reduce((a, b) => a + b);

test('the scalar is in wasm memory once right after openSession() and after save(), and nowhere once freed', async () => {
  const store = await SessionStore.open({ indexedDB: memoryIndexedDB() });
  const key = ClientKey.generate();
  const scalar = randomScalar();
  const session = Session.open(sessionResponse({ bundle: sealBundle(scalar, key.publicKeyHex) }), key);
  await store.save(session);
  assert.equal(count(scalar), 1, 'after save() (the PKCS#8 import): the live key only');
  session.free();
  assert.deepEqual(copies(scalar), [0, 0], 'copies of the scalar left in wasm memory (big-endian, little-endian)');

  const kept = await store.saveClientKey(ClientKey.generate());
  const scalar2 = randomScalar();
  const opened = await store.openSession(sessionResponse({ bundle: sealBundle(scalar2, kept.publicKeyHex) }));
  assert.equal(count(scalar2), 1, 'right after openSession(), no other call in between: the live key only');
  await store.save(opened);
  assert.equal(count(scalar2), 1, 'after save()');
  opened.free();
  assert.deepEqual(copies(scalar2), [0, 0], 'copies of the opened scalar left in wasm memory');
});

// The kit captures WebCrypto when it initialises: page script that replaces
// crypto.subtle's functions (or crypto.getRandomValues) later receives nothing. Every
// function the glue module exports and every member of the public classes is called
// with a live session and a live key, and the whole store is used; none of the
// replacements may be called.
test('WebCrypto replaced after init captures nothing: no key bytes, no ECDH result, no key choice', async (t) => {
  const glue = await import('../../pkg/embedded_wallet_kit.js');
  // The replacements pass calls on (the test's own fixtures use WebCrypto too) and
  // record those made from the package's files.
  const calls = [];
  const fromPackage = () => {
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 100;
    const stack = new Error().stack ?? '';
    Error.stackTraceLimit = limit;
    return /\/pkg\//.test(stack);
  };
  const subtle = crypto.subtle;
  const replace = (target, name) => {
    const original = target[name];
    target[name] = function replaced(...args) {
      if (fromPackage()) calls.push(name);
      return original.apply(target, args);
    };
    t.after(() => delete target[name]);
  };
  for (const name of ['importKey', 'deriveBits', 'sign', 'exportKey', 'encrypt', 'decrypt', 'digest']) replace(subtle, name);
  replace(crypto, 'getRandomValues');

  const indexedDB = memoryIndexedDB();
  const store = await SessionStore.open({ indexedDB });
  const { session, publicKeyHex } = realSession();
  const saved = await store.save(session);
  assert.ok(checkStamp(await saved.stamp('captured'), 'captured', publicKeyHex).ok);
  await saved.signRetry(pending202());
  await saved.signQuote(quote());
  const kept = await store.saveClientKey(ClientKey.generate());
  const scalar = randomScalar();
  const opened = await store.openSession(sessionResponse({ bundle: sealBundle(scalar, kept.publicKeyHex) }));
  assert.equal(opened.publicKeyHex, compressedPublicKeyHex(scalar));

  // Everything else reachable, with live handles as arguments and as receivers.
  const live = () => [realSession().session, ClientKey.generate()];
  for (const [name, value] of Object.entries(glue)) {
    if (typeof value !== 'function' || name === 'ClientKey' || name === 'Session' || name === 'default' || name === 'initSync') continue;
    for (const arg of live()) {
      try {
        await value(arg, arg, arg);
      } catch {
        // Only whether a replaced function was reached matters here.
      }
    }
  }
  for (const cls of [ClientKey, Session]) {
    for (const name of Reflect.ownKeys(cls.prototype)) {
      const d = Object.getOwnPropertyDescriptor(cls.prototype, name);
      for (const receiver of live()) {
        try {
          await (d.get ? d.get.call(receiver) : typeof d.value === 'function' && name !== 'constructor' && d.value.call(receiver, receiver));
        } catch {
          // as above
        }
      }
    }
  }
  assert.deepEqual(calls, [], 'functions installed after init received calls from the kit');
});
