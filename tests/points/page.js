// One page of tests/points/run.mjs: the shipped package (the full entry, or the
// signing-only one with ?entry=signing) opens what the driver sends, and reports each
// outcome for the driver to compare with @noble/curves and @turnkey/crypto in Node.
/* global window, URLSearchParams, WebAssembly -- a browser page module */
const signing = new URLSearchParams(window.location.search).get('entry') === 'signing';
const pt = {};
window.pt = pt;

const kit = await import(signing ? '/pkg/signing.js' : '/pkg/browser.js');
const { init, ClientKey, Session } = kit;

/** A verify response carrying `bundle`. */
const response = (bundle) => {
  const now = new Date().toISOString();
  return {
    id: 'Session:00000000-0000-4000-8000-000000000000',
    accountId: 'InternalAccount:00000000-0000-4000-8000-000000000001',
    type: 'EMAIL_OTP',
    createdAt: now,
    updatedAt: now,
    expiresAt: new Date(Date.now() + 3600_000).toISOString(),
    encryptedSessionSigningKey: bundle,
  };
};

/** The kit's error code, TRAP for a trap of the wasm module (an engine fault here), else THROWN. */
const outcome = (err) => `${err?.code ?? (err instanceof WebAssembly.RuntimeError ? 'TRAP' : 'THROWN')}: ${err?.message ?? err}`;

let keys = [];
/** `n` fresh ClientKeys (kept for `open`); their uncompressed public keys. */
pt.keys = (n) => {
  for (const k of keys) k.free();
  keys = Array.from({ length: n }, () => ClientKey.generate());
  return keys.map((k) => k.publicKeyHex);
};

/** Opens bundles[i] with key i: the session's public key, or the error. */
pt.open = (bundles) => bundles.map((bundle, i) => {
  try {
    const session = Session.open(response(bundle), keys[i]);
    const pub = session.publicKeyHex;
    session.free();
    return `ok: ${pub}`;
  } catch (err) {
    return outcome(err);
  }
});

/**
 * Opens each bundle with a fresh key it was not sealed to (an encapsulated key that is not
 * on the curve consumes the key it was opened with): an encapsulated key that decodes
 * gets as far as the tag (DECRYPTION_FAILED).
 */
pt.probe = (bundles) => bundles.map((bundle) => {
  const key = ClientKey.generate();
  try {
    Session.open(response(bundle), key);
    return 'ok';
  } catch (err) {
    return outcome(err);
  } finally {
    key.free();
  }
});

try {
  await init();
  pt.ready = true;
} catch (err) {
  pt.failed = outcome(err);
}
