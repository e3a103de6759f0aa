// Hostile-input corpus through the built package's Node entry (pkg/node.js).
//
// Every exported function is called with hostile input: wrong types, Symbols, Proxies
// whose traps throw, revoked Proxies, prototype tricks, 10,000-level-deep and 10 MB JSON,
// 10 MB bundles and payloads, lone surrogates, malformed bundles (checksum, length,
// bit flips, off-curve and identity points, wrong key), malformed timestamps, 202s and
// quotes, passkey options. Each case expects the code the README's error table (and
// index.d.ts) documents, and every thrown value must be a KitError with a non-empty,
// bounded message that holds no secret: not the OTP-like value planted in the inputs,
// not the session scalar, not the bundle text.
//
// A panic in wasm traps and kills the instance, so after every case one long-lived
// session must still produce a stamp that verifies, and the last test opens a fresh
// sealed session in the same instance and signs with it.
//
// No case is marked todo or skipped (tests/js/no-skipped-tests.test.mjs fails if one
// is). Cases that would kill the test process or the module instance run in a child
// process.
//
// Zeroization, the part visible from JS: no member of Session or ClientKey returns key
// bytes, free() makes later use throw SESSION_CLOSED / KEY_CONSUMED, and a scan of the
// signing module's linear memory shows the session scalar gone after free().
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { inspect } from 'node:util';
import { bs58, bs58check } from '@turnkey/encoding';
import { p256 } from '@noble/curves/nist.js';
import * as kit from '../../pkg/node.js';
import { initSync as signingExports } from '../../pkg/embedded_wallet_kit.js';
import {
  sessionResponse, pending202, quote, iso, HOUR, randomScalar, compressedPublicKeyHex, sealBundle, checkStamp,
} from '../support/fixtures.mjs';

const { ClientKey, Session, KitError, passkey } = kit;
const NODE_ENTRY = new URL('../../pkg/node.js', import.meta.url).href;
const GLUE = new URL('../../pkg/embedded_wallet_kit.js', import.meta.url).href;
const FIXTURES = new URL('../support/fixtures.mjs', import.meta.url).href;

// ---------------------------------------------------------------------------------------
// Secrets and the long-lived "victim" session.

/** An OTP-like value planted in hostile inputs; no error message may echo it. */
const OTP = '738194';
const hex = (bytes) => Buffer.from(bytes).toString('hex');
const b64u = (bytes) => Buffer.from(bytes).toString('base64url');
const MAX_MESSAGE = 512;

/** A fresh ClientKey, a random session scalar sealed to it, and the response carrying it. */
function sealed(overrides = {}) {
  const key = ClientKey.generate();
  const scalar = randomScalar();
  const bundle = sealBundle(scalar, key.publicKeyHex);
  const response = { ...sessionResponse({ bundle }), otp: OTP, ...overrides };
  return { key, scalar, bundle, response, pub: compressedPublicKeyHex(scalar) };
}

/** Every form in which a scalar must never show up in anything the kit hands back. */
function scalarForms(scalar) {
  const h = hex(scalar);
  return [h, h.toUpperCase(), Buffer.from(scalar).toString('base64'), b64u(scalar)];
}

const victim = sealed();
victim.session = Session.open(victim.response, victim.key);
const SECRETS = [OTP, victim.bundle, ...scalarForms(victim.scalar)];

/** The instance is alive: the victim session still signs, and the stamp verifies. */
function assertAlive(where) {
  const payload = `alive after ${where}`;
  const c = checkStamp(victim.session.stamp(payload), payload, victim.pub);
  assert.ok(c.ok, `the victim session no longer produces a valid stamp after ${where}: ${JSON.stringify(c)}`);
}

/** Throws unless `err` is a KitError with `code`, a bounded message, and no secret anywhere in it. */
function assertKitError(err, code, extraSecrets = []) {
  assert.ok(
    err instanceof KitError,
    `expected KitError ${code}, got ${err?.constructor?.name ?? typeof err}: ${String(err?.message ?? err).slice(0, 400)}`,
  );
  assert.ok(err instanceof Error);
  assert.equal(err.name, 'KitError');
  assert.equal(err.code, code, `wrong code (message: ${err.message})`);
  assert.equal(typeof err.message, 'string');
  assert.ok(err.message.length > 0, 'empty message');
  assert.ok(err.message.length <= MAX_MESSAGE, `message is ${err.message.length} chars: it echoes the input`);
  if (err.cause !== undefined) {
    assert.ok(!(err.cause instanceof WebAssembly.RuntimeError), `a wasm trap wrapped as ${code}: ${err.cause.message}`);
  }
  assertNoSecrets(`KitError ${code}`, [err.message, String(err.stack), safeJson(err), inspect(err, { depth: 4 })], extraSecrets);
}

function assertNoSecrets(what, texts, extraSecrets = []) {
  for (const secret of [...SECRETS, ...extraSecrets]) {
    if (typeof secret !== 'string' || secret.length < 6) continue;
    for (const text of texts) {
      assert.ok(!text.includes(secret), `${what} contains a secret (${secret.slice(0, 12)}…)`);
    }
  }
}

function safeJson(value) {
  try {
    return JSON.stringify(value) ?? '';
  } catch {
    return '';
  }
}

/** Resolves to the promise's outcome, or to `pending` when it has not settled within `ms`. */
async function settleWithin(promise, ms) {
  let timer;
  const timeout = new Promise((resolve) => {
    timer = setTimeout(() => resolve({ state: 'pending' }), ms);
  });
  try {
    return await Promise.race([
      promise.then((value) => ({ state: 'resolved', value }), (error) => ({ state: 'rejected', error })),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

// ---------------------------------------------------------------------------------------
// Hostile building blocks.

const uuid = () => randomUUID();
const REQUEST_ID = () => `Request:${uuid()}`;
const response = (overrides = {}) => ({ ...sessionResponse(), otp: OTP, ...overrides });
const withoutKey = (obj, name) => {
  const copy = { ...obj };
  delete copy[name];
  return copy;
};

/** A Proxy whose every trap throws (with a secret in the message, which must not leak). */
const throwingProxy = (target = {}) => new Proxy(target, Object.fromEntries(
  ['get', 'has', 'ownKeys', 'getOwnPropertyDescriptor', 'getPrototypeOf', 'defineProperty', 'set', 'apply']
    .map((trap) => [trap, () => {
      throw new Error(`trap ${trap} ${OTP}`);
    }]),
));

/** A revoked Proxy: any operation on it (even Array.isArray) throws a TypeError. */
function revokedProxy(target = {}) {
  const { proxy, revoke } = Proxy.revocable(target, {});
  revoke();
  return proxy;
}

/** An array whose first element is a getter that throws. */
const throwingGetterArray = () => Object.defineProperty(['AAAA'], 0, {
  get() {
    throw new Error(`element getter ${OTP}`);
  },
});

/** A JSON object nested `depth` levels deep. */
function deepJson(depth) {
  return `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
}

const MB = 1 << 20;
const TEN_MB_JSON_VALID = JSON.stringify({ ...sessionResponse(), otp: OTP, padding: 'p'.repeat(10 * MB) });
const TEN_MB_EUROS = '€'.repeat(Math.floor((10 * MB) / 3));
const TEN_MB_JSON_INVALID = `{"otp":"${OTP}","padding":"${'p'.repeat(10 * MB)}`;

/** `bundle` decoded, altered by `edit` (in place, or returning new bytes), re-encoded with a valid checksum. */
function reencoded(bundle, edit) {
  const bytes = new Uint8Array(bs58check.decode(bundle));
  return bs58check.encode(edit(bytes) ?? bytes);
}

/** The smallest x for which 02‖x is not a point on P-256 (an off-curve encapsulated key). */
const OFF_CURVE_X = (() => {
  for (let x = 1n; ; x++) {
    const enc = new Uint8Array(33);
    enc[0] = 0x02;
    enc.set(Buffer.from(x.toString(16).padStart(64, '0'), 'hex'), 1);
    try {
      p256.Point.fromBytes(enc);
    } catch {
      return enc;
    }
  }
})();

const GROUP_ORDER = Uint8Array.from(Buffer.from('ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551', 'hex'));

/** A session on a fresh key (for cases that may leave their session unusable). */
function throwaway() {
  const s = sealed();
  s.session = Session.open(s.response, s.key);
  return s;
}

const verifiesWith = (pub, payload) => (stamp) => {
  const c = checkStamp(stamp, payload, pub);
  assert.ok(c.ok, `the stamp does not verify: ${JSON.stringify(c).slice(0, 300)}`);
};

// Passkey inputs.
const registration = (overrides = {}) => ({
  challenge: b64u(randomBytes(32)),
  rpId: 'example.com',
  rpName: 'Example',
  user: { id: 'user-1', name: 'alice@example.com', displayName: 'Alice' },
  ...overrides,
});
const authentication = (overrides = {}) => ({ challenge: 'a'.repeat(64), credentialId: b64u(randomBytes(16)), ...overrides });
const attestation = (overrides = {}) => ({
  credentialId: b64u(randomBytes(16)),
  clientDataJson: b64u(Buffer.from('{"type":"webauthn.create"}')),
  attestationObject: b64u(randomBytes(40)),
  transports: ['internal'],
  ...overrides,
});
const body = (nickname, overrides = {}) => passkey.registrationBody(
  overrides.accountId ?? 'InternalAccount:1',
  nickname,
  overrides.challenge ?? b64u(randomBytes(32)),
  'attestation' in overrides ? overrides.attestation : attestation(),
);

// ---------------------------------------------------------------------------------------
// The corpus. Each case: `call` (sync, or async for passkey ceremonies), and either `code`
// (the documented KitError code) or `ok` (checks the value of an accepted input).
// `secrets`: extra strings that must not appear in the error.

const CASES = [
  // --- Session.open / sandbox / fromClientKey: the response argument -------------------
  ['open', 'undefined', () => Session.open(undefined, ClientKey.generate()), 'INVALID_SESSION'],
  ['open', 'null', () => Session.open(null, ClientKey.generate()), 'INVALID_SESSION'],
  ['open', 'number 42', () => Session.open(42, ClientKey.generate()), 'INVALID_SESSION'],
  ['open', 'NaN', () => Session.open(NaN, ClientKey.generate()), 'INVALID_SESSION'],
  ['open', 'BigInt', () => Session.open(10n, ClientKey.generate()), 'INVALID_SESSION'],
  ['open', 'boolean true', () => Session.open(true, ClientKey.generate()), 'INVALID_SESSION'],
  ['open', 'empty array', () => Session.open([], ClientKey.generate()), 'INVALID_SESSION'],
  ['open', 'array holding a valid response', () => Session.open([sealed().response], ClientKey.generate()), 'INVALID_SESSION'],
  ['open', 'function carrying every response field', () => {
    const s = sealed();
    return Session.open(Object.assign(() => {}, s.response), s.key);
  }, 'INVALID_SESSION'],
  ['open', 'Symbol (KitError, not a TypeError)', () => Session.open(Symbol('response'), ClientKey.generate()), 'INVALID_SESSION'],
  ['open', 'empty string', () => Session.open('', ClientKey.generate()), 'INVALID_SESSION'],
  ['open', 'invalid JSON text holding the OTP', () => Session.open(`{"otp":"${OTP}","id":`, ClientKey.generate()), 'INVALID_SESSION'],
  ['open', 'JSON text "null"', () => Session.open('null', ClientKey.generate()), 'INVALID_SESSION'],
  ['open', 'JSON text of an array', () => Session.open(`[${JSON.stringify(sealed().response)}]`, ClientKey.generate()), 'INVALID_SESSION'],
  ['open', 'JSON text of a string', () => Session.open(JSON.stringify(JSON.stringify(sealed().response)), ClientKey.generate()), 'INVALID_SESSION'],
  ['open', 'JSON nested 10,000 levels deep', () => Session.open(deepJson(10_000), ClientKey.generate()), 'INVALID_SESSION'],
  ['sandbox', 'JSON nested 10,000 levels deep', () => Session.sandbox(deepJson(10_000)), 'INVALID_SESSION'],
  ['sandbox', '10 MB JSON text, valid', () => Session.sandbox(TEN_MB_JSON_VALID), null, {
    ok: (s) => {
      assert.equal(s.id, JSON.parse(TEN_MB_JSON_VALID).id);
      assert.equal(s.stamp('x'), 'sandbox-valid-signature');
      s.free();
    },
  }],
  ['sandbox', '10 MB JSON text, truncated', () => Session.sandbox(TEN_MB_JSON_INVALID), 'INVALID_SESSION'],
  ['open', '10 MB JSON text carrying a real bundle', () => {
    const s = sealed();
    const opened = Session.open(JSON.stringify({ ...s.response, padding: 'p'.repeat(10 * MB) }), s.key);
    return { opened, pub: s.pub };
  }, null, {
    ok: ({ opened, pub }) => {
      verifiesWith(pub, 'big response')(opened.stamp('big response'));
      opened.free();
    },
  }],
  ['sandbox', 'Proxy whose every trap throws', () => Session.sandbox(throwingProxy()), 'INVALID_SESSION'],
  ['open', 'Proxy whose every trap throws (the key stays usable)', () => {
    const s = sealed();
    try {
      return Session.open(throwingProxy(s.response), s.key);
    } finally {
      assert.equal(s.key.consumed, false, 'a failed open must not consume the key');
      Session.open(s.response, s.key).free();
    }
  }, 'INVALID_SESSION'],
  ['fromClientKey', 'Proxy whose every trap throws', () => Session.fromClientKey(throwingProxy(), ClientKey.generate()), 'INVALID_SESSION'],
  ['sandbox', 'getter that throws on expiresAt', () => Session.sandbox({
    ...withoutKey(response(), 'expiresAt'),
    get expiresAt() {
      throw new Error(`getter ${OTP}`);
    },
  }), 'INVALID_SESSION'],
  ['sandbox', 'JSON text {"__proto__": {…valid fields…}} (own __proto__ key, no own id)', () => Session.sandbox(
    `{"__proto__": ${JSON.stringify(response())}}`,
  ), 'INVALID_SESSION'],
  ['sandbox', 'object whose prototype holds a non-string id', () => Session.sandbox({
    __proto__: { id: 42 },
    ...withoutKey(response(), 'id'),
  }), 'INVALID_SESSION'],
  // Only own properties are read: a bundle a polluted prototype carries is not seen.
  ['fromClientKey', 'object whose prototype carries a bundle (inherited fields are not read)', () => Session.fromClientKey({
    __proto__: { encryptedSessionSigningKey: sealed().bundle },
    ...withoutKey(response(), 'encryptedSessionSigningKey'),
  }, ClientKey.generate()), null, {
    ok: (s) => assert.ok(s.publicKeyHex, 'the client key became the session key'),
  }],
  ['sandbox', 'id is a number', () => Session.sandbox(response({ id: 42 })), 'INVALID_SESSION'],
  ['sandbox', 'id is a String object', () => Session.sandbox(response({ id: new String(`Session:${uuid()}`) })), 'INVALID_SESSION'],
  ['sandbox', 'expiresAt is an object with toString', () => Session.sandbox(response({ expiresAt: { toString: () => iso(HOUR) } })), 'INVALID_SESSION'],
  ['sandbox', 'expiresAt is a Date', () => Session.sandbox(response({ expiresAt: new Date(Date.now() + HOUR) })), 'INVALID_SESSION'],
  ['sandbox', 'expiresAt is epoch milliseconds', () => Session.sandbox(response({ expiresAt: Date.now() + HOUR })), 'INVALID_SESSION'],
  ['sandbox', 'id is a Request id', () => Session.sandbox(response({ id: `Request:${uuid()}` })), 'INVALID_SESSION'],
  ['sandbox', 'id is Session:<OTP>', () => Session.sandbox(response({ id: `Session:${OTP}` })), 'INVALID_SESSION'],
  ['sandbox', 'id is the session scalar hex', () => Session.sandbox(response({ id: `Session:${hex(victim.scalar)}` })), 'INVALID_SESSION'],
  ['sandbox', 'id missing', () => Session.sandbox(withoutKey(response(), 'id')), 'INVALID_SESSION'],
  ['sandbox', 'accountId empty', () => Session.sandbox(response({ accountId: '' })), 'INVALID_SESSION'],
  ['sandbox', 'type in lowercase', () => Session.sandbox(response({ type: 'email_otp' })), 'INVALID_SESSION'],
  ['sandbox', 'no argument', () => Session.sandbox(), 'INVALID_SESSION'],
  ['fromClientKey', 'response carrying a bundle', () => Session.fromClientKey(sealed().response, ClientKey.generate()), 'INVALID_SESSION'],
  ['open', 'response without a bundle', () => Session.open(withoutKey(sealed().response, 'encryptedSessionSigningKey'), ClientKey.generate()), 'INVALID_SESSION'],

  // --- the key argument --------------------------------------------------------------------
  ['open', 'key undefined', () => Session.open(sealed().response), 'INVALID_INPUT'],
  ['open', 'key is a plain object', () => Session.open(sealed().response, { publicKeyHex: '04' }), 'INVALID_INPUT'],
  ['fromClientKey', 'key is a string', () => Session.fromClientKey(response({ encryptedSessionSigningKey: undefined }), 'key'), 'INVALID_INPUT'],
  ['open', 'freed ClientKey', () => {
    const s = sealed();
    s.key.free();
    return Session.open(s.response, s.key);
  }, 'KEY_CONSUMED'],
  ['fromClientKey', 'freed ClientKey', () => {
    const key = ClientKey.generate();
    key.close();
    return Session.fromClientKey(withoutKey(response(), 'encryptedSessionSigningKey'), key);
  }, 'KEY_CONSUMED'],
  ['open', 'ClientKey disposed with Symbol.dispose', () => {
    const s = sealed();
    s.key[Symbol.dispose]();
    return Session.open(s.response, s.key);
  }, 'KEY_CONSUMED'],
  ['open', 'ClientKey that already opened a session', () => {
    const s = sealed();
    Session.open(s.response, s.key).free();
    return Session.open(response({ encryptedSessionSigningKey: sealBundle(randomScalar(), s.key.publicKeyHex) }), s.key);
  }, 'KEY_CONSUMED'],

  // --- expiresAt ---------------------------------------------------------------------------
  ...[
    ['no offset', '2099-01-01T00:00:00'],
    ['month 13', '2025-13-01T00:00:00Z'],
    ['February 30', '2025-02-30T00:00:00Z'],
    ['hour 24', '2099-01-01T24:00:00Z'],
    ['offset +24:00', '2099-01-01T00:00:00+24:00'],
    ['empty fraction', '2099-01-01T00:00:00.Z'],
    ['JS extended year', '+002099-01-01T00:00:00Z'],
    ['empty string', ''],
    ['the OTP', OTP],
    ['trailing NUL', '2099-01-01T00:00:00Z\0'],
    ['full-width digits', '２０９９-01-01T00:00:00Z'],
  ].map(([name, expiresAt]) => ['expiresAt', name, () => Session.sandbox(response({ expiresAt })), 'INVALID_TIMESTAMP']),
  ['expiresAt', 'leap second 23:59:60 (the minute\'s last millisecond)', () => Session.sandbox(response({ expiresAt: '2016-12-31T23:59:60Z' })), null, {
    ok: (s) => assert.equal(s.expiresAt.toISOString(), '2016-12-31T23:59:59.999Z'),
  }],
  ['expiresAt', 'year 0000 (valid RFC 3339, long expired)', () => {
    const s = sealed({ expiresAt: '0000-01-01T00:00:00Z' });
    const opened = Session.open(s.response, s.key);
    assert.equal(opened.expiresAt.toISOString(), '0000-01-01T00:00:00.000Z');
    assert.equal(opened.isExpired(), true);
    return opened.stamp('too late');
  }, 'SESSION_EXPIRED'],
  ['expiresAt', '100,000 fractional digits (truncated to ms)', () => Session.sandbox(response({ expiresAt: `2099-01-01T00:00:00.${'9'.repeat(100_000)}Z` })), null, {
    ok: (s) => assert.equal(s.expiresAt.toISOString(), '2099-01-01T00:00:00.999Z'),
  }],
  ['expiresAt', 'past year 9999 through its offset', () => Session.sandbox(response({ expiresAt: '9999-12-31T23:59:59.999-23:59' })), null, {
    ok: (s) => assert.equal(s.expiresAt.getTime(), Date.parse('+010000-01-01T23:58:59.999Z')),
  }],

  // --- bundles -----------------------------------------------------------------------------
  ['bundle', '10 MB string', () => {
    const s = sealed();
    return Session.open({ ...s.response, encryptedSessionSigningKey: 'z'.repeat(10 * MB) }, s.key);
  }, 'INVALID_BUNDLE'],
  ['bundle', 'non-base58 characters 0OIl', () => Session.open(response({ encryptedSessionSigningKey: '0OIl' }), ClientKey.generate()), 'INVALID_BUNDLE'],
  ...[['an emoji', '😀'], ['a NUL', '\0'], ['a lone surrogate', '\uD800'], ['a space', ' ']].map(([name, ch]) => ['bundle', `real bundle with ${name} inside`, () => {
    const s = sealed();
    const bundle = `${s.bundle.slice(0, 20)}${ch}${s.bundle.slice(20)}`;
    return { call: () => Session.open({ ...s.response, encryptedSessionSigningKey: bundle }, s.key), secrets: [s.bundle, bundle] };
  }, 'INVALID_BUNDLE', { indirect: true }]),
  ['bundle', 'empty string', () => Session.open(response({ encryptedSessionSigningKey: '' }), ClientKey.generate()), 'INVALID_BUNDLE'],
  ['bundle', 'the OTP (base58 digits: decodes, but carries no valid checksum)', () => Session.open(response({ encryptedSessionSigningKey: OTP }), ClientKey.generate()), 'BUNDLE_CHECKSUM'],
  ['bundle', 'one base58 character (too short for a checksum)', () => Session.open(response({ encryptedSessionSigningKey: '2' }), ClientKey.generate()), 'INVALID_BUNDLE'],
  ['bundle', 'the session scalar hex (not base58: has 0)', () => Session.open(response({ encryptedSessionSigningKey: `0${hex(victim.scalar)}` }), ClientKey.generate()), 'INVALID_BUNDLE'],
  ['bundle', 'a number', () => Session.open(response({ encryptedSessionSigningKey: 42 }), ClientKey.generate()), 'INVALID_SESSION'],
  ['bundle', 'an object', () => Session.open(response({ encryptedSessionSigningKey: { toString: () => sealed().bundle } }), ClientKey.generate()), 'INVALID_SESSION'],
  ['bundle', 'bad checksum', () => {
    const s = sealed();
    const bytes = bs58.decode(s.bundle);
    bytes[bytes.length - 1] ^= 0x01;
    return { call: () => Session.open({ ...s.response, encryptedSessionSigningKey: bs58.encode(bytes) }, s.key), secrets: [s.bundle] };
  }, 'BUNDLE_CHECKSUM', { indirect: true }],
  ['bundle', 'truncated text (checksum no longer matches)', () => {
    const s = sealed();
    return { call: () => Session.open({ ...s.response, encryptedSessionSigningKey: s.bundle.slice(0, -6) }, s.key), secrets: [s.bundle] };
  }, 'BUNDLE_CHECKSUM', { indirect: true }],
  ...[
    ['truncated payload, re-checksummed (60 bytes)', (b) => b.slice(0, 60), 'INVALID_BUNDLE'],
    ['one extra byte, re-checksummed', (b) => Uint8Array.from([...b, 0]), 'INVALID_BUNDLE'],
    ['1-byte payload', (b) => b.slice(0, 1), 'INVALID_BUNDLE'],
    ['empty payload', () => new Uint8Array(0), 'INVALID_BUNDLE'],
    ['bit flipped in the ciphertext', (b) => { b[40] ^= 0x10; }, 'DECRYPTION_FAILED'],
    ['bit flipped in the tag', (b) => { b[b.length - 1] ^= 0x01; }, 'DECRYPTION_FAILED'],
    ['encapsulated key with prefix 04', (b) => { b[0] = 0x04; }, 'INVALID_BUNDLE'],
    ['encapsulated key is the identity (prefix 00)', (b) => { b.fill(0, 0, 33); }, 'INVALID_BUNDLE'],
    ['encapsulated key uncompressed (65 bytes)', (b) => Uint8Array.from([...p256.getPublicKey(randomScalar(), false), ...b.slice(33)]), 'INVALID_BUNDLE'],
    ['encapsulated key off the curve', (b) => { b.set(OFF_CURVE_X, 0); }, 'INVALID_BUNDLE'],
    ['encapsulated key x ≥ p', (b) => { b[0] = 0x02; b.fill(0xff, 1, 33); }, 'INVALID_BUNDLE'],
    ['encapsulated key replaced by another valid point', (b) => { b.set(p256.getPublicKey(randomScalar(), true), 0); }, 'DECRYPTION_FAILED'],
  ].map(([name, edit, code]) => ['bundle', name, () => {
    const s = sealed();
    const bundle = reencoded(s.bundle, edit);
    return { call: () => Session.open({ ...s.response, encryptedSessionSigningKey: bundle }, s.key), secrets: [s.bundle, hex(s.scalar)] };
  }, code, { indirect: true }]),
  ['bundle', 'sealed to another ClientKey', () => {
    const s = sealed();
    return { call: () => Session.open(s.response, ClientKey.generate()), secrets: [s.bundle, hex(s.scalar)] };
  }, 'DECRYPTION_FAILED', { indirect: true }],
  ['bundle', 'sealed scalar is zero', () => {
    const key = ClientKey.generate();
    return Session.open(response({ encryptedSessionSigningKey: sealBundle(new Uint8Array(32), key.publicKeyHex) }), key);
  }, 'INVALID_BUNDLE'],
  ['bundle', 'sealed scalar is the group order n', () => {
    const key = ClientKey.generate();
    return Session.open(response({ encryptedSessionSigningKey: sealBundle(GROUP_ORDER, key.publicKeyHex) }), key);
  }, 'INVALID_BUNDLE'],
  ['bundle', 'a key survives failed opens, then opens its own bundle', () => {
    const s = sealed();
    for (const bad of ['', '0OIl', s.bundle.slice(0, -1), reencoded(s.bundle, (b) => { b[40] ^= 1; })]) {
      assert.throws(() => Session.open({ ...s.response, encryptedSessionSigningKey: bad }, s.key), KitError);
    }
    assert.equal(s.key.consumed, false);
    return { opened: Session.open(s.response, s.key), pub: s.pub };
  }, null, {
    ok: ({ opened, pub }) => {
      verifiesWith(pub, 'after failures')(opened.stamp('after failures'));
      opened.free();
    },
  }],

  // --- stamp -------------------------------------------------------------------------------
  ...[
    ['a number', 42], ['an object', { payloadToSign: 'x' }], ['undefined', undefined], ['null', null],
    ['a String object', new String('x')], ['a Symbol', Symbol('payload')], ['a BigInt', 1n], ['an array', ['x']],
    ['a lone high surrogate', '\uD800'], ['a lone low surrogate', 'a\uDC00b'], ['a reversed surrogate pair', '\uDC00\uD800'],
  ].map(([name, payload]) => ['stamp', name, () => victim.session.stamp(payload), 'INVALID_INPUT']),
  ['stamp', 'NUL bytes are signed as they are', () => victim.session.stamp('a\0b'), null, { ok: verifiesWith(victim.pub, 'a\0b') }],
  ['stamp', 'empty payload', () => victim.session.stamp(''), null, { ok: verifiesWith(victim.pub, '') }],
  ['stamp', '1 MB payload', () => victim.session.stamp('m'.repeat(MB)), null, { ok: verifiesWith(victim.pub, 'm'.repeat(MB)) }],
  ['stamp', '10 MB payload of 3-byte characters (signed, verifies)', () => victim.session.stamp(TEN_MB_EUROS), null, {
    ok: verifiesWith(victim.pub, TEN_MB_EUROS),
  }],
  ['stamp', '10 MB payload ending in a lone surrogate', () => victim.session.stamp(`${'y'.repeat(10 * MB - 1)}\uD800`), 'INVALID_INPUT'],

  // --- signRetry ---------------------------------------------------------------------------
  ...[
    ['undefined', undefined], ['null', null], ['a number', 42], ['an array', [pending202()]], ['a function', () => {}],
    ['a Symbol', Symbol('202')], ['an empty string', ''], ['invalid JSON holding the OTP', `{"otp":"${OTP}",`],
    ['no payloadToSign', withoutKey(pending202(), 'payloadToSign')],
    ['no requestId', withoutKey(pending202(), 'requestId')],
    ['no expiresAt', withoutKey(pending202(), 'expiresAt')],
    ['payloadToSign a number', { ...pending202(), payloadToSign: 42 }],
    ['payloadToSign an object', { ...pending202(), payloadToSign: { op: 'revoke' } }],
    ['requestId a Session id', { ...pending202(), requestId: `Session:${uuid()}` }],
    ['requestId a bare uuid', { ...pending202(), requestId: uuid() }],
    ['requestId with a lowercase kind', { ...pending202(), requestId: `request:${uuid()}` }],
    ['requestId Request:<OTP>', { ...pending202(), requestId: `Request:${OTP}` }],
    ['requestId with a header injected', { ...pending202(), requestId: `${REQUEST_ID()}\r\nX-Evil: ${OTP}` }],
    ['requestId a number', { ...pending202(), requestId: 7 }],
    ['expiresAt epoch milliseconds', { ...pending202(), expiresAt: Date.now() + HOUR }],
    ['Proxy whose every trap throws', throwingProxy()],
    ['payloadToSign getter that throws', {
      get payloadToSign() {
        throw new Error(`getter ${OTP}`);
      },
      requestId: REQUEST_ID(),
      expiresAt: iso(HOUR),
    }],
  ].map(([name, pending]) => ['signRetry', name, () => victim.session.signRetry(pending), 'INVALID_PENDING_SIGNATURE']),
  ['signRetry', 'payloadToSign with a lone surrogate', () => victim.session.signRetry({ ...pending202(), payloadToSign: 'x\uD800' }), 'INVALID_PENDING_SIGNATURE'],
  ['signRetry', 'expiresAt not RFC 3339', () => victim.session.signRetry({ ...pending202(), expiresAt: `tomorrow ${OTP}` }), 'INVALID_TIMESTAMP'],
  ['signRetry', 'expiresAt without offset', () => victim.session.signRetry({ ...pending202(), expiresAt: '2099-01-01T00:00:00' }), 'INVALID_TIMESTAMP'],
  ['signRetry', 'expired 202', () => victim.session.signRetry(pending202({ expiresAt: iso(-1000) })), 'REQUEST_EXPIRED'],
  ['signRetry', 'already signed (object, then its JSON text)', () => {
    const p = pending202();
    victim.session.signRetry(p);
    assert.throws(() => victim.session.signRetry(p), (err) => err.code === 'REQUEST_ALREADY_SIGNED');
    return victim.session.signRetry(JSON.stringify(p));
  }, 'REQUEST_ALREADY_SIGNED'],
  ['signRetry', 'valid 202 as JSON text, 10 MB payload', () => {
    const p = pending202({ payloadToSign: 'r'.repeat(10 * MB) });
    return { headers: victim.session.signRetry(JSON.stringify(p)), p };
  }, null, {
    ok: ({ headers, p }) => {
      assert.deepEqual(Object.keys(headers), ['Service-Wallet-Signature', 'Request-Id']);
      assert.equal(headers['Request-Id'], p.requestId);
      verifiesWith(victim.pub, p.payloadToSign)(headers['Service-Wallet-Signature']);
    },
  }],
  ['signRetry', 'getter re-entering the session (calls free() mid-parse)', () => {
    const t = throwaway();
    const out = { t };
    try {
      out.value = t.session.signRetry({
        get payloadToSign() {
          try {
            t.session.free();
          } catch (err) {
            out.inner = err;
          }
          return 'x';
        },
        requestId: REQUEST_ID(),
        expiresAt: iso(HOUR),
      });
    } catch (err) {
      out.outer = err;
    }
    return out;
  }, null, {
    ok: ({ t, inner, outer }) => {
      for (const [where, err] of [['the re-entrant free()', inner], ['signRetry', outer]]) {
        assert.ok(err === undefined || err instanceof KitError, `${where} threw a non-KitError: ${err?.constructor?.name}: ${err?.message}`);
      }
      stuckCheck(t);
    },
  }],

  // --- signQuote ---------------------------------------------------------------------------
  ...[
    ['undefined', undefined], ['a number', 42], ['invalid JSON holding the OTP', `{"otp":"${OTP}"`],
    ['no payloadToSign', quote({ omitPayload: true })],
    ['no expiresAt', withoutKey(quote(), 'expiresAt')],
    ['payloadToSign a number', { ...quote(), payloadToSign: 42 }],
    ['payloadToSign with a lone surrogate', { ...quote(), payloadToSign: 'a\uDFFF' }],
    ['expiresAt an object', { ...quote(), expiresAt: {} }],
    ['Proxy whose every trap throws', throwingProxy()],
  ].map(([name, q]) => ['signQuote', name, () => victim.session.signQuote(q), 'INVALID_INPUT']),
  ['signQuote', 'expiresAt month 13', () => victim.session.signQuote({ ...quote(), expiresAt: '2025-13-01T00:00:00Z' }), 'INVALID_TIMESTAMP'],
  ['signQuote', 'expired quote', () => victim.session.signQuote(quote({ expiresAt: iso(-1) })), 'QUOTE_EXPIRED'],
  ['signQuote', '10 MB payloadToSign', () => {
    const q = quote({ payloadToSign: 'q'.repeat(10 * MB) });
    return { header: victim.session.signQuote(q), q };
  }, null, {
    ok: ({ header, q }) => {
      assert.deepEqual(Object.keys(header), ['Service-Wallet-Signature']);
      verifiesWith(victim.pub, q.payloadToSign)(header['Service-Wallet-Signature']);
    },
  }],

  // --- isExpired ---------------------------------------------------------------------------
  ...[
    ['an invalid Date', new Date(NaN)], ['a date string', '2099-01-01T00:00:00Z'], ['NaN', NaN], ['Infinity', Infinity],
    ['-Infinity', -Infinity], ['an object', {}], ['true', true], ['a BigInt', 1n], ['a Symbol', Symbol('now')],
    ['a Proxy whose every trap throws', throwingProxy()],
  ].map(([name, now]) => ['isExpired', name, () => victim.session.isExpired(now), 'INVALID_INPUT']),
  ['isExpired', '±1e300 (finite, clamped)', () => [victim.session.isExpired(1e300), victim.session.isExpired(-1e300)], null, {
    ok: (v) => assert.deepEqual(v, [true, false]),
  }],
  ['isExpired', 'an object inheriting from Date.prototype (the session stays freeable)', () => {
    const t = throwaway();
    return afterwardsFreeable(t, () => t.session.isExpired(Object.create(Date.prototype)));
  }, 'INVALID_INPUT'],
  ['isExpired', 'a Proxy of a Date (the session stays freeable)', () => {
    const t = throwaway();
    return afterwardsFreeable(t, () => t.session.isExpired(new Proxy(new Date(), {})));
  }, 'INVALID_INPUT'],

  // --- revoked Proxies: Array.isArray throws ---------------------------------------------
  ['sandbox', 'revoked Proxy', () => Session.sandbox(revokedProxy()), 'INVALID_SESSION'],
  ['open', 'revoked Proxy (the key stays usable)', () => {
    const s = sealed();
    let first;
    try {
      return Session.open(revokedProxy(), s.key);
    } catch (err) {
      first = err;
      throw err;
    } finally {
      let consumed;
      try {
        consumed = s.key.consumed;
      } catch (err) {
        consumed = err;
      }
      assert.equal(consumed, false, `the call threw ${describe(first)}; then the key is wedged: reading consumed gave ${describe(consumed)}`);
    }
  }, 'INVALID_SESSION'],
  ['fromClientKey', 'revoked Proxy', () => Session.fromClientKey(revokedProxy(), ClientKey.generate()), 'INVALID_SESSION'],
  ['signRetry', 'revoked Proxy (the session stays usable)', () => {
    const t = throwaway();
    return afterwardsFreeable(t, () => t.session.signRetry(revokedProxy()));
  }, 'INVALID_PENDING_SIGNATURE'],
  ['signQuote', 'revoked Proxy', () => throwaway().session.signQuote(revokedProxy()), 'INVALID_INPUT'],

  // --- receivers that are not live handles ------------------------------------------------
  ['receiver', 'Session.prototype.stamp called on a plain object', () => Session.prototype.stamp.call({}, 'x'), 'INVALID_INPUT'],
  ['receiver', 'ClientKey getter called on a plain object', () => Object.getOwnPropertyDescriptor(ClientKey.prototype, 'publicKeyHex').get.call({}), 'INVALID_INPUT'],
  ['receiver', 'Session.prototype.signRetry called on a ClientKey', () => Session.prototype.signRetry.call(ClientKey.generate(), pending202()), 'INVALID_INPUT'],
  ['receiver', 'new Session() (private constructor) then stamp()', () => new Session().stamp('x'), 'INVALID_INPUT'],
  ['receiver', 'new ClientKey() then publicKeyHex', () => new ClientKey().publicKeyHex, 'INVALID_INPUT'],
  ['receiver', 'Session.open re-entered from a getter with the same key', () => {
    const s = sealed();
    const out = {};
    const hostile = {
      ...withoutKey(s.response, 'encryptedSessionSigningKey'),
      get encryptedSessionSigningKey() {
        try {
          out.inner = Session.open(s.response, s.key);
        } catch (err) {
          out.innerError = err;
        }
        return s.bundle;
      },
    };
    try {
      out.outer = Session.open(hostile, s.key);
    } catch (err) {
      out.outerError = err;
    }
    return out;
  }, null, {
    ok: ({ inner, innerError, outer, outerError }) => {
      for (const [where, err] of [['the inner open', innerError], ['the outer open', outerError]]) {
        assert.ok(err === undefined || err instanceof KitError, `${where} threw a non-KitError: ${err?.constructor?.name}: ${err?.message}`);
      }
      assert.ok(!(inner && outer), 'one key opened two sessions');
      inner?.free();
      outer?.free();
    },
  }],

  // --- ClientKey and Session after free ---------------------------------------------------
  ['after free', 'ClientKey: free() twice, close(), dispose: consumed, public parts unchanged', () => {
    const key = ClientKey.generate();
    const before = [key.publicKeyHex, key.compressedPublicKeyHex, key.oidcNonce()];
    key.free();
    key.free();
    key.close();
    key[Symbol.dispose]();
    return { key, before };
  }, null, {
    ok: ({ key, before }) => {
      assert.equal(key.consumed, true);
      assert.deepEqual([key.publicKeyHex, key.compressedPublicKeyHex, key.oidcNonce()], before);
    },
  }],
  ...['stamp', 'signRetry', 'signQuote'].map((method) => ['after free', `Session.${method}`, () => {
    const t = throwaway();
    t.session.free();
    t.session.free();
    assert.equal(t.session.publicKeyHex, undefined);
    const arg = { stamp: 'x', signRetry: pending202(), signQuote: quote() }[method];
    return { call: () => t.session[method](arg), secrets: scalarForms(t.scalar) };
  }, 'SESSION_CLOSED', { indirect: true }]),
  ['after free', 'Session closed with Symbol.dispose, then stamp', () => {
    const t = throwaway();
    t.session[Symbol.dispose]();
    return t.session.stamp('x');
  }, 'SESSION_CLOSED'],

  // --- passkey (Node entry: no WebAuthn) --------------------------------------------------
  ...[
    ['options undefined', undefined], ['options a number', 42], ['options null', null], ['options a string', 'register'],
    ['options a function', () => {}], ['options a Symbol', Symbol('o')], ['options a Proxy whose every trap throws', throwingProxy()],
    ['user a string', registration({ user: 'alice' })], ['user null', registration({ user: null })], ['user a number', registration({ user: 1 })],
    ['user a Proxy whose every trap throws', registration({ user: throwingProxy() })],
    ['user.id 65 bytes (holding the OTP)', registration({ user: { id: `${'u'.repeat(59)}${OTP}`, name: 'n' } })],
    ['user.id 66 UTF-8 bytes in 33 characters', registration({ user: { id: 'é'.repeat(33), name: 'n' } })],
    ['user.id empty', registration({ user: { id: '', name: 'n' } })],
    ['user.id a number', registration({ user: { id: 42, name: 'n' } })],
    ['excludeCredentialIds a string', registration({ excludeCredentialIds: 'AAAA' })],
    ['excludeCredentialIds numbers', registration({ excludeCredentialIds: [1, 2] })],
    ['excludeCredentialIds array-like object', registration({ excludeCredentialIds: { length: 1, 0: 'AAAA' } })],
    ['excludeCredentialIds not base64url', registration({ excludeCredentialIds: [`not base64url ${OTP}!`] })],
    ['timeoutMs NaN', registration({ timeoutMs: NaN })], ['timeoutMs -1', registration({ timeoutMs: -1 })],
    ['timeoutMs 0', registration({ timeoutMs: 0 })], ['timeoutMs 1e12', registration({ timeoutMs: 1e12 })],
    ['timeoutMs Infinity', registration({ timeoutMs: Infinity })], ['timeoutMs a string', registration({ timeoutMs: '60000' })],
    ['signal a plain object', registration({ signal: {} })], ['signal a string', registration({ signal: 'abort' })],
    ['signal an AbortController', registration({ signal: new AbortController() })],
    ['challenge not base64url (holding the OTP)', registration({ challenge: `otp ${OTP}!` })],
    ['challenge empty', registration({ challenge: '' })], ['challenge a number', registration({ challenge: 42 })],
    ['residentKey unknown', registration({ residentKey: 'always' })],
  ].map(([name, options]) => ['passkey.register', name, () => passkey.register(options), 'INVALID_INPUT', { async: true }]),
  ['passkey.register', 'signal a Proxy of an AbortSignal (support is checked first)', () => passkey.register(registration({
    signal: new Proxy(new AbortController().signal, {}),
  })), 'PASSKEY_UNSUPPORTED', { async: true }],
  ['passkey.register', 'valid options', () => passkey.register(registration()), 'PASSKEY_UNSUPPORTED', { async: true }],
  ...[
    ['options undefined', undefined], ['options a Proxy whose every trap throws', throwingProxy()], ['options a revoked Proxy', revokedProxy()],
    ['challenge empty', authentication({ challenge: '' })], ['credentialId a number', authentication({ credentialId: 42 })],
    ['credentialId not base64url', authentication({ credentialId: `${OTP}!` })], ['timeoutMs NaN', authentication({ timeoutMs: NaN })],
    ['userVerification unknown', authentication({ userVerification: 'sometimes' })],
  ].map(([name, options]) => ['passkey.authenticate', name, () => passkey.authenticate(options), 'INVALID_INPUT', { async: true }]),
  ['passkey.authenticate', 'valid options', () => passkey.authenticate(authentication()), 'PASSKEY_UNSUPPORTED', { async: true }],
  ...[
    ['nickname empty', () => body('')], ['nickname 101 characters', () => body('n'.repeat(101))],
    ['nickname with a NUL', () => body(`a\0${OTP}`)], ['nickname with a newline', () => body('a\nb')],
    ['nickname with DEL', () => body('a\u007fb')], ['nickname only spaces', () => body('   ')],
    ['nickname a number', () => body(7)], ['nickname an object with toString', () => body({ toString: () => 'nick' })],
    ['nickname a Symbol', () => body(Symbol('nick'))], ['nickname undefined', () => body(undefined)],
    ['accountId empty', () => body('nick', { accountId: '' })], ['accountId a number', () => body('nick', { accountId: 42 })],
    ['challenge not base64url', () => body('nick', { challenge: 'a+b/=' })], ['challenge empty', () => body('nick', { challenge: '' })],
    ['attestation null', () => body('nick', { attestation: null })],
    ['attestation a Proxy whose every trap throws', () => body('nick', { attestation: throwingProxy() })],
    ['attestation.transports not an array', () => body('nick', { attestation: attestation({ transports: 'usb' }) })],
    ['attestation.transports with a number', () => body('nick', { attestation: attestation({ transports: [1] }) })],
    ['no arguments', () => passkey.registrationBody()],
  ].map(([name, call]) => ['passkey.registrationBody', name, call, 'INVALID_INPUT']),
  ['passkey.registrationBody', 'nickname with a lone surrogate: refused, not altered', () => body('nick\uD800'), 'INVALID_INPUT'],
  ['passkey.registrationBody', 'nickname of 100 emoji (100 characters)', () => body('😀'.repeat(100)), null, {
    ok: (b) => assert.equal(b.nickname, '😀'.repeat(100)),
  }],
  ...[
    ['a revoked Proxy', () => revokedProxy([])],
    ['a Proxy whose every trap throws', () => throwingProxy([])],
    ['an array whose element getter throws', throwingGetterArray],
  ].map(([name, make]) => ['passkey.registrationBody', `attestation.transports ${name}`, () => body('nick', {
    attestation: attestation({ transports: make() }),
  }), 'INVALID_INPUT']),
];

const describe = (v) => (v instanceof Error ? `${v.constructor.name}: ${v.message}` : String(v).slice(0, 60));

/** Runs `call` on t's session; whatever it does, the session must then still free and zeroize. */
function afterwardsFreeable(t, call) {
  let first;
  try {
    return call();
  } catch (err) {
    first = err;
    throw err;
  } finally {
    stuckCheck(t, first);
  }
}

/**
 * For the cases that can wedge a session: afterwards its free() must work and zeroize
 * (later stamp → SESSION_CLOSED). Throws (and so fails the case) when it does not.
 */
function stuckCheck(t, first) {
  let freeError;
  try {
    t.session.free();
  } catch (err) {
    freeError = err;
  }
  let after;
  try {
    after = t.session.stamp('after free');
  } catch (err) {
    if (freeError === undefined && err instanceof KitError && err.code === 'SESSION_CLOSED') return;
    after = `${err?.constructor?.name}: ${err?.message}`;
  }
  assert.fail(`${first === undefined ? '' : `the call threw ${describe(first)}; then `}the session is wedged: free() `
    + `${freeError === undefined ? 'returned' : `threw ${describe(freeError)}`}; a stamp after free() `
    + `${typeof after === 'string' && after.startsWith('ey') ? 'still signs (the key was not zeroized)' : `gave ${after}`}`);
}

// ---------------------------------------------------------------------------------------
// Running the corpus, one test per case, in file order (node:test runs them sequentially).

let caseCount = 0;
for (const [group, name, call, code, opts = {}] of CASES) {
  caseCount++;
  const title = `#${caseCount} ${group}: ${name} → ${code ?? 'accepted'}`;
  test(title, async () => {
    let thrown;
    let value;
    let extraSecrets = [];
    if (opts.async) {
      // A ceremony never throws synchronously and always settles.
      let promise;
      assert.doesNotThrow(() => {
        promise = call();
      }, 'a passkey ceremony threw synchronously instead of returning a rejected promise');
      assert.ok(promise instanceof Promise, 'a passkey ceremony must return a promise');
      const outcome = await settleWithin(promise, 2000);
      assert.notEqual(outcome.state, 'pending', 'the promise did not settle within 2 s');
      if (outcome.state === 'rejected') thrown = { error: outcome.error };
      else value = outcome.value;
    } else {
      try {
        if (opts.indirect) {
          const prepared = call();
          extraSecrets = prepared.secrets ?? [];
          value = prepared.call();
        } else {
          value = call();
        }
      } catch (err) {
        thrown = { error: err };
      }
    }
    if (code === null) {
      assert.equal(thrown, undefined, `expected the input to be accepted, got ${thrown?.error?.constructor?.name}: ${thrown?.error?.message}`);
      opts.ok(value);
    } else {
      assert.ok(thrown !== undefined, `expected KitError ${code}, nothing was thrown (got ${inspect(value, { depth: 1 }).slice(0, 120)})`);
      assertKitError(thrown.error, code, extraSecrets);
    }
    assertAlive(title);
  });
}

test(`the corpus has at least 40 cases (${CASES.length})`, () => {
  assert.ok(CASES.length >= 40);
});

// ---------------------------------------------------------------------------------------
// What kills the instance or the process: run in a child process (a fresh instance).

function runChild(source) {
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', source], { encoding: 'utf8', timeout: 120_000 });
  const line = result.stdout.trim().split('\n').pop() ?? '';
  try {
    return { ...JSON.parse(line), status: result.status, stderr: result.stderr.slice(0, 500) };
  } catch {
    return { parseError: true, status: result.status, stdout: result.stdout.slice(0, 500), stderr: result.stderr.slice(0, 500) };
  }
}

const CHILD_PRELUDE = `
  import { ClientKey, Session, KitError, passkey } from ${JSON.stringify(NODE_ENTRY)};
  const uuid = () => crypto.randomUUID();
  const response = () => JSON.stringify({ id: 'Session:' + uuid(), accountId: 'InternalAccount:' + uuid(), type: 'EMAIL_OTP',
    expiresAt: new Date(Date.now() + 3600000).toISOString() });
  const describe = (e) => (e && e.constructor ? e.constructor.name : typeof e) + ': ' + (e && e.message);
  const revoked = () => { const { proxy, revoke } = Proxy.revocable({}, {}); revoke(); return proxy; };
`;

for (const [name, hostileCall] of [
  ['Session.sandbox(revoked Proxy)', 'Session.sandbox(revoked())'],
  ['session.isExpired(Object.create(Date.prototype))', 'sb.isExpired(Object.create(Date.prototype))'],
]) {
  test(`instance: 1,100 × ${name} leave the instance working`, {
  }, () => {
    const out = runChild(`${CHILD_PRELUDE}
      const sb = Session.sandbox(response());
      const out = { nonKit: 0, first: null, diedAt: null, death: null };
      for (let i = 1; i <= 1100; i++) {
        try { ${hostileCall}; } catch (e) { if (!(e instanceof KitError)) { out.nonKit++; out.first ??= describe(e); } }
        try { Session.sandbox(response()).stamp('x'); ClientKey.generate(); }
        catch (e) { out.diedAt = i; out.death = describe(e); break; }
      }
      console.log(JSON.stringify(out));
      process.exit(0);`);
    assert.ok(!out.parseError, `the child crashed: ${JSON.stringify(out)}`);
    assert.equal(out.diedAt, null, `the instance died at call ${out.diedAt}: ${out.death}`);
    assert.equal(out.nonKit, 0, `${out.nonKit} calls threw a non-KitError, first: ${out.first}`);
  });
}

test('passkey.register: excludeCredentialIds that throw when read reject INVALID_INPUT (no uncaught exception, no hang)', {
}, () => {
  const out = runChild(`${CHILD_PRELUDE}
    const uncaught = [];
    process.on('uncaughtException', (e) => uncaught.push(describe(e)));
    const reg = (exclude) => ({ challenge: 'AAAAAAAA', rpId: 'example.com', rpName: 'Ex', user: { id: 'u', name: 'n' },
      excludeCredentialIds: exclude });
    const settle = (p) => Promise.race([
      p.then(() => 'resolved', (e) => (e instanceof KitError ? e.code : 'non-KitError ' + describe(e))),
      new Promise((r) => setTimeout(() => r('pending after 1 s'), 1000)),
    ]);
    // Concurrently: options that fail validation never start (or supersede) a ceremony.
    const results = await Promise.all([
      new Proxy([], { get() { throw new Error('trap'); } }),
      Object.defineProperty(['AAAA'], 0, { get() { throw new Error('getter'); } }),
      (() => { const { proxy, revoke } = Proxy.revocable([], {}); revoke(); return proxy; })(),
    ].map((exclude) => settle(passkey.register(reg(exclude)))));
    results.push('valid: ' + await settle(passkey.register(reg(undefined))));
    console.log(JSON.stringify({ results, uncaught }));
    process.exit(0);`);
  assert.ok(!out.parseError, `the child crashed: ${JSON.stringify(out)}`);
  assert.deepEqual(
    { results: out.results, uncaught: out.uncaught },
    { results: ['INVALID_INPUT', 'INVALID_INPUT', 'INVALID_INPUT', 'valid: PASSKEY_UNSUPPORTED'], uncaught: [] },
  );
});

// ---------------------------------------------------------------------------------------
// Zeroization, the part visible from JS.

test('no API returns private-key bytes: every Session member, stamps and inspection are free of the scalar', () => {
  const t = throwaway();
  const s = t.session;
  const outputs = [];
  for (const name of Reflect.ownKeys(Session.prototype)) {
    if (typeof name !== 'string' || ['constructor', 'free', 'close'].includes(name)) continue;
    const desc = Object.getOwnPropertyDescriptor(Session.prototype, name);
    if (desc.get) outputs.push(desc.get.call(s));
  }
  outputs.push(s.isExpired(), s.stamp('probe'), s.signRetry(pending202()), s.signQuote(quote()));
  for (const stamp of [outputs.at(-3), outputs.at(-2)['Service-Wallet-Signature'], outputs.at(-1)['Service-Wallet-Signature']]) {
    outputs.push(Buffer.from(stamp, 'base64url').toString('utf8'));
  }
  outputs.push(inspect(s, { showHidden: true, depth: 5 }), safeJson(s), String(s), Object.keys(s).join());
  const text = outputs.map((o) => (typeof o === 'string' ? o : inspect(o, { depth: 5 }))).join('\n');
  for (const form of scalarForms(t.scalar)) assert.ok(!text.includes(form), 'a Session output contains the session scalar');
  assert.equal(s.publicKeyHex, t.pub);
  s.free();
});

// The session store's bindings (importing a key into WebCrypto, the stored-session guards)
// are not members of the public classes: they are module functions of the glue that only
// the store imports, and the one that imports a key hands it to the WebCrypto captured
// at init (tests/js/session-store.test.mjs replaces the global and checks).
const CLIENT_KEY_MEMBERS = ['constructor', 'free', 'close', 'publicKeyHex', 'compressedPublicKeyHex', 'oidcNonce', 'consumed', 'signRetry', '__wbg_ptr'];
const SESSION_MEMBERS = ['constructor', 'free', 'close', 'id', 'accountId', 'type', 'expiresAt', 'publicKeyHex', 'sandboxed', 'keyMode',
  'isExpired', 'stamp', 'signRetry', 'signQuote', '__wbg_ptr'];

test('no API returns private-key bytes: ClientKey exposes only its public key forms and the nonce', () => {
  const key = ClientKey.generate();
  const members = (proto) => Reflect.ownKeys(proto).filter((k) => typeof k === 'string').sort();
  assert.deepEqual(members(ClientKey.prototype), [...CLIENT_KEY_MEMBERS].sort(), 'ClientKey members');
  assert.deepEqual(members(Session.prototype), [...SESSION_MEMBERS].sort(), 'Session members');
  for (const cls of [ClientKey, Session]) {
    const statics = Reflect.ownKeys(cls.prototype.constructor).filter((k) => typeof k === 'string' && k.startsWith('__'));
    assert.deepEqual(statics, [], `${cls.name}: wasm-bindgen or store statics reachable through .constructor`);
  }
  // Each value is what it claims: a point on P-256 in both forms and the SHA-256 of the hex.
  const point = p256.Point.fromBytes(Buffer.from(key.publicKeyHex, 'hex'));
  assert.equal(hex(point.toBytes(true)), key.compressedPublicKeyHex);
  assert.equal(key.oidcNonce(), createHash('sha256').update(key.publicKeyHex, 'ascii').digest('hex'));
  assert.deepEqual(Reflect.ownKeys(key), [], 'a ClientKey holds nothing on the JS side (its handle is private)');
  key.free();
});

test('handles cannot be detached, forged or retargeted (no __wrap, no __destroy_into_raw, __wbg_ptr read-only and not trusted)', () => {
  const out = runChild(`${CHILD_PRELUDE}
    const { sealBundle, sessionResponse, randomScalar } = await import(${JSON.stringify(FIXTURES)});
    const result = {};
    const attempt = (name, fn) => {
      try { result[name] = { value: String(fn()).slice(0, 80) }; }
      catch (e) { result[name] = { kit: e instanceof KitError, code: e.code, error: describe(e) }; }
    };
    const open = () => { const k = ClientKey.generate(); return Session.open(sessionResponse({ bundle: sealBundle(randomScalar(), k.publicKeyHex) }), k); };
    const s = open();
    for (const [name, cls] of [['ClientKey', ClientKey], ['Session', Session]]) {
      result[name + ' internals'] = [cls, cls.prototype, cls.prototype.constructor, name === 'Session' ? s : ClientKey.generate()]
        .flatMap((o) => ['__wrap', '__destroy_into_raw'].filter((k) => k in o));
    }
    const ptr = Object.getOwnPropertyDescriptor(Session.prototype, '__wbg_ptr');
    result.ptrDescriptor = ptr && { configurable: ptr.configurable, hasSetter: ptr.set !== undefined };
    attempt('assign __wbg_ptr', () => { s.__wbg_ptr = 0; return 'assigned'; });
    attempt('stamp after the assignment', () => s.stamp('still mine').slice(0, 2));
    // A prototype object carrying a live handle's pointer value: not a handle.
    const forged = Object.create(Session.prototype);
    Object.defineProperty(forged, '__wbg_ptr', { value: s.__wbg_ptr });
    attempt('forged stamp', () => forged.stamp('forged'));
    attempt('forged free', () => Session.prototype.free.call(forged));
    // A real Session re-prototyped as a ClientKey: its handle must not be read as a ClientKey's.
    const other = open();
    Object.setPrototypeOf(other, ClientKey.prototype);
    attempt('session as a ClientKey getter', () => other.publicKeyHex);
    attempt('session as the key of Session.open', () => Session.open(sessionResponse(), other));
    Object.setPrototypeOf(other, Session.prototype);
    attempt('re-prototyped back, it still signs', () => other.stamp('back').slice(0, 2));
    s.free();
    attempt('after free()', () => s.stamp('x'));
    attempt('alive', () => Session.sandbox(response()).stamp('x'));
    console.log(JSON.stringify(result));
    process.exit(0);`);
  assert.ok(!out.parseError, `the child crashed: ${JSON.stringify(out)}`);
  const invalid = { kit: true, code: 'INVALID_INPUT' };
  const kitCode = (r) => r && { kit: r.kit, code: r.code };
  assert.deepEqual(out['ClientKey internals'], [], 'ClientKey: wasm-bindgen internals reachable');
  assert.deepEqual(out['Session internals'], [], 'Session: wasm-bindgen internals reachable');
  assert.deepEqual(out.ptrDescriptor, { configurable: false, hasSetter: false }, '__wbg_ptr must be a read-only, non-configurable accessor');
  assert.equal(out['assign __wbg_ptr'].kit, false, `assigning __wbg_ptr must throw a TypeError: ${JSON.stringify(out['assign __wbg_ptr'])}`);
  assert.deepEqual(out['stamp after the assignment'], { value: 'ey' });
  assert.deepEqual(kitCode(out['forged stamp']), invalid, `forged handle: ${JSON.stringify(out['forged stamp'])}`);
  assert.deepEqual(kitCode(out['forged free']), invalid, `forged free: ${JSON.stringify(out['forged free'])}`);
  assert.deepEqual(kitCode(out['session as a ClientKey getter']), invalid, JSON.stringify(out['session as a ClientKey getter']));
  assert.deepEqual(kitCode(out['session as the key of Session.open']), invalid, JSON.stringify(out['session as the key of Session.open']));
  assert.deepEqual(out['re-prototyped back, it still signs'], { value: 'ey' });
  assert.deepEqual(kitCode(out['after free()']), { kit: true, code: 'SESSION_CLOSED' });
  assert.deepEqual(out.alive, { value: 'sandbox-valid-signature' });
});

test('free(): later use throws SESSION_CLOSED / KEY_CONSUMED, and the error holds no secret', () => {
  const t = throwaway();
  t.session.free();
  for (const call of [() => t.session.stamp('x'), () => t.session.signRetry(pending202()), () => t.session.signQuote(quote())]) {
    assert.throws(call, (err) => {
      assertKitError(err, 'SESSION_CLOSED', scalarForms(t.scalar));
      return true;
    });
  }
  assert.equal(t.session.isExpired(), false, 'isExpired still answers after free()');
  assert.equal(t.key.consumed, true);
  assert.throws(() => Session.open(t.response, t.key), (err) => {
    assertKitError(err, 'KEY_CONSUMED', [t.bundle]);
    return true;
  });
  assert.throws(() => Session.fromClientKey(withoutKey(t.response, 'encryptedSessionSigningKey'), t.key), (err) => err.code === 'KEY_CONSUMED');
});

/** Occurrences of `needle` in the signing module's linear memory. */
function occurrences(memory, needle) {
  const mem = new Uint8Array(memory.buffer);
  let count = 0;
  for (let i = mem.indexOf(needle[0]); i !== -1 && i + needle.length <= mem.length; i = mem.indexOf(needle[0], i + 1)) {
    let j = 1;
    while (j < needle.length && mem[i + j] === needle[j]) j++;
    if (j === needle.length) count++;
  }
  return count;
}

/** Copies of a 32-byte scalar in memory, in both byte orders (big-endian bytes, little-endian limbs). */
const copies = (memory, scalar) => occurrences(memory, scalar) + occurrences(memory, Uint8Array.from(scalar).reverse());

/** The running signing module's memory (initSync returns the exports once the entry has initialised). */
const MEMORY = signingExports().memory;

test('a live session scalar is in wasm memory exactly once, and nowhere after free()', () => {
  assert.ok(MEMORY instanceof WebAssembly.Memory, 'no memory export to scan');
  const s = sealed();
  const session = Session.open(s.response, s.key);
  assert.equal(copies(MEMORY, s.scalar), 1, 'the live key, once, right after open()');
  session.stamp('sign once');
  assert.equal(copies(MEMORY, s.scalar), 1, 'the live key, once, after a stamp');
  session.free();
  assert.equal(copies(MEMORY, s.scalar), 0, 'copies of the scalar left in wasm memory after free()');
});

// ClientKey.generate's scalar is known to the test without any key-exporting API: the
// child records what crypto.getRandomValues hands the module (installed before the kit
// is imported, so the kit captures the recorder) and picks the draw whose public key is
// the key's. Each count is taken right after the call, before any other call into wasm.
test('right after ClientKey.generate, Session.open and Session.fromClientKey the scalar is in wasm memory exactly once; after free() nowhere', () => {
  const out = runChild(`
    const drawn = [];
    const realRandom = crypto.getRandomValues.bind(crypto);
    crypto.getRandomValues = (buf) => { realRandom(buf); drawn.push(Uint8Array.from(buf)); return buf; };
    const { init, ClientKey, Session } = await import(${JSON.stringify(NODE_ENTRY)});
    await init(); // the entry starts the module at the first init() or call; initSync() then returns its exports
    const { initSync } = await import(${JSON.stringify(GLUE)});
    const { sealBundle, sessionResponse, randomScalar } = await import(${JSON.stringify(FIXTURES)});
    const { p256 } = await import(${JSON.stringify(import.meta.resolve('@noble/curves/nist.js'))});
    const memory = initSync().memory;
    ${occurrences.toString()}
    const copies = (scalar) => occurrences(memory, scalar) + occurrences(memory, Uint8Array.from(scalar).reverse());
    const hexOf = (b) => Buffer.from(b).toString('hex');
    // Every 32-byte window of the draws since 'from', with its copies counted now.
    const candidates = (from) => drawn.slice(from).flatMap((d) => Array.from({ length: Math.max(0, d.length - 31) }, (_, i) => d.slice(i, i + 32)))
      .map((scalar) => ({ scalar, count: copies(scalar) }));
    // The draw may become the scalar in either byte order (p256 reads the RNG as limbs).
    const isKeyOf = (scalar, key) => { try { return hexOf(p256.getPublicKey(scalar, false)) === key.publicKeyHex; } catch { return false; } };
    const scalarOf = (list, key) => list.find((c) => isKeyOf(c.scalar, key) || isKeyOf(Uint8Array.from(c.scalar).reverse(), key));
    const out = {};

    let from = drawn.length;
    const key = ClientKey.generate();
    const afterGenerate = candidates(from);
    const generated = scalarOf(afterGenerate, key);
    out.generateFound = generated !== undefined;
    out.afterGenerate = generated?.count;
    key.free();
    out.afterKeyFree = generated && copies(generated.scalar);

    from = drawn.length;
    const key2 = ClientKey.generate();
    const clientScalar = scalarOf(candidates(from), key2)?.scalar;
    const sessionScalar = randomScalar();
    const response = sessionResponse({ bundle: sealBundle(sessionScalar, key2.publicKeyHex) });
    const opened = Session.open(response, key2);
    out.afterOpen = copies(sessionScalar);
    out.clientKeyAfterOpen = clientScalar && copies(clientScalar);
    opened.free();
    out.afterOpenFree = copies(sessionScalar);

    from = drawn.length;
    const key3 = ClientKey.generate();
    const own = scalarOf(candidates(from), key3)?.scalar;
    const session3 = Session.fromClientKey(sessionResponse({ omitBundle: true }), key3);
    out.afterFromClientKey = own && copies(own);
    session3.free();
    out.afterFromClientKeyFree = own && copies(own);
    console.log(JSON.stringify(out));
    process.exit(0);`);
  assert.ok(!out.parseError, `the child crashed: ${JSON.stringify(out)}`);
  assert.equal(out.generateFound, true, 'the generated scalar was not among the recorded draws');
  assert.deepEqual(out, {
    generateFound: true, afterGenerate: 1, afterKeyFree: 0,
    afterOpen: 1, clientKeyAfterOpen: 0, afterOpenFree: 0,
    afterFromClientKey: 1, afterFromClientKeyFree: 0,
    status: 0, stderr: '',
  }, 'copies of each scalar in wasm memory (1 = the live key only)');
});

// ---------------------------------------------------------------------------------------
// Last: the same module instance still works after everything above.

test('after the whole corpus, the same instance opens a real sealed session and signs', () => {
  const s = sealed();
  const session = Session.open(s.response, s.key);
  assert.equal(session.publicKeyHex, s.pub);
  const payload = `{"type":"ACTIVITY_TYPE_SIGN","after":"${caseCount} hostile cases"}`;
  const c = checkStamp(session.stamp(payload), payload, s.pub);
  assert.ok(c.ok, `the final stamp does not verify: ${JSON.stringify(c)}`);
  const p = pending202();
  const headers = session.signRetry(p);
  assert.ok(checkStamp(headers['Service-Wallet-Signature'], p.payloadToSign, s.pub).ok);
  const q = quote();
  assert.ok(checkStamp(session.signQuote(q)['Service-Wallet-Signature'], q.payloadToSign, s.pub).ok);
  assertAlive('the whole corpus');
  const b = passkey.registrationBody('InternalAccount:1', 'still alive', b64u(randomBytes(32)), attestation());
  assert.equal(b.nickname, 'still alive');
  session.free();
  victim.session.free();
  assert.throws(() => victim.session.stamp('x'), (err) => err.code === 'SESSION_CLOSED');
});
