// The browser entry (pkg/browser.js) on a page that calls init({ enclave: true }): it
// fetches the wallet module's build with the enclave exports, which work (an OTP sealed by
// the kit opens with the peer, @turnkey/crypto), and a later plain init() shares it. Its
// own process under node --test (the entry's state is per process); file: URLs are
// served from disk.
import { test } from 'node:test';
import { serveFileFetches } from '../support/file-fetch.mjs';
import assert from 'node:assert/strict';
import { generateP256KeyPair, hpkeDecrypt } from '@turnkey/crypto';
import { uint8ArrayFromHexString as fromHex } from '@turnkey/encoding';

const { init, ClientKey, KitError, encryptOtp, openWalletExport } = await import('../../pkg/browser.js');

const fetched = serveFileFetches();

test('init({ enclave: true }) fetches the build with the enclave exports, and they work', async () => {
  await init({ enclave: true });
  assert.deepEqual(fetched, ['embedded_wallet_kit_bg.wasm']);
  const target = generateP256KeyPair();
  const data = Buffer.from(JSON.stringify({ organizationId: 'org', targetPublic: target.publicKeyUncompressed }), 'utf8');
  const bundle = JSON.stringify({ version: 'v1.0.0', data: data.toString('hex'), dataSignature: '', enclaveQuorumPublic: '' });
  const key = ClientKey.generate();
  const sealed = JSON.parse(encryptOtp(bundle, '123456', key, { sandbox: true }));
  const plain = new TextDecoder().decode(hpkeDecrypt({
    ciphertextBuf: fromHex(sealed.ciphertext),
    encappedKeyBuf: fromHex(sealed.encappedPublic),
    receiverPriv: target.privateKey,
  }));
  assert.deepEqual(JSON.parse(plain), { otp_code: '123456', public_key: key.compressedPublicKeyHex });
  // Its own checks run (not the other build's NOT_INITIALIZED).
  assert.throws(() => openWalletExport('{}', key), (err) => err instanceof KitError && err.code === 'INVALID_BUNDLE');
});

test('a later plain init() or init({ enclave: true }) shares the loaded module', async () => {
  await init();
  await init({ enclave: true });
  assert.deepEqual(fetched, ['embedded_wallet_kit_bg.wasm']);
});
