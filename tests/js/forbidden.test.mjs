// A 403 is FORBIDDEN, with what the service said: quote creation and execution answer 403
// when the platform's token lacks the TRANSACT permission. Through WalletClient (pkg/node.js)
// and a fake transport: executeQuote, and request() signed (the 403 after the signed retry)
// and unsigned.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { init, ClientKey, KitError, WalletClient } from '../../pkg/node.js';
import { sessionResponse, iso, randomScalar, sealBundle, quote } from '../support/fixtures.mjs';

await init();

const CRED = `AuthMethod:${randomUUID()}`;
const DENIED = { code: 'FORBIDDEN', reason: 'Missing TRANSACT permission' };
const json = (status, body) => ({ status, headers: {}, body: JSON.stringify(body) });

async function rejectsForbidden(promise) {
  let thrown;
  try {
    await promise;
  } catch (err) {
    thrown = err;
  }
  assert.ok(thrown instanceof KitError, `expected KitError FORBIDDEN, got ${thrown?.constructor?.name}: ${thrown?.message ?? thrown}`);
  assert.equal(thrown.code, 'FORBIDDEN', `wrong code (message: ${thrown.message})`);
  assert.equal(thrown.status, 403);
  assert.equal(thrown.serviceCode, 'FORBIDDEN');
  assert.equal(thrown.reason, 'Missing TRANSACT permission');
  assert.equal(thrown.message, 'the service answered 403: Missing TRANSACT permission');
  return thrown;
}

async function session() {
  const key = ClientKey.generate();
  const response = sessionResponse({ bundle: sealBundle(randomScalar(), key.publicKeyHex) });
  return new WalletClient({ transport: () => json(200, response) }).verifyEmailOtp(CRED, '123456', key);
}

test('executeQuote: a 403 is FORBIDDEN with the reason, and is not retried', async () => {
  const s = await session();
  const sent = [];
  const client = new WalletClient({ transport: (request) => { sent.push(request); return json(403, DENIED); } });
  await rejectsForbidden(client.executeQuote(s, quote({ expiresAt: iso(60_000) })));
  assert.equal(sent.length, 1);
  s.free();
});

test('request(): a 403 to the signed retry (quote creation) and to an unsigned request is FORBIDDEN', async () => {
  const s = await session();
  const sent = [];
  const pending = { payloadToSign: JSON.stringify({ q: randomUUID() }), requestId: `Request:${randomUUID()}`, expiresAt: iso(60_000) };
  const client = new WalletClient({
    transport: (request) => {
      sent.push(request);
      return sent.length === 1 ? json(202, pending) : json(403, DENIED);
    },
  });
  const create = { method: 'POST', path: '/quotes', body: { lookupId: 'x', sendingCurrencyCode: 'USD' } };
  await rejectsForbidden(client.request(create, s));
  assert.equal(sent.length, 2);
  assert.equal(sent[1].headers['Request-Id'], pending.requestId, 'the 403 answered the signed retry');
  const unsigned = new WalletClient({ transport: () => json(403, DENIED) });
  await rejectsForbidden(unsigned.request(create));
  s.free();
});
