// WalletClient (pkg/node.js) driven through a fake transport — every flow, the signed-retry
// loop (202s, repeated 202s, an expired 202 restarted once), typed service errors (401
// reason, 429 Retry-After), failing and malformed transports — then end to end against
// the strict emulator (real crypto; target/release/emulator, built if missing), with a
// SoftAuthenticator for the passkey ceremonies.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID, randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { init, ClientKey, Session, KitError, WalletClient, openWalletExport } from '../../pkg/node.js';
import { SoftAuthenticator } from '../../pkg/testing-node.js';
import { startEmulator, emulatorApi } from '../support/emulator.mjs';
import {
  sessionResponse, iso, randomScalar, compressedPublicKeyHex, sealBundle, checkStamp,
} from '../support/fixtures.mjs';
import { sha256 } from '@noble/hashes/sha2.js';

await init();

const CRED = `AuthMethod:${randomUUID()}`;
const ACCOUNT = `InternalAccount:${randomUUID()}`;

/** Rejects with a KitError of `code`; returns it. */
async function rejectsKit(promise, code) {
  let thrown;
  try {
    await promise;
  } catch (err) {
    thrown = err;
  }
  assert.ok(thrown instanceof KitError, `expected KitError ${code}, got ${thrown?.constructor?.name}: ${thrown?.message ?? thrown}`);
  assert.equal(thrown.code, code, `wrong code (message: ${thrown.message})`);
  assert.ok(thrown.message.length > 0);
  return thrown;
}

/** A fake service: `answer(request, n)` gives each response; every request is recorded. */
function fake(answer) {
  const sent = [];
  const transport = async (request) => {
    sent.push(structuredClone(request));
    return answer(request, sent.length - 1);
  };
  return { sent, transport, client: new WalletClient({ transport }) };
}

const json = (status, body, headers = {}) => ({ status, headers, body: JSON.stringify(body) });
const pending = ({ payload = JSON.stringify({ n: randomUUID() }), expiresAt = iso(60_000) } = {}) =>
  ({ payloadToSign: payload, requestId: `Request:${randomUUID()}`, expiresAt });
/** An object with the class's prototype and an own truthy `__wbg_ptr`, but no wasm handle. */
const forged = (cls) => Object.defineProperty(Object.create(cls.prototype), '__wbg_ptr', { value: true });
const bodyOf = (request) => (request.body === undefined ? undefined : JSON.parse(request.body));

/** An independent OIDC nonce: hex SHA-256 of the exact string (noble, not the kit). */
const nonceOf = (text) => Buffer.from(sha256(Buffer.from(text, 'utf8'))).toString('hex');

/** A real session (sealed to a fresh key), with the scalar's public key to check stamps. */
function realSession(credentialId, { expiresAt } = {}) {
  const scalar = randomScalar();
  const key = ClientKey.generate();
  const response = sessionResponse({ bundle: sealBundle(scalar, key.publicKeyHex), expiresAt });
  const client = new WalletClient({ transport: () => json(200, response) });
  return { key, publicKey: compressedPublicKeyHex(scalar), open: () => client.verifyEmailOtp(credentialId ?? CRED, '123456', key) };
}

describe('WalletClient with a fake transport', () => {
  test('construction: a transport is required; bad options are INVALID_INPUT', () => {
    for (const options of [undefined, {}, { transport: 'fetch' }, { transport: () => {}, passkey: 1 }]) {
      assert.throws(() => new WalletClient(options), (e) => e instanceof KitError && e.code === 'INVALID_INPUT');
    }
    assert.throws(() => new WalletClient({}), /options\.transport must be a function/);
  });

  test("key modes: 'sealed' (default) or 'client-held'; anything else is INVALID_INPUT naming both", () => {
    const transport = () => json(200, {});
    assert.equal(new WalletClient({ transport }).keys, 'sealed');
    assert.equal(new WalletClient({ transport, keys: 'sealed' }).keys, 'sealed');
    assert.equal(new WalletClient({ transport, keys: 'client-held' }).keys, 'client-held');
    for (const keys of ['compressed', 'clientHeld', '', null, true, 1]) {
      assert.throws(() => new WalletClient({ transport, keys }),
        (e) => e instanceof KitError && e.code === 'INVALID_INPUT' && /options\.keys must be 'sealed' or 'client-held'/.test(e.message), String(keys));
    }
    for (const otpSignerPin of ['', 5, {}]) {
      assert.throws(() => new WalletClient({ transport, otpSignerPin }), (e) => e.code === 'INVALID_INPUT' && /otpSignerPin/.test(e.message));
    }
  });

  test('client-held: PASSKEY challenge, OAUTH verify and refresh send the compressed key and open without a bundle; a bundle is refused', async () => {
    const sent = [];
    let answer;
    const client = new WalletClient({
      keys: 'client-held',
      transport: (req) => { sent.push(req); return answer(req, sent.length - 1); },
      passkey: { authenticate: () => ({ credentialId: 'AQID', clientDataJson: 'e30', authenticatorData: 'BA', signature: 'BQ' }) },
    });
    const challenge = { credentialId: 'AQID', challenge: 'ab', requestId: `Request:${randomUUID()}`, expiresAt: iso(60_000) };
    // PASSKEY: the key bound at the challenge is compressed; the verify's session is that key.
    const key = ClientKey.generate();
    answer = (req, n) => (n === 0 ? json(200, challenge) : json(200, sessionResponse({ omitBundle: true, type: 'PASSKEY' })));
    const passkeySession = await client.loginWithPasskey(CRED, { key });
    assert.equal(bodyOf(sent[0]).clientPublicKey, key.compressedPublicKeyHex);
    assert.equal(passkeySession.publicKeyHex, key.compressedPublicKeyHex);
    assert.equal(key.consumed, true);
    // OAUTH: the compressed key, and the nonce over that string.
    const oauthKey = ClientKey.generate();
    assert.equal(client.oidcNonce(oauthKey), nonceOf(oauthKey.compressedPublicKeyHex));
    assert.notEqual(client.oidcNonce(oauthKey), oauthKey.oidcNonce());
    answer = () => json(200, sessionResponse({ omitBundle: true, type: 'OAUTH' }));
    const oauth = await client.verifyOauth(CRED, 'h.p.s', oauthKey);
    assert.deepEqual(bodyOf(sent.at(-1)), { type: 'OAUTH', oidcToken: 'h.p.s', clientPublicKey: oauthKey.compressedPublicKeyHex });
    assert.equal(oauth.publicKeyHex, oauthKey.compressedPublicKeyHex);
    // Refresh: the compressed new key; the payload must name it; the new session is it.
    let first;
    answer = (req) => {
      if (req.headers['Request-Id'] === undefined) {
        first = pending({ payload: JSON.stringify({ parameters: { targetPublicKey: bodyOf(req).clientPublicKey } }) });
        return json(202, first);
      }
      return json(201, sessionResponse({ omitBundle: true, type: 'OAUTH' }));
    };
    const from = sent.length;
    const next = await client.refresh(oauth);
    const target = bodyOf(sent[from]).clientPublicKey;
    assert.match(target, /^0[23][0-9a-f]{64}$/);
    assert.equal(next.publicKeyHex, target);
    assert.ok(checkStamp(sent[from + 1].headers['Service-Wallet-Signature'], first.payloadToSign, oauth.publicKeyHex).ok);
    // A client-held response that carries a bundle is refused (the key must not be trusted).
    answer = () => json(200, sessionResponse({ bundle: sealBundle(randomScalar(), ClientKey.generate().publicKeyHex), type: 'OAUTH' }));
    const refused = ClientKey.generate();
    await rejectsKit(client.verifyOauth(CRED, 'h.p.s', refused), 'INVALID_SESSION');
    assert.equal(refused.consumed, false);
    // No target bundle known: the OTP verify is refused before anything is sent (never the
    // plaintext code); the key is left unconsumed. Export stays uncompressed.
    const otpKey = ClientKey.generate();
    const before = sent.length;
    const noTarget = await rejectsKit(client.verifyEmailOtp(CRED, '123456', otpKey), 'INVALID_INPUT');
    assert.match(noTarget.message, /call challenge\(\) first/);
    assert.doesNotMatch(noTarget.message, /123456/);
    assert.equal(sent.length, before, 'nothing sent');
    assert.equal(otpKey.consumed, false);
    const exportKey = ClientKey.generate();
    answer = (req) => (req.headers['Request-Id'] === undefined ? json(202, pending()) : json(200, { ok: true }));
    await client.exportWallet(next, ACCOUNT, exportKey);
    assert.equal(bodyOf(sent.at(-1)).clientPublicKey, exportKey.publicKeyHex);
    // In sealed mode an explicit target bundle is refused: it would make the key the session key.
    await rejectsKit(new WalletClient({ transport: () => json(200, {}) }).verifyEmailOtp(CRED, '1', undefined, { otpEncryptionTargetBundle: '{}' }), 'INVALID_INPUT');
    // Sealed mode: the nonce is the key's own (over the uncompressed string). A used key
    // gets none: no verify could send it any more.
    const fresh = ClientKey.generate();
    const sealedClient = new WalletClient({ transport: () => json(200, {}) });
    assert.equal(sealedClient.oidcNonce(fresh), nonceOf(fresh.publicKeyHex));
    assert.equal(sealedClient.oidcNonce(fresh), fresh.oidcNonce());
    assert.throws(() => sealedClient.oidcNonce(oauthKey), (err) => err instanceof KitError && err.code === 'KEY_CONSUMED');
  });

  test('a freed or expired session is refused before any request (SESSION_CLOSED / SESSION_EXPIRED), in every method', async () => {
    let calls = 0;
    let ceremonies = 0;
    const client = new WalletClient({
      transport: () => { calls++; return json(200, {}); },
      passkey: { register: () => { ceremonies++; return {}; } },
    });
    const q = { id: `Quote:${randomUUID()}`, payloadToSign: '{}', expiresAt: iso(60_000) };
    const uses = [
      ['createEmailOtp', (s) => client.createEmailOtp(ACCOUNT, s)],
      ['addCredential', (s) => client.addCredential(s, { type: 'EMAIL_OTP', accountId: ACCOUNT })],
      ['registerPasskey', (s) => client.registerPasskey({ accountId: ACCOUNT, nickname: 'n', challenge: 'c', rpId: 'localhost', rpName: 'r', user: { id: 'u', name: 'n' } }, s)],
      ['refresh', (s) => client.refresh(s)],
      ['revokeCredential', (s) => client.revokeCredential(s, `AuthMethod:${randomUUID()}`)],
      ['exportWallet', (s) => client.exportWallet(s, ACCOUNT, ClientKey.generate())],
      ['updateAccount', (s) => client.updateAccount(s, ACCOUNT, {})],
      ['updateCustomer', (s) => client.updateCustomer(s, `Customer:${randomUUID()}`, { email: 'a@example.com' })],
      ['executeQuote', (s) => client.executeQuote(s, q)],
      ['request', (s) => client.request({ method: 'GET', path: '/x' }, s)],
      ['revokeSession', (s) => client.revokeSession(s)],
    ];
    const expiring = await realSession(CRED, { expiresAt: iso(150) }).open();
    const expiringSandbox = Session.sandbox(sessionResponse({ expiresAt: iso(150) }));
    await sleep(200);
    for (const [name, use] of uses) {
      const freed = await realSession().open();
      freed.free();
      const freedSandbox = Session.sandbox(sessionResponse());
      freedSandbox.free();
      for (const session of [freed, freedSandbox]) {
        const err = await rejectsKit(use(session), 'SESSION_CLOSED');
        assert.match(err.message, /nothing was sent/, name);
      }
      for (const session of [expiring, expiringSandbox]) {
        if (name === 'revokeSession') continue; // frees them: run last, below
        await rejectsKit(use(session), 'SESSION_EXPIRED');
      }
    }
    await rejectsKit(client.revokeSession(expiring), 'SESSION_EXPIRED');
    assert.throws(() => expiring.stamp('x'), (e) => e.code === 'SESSION_CLOSED', 'revokeSession freed the expired session');
    assert.equal(calls, 0, 'the transport was never called');
    assert.equal(ceremonies, 0, 'no passkey ceremony was started');
  });

  test('updateCustomer: PATCH /customers/{id} with { email } or { phoneNumber } as a signed retry; anything else is INVALID_INPUT, nothing sent', async () => {
    const customer = `Customer:${randomUUID()}`;
    const { sent, transport } = fake((req) => (req.headers['Request-Id'] === undefined ? json(202, pending()) : json(200, { id: customer, email: 'new@example.com' })));
    const client = new WalletClient({ transport });
    const session = await realSession().open();
    for (const change of [undefined, null, 'email', {}, { email: 'a@b.co', phoneNumber: '+15550100' }, { nickname: 'x' }, { email: '' }, { phoneNumber: 15550100 }]) {
      const err = await rejectsKit(client.updateCustomer(session, customer, change), 'INVALID_INPUT');
      assert.match(err.message, /email|phoneNumber/, JSON.stringify(change));
    }
    await rejectsKit(client.updateCustomer(session, 'InternalAccount:1', { email: 'a@b.co' }), 'INVALID_INPUT');
    await rejectsKit(client.updateCustomer(session, '', { email: 'a@b.co' }), 'INVALID_INPUT');
    assert.equal(sent.length, 0, 'nothing sent');
    const updated = await client.updateCustomer(session, customer, { email: 'new@example.com' });
    assert.equal(updated.email, 'new@example.com');
    assert.deepEqual(sent.map((r) => `${r.method} ${r.path}`), [`PATCH /customers/${customer}`, `PATCH /customers/${customer}`]);
    assert.equal(sent[0].body, '{"email":"new@example.com"}');
    assert.equal(sent[1].body, sent[0].body, 'the retry repeats the body');
    assert.ok(sent[1].headers['Service-Wallet-Signature']);
  });

  test('revokeSession frees the session whatever happens: a throwing transport, a refusal', async () => {
    for (const transport of [() => { throw new Error('offline'); }, () => json(401, { code: 'UNAUTHORIZED', reason: 'Session revoked' })]) {
      const session = await realSession().open();
      await assert.rejects(new WalletClient({ transport }).revokeSession(session), (e) => e instanceof KitError);
      assert.throws(() => session.stamp('x'), (e) => e.code === 'SESSION_CLOSED');
      assert.equal(session.publicKeyHex, undefined);
    }
  });

  test('createEmailOtp: POST /auth/credentials with the exact body; the 201 body is returned (text or object)', async () => {
    const created = { id: CRED, type: 'EMAIL_OTP', accountId: ACCOUNT };
    const { sent, client } = fake(() => json(201, created));
    assert.deepEqual(await client.createEmailOtp(ACCOUNT), created);
    assert.deepEqual(sent, [{
      method: 'POST', path: '/auth/credentials', headers: {},
      body: `{"type":"EMAIL_OTP","accountId":"${ACCOUNT}"}`,
    }]);
    const asObject = new WalletClient({ transport: () => ({ status: 201, body: created }) });
    assert.deepEqual(await asObject.createEmailOtp(ACCOUNT), created);
  });

  test('a 202 without a session is SERVICE_ERROR naming the need; with a session it is a signed retry', async () => {
    const { client } = fake(() => json(202, pending()));
    const err = await rejectsKit(client.createEmailOtp(ACCOUNT), 'SERVICE_ERROR');
    assert.match(err.message, /needs a session/);

    const s = realSession();
    const session = await s.open();
    const first = pending();
    const { sent, client: signed } = fake((req, n) => (n === 0 ? json(202, first) : json(201, { id: CRED })));
    assert.deepEqual(await signed.createEmailOtp(ACCOUNT, session), { id: CRED });
    assert.equal(sent.length, 2);
    assert.equal(sent[1].body, sent[0].body, 'the retry repeats the body bytes');
    assert.equal(sent[1].headers['Request-Id'], first.requestId);
    assert.ok(checkStamp(sent[1].headers['Service-Wallet-Signature'], first.payloadToSign, s.publicKey).ok);
  });

  test('verifyEmailOtp: real bundle sealed to the clientPublicKey sent; a fresh key is made and consumed', async () => {
    const scalar = randomScalar();
    const { sent, client } = fake((req) => json(200, sessionResponse({ bundle: sealBundle(scalar, bodyOf(req).clientPublicKey) })));
    const session = await client.verifyEmailOtp(CRED, '123456');
    assert.ok(session instanceof Session);
    assert.equal(session.publicKeyHex, compressedPublicKeyHex(scalar));
    assert.equal(sent[0].path, `/auth/credentials/${CRED}/verify`);
    const body = bodyOf(sent[0]);
    assert.deepEqual(Object.keys(body), ['type', 'otp', 'clientPublicKey']);
    assert.equal(body.otp, '123456');
    assert.match(body.clientPublicKey, /^04[0-9a-f]{128}$/);
    // With the caller's key: that key is the one sent, and it is consumed.
    const key = ClientKey.generate();
    const mine = fake(() => json(200, sessionResponse({ bundle: sealBundle(scalar, key.publicKeyHex) })));
    await mine.client.verifyEmailOtp(CRED, '654321', key);
    assert.equal(bodyOf(mine.sent[0]).clientPublicKey, key.publicKeyHex);
    assert.equal(key.consumed, true);
  });

  test('a 401 is UNAUTHORIZED with the reason; a failed verify leaves the caller key usable', async () => {
    const key = ClientKey.generate();
    const { client } = fake(() => json(401, { code: 'UNAUTHORIZED', reason: 'Invalid OTP code' }));
    const err = await rejectsKit(client.verifyEmailOtp(CRED, '000000', key), 'UNAUTHORIZED');
    assert.equal(err.reason, 'Invalid OTP code');
    assert.equal(err.status, 401);
    assert.match(err.message, /Invalid OTP code/);
    assert.equal(key.consumed, false);
  });

  test('a 429 is RATE_LIMITED with Retry-After in ms (plain headers and fetch Headers)', async () => {
    for (const headers of [{ 'Retry-After': '7' }, new Headers({ 'retry-after': '7' })]) {
      const { client } = fake(() => ({ status: 429, headers, body: '{"code":"RATE_LIMITED"}' }));
      const err = await rejectsKit(client.challenge(CRED), 'RATE_LIMITED');
      assert.equal(err.retryAfterMs, 7000);
      assert.match(err.message, /7 s/);
    }
  });

  test('other answers are SERVICE_ERROR with the service code; a non-JSON body is not read', async () => {
    let { client } = fake(() => json(400, { code: 'EMAIL_OTP_CREDENTIAL_ALREADY_EXISTS', message: 'exists' }));
    let err = await rejectsKit(client.createEmailOtp(ACCOUNT), 'SERVICE_ERROR');
    assert.equal(err.serviceCode, 'EMAIL_OTP_CREDENTIAL_ALREADY_EXISTS');
    ({ client } = fake(() => ({ status: 502, headers: {}, body: '<html>bad gateway</html>' })));
    err = await rejectsKit(client.createEmailOtp(ACCOUNT), 'SERVICE_ERROR');
    assert.equal(err.message, 'the service answered 502');
  });

  test('repeated 202s are each signed (same body, fresh Request-Id); the loop is bounded', async () => {
    const s = realSession();
    const session = await s.open();
    const issued = [];
    const { sent, client } = fake((req, n) => {
      if (n < 3) {
        issued.push(pending());
        return json(202, issued.at(-1));
      }
      return json(200, { id: ACCOUNT, privacyEnabled: true });
    });
    assert.deepEqual(await client.updateAccount(session, ACCOUNT, { privacyEnabled: true }), { id: ACCOUNT, privacyEnabled: true });
    assert.deepEqual(sent.map((r) => [r.method, r.path]), Array(4).fill(['PATCH', `/internal-accounts/${ACCOUNT}`]));
    assert.ok(sent.every((r) => r.body === '{"privacyEnabled":true}'));
    assert.equal(sent[0].headers['Request-Id'], undefined);
    for (let i = 1; i < 4; i++) {
      assert.equal(sent[i].headers['Request-Id'], issued[i - 1].requestId);
      assert.ok(checkStamp(sent[i].headers['Service-Wallet-Signature'], issued[i - 1].payloadToSign, s.publicKey).ok, `leg ${i}`);
    }
    const endless = fake(() => json(202, pending()));
    const err = await rejectsKit(endless.client.updateAccount(session, ACCOUNT, '{}'), 'SERVICE_ERROR');
    assert.match(err.message, /more than 8 signatures/);
    assert.equal(endless.sent.length, 9);
  });

  test('an expired 202 restarts the request once (unsigned), then signs the fresh one; twice → REQUEST_EXPIRED', async () => {
    const session = await realSession().open();
    const { sent, client } = fake((req, n) => {
      if (n === 0) return json(202, pending({ expiresAt: iso(-1000) }));
      if (n === 1) return json(202, pending());
      return { status: 204, headers: {} };
    });
    await client.revokeCredential(session, `AuthMethod:${randomUUID()}`);
    assert.deepEqual(sent.map((r) => r.headers['Request-Id'] !== undefined), [false, false, true]);
    const twice = fake(() => json(202, pending({ expiresAt: iso(-1000) })));
    await rejectsKit(twice.client.revokeSession(session), 'REQUEST_EXPIRED');
    assert.equal(twice.sent.length, 2);
  });

  test('transport failures: a throw or rejection is SERVICE_ERROR with the cause; a KitError passes through', async () => {
    const boom = new TypeError('fetch failed');
    for (const transport of [() => { throw boom; }, () => Promise.reject(boom)]) {
      const err = await rejectsKit(new WalletClient({ transport }).challenge(CRED), 'SERVICE_ERROR');
      assert.equal(err.cause, boom);
      assert.match(err.message, new RegExp(`POST /auth/credentials/${CRED}/challenge`));
    }
    const own = new KitError('RATE_LIMITED', 'backend queue full');
    const err = await rejectsKit(new WalletClient({ transport: () => { throw own; } }).challenge(CRED), 'RATE_LIMITED');
    assert.equal(err, own);
  });

  test('malformed responses are SERVICE_ERROR, never another error type', async () => {
    for (const response of [undefined, null, 42, 'ok', {}, { status: '200' }, { status: 200.5 }, { status: 700 }, { status: NaN }]) {
      const client = new WalletClient({ transport: () => response });
      await rejectsKit(client.challenge(CRED), 'SERVICE_ERROR');
    }
    // A verify answered 200 without a JSON body cannot open a session.
    const client = new WalletClient({ transport: () => ({ status: 200, body: 'not json' }) });
    await rejectsKit(client.verifyEmailOtp(CRED, '1'), 'INVALID_SESSION');
  });

  test('bad arguments are INVALID_INPUT naming them, before any request', async () => {
    const { sent, client } = fake(() => json(200, {}));
    const session = Session.sandbox(sessionResponse());
    const cases = [
      [() => client.createEmailOtp(42), /accountId/],
      [() => client.createEmailOtp(ACCOUNT, {}), /session must be a Session/],
      [() => client.verifyEmailOtp(CRED, ''), /otp/],
      [() => client.verifyEmailOtp('../quotes', '1'), /credential id is not of the form AuthMethod:<uuid>/],
      [() => client.verifyOauth(CRED, 'a.b.c'), /key must be a ClientKey/],
      [() => client.revokeSession({}), /session must be a Session/],
      [() => client.revokeSession(Object.create(Session.prototype)), /session must be a Session/],
      [() => client.verifyEmailOtp(CRED, '1', Object.create(ClientKey.prototype)), /key must be a ClientKey/],
      // A prototype object given an own `__wbg_ptr` is not a handle either.
      [() => client.revokeSession(forged(Session)), /session must be a Session/],
      [() => client.refresh(forged(Session)), /session must be a Session/],
      [() => client.verifyEmailOtp(CRED, '1', forged(ClientKey)), /key must be a ClientKey/],
      [() => client.verifyOauth(CRED, 'a.b.c', forged(ClientKey)), /key must be a ClientKey/],
      [() => client.revokeCredential(session, `AuthMethod:${randomUUID()}/x`), /credential id/],
      [() => client.exportWallet(session, 'Session:1', ClientKey.generate()), /account id/],
      [() => client.addCredential(session, 7), /body must be an object or its JSON text/],
      [() => client.updateAccount(session, ACCOUNT, ''), /patch is required/],
      [() => client.executeQuote(session, { id: 'Quote:x' }), /quote/],
      [() => client.executeQuote(session, {}, { attempts: 0 }), /attempts/],
      [() => client.request({ method: 'GET' }), /request\.path/],
      [() => client.loginWithPasskey(CRED, { rpId: 5 }), /rpId/],
      [() => client.registerPasskey({ accountId: ACCOUNT }), /nickname/],
    ];
    for (const [call, message] of cases) {
      const err = await rejectsKit(call(), 'INVALID_INPUT');
      assert.match(err.message, message);
    }
    assert.equal(sent.length, 0, 'nothing was sent');
    const used = ClientKey.generate();
    used.free();
    await rejectsKit(client.verifyEmailOtp(CRED, '1', used), 'KEY_CONSUMED');
    assert.equal(sent.length, 0);
  });

  test('verifyOauth sends the token with the key whose nonce it carries', async () => {
    const key = ClientKey.generate();
    const scalar = randomScalar();
    const { sent, client } = fake(() => json(200, sessionResponse({ bundle: sealBundle(scalar, key.publicKeyHex), type: 'OAUTH' })));
    const session = await client.verifyOauth(CRED, 'h.p.s', key);
    assert.equal(session.type, 'OAUTH');
    assert.deepEqual(bodyOf(sent[0]), { type: 'OAUTH', oidcToken: 'h.p.s', clientPublicKey: key.publicKeyHex });
  });

  test('loginWithPasskey: challenge bound to the key → authenticate the challenge → verify with Request-Id', async () => {
    const scalar = randomScalar();
    const requestId = `Request:${randomUUID()}`;
    const challenge = randomBytes(32).toString('hex');
    let seen;
    const assertion = { credentialId: 'AQID', clientDataJson: 'e30', authenticatorData: 'BA', signature: 'BQ' };
    const sent = [];
    let bound;
    const client = new WalletClient({
      transport: (req) => {
        sent.push(req);
        if (req.path.endsWith('/challenge')) {
          bound = bodyOf(req).clientPublicKey;
          return json(200, { credentialId: 'AQID', challenge, requestId, expiresAt: iso(60_000) });
        }
        return json(200, sessionResponse({ bundle: sealBundle(scalar, bound), type: 'PASSKEY' }));
      },
      passkey: { authenticate: async (options) => { seen = options; return assertion; } },
    });
    const session = await client.loginWithPasskey(CRED, { rpId: 'localhost', timeoutMs: 5000 });
    assert.equal(session.publicKeyHex, compressedPublicKeyHex(scalar));
    assert.deepEqual(seen, { timeoutMs: 5000, challenge, credentialId: 'AQID', rpId: 'localhost' });
    assert.match(bound, /^04[0-9a-f]{128}$/);
    assert.equal(sent[1].path, `/auth/credentials/${CRED}/verify`);
    assert.equal(sent[1].headers['Request-Id'], requestId);
    assert.deepEqual(bodyOf(sent[1]), { type: 'PASSKEY', assertion });
    // A ceremony failure that is not a KitError becomes PASSKEY_FAILED with the cause.
    const failing = new WalletClient({
      transport: () => json(200, { credentialId: 'AQID', challenge, requestId, expiresAt: iso(60_000) }),
      passkey: { authenticate: () => { throw new Error('no authenticator'); } },
    });
    const err = await rejectsKit(failing.loginWithPasskey(CRED), 'PASSKEY_FAILED');
    assert.equal(err.cause.message, 'no authenticator');
    // A challenge response without a requestId is the service's fault.
    const broken = new WalletClient({ transport: () => json(200, { credentialId: 'AQID', challenge }), passkey: { authenticate: () => assertion } });
    await rejectsKit(broken.loginWithPasskey(CRED), 'SERVICE_ERROR');
  });

  test('refresh: signed by the old session only when the payload names the new key; the new bundle opens', async () => {
    const s = realSession(CRED);
    const old = await s.open();
    const scalar = randomScalar();
    let first;
    const { sent, client } = fake((req, n) => {
      const target = bodyOf(req).clientPublicKey;
      if (n === 0) {
        first = pending({ payload: JSON.stringify({ parameters: { targetPublicKey: target }, type: 'ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION_V2' }) });
        return json(202, first);
      }
      return json(201, sessionResponse({ bundle: sealBundle(scalar, target) }));
    });
    const next = await client.refresh(old);
    assert.equal(next.publicKeyHex, compressedPublicKeyHex(scalar));
    assert.equal(sent[0].path, `/auth/sessions/${old.id}/refresh`);
    assert.ok(checkStamp(sent[1].headers['Service-Wallet-Signature'], first.payloadToSign, s.publicKey).ok);
    assert.equal(old.isExpired(), false, 'the old session stays open');
    // The refreshed session still knows its credential: it may not revoke it.
    const err = await rejectsKit(client.revokeCredential(next, CRED), 'INVALID_INPUT');
    assert.match(err.message, /cannot be revoked with a session it issued/);

    const other = ClientKey.generate().publicKeyHex;
    const hostile = fake(() => json(202, pending({ payload: JSON.stringify({ parameters: { targetPublicKey: other } }) })));
    await rejectsKit(hostile.client.refresh(next), 'INVALID_PENDING_SIGNATURE');
    assert.equal(hostile.sent.length, 1, 'nothing was signed or retried');
  });

  test('refresh: the new key beside another in other letter case, or a payload that cannot be read, is not signed', async () => {
    const session = await realSession(CRED).open();
    const other = ClientKey.generate().publicKeyHex;
    for (const [payloadOf, words] of [
      // Go's encoding/json reads the last member matching `targetPublicKey` in any case.
      [(target) => JSON.stringify({ parameters: { targetPublicKey: target, TargetPublicKey: other } }), /letter case/],
      [() => JSON.stringify({ parameters: { TARGETPUBLICKEY: other } }), /other than the new ClientKey/],
      [(target) => Buffer.from(JSON.stringify({ targetPublicKey: target })).toString('base64'), /not a JSON object/],
      [(target) => JSON.stringify([{ targetPublicKey: target }]), /not a JSON object/],
      [(target) => `{"parameters":{"targetPublicKey":"${target}"}`, /not valid JSON/],
    ]) {
      const { sent, client } = fake((req) => json(202, pending({ payload: payloadOf(bodyOf(req).clientPublicKey) })));
      const err = await rejectsKit(client.refresh(session), 'INVALID_PENDING_SIGNATURE');
      assert.match(err.message, words);
      assert.equal(sent.length, 1, 'nothing was signed or retried');
    }
    // The new key under another letter case alone is the new key.
    const { sent, client } = fake((req, n) => {
      const target = bodyOf(req).clientPublicKey;
      return n === 0
        ? json(202, pending({ payload: JSON.stringify({ parameters: { TargetPublicKey: target } }) }))
        : json(201, sessionResponse({ bundle: sealBundle(randomScalar(), target) }));
    });
    await client.refresh(session);
    assert.ok(sent[1].headers['Service-Wallet-Signature']);
  });

  test('revokeCredential with the issuing credential is refused locally; revokeSession frees the session', async () => {
    const { sent, client } = fake((req, n) => (n % 2 === 0 ? json(202, pending()) : { status: 204 }));
    const session = await realSession(CRED).open();
    await rejectsKit(client.revokeCredential(session, CRED), 'INVALID_INPUT');
    assert.equal(sent.length, 0);
    await client.revokeCredential(session, `AuthMethod:${randomUUID()}`);
    assert.equal(sent[1].method, 'DELETE');
    assert.equal(await client.revokeSession(session), undefined);
    assert.equal(sent[2].path, `/auth/sessions/${session.id}`);
    assert.throws(() => session.stamp('x'), (e) => e.code === 'SESSION_CLOSED');
  });

  test('executeQuote: one Idempotency-Key across retries after transport failures; signed quote; no Request-Id', async () => {
    const s = realSession();
    const session = await s.open();
    const q = { id: `Quote:${randomUUID()}`, payloadToSign: JSON.stringify({ q: randomUUID() }), expiresAt: iso(60_000) };
    const sent = [];
    const client = new WalletClient({
      transport: (req) => {
        sent.push(req);
        if (sent.length < 3) throw new Error('connection reset');
        return json(200, { id: `Transaction:${randomUUID()}`, status: 'COMPLETED' });
      },
    });
    assert.equal((await client.executeQuote(session, q)).status, 'COMPLETED');
    assert.equal(sent.length, 3);
    const keys = new Set(sent.map((r) => r.headers['Idempotency-Key']));
    assert.equal(keys.size, 1);
    assert.match([...keys][0], /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    for (const r of sent) {
      assert.equal(r.path, `/quotes/${q.id}/execute`);
      assert.equal(r.headers['Request-Id'], undefined);
      assert.ok(checkStamp(r.headers['Service-Wallet-Signature'], q.payloadToSign, s.publicKey).ok);
    }
    // Out of attempts: the transport's failure, with its cause.
    const down = new WalletClient({ transport: () => { throw new Error('offline'); } });
    const err = await rejectsKit(down.executeQuote(session, q, { attempts: 2 }), 'SERVICE_ERROR');
    assert.equal(err.cause.message, 'offline');
    // A service answer is not retried; an expired quote is refused before sending.
    const { sent: once, client: refused } = fake(() => json(400, { code: 'QUOTE_EXPIRED' }));
    await rejectsKit(refused.executeQuote(session, q), 'SERVICE_ERROR');
    assert.equal(once.length, 1);
    await rejectsKit(refused.executeQuote(session, { ...q, expiresAt: iso(-1000) }), 'QUOTE_EXPIRED');
    assert.equal(once.length, 1);
  });

  test('exportWallet, addCredential, registerPasskey and request(): shapes of the signed retries', async () => {
    const session = await realSession().open();
    const { sent, client } = fake((req, n) => (n % 2 === 0 ? json(202, pending()) : json(req.method === 'POST' ? 201 : 200, { ok: n })));
    const exportKey = ClientKey.generate();
    assert.deepEqual(await client.exportWallet(session, ACCOUNT, exportKey), { ok: 1 });
    assert.equal(sent[0].path, `/internal-accounts/${ACCOUNT}/export`);
    assert.deepEqual(bodyOf(sent[0]), { clientPublicKey: exportKey.publicKeyHex });
    assert.equal(exportKey.consumed, false, 'the export key is the caller\'s, to open the envelope');
    await client.addCredential(session, { type: 'OAUTH', accountId: ACCOUNT, oidcToken: 't' });
    assert.equal(sent[3].body, `{"type":"OAUTH","accountId":"${ACCOUNT}","oidcToken":"t"}`);
    const res = await client.request({ method: 'post', path: '/anything', body: { a: 1 } }, session);
    assert.equal(res.status, 201);
    assert.deepEqual([sent[5].method, sent[5].body], ['POST', '{"a":1}']);

    const attestation = { credentialId: 'AQID', clientDataJson: 'e30', attestationObject: 'o2M', transports: ['internal'] };
    const challenge = randomBytes(32).toString('base64url');
    let options;
    const withPasskey = new WalletClient({
      transport: (req) => { sent.push(req); return sent.length % 2 === 1 ? json(202, pending()) : json(201, { id: CRED }); },
      passkey: { register: (o) => { options = o; return attestation; } },
    });
    const user = { id: ACCOUNT, name: 'ann' };
    assert.deepEqual(await withPasskey.registerPasskey({ accountId: ACCOUNT, nickname: 'Laptop', challenge, rpId: 'localhost', rpName: 'x', user }, session), { id: CRED });
    assert.deepEqual(options, { challenge, rpId: 'localhost', rpName: 'x', user });
    assert.deepEqual(bodyOf(sent.at(-1)), { accountId: ACCOUNT, nickname: 'Laptop', challenge, attestation });
    assert.equal(sent.at(-1).headers['Request-Id'] !== undefined, true);
  });

  test('sandbox: sessions are Session.sandbox (the stub bundle is never opened)', async () => {
    const client = new WalletClient({ transport: () => json(200, sessionResponse()), sandbox: true });
    const session = await client.verifyEmailOtp(CRED, '000000');
    assert.equal(session.sandboxed, true);
    assert.equal(session.stamp('x'), 'sandbox-valid-signature');
  });
});

// ---- against the strict emulator ------------------------------------------------------
const MNEMONIC = `${'abandon '.repeat(11)}about`;

describe('WalletClient against the strict emulator', () => {
  let emulator;
  let api;
  let config;

  before(async () => {
    emulator = await startEmulator();
    api = emulatorApi(emulator.origin);
    config = (await api.call('GET', '/emulator/config')).body;
  });
  after(() => emulator?.proc.kill('SIGTERM'));

  for (const keys of ['sealed', 'client-held']) {
    test(`every operation end to end, real crypto (keys: '${keys}')`, async () => {
      const held = keys === 'client-held';
      const { call, transport, sent } = api;
      const origin = emulator.origin;
      const client = new WalletClient({ transport, keys, otpSignerPin: config.otpSignerPublicKey });
      const account = (await call('POST', '/emulator/accounts', {})).body;
      const accountId = account.accountId;
      const lastOtp = async () => (await call('GET', `/emulator/outbox?accountId=${encodeURIComponent(accountId)}`)).body.at(-1).otp;
      const last = (path) => sent.filter((r) => r.path === path);

      // EMAIL_OTP: create, verify. Sealed: the plaintext verify. Client-held: create
      // carries no target bundle, so verify is refused before anything is sent (never the
      // plaintext code) until challenge() brought one. A wrong OTP is UNAUTHORIZED with
      // the service's answer kept in both modes (client-held: its 400 "Invalid wallet request.").
      const email = await client.createEmailOtp(accountId);
      assert.equal(email.type, 'EMAIL_OTP');
      const verifyPath = `/auth/credentials/${email.id}/verify`;
      if (held) {
        const from = sent.length;
        const refused = await rejectsKit(client.verifyEmailOtp(email.id, await lastOtp()), 'INVALID_INPUT');
        assert.match(refused.message, /call challenge\(\) first/);
        assert.equal(sent.length, from, 'nothing was sent');
        await client.challenge(email.id);
      }
      const wrong = await rejectsKit(client.verifyEmailOtp(email.id, '000001'), 'UNAUTHORIZED');
      assert.ok(wrong.reason, 'the refusal carries a reason');
      assert.equal(wrong.status, held ? 400 : 401);
      if (held) assert.equal(wrong.serviceCode, 'INVALID_INPUT');
      const emailSession = await client.verifyEmailOtp(email.id, await lastOtp());
      assert.equal(emailSession.type, 'EMAIL_OTP');
      assert.match(emailSession.publicKeyHex, /^0[23][0-9a-f]{64}$/);
      const verified = bodyOf(last(verifyPath).at(-1));
      if (held) assert.equal(typeof verified.encryptedOtpBundle, 'string', 'the sealed code');
      else assert.match(verified.clientPublicKey, /^04[0-9a-f]{128}$/, 'the plaintext verify is uncompressed');
      // The strict emulator's challenges of one credential are 1 s apart.
      if (held) await sleep(1_000);

      // Re-authentication: challenge (a new OTP is sent), verify with it: in client-held
      // mode the encrypted OTP login (the challenge's target bundle, remembered).
      const before = await lastOtp();
      const challenged = await client.challenge(email.id);
      assert.equal(typeof challenged.otpEncryptionTargetBundle, 'string', 'the strict emulator sends a target bundle');
      const otp = await lastOtp();
      assert.notEqual(otp, before);
      const tek = ClientKey.generate();
      const tekPublic = tek.compressedPublicKeyHex;
      const from = sent.length;
      const again = await client.verifyEmailOtp(email.id, otp, tek);
      assert.notEqual(again.id, emailSession.id);
      const legs = sent.slice(from).filter((r) => r.path === verifyPath);
      if (held) {
        assert.deepEqual(legs.map((r) => r.status), [202, 200]);
        const body = bodyOf(legs[0]);
        assert.deepEqual(Object.keys(body), ['type', 'encryptedOtpBundle']);
        assert.equal(typeof body.encryptedOtpBundle, 'string');
        assert.ok(!legs[0].body.includes(otp), 'the code is sealed, not sent');
        assert.equal(legs[1].body, legs[0].body, 'the retry repeats the body');
        const pendingOtp = JSON.parse(legs[0].response);
        assert.equal(legs[1].headers['Request-Id'], pendingOtp.requestId);
        assert.ok(checkStamp(legs[1].headers['Service-Wallet-Signature'], pendingOtp.payloadToSign, again.publicKeyHex).ok, 'the TEK signs the 202');
        assert.equal(again.publicKeyHex, tekPublic);
        assert.equal(tek.consumed, true, 'the TEK became the session key');
      } else {
        assert.deepEqual(legs.map((r) => r.status), [200]);
        assert.equal(bodyOf(legs[0]).otp, otp);
      }

      // PASSKEY: register (a signed retry: the account has a credential), then log in.
      const authenticator = new SoftAuthenticator(origin);
      const pk = new WalletClient({ transport, keys, passkey: authenticator });
      const regChallenge = randomBytes(32).toString('base64url');
      await rejectsKit(pk.registerPasskey({
        accountId, nickname: 'Laptop', challenge: regChallenge, rpId: 'localhost', rpName: 'kit tests', user: { id: accountId, name: account.email },
      }), 'SERVICE_ERROR'); // without a session the 202 cannot be signed
      const passkeyCred = await pk.registerPasskey({
        accountId, nickname: 'Laptop', challenge: randomBytes(32).toString('base64url'), rpId: 'localhost', rpName: 'kit tests',
        user: { id: accountId, name: account.email },
      }, emailSession);
      assert.equal(passkeyCred.type, 'PASSKEY');
      const loginKey = ClientKey.generate();
      const loginKeyForms = [loginKey.publicKeyHex, loginKey.compressedPublicKeyHex];
      const passkeySession = await pk.loginWithPasskey(passkeyCred.id, { rpId: 'localhost', key: loginKey });
      assert.equal(passkeySession.type, 'PASSKEY');
      assert.equal(bodyOf(last(`/auth/credentials/${passkeyCred.id}/challenge`).at(-1)).clientPublicKey, loginKeyForms[held ? 1 : 0]);
      if (held) assert.equal(passkeySession.publicKeyHex, loginKeyForms[1], 'the login key is the session key');
      else assert.notEqual(passkeySession.publicKeyHex, loginKeyForms[1]);

      // A session cannot revoke its own credential (refused locally).
      await rejectsKit(pk.revokeCredential(passkeySession, passkeyCred.id), 'INVALID_INPUT');

      // Refresh: the old session stamps; the new key is compressed in client-held mode.
      const refreshed = await client.refresh(passkeySession);
      assert.notEqual(refreshed.publicKeyHex, passkeySession.publicKeyHex);
      const refreshKey = bodyOf(last(`/auth/sessions/${passkeySession.id}/refresh`).at(-1)).clientPublicKey;
      if (held) assert.equal(refreshKey, refreshed.publicKeyHex, 'the refresh key is the session key');
      else assert.match(refreshKey, /^04[0-9a-f]{128}$/);
      await rejectsKit(client.revokeCredential(refreshed, passkeyCred.id), 'INVALID_INPUT');

      // Fund, quote, execute: money moves once.
      assert.equal((await call('POST', `/sandbox/internal-accounts/${accountId}/fund`, { amount: 10_000 })).status, 200);
      const created = await client.request({
        method: 'POST', path: '/quotes', headers: { 'Idempotency-Key': randomUUID() },
        body: {
          source: { sourceType: 'ACCOUNT', accountId }, destination: { destinationType: 'ACCOUNT', accountId: config.merchantAccountId },
          lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 2_500,
        },
      });
      const quote = JSON.parse(created.body);
      // A second quote, then the platform token loses TRANSACT: creation and execution
      // are 403 → FORBIDDEN with the service's reason, and no money moves.
      const quoteBody = {
        source: { sourceType: 'ACCOUNT', accountId }, destination: { destinationType: 'ACCOUNT', accountId: config.merchantAccountId },
        lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 100,
      };
      const later = JSON.parse((await client.request({
        method: 'POST', path: '/quotes', headers: { 'Idempotency-Key': randomUUID() }, body: quoteBody,
      })).body);
      assert.equal((await call('POST', '/emulator/permissions', { transact: false })).status, 200);
      try {
        const refused = await rejectsKit(client.executeQuote(refreshed, later), 'FORBIDDEN');
        assert.match(refused.reason, /TRANSACT/);
        assert.equal(refused.status, 403);
        await rejectsKit(client.request({
          method: 'POST', path: '/quotes', headers: { 'Idempotency-Key': randomUUID() }, body: quoteBody,
        }, refreshed), 'FORBIDDEN');
      } finally {
        assert.equal((await call('POST', '/emulator/permissions', { transact: true })).status, 200);
      }
      const tx = await client.executeQuote(refreshed, quote);
      assert.equal(tx.status, 'COMPLETED');
      const accounts = (await call('GET', `/internal-accounts?customerId=${encodeURIComponent(account.customerId)}`)).body.data;
      assert.equal(accounts.find((a) => a.id === accountId).balance.amount, 7_500);

      // Export (the uncompressed key in both modes; opened under the emulator's signer
      // pin) and PATCH as signed retries.
      const exportKey = ClientKey.generate();
      const exported = await client.exportWallet(refreshed, accountId, exportKey);
      assert.equal(bodyOf(last(`/internal-accounts/${accountId}/export`).at(-1)).clientPublicKey, exportKey.publicKeyHex);
      assert.equal(openWalletExport(exported, exportKey, { pin: config.exportSignerPublicKey }), MNEMONIC);
      const patched = await client.updateAccount(refreshed, accountId, { privacyEnabled: true });
      assert.equal(patched.privacyEnabled, true);

      // OAUTH: the token's nonce is client.oidcNonce(key), over the form sent.
      const token = async (nonce) => (await call('GET', `/emulator/oidc/token?sub=ann&email=ann%40example.com&nonce=${nonce}`)).body.idToken;
      const oauth = await client.addCredential(refreshed, { type: 'OAUTH', accountId, oidcToken: await token('x') });
      const key = ClientKey.generate();
      const otherForm = held ? key.oidcNonce() : nonceOf(key.compressedPublicKeyHex);
      const mismatch = await rejectsKit(client.verifyOauth(oauth.id, await token(otherForm), key), 'UNAUTHORIZED');
      assert.match(mismatch.reason, /nonce/, 'the nonce of the other form is refused');
      const oauthSession = await client.verifyOauth(oauth.id, await token(client.oidcNonce(key)), key);
      assert.equal(oauthSession.type, 'OAUTH');
      if (held) assert.equal(oauthSession.publicKeyHex, bodyOf(last(`/auth/credentials/${oauth.id}/verify`).at(-1)).clientPublicKey);

      // Revoke a session; revokeSession frees it. Revoked through request() (kept open
      // here), a session's signatures are refused afterwards: UNAUTHORIZED with the reason.
      await client.revokeSession(refreshed);
      assert.throws(() => refreshed.stamp('x'), (e) => e.code === 'SESSION_CLOSED');
      const calls = sent.length;
      await rejectsKit(client.updateAccount(refreshed, accountId, { privacyEnabled: false }), 'SESSION_CLOSED');
      assert.equal(sent.length, calls, 'nothing sent for a freed session');
      await client.request({ method: 'DELETE', path: `/auth/sessions/${again.id}` }, again);
      const stale = await rejectsKit(client.updateAccount(again, accountId, { privacyEnabled: false }), 'UNAUTHORIZED');
      assert.equal(stale.reason, 'Session revoked');

      // Revoke the passkey with the email session (another credential's).
      await client.revokeCredential(emailSession, passkeyCred.id);
      const listed = (await call('GET', `/auth/credentials?accountId=${encodeURIComponent(accountId)}`)).body.data;
      assert.deepEqual(listed.map((c) => c.type).sort(), ['EMAIL_OTP', 'OAUTH']);
    });
  }

  test('encrypted OTP: an expired 202 is REQUEST_EXPIRED with no restart (the code is spent); a retry answered with a bundle is refused', async () => {
    const account = (await api.call('POST', '/emulator/accounts', {})).body;
    const cred = (await api.call('POST', '/auth/credentials', { type: 'EMAIL_OTP', accountId: account.accountId })).body;
    const target = (await api.call('POST', `/auth/credentials/${cred.id}/challenge`, {})).body.otpEncryptionTargetBundle;
    const options = { otpEncryptionTargetBundle: target };
    const sent = [];
    let answer;
    const client = new WalletClient({
      keys: 'client-held', otpSignerPin: config.otpSignerPublicKey,
      transport: (req) => { sent.push(req); return answer(req, sent.length - 1); },
    });
    answer = () => json(202, pending({ expiresAt: iso(-1000) }));
    const tek = ClientKey.generate();
    const err = await rejectsKit(client.verifyEmailOtp(cred.id, '123456', tek, options), 'REQUEST_EXPIRED');
    assert.match(err.message, /spent/);
    assert.equal(sent.length, 1, 'not restarted');
    assert.equal(tek.consumed, false);
    answer = (req, n) => (n === 1 ? json(202, pending()) : json(200, sessionResponse({ bundle: sealBundle(randomScalar(), tek.publicKeyHex) })));
    await rejectsKit(client.verifyEmailOtp(cred.id, '123456', tek, options), 'INVALID_SESSION');
    assert.equal(sent.length, 3);
    // Under another signer pin the target bundle is refused before anything is sent.
    const production = new WalletClient({ keys: 'client-held', transport: (req) => { sent.push(req); return json(200, {}); } });
    await assert.rejects(production.verifyEmailOtp(cred.id, '123456', undefined, options), (e) => e instanceof KitError && e.code === 'DECRYPTION_FAILED');
    assert.equal(sent.length, 3);
  });

  test('an expired session: refresh, revokeSession, updateAccount, … are refused locally (SESSION_EXPIRED), nothing is sent', async () => {
    const short = await startEmulator(['--session-ttl-secs', '1']);
    try {
      const { call, transport, sent } = emulatorApi(short.origin);
      const { otpSignerPublicKey } = (await call('GET', '/emulator/config')).body;
      for (const keys of ['sealed', 'client-held']) {
        const client = new WalletClient({ transport, keys, otpSignerPin: otpSignerPublicKey });
        const account = (await call('POST', '/emulator/accounts', {})).body;
        const email = await client.createEmailOtp(account.accountId);
        if (keys === 'client-held') await client.challenge(email.id);
        const otp = (await call('GET', `/emulator/outbox?accountId=${encodeURIComponent(account.accountId)}`)).body.at(-1).otp;
        const session = await client.verifyEmailOtp(email.id, otp);
        await sleep(Math.max(0, session.expiresAt.getTime() - Date.now()) + 50);
        const calls = sent.length;
        await rejectsKit(client.refresh(session), 'SESSION_EXPIRED');
        await rejectsKit(client.updateAccount(session, account.accountId, { privacyEnabled: true }), 'SESSION_EXPIRED');
        await rejectsKit(client.exportWallet(session, account.accountId, ClientKey.generate()), 'SESSION_EXPIRED');
        await rejectsKit(client.revokeSession(session), 'SESSION_EXPIRED');
        assert.equal(sent.length, calls, `${keys}: nothing was sent`);
        await rejectsKit(client.refresh(session), 'SESSION_CLOSED'); // revokeSession freed it
        // The service agrees: the expired session is refused there too.
        const direct = await call('POST', `/auth/sessions/${session.id}/refresh`, { clientPublicKey: ClientKey.generate().publicKeyHex });
        assert.equal(direct.status, 401);
      }
    } finally {
      short.proc.kill('SIGTERM');
    }
  });
});

describe('revokeCredential signals the authenticator (WebAuthn signalUnknownCredential)', () => {
  const signals = [];
  const installSignals = (withMethod) => {
    const credentials = { create() {}, get() {} };
    Object.defineProperty(globalThis, 'navigator', { value: { credentials }, configurable: true, writable: true });
    function PublicKeyCredential() {}
    if (withMethod) {
      PublicKeyCredential.signalUnknownCredential = async (arg) => {
        signals.push(structuredClone(arg));
      };
    }
    globalThis.PublicKeyCredential = PublicKeyCredential;
  };
  after(() => {
    delete globalThis.navigator;
    delete globalThis.PublicKeyCredential;
  });
  const revoking = () => fake((req, n) => (n === 0 ? json(202, pending()) : { status: 204, headers: {} }));
  const webAuthnId = Buffer.from(randomBytes(16)).toString('base64url');

  test('after the revoke, the passkey\'s WebAuthn id is signalled unknown; the result says so', async () => {
    installSignals(true);
    const session = await realSession().open();
    const { sent, client } = revoking();
    const result = await client.revokeCredential(session, `AuthMethod:${randomUUID()}`, { passkeyCredentialId: webAuthnId, rpId: 'example.com' });
    assert.deepEqual(result, { signaled: true });
    assert.equal(sent.length, 2, 'revoked first (202, signed retry)');
    assert.deepEqual(signals, [{ rpId: 'example.com', credentialId: webAuthnId }]);
    const plain = await revoking().client.revokeCredential(session, `AuthMethod:${randomUUID()}`);
    assert.equal(plain.signaled, false);
    assert.match(plain.reason, /passkeyCredentialId/);
    assert.equal(signals.length, 1, 'no signal without a passkey credential id');
  });

  test('a browser without the method: revoked, signaled false with the reason; bad options are INVALID_INPUT before any request', async () => {
    installSignals(false);
    const session = await realSession().open();
    const { sent, client } = revoking();
    const result = await client.revokeCredential(session, `AuthMethod:${randomUUID()}`, { passkeyCredentialId: webAuthnId, rpId: 'example.com' });
    assert.equal(sent.length, 2);
    assert.equal(result.signaled, false);
    assert.match(result.reason, /no PublicKeyCredential\.signalUnknownCredential/);
    const bad = revoking();
    for (const options of [{ passkeyCredentialId: 'not base64url!' }, { passkeyCredentialId: webAuthnId, rpId: '' }, null]) {
      await rejectsKit(bad.client.revokeCredential(session, `AuthMethod:${randomUUID()}`, options), 'INVALID_INPUT');
    }
    assert.equal(bad.sent.length, 0, 'nothing was sent');
  });
});
