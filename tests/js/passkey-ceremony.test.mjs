// The passkey ceremonies' orchestration, through the built package's Node entry, against
// a scripted navigator.credentials and PublicKeyCredential installed on globalThis (the kit
// reads them when a ceremony starts, as in a browser). What the browser suites
// (tests/passkey/) cannot pin down precisely: that navigator.credentials.create/get is
// called synchronously inside passkey.register()/authenticate() (Safari's transient
// activation), the exact options handed over, how the credential is read (ArrayBuffers and
// views), every rejection's code and cause, and the kit's own cancel, caller signal,
// superseding ceremony and watchdog against a browser that ignores the AbortSignal.
import { test, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { passkey, KitError } from '../../pkg/node.js';

const b64u = (bytes) => Buffer.from(bytes).toString('base64url');
const bytesOf = (v) => Buffer.from(v instanceof ArrayBuffer ? new Uint8Array(v) : new Uint8Array(v.buffer, v.byteOffset, v.byteLength));
const arrayBuffer = (bytes) => new Uint8Array(bytes).buffer;

function isKit(code, { message, causeName, cause } = {}) {
  return (err) => {
    assert.ok(err instanceof KitError, `expected KitError ${code}, got ${err?.constructor?.name}: ${err?.message}`);
    assert.equal(err.code, code, `wrong code (message: ${err.message})`);
    if (message !== undefined) assert.equal(err.message, message);
    if (causeName !== undefined) assert.equal(err.cause?.name, causeName);
    if (cause !== undefined) assert.equal(err.cause, cause);
    return true;
  };
}

/** Whether the scripted browser is being called from inside a kit call (set around it). */
let insideCall = false;
/** Every navigator.credentials call: {method, options, synchronous}. */
let calls = [];

/**
 * Installs a scripted WebAuthn: `answer(method, options)` returns what
 * navigator.credentials[method] returns (a promise, or throws). `probes` become static
 * methods of PublicKeyCredential.
 */
function installWebAuthn(answer, probes = {}) {
  calls = [];
  const credentials = {};
  for (const method of ['create', 'get']) {
    credentials[method] = function credentialsCall(options) {
      assert.equal(this, credentials, 'called as a method of navigator.credentials');
      calls.push({ method, options, synchronous: insideCall });
      return answer(method, options);
    };
  }
  Object.defineProperty(globalThis, 'navigator', { value: { credentials }, configurable: true, writable: true });
  function PublicKeyCredential() {}
  Object.assign(PublicKeyCredential, probes);
  globalThis.PublicKeyCredential = PublicKeyCredential;
}

afterEach(() => {
  passkey.cancel();
  delete globalThis.navigator;
  delete globalThis.PublicKeyCredential;
});

/** Calls fn with `insideCall` set, as a click handler calling the kit would. */
function call(fn) {
  insideCall = true;
  try {
    return fn();
  } finally {
    insideCall = false;
  }
}

const challenge = b64u(randomBytes(32));
const registration = (overrides = {}) => ({
  challenge,
  rpId: 'example.com',
  rpName: 'Example',
  user: { id: 'user-1', name: 'alice@example.com', displayName: 'Alice' },
  ...overrides,
});
const loginChallenge = 'ab'.repeat(32);
const credentialId = randomBytes(16);
const authentication = (overrides = {}) => ({
  challenge: loginChallenge, credentialId: b64u(credentialId), rpId: 'example.com', ...overrides,
});

const clientDataJSON = Buffer.from('{"type":"webauthn.create","challenge":"x"}');
const attestationObject = randomBytes(40);
const authenticatorData = randomBytes(37);
const signature = randomBytes(70);

/**
 * A PublicKeyCredential as a browser resolves create() with; `wrap` turns bytes into what
 * is handed over; `transports: null`: no getTransports.
 */
const attestationCredential = ({ wrap = arrayBuffer, transports = ['internal', 'hybrid'] } = {}) => ({
  id: b64u(credentialId),
  type: 'public-key',
  rawId: wrap(credentialId),
  response: {
    clientDataJSON: wrap(clientDataJSON),
    attestationObject: wrap(attestationObject),
    ...(transports === null ? {} : { getTransports: () => transports }),
  },
});
const assertionCredential = ({ wrap = arrayBuffer, rawId = credentialId, userHandle = Buffer.from('user-1') } = {}) => ({
  id: b64u(rawId),
  type: 'public-key',
  rawId: wrap(rawId),
  response: {
    clientDataJSON: wrap(clientDataJSON),
    authenticatorData: wrap(authenticatorData),
    signature: wrap(signature),
    userHandle: userHandle === null ? null : wrap(userHandle),
  },
});
const resolves = (credential) => () => Promise.resolve(credential);
const never = () => new Promise(() => {});
const domError = (name) => new DOMException(`the browser says ${name}`, name);

test('register calls navigator.credentials.create synchronously, inside the passkey.register() call', async () => {
  installWebAuthn(resolves(attestationCredential()));
  const p = call(() => passkey.register(registration()));
  assert.equal(calls.length, 1, 'navigator.credentials.create was not called before passkey.register() returned');
  assert.equal(calls[0].method, 'create');
  assert.equal(calls[0].synchronous, true);
  await p;
});

test('authenticate calls navigator.credentials.get synchronously, inside the passkey.authenticate() call', async () => {
  installWebAuthn(resolves(assertionCredential()));
  const p = call(() => passkey.authenticate(authentication()));
  assert.equal(calls.length, 1, 'navigator.credentials.get was not called before passkey.authenticate() returned');
  assert.equal(calls[0].method, 'get');
  assert.equal(calls[0].synchronous, true);
  await p;
});

test('register hands create() exactly the publicKey options, and a live AbortSignal', async () => {
  installWebAuthn(resolves(attestationCredential()));
  const excluded = [randomBytes(16), randomBytes(32)];
  await passkey.register(registration({
    excludeCredentialIds: excluded.map(b64u), residentKey: 'required', userVerification: 'preferred',
    attachment: 'platform', timeoutMs: 30_000,
  }));
  await passkey.register(registration({ user: { id: 'Zoë:1', name: 'zoe' } }));
  const [full, plain] = calls.map((c) => c.options);
  assert.deepEqual(Object.keys(full), ['publicKey', 'signal']);
  assert.ok(full.signal instanceof AbortSignal);
  const pk = full.publicKey;
  assert.deepEqual(Object.keys(pk), ['challenge', 'rp', 'user', 'pubKeyCredParams', 'excludeCredentials',
    'authenticatorSelection', 'attestation', 'timeout']);
  assert.ok(pk.challenge instanceof Uint8Array);
  assert.deepEqual(bytesOf(pk.challenge), Buffer.from(challenge, 'base64url'));
  assert.deepEqual(pk.rp, { id: 'example.com', name: 'Example' });
  assert.ok(pk.user.id instanceof Uint8Array);
  assert.deepEqual({ ...pk.user, id: bytesOf(pk.user.id) },
    { id: Buffer.from('user-1'), name: 'alice@example.com', displayName: 'Alice' });
  assert.deepEqual(pk.pubKeyCredParams, [{ type: 'public-key', alg: -7 }, { type: 'public-key', alg: -257 }]);
  assert.deepEqual(pk.excludeCredentials.map((c) => ({ ...c, id: bytesOf(c.id) })),
    excluded.map((id) => ({ type: 'public-key', id })));
  assert.deepEqual(pk.authenticatorSelection, {
    residentKey: 'required', requireResidentKey: true, userVerification: 'preferred', authenticatorAttachment: 'platform',
  });
  assert.equal(pk.attestation, 'none');
  assert.equal(pk.timeout, 30_000);

  const defaults = plain.publicKey;
  assert.deepEqual(bytesOf(defaults.user.id), Buffer.from('Zoë:1', 'utf8'));
  assert.equal(defaults.user.displayName, 'zoe', 'displayName defaults to name');
  assert.deepEqual(defaults.excludeCredentials, []);
  assert.deepEqual(defaults.authenticatorSelection, {
    residentKey: 'preferred', requireResidentKey: false, userVerification: 'required',
  });
  assert.equal(defaults.timeout, 60_000);
});

test('authenticate hands get() exactly the publicKey options: the login challenge as UTF-8, the one allowed id', async () => {
  installWebAuthn(resolves(assertionCredential()));
  await passkey.authenticate(authentication({ userVerification: 'discouraged', timeoutMs: 10_000 }));
  await passkey.authenticate(authentication({ rpId: undefined }));
  const [full, plain] = calls.map((c) => c.options);
  assert.deepEqual(Object.keys(full), ['publicKey', 'signal']);
  assert.ok(full.signal instanceof AbortSignal);
  const pk = full.publicKey;
  assert.deepEqual(Object.keys(pk), ['challenge', 'allowCredentials', 'userVerification', 'timeout', 'rpId']);
  assert.deepEqual(bytesOf(pk.challenge), Buffer.from(loginChallenge, 'utf8'));
  assert.deepEqual(pk.allowCredentials.map((c) => ({ ...c, id: bytesOf(c.id) })), [{ type: 'public-key', id: credentialId }]);
  assert.equal(pk.userVerification, 'discouraged');
  assert.equal(pk.timeout, 10_000);
  assert.equal(pk.rpId, 'example.com');
  assert.ok(!('rpId' in plain.publicKey), 'no rpId key when none was given');
  assert.equal(plain.publicKey.userVerification, 'required');
});

test('register resolves to the attestation JSON, from ArrayBuffers, DataViews or offset views', async () => {
  const expected = {
    credentialId: b64u(credentialId),
    clientDataJson: b64u(clientDataJSON),
    attestationObject: b64u(attestationObject),
    transports: ['internal', 'hybrid'],
  };
  const offsetView = (bytes) => {
    const larger = new Uint8Array(bytes.length + 8).fill(0xee);
    larger.set(bytes, 4);
    return larger.subarray(4, 4 + bytes.length);
  };
  for (const wrap of [arrayBuffer, (b) => new DataView(arrayBuffer(b)), offsetView]) {
    installWebAuthn(resolves(attestationCredential({ wrap })));
    const att = await passkey.register(registration());
    assert.deepEqual(att, expected);
    assert.deepEqual(Object.keys(att), Object.keys(expected));
  }
  installWebAuthn(resolves(attestationCredential({ transports: null })));
  assert.deepEqual((await passkey.register(registration())).transports, [], 'no getTransports: no transports');
  installWebAuthn(resolves(attestationCredential({ transports: ['usb', 7, 'nfc'] })));
  assert.deepEqual((await passkey.register(registration())).transports, ['usb', 'nfc'], 'non-strings dropped');
});

test('authenticate resolves to the assertion JSON; an absent or empty userHandle is omitted', async () => {
  installWebAuthn(resolves(assertionCredential()));
  const a = await passkey.authenticate(authentication());
  assert.deepEqual(a, {
    credentialId: b64u(credentialId),
    clientDataJson: b64u(clientDataJSON),
    authenticatorData: b64u(authenticatorData),
    signature: b64u(signature),
    userHandle: b64u(Buffer.from('user-1')),
  });
  for (const userHandle of [null, Buffer.alloc(0)]) {
    installWebAuthn(resolves(assertionCredential({ userHandle })));
    const without = await passkey.authenticate(authentication());
    assert.deepEqual(Object.keys(without), ['credentialId', 'clientDataJson', 'authenticatorData', 'signature']);
  }
});

test('a credential other than the allowed one, a missing member or no credential → PASSKEY_FAILED', async () => {
  installWebAuthn(resolves(assertionCredential({ rawId: randomBytes(16) })));
  await assert.rejects(passkey.authenticate(authentication()), isKit('PASSKEY_FAILED', {
    message: 'the browser answered with a credential other than the one allowed',
  }));
  const noSignature = assertionCredential();
  delete noSignature.response.signature;
  installWebAuthn(resolves(noSignature));
  await assert.rejects(passkey.authenticate(authentication()), isKit('PASSKEY_FAILED', {
    message: "the browser's credential has no signature",
  }));
  const stringAttestation = attestationCredential();
  stringAttestation.response.attestationObject = 'not bytes';
  installWebAuthn(resolves(stringAttestation));
  await assert.rejects(passkey.register(registration()), isKit('PASSKEY_FAILED', {
    message: "the browser's credential has no attestationObject",
  }));
  for (const nothing of [null, undefined, 'credential']) {
    installWebAuthn(resolves(nothing));
    await assert.rejects(passkey.register(registration()), isKit('PASSKEY_FAILED', {
      message: 'the browser returned no credential',
    }));
  }
});

test('browser rejections map to stable codes by DOMException name, the browser error kept as cause', async () => {
  const cases = [
    ['register', 'SecurityError', 'PASSKEY_INVALID_DOMAIN'],
    ['authenticate', 'SecurityError', 'PASSKEY_INVALID_DOMAIN'],
    ['register', 'InvalidStateError', 'PASSKEY_ALREADY_REGISTERED'],
    ['authenticate', 'InvalidStateError', 'PASSKEY_FAILED'],
    ['register', 'NotAllowedError', 'PASSKEY_CANCELLED'],
    ['authenticate', 'AbortError', 'PASSKEY_CANCELLED'],
    ['register', 'NotSupportedError', 'PASSKEY_UNSUPPORTED'],
    ['authenticate', 'ConstraintError', 'PASSKEY_UNSUPPORTED'],
    ['register', 'TypeError', 'INVALID_INPUT'],
    ['authenticate', 'OperationError', 'PASSKEY_FAILED'],
    ['register', 'UnknownError', 'PASSKEY_FAILED'],
  ];
  for (const [ceremony, name, code] of cases) {
    const error = domError(name);
    installWebAuthn(() => Promise.reject(error));
    const run = ceremony === 'register' ? passkey.register(registration()) : passkey.authenticate(authentication());
    await assert.rejects(run, isKit(code, { cause: error }), `${ceremony} ${name}`);
  }
  installWebAuthn(() => Promise.reject(domError('SecurityError')));
  await assert.rejects(passkey.register(registration()), isKit('PASSKEY_INVALID_DOMAIN', {
    message: 'the relying-party id does not match this page\'s origin (or the origin is not a valid domain, e.g. an IP address)',
  }));
  installWebAuthn(() => Promise.reject(42));
  await assert.rejects(passkey.register(registration()), isKit('PASSKEY_FAILED', {
    message: 'the passkey ceremony failed with a non-error value (see cause)', cause: 42,
  }));
  // A navigator.credentials that throws instead of rejecting (some polyfills).
  const thrown = new TypeError('bad options');
  installWebAuthn(() => {
    throw thrown;
  });
  await assert.rejects(passkey.register(registration()), isKit('INVALID_INPUT', { cause: thrown }));
});

test('NotAllowedError at or after the requested timeout → PASSKEY_TIMEOUT; before it → PASSKEY_CANCELLED', async () => {
  installWebAuthn(() => new Promise((_, reject) => setTimeout(() => reject(domError('NotAllowedError')), 250)));
  await assert.rejects(passkey.register(registration({ timeoutMs: 200 })), isKit('PASSKEY_TIMEOUT', {
    message: 'the passkey ceremony timed out', causeName: 'NotAllowedError',
  }));
  await assert.rejects(passkey.register(registration({ timeoutMs: 5_000 })), isKit('PASSKEY_CANCELLED', {
    causeName: 'NotAllowedError',
  }));
});

test('no WebAuthn (no PublicKeyCredential, or no navigator.credentials.get) → PASSKEY_UNSUPPORTED, after INVALID_INPUT', async () => {
  installWebAuthn(resolves(attestationCredential()));
  delete globalThis.PublicKeyCredential;
  await assert.rejects(passkey.register(registration()), isKit('PASSKEY_UNSUPPORTED', {
    message: 'this browser has no WebAuthn support (no PublicKeyCredential); passkeys need a secure context (https or http://localhost)',
  }));
  await assert.rejects(passkey.register(registration({ challenge: 'not base64url!' })), isKit('INVALID_INPUT'));
  assert.equal(passkey.isSupported(), false);
  installWebAuthn(resolves(attestationCredential()));
  delete globalThis.navigator.credentials.get;
  await assert.rejects(passkey.authenticate(authentication()), isKit('PASSKEY_UNSUPPORTED', {
    message: 'this browser has no WebAuthn support (no navigator.credentials); passkeys need a secure context (https or http://localhost)',
  }));
  assert.equal(passkey.isSupported(), false);
  installWebAuthn(resolves(attestationCredential()));
  assert.equal(passkey.isSupported(), true);
  assert.equal(calls.length, 0, 'the browser was never asked');
});

test('an already aborted signal → PASSKEY_CANCELLED without asking the browser; a lookalike signal → INVALID_INPUT; a throwing getter is none', async () => {
  installWebAuthn(never);
  await assert.rejects(passkey.register(registration({ signal: AbortSignal.abort() })), isKit('PASSKEY_CANCELLED', {
    message: 'the passkey ceremony was cancelled before it started (the signal was already aborted)',
  }));
  await assert.rejects(passkey.authenticate(authentication({ signal: AbortSignal.abort() })), isKit('PASSKEY_CANCELLED'));
  const lookalike = Object.create(AbortSignal.prototype);
  await assert.rejects(passkey.register(registration({ signal: lookalike })), isKit('INVALID_INPUT', {
    message: 'signal must be an AbortSignal',
  }));
  assert.equal(calls.length, 0);
  // A throwing `signal` getter reads as no signal, as the other options' readers treat members.
  installWebAuthn(resolves(attestationCredential()));
  const throwing = registration();
  Object.defineProperty(throwing, 'signal', {
    get() {
      throw new Error('no signal here');
    },
  });
  assert.equal((await passkey.register(throwing)).credentialId, b64u(credentialId));
});

// A browser that ignores the AbortSignal (some extensions and polyfills): the kit must still
// end the ceremony on its own cancel, the caller's signal, a newer ceremony or its watchdog.
test('a browser that never settles: cancel(), the caller signal and a newer ceremony each end it PASSKEY_CANCELLED', async () => {
  installWebAuthn(never);
  const cancelled = passkey.register(registration());
  setTimeout(() => passkey.cancel(), 20);
  await assert.rejects(cancelled, isKit('PASSKEY_CANCELLED', { message: 'the passkey ceremony was cancelled' }));
  assert.equal(calls[0].options.signal.aborted, true, 'the signal handed to the browser is aborted');

  const controller = new AbortController();
  const aborted = passkey.authenticate(authentication({ signal: controller.signal }));
  setTimeout(() => controller.abort(), 20);
  await assert.rejects(aborted, isKit('PASSKEY_CANCELLED'));
  assert.equal(calls[1].options.signal.aborted, true);

  const first = passkey.register(registration());
  const second = passkey.register(registration());
  await assert.rejects(first, isKit('PASSKEY_CANCELLED'));
  assert.equal(calls[2].options.signal.aborted, true, "the first ceremony's signal is aborted");
  assert.equal(calls[3].options.signal.aborted, false, 'the second ceremony runs on');
  passkey.cancel();
  await assert.rejects(second, isKit('PASSKEY_CANCELLED'));
});

// A cancel that lands while navigator.credentials runs (a wrapper calling back into the
// page, which cancels or starts another ceremony), from a browser that then ignores the
// signal: the ceremony still ends at once, and the watchdog is not needed.
test('a cancel from inside navigator.credentials ends a ceremony the browser never settles', { timeout: 5_000 }, async () => {
  installWebAuthn(() => {
    passkey.cancel();
    return never();
  });
  const t0 = performance.now();
  await assert.rejects(passkey.register(registration({ timeoutMs: 60_000 })), isKit('PASSKEY_CANCELLED'));
  assert.ok(performance.now() - t0 < 1_000, 'ended without waiting for the watchdog');

  const controller = new AbortController();
  installWebAuthn(() => {
    controller.abort();
    return never();
  });
  await assert.rejects(passkey.authenticate(authentication({ signal: controller.signal, timeoutMs: 60_000 })), isKit('PASSKEY_CANCELLED'));
});

test('a browser that never settles: the watchdog ends it PASSKEY_TIMEOUT after timeoutMs plus a grace of 1 s', async () => {
  installWebAuthn(never);
  const t0 = performance.now();
  await assert.rejects(passkey.register(registration({ timeoutMs: 300 })), isKit('PASSKEY_TIMEOUT', {
    message: 'the passkey ceremony timed out: no authenticator answered in time',
  }));
  const ms = performance.now() - t0;
  assert.ok(ms >= 1_250 && ms < 3_000, `settled after ${Math.round(ms)} ms`);
});

test('a settled ceremony is no longer the current one: cancel() and the caller signal leave it alone', async () => {
  installWebAuthn(resolves(attestationCredential()));
  const controller = new AbortController();
  await passkey.register(registration({ signal: controller.signal }));
  passkey.cancel();
  controller.abort();
  assert.equal(calls[0].options.signal.aborted, false);
});

test('the probes ask PublicKeyCredential; a rejection, a throw or no promise gives the "no" value', async () => {
  installWebAuthn(never, {
    isUserVerifyingPlatformAuthenticatorAvailable: () => Promise.resolve(true),
    isConditionalMediationAvailable: () => Promise.resolve(true),
    getClientCapabilities: () => Promise.resolve({ conditionalGet: true }),
  });
  assert.equal(await passkey.platformAuthenticatorAvailable(), true);
  assert.equal(await passkey.conditionalMediationAvailable(), true);
  assert.deepEqual(await passkey.clientCapabilities(), { conditionalGet: true });
  installWebAuthn(never, {
    isUserVerifyingPlatformAuthenticatorAvailable: () => Promise.reject(domError('NotAllowedError')),
    isConditionalMediationAvailable: () => {
      throw new Error('no');
    },
    getClientCapabilities: () => ({ conditionalGet: true }),
  });
  assert.equal(await passkey.platformAuthenticatorAvailable(), false);
  assert.equal(await passkey.conditionalMediationAvailable(), false);
  assert.equal(await passkey.clientCapabilities(), undefined);
  installWebAuthn(never, { isUserVerifyingPlatformAuthenticatorAvailable: () => Promise.resolve('yes') });
  assert.equal(await passkey.platformAuthenticatorAvailable(), false, 'only true is true');
  assert.equal(await passkey.conditionalMediationAvailable(), false, 'a missing probe');
  assert.equal(await passkey.clientCapabilities(), undefined);
});

test('hints pass through to create() and get() in the caller\'s order; an unknown hint is INVALID_INPUT naming it, before PASSKEY_UNSUPPORTED', async () => {
  installWebAuthn((method) => Promise.resolve(method === 'create' ? attestationCredential() : assertionCredential()));
  const hints = ['security-key', 'hybrid', 'client-device'];
  await passkey.register(registration({ hints }));
  await passkey.authenticate(authentication({ hints: ['client-device'] }));
  await passkey.authenticate(authentication());
  const [created, got, plain] = calls.map((c) => c.options.publicKey);
  assert.deepEqual(created.hints, hints);
  assert.deepEqual(got.hints, ['client-device']);
  assert.ok(!('hints' in plain), 'no hints key when none were given');
  await assert.rejects(passkey.authenticate(authentication({ hints: ['security-key', 'platform'] })),
    isKit('INVALID_INPUT', { message: 'hints: unknown hint "platform" (one of security-key, client-device, hybrid)' }));
  await assert.rejects(passkey.register(registration({ hints: 'hybrid' })), isKit('INVALID_INPUT'));
  assert.equal(calls.length, 3, 'nothing asked of the browser for bad hints');
  delete globalThis.PublicKeyCredential;
  await assert.rejects(passkey.register(registration({ hints: [7] })), isKit('INVALID_INPUT', { message: 'hints: unknown hint of type number (one of security-key, client-device, hybrid)' }));
});

test("autofill: mediation 'conditional' reaches get() and has no watchdog (it waits for the user); the caller's signal ends it; register or another value is INVALID_INPUT", async () => {
  installWebAuthn(never);
  const controller = new AbortController();
  const p = passkey.authenticate(authentication({ mediation: 'conditional', timeoutMs: 1, signal: controller.signal }));
  assert.equal(calls[0].options.mediation, 'conditional');
  assert.ok(calls[0].options.signal instanceof AbortSignal);
  const state = await Promise.race([p.then(() => 'settled', () => 'settled'), new Promise((ok) => setTimeout(() => ok('pending'), 1_200))]);
  assert.equal(state, 'pending', 'a conditional request is not ended by the timeout watchdog');
  controller.abort();
  await assert.rejects(p, isKit('PASSKEY_CANCELLED'));
  const modal = passkey.authenticate(authentication());
  passkey.cancel();
  await assert.rejects(modal, isKit('PASSKEY_CANCELLED'));
  assert.ok(!('mediation' in calls[1].options), 'no mediation key for a modal ceremony');
  await assert.rejects(passkey.authenticate(authentication({ mediation: 'silent' })), isKit('INVALID_INPUT'));
  await assert.rejects(passkey.register(registration({ mediation: 'conditional' })), isKit('INVALID_INPUT'));
  assert.equal(calls.length, 2);
});
