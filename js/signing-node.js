// Node.js variant of the signing-only entry, `embedded-wallet-kit/signing`: the module is
// read from disk and instantiated synchronously when this file is imported, so `init()`
// resolves at once (it exists for code shared with the browser, and accepts the browser
// variant's argument).
import './platform.js'; // first: WebCrypto and Date.now as they are now (js/signing.js)
import { readFileSync } from 'node:fs';
import { initSync, selfTest } from './embedded_wallet_kit_signing.js';
import { signingReady, readInit } from './guard.js';
import { startModule } from './node-start.js';
import { refuseMainOptions } from './signing-options.js';

const ready = startModule(initSync, readFileSync(new URL('./embedded_wallet_kit_signing_bg.wasm', import.meta.url)), selfTest, signingReady);

/**
 * Resolves at once: this entry instantiates its module when it is imported. Rejects
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
  return refuseMainOptions(read) ?? ready;
}

// Everything else is the browser variant's (this file's own `init` takes precedence).
export * from './signing.js';
