// Test fixtures shared by the node --test suites and the Vite end-to-end driver:
// service-shaped responses, a session-bundle sealer built from the real peer
// (@turnkey/crypto + @turnkey/encoding), and an independent stamp verifier
// (@noble/curves, cross-checked with node:crypto).
import { randomUUID, randomBytes, createHash, createPublicKey, verify as nodeVerify } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { hpkeEncrypt } from '@turnkey/crypto';
import { bs58check, uint8ArrayFromHexString, uint8ArrayToHexString } from '@turnkey/encoding';
import { p256 } from '@noble/curves/nist.js';


export const PKG_DIR = fileURLToPath(new URL('../../pkg/', import.meta.url));
export const WASM_PATH = fileURLToPath(new URL('../../pkg/embedded_wallet_kit_bg.wasm', import.meta.url));
export const SIGNING_WASM_PATH = fileURLToPath(new URL('../../pkg/embedded_wallet_kit_signing_bg.wasm', import.meta.url));

export const HOUR = 3600_000;
export const iso = (msFromNow) => new Date(Date.now() + msFromNow).toISOString();

/** A verify/refresh response as the service returns it. */
export function sessionResponse({ bundle, expiresAt = iso(HOUR), type = 'EMAIL_OTP', omitBundle = false } = {}) {
  const now = new Date().toISOString();
  const r = {
    id: `Session:${randomUUID()}`,
    accountId: `InternalAccount:${randomUUID()}`,
    type,
    nickname: 'alice@example.com',
    createdAt: now,
    updatedAt: now,
    expiresAt,
  };
  if (!omitBundle) r.encryptedSessionSigningKey = bundle ?? 'sandbox-stub-bundle';
  return r;
}

/** A 202 PendingSignature body. */
export function pending202({ payloadToSign = JSON.stringify({ op: 'revoke', nonce: randomUUID() }), expiresAt = iso(5 * 60_000) } = {}) {
  return { type: 'EMAIL_OTP', payloadToSign, requestId: `Request:${randomUUID()}`, expiresAt };
}

/** A quote from an embedded-wallet source. */
export function quote({ payloadToSign = JSON.stringify({ quote: randomUUID() }), expiresAt = iso(2 * 60_000), omitPayload = false } = {}) {
  const q = {
    id: `Quote:${randomUUID()}`,
    status: 'PENDING',
    createdAt: new Date().toISOString(),
    expiresAt,
    totalSendingAmount: 1000,
    totalReceivingAmount: 990,
    exchangeRate: 1,
    feesIncluded: 10,
    transactionId: `Transaction:${randomUUID()}`,
  };
  if (!omitPayload) q.payloadToSign = payloadToSign;
  return q;
}

/** A random valid P-256 private scalar (32 bytes). */
export function randomScalar() {
  for (;;) {
    const k = new Uint8Array(randomBytes(32));
    if (p256.utils.isValidSecretKey(k)) return k;
  }
}

/** Compressed SEC1 public key hex of a scalar, computed by @noble/curves. */
export const compressedPublicKeyHex = (scalar) => uint8ArrayToHexString(p256.getPublicKey(scalar, true));

/**
 * Seals `plaintext` to `clientPublicKeyHex` (uncompressed, 130 hex) exactly as the service
 * does: @turnkey/crypto hpkeEncrypt (compressed enc ‖ ciphertext+tag), then base58check.
 */
export function sealBundle(plaintext, clientPublicKeyHex) {
  const sealed = hpkeEncrypt({ plainTextBuf: plaintext, targetKeyBuf: uint8ArrayFromHexString(clientPublicKeyHex) });
  return bs58check.encode(sealed);
}

/** base64url (no padding) decode to a UTF-8 string. */
export const b64urlToString = (s) => Buffer.from(s, 'base64url').toString('utf8');

/**
 * Decodes a stamp and verifies it over `payload` with two independent verifiers:
 * @noble/curves (DER, explicit SHA-256 prehash, lowS: false) and node:crypto.
 * Returns { ok, json, keys, nobleOk, nodeOk } without throwing.
 */
export function checkStamp(stamp, payload, expectedPublicKeyHex) {
  const out = { ok: false, json: null, keys: null, nobleOk: false, nodeOk: false, error: null };
  try {
    if (!/^[A-Za-z0-9_-]+$/.test(stamp)) throw new Error('stamp is not base64url without padding');
    const text = b64urlToString(stamp);
    const json = JSON.parse(text);
    out.json = json;
    out.keys = Object.keys(json);
    // The exact compact serialisation (keys in order, no spaces).
    const canonical = JSON.stringify({ publicKey: json.publicKey, scheme: json.scheme, signature: json.signature });
    if (text !== canonical) throw new Error(`stamp JSON is not the compact canonical form: ${text}`);
    if (json.scheme !== 'SIGNATURE_SCHEME_TK_API_P256') throw new Error(`scheme ${json.scheme}`);
    if (!/^0[23][0-9a-f]{64}$/.test(json.publicKey)) throw new Error(`publicKey ${json.publicKey}`);
    if (expectedPublicKeyHex !== undefined && json.publicKey !== expectedPublicKeyHex) {
      throw new Error(`publicKey ${json.publicKey} != expected ${expectedPublicKeyHex}`);
    }
    if (!/^30[0-9a-f]+$/.test(json.signature)) throw new Error('signature is not lowercase DER hex');
    const der = uint8ArrayFromHexString(json.signature);
    const pub = uint8ArrayFromHexString(json.publicKey);
    const digest = new Uint8Array(createHash('sha256').update(Buffer.from(payload, 'utf8')).digest());
    out.nobleOk = p256.verify(der, digest, pub, { prehash: false, lowS: false, format: 'der' });
    const keyObject = createPublicKey({
      key: { kty: 'EC', crv: 'P-256', ...jwkXY(pub) },
      format: 'jwk',
    });
    out.nodeOk = nodeVerify('sha256', Buffer.from(payload, 'utf8'), { key: keyObject, dsaEncoding: 'der' }, Buffer.from(der));
    out.ok = out.nobleOk && out.nodeOk;
  } catch (err) {
    out.error = err.message;
  }
  return out;
}

function jwkXY(compressed) {
  const point = p256.Point.fromBytes(compressed).toBytes(false);
  return {
    x: Buffer.from(point.subarray(1, 33)).toString('base64url'),
    y: Buffer.from(point.subarray(33, 65)).toString('base64url'),
  };
}
