// `embedded-wallet-kit/testing` in Node: the software WebAuthn authenticator for tests
// (see testing.js). NEVER for real users: its private keys live in ordinary memory.
//
// The testing module is read from disk and instantiated synchronously when this file is
// imported, so `SoftAuthenticator` works at once; `init()` only exists for code shared
// with the browser and resolves at once.
import { readFileSync } from 'node:fs';
import { initSync, SoftAuthenticator } from './embedded_wallet_kit_testing.js';
// testing.js also sets up free() on the class (a later call throws KitError).
import { KitError } from './testing.js';

initSync({ module: readFileSync(new URL('./embedded_wallet_kit_testing_bg.wasm', import.meta.url)) });

const ready = Promise.resolve();

/**
 * Resolves at once: the Node entry instantiates the testing module when it is imported.
 * Accepts (and ignores) the browser entry's optional argument.
 *
 * @param {unknown} [_input]
 * @returns {Promise<void>}
 */
export function init(_input) {
  return ready;
}

export { KitError, SoftAuthenticator };
