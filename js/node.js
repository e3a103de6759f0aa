// Node.js entry of embedded-wallet-kit.
//
// Same named exports as the browser entry. The WebAssembly module is read from disk and
// instantiated synchronously when this file is imported, so `init()` only exists for
// code shared with the browser: it resolves at once and never fetches a `file:` URL.
import { readFileSync } from 'node:fs';
import { initSync, ClientKey as RawClientKey, Session as RawSession } from './embedded_wallet_kit.js';
import { KitError } from './kit-error.js';
import { exportClass, markReady } from './guard.js';

initSync({ module: readFileSync(new URL('./embedded_wallet_kit_bg.wasm', import.meta.url)) });
markReady();

const ready = Promise.resolve();

/**
 * Resolves at once: the Node entry instantiates the module when it is imported.
 * Accepts (and ignores) the browser entry's optional argument.
 *
 * @param {unknown} [_input]
 * @returns {Promise<void>}
 */
export function init(_input) {
  return ready;
}

export { KitError };

/** @type {typeof RawClientKey} */
export const ClientKey = exportClass(RawClientKey, 'ClientKey');
/** @type {typeof RawSession} */
export const Session = exportClass(RawSession, 'Session');
