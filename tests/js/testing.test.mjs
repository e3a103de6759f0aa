// The software authenticator through the built package's `testing` Node entry
// (pkg/testing-node.js): registration and assertions verified by @simplewebauthn/server,
// the same independent verifier as the browser test (tests/passkey/run.mjs), with the
// same field mapping; the counter; the error codes, all the main entry's KitError.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { verifyRegistrationResponse, verifyAuthenticationResponse } from '@simplewebauthn/server';
import { authenticationResponseJSON, registrationResponseJSON } from '../support/webauthn.mjs';
import { init, SoftAuthenticator, KitError } from '../../pkg/testing-node.js';
import { KitError as MainKitError, passkey } from '../../pkg/node.js';
import * as browserTesting from '../../pkg/testing.js';

const ORIGIN = 'http://localhost:8787';
const RP_ID = 'localhost';
const b64u = (bytes) => Buffer.from(bytes).toString('base64url');
const utf8b64u = (text) => Buffer.from(text, 'utf8').toString('base64url');
const clientData = (b64) => JSON.parse(Buffer.from(b64, 'base64url').toString('utf8'));
/** A login challenge as POST /auth/credentials/{id}/challenge returns it: 64 hex chars. */
const loginChallenge = () => createHash('sha256').update(randomBytes(32)).digest('hex');

/** Asserts a KitError with `code`, of the main entry's class too. */
function isKit(code, field) {
  return (err) => {
    assert.ok(err instanceof KitError, `expected KitError ${code}, got ${err?.constructor?.name}: ${err?.message}`);
    assert.ok(err instanceof MainKitError, 'not the main entry\'s KitError');
    assert.equal(err.name, 'KitError');
    assert.equal(err.code, code, `wrong code (message: ${err.message})`);
    if (field !== undefined) assert.ok(err.message.includes(field), `the message does not name ${field}: ${err.message}`);
    return true;
  };
}

const registration = (overrides = {}) => ({
  challenge: b64u(randomBytes(32)),
  rpId: RP_ID,
  rpName: 'Example Wallet',
  user: { id: 'InternalAccount:9f1c', name: 'alice@example.com', displayName: 'Alice' },
  ...overrides,
});

async function verifyRegistration(att, challenge, requireUserVerification = true) {
  return verifyRegistrationResponse({
    response: registrationResponseJSON(att),
    expectedChallenge: challenge,
    expectedOrigin: ORIGIN,
    expectedRPID: RP_ID,
    requireUserVerification,
  });
}

async function verifyAssertion(a, expectedChallenge, credential, requireUserVerification = true) {
  return verifyAuthenticationResponse({
    response: authenticationResponseJSON(a),
    expectedChallenge,
    expectedOrigin: ORIGIN,
    expectedRPID: RP_ID,
    credential,
    requireUserVerification,
  });
}

test('testing entry: exports exactly init, SoftAuthenticator, KitError; init resolves at once; KitError is the main entry\'s', async () => {
  const mod = await import('../../pkg/testing-node.js');
  assert.deepEqual(Object.keys(mod).sort(), ['KitError', 'SoftAuthenticator', 'init']);
  assert.deepEqual(Object.keys(browserTesting).sort(), ['KitError', 'SoftAuthenticator', 'init']);
  assert.equal(await init(), undefined);
  assert.equal(await init({ module_or_path: 'ignored' }), undefined);
  assert.equal(KitError, MainKitError);
  assert.equal(browserTesting.KitError, MainKitError);
});

test('register → verified by @simplewebauthn/server; two assertions verified, counter increasing', async () => {
  const authenticator = new SoftAuthenticator(ORIGIN);
  assert.ok(authenticator instanceof SoftAuthenticator);
  assert.ok(authenticator instanceof browserTesting.SoftAuthenticator, 'one class behind both files');
  const options = registration();
  const att = authenticator.register(options);
  assert.deepEqual(Object.keys(att), ['credentialId', 'clientDataJson', 'attestationObject', 'transports']);
  for (const k of ['credentialId', 'clientDataJson', 'attestationObject']) {
    assert.match(att[k], /^[A-Za-z0-9_-]+$/, `${k} is not unpadded base64url`);
  }
  assert.deepEqual(att.transports, ['internal']);
  const cd = clientData(att.clientDataJson);
  assert.deepEqual(cd, { type: 'webauthn.create', challenge: options.challenge, origin: ORIGIN, crossOrigin: false });

  const v = await verifyRegistration(att, options.challenge);
  assert.equal(v.verified, true);
  const info = v.registrationInfo;
  assert.equal(info.fmt, 'none');
  assert.equal(info.credential.id, att.credentialId);
  assert.equal(info.userVerified, true);
  assert.equal(info.rpID, RP_ID);
  assert.equal(info.origin, ORIGIN);
  assert.equal(info.credential.counter, 0);
  assert.equal(info.aaguid, '00000000-0000-0000-0000-000000000000');
  let credential = info.credential;

  for (const round of [1, 2]) {
    const challenge = loginChallenge();
    const a = authenticator.authenticate({ challenge, credentialId: att.credentialId, rpId: RP_ID });
    assert.deepEqual(Object.keys(a), ['credentialId', 'clientDataJson', 'authenticatorData', 'signature', 'userHandle']);
    for (const k of Object.keys(a)) assert.match(a[k], /^[A-Za-z0-9_-]+$/, `${k} is not unpadded base64url`);
    assert.equal(a.credentialId, att.credentialId);
    assert.equal(a.userHandle, utf8b64u(options.user.id));
    const acd = clientData(a.clientDataJson);
    assert.equal(acd.type, 'webauthn.get');
    // The 64-hex login challenge: its UTF-8 bytes, not its hex decoding.
    assert.equal(acd.challenge, utf8b64u(challenge));
    assert.equal(acd.origin, ORIGIN);

    const w = await verifyAssertion(a, utf8b64u(challenge), credential);
    assert.equal(w.verified, true, `round ${round}`);
    assert.equal(w.authenticationInfo.userVerified, true);
    assert.equal(w.authenticationInfo.newCounter, round, 'the counter goes up by one per assertion');
    assert.ok(w.authenticationInfo.newCounter > credential.counter);
    // Under the hex-decoded challenge the same assertion must not verify.
    await assert.rejects(verifyAssertion(a, b64u(Buffer.from(challenge, 'hex')), credential));
    credential = { ...credential, counter: w.authenticationInfo.newCounter };
  }

  // The attestation makes a valid POST /auth/credentials body with the main entry.
  const body = passkey.registrationBody('InternalAccount:9f1c', 'Test key', options.challenge, att);
  assert.deepEqual(body.attestation, att);
  authenticator.free();
});

test('rpId defaults to the origin\'s host; a registrable suffix of the host is accepted', async () => {
  const sub = new SoftAuthenticator('https://wallet.example.com');
  const options = registration({ rpId: 'example.com' });
  const att = sub.register(options);
  const reg = await verifyRegistrationResponse({
    response: registrationResponseJSON(att),
    expectedChallenge: options.challenge, expectedOrigin: 'https://wallet.example.com', expectedRPID: 'example.com',
  });
  assert.equal(reg.verified, true);
  // Registered under example.com: without rpId the assertion is for wallet.example.com, which holds nothing.
  assert.throws(() => sub.authenticate({ challenge: loginChallenge(), credentialId: att.credentialId }), isKit('PASSKEY_CANCELLED'));
  assert.equal(sub.authenticate({ challenge: loginChallenge(), credentialId: att.credentialId, rpId: 'example.com' }).credentialId,
    att.credentialId);

  const local = new SoftAuthenticator(ORIGIN);
  const att2 = local.register(registration());
  assert.equal(local.authenticate({ challenge: loginChallenge(), credentialId: att2.credentialId }).credentialId, att2.credentialId);
});

test('userVerification discouraged: UP without UV (verifies when UV is not required)', async () => {
  const authenticator = new SoftAuthenticator(ORIGIN);
  const options = registration({ userVerification: 'discouraged' });
  const att = authenticator.register(options);
  const v = await verifyRegistration(att, options.challenge, false);
  assert.equal(v.verified, true);
  assert.equal(v.registrationInfo.userVerified, false);
  await assert.rejects(verifyRegistration(att, options.challenge, true));
  const challenge = loginChallenge();
  const a = authenticator.authenticate({ challenge, credentialId: att.credentialId, userVerification: 'discouraged' });
  const flags = Buffer.from(a.authenticatorData, 'base64url')[32];
  assert.equal(flags, 0x01);
  const w = await verifyAssertion(a, utf8b64u(challenge), v.registrationInfo.credential, false);
  assert.equal(w.verified, true);
});

test('errors: excluded credential → PASSKEY_ALREADY_REGISTERED', () => {
  const authenticator = new SoftAuthenticator(ORIGIN);
  const att = authenticator.register(registration());
  assert.throws(() => authenticator.register(registration({ excludeCredentialIds: [b64u(randomBytes(16)), att.credentialId] })),
    isKit('PASSKEY_ALREADY_REGISTERED'));
  // An exclude list naming only credentials it does not hold is fine.
  assert.ok(authenticator.register(registration({ excludeCredentialIds: [b64u(randomBytes(32))] })).credentialId);
  // Another authenticator does not hold it.
  assert.ok(new SoftAuthenticator(ORIGIN).register(registration({ excludeCredentialIds: [att.credentialId] })).credentialId);
});

test('errors: unknown credential → PASSKEY_CANCELLED (what browsers report)', () => {
  const authenticator = new SoftAuthenticator(ORIGIN);
  authenticator.register(registration());
  assert.throws(() => authenticator.authenticate({ challenge: loginChallenge(), credentialId: b64u(randomBytes(32)) }),
    isKit('PASSKEY_CANCELLED'));
  // A credential of another authenticator is unknown too.
  const other = new SoftAuthenticator(ORIGIN).register(registration());
  assert.throws(() => authenticator.authenticate({ challenge: loginChallenge(), credentialId: other.credentialId }),
    isKit('PASSKEY_CANCELLED'));
});

test('errors: rpId not matching the origin → PASSKEY_INVALID_DOMAIN (register and authenticate)', () => {
  const authenticator = new SoftAuthenticator(ORIGIN);
  const att = authenticator.register(registration());
  assert.throws(() => authenticator.register(registration({ rpId: 'example.com' })), isKit('PASSKEY_INVALID_DOMAIN'));
  assert.throws(() => authenticator.register(registration({ rpId: 'host' })), isKit('PASSKEY_INVALID_DOMAIN'));
  assert.throws(() => authenticator.authenticate({ challenge: loginChallenge(), credentialId: att.credentialId, rpId: 'example.com' }),
    isKit('PASSKEY_INVALID_DOMAIN'));
  // A suffix that is not at a label boundary is no registrable suffix.
  const sub = new SoftAuthenticator('https://wallet.example.com');
  assert.throws(() => sub.register(registration({ rpId: 't.example.com' })), isKit('PASSKEY_INVALID_DOMAIN'));
});

test('errors: bad options → INVALID_INPUT naming the option (same validation as passkey.*)', () => {
  const authenticator = new SoftAuthenticator(ORIGIN);
  const cases = [
    [registration({ challenge: 'not base64url!' }), 'challenge'],
    [registration({ challenge: undefined }), 'challenge'],
    [registration({ user: { id: '', name: 'n' } }), 'user.id'],
    [registration({ user: { id: 'x'.repeat(65), name: 'n' } }), 'user.id'],
    [registration({ user: 'alice' }), 'user'],
    [registration({ timeoutMs: 0 }), 'timeoutMs'],
    [registration({ residentKey: 'always' }), 'residentKey'],
    [registration({ userVerification: 'sometimes' }), 'userVerification'],
    [registration({ attachment: 'usb' }), 'attachment'],
    [registration({ excludeCredentialIds: 'AAAA' }), 'excludeCredentialIds'],
    [registration({ excludeCredentialIds: ['not base64url!'] }), 'excludeCredentialIds'],
  ];
  for (const [options, field] of cases) {
    assert.throws(() => authenticator.register(options), isKit('INVALID_INPUT', field), `register ${JSON.stringify(options)}`);
  }
  assert.throws(() => authenticator.register('nope'), isKit('INVALID_INPUT'));
  assert.throws(() => authenticator.register(), isKit('INVALID_INPUT'));
  const authCases = [
    [{ credentialId: 'AAAA' }, 'challenge'],
    [{ challenge: loginChallenge() }, 'credentialId'],
    [{ challenge: loginChallenge(), credentialId: 'not base64url!' }, 'credentialId'],
    [{ challenge: loginChallenge(), credentialId: 'AAAA', timeoutMs: -1 }, 'timeoutMs'],
  ];
  for (const [options, field] of authCases) {
    assert.throws(() => authenticator.authenticate(options), isKit('INVALID_INPUT', field), `authenticate ${JSON.stringify(options)}`);
  }
  assert.throws(() => authenticator.authenticate(null), isKit('INVALID_INPUT'));
  for (const origin of ['localhost', 'ftp://localhost', 'http://', 'http://localhost/path', 'http://local host']) {
    assert.throws(() => new SoftAuthenticator(origin), isKit('INVALID_INPUT'), origin);
  }
});

test('free(): later calls throw INVALID_INPUT (not wasm-bindgen\'s null pointer); a second free() is a no-op', () => {
  const authenticator = new SoftAuthenticator(ORIGIN);
  const att = authenticator.register(registration());
  authenticator.free();
  assert.throws(() => authenticator.register(registration()), isKit('INVALID_INPUT', 'freed'));
  assert.throws(() => authenticator.authenticate({ challenge: loginChallenge(), credentialId: att.credentialId }),
    isKit('INVALID_INPUT', 'freed'));
  assert.doesNotThrow(() => authenticator.free());
  if (typeof Symbol.dispose === 'symbol') {
    const disposed = new SoftAuthenticator(ORIGIN);
    disposed[Symbol.dispose]();
    assert.throws(() => disposed.register(registration()), isKit('INVALID_INPUT', 'freed'));
  }
});

test('the browser file (pkg/testing.js) shares the class; its guard lets construction through once the module is loaded', async () => {
  // The Node entry instantiated the module, but the browser file tracks its own init():
  // before it, construction through it throws NOT_INITIALIZED.
  assert.throws(() => new browserTesting.SoftAuthenticator(ORIGIN), isKit('NOT_INITIALIZED', 'SoftAuthenticator'));
  // wasm-bindgen's loader sees the module already instantiated and does not fetch.
  await browserTesting.init();
  const a = new browserTesting.SoftAuthenticator(ORIGIN);
  assert.ok(a instanceof SoftAuthenticator);
  assert.ok(a.register(registration()).credentialId);
});

test('the browser file alone (no Node entry): NOT_INITIALIZED before init, a failed load rejects NOT_INITIALIZED and is retried', () => {
  // A fresh process, so the module is not instantiated yet. Node's fetch cannot read the
  // default file: URL, which exercises the failure path; then init(bytes) loads it.
  const script = `
    import assert from 'node:assert/strict';
    import { readFileSync } from 'node:fs';
    import { init, SoftAuthenticator, KitError } from './pkg/testing.js';
    const notInit = (e) => e instanceof KitError && e.code === 'NOT_INITIALIZED';
    assert.throws(() => new SoftAuthenticator('http://localhost'), notInit);
    await assert.rejects(init(), (e) => notInit(e) && e.cause !== undefined);
    assert.throws(() => new SoftAuthenticator('http://localhost'), notInit);
    const p = init({ module_or_path: readFileSync('./pkg/embedded_wallet_kit_testing_bg.wasm') });
    assert.equal(init(), p, 'one promise for concurrent callers');
    await p;
    const a = new SoftAuthenticator('http://localhost');
    const att = a.register({ challenge: 'AAAA', rpId: 'localhost', rpName: 'x', user: { id: 'u', name: 'n' } });
    assert.equal(a.authenticate({ challenge: 'c', credentialId: att.credentialId }).credentialId, att.credentialId);
    console.log('browser file ok');
  `;
  const root = new URL('../../', import.meta.url);
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: root, encoding: 'utf8' });
  assert.match(out, /browser file ok/);
});
