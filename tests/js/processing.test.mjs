// The live service's busy-hour answer, `200 {"status":"PROCESSING"}` (docs/protocol.md),
// through WalletClient (pkg/node.js) against the strict emulator answering it 0, 1 and 3
// times per signed request (POST /emulator/processing): in both key modes every signed
// operation re-sends the identical request (same body, signature and Request-Id: never
// re-stamped), tells onPending, and finishes; the bound reached is STILL_PROCESSING with
// the request id and nothing more is sent; a refresh that is still processing leaves the
// old session usable.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { init, ClientKey, WalletClient, openWalletExport } from '../../pkg/node.js';
import { SoftAuthenticator } from '../../pkg/testing-node.js';
import { startEmulator, emulatorApi } from '../support/emulator.mjs';

await init();

const QUICK = { firstDelayMs: 5, maxDelayMs: 20 };
/** The emulator's wallet secret (what every export seals). */
const MNEMONIC = `${'abandon '.repeat(11)}about`;

describe('WalletClient through PROCESSING answers (strict emulator)', () => {
  let emulator;
  let api;
  let config;

  before(async () => {
    emulator = await startEmulator(['--challenge-interval-ms', '0']);
    api = emulatorApi(emulator.origin);
    config = (await api.call('GET', '/emulator/config')).body;
  });
  after(() => emulator?.proc.kill('SIGTERM'));

  const setProcessing = async (body) => {
    const answer = await api.call('POST', '/emulator/processing', body);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
  };

  for (const keys of ['sealed', 'client-held']) {
    for (const times of [0, 1, 3]) {
      test(`keys: '${keys}', PROCESSING ${times} time(s) per signed request: every operation finishes, re-sends are identical`, async () => {
        const { call, transport, sent } = api;
        const pending = [];
        /** What onSigned was told, and how many requests had been sent by then. */
        const told = [];
        const onSigned = (e) => told.push({ ...e, sentBefore: sent.length });
        const options = { transport, keys, otpSignerPin: config.otpSignerPublicKey, processing: QUICK, onPending: (e) => pending.push(e), onSigned };
        const client = new WalletClient(options);
        const account = (await call('POST', '/emulator/accounts', {})).body;
        const { accountId } = account;
        const lastOtp = async () => (await call('GET', `/emulator/outbox?accountId=${encodeURIComponent(accountId)}`)).body.at(-1).otp;
        const email = await client.createEmailOtp(accountId);
        const from = sent.length;
        await setProcessing({ count: times });
        try {
          // Login: the encrypted OTP's signed leg (client-held) also answers PROCESSING.
          await client.challenge(email.id);
          let session = await client.verifyEmailOtp(email.id, await lastOtp());
          const ops = [];
          const expectPending = (operation) => {
            const mine = pending.filter((e) => e.operation === operation);
            assert.equal(mine.length, times, `${operation}: onPending once per re-send`);
            mine.forEach((e, i) => {
              assert.equal(e.attempt, i + 1);
              assert.match(e.requestId, /^Request:/, `${operation}: the request id is exposed`);
              assert.ok(e.delayMs >= 0 && e.delayMs <= QUICK.maxDelayMs);
            });
            ops.push(operation);
            pending.length = 0;
          };
          if (keys === 'client-held') expectPending('verifyEmailOtp');
          else pending.length = 0;

          const authenticator = new SoftAuthenticator(emulator.origin);
          const pk = new WalletClient({ ...options, passkey: authenticator });
          const passkey = await pk.registerPasskey({
            accountId, nickname: 'Laptop', challenge: randomBytes(32).toString('base64url'), rpId: 'localhost', rpName: 'kit tests',
            user: { id: accountId, name: account.email },
          }, session);
          assert.equal(passkey.type, 'PASSKEY');
          expectPending('addCredential');

          const refreshed = await client.refresh(session);
          assert.notEqual(refreshed.id, session.id);
          expectPending('refresh');
          session.free();
          session = refreshed;

          const patched = await client.updateAccount(session, accountId, { privacyEnabled: true });
          assert.equal(patched.privacyEnabled, true);
          expectPending('updateAccount');

          const customer = await client.updateCustomer(session, account.customerId, { phoneNumber: '+15555550100' });
          assert.equal(customer.phoneNumber, '+15555550100');
          expectPending('updateCustomer');

          // The export is delivered once, to the re-send that completes it: its key is
          // still alive then and opens it; a later identical re-send is refused.
          const exportKey = ClientKey.generate();
          const exportFrom = sent.length;
          const exported = await client.exportWallet(session, accountId, exportKey);
          assert.equal(typeof exported.encryptedWalletCredentials, 'string', JSON.stringify(exported));
          assert.equal(openWalletExport(exported, exportKey, { pin: config.exportSignerPublicKey }), MNEMONIC);
          expectPending('exportWallet');
          const delivered = sent.slice(exportFrom).at(-1);
          const replay = await transport({ method: delivered.method, path: delivered.path, headers: delivered.headers, body: delivered.body });
          sent.pop();
          assert.equal(replay.status, 401, `the credentials are delivered once: ${replay.body}`);
          assert.doesNotMatch(replay.body, /encryptedWalletCredentials/);

          await client.revokeCredential(session, passkey.id);
          expectPending('revokeCredential');

          await client.revokeSession(session);
          expectPending('revokeSession');

          // Every re-send repeated its signed request byte for byte.
          const signed = sent.filter((r) => r.headers?.['Request-Id'] !== undefined);
          const byId = new Map();
          for (const r of signed) byId.set(r.headers['Request-Id'], [...(byId.get(r.headers['Request-Id']) ?? []), r]);
          for (const [id, copies] of byId) {
            for (const copy of copies) {
              assert.equal(copy.body, copies[0].body, `${id}: the same body`);
              assert.equal(copy.headers['Service-Wallet-Signature'], copies[0].headers['Service-Wallet-Signature'], `${id}: never re-stamped`);
              assert.equal(`${copy.method} ${copy.path}`, `${copies[0].method} ${copies[0].path}`);
            }
            assert.ok(copies.slice(0, -1).every((c) => JSON.parse(c.response).status === 'PROCESSING'), `${id}: re-sent only after PROCESSING`);
          }
          assert.equal(ops.length, keys === 'client-held' ? 8 : 7);

          // onSigned: every signed request, told once (not per re-send) before it was first
          // sent, with its Request-Id and the method that sent it.
          const pathOf = {
            verifyEmailOtp: /^POST \/auth\/credentials\/[^/]+\/verify$/,
            addCredential: /^POST \/auth\/credentials$/,
            refresh: /^POST \/auth\/sessions\/[^/]+\/refresh$/,
            updateAccount: /^PATCH /,
            updateCustomer: /^PATCH \/customers\//,
            exportWallet: /export/,
            revokeCredential: /^DELETE \/auth\/credentials\//,
            revokeSession: /^DELETE \/auth\/sessions\//,
          };
          const sentIds = [...new Set(sent.slice(from).map((r) => r.headers?.['Request-Id']).filter(Boolean))];
          assert.deepEqual(told.map((e) => e.requestId), sentIds, 'every Request-Id sent was told, once, in order');
          assert.deepEqual(told.map((e) => e.operation), ops, 'one signed request per operation');
          for (const { operation, requestId, sentBefore } of told) {
            const first = sent.findIndex((r) => r.headers?.['Request-Id'] === requestId);
            assert.ok(first >= sentBefore, `${operation}: told before it was sent`);
            assert.match(`${sent[first].method} ${sent[first].path}`, pathOf[operation], `${operation}: its own request`);
          }
        } finally {
          await setProcessing({ count: 0 });
        }
      });
    }
  }

  // The login legs (/challenge, the session-issuing /verify) carry no Request-Id: their
  // re-send is the same request byte for byte, with no signature headers added.
  for (const keys of ['sealed', 'client-held']) {
    for (const times of [0, 1, 3]) {
      test(`keys: '${keys}', login legs answering PROCESSING ${times} time(s): OTP, passkey and OAUTH logins re-send them unchanged`, async () => {
        const { call, transport, sent } = api;
        const pending = [];
        const options = { transport, keys, otpSignerPin: config.otpSignerPublicKey, processing: QUICK, onPending: (e) => pending.push(e) };
        const client = new WalletClient(options);
        const account = (await call('POST', '/emulator/accounts', {})).body;
        const { accountId } = account;
        const lastOtp = async () => (await call('GET', `/emulator/outbox?accountId=${encodeURIComponent(accountId)}`)).body.at(-1).otp;
        const email = await client.createEmailOtp(accountId);
        // A first session (no PROCESSING yet) adds the passkey and OAUTH credentials.
        if (keys === 'client-held') await client.challenge(email.id);
        const first = await client.verifyEmailOtp(email.id, await lastOtp());
        const authenticator = new SoftAuthenticator(emulator.origin);
        const pk = new WalletClient({ ...options, passkey: authenticator });
        const passkey = await pk.registerPasskey({
          accountId, nickname: 'Laptop', challenge: randomBytes(32).toString('base64url'), rpId: 'localhost', rpName: 'kit tests',
          user: { id: accountId, name: account.email },
        }, first);
        const token = async (nonce) => (await call('GET', `/emulator/oidc/token?sub=ann&email=ann%40example.com&nonce=${nonce}`)).body.idToken;
        const oauth = await client.addCredential(first, { type: 'OAUTH', accountId, oidcToken: await token('x') });
        pending.length = 0;
        await setProcessing({ count: times, operations: ['auth_credential.challenge', 'auth_credential.verify'] });
        const from = sent.length;
        try {
          await client.challenge(email.id);
          const otpSession = await client.verifyEmailOtp(email.id, await lastOtp());
          const pkSession = await pk.loginWithPasskey(passkey.id, { rpId: 'localhost' });
          const key = ClientKey.generate();
          const oauthSession = await client.verifyOauth(oauth.id, await token(client.oidcNonce(key)), key);
          for (const [session, type] of [[otpSession, 'EMAIL_OTP'], [pkSession, 'PASSKEY'], [oauthSession, 'OAUTH']]) {
            assert.equal(session.type, type);
            assert.match(session.stamp('x'), /./, `${type}: the session signs`);
          }
        } finally {
          await setProcessing({ count: 0 });
        }
        // Each leg: `times` PROCESSING answers, then its terminal answer; every re-send the
        // same request as the first (no signature headers on an unsigned leg).
        const legs = new Map();
        for (const r of sent.slice(from)) {
          const id = r.headers?.['Request-Id'] ?? `${r.method} ${r.path} ${r.headers?.['Service-Wallet-Signature'] ?? ''}`;
          if (!/\/(challenge|verify)$/.test(r.path)) continue;
          legs.set(id, [...(legs.get(id) ?? []), r]);
        }
        const expected = {
          // challenge ×2 (OTP, passkey); verify: OTP (client-held: its signed leg after the 202), passkey, OAUTH.
          sealed: ['challenge', 'challenge', 'verify', 'verify', 'verify'],
          'client-held': ['challenge', 'challenge', 'verify', 'verify', 'verify', 'verify'],
        }[keys];
        assert.deepEqual([...legs.values()].map((copies) => copies[0].path.split('/').at(-1)).sort(), expected);
        for (const [id, copies] of legs) {
          const processing = copies.filter((c) => c.status === 200 && JSON.parse(c.response).status === 'PROCESSING');
          // The encrypted OTP login's first leg (202) answers once; every other leg is held.
          const issuing202 = copies.length === 1 && copies[0].status === 202;
          assert.equal(processing.length, issuing202 ? 0 : times, `${id}: ${copies.map((c) => c.status)}`);
          for (const copy of copies) {
            assert.equal(copy.body, copies[0].body, `${id}: the same body`);
            assert.deepEqual(copy.headers, copies[0].headers, `${id}: the same headers`);
          }
        }
        const operations = pending.map((e) => e.operation).sort();
        const perOperation = ['challenge', 'challenge', 'loginWithPasskey', 'verifyEmailOtp', 'verifyOauth'];
        assert.deepEqual(operations, perOperation.flatMap((op) => Array(times).fill(op)).sort(), 'onPending once per re-send');
      });
    }
  }

  test('onSigned: request() is told too; a throwing listener is ignored; a non-function is INVALID_INPUT', async () => {
    const { call, transport, sent } = api;
    assert.throws(() => new WalletClient({ transport, onSigned: 'yes' }), { code: 'INVALID_INPUT', message: /options\.onSigned must be a function/ });
    const told = [];
    const client = new WalletClient({ transport, onSigned: (e) => { told.push(e); throw new Error('the app\'s bug'); } });
    const { accountId, customerId } = (await call('POST', '/emulator/accounts', {})).body;
    const email = await client.createEmailOtp(accountId);
    const lastOtp = async () => (await call('GET', `/emulator/outbox?accountId=${encodeURIComponent(accountId)}`)).body.at(-1).otp;
    const session = await client.verifyEmailOtp(email.id, await lastOtp());
    assert.deepEqual(told, [], 'the unsigned sealed login has no Request-Id');
    const from = sent.length;
    const patched = await client.request({ method: 'PATCH', path: `/internal-accounts/${encodeURIComponent(accountId)}`, body: { privacyEnabled: true } }, session);
    assert.equal(patched.status, 200, patched.body);
    await client.updateCustomer(session, customerId, { email: 'new@example.com' });
    const ids = [...new Set(sent.slice(from).map((r) => r.headers?.['Request-Id']).filter(Boolean))];
    assert.deepEqual(told, [{ operation: 'request', requestId: ids[0] }, { operation: 'updateCustomer', requestId: ids[1] }]);
    session.free();
  });

  test('the bound reached: STILL_PROCESSING with the request id, nothing more sent; the old session still signs', async () => {
    const { call, transport, sent } = api;
    const client = new WalletClient({ transport, processing: { ...QUICK, maxResends: 2 } });
    const { accountId } = (await call('POST', '/emulator/accounts', {})).body;
    const email = await client.createEmailOtp(accountId);
    const lastOtp = async () => (await call('GET', `/emulator/outbox?accountId=${encodeURIComponent(accountId)}`)).body.at(-1).otp;
    const session = await client.verifyEmailOtp(email.id, await lastOtp());
    await setProcessing({ count: 50, operations: ['session.refresh'], settleMs: 600_000 });
    try {
      const from = sent.length;
      const err = await client.refresh(session).then(() => assert.fail('resolved'), (e) => e);
      assert.equal(err.code, 'STILL_PROCESSING', err.message);
      assert.match(err.requestId, /^Request:/);
      const mine = sent.slice(from);
      // The first leg, the signed retry, two re-sends: then the bound.
      assert.equal(mine.length, 4, mine.map((r) => r.status).join(','));
      assert.ok(mine.slice(1).every((r) => r.headers['Request-Id'] === err.requestId));
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert.equal(sent.length, from + 4, 'nothing sent after the error');
      // The refresh never finished here: the old session is still the user's session.
      const patched = await client.updateAccount(session, accountId, { privacyEnabled: true });
      assert.equal(patched.privacyEnabled, true);
    } finally {
      await setProcessing({ count: 0 });
    }
    // An aborted wait ends the same way.
    const controller = new AbortController();
    const aborting = new WalletClient({ transport, processing: { firstDelayMs: 60_000, maxDelayMs: 60_000, signal: controller.signal } });
    await setProcessing({ count: 1, operations: ['account.update'] });
    try {
      const waiting = aborting.updateAccount(session, accountId, { privacyEnabled: false }).then(() => assert.fail('resolved'), (e) => e);
      setTimeout(() => controller.abort(), 50);
      const err = await waiting;
      assert.equal(err.code, 'STILL_PROCESSING');
      assert.match(err.message, /aborted/);
      assert.match(err.requestId, /^Request:/);
    } finally {
      await setProcessing({ count: 0 });
    }
  });
});
