#!/usr/bin/env node
// The session store end to end, through the built package (pkg/browser.js) in every engine
// (tests/support/engines.mjs): headless Chromium (Debian's, via playwright-core), Firefox
// ESR (geckodriver) and WebKitGTK (WebKitWebDriver on Xvfb), the same checks in each: real sessions (session keys sealed by the
// service's peer, @turnkey/crypto, to a ClientKey made in the page) are saved, the page
// is RELOADED, and the restored sessions sign through WebCrypto; every stamp is verified
// here, in Node (@noble/curves and node:crypto, tests/support/fixtures.mjs). Also: the
// CryptoKeys are non-extractable, the IndexedDB records hold no key bytes, expired
// sessions are purged on open, a requestId signed before the reload is refused after it,
// a sandbox session round-trips, and the OAUTH path (client key kept across a reload,
// single use). Against the strict emulator (which serves the page then): a WalletClient
// login saved where IndexedDB refuses CryptoKeys, kept in memory, through a signed quote,
// a refresh and revokes.
//
// The page is served from http://localhost:<port>.
//
// Usage: node tests/browser.mjs store [--engine chromium|firefox|webkit|all] (default all)
import { fileURLToPath } from 'node:url';
import { p256 } from '@noble/curves/nist.js';
import { collectPageErrors } from '../support/engines.mjs';
import { sessionResponse, pending202, quote, randomScalar, sealBundle, compressedPublicKeyHex, iso, HOUR } from '../support/fixtures.mjs';
import { emulatorInPage, verifySignedRequests } from '../support/emulator.mjs';
import { attemptIn, defineSuite, expectOk, expectStamp, hex, json, requirePkg, servePageAndEmulator, suiteChecks } from '../support/suite.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));
const DB = 'store-e2e';

let engine;
/** Every check is named after the engine it ran in. */
const checks = suiteChecks(() => `[${engine}] `);
const { check, assert } = checks;

requirePkg('session-store.js');

/** Asserts that an attempt (window.attempt) failed with a KitError of `code`. */
function expectKitError(r, code) {
  assert(!r.ok, `expected KitError ${code}, but it resolved: ${json(r.value)}`);
  assert(r.error.kit === true && r.error.name === 'KitError', `not the package's KitError: ${json(r.error)}`);
  assert(r.error.code === code, `expected ${code}, got ${r.error.code}: ${r.error.message}`);
  assert(typeof r.error.message === 'string' && r.error.message.length > 0, 'empty message');
  return r.error;
}
const sameKeys = (obj, keys) => json(Object.keys(obj).sort()) === json([...keys].sort());

const errors = []; // every KitError seen in an engine's run, checked for secrets at its end
// Secrets the page must never reveal (scalars of the session keys sealed to it).
const secrets = [];
/** Fails if any string in `value` (an error message, a record) holds a known secret. */
function assertNoSecret(value, where) {
  const text = json(value);
  for (const s of secrets) {
    for (const form of [hex(s), Buffer.from(s).toString('base64'), Buffer.from(s).toString('base64url')]) {
      assert(!text.includes(form), `${where} contains a private scalar`);
    }
  }
}
/** A session bundle sealed to `publicKeyHex` under a fresh session key, which is a secret. */
function sealTo(publicKeyHex) {
  const scalar = randomScalar();
  secrets.push(scalar);
  return { scalar, bundle: sealBundle(scalar, publicKeyHex) };
}

// The strict emulator serves this page too: the in-memory fallback carries a WalletClient
// login to a signed quote.
const { server, origin, emulator } = await servePageAndEmulator(here);

let browser;
/**
 * The whole suite in `engine`; `browser` is its launch. Chromium: a context and its pages.
 * Firefox and WebKitGTK: one WebDriver session (one profile, as the context) whose window
 * is reloaded; the second page is a second window of that session.
 */
async function suite() {
  const firstRequest = server.requests.length;
  /** The requests the server answered in this engine's run. */
  const requests = () => server.requests.slice(firstRequest);
  const context = engine === 'chromium' ? await browser.newContext() : null;
  const pageErrors = [];
  const page = context ? await context.newPage() : collectPageErrors(await browser.newPage(), pageErrors);
  if (context) page.on('pageerror', (err) => pageErrors.push(err.message));
  /** A new ClientKey in the page as window[name]; its public key. */
  const newKey = (name) => page.evaluate((n) => {
    window[n] = window.kit.ClientKey.generate();
    return window[n].publicKeyHex;
  }, name);
  /** Runs `fn(otherPage)` in a second page of the same profile, then closes it. */
  const inOtherPage = async (fn) => {
    if (!context) return page.inNewWindow(fn);
    const other = await context.newPage();
    other.on('pageerror', (err) => pageErrors.push(err.message));
    try {
      return await fn(other);
    } finally {
      await other.close();
    }
  };
  const load = async (query = '') => {
    await page.goto(`${origin}/${query}`);
    await page.waitForFunction(() => window.kitLoaded === true, null, { timeout: 20_000 });
  };
  /** Runs `fn(arg)` in the page as an attempt (never rejects). */
  const attempt = (fn, arg) => attemptIn(page, fn, arg);
  const attemptErr = async (fn, arg, code) => {
    const e = expectKitError(await attempt(fn, arg), code);
    errors.push(e);
    return e;
  };

  // ---- before init -------------------------------------------------------------------
  await load('?noinit');
  await check('SessionStore.open before init() rejects NOT_INITIALIZED', async () => {
    const e = await attemptErr(() => window.kit.SessionStore.open({ name: 'never' }), null, 'NOT_INITIALIZED');
    assert(/init\(\)/.test(e.message), e.message);
  });

  // ---- first page load: save ---------------------------------------------------------
  await load();
  const state = {};
  await check('init() does not load the store implementation; the first SessionStore.open() does', async () => {
    const impl = () => requests().filter((r) => r.path === '/pkg/session-store-impl.js').length;
    assert(requests().some((r) => r.path === '/pkg/session-store.js'), 'the entry imports session-store.js');
    assert(impl() === 0, 'session-store-impl.js loaded by init()');
    const isStore = expectOk(await attempt(async (db) => {
      window.store = await window.kit.SessionStore.open({ name: db });
      await window.store.clear();
      window.key = window.kit.ClientKey.generate();
      return window.store instanceof window.kit.SessionStore;
    }, DB), 'open');
    assert(isStore === true, 'the store is an instance of the exported SessionStore');
    assert(impl() === 1, `session-store-impl.js loaded ${impl()} times`);
    await attemptErr(() => new window.kit.SessionStore(), null, 'INVALID_INPUT');
  });

  await check('save a real session; its stamp verifies and its key is the sealed one', async () => {
    const pub = await page.evaluate(() => window.key.publicKeyHex);
    const { scalar, bundle } = sealTo(pub);
    const response = sessionResponse({ bundle, expiresAt: iso(HOUR) });
    state.real = { response, publicKeyHex: compressedPublicKeyHex(scalar) };
    const out = expectOk(await attempt(async (response) => {
      const s = window.kit.Session.open(response, window.key);
      const stored = await window.store.save(s);
      s.free();
      window.stored = stored;
      return {
        fields: [stored.id, stored.accountId, stored.type, stored.expiresAt.toISOString(), stored.publicKeyHex, stored.sandboxed],
        expiresIsDate: stored.expiresAt instanceof Date,
        expired: stored.isExpired(),
        expiredLater: stored.isExpired(Date.now() + 2 * 3600_000),
        stamp: await stored.stamp('before reload'),
      };
    }, response), 'save');
    assert(json(out.fields) === json([response.id, response.accountId, 'EMAIL_OTP', new Date(response.expiresAt).toISOString(),
      state.real.publicKeyHex, false]), `fields ${json(out.fields)}`);
    assert(out.expiresIsDate && out.expired === false && out.expiredLater === true, json(out));
    expectStamp(out.stamp, 'before reload', state.real.publicKeyHex);
  });

  await check('signRetry before the reload: exactly the two headers, a valid stamp', async () => {
    state.pendingA = pending202({ payloadToSign: '{"op":"revoke","note":"Zoë ✓ \\u0000"}' });
    const h = expectOk(await attempt((p) => window.stored.signRetry(p), state.pendingA), 'signRetry');
    assert(sameKeys(h, ['Service-Wallet-Signature', 'Request-Id']), `keys ${Object.keys(h)}`);
    assert(h['Request-Id'] === state.pendingA.requestId, 'Request-Id');
    expectStamp(h['Service-Wallet-Signature'], state.pendingA.payloadToSign, state.real.publicKeyHex);
    await attemptErr((p) => window.stored.signRetry(p), state.pendingA, 'REQUEST_ALREADY_SIGNED');
  });

  await check('a short-lived session and a sandbox session are saved too', async () => {
    const pub = await newKey('key2');
    const { bundle } = sealTo(pub);
    state.shortLived = sessionResponse({ bundle, expiresAt: iso(1500) });
    state.sandbox = sessionResponse({ type: 'OAUTH' });
    const out = expectOk(await attempt(async ({ shortLived, sandbox }) => {
      const a = await window.store.save(window.kit.Session.open(shortLived, window.key2));
      const b = await window.store.save(window.kit.Session.sandbox(sandbox));
      return { a: a.id, b: [b.id, b.sandboxed, b.publicKeyHex === undefined, await b.stamp('x')] };
    }, state), 'save');
    assert(out.a === state.shortLived.id, 'short-lived id');
    assert(json(out.b) === json([state.sandbox.id, true, true, 'sandbox-valid-signature']), json(out.b));
  });

  await check('OAUTH: saveClientKey stores the client key (public parts and the OIDC nonce returned)', async () => {
    const out = expectOk(await attempt(async () => {
      const key = window.kit.ClientKey.generate();
      const kept = await window.store.saveClientKey(key);
      const expected = { publicKeyHex: key.publicKeyHex, compressedPublicKeyHex: key.compressedPublicKeyHex, oidcNonce: key.oidcNonce() };
      key.free(); // the page is about to go to the IdP: the in-memory key is gone
      return { kept, expected };
    }), 'saveClientKey');
    assert(json(out.kept) === json(out.expected), `kept ${json(out.kept)} != ${json(out.expected)}`);
    state.kept = out.kept;
  });

  await check('save / saveClientKey / load / delete reject bad input with KitErrors', async () => {
    await attemptErr(() => window.store.save({ id: 'Session:x' }), null, 'INVALID_INPUT');
    await attemptErr(() => window.store.save(window.kit.ClientKey.generate()), null, 'INVALID_INPUT');
    await attemptErr(() => window.store.saveClientKey('04abcd'), null, 'INVALID_INPUT');
    await attemptErr(() => window.store.load(42), null, 'INVALID_INPUT');
    await attemptErr(() => window.store.delete({}), null, 'INVALID_INPUT');
    await attemptErr(() => window.store.openSession({}, { publicKeyHex: 7 }), null, 'INVALID_INPUT');
    await attemptErr(() => window.kit.SessionStore.open({ name: '' }), null, 'INVALID_INPUT');
    await attemptErr(() => window.kit.SessionStore.open('x'), null, 'INVALID_INPUT');
    await attemptErr(() => window.kit.SessionStore.open({ indexedDB: {} }), null, 'STORE_UNAVAILABLE');
    // A failing IndexedDB: its error is the cause.
    const e = await attemptErr(() => window.kit.SessionStore.open({
      indexedDB: { open() { throw new DOMException('denied', 'SecurityError'); } },
    }), null, 'STORE_UNAVAILABLE');
    assert(e.causeName === 'SecurityError', `cause ${e.causeName}`);
    // A freed session, a consumed client key.
    await attemptErr(async () => {
      const s = window.kit.Session.sandbox({
        id: 'Session:00000000-0000-4000-8000-000000000000', accountId: 'InternalAccount:a', type: 'EMAIL_OTP',
        expiresAt: new Date(Date.now() + 60_000).toISOString(),
      });
      s.free();
      return window.store.save(s);
    }, null, 'SESSION_CLOSED');
    await attemptErr(() => window.store.saveClientKey(window.key), null, 'KEY_CONSUMED');
    await attemptErr(() => window.store.save(window.kit.Session.sandbox({
      id: 'Session:00000000-0000-4000-8000-000000000001', accountId: 'InternalAccount:a', type: 'EMAIL_OTP',
      expiresAt: new Date(Date.now() - 1000).toISOString(),
    })), null, 'SESSION_EXPIRED');
  });

  await check('the stored CryptoKeys are non-extractable (exportKey rejects in every format)', async () => {
    const results = await page.evaluate((db) => window.tryExports(db), DB);
    assert(results.length === 3 * 3, `expected 3 keys x 3 formats, got ${json(results)}`);
    for (const r of results) assert(r.exported === false && r.error === 'InvalidAccessError', json(r));
  });

  await check('the IndexedDB records hold no key bytes: only strings, numbers, booleans and CryptoKeys', async () => {
    const raw = await page.evaluate((db) => window.rawRecords(db), DB);
    assertNoSecret(raw, 'the IndexedDB records');
    const walk = (v, path) => {
      if (Array.isArray(v)) return v.forEach((x, i) => walk(x, `${path}[${i}]`));
      if (v && typeof v === 'object') {
        assert(!('binary' in v) && !('other' in v), `${path} holds ${json(v)}`);
        if ('cryptoKey' in v) {
          const k = v.cryptoKey;
          assert(k.type === 'private' && k.extractable === false, `${path}: ${json(k)}`);
          return undefined;
        }
        return Object.entries(v).forEach(([k, x]) => walk(x, `${path}.${k}`));
      }
      assert(v === null || ['string', 'number', 'boolean'].includes(typeof v), `${path} is a ${typeof v}`);
      // No hex or base64 blob long enough to be a scalar, other than public keys and ids.
      if (typeof v === 'string' && /^[0-9a-f]{64}$/.test(v)) assert(path.endsWith('.oidcNonce'), `${path} is 32 hex bytes`);
      return undefined;
    };
    walk(raw, 'db');
    const sessionKeys = raw.sessions.filter((r) => !r.sandboxed).map((r) => r.key.cryptoKey);
    assert(sessionKeys.length === 2, `two real sessions, got ${sessionKeys.length}`);
    for (const k of sessionKeys) {
      assert(json(k.algorithm) === json({ name: 'ECDSA', namedCurve: 'P-256' }) && json(k.usages) === '["sign"]', json(k));
    }
    const sandboxRecord = raw.sessions.find((r) => r.sandboxed);
    assert(sandboxRecord && !('key' in sandboxRecord), 'the sandbox record has no key');
    assert(raw.clientKeys.length === 1, 'one stored client key');
    const ck = raw.clientKeys[0].key.cryptoKey;
    assert(json(ck.algorithm) === json({ name: 'ECDH', namedCurve: 'P-256' }) && json(ck.usages) === '["deriveBits"]', json(ck));
    assert(raw.clientKeys[0].publicKeyHex === state.kept.publicKeyHex, 'kept under its public key');
    const real = raw.sessions.find((r) => r.id === state.real.response.id);
    assert(json(real.signed.map(([id]) => id)) === json([state.pendingA.requestId]), `signed ${json(real.signed)}`);
  });

  // ---- reload ------------------------------------------------------------------------
  await new Promise((r) => setTimeout(r, 1600)); // the short-lived session expires meanwhile
  await page.reload();
  await page.waitForFunction(() => window.kitLoaded === true, null, { timeout: 20_000 });

  await check('after the reload: the expired session is still in IndexedDB until open() purges it', async () => {
    const before = await page.evaluate((db) => window.rawRecords(db), DB);
    assert(before.sessions.some((r) => r.id === state.shortLived.id), 'the expired record survived the reload');
    expectOk(await attempt(async (db) => {
      window.store = await window.kit.SessionStore.open({ name: db });
    }, DB), 'open');
    const after = await page.evaluate((db) => window.rawRecords(db), DB);
    const ids = after.sessions.map((r) => r.id).sort();
    assert(json(ids) === json([state.real.response.id, state.sandbox.id].sort()), `left ${json(ids)}`);
    assert(after.clientKeys.length === 1, 'the stored client key is not expired');
  });

  await check('load() restores the real session: same fields, stamps verify, a fresh requestId signs', async () => {
    state.pendingB = pending202();
    state.quote = quote();
    const out = expectOk(await attempt(async ({ id, pendingB, quote }) => {
      const s = await window.store.load(id);
      window.stored = s;
      return {
        fields: [s.id, s.accountId, s.type, s.expiresAt.toISOString(), s.publicKeyHex, s.sandboxed, s.isExpired()],
        stamp: await s.stamp('after reload'),
        empty: await s.stamp(''),
        retry: await s.signRetry(JSON.stringify(pendingB)),
        quote: await s.signQuote(quote),
        missing: await window.store.load('Session:00000000-0000-4000-8000-00000000ffff'),
      };
    }, { id: state.real.response.id, pendingB: state.pendingB, quote: state.quote }), 'load');
    const r = state.real.response;
    assert(json(out.fields) === json([r.id, r.accountId, r.type, new Date(r.expiresAt).toISOString(), state.real.publicKeyHex,
      false, false]), json(out.fields));
    expectStamp(out.stamp, 'after reload', state.real.publicKeyHex);
    expectStamp(out.empty, '', state.real.publicKeyHex);
    assert(sameKeys(out.retry, ['Service-Wallet-Signature', 'Request-Id']) && out.retry['Request-Id'] === state.pendingB.requestId,
      json(out.retry));
    expectStamp(out.retry['Service-Wallet-Signature'], state.pendingB.payloadToSign, state.real.publicKeyHex);
    assert(sameKeys(out.quote, ['Service-Wallet-Signature']), json(out.quote));
    expectStamp(out.quote['Service-Wallet-Signature'], state.quote.payloadToSign, state.real.publicKeyHex);
    assert(out.missing === null, 'load of an unknown id is null');
  });

  await check('a requestId signed before the reload is REQUEST_ALREADY_SIGNED after it (and through a second handle)', async () => {
    await attemptErr((p) => window.stored.signRetry(p), state.pendingA, 'REQUEST_ALREADY_SIGNED');
    await attemptErr(async ({ id, p }) => (await window.store.load(id)).signRetry(p),
      { id: state.real.response.id, p: state.pendingB }, 'REQUEST_ALREADY_SIGNED');
  });

  await check('the restored session keeps the guards: expired 202 and quote, bad input', async () => {
    await attemptErr((p) => window.stored.signRetry(p), pending202({ expiresAt: iso(-1000) }), 'REQUEST_EXPIRED');
    await attemptErr((q) => window.stored.signQuote(q), quote({ expiresAt: iso(-1000) }), 'QUOTE_EXPIRED');
    await attemptErr(() => window.stored.signRetry({ payloadToSign: 'x' }), null, 'INVALID_PENDING_SIGNATURE');
    await attemptErr((q) => window.stored.signQuote(q), quote({ omitPayload: true }), 'INVALID_INPUT');
    await attemptErr(() => window.stored.stamp(42), null, 'INVALID_INPUT');
  });

  await check('the sandbox session round-trips the reload', async () => {
    const p = pending202();
    const out = expectOk(await attempt(async ({ id, p }) => {
      const s = await window.store.load(id);
      return [s.sandboxed, s.publicKeyHex === undefined, s.type, await s.stamp('x'), await s.signRetry(p), await s.signQuote({ payloadToSign: 'q', expiresAt: new Date(Date.now() + 60_000).toISOString() })];
    }, { id: state.sandbox.id, p }), 'sandbox');
    assert(json(out) === json([true, true, 'OAUTH', 'sandbox-valid-signature',
      { 'Service-Wallet-Signature': 'sandbox-valid-signature', 'Request-Id': p.requestId },
      { 'Service-Wallet-Signature': 'sandbox-valid-signature' }]), json(out));
    await attemptErr(async ({ id, p }) => (await window.store.load(id)).signRetry(p), { id: state.sandbox.id, p }, 'REQUEST_ALREADY_SIGNED');
  });

  await check('list() holds exactly the live sessions', async () => {
    const ids = expectOk(await attempt(async () => (await window.store.list()).map((s) => s.id).sort()), 'list');
    assert(json(ids) === json([state.real.response.id, state.sandbox.id].sort()), json(ids));
  });

  await check('OAUTH after the reload: a failed open keeps the key; openSession signs; the ECDH bytes are zeroed', async () => {
    // Sealed to another key: DECRYPTION_FAILED, and the stored key stays.
    const other = hex(p256.getPublicKey(randomScalar(), false));
    const wrong = sessionResponse({ type: 'OAUTH', bundle: sealBundle(randomScalar(), other) });
    await attemptErr((r) => window.store.openSession(r), wrong, 'DECRYPTION_FAILED');
    await attemptErr(() => window.store.openSession({ id: 'x' }), null, 'INVALID_SESSION');
    const { scalar, bundle } = sealTo(state.kept.publicKeyHex);
    const response = sessionResponse({ type: 'OAUTH', bundle });
    const out = expectOk(await attempt(async (response) => {
      const before = window.ecdhResults.length;
      const s = await window.store.openSession(response);
      const stored = await window.store.save(s);
      return {
        isSession: s instanceof window.kit.Session,
        publicKeyHex: s.publicKeyHex,
        stamp: s.stamp('oauth'),
        storedStamp: await stored.stamp('oauth stored'),
        dh: window.ecdhResults.slice(before).map((b) => [b.byteLength, new Uint8Array(b).every((x) => x === 0)]),
      };
    }, response), 'openSession');
    const pub = compressedPublicKeyHex(scalar);
    assert(out.isSession && out.publicKeyHex === pub, json(out));
    expectStamp(out.stamp, 'oauth', pub);
    expectStamp(out.storedStamp, 'oauth stored', pub);
    assert(json(out.dh) === json([[32, true]]), `ECDH results ${json(out.dh)}`);
    state.oauth = { response, pub };
  });

  await check('OAUTH: the client key was single use (a second openSession is KEY_CONSUMED, its record is gone)', async () => {
    await attemptErr((r) => window.store.openSession(r), state.oauth.response, 'KEY_CONSUMED');
    await attemptErr(({ r, publicKeyHex }) => window.store.openSession(r, { publicKeyHex }),
      { r: state.oauth.response, publicKeyHex: state.kept.publicKeyHex }, 'KEY_CONSUMED');
    const raw = await page.evaluate((db) => window.rawRecords(db), DB);
    assert(raw.clientKeys.length === 0, `client keys left: ${raw.clientKeys.length}`);
  });

  await check('WebCrypto replaced after init receives nothing: generate, saveClientKey, openSession, save and stamps use the captured one', async () => {
    const kept = expectOk(await attempt(() => {
      const subtle = crypto.subtle;
      const names = ['importKey', 'deriveBits', 'sign', 'exportKey'];
      const random = crypto.getRandomValues;
      const originals = names.map((n) => subtle[n]);
      window.replacedCalls = [];
      window.restoreWebCrypto = () => {
        names.forEach((n, i) => {
          subtle[n] = originals[i];
        });
        crypto.getRandomValues = random;
      };
      names.forEach((n, i) => {
        subtle[n] = function replaced(...args) {
          window.replacedCalls.push(n);
          return originals[i].apply(subtle, args);
        };
      });
      crypto.getRandomValues = function replaced(buf) {
        window.replacedCalls.push('getRandomValues');
        return random.call(crypto, buf);
      };
      return window.store.saveClientKey(window.kit.ClientKey.generate());
    }), 'saveClientKey with replaced WebCrypto');
    const { scalar, bundle } = sealTo(kept.publicKeyHex);
    const response = sessionResponse({ type: 'OAUTH', bundle });
    const out = expectOk(await attempt(async ({ response, publicKeyHex }) => {
      try {
        const s = await window.store.openSession(response, { publicKeyHex });
        const stored = await window.store.save(s);
        const stamp = await stored.stamp('captured');
        await window.store.delete(stored.id);
        return { calls: window.replacedCalls, stamp };
      } finally {
        window.restoreWebCrypto();
      }
    }, { response, publicKeyHex: kept.publicKeyHex }), 'openSession with replaced WebCrypto');
    assert(json(out.calls) === '[]', `replacements installed after init were called: ${json(out.calls)}`);
    expectStamp(out.stamp, 'captured', compressedPublicKeyHex(scalar));
  });

  await check('openSession with several stored keys needs publicKeyHex', async () => {
    const kept = expectOk(await attempt(async () => {
      const a = await window.store.saveClientKey(window.kit.ClientKey.generate());
      const b = await window.store.saveClientKey(window.kit.ClientKey.generate());
      return [a.publicKeyHex, b.publicKeyHex];
    }), 'saveClientKey');
    const { scalar, bundle } = sealTo(kept[1]);
    const response = sessionResponse({ type: 'OAUTH', bundle });
    await attemptErr((r) => window.store.openSession(r), response, 'INVALID_INPUT');
    const stamp = expectOk(await attempt(async ({ response, publicKeyHex }) =>
      (await window.store.openSession(response, { publicKeyHex })).stamp('second'), { response, publicKeyHex: kept[1] }), 'open');
    expectStamp(stamp, 'second', compressedPublicKeyHex(scalar));
  });

  await check('an engine that cannot store a CryptoKey (put: DataCloneError): save keeps the session in memory (persisted: false), it signs a quote, a retry and a stamp that verify, list/load/delete find it; nothing is written; saveClientKey gets STORE_UNAVAILABLE; a new page has no such session', async () => {
    const pub = await newKey('key3');
    const { scalar, bundle } = sealTo(pub);
    const response = sessionResponse({ bundle, expiresAt: iso(HOUR) });
    const lockdownDb = `${DB}-lockdown`;
    const [q, pending] = [quote(), pending202()];
    const before = await page.evaluate((db) => window.rawRecords(db), DB);
    const out = await page.evaluate(async ({ response, db, q, pending }) => {
      const store = await window.kit.SessionStore.open({ name: db });
      await store.clear();
      // What an engine without CryptoKey serialisation in IndexedDB does (the structured
      // clone of a CryptoKey throws DataCloneError: iOS Lockdown Mode), for the kit's records only.
      const put = IDBObjectStore.prototype.put;
      IDBObjectStore.prototype.put = function refusingCryptoKeys(value, ...rest) {
        if (value?.key instanceof CryptoKey) throw new DOMException('CryptoKey cannot be cloned', 'DataCloneError');
        return put.call(this, value, ...rest);
      };
      try {
        const session = window.kit.Session.open(response, window.key3);
        const saved = await window.attempt(async () => {
          const stored = await store.save(session);
          session.free(); // the store's copy is what signs from here on
          const loaded = await store.load(stored.id);
          return {
            persisted: stored.persisted,
            loadedPersisted: loaded?.persisted,
            listed: (await store.list()).map((s) => [s.id, s.persisted]),
            stamp: await loaded.stamp('in memory'),
            quote: await stored.signQuote(q),
            retry: await stored.signRetry(JSON.stringify(pending)),
            again: (await window.attempt(() => loaded.signRetry(JSON.stringify(pending)))).error?.code,
          };
        });
        return {
          saved,
          saveClientKey: await window.attempt(() => store.saveClientKey(window.kit.ClientKey.generate())),
          raw: await window.rawRecords(db),
        };
      } finally {
        IDBObjectStore.prototype.put = put;
        window.lockdownStore = store;
      }
    }, { response, db: lockdownDb, q, pending });
    const saved = expectOk(out.saved, 'save with DataCloneError');
    assert(saved.persisted === false && saved.loadedPersisted === false, json(saved));
    assert(json(saved.listed) === json([[response.id, false]]), json(saved.listed));
    expectStamp(saved.stamp, 'in memory', compressedPublicKeyHex(scalar));
    expectStamp(saved.quote['Service-Wallet-Signature'], q.payloadToSign, compressedPublicKeyHex(scalar));
    expectStamp(saved.retry['Service-Wallet-Signature'], pending.payloadToSign, compressedPublicKeyHex(scalar));
    assert(saved.again === 'REQUEST_ALREADY_SIGNED', `the same requestId signed twice: ${saved.again}`);
    const e = expectKitError(out.saveClientKey, 'STORE_UNAVAILABLE');
    errors.push(e);
    assert(e.causeName === 'DataCloneError' && /IndexedDB/.test(e.message), `saveClientKey: ${json(e)}`);
    assert(out.raw.sessions.length === 0 && out.raw.clientKeys.length === 0, `records written: ${json(out.raw)}`);
    const after = await page.evaluate((db) => window.rawRecords(db), DB);
    assert(json(after) === json(before), 'the main store changed');
    await inOtherPage(async (other) => {
      await other.goto(`${origin}/`);
      await other.waitForFunction(() => window.kitLoaded === true, null, { timeout: 20_000 });
      const found = expectOk(await other.evaluate(({ db, id }) => window.attempt(async () => {
        const store = await window.kit.SessionStore.open({ name: db });
        const s = await store.load(id);
        store.close();
        return s === null;
      }), { db: lockdownDb, id: response.id }), 'load in another page');
      assert(found === true, 'another page found the in-memory session');
    });
    const gone = expectOk(await attempt(async (id) => {
      await window.lockdownStore.delete(id);
      return [await window.lockdownStore.load(id), (await window.lockdownStore.list()).length];
    }, response.id), 'delete');
    assert(json(gone) === json([null, 0]), json(gone));
    const again = expectOk(await attempt(async () => (await window.lockdownStore.saveClientKey(window.kit.ClientKey.generate())).publicKeyHex), 'saveClientKey after');
    assert(/^04[0-9a-f]{128}$/.test(again), again);
  });

  await check('a delete in another page reaches this one: its handle then throws SESSION_CLOSED (BroadcastChannel)', async () => {
    expectOk(await attempt(async (id) => {
      window.crossTab = await window.store.load(id);
      return window.crossTab.stamp('before');
    }, state.sandbox.id), 'load in this page');
    await inOtherPage(async (other) => {
      await other.goto(`${origin}/`);
      await other.waitForFunction(() => window.kitLoaded === true, null, { timeout: 20_000 });
      expectOk(await other.evaluate(({ db, id }) => window.attempt(async () => {
        const store = await window.kit.SessionStore.open({ name: db });
        await store.delete(id);
        store.close();
        return true;
      }), { db: DB, id: state.sandbox.id }), 'delete in the other page');
    });
    // The message arrives a task later; no IndexedDB read is needed to refuse.
    await attemptErr(async () => {
      await new Promise((ok) => setTimeout(ok, 50));
      return window.crossTab.stamp('after');
    }, null, 'SESSION_CLOSED');
  });

  await check('delete: the handle and other handles then throw SESSION_CLOSED; load gives null', async () => {
    const out = expectOk(await attempt(async (id) => {
      const a = await window.store.load(id);
      const b = await window.store.load(id);
      await a.delete();
      const results = [];
      for (const fn of [() => a.stamp('x'), () => b.stamp('x'), () => b.signQuote({ payloadToSign: 'q', expiresAt: new Date(Date.now() + 60_000).toISOString() }),
        () => b.signRetry({ payloadToSign: 'p', requestId: 'Request:00000000-0000-4000-8000-000000000000', expiresAt: new Date(Date.now() + 60_000).toISOString() })]) {
        results.push((await window.attempt(fn)).error?.code);
      }
      return { results, after: await window.store.load(id) };
    }, state.real.response.id), 'delete');
    assert(json(out.results) === json(['SESSION_CLOSED', 'SESSION_CLOSED', 'SESSION_CLOSED', 'SESSION_CLOSED']), json(out.results));
    assert(out.after === null, 'load after delete');
    expectOk(await attempt((id) => window.store.delete(id), state.real.response.id), 'deleting twice is fine');
  });

  await check('clear() empties the store; a closed store rejects STORE_UNAVAILABLE', async () => {
    const out = expectOk(await attempt(async () => {
      await window.store.clear();
      return (await window.store.list()).length;
    }), 'clear');
    assert(out === 0, `list after clear: ${out}`);
    const raw = await page.evaluate((db) => window.rawRecords(db), DB);
    assert(raw.sessions.length === 0 && raw.clientKeys.length === 0, json(raw));
    await attemptErr(async () => {
      window.store.close();
      return window.store.list();
    }, null, 'STORE_UNAVAILABLE');
  });

  // ---- a fresh page whose script replaces WebCrypto and Date.now while init() runs ----
  await load('?noinit');
  await check('WebCrypto and Date.now replaced after the module loaded, before init() resolved, get no call from the kit', async () => {
    const kept = expectOk(await attempt(async (db) => {
      const fromKit = () => /\/pkg\//.test(new Error().stack ?? '');
      window.replacedCalls = [];
      const undo = [];
      window.restoreGlobals = () => undo.forEach((f) => f());
      const replace = (target, name) => {
        const original = target[name];
        target[name] = function replaced(...args) {
          if (fromKit()) window.replacedCalls.push(name);
          return original.apply(target, args);
        };
        undo.push(() => {
          target[name] = original;
        });
      };
      // Before init() is called, then while the .wasm downloads and compiles.
      replace(crypto, 'getRandomValues');
      replace(crypto.subtle, 'importKey');
      const initialising = window.kit.init();
      replace(crypto.subtle, 'deriveBits');
      replace(crypto.subtle, 'sign');
      replace(Date, 'now');
      await initialising;
      window.earlyStore = await window.kit.SessionStore.open({ name: db });
      return window.earlyStore.saveClientKey(window.kit.ClientKey.generate());
    }, `${DB}-early`), 'saveClientKey with WebCrypto replaced before init() resolved');
    const { scalar, bundle } = sealTo(kept.publicKeyHex);
    const response = sessionResponse({ type: 'OAUTH', bundle });
    const out = expectOk(await attempt(async (response) => {
      try {
        const stored = await window.earlyStore.save(await window.earlyStore.openSession(response));
        const stamp = await stored.stamp('early');
        await stored.signRetry({ type: 'EMAIL_OTP', payloadToSign: '{}', requestId: `Request:${crypto.randomUUID()}`, expiresAt: new Date(Date.now() + 60_000).toISOString() });
        const listed = (await window.earlyStore.list()).length;
        await window.earlyStore.clear();
        return { calls: window.replacedCalls, stamp, listed };
      } finally {
        window.restoreGlobals();
      }
    }, response), 'openSession, save, stamp with WebCrypto replaced before init() resolved');
    assert(json(out.calls) === '[]', `replacements installed before init() resolved were called: ${json(out.calls)}`);
    assert(out.listed === 1, `list() found ${out.listed}`);
    expectStamp(out.stamp, 'early', compressedPublicKeyHex(scalar));
  });

  // ---- capabilities(): each answer in this engine, and the storage failure simulated ----
  await load('?noinit');
  await check('capabilities() before init(): every part answered, cached, its probe database deleted, no .wasm fetched', async () => {
    const before = requests().length;
    const out = expectOk(await attempt(async () => {
      const t0 = performance.now();
      const first = await window.kit.capabilities();
      const ms = performance.now() - t0;
      const t1 = performance.now();
      const again = await window.kit.capabilities();
      const cachedMs = performance.now() - t1;
      const dbs = typeof indexedDB.databases === 'function' ? (await indexedDB.databases()).map((d) => d.name) : null;
      return { caps: JSON.parse(JSON.stringify(first)), same: first === again, frozen: Object.isFrozen(first), ms, cachedMs, dbs };
    }), 'capabilities()');
    const { caps } = out;
    console.log(`# [${engine}] capabilities() first call ${out.ms.toFixed(1)} ms (cached: ${out.cachedMs.toFixed(2)} ms): ${json(caps)}`);
    assert(out.same && out.frozen, 'a second call resolves to the same frozen object');
    const webAuthn = engine !== 'webkit'; // WebKitGTK has no WebAuthn
    assert(caps.passkeys.available === webAuthn, `passkeys.available ${caps.passkeys.available} in ${engine}`);
    if (webAuthn) {
      assert(caps.passkeys.reason === undefined, `reason while available: ${caps.passkeys.reason}`);
    } else {
      assert(/no PublicKeyCredential/.test(caps.passkeys.reason), `passkeys.reason: ${caps.passkeys.reason}`);
      assert(json(caps.passkeys.signals) === json({ signalUnknownCredential: false, signalAllAcceptedCredentials: false, signalCurrentUserDetails: false }), json(caps.passkeys.signals));
    }
    for (const part of ['platformAuthenticator', 'conditionalMediation']) assert(typeof caps.passkeys[part] === 'boolean', `${part}: ${caps.passkeys[part]}`);
    for (const part of ['persistentKeys', 'wasm', 'isolatedSigner']) {
      assert(json(caps[part]) === json({ available: true }), `${part}: ${json(caps[part])}`);
    }
    assert(out.dbs === null || !out.dbs.some((n) => /capabilities/.test(n)), `probe database left behind: ${json(out.dbs)}`);
    const loaded = requests().slice(before).map((r) => r.path);
    assert(loaded.filter((p) => p === '/pkg/capabilities.js').length === 1, `capabilities.js loaded: ${json(loaded)}`);
    assert(!loaded.some((p) => p.endsWith('.wasm')), `a .wasm fetched: ${json(loaded)}`);
  });

  await load('?noinit');
  await check('capabilities(): a CryptoKey IndexedDB refuses (DataCloneError) and a refused wasm compile say so, with reasons', async () => {
    const caps = expectOk(await attempt(async () => {
      const put = IDBObjectStore.prototype.put;
      // As iOS Lockdown Mode does: a CryptoKey cannot be cloned into IndexedDB.
      IDBObjectStore.prototype.put = function put_(value, key) {
        if (value instanceof CryptoKey || value?.key instanceof CryptoKey) throw new DOMException('simulated: CryptoKey not cloneable', 'DataCloneError');
        return put.call(this, value, key);
      };
      // As a CSP without 'wasm-unsafe-eval' does.
      WebAssembly.instantiate = () => Promise.reject(new WebAssembly.CompileError('simulated: refused by the Content-Security-Policy'));
      return JSON.parse(JSON.stringify(await window.kit.capabilities()));
    }), 'capabilities()');
    assert(caps.persistentKeys.available === false && /DataCloneError/.test(caps.persistentKeys.reason), json(caps.persistentKeys));
    assert(caps.wasm.available === false && /CompileError/.test(caps.wasm.reason) && /wasm-unsafe-eval/.test(caps.wasm.reason), json(caps.wasm));
    assert(caps.isolatedSigner.available === true, json(caps.isolatedSigner));
  });

  await load();
  await check('capabilities() after init(): wasm available (the kit\'s module is instantiated)', async () => {
    const wasm = expectOk(await attempt(async () => {
      WebAssembly.instantiate = () => Promise.reject(new Error('must not be asked: init() resolved'));
      return (await window.kit.capabilities()).wasm;
    }), 'capabilities()');
    assert(json(wasm) === json({ available: true }), json(wasm));
  });

  await check('WebAuthn signals: after WalletClient.revokeCredential of a passkey, signalUnknownCredential is called where the browser has it (Chromium), else the result says why; the three wrappers answer the same way', async () => {
    const pub = await newKey('key4');
    const { bundle } = sealTo(pub);
    const response = sessionResponse({ bundle, expiresAt: iso(HOUR) });
    const webAuthnId = hex(randomScalar()).slice(0, 22); // hex is base64url too
    const out = expectOk(await attempt(async ({ response, pending, webAuthnId }) => {
      const seen = [];
      const pkc = window.PublicKeyCredential;
      const original = pkc?.signalUnknownCredential;
      // Observed page-side, then handed to the browser's own method.
      if (original) {
        pkc.signalUnknownCredential = function observed(arg) {
          seen.push(JSON.parse(JSON.stringify(arg)));
          return original.call(this, arg);
        };
      }
      try {
        const sent = [];
        const client = new window.kit.WalletClient({
          transport: async (request) => {
            sent.push(request.method);
            return sent.length === 1 ? { status: 202, body: JSON.stringify(pending) } : { status: 204 };
          },
        });
        const session = window.kit.Session.open(response, window.key4);
        const revoked = await client.revokeCredential(session, 'AuthMethod:00000000-0000-4000-8000-0000000000aa', { passkeyCredentialId: webAuthnId });
        const { passkey } = window.kit;
        const wrappers = [
          await passkey.signalAllAcceptedCredentials({ userId: 'user-1', allAcceptedCredentialIds: [webAuthnId] }),
          await passkey.signalCurrentUserDetails({ userId: 'user-1', name: 'zoe@example.com' }),
        ];
        const bad = await window.attempt(() => passkey.signalUnknownCredential({ credentialId: 'not base64url!' }));
        return { revoked, seen, sent, wrappers, bad: bad.error };
      } finally {
        if (original) pkc.signalUnknownCredential = original;
      }
    }, { response, pending: pending202(), webAuthnId }), 'revoke and signal');
    console.log(`# [${engine}] revokeCredential: ${json(out.revoked)}; wrappers: ${json(out.wrappers)}`);
    assert(json(out.sent) === json(['DELETE', 'DELETE']), `requests: ${json(out.sent)}`);
    if (engine === 'chromium') {
      assert(json(out.revoked) === json({ signaled: true }), json(out.revoked));
      assert(json(out.seen) === json([{ rpId: 'localhost', credentialId: webAuthnId }]), json(out.seen));
      assert(out.wrappers.every((r) => r.signaled === true), json(out.wrappers));
    } else {
      const why = engine === 'webkit' ? /no PublicKeyCredential\)/ : /no PublicKeyCredential\.signalUnknownCredential/;
      assert(out.revoked.signaled === false && why.test(out.revoked.reason), json(out.revoked));
      assert(out.wrappers.every((r) => r.signaled === false && typeof r.reason === 'string'), json(out.wrappers));
    }
    assert(out.bad?.code === 'INVALID_INPUT' && /credentialId/.test(out.bad.message), json(out.bad));
    errors.push(out.bad);
  });

  await check('the in-memory fallback against the strict emulator: a WalletClient EMAIL_OTP login saved where put throws DataCloneError (persisted: false), then executeQuote, refresh and revokeSession by the stored session; every stamp verifies', async () => {
    await page.goto(`${emulator.origin}/`);
    await page.waitForFunction(() => window.kitLoaded === true, null, { timeout: 20_000 });
    const out = expectOk(await attempt(async ({ db, emulatorInPage }) => {
      const { kit } = window;
      const { call, transport, loginByEmail, fundedQuote } = (0, eval)(`(${emulatorInPage})`)();
      const sent = [];
      const config = await call('/emulator', 'GET', '/config');
      await call('/emulator', 'POST', '/processing', { count: 0 });
      const client = new kit.WalletClient({ transport: transport(sent), otpSignerPin: config.otpSignerPublicKey, processing: { firstDelayMs: 5, maxDelayMs: 20 } });
      const store = await kit.SessionStore.open({ name: db });
      await store.clear();
      const put = IDBObjectStore.prototype.put;
      // As iOS Lockdown Mode does: a CryptoKey cannot be cloned into IndexedDB.
      IDBObjectStore.prototype.put = function refusingCryptoKeys(value, ...rest) {
        if (value?.key instanceof CryptoKey) throw new DOMException('CryptoKey cannot be cloned', 'DataCloneError');
        return put.call(this, value, ...rest);
      };
      try {
        const { account, session } = await loginByEmail(client);
        const saved = await store.save(session);
        session.free(); // from here only the store's in-memory copy signs
        const stored = await store.load(saved.id);
        const q = await fundedQuote(account.accountId, 'in-memory session');
        const transaction = await client.executeQuote(stored, q);
        const refreshed = await client.refresh(stored);
        const keysSeen = [stored.publicKeyHex, refreshed.publicKeyHex];
        const savedRefresh = await store.save(refreshed);
        refreshed.free();
        await client.revokeSession(stored);
        await client.revokeSession(savedRefresh);
        return {
          persisted: [saved.persisted, stored.persisted, savedRefresh.persisted],
          transaction: transaction.status,
          keysSeen,
          quotePayload: q.payloadToSign,
          afterRevoke: (await window.attempt(() => stored.stamp('x'))).error?.code,
          left: (await store.list()).length,
          raw: await window.rawRecords(db),
          sent,
        };
      } finally {
        IDBObjectStore.prototype.put = put;
        store.close();
      }
    }, { db: `${DB}-emulator`, emulatorInPage: String(emulatorInPage) }), 'login, quote, refresh, revoke');
    assert(json(out.persisted) === json([false, false, false]), `persisted ${json(out.persisted)}`);
    assert(out.transaction === 'COMPLETED', `transaction ${out.transaction}`);
    assert(out.keysSeen.every((k) => /^0[23][0-9a-f]{64}$/.test(k)) && out.keysSeen[0] !== out.keysSeen[1], json(out.keysSeen));
    assert(out.afterRevoke === 'SESSION_CLOSED' && out.left === 0, json({ afterRevoke: out.afterRevoke, left: out.left }));
    assert(out.raw.sessions.length === 0 && out.raw.clientKeys.length === 0, `records written: ${json(out.raw)}`);
    // Every signed request's stamp verifies under the stored session's or its refresh's key.
    const { signed, ops, signers } = verifySignedRequests(out.sent, { quotePayload: out.quotePayload, keys: out.keysSeen });
    assert(signed.length >= 4 && signed.every((r) => r.status >= 200 && r.status < 300), json(signed.map((r) => [r.method, r.path, r.status, r.response.slice(0, 200)])));
    // The quote, the refresh and the first revoke by the login's key; the last by the refresh's.
    assert(signers.at(-1) === 1 && signers.slice(0, -1).every((i) => i === 0), `signers ${json(signers)} for ${json(ops)}`);
    console.log(`# [${engine}] ${signed.length} stamps verified: ${ops.join(', ')}`);
  });

  await check('no error message holds key material; no page errors', async () => {
    assert(errors.length > 20, `only ${errors.length} errors seen`);
    assertNoSecret(errors, 'an error message');
    assert(pageErrors.length === 0, `page errors: ${pageErrors.join('; ')}`);
  });
  await context?.close();
  await page.close?.();
}

export default defineSuite(import.meta, {
  checks,
  async run(e, b) {
    [engine, browser] = [e, b];
    errors.length = 0;
    secrets.length = 0;
    await suite();
  },
  async close() {
    await server.close();
    emulator.proc.kill();
  },
});
