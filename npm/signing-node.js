// Node.js variant of the signing-only entry, `embedded-wallet-kit/signing`: the module is
// read from disk and instantiated synchronously at the first `init()` or call, never at
// import (npm/node-start.js); `init()` exists for code shared with the browser, and accepts
// the browser variant's argument.
import './platform.js'; // first: WebCrypto and Date.now as they are now (npm/signing.js)
import { initSync, selfTest } from './embedded_wallet_kit_signing.js';
import { signingReady, readInit } from './guard.js';
import { startOnDemand } from './node-start.js';
import { refuseMainOptions } from './signing-options.js';

const started = startOnDemand(
  signingReady, initSync, selfTest, () => new URL('./embedded_wallet_kit_signing_bg.wasm', import.meta.url), 'embedded_wallet_kit_signing_bg.wasm',
);

/**
 * Starts the module (synchronously, once) and resolves, as the Node main entry does. Rejects
 * INVALID_INPUT for the main entry's options (`passkeys`, `isolate`), as in the browser.
 *
 * @param {unknown} [input]
 * @returns {Promise<void>}
 */
export function init(input) {
  let read;
  try {
    read = readInit(input);
  } catch (err) {
    return Promise.reject(err);
  }
  return refuseMainOptions(read) ?? started();
}

// Everything else is the browser variant's (this file's own `init` takes precedence).
export * from './signing.js';
