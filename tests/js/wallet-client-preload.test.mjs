// init({ passkeys: true }) preloads WalletClient's implementation (wallet-client-impl.js;
// the flow drivers are in the module init() loads): a flow call made
// after it resolves (registerPasskey in a click handler) waits for no download. Its own
// process under node --test, with the browser entry's file: URLs served from disk and the
// ES modules it loads recorded (tests/support/module-loads.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { WASM_PATH } from '../support/fixtures.mjs';
import { recordModuleLoads } from '../support/module-loads.mjs';

const moduleLoads = recordModuleLoads();
const { init, WalletClient, KitError } = await import('../../pkg/browser.js');

const PKG = new URL('../../pkg/', import.meta.url).href;
const pkgLoads = () => moduleLoads().filter((url) => url.startsWith(PKG)).map((url) => url.slice(PKG.length));

const realFetch = globalThis.fetch;
globalThis.fetch = async (input, options) => {
  const url = new URL(input instanceof Request ? input.url : String(input));
  if (url.protocol !== 'file:') return realFetch(input, options);
  return new Response(readFileSync(fileURLToPath(url)), { headers: { 'Content-Type': 'application/wasm' } });
};

test('init({ passkeys: true }) loads the WalletClient implementation before any client exists', async () => {
  assert.ok(!pkgLoads().includes('wallet-client-impl.js'), 'importing the entry loaded wallet-client-impl.js');
  await init({ module_or_path: readFileSync(WASM_PATH), passkeys: true });
  const loaded = pkgLoads();
  assert.ok(loaded.includes('wallet-client-impl.js'), `loaded: ${loaded.join(', ')}`);
  assert.deepEqual(loaded.filter((f) => /^embedded_wallet_kit.*\.js$/.test(f)), ['embedded_wallet_kit.js'], 'one glue: the wallet module\'s');

  // A client made afterwards works and loads nothing more.
  const client = new WalletClient({ transport: () => ({ status: 200, body: '{"id":"AuthMethod:1"}' }) });
  assert.ok(client instanceof WalletClient);
  const created = await client.createEmailOtp('InternalAccount:1');
  assert.deepEqual(created, { id: 'AuthMethod:1' });
  assert.deepEqual(pkgLoads(), loaded);
  await assert.rejects(client.challenge(''), (err) => err instanceof KitError && err.code === 'INVALID_INPUT');
});

test('with the implementation loaded, registerPasskey starts the ceremony before it returns (no await first: Safari)', async () => {
  await init({ module_or_path: readFileSync(WASM_PATH), passkeys: true });
  let started = false;
  const client = new WalletClient({
    transport: () => ({ status: 201, body: '{}' }),
    passkey: { register: () => { started = true; throw new Error('no authenticator here'); } },
  });
  const pending = client.registerPasskey({ accountId: 'InternalAccount:1', nickname: 'Laptop', challenge: 'AAAA' });
  assert.equal(started, true, 'the ceremony waited for a later task');
  await assert.rejects(pending, (err) => err instanceof KitError && err.code === 'PASSKEY_FAILED');
});
