// The peer, as an app would bundle it for the same three operations as the kit:
// keygen (generateP256KeyPair), opening a session bundle (decryptCredentialBundle, plus
// getPublicKey for the stamper's apiPublicKey) and stamping (ApiKeyStamper).
// bench/peer-bundle.mjs bundles this file with esbuild (minified ESM) for the size comparison
// and for the browser pages; Node imports it directly.
export { generateP256KeyPair, decryptCredentialBundle, getPublicKey } from '@turnkey/crypto';
export { ApiKeyStamper } from '@turnkey/api-key-stamper';
export { uint8ArrayToHexString } from '@turnkey/encoding';
