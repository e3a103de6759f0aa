// WalletClient through the browser entry on a page that calls init() without { passkeys }:
// init() fetches exactly one .wasm, the wallet module's build without the enclave exports
// (the flow drivers and the passkey API are in it), and not WalletClient's implementation (wallet-client-impl.js, JS); the first
// call loads that implementation and fetches no .wasm, including registerPasskey with an
// injected driver. Node cannot fetch file: URLs, so this file (its own process under
// node --test) serves them from disk (tests/support/file-fetch.mjs), and records the ES modules it loads
// (tests/support/module-loads.mjs).
import { test } from 'node:test';
import { serveFileFetches } from '../support/file-fetch.mjs';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { sessionResponse } from '../support/fixtures.mjs';
import { recordModuleLoads } from '../support/module-loads.mjs';

const moduleLoads = recordModuleLoads();
const { init, WalletClient, Session, passkey: kitPasskey } = await import('../../pkg/browser.js');

const PKG = new URL('../../pkg/', import.meta.url).href;
/** The package's files loaded so far, relative to pkg/. */
const pkgLoads = () => moduleLoads().filter((url) => url.startsWith(PKG)).map((url) => url.slice(PKG.length));
// The flow driver: only WalletClient's implementation calls it (the wallet module's glue
// defines it), so no other JS module that init() loads may name it.
const namesFlowDriver = (file) => file !== 'embedded_wallet_kit.js' && /\bwalletFlow\b/.test(readFileSync(new URL(file, PKG), 'utf8'));

const ACCOUNT = 'InternalAccount:7f3e9b1c-2a4d-4c8e-b6f1-9d0e2a3b4c5d';
const REQUEST = 'Request:123e4567-e89b-12d3-a456-426614174000';

const fetched = serveFileFetches();

test('init() fetches one .wasm; registerPasskey with an injected driver then loads its JS and fetches no .wasm', async () => {
  await init();
  assert.deepEqual(fetched, ['embedded_wallet_kit_no_enclave_bg.wasm'], 'init() fetches exactly the wallet module without the enclave exports');
  const atInit = pkgLoads();
  assert.ok(atInit.includes('browser.js') && atInit.includes('wallet-client.js'), `loaded: ${atInit.join(', ')}`);
  assert.deepEqual(atInit.filter(namesFlowDriver), [], "init() alone loads WalletClient's implementation");
  assert.ok(!atInit.includes('wallet-client-impl.js'), 'init() alone loads wallet-client-impl.js');
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
  assert.deepEqual(fetched, ['embedded_wallet_kit_no_enclave_bg.wasm'], 'the first call fetched no .wasm');
  const afterCall = pkgLoads();
  assert.deepEqual(afterCall.filter((f) => f.startsWith('wallet-client-impl')), ['wallet-client-impl.js'], 'the first call loaded the implementation once');
  assert.ok(!afterCall.some((f) => f.endsWith('.wasm') || /^embedded_wallet_kit_\w+\.js$/.test(f)), `no second module: ${afterCall.join(', ')}`);
  // Nor do the passkey API's calls.
  assert.equal(kitPasskey.isSupported(), false, 'Node has no WebAuthn');
  assert.equal(await kitPasskey.platformAuthenticatorAvailable(), false);
  await assert.rejects(kitPasskey.register({ challenge: 'AAAA', rpId: 'localhost', rpName: 'x', user: { id: 'u', name: 'n' } }),
    (err) => err.code === 'PASSKEY_UNSUPPORTED');
  assert.deepEqual(fetched, ['embedded_wallet_kit_no_enclave_bg.wasm'], 'the passkey calls fetched no .wasm');
  assert.deepEqual(JSON.parse(sent[1].body), { accountId: ACCOUNT, nickname: 'Laptop', challenge, attestation });
  assert.equal(sent[1].headers['Service-Wallet-Signature'], 'sandbox-valid-signature');
});
