// The passkey namespace through the built package's Node entry (pkg/node.js), which
// loads the wallet module (the passkey API included) at import. Node has no WebAuthn: detection says so,
// ceremonies reject PASSKEY_UNSUPPORTED after validating their options (INVALID_INPUT
// first), and registrationBody works exactly as in the browser.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { init, passkey, KitError } from '../../pkg/node.js';

const b64u = (bytes) => Buffer.from(bytes).toString('base64url');

/** Asserts a KitError with `code` (sync or from a rejected promise). */
function isKit(code, field) {
  return (err) => {
    assert.ok(err instanceof KitError, `expected KitError ${code}, got ${err?.constructor?.name}: ${err?.message}`);
    assert.equal(err.name, 'KitError');
    assert.equal(err.code, code, `wrong code (message: ${err.message})`);
    if (field !== undefined) assert.ok(err.message.includes(field), `the message does not name ${field}: ${err.message}`);
    return true;
  };
}

const registration = (overrides = {}) => ({
  challenge: b64u(randomBytes(32)),
  rpId: 'example.com',
  rpName: 'Example',
  user: { id: 'user-1', name: 'alice@example.com', displayName: 'Alice' },
  ...overrides,
});
const attestation = () => ({
  credentialId: b64u(randomBytes(16)),
  clientDataJson: b64u(Buffer.from('{"type":"webauthn.create"}')),
  attestationObject: b64u(randomBytes(40)),
  transports: ['internal', 'hybrid'],
});

test('passkey: the namespace is there at once (no init needed), frozen, with the documented functions', async () => {
  assert.deepEqual(Object.keys(passkey).sort(), [
    'authenticate', 'cancel', 'clientCapabilities', 'conditionalMediationAvailable', 'isSupported',
    'platformAuthenticatorAvailable', 'register', 'registrationBody',
    'signalAllAcceptedCredentials', 'signalCurrentUserDetails', 'signalUnknownCredential',
  ]);
  assert.ok(Object.isFrozen(passkey));
  assert.equal(await init({ passkeys: true }), undefined);
});

test('passkey detection in Node: not supported, no platform authenticator, no conditional UI, capabilities unknown', async () => {
  assert.equal(passkey.isSupported(), false);
  assert.equal(await passkey.platformAuthenticatorAvailable(), false);
  assert.equal(await passkey.conditionalMediationAvailable(), false);
  assert.equal(await passkey.clientCapabilities(), undefined);
  assert.equal(passkey.cancel(), undefined, 'cancel() with nothing in flight is a no-op');
});

test('passkey.register / authenticate in Node reject PASSKEY_UNSUPPORTED for valid options', async () => {
  const p = passkey.register(registration());
  assert.ok(p instanceof Promise);
  await assert.rejects(p, isKit('PASSKEY_UNSUPPORTED'));
  await assert.rejects(passkey.authenticate({ challenge: 'a'.repeat(64), credentialId: b64u(randomBytes(16)) }),
    isKit('PASSKEY_UNSUPPORTED'));
});

test('passkey.register / authenticate: bad options reject INVALID_INPUT naming the field (before any WebAuthn check)', async () => {
  const cases = [
    [registration({ challenge: 'not base64url!' }), 'challenge'],
    // Padded or non-canonical: clientDataJSON would carry a different challenge string.
    [registration({ challenge: `${b64u(randomBytes(32))}=` }), 'challenge'],
    [registration({ challenge: 'AAECAw==' }), 'challenge'],
    [registration({ challenge: 'AAECAx' }), 'challenge'],
    [registration({ challenge: undefined }), 'challenge'],
    [registration({ user: { id: '', name: 'n' } }), 'user.id'],
    [registration({ user: { id: 'x'.repeat(65), name: 'n' } }), 'user.id'],
    [registration({ user: { id: 42, name: 'n' } }), 'user.id'],
    [registration({ user: 'alice' }), 'user'],
    [registration({ timeoutMs: 0 }), 'timeoutMs'],
    [registration({ timeoutMs: 600_001 }), 'timeoutMs'],
    [registration({ residentKey: 'always' }), 'residentKey'],
    [registration({ userVerification: 'sometimes' }), 'userVerification'],
    [registration({ attachment: 'usb' }), 'attachment'],
    [registration({ excludeCredentialIds: 'AAAA' }), 'excludeCredentialIds'],
    [registration({ excludeCredentialIds: ['not base64url!'] }), 'excludeCredentialIds'],
    [registration({ signal: {} }), 'signal'],
  ];
  for (const [options, field] of cases) {
    await assert.rejects(passkey.register(options), isKit('INVALID_INPUT', field), `register ${JSON.stringify(options)}`);
  }
  await assert.rejects(passkey.register('nope'), isKit('INVALID_INPUT'));
  await assert.rejects(passkey.register(), isKit('INVALID_INPUT'));
  const authCases = [
    [{ credentialId: 'AAAA' }, 'challenge'],
    [{ challenge: 'a'.repeat(64) }, 'credentialId'],
    [{ challenge: 'a'.repeat(64), credentialId: 'not base64url!' }, 'credentialId'],
    [{ challenge: 'a'.repeat(64), credentialId: 'AAAA', timeoutMs: -1 }, 'timeoutMs'],
  ];
  for (const [options, field] of authCases) {
    await assert.rejects(passkey.authenticate(options), isKit('INVALID_INPUT', field), `authenticate ${JSON.stringify(options)}`);
  }
});

test('passkey.register: an already aborted signal rejects PASSKEY_CANCELLED or PASSKEY_UNSUPPORTED, never hangs', async () => {
  // No WebAuthn in Node: the support check comes first, so this is PASSKEY_UNSUPPORTED.
  await assert.rejects(passkey.register({ ...registration(), signal: AbortSignal.abort() }), (err) => {
    assert.ok(err instanceof KitError);
    assert.ok(['PASSKEY_CANCELLED', 'PASSKEY_UNSUPPORTED'].includes(err.code), err.code);
    return true;
  });
});

test('passkey.registrationBody: builds exactly {accountId, nickname, challenge, attestation}', () => {
  const att = attestation();
  const challenge = b64u(randomBytes(32));
  const body = passkey.registrationBody('InternalAccount:9f1c', 'My laptop', challenge, { ...att, extra: 'dropped' });
  assert.deepEqual(body, { accountId: 'InternalAccount:9f1c', nickname: 'My laptop', challenge, attestation: att });
  assert.deepEqual(Object.keys(body), ['accountId', 'nickname', 'challenge', 'attestation']);
  assert.deepEqual(Object.keys(body.attestation), ['credentialId', 'clientDataJson', 'attestationObject', 'transports']);
  assert.equal(JSON.stringify(body), JSON.stringify({ accountId: 'InternalAccount:9f1c', nickname: 'My laptop', challenge, attestation: att }));
});

test('passkey.registrationBody: nickname 1–100 characters (0 and 101 → INVALID_INPUT, 1 and 100 ok)', () => {
  const att = attestation();
  const challenge = b64u(randomBytes(32));
  assert.throws(() => passkey.registrationBody('InternalAccount:1', '', challenge, att), isKit('INVALID_INPUT', 'nickname'));
  assert.throws(() => passkey.registrationBody('InternalAccount:1', 'n'.repeat(101), challenge, att), isKit('INVALID_INPUT', 'nickname'));
  assert.equal(passkey.registrationBody('InternalAccount:1', 'n'.repeat(100), challenge, att).nickname, 'n'.repeat(100));
  assert.equal(passkey.registrationBody('InternalAccount:1', 'é'.repeat(100), challenge, att).nickname, 'é'.repeat(100));
  assert.equal(passkey.registrationBody('InternalAccount:1', 'n', challenge, att).nickname, 'n');
  assert.throws(() => passkey.registrationBody('InternalAccount:1', '   ', challenge, att), isKit('INVALID_INPUT', 'nickname'));
});

test('passkey.registrationBody: other bad arguments → INVALID_INPUT', () => {
  const att = attestation();
  const challenge = b64u(randomBytes(32));
  const bad = [
    [['', 'nick', challenge, att], 'accountId'],
    [[42, 'nick', challenge, att], 'accountId'],
    [['InternalAccount:1', 7, challenge, att], 'nickname'],
    [['InternalAccount:1', 'nick', 'not base64url!', att], 'challenge'],
    [['InternalAccount:1', 'nick', '', att], 'challenge'],
    [['InternalAccount:1', 'nick', `${challenge}=`, att], 'challenge'],
    [['InternalAccount:1', 'nick', 'AAECAw==', att], 'challenge'],
    [['InternalAccount:1', 'nick', challenge, null], 'attestation'],
    [['InternalAccount:1', 'nick', challenge, { ...att, credentialId: undefined }], 'attestation.credentialId'],
    [['InternalAccount:1', 'nick', challenge, { ...att, clientDataJson: 'a+b/' }], 'attestation.clientDataJson'],
    [['InternalAccount:1', 'nick', challenge, { ...att, transports: [1] }], 'attestation.transports'],
  ];
  for (const [args, field] of bad) {
    assert.throws(() => passkey.registrationBody(...args), isKit('INVALID_INPUT', field), JSON.stringify(args));
  }
});

test('passkey signals in Node (no WebAuthn): signaled false with the reason; bad options are INVALID_INPUT naming them; rpId required outside a page', async () => {
  const id = 'AAECAwQFBgcICQoLDA0ODw';
  const result = await passkey.signalUnknownCredential({ credentialId: id, rpId: 'example.com' });
  assert.equal(result.signaled, false);
  assert.match(result.reason, /no PublicKeyCredential/);
  for (const [call, message] of [
    [() => passkey.signalUnknownCredential({ credentialId: 'not base64url!', rpId: 'example.com' }), /credentialId/],
    [() => passkey.signalUnknownCredential({ credentialId: id }), /rpId is required/],
    [() => passkey.signalAllAcceptedCredentials({ userId: 'u', allAcceptedCredentialIds: 'x', rpId: 'example.com' }), /allAcceptedCredentialIds/],
    [() => passkey.signalCurrentUserDetails({ userId: 'u', name: '', rpId: 'example.com' }), /name/],
    [() => passkey.signalCurrentUserDetails(null), /options must be an object/],
  ]) {
    await assert.rejects(call(), (err) => err instanceof KitError && err.code === 'INVALID_INPUT' && message.test(err.message));
  }
});
