// The built package through its Node entry (pkg/node.js).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { bs58, bs58check } from '@turnkey/encoding';
import * as kit from '../../pkg/node.js';
import {
  sessionResponse, pending202, quote, iso, HOUR, randomScalar, compressedPublicKeyHex, sealBundle, checkStamp,
} from '../support/fixtures.mjs';
import { custodyLeaks } from '../support/reachable.mjs';

const { init, ClientKey, Session, KitError } = kit;

/** Asserts that fn throws a KitError with `code`. */
function throwsKit(fn, code) {
  let thrown;
  try {
    fn();
  } catch (err) {
    thrown = err;
  }
  assert.ok(thrown !== undefined, `expected KitError ${code}, nothing was thrown`);
  assert.ok(thrown instanceof KitError, `expected a KitError ${code}, got ${thrown?.constructor?.name}: ${thrown?.message ?? thrown}`);
  assert.ok(thrown instanceof Error);
  assert.equal(thrown.name, 'KitError');
  assert.equal(thrown.code, code, `wrong code (message: ${thrown.message})`);
  assert.equal(typeof thrown.message, 'string');
  assert.ok(thrown.message.length > 0, 'empty message');
  return thrown;
}

/** A real session: a fresh ClientKey, a random session scalar sealed to it, opened. */
function realSession(overrides = {}) {
  const key = ClientKey.generate();
  const scalar = randomScalar();
  const bundle = sealBundle(scalar, key.publicKeyHex);
  const response = sessionResponse({ bundle, ...overrides });
  return { key, scalar, bundle, response, expectedPub: compressedPublicKeyHex(scalar) };
}

test('exports exactly init, ClientKey, Session, KitError, inspectPayload, passkey, SessionStore, SessionKeeper, WalletClient, encryptOtp, openWalletExport, capabilities', () => {
  assert.deepEqual(Object.keys(kit).sort(), [
    'ClientKey', 'KitError', 'Session', 'SessionKeeper', 'SessionStore', 'WalletClient', 'capabilities', 'encryptOtp', 'init', 'inspectPayload', 'openWalletExport', 'passkey',
  ]);
  assert.equal(typeof init, 'function');
  assert.equal(typeof ClientKey.generate, 'function');
  assert.equal(typeof Session.open, 'function');
});

test('init() resolves at once, repeatedly, with no argument or with one', async () => {
  const p1 = init();
  const p2 = init({ module_or_path: 'file:///nonexistent.wasm' });
  assert.ok(p1 instanceof Promise);
  assert.equal(await p1, undefined);
  assert.equal(await p2, undefined);
});

test('ClientKey: key formats and OIDC nonce', async () => {
  await init();
  const seen = new Set();
  for (let i = 0; i < 10; i++) {
    const key = ClientKey.generate();
    const pub = key.publicKeyHex;
    const comp = key.compressedPublicKeyHex;
    assert.match(pub, /^04[0-9a-f]{128}$/);
    assert.match(comp, /^0[23][0-9a-f]{64}$/);
    assert.equal(comp.slice(2), pub.slice(2, 66), 'compressed key carries the same x');
    const yOdd = parseInt(pub.slice(-1), 16) & 1;
    assert.equal(comp.slice(0, 2), yOdd ? '03' : '02', 'compressed prefix matches y parity');
    const nonce = key.oidcNonce();
    assert.equal(nonce, createHash('sha256').update(pub, 'ascii').digest('hex'));
    assert.equal(key.oidcNonce(), nonce, 'nonce is stable');
    assert.ok(!seen.has(pub), 'keys are fresh');
    seen.add(pub);
    key.free();
  }
});

test('sandbox session: magic signature and exact header shapes', () => {
  const response = sessionResponse({ bundle: 'this is not a bundle at all!!' });
  const sb = Session.sandbox(response);
  assert.equal(sb.id, response.id);
  assert.equal(sb.accountId, response.accountId);
  assert.equal(sb.type, 'EMAIL_OTP');
  assert.ok(sb.expiresAt instanceof Date);
  assert.equal(sb.expiresAt.getTime(), Date.parse(response.expiresAt));
  assert.equal(sb.isExpired(), false);
  assert.equal(sb.stamp('{"anything":1}'), 'sandbox-valid-signature');

  const p = pending202();
  const retry = sb.signRetry(p);
  assert.deepEqual(Object.keys(retry), ['Service-Wallet-Signature', 'Request-Id']);
  assert.equal(retry['Service-Wallet-Signature'], 'sandbox-valid-signature');
  assert.equal(retry['Request-Id'], p.requestId);

  const q = sb.signQuote(quote());
  assert.deepEqual(Object.keys(q), ['Service-Wallet-Signature']);
  assert.equal(q['Service-Wallet-Signature'], 'sandbox-valid-signature');

  // The bundle may be absent, and the response may be JSON text.
  const noBundle = Session.sandbox(JSON.stringify(sessionResponse({ omitBundle: true })));
  assert.equal(noBundle.stamp(''), 'sandbox-valid-signature');
  sb.free();
  noBundle.free();
});

test('real session: opens a sealed bundle, stamps, signs retries and quotes', () => {
  const { key, response, expectedPub } = realSession();
  const s = Session.open(response, key);
  assert.equal(s.id, response.id);
  assert.equal(s.accountId, response.accountId);
  assert.equal(s.type, response.type);
  assert.equal(s.expiresAt.getTime(), Date.parse(response.expiresAt));
  assert.equal(s.publicKeyHex, expectedPub);
  assert.equal(s.isExpired(), false);
  assert.equal(s.isExpired(new Date(Date.now() + 2 * HOUR)), true);
  assert.equal(s.isExpired(new Date(Date.now() - HOUR)), false);

  const payload = '{"type":"ACTIVITY_TYPE_X","timestampMs":"1","organizationId":"o"}';
  const stamp = s.stamp(payload);
  const c = checkStamp(stamp, payload, expectedPub);
  assert.ok(c.ok, `stamp must verify: ${JSON.stringify(c)}`);
  const again = s.stamp(payload);
  assert.notEqual(again, stamp, 'hedged nonces: two stamps of one payload differ');
  assert.ok(checkStamp(again, payload, expectedPub).ok, 'the second stamp verifies too');
  assert.equal(checkStamp(stamp, `${payload} `, expectedPub).ok, false, 'a different payload must not verify');

  const p = pending202();
  const headers = s.signRetry(p);
  assert.deepEqual(Object.keys(headers), ['Service-Wallet-Signature', 'Request-Id']);
  assert.equal(headers['Request-Id'], p.requestId);
  assert.ok(checkStamp(headers['Service-Wallet-Signature'], p.payloadToSign, expectedPub).ok);

  const q = quote();
  const qh = s.signQuote(JSON.stringify(q));
  assert.deepEqual(Object.keys(qh), ['Service-Wallet-Signature']);
  assert.ok(checkStamp(qh['Service-Wallet-Signature'], q.payloadToSign, expectedPub).ok);
  s.free();
});

test('free(): zeroizes but keeps the object usable for a clean error; idempotent', () => {
  const { key, response } = realSession();
  assert.equal(key.consumed, false);
  key.free();
  assert.equal(key.consumed, true);
  throwsKit(() => Session.open(response, key), 'KEY_CONSUMED');
  key.free();

  const fresh = realSession();
  const s = Session.open(fresh.response, fresh.key);
  assert.equal(fresh.key.consumed, true, 'opening consumes the key');
  assert.equal(s.publicKeyHex, fresh.expectedPub);
  s.free();
  assert.equal(s.publicKeyHex, undefined, 'no key after free');
  throwsKit(() => s.stamp('x'), 'SESSION_CLOSED');
  throwsKit(() => s.signRetry(pending202()), 'SESSION_CLOSED');
  throwsKit(() => s.signQuote(quote()), 'SESSION_CLOSED');
  s.free();
  if (typeof Symbol.dispose === 'symbol') {
    const t = realSession();
    const s2 = Session.open(t.response, t.key);
    s2[Symbol.dispose]();
    throwsKit(() => s2.stamp('x'), 'SESSION_CLOSED');
  }
});

test('Session.open accepts the response as JSON text', () => {
  const { key, response, expectedPub } = realSession();
  const s = Session.open(JSON.stringify(response), key);
  assert.equal(s.publicKeyHex, expectedPub);
  s.free();
});

test('errors are KitError with stable codes, and the module survives them', () => {
  // INVALID_BUNDLE: not base58 at all.
  {
    const key = ClientKey.generate();
    throwsKit(() => Session.open(sessionResponse({ bundle: '0OIl+/not-base58' }), key), 'INVALID_BUNDLE');
  }
  // INVALID_BUNDLE: valid base58check, wrong length (a sealed 16-byte secret: 33 + 32 bytes).
  {
    const key = ClientKey.generate();
    throwsKit(() => Session.open(sessionResponse({ bundle: sealBundle(new Uint8Array(16).fill(7), key.publicKeyHex) }), key), 'INVALID_BUNDLE');
  }
  // INVALID_BUNDLE: right length, but the encapsulated key is not a curve point.
  {
    const key = ClientKey.generate();
    const bytes = bs58check.decode(sealBundle(randomScalar(), key.publicKeyHex));
    bytes[0] = 0x05;
    throwsKit(() => Session.open(sessionResponse({ bundle: bs58check.encode(bytes) }), key), 'INVALID_BUNDLE');
  }
  // BUNDLE_CHECKSUM: flip a checksum byte.
  {
    const { key, bundle } = realSession();
    const bytes = bs58.decode(bundle);
    bytes[bytes.length - 1] ^= 0x01;
    throwsKit(() => Session.open(sessionResponse({ bundle: bs58.encode(bytes) }), key), 'BUNDLE_CHECKSUM');
  }
  // DECRYPTION_FAILED: sealed to another key.
  {
    const { bundle } = realSession();
    const other = ClientKey.generate();
    throwsKit(() => Session.open(sessionResponse({ bundle }), other), 'DECRYPTION_FAILED');
  }
  // KEY_CONSUMED: a key opens one session only.
  {
    const { key, response } = realSession();
    const second = sessionResponse({ bundle: sealBundle(randomScalar(), key.publicKeyHex) });
    const s = Session.open(response, key);
    throwsKit(() => Session.open(second, key), 'KEY_CONSUMED');
    s.free();
  }
  // SESSION_EXPIRED: a session whose expiresAt has passed cannot sign.
  {
    const { key, response } = realSession({ expiresAt: iso(-60_000) });
    throwsKit(() => {
      const s = Session.open(response, key);
      assert.equal(s.isExpired(), true);
      s.stamp('late');
    }, 'SESSION_EXPIRED');
  }
  // SESSION_CLOSED: use after free.
  {
    const { key, response } = realSession();
    const s = Session.open(response, key);
    s.free();
    throwsKit(() => s.stamp('after free'), 'SESSION_CLOSED');
  }
  const { key, response, expectedPub } = realSession();
  const s = Session.open(response, key);
  // INVALID_PENDING_SIGNATURE: missing requestId; not JSON.
  {
    const p = pending202();
    delete p.requestId;
    throwsKit(() => s.signRetry(p), 'INVALID_PENDING_SIGNATURE');
    throwsKit(() => s.signRetry('{"payloadToSign": '), 'INVALID_PENDING_SIGNATURE');
  }
  // REQUEST_EXPIRED.
  throwsKit(() => s.signRetry(pending202({ expiresAt: iso(-1000) })), 'REQUEST_EXPIRED');
  // REQUEST_ALREADY_SIGNED: a request id is single-use.
  {
    const p = pending202();
    s.signRetry(p);
    throwsKit(() => s.signRetry(p), 'REQUEST_ALREADY_SIGNED');
  }
  // QUOTE_EXPIRED.
  throwsKit(() => s.signQuote(quote({ expiresAt: iso(-1000) })), 'QUOTE_EXPIRED');
  // INVALID_INPUT: a quote without payloadToSign.
  throwsKit(() => s.signQuote(quote({ omitPayload: true })), 'INVALID_INPUT');
  // INVALID_TIMESTAMP: expiresAt that is not RFC 3339.
  throwsKit(() => Session.sandbox(sessionResponse({ expiresAt: 'next tuesday' })), 'INVALID_TIMESTAMP');

  // Still working after all of that.
  const payload = 'still alive ✓';
  assert.ok(checkStamp(s.stamp(payload), payload, expectedPub).ok);
  const fresh = realSession();
  const s2 = Session.open(fresh.response, fresh.key);
  assert.ok(checkStamp(s2.stamp(payload), payload, fresh.expectedPub).ok);
  s.free();
  s2.free();
});

test('init() resolves to undefined, and nothing the node entry exports leads to the wasm exports, its memory or a store binding', async () => {
  
  assert.equal(await init(), undefined);
  assert.deepEqual(custodyLeaks(kit), []);
  // Nor do live handles (their prototypes and constructors included).
  const key = ClientKey.generate();
  const session = Session.sandbox(sessionResponse());
  assert.deepEqual(custodyLeaks({ key, session, keyProto: Object.getPrototypeOf(key), sessionProto: Object.getPrototypeOf(session) }), []);
  assert.deepEqual(Reflect.ownKeys(key), [], 'a ClientKey carries no own property');
  assert.deepEqual(Reflect.ownKeys(session), [], 'a Session carries no own property');
});

test('capabilities() in Node: no passkeys, no persistent keys, no isolated signer, each with its reason; the wasm is there; cached', async () => {
  const caps = await kit.capabilities();
  assert.equal(await kit.capabilities(), caps, 'a second call resolves to the same object');
  assert.ok(Object.isFrozen(caps));
  assert.equal(caps.passkeys.available, false);
  assert.match(caps.passkeys.reason, /no PublicKeyCredential/);
  assert.deepEqual(caps.passkeys.signals, { signalUnknownCredential: false, signalAllAcceptedCredentials: false, signalCurrentUserDetails: false });
  assert.equal(caps.passkeys.clientCapabilities, undefined);
  assert.deepEqual(caps.persistentKeys, { available: false, reason: 'IndexedDB is not available here' });
  assert.deepEqual(caps.wasm, { available: true });
  assert.equal(caps.isolatedSigner.available, globalThis.Worker !== undefined);
  if (!caps.isolatedSigner.available) assert.match(caps.isolatedSigner.reason, /Workers/);
});
