// One code per situation (pkg/node.js): a dead session is refused with the same code
// wherever it is used, before anything is sent: SESSION_EXPIRED once its expiresAt has
// passed, SESSION_CLOSED once freed (freed wins: its key is gone), from Session.stamp,
// Session.signRetry and every WalletClient method that takes a session, in both key
// modes. (A wrong OTP is UNAUTHORIZED in both login forms: tests/js/wallet-client.test.mjs.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { init, ClientKey, KitError, WalletClient } from '../../pkg/node.js';
import { sessionResponse, iso, randomScalar, sealBundle, pending202 } from '../support/fixtures.mjs';

await init();

const CRED = 'AuthMethod:0b9a4a2e-5f7e-4d7e-9a57-2f0f8c1d3e4b';
const ACCOUNT = 'InternalAccount:0b9a4a2e-5f7e-4d7e-9a57-2f0f8c1d3e4c';
const CUSTOMER = 'Customer:0b9a4a2e-5f7e-4d7e-9a57-2f0f8c1d3e4d';
const json = (status, body) => ({ status, headers: {}, body: JSON.stringify(body) });

/** A session of `keys`' kind, opened through a fake login, expiring in `ttlMs`. */
async function open(keys, ttlMs) {
  const key = ClientKey.generate();
  const held = keys === 'client-held';
  const response = held
    ? sessionResponse({ omitBundle: true, type: 'OAUTH', expiresAt: iso(ttlMs) })
    : sessionResponse({ bundle: sealBundle(randomScalar(), key.publicKeyHex), expiresAt: iso(ttlMs) });
  const opener = new WalletClient({ keys, transport: () => json(200, response) });
  return held ? opener.verifyOauth(CRED, 'h.p.s', key) : opener.verifyEmailOtp(CRED, '123456', key);
}

/** Every use of a session: the signing calls and each WalletClient method that takes one. */
function uses(client, session) {
  return {
    stamp: async () => session.stamp('payload'),
    signRetry: async () => session.signRetry(pending202()),
    createEmailOtp: () => client.createEmailOtp(ACCOUNT, session),
    addCredential: () => client.addCredential(session, { type: 'EMAIL_OTP', accountId: ACCOUNT }),
    registerPasskey: () => client.registerPasskey({ accountId: ACCOUNT, nickname: 'Laptop', challenge: 'c', rpId: 'localhost', rpName: 'kit' }, session),
    refresh: () => client.refresh(session),
    revokeCredential: () => client.revokeCredential(session, CRED),
    exportWallet: () => client.exportWallet(session, ACCOUNT, ClientKey.generate()),
    updateAccount: () => client.updateAccount(session, ACCOUNT, { privacyEnabled: true }),
    updateCustomer: () => client.updateCustomer(session, CUSTOMER, { email: 'a@example.com' }),
    executeQuote: () => client.executeQuote(session, {}),
    request: () => client.request({ method: 'POST', path: '/anything', body: '{}' }, session),
    // Last: it frees the session whatever happens.
    revokeSession: () => client.revokeSession(session),
  };
}

for (const keys of ['sealed', 'client-held']) {
  for (const [situation, code] of [['expired', 'SESSION_EXPIRED'], ['freed', 'SESSION_CLOSED'], ['expired, then freed', 'SESSION_CLOSED']]) {
    test(`keys: '${keys}', a session ${situation}: ${code} from every use, nothing sent`, async () => {
      const expires = situation.startsWith('expired');
      const session = await open(keys, expires ? 300 : 60_000);
      if (expires) await sleep(400);
      if (situation.endsWith('freed')) session.free();
      const sent = [];
      const passkey = { register: async () => assert.fail('the ceremony ran'), authenticate: async () => assert.fail('the ceremony ran') };
      const client = new WalletClient({ keys, passkey, transport: async (request) => { sent.push(request); return json(500, {}); } });
      for (const [name, use] of Object.entries(uses(client, session))) {
        const err = await use().then(() => assert.fail(`${name} resolved`), (e) => e);
        assert.ok(err instanceof KitError, `${name}: ${err}`);
        assert.equal(err.code, code, `${name}: ${err.message}`);
        assert.equal(sent.length, 0, `${name}: nothing sent`);
      }
    });
  }
}
