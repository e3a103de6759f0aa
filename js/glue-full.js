// The full module's glue as the kit's modules use it (the main entry, WalletClient's
// implementation, the session store): wasm-bindgen's exports, with ClientKey and Session
// the kit's handle classes (js/handles.js) over its raw ones, and the functions that take
// or return a handle taking and returning those (a handle argument is checked as the
// handle classes check theirs: INVALID_INPUT naming the function). The isolated signer's
// Worker, which no page script reaches, uses the raw glue.
import * as glue from './embedded_wallet_kit.js';
import { handleClasses } from './handles.js';
import { mainModule } from './guard.js';

export * from './embedded_wallet_kit.js';
export { default } from './embedded_wallet_kit.js';

const { ClientKey, Session, call, keyOf, sessionOf, adoptSession } = handleClasses(glue, mainModule);
export { ClientKey, Session };

/** @type {typeof glue.encryptOtp} */
export const encryptOtp = (targetBundle, otpCode, key, options) => {
  const raw = keyOf(key, 'encryptOtp');
  return call(() => glue.encryptOtp(targetBundle, otpCode, raw, options));
};
/** @type {typeof glue.openWalletExport} */
export const openWalletExport = (response, key, options) => {
  const raw = keyOf(key, 'openWalletExport');
  return call(() => glue.openWalletExport(response, raw, options));
};

// The session store's bindings (js/session-store-impl.js).
/** @type {typeof glue.storeImportClientKey} */
export const storeImportClientKey = (key) => {
  const raw = keyOf(key, 'storeImportClientKey');
  return call(() => glue.storeImportClientKey(raw));
};
/** @type {typeof glue.storeImportSessionKey} */
export const storeImportSessionKey = (session) => {
  const raw = sessionOf(session, 'storeImportSessionKey');
  return call(() => glue.storeImportSessionKey(raw));
};
/** @type {typeof glue.storeAuthorizeStamp} */
export const storeAuthorizeStamp = (session, payload) => {
  const raw = sessionOf(session, 'storeAuthorizeStamp');
  return call(() => glue.storeAuthorizeStamp(raw, payload));
};
/** @type {typeof glue.storeAuthorizeRetry} */
export const storeAuthorizeRetry = (session, pending) => {
  const raw = sessionOf(session, 'storeAuthorizeRetry');
  return call(() => glue.storeAuthorizeRetry(raw, pending));
};
/** @type {typeof glue.storeAuthorizeQuote} */
export const storeAuthorizeQuote = (session, quote) => {
  const raw = sessionOf(session, 'storeAuthorizeQuote');
  return call(() => glue.storeAuthorizeQuote(raw, quote));
};
/** @type {typeof glue.storeStampFromP1363} */
export const storeStampFromP1363 = (session, signature) => {
  const raw = sessionOf(session, 'storeStampFromP1363');
  return call(() => glue.storeStampFromP1363(raw, signature));
};
/** @type {typeof glue.storeSignedRequestIds} */
export const storeSignedRequestIds = (session) => {
  const raw = sessionOf(session, 'storeSignedRequestIds');
  return call(() => glue.storeSignedRequestIds(raw));
};
/** @type {typeof glue.storeExternalSession} */
export const storeExternalSession = (record, publicKeyHex) => adoptSession(call(() => glue.storeExternalSession(record, publicKeyHex)));
/** @type {typeof glue.storeOpenWithDh} */
export const storeOpenWithDh = (response, dh, publicKeyHex) => adoptSession(call(() => glue.storeOpenWithDh(response, dh, publicKeyHex)));
