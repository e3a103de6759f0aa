// Node.js entry of embedded-wallet-kit.
//
// Same named exports as the browser entry. Both WebAssembly modules (signing and
// passkey) are read from disk and instantiated synchronously when this file is imported,
// so `init()` only exists for code shared with the browser: it resolves at once and
// never fetches a `file:` URL. Node has no WebAuthn: `passkey.isSupported()` is false and
// ceremonies reject with PASSKEY_UNSUPPORTED (INVALID_INPUT for bad options), while
// `passkey.registrationBody` works as in the browser.
import { readFileSync } from 'node:fs';
import {
  initSync,
  ClientKey as RawClientKey,
  Session as RawSession,
  inspectPayload as rawInspectPayload,
  encryptOtp as rawEncryptOtp,
  openWalletExport as rawOpenWalletExport,
} from './embedded_wallet_kit.js';
import * as passkeyGlue from './embedded_wallet_kit_passkey.js';
import { KitError } from './kit-error.js';
import { exportClass, guardFunction, markReady } from './guard.js';
import { passkey, providePasskeyModule } from './passkey.js';
import { WalletClient } from './wallet-client.js';

initSync({ module: readFileSync(new URL('./embedded_wallet_kit_bg.wasm', import.meta.url)) });
markReady();
passkeyGlue.initSync({ module: readFileSync(new URL('./embedded_wallet_kit_passkey_bg.wasm', import.meta.url)) });
providePasskeyModule(passkeyGlue);

const ready = Promise.resolve();

/**
 * Resolves at once: the Node entry instantiates both modules when it is imported.
 * Accepts (and ignores) the browser entry's optional argument, including `{ passkeys: true }`.
 *
 * @param {unknown} [_input]
 * @returns {Promise<void>}
 */
export function init(_input) {
  return ready;
}

export { KitError, passkey };
export { WalletClient };
export { SessionStore } from './session-store.js';

/** @type {typeof RawClientKey} */
export const ClientKey = exportClass(RawClientKey, 'ClientKey', { create: 'ClientKey.generate()' });
/** @type {typeof RawSession} */
export const Session = exportClass(RawSession, 'Session', {
  create: 'Session.open, Session.sandbox or Session.fromClientKey',
  keyClass: RawClientKey,
});
/** @type {typeof rawInspectPayload} */
export const inspectPayload = guardFunction(rawInspectPayload, 'inspectPayload');
// Newer deployments (DESIGN §3): encrypted OTP and wallet export.
/** @type {typeof rawEncryptOtp} */
export const encryptOtp = guardFunction(rawEncryptOtp, 'encryptOtp', 2, RawClientKey);
/** @type {typeof rawOpenWalletExport} */
export const openWalletExport = guardFunction(rawOpenWalletExport, 'openWalletExport', 1, RawClientKey);
