// The browser entry (pkg/browser.js) on a page that calls a plain init(): it fetches the
// wallet module's build without the enclave exports, where encryptOtp and openWalletExport
// (and so WalletClient's encrypted OTP login) throw NOT_INITIALIZED naming
// init({ enclave: true }), and a later init({ enclave: true }) is refused: the module
// holding the page's keys cannot be swapped. Its own process under node --test (the
// entry's state is per process); file: URLs are served from disk.
import { test } from 'node:test';
import { serveFileFetches } from '../support/file-fetch.mjs';
import assert from 'node:assert/strict';
import { generateP256KeyPair } from '@turnkey/crypto';

const { init, ClientKey, KitError, encryptOtp, openWalletExport, WalletClient } = await import('../../pkg/browser.js');

const fetched = serveFileFetches();

/** A sandbox OTP target bundle (no signature: the sandbox sends empty fields). */
function sandboxTarget() {
  const data = Buffer.from(JSON.stringify({ organizationId: 'org', targetPublic: generateP256KeyPair().publicKeyUncompressed }), 'utf8');
  return JSON.stringify({ version: 'v1.0.0', data: data.toString('hex'), dataSignature: '', enclaveQuorumPublic: '' });
}

function throwsNotLoaded(fn, name) {
  assert.throws(fn, (err) => {
    assert.ok(err instanceof KitError, String(err));
    assert.equal(err.code, 'NOT_INITIALIZED');
    assert.ok(err.message.startsWith(`${name}() `) && err.message.includes('init({ enclave: true })'), err.message);
    return true;
  });
}

test('a plain init() fetches the build without the enclave exports; encryptOtp and openWalletExport then say how to load them', async () => {
  const plain = init();
  // Asked for while the plain init() is still loading: refused at once, nothing else fetched.
  await assert.rejects(init({ enclave: true }), (err) => err instanceof KitError && err.code === 'INVALID_INPUT');
  await plain;
  assert.deepEqual(fetched, ['embedded_wallet_kit_no_enclave_bg.wasm']);
  const key = ClientKey.generate();
  throwsNotLoaded(() => encryptOtp(sandboxTarget(), '123456', key, { sandbox: true }), 'encryptOtp');
  throwsNotLoaded(() => openWalletExport('{}', key), 'openWalletExport');
  assert.equal(key.consumed, false, 'the key is untouched');
  key.free();
});

test('WalletClient\'s encrypted OTP login throws the same NOT_INITIALIZED before sending anything', async () => {
  const sent = [];
  const client = new WalletClient({ sandbox: true, keys: 'client-held', transport: (req) => sent.push(req) });
  const key = ClientKey.generate();
  await assert.rejects(
    client.verifyEmailOtp('EmailOtp:1', '123456', key, { otpEncryptionTargetBundle: sandboxTarget() }),
    (err) => err instanceof KitError && err.code === 'NOT_INITIALIZED' && err.message.includes('init({ enclave: true })'),
  );
  assert.deepEqual(sent, []);
});

test('init({ enclave: true }) after a plain init() rejects INVALID_INPUT and fetches nothing; a bad value is INVALID_INPUT too', async () => {
  for (const input of [{ enclave: true }, { enclave: true, passkeys: true }]) {
    await assert.rejects(init(input), (err) => err instanceof KitError && err.code === 'INVALID_INPUT' && /enclave: true/.test(err.message));
  }
  for (const input of [{ enclave: 'yes' }, { enclave: 1 }, { enclave: {} }, { isolate: 'worker', enclave: 'yes' }]) {
    await assert.rejects(init(input), (err) => err instanceof KitError && err.code === 'INVALID_INPUT' && err.message === 'init: enclave takes true or false');
  }
  await init({ enclave: false });
  await init({ enclave: null });
  assert.deepEqual(fetched, ['embedded_wallet_kit_no_enclave_bg.wasm']);
});
