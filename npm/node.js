// Node.js entry of embedded-wallet-kit.
//
// The browser entry's exports, with its own `init`: the wallet module is read
// from disk and instantiated synchronously at the first `init()` or call, never at import
// (npm/node-start.js: server bundles import the kit freely), and WalletClient's
// implementation, lazy in the browser, is imported with this file; `init()` never fetches a
// `file:` URL. Node has no WebAuthn: `passkey.isSupported()` is false and ceremonies reject
// with PASSKEY_UNSUPPORTED (INVALID_INPUT for bad options), while
// `passkey.registrationBody` works as in the browser.
import { KitError } from './platform.js'; // first: WebCrypto and Date.now as they are now (npm/browser.js)
import { initSync, selfTest } from './embedded_wallet_kit.js';
import { mainModule, readInit, wantsIsolation } from './guard.js';
import { startOnDemand } from './node-start.js';
import { moduleLoaded, provideModuleLoader } from './passkey.js';
import { provideWalletClient } from './wallet-client.js';
import * as walletClientImpl from './wallet-client-impl.js';

const started = startOnDemand(
  mainModule, initSync, selfTest, () => new URL('./embedded_wallet_kit_bg.wasm', import.meta.url), 'embedded_wallet_kit_bg.wasm', moduleLoaded,
);
// A passkey ceremony before init() starts the module the same way.
provideModuleLoader(started);
provideWalletClient(walletClientImpl);

/**
 * Starts the module (synchronously, once) and resolves; rejects NOT_INITIALIZED when its
 * .wasm cannot be read (npm/node-start.js), ENGINE_FAULT when the self-test failed.
 * Accepts (and ignores) the browser entry's optional argument, including `{ passkeys: true }`;
 * `{ passkeys: { module_or_path } }` rejects INVALID_INPUT as in the browser, and
 * `{ isolate: 'worker' }` too: the Worker-isolated signer is browser-only.
 * Typed as index.d.ts declares it (tests/types/entries.ts checks).
 *
 * @overload
 * @param {import('./index.js').IsolatedInitOptions} options
 * @returns {Promise<import('./index.js').IsolatedKit>}
 */
/**
 * @overload
 * @param {import('./index.js').InitInput | import('./index.js').InitOptions} [input]
 * @returns {Promise<void>}
 */
/**
 * @param {unknown} [input]
 * @returns {Promise<any>}
 */
export function init(input) {
  let read;
  try {
    read = readInit(input);
  } catch (err) {
    return Promise.reject(err);
  }
  const passkeys = read.passkeys;
  if (passkeys !== null && typeof passkeys === 'object') {
    return Promise.reject(new KitError('INVALID_INPUT', 'init: passkeys takes true or false: the passkey API is part of the module init() loads'));
  }
  if (wantsIsolation(read)) {
    return Promise.reject(new KitError('INVALID_INPUT', "init({ isolate: 'worker' }) is browser-only: the Node entry has no Worker-isolated signer"));
  }
  return started();
}

// Everything else is the browser entry's (this file's own `init` takes precedence over
// the re-exported one); its init() fetches nothing unless called.
export * from './browser.js';
