// Newer deployments through the built package (pkg/node.js): encryptOtp, ClientKey.signRetry
// and openWalletExport, against throwaway enclaves (node:crypto signers) and the
// independent peer @turnkey/crypto (HPKE open, its own OTP sealer, its export opener).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { generateKeyPairSync, sign, createHash } from 'node:crypto';
import {
  hpkeDecrypt, hpkeEncrypt, generateP256KeyPair, uncompressRawPublicKey, encryptOtpCodeToBundle,
  decryptExportBundle,
} from '@turnkey/crypto';
import { uint8ArrayFromHexString as fromHex, uint8ArrayToHexString as toHex } from '@turnkey/encoding';
import { ClientKey, Session, KitError, encryptOtp, openWalletExport } from '../../pkg/node.js';
import { sessionResponse, pending202, iso, checkStamp } from '../support/fixtures.mjs';

const MNEMONIC = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
const VECTORS = JSON.parse(readFileSync(new URL('../vectors/turnkey/export-bundles.json', import.meta.url), 'utf8'));
const utf8 = (s) => new TextEncoder().encode(s);

function throwsKit(fn, code, messagePart) {
  let thrown;
  try {
    fn();
  } catch (err) {
    thrown = err;
  }
  assert.ok(thrown instanceof KitError, `expected KitError ${code}, got ${thrown}`);
  assert.equal(thrown.code, code, `wrong code (message: ${thrown.message})`);
  if (messagePart !== undefined) assert.ok(thrown.message.includes(messagePart), thrown.message);
  return thrown;
}

/** A throwaway enclave signer (node:crypto, independent of the kit). */
function signer() {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const jwk = publicKey.export({ format: 'jwk' });
  const hex = `04${Buffer.from(jwk.x, 'base64url').toString('hex')}${Buffer.from(jwk.y, 'base64url').toString('hex')}`;
  return { privateKey, hex };
}

/** A signed envelope over `data` (an object), as the service writes it. */
function envelope(data, by, { sandbox = false } = {}) {
  const bytes = Buffer.from(JSON.stringify(data), 'utf8');
  return JSON.stringify({
    version: 'v1.0.0',
    data: bytes.toString('hex'),
    dataSignature: sandbox ? '' : sign('sha256', bytes, by.privateKey).toString('hex'),
    enclaveQuorumPublic: sandbox ? '' : by.hex,
  });
}

/** Flips one hex digit of a field of an envelope (JSON text). */
function tamper(text, field, at = -4) {
  const e = JSON.parse(text);
  const i = at < 0 ? e[field].length + at : at;
  e[field] = e[field].slice(0, i) + (e[field][i] === '0' ? '1' : '0') + e[field].slice(i + 1);
  return JSON.stringify(e);
}

function otpEnclave() {
  const target = generateP256KeyPair();
  const by = signer();
  const bundle = envelope({ organizationId: 'org', targetPublic: target.publicKeyUncompressed }, by);
  return { target, by, bundle };
}

/** The enclave's side: opens an encryptedOtpBundle with the peer. */
function openOtp(sealed, target) {
  const parsed = JSON.parse(sealed);
  assert.deepEqual(Object.keys(parsed), ['encappedPublic', 'ciphertext']);
  assert.match(parsed.encappedPublic, /^04[0-9a-f]{128}$/);
  const plain = hpkeDecrypt({
    ciphertextBuf: fromHex(parsed.ciphertext),
    encappedKeyBuf: fromHex(parsed.encappedPublic),
    receiverPriv: target.privateKey,
  });
  return new TextDecoder().decode(plain);
}

test('encryptOtp: sealed to a throwaway enclave, opened by the peer, same plaintext as the peer', async () => {
  const { target, by, bundle } = otpEnclave();
  const tek = ClientKey.generate();
  // public_key is the TEK's compressed SEC1 hex: production refuses the uncompressed form.
  const expected = `{"otp_code":"123456","public_key":"${tek.compressedPublicKeyHex}"}`;
  for (const form of [bundle, `'${bundle}'`, JSON.parse(bundle)]) {
    const sealed = encryptOtp(form, '123456', tek, { pin: by.hex });
    assert.equal(openOtp(sealed, target), expected);
  }
  assert.equal(tek.consumed, false, 'the TEK goes on to sign the 202');
  // The peer (whose publicKey is documented as "Compressed hex public key") seals the
  // same plaintext bytes in the same outer format.
  const peer = await encryptOtpCodeToBundle('123456', bundle, tek.compressedPublicKeyHex, by.hex);
  assert.equal(openOtp(peer, target), expected);
  // Codes are opaque strings, JSON-escaped.
  const odd = encryptOtp(bundle, 'a"B\\9', tek, { pin: by.hex });
  assert.equal(JSON.parse(openOtp(odd, target)).otp_code, 'a"B\\9');
  // Sandbox envelopes have empty signature fields: only the sandbox pin accepts them.
  const sandbox = envelope({ targetPublic: target.publicKeyUncompressed }, by, { sandbox: true });
  assert.equal(openOtp(encryptOtp(sandbox, '000000', tek, { sandbox: true }), target).includes('"000000"'), true);
  assert.equal(openOtp(encryptOtp(sandbox, '000000', tek, { pin: 'sandbox' }), target).includes('"000000"'), true);
  throwsKit(() => encryptOtp(sandbox, '000000', tek), 'INVALID_PUBLIC_KEY', 'enclaveQuorumPublic');
});

test('encryptOtp: the plaintext has the shape of the peer\'s, public_key compressed (02/03, 66 hex)', async () => {
  const { target, by, bundle } = otpEnclave();
  const tek = ClientKey.generate();
  const ours = JSON.parse(openOtp(encryptOtp(bundle, '314159', tek, { pin: by.hex }), target));
  const peer = JSON.parse(openOtp(await encryptOtpCodeToBundle('314159', bundle, tek.compressedPublicKeyHex, by.hex), target));
  assert.deepEqual(Object.keys(ours), ['otp_code', 'public_key']);
  assert.deepEqual(Object.keys(ours), Object.keys(peer));
  assert.deepEqual(ours, peer);
  assert.match(ours.public_key, /^0[23][0-9a-f]{64}$/);
  // The same point as the TEK's (checked with the peer's decompression, not the kit's).
  assert.equal(toHex(uncompressRawPublicKey(fromHex(ours.public_key))), tek.publicKeyHex);
});

test('encryptOtp: the production pin by default; tampering, other signers and bad input are typed errors', () => {
  const { bundle, by } = otpEnclave();
  const tek = ClientKey.generate();
  const pin = { pin: by.hex };
  const err = throwsKit(() => encryptOtp(bundle, '987654', tek), 'DECRYPTION_FAILED', 'pinned');
  assert.ok(!err.message.includes('987654'), 'the code never appears in errors');
  throwsKit(() => encryptOtp(bundle, '1', tek, { pin: 'production' }), 'DECRYPTION_FAILED', 'pinned');
  throwsKit(() => encryptOtp(bundle, '1', tek, { pin: signer().hex }), 'DECRYPTION_FAILED', 'pinned');
  throwsKit(() => encryptOtp(tamper(bundle, 'data'), '1', tek, pin), 'DECRYPTION_FAILED', 'signature does not verify');
  throwsKit(() => encryptOtp(tamper(bundle, 'dataSignature'), '1', tek, pin), 'DECRYPTION_FAILED', 'signature does not verify');
  throwsKit(() => encryptOtp(tamper(bundle, 'dataSignature', 0), '1', tek, pin), 'INVALID_BUNDLE', 'dataSignature');
  throwsKit(() => encryptOtp(bundle, '1', tek, { pin: 'zz' }), 'INVALID_PUBLIC_KEY', 'pinned signer key');
  throwsKit(() => encryptOtp(bundle, '1', tek, { pin: 5 }), 'INVALID_INPUT', 'options.pin');
  throwsKit(() => encryptOtp(bundle, '1', tek, { sandbox: 'yes' }), 'INVALID_INPUT', 'options.sandbox');
  throwsKit(() => encryptOtp(bundle, '1', tek, { pin: by.hex, sandbox: true }), 'INVALID_INPUT', 'contradicts');
  throwsKit(() => encryptOtp(bundle, '1', tek, 'sandbox'), 'INVALID_INPUT', 'options');
  throwsKit(() => encryptOtp(bundle, '', tek, pin), 'INVALID_INPUT', 'otp');
  throwsKit(() => encryptOtp(bundle, 123456, tek, pin), 'INVALID_INPUT', 'otpCode');
  throwsKit(() => encryptOtp(bundle, '1', tek.publicKeyHex, pin), 'INVALID_INPUT', 'ClientKey');
  throwsKit(() => encryptOtp('not json', '1', tek, pin), 'INVALID_BUNDLE', 'JSON');
  throwsKit(() => encryptOtp("{version:'v1.0.0'}", '1', tek, pin), 'INVALID_BUNDLE');
  throwsKit(() => encryptOtp(JSON.stringify({ ...JSON.parse(bundle), version: 'v2' }), '1', tek, pin), 'INVALID_BUNDLE', 'version');
  tek.free();
  throwsKit(() => encryptOtp(bundle, '1', tek, pin), 'KEY_CONSUMED');
});

test('ClientKey.oidcNonce: the hash of the form sent; { compressed: true } for the client-held flow', () => {
  const key = ClientKey.generate();
  // Independently: node:crypto's SHA-256 over the ASCII hex string.
  const sha256 = (text) => createHash('sha256').update(text, 'ascii').digest('hex');
  assert.equal(key.oidcNonce({ compressed: true }), sha256(key.compressedPublicKeyHex));
  assert.match(key.compressedPublicKeyHex, /^0[23][0-9a-f]{64}$/);
  for (const uncompressed of [undefined, null, {}, { compressed: false }, { compressed: undefined }]) {
    assert.equal(key.oidcNonce(uncompressed), sha256(key.publicKeyHex), String(uncompressed));
  }
  assert.equal(key.oidcNonce(), sha256(key.publicKeyHex));
  for (const bad of ['compressed', true, 1, [], () => {}, { compressed: 'yes' }, { compressed: 1 }, { compresed: true }, { form: 'compressed' }]) {
    throwsKit(() => key.oidcNonce(bad), 'INVALID_INPUT', 'compressed');
  }
  const hostile = new Proxy({}, { ownKeys() { throw new Error('trap'); } });
  throwsKit(() => key.oidcNonce(hostile), 'INVALID_INPUT', 'oidcNonce options');
  key.free();
  assert.equal(key.oidcNonce({ compressed: true }), sha256(key.compressedPublicKeyHex), 'a public value: readable after free()');
});

test('ClientKey.signRetry: the TEK stamps the OTP 202, then becomes the session key', () => {
  const tek = ClientKey.generate();
  const p = pending202();
  const headers = tek.signRetry(p);
  assert.deepEqual(Object.keys(headers), ['Service-Wallet-Signature', 'Request-Id']);
  assert.equal(headers['Request-Id'], p.requestId);
  const check = checkStamp(headers['Service-Wallet-Signature'], p.payloadToSign, tek.compressedPublicKeyHex);
  assert.ok(check.ok, check.error);
  assert.equal(tek.consumed, false);
  throwsKit(() => tek.signRetry(pending202({ expiresAt: iso(-1000) })), 'REQUEST_EXPIRED');
  throwsKit(() => tek.signRetry({ payloadToSign: 'x' }), 'INVALID_PENDING_SIGNATURE');
  const compressed = tek.compressedPublicKeyHex;
  const s = Session.fromClientKey(sessionResponse({ omitBundle: true }), tek);
  assert.equal(s.publicKeyHex, compressed);
  throwsKit(() => tek.signRetry(pending202()), 'KEY_CONSUMED');
});

test('ClientKey.signRetry: the TEK signs a requestId once, in any letter case; its session refuses that id too', () => {
  const tek = ClientKey.generate();
  const p = pending202();
  tek.signRetry(p);
  throwsKit(() => tek.signRetry(p), 'REQUEST_ALREADY_SIGNED');
  const upper = { ...p, requestId: `Request:${p.requestId.slice('Request:'.length).toUpperCase()}` };
  assert.notEqual(upper.requestId, p.requestId);
  throwsKit(() => tek.signRetry(upper), 'REQUEST_ALREADY_SIGNED');
  assert.equal(tek.consumed, false, 'a refused id leaves the TEK usable');
  const other = pending202();
  tek.signRetry(other);
  // Client-held: the TEK becomes the session key, and the session keeps what it signed.
  const s = Session.fromClientKey(sessionResponse({ omitBundle: true }), tek);
  throwsKit(() => s.signRetry(p), 'REQUEST_ALREADY_SIGNED');
  throwsKit(() => s.signRetry(upper), 'REQUEST_ALREADY_SIGNED');
  throwsKit(() => s.signRetry(other), 'REQUEST_ALREADY_SIGNED');
  const fresh = pending202();
  const headers = s.signRetry(fresh);
  assert.ok(checkStamp(headers['Service-Wallet-Signature'], fresh.payloadToSign, s.publicKeyHex).ok);
});

/** An export envelope sealed (by the peer) to `key`, signed by `by`. */
function exportFor(key, by, { organizationId = 'org-1', sandbox = false } = {}) {
  const sealed = hpkeEncrypt({ plainTextBuf: utf8(MNEMONIC), targetKeyBuf: fromHex(key.publicKeyHex) });
  const enc = toHex(uncompressRawPublicKey(sealed.slice(0, 33)));
  const ciphertext = toHex(sealed.slice(33));
  return envelope({ encappedPublic: enc, ciphertext, organizationId }, by, { sandbox });
}

test('openWalletExport: round trip with a throwaway signer; every input form; consumes the key', () => {
  const by = signer();
  for (const wrap of [(e) => e, (e) => JSON.parse(e), (e) => ({ id: 'InternalAccount:1', encryptedWalletCredentials: e }),
    (e) => JSON.stringify({ id: 'InternalAccount:1', encryptedWalletCredentials: e })]) {
    const key = ClientKey.generate();
    assert.equal(openWalletExport(wrap(exportFor(key, by)), key, { pin: by.hex }), MNEMONIC);
    assert.equal(key.consumed, true);
  }
  const key = ClientKey.generate();
  const env = exportFor(key, by);
  assert.equal(openWalletExport(env, key, { pin: by.hex, organizationId: 'org-1' }), MNEMONIC);
  throwsKit(() => openWalletExport(env, key, { pin: by.hex }), 'KEY_CONSUMED');

  const sandboxKey = ClientKey.generate();
  const sandbox = exportFor(sandboxKey, by, { sandbox: true });
  throwsKit(() => openWalletExport(sandbox, sandboxKey), 'INVALID_PUBLIC_KEY');
  assert.equal(openWalletExport(sandbox, sandboxKey, { sandbox: true }), MNEMONIC);
});

test('openWalletExport: wrong pins, tampering, wrong key or organization are typed errors; the key survives them', () => {
  const by = signer();
  const key = ClientKey.generate();
  const env = exportFor(key, by);
  const pin = { pin: by.hex };
  throwsKit(() => openWalletExport(env, key), 'DECRYPTION_FAILED', 'pinned');
  throwsKit(() => openWalletExport(env, key, { pin: signer().hex }), 'DECRYPTION_FAILED', 'pinned');
  throwsKit(() => openWalletExport(tamper(env, 'data'), key, pin), 'DECRYPTION_FAILED', 'signature does not verify');
  throwsKit(() => openWalletExport(tamper(env, 'dataSignature'), key, pin), 'DECRYPTION_FAILED', 'signature does not verify');
  throwsKit(() => openWalletExport(env, key, { ...pin, organizationId: 'org-2' }), 'INVALID_BUNDLE', 'another organization');
  throwsKit(() => openWalletExport(env, key, { ...pin, organizationId: 7 }), 'INVALID_INPUT', 'organizationId');
  throwsKit(() => openWalletExport(env, ClientKey.generate(), pin), 'DECRYPTION_FAILED', 'export bundle does not open');
  throwsKit(() => openWalletExport(env, key.publicKeyHex, pin), 'INVALID_INPUT', 'ClientKey');
  throwsKit(() => openWalletExport('[]', key, pin), 'INVALID_BUNDLE');
  throwsKit(() => openWalletExport({ encryptedWalletCredentials: 5 }, key, pin), 'INVALID_BUNDLE');
  assert.equal(key.consumed, false);
  assert.equal(openWalletExport(env, key, pin), MNEMONIC);
});

test('the published export vector passes the production pin (its key cannot be imported: opened in the wasm tests)', async () => {
  const v = VECTORS.vectors[0];
  // The peer opens it to its mnemonic: the vector itself is sound.
  const peer = await decryptExportBundle({
    exportBundle: v.exportBundle, embeddedKey: v.embeddedPrivateKeyHex, organizationId: v.organizationId, returnMnemonic: true,
  });
  assert.equal(peer, v.expectedPlaintextUtf8);
  // The kit verifies its signature under the default production pin and fails only at
  // decryption, with a key that is not the vector's.
  const key = ClientKey.generate();
  throwsKit(() => openWalletExport(v.exportBundle, key), 'DECRYPTION_FAILED', 'export bundle does not open');
  throwsKit(() => openWalletExport(v.exportBundle, key, { organizationId: 'other' }), 'INVALID_BUNDLE', 'another organization');
  throwsKit(() => openWalletExport(tamper(v.exportBundle, 'dataSignature'), key), 'DECRYPTION_FAILED', 'signature does not verify');
  assert.equal(key.consumed, false);
});
