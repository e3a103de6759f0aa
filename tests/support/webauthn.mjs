// The kit's passkey JSON as @simplewebauthn/server (the independent verifier) takes it:
// RegistrationResponseJSON / AuthenticationResponseJSON. The kit spells the field
// `clientDataJson` (the API's spelling); the verifier needs `clientDataJSON`, and `id` and
// `rawId` must both be the credential id. One mapping for every test that verifies.
// Also the byte surgery the tamper tests need.

/** `passkey.register` / `SoftAuthenticator.register` output → RegistrationResponseJSON. */
export function registrationResponseJSON(att) {
  return {
    id: att.credentialId,
    rawId: att.credentialId,
    type: 'public-key',
    response: {
      clientDataJSON: att.clientDataJson,
      attestationObject: att.attestationObject,
      transports: att.transports,
    },
    clientExtensionResults: {},
  };
}

/**
 * `passkey.authenticate` / `SoftAuthenticator.authenticate` output →
 * AuthenticationResponseJSON. An omitted `userHandle` stays omitted.
 */
export function authenticationResponseJSON(assertion) {
  const response = {
    clientDataJSON: assertion.clientDataJson,
    authenticatorData: assertion.authenticatorData,
    signature: assertion.signature,
  };
  if ('userHandle' in assertion) response.userHandle = assertion.userHandle;
  return {
    id: assertion.credentialId,
    rawId: assertion.credentialId,
    type: 'public-key',
    response,
    clientExtensionResults: {},
  };
}

/** A base64url field with the byte at `index` (negative: from the end) XORed with `mask`. */
export function flipByte(field, index, mask = 0x01) {
  const bytes = Buffer.from(field, 'base64url');
  const at = index < 0 ? bytes.length + index : index;
  if (at < 0 || at >= bytes.length) throw new RangeError(`byte ${index} of a ${bytes.length}-byte field`);
  bytes[at] ^= mask;
  return bytes.toString('base64url');
}

/**
 * The COSE_Key (RFC 9053, EC2 / P-256 / ES256) of a node:crypto P-256 public or private
 * KeyObject, as @simplewebauthn/server's `credential.publicKey` takes it: the CBOR map
 * {1: 2, 3: -7, -1: 1, -2: x, -3: y}, encoded by hand (deterministic, 77 bytes).
 */
export function coseP256PublicKey(key) {
  const { crv, x, y } = key.export({ format: 'jwk' });
  if (crv !== 'P-256') throw new TypeError(`not a P-256 key: ${crv}`);
  const coord = (c) => {
    const b = Buffer.from(c, 'base64url');
    if (b.length !== 32) throw new TypeError(`coordinate of ${b.length} bytes`);
    return [0x58, 0x20, ...b]; // byte string, 32 bytes
  };
  return Uint8Array.from([
    0xa5, // map of 5
    0x01, 0x02, // kty: EC2
    0x03, 0x26, // alg: -7 (ES256)
    0x20, 0x01, // crv (-1): P-256
    0x21, ...coord(x), // x (-2)
    0x22, ...coord(y), // y (-3)
  ]);
}
