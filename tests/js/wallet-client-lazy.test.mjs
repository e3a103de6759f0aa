// WalletClient through the browser entry when nothing loaded the lazy (passkey + flows)
// module before its first call, as on a page that calls init() without { passkeys }:
// the first call must load it, including registerPasskey with an injected driver (it
// used to need the kit's passkey namespace loaded first). Node cannot fetch file: URLs,
// so this file (its own process under node --test) serves them from disk.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import { init, WalletClient, Session } from '../../pkg/browser.js';
import { WASM_PATH, sessionResponse } from '../support/fixtures.mjs';

const ACCOUNT = 'InternalAccount:7f3e9b1c-2a4d-4c8e-b6f1-9d0e2a3b4c5d';
const REQUEST = 'Request:123e4567-e89b-12d3-a456-426614174000';

const realFetch = globalThis.fetch;
const fetched = [];
globalThis.fetch = async (input, options) => {
  const url = new URL(input instanceof Request ? input.url : String(input));
  if (url.protocol !== 'file:') return realFetch(input, options);
  fetched.push(url.pathname.split('/').pop());
  return new Response(readFileSync(fileURLToPath(url)), { headers: { 'Content-Type': 'application/wasm' } });
};

test('registerPasskey with an injected driver loads the flow module itself', async () => {
  await init({ module_or_path: readFileSync(WASM_PATH) });
  assert.deepEqual(fetched, [], 'init() alone loads no lazy module');
  const session = Session.sandbox(sessionResponse());
  const attestation = { credentialId: 'AQID', clientDataJson: 'e30', attestationObject: 'o2M', transports: ['internal'] };
  const sent = [];
  const client = new WalletClient({
    sandbox: true,
    transport: (req) => {
      sent.push(req);
      const pending = { payloadToSign: 'p', requestId: REQUEST, expiresAt: new Date(Date.now() + 60_000).toISOString() };
      return sent.length === 1 ? { status: 202, body: pending } : { status: 201, body: { id: 'AuthMethod:1' } };
    },
    passkey: { register: () => attestation },
  });
  const challenge = randomBytes(32).toString('base64url');
  const user = { id: ACCOUNT, name: 'ann' };
  const created = await client.registerPasskey({ accountId: ACCOUNT, nickname: 'Laptop', challenge, rpId: 'localhost', rpName: 'x', user }, session);
  assert.deepEqual(created, { id: 'AuthMethod:1' });
  assert.deepEqual(fetched, ['embedded_wallet_kit_passkey_bg.wasm'], 'the first call loaded the lazy module');
  assert.deepEqual(JSON.parse(sent[1].body), { accountId: ACCOUNT, nickname: 'Laptop', challenge, attestation });
  assert.equal(sent[1].headers['Service-Wallet-Signature'], 'sandbox-valid-signature');
});
