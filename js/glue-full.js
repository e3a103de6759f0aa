// The full module's glue as the kit's modules use it (the main entry, WalletClient's
// implementation, the session store): wasm-bindgen's exports, with ClientKey and Session
// the kit's handle classes (js/guard.js) over its raw ones, and the functions that take
// or return a handle taking and returning those (a handle argument is checked as the
// handle classes check theirs: INVALID_INPUT naming the function). The isolated signer's
// Worker, which no page script reaches, uses the raw glue.
import * as glue from './embedded_wallet_kit.js';
import { handleClasses, mainModule } from './guard.js';

export * from './embedded_wallet_kit.js';
export { default } from './embedded_wallet_kit.js';

const { ClientKey, Session, call, keyOf, sessionOf, isKey, isSession, adoptSession } = handleClasses(glue, mainModule);
export { ClientKey, Session, isKey, isSession };

/**
 * The glue function `name` with its handle argument at `at` (`of`: keyOf or sessionOf)
 * taken as the raw object behind it; or, without `of`, returning a Session's handle.
 *
 * @param {string} name
 * @param {Function} [of]
 * @param {number} [at]
 * @returns {any}
 */
const over = (name, of, at = 0) => (/** @type {any[]} */ ...args) => {
  if (!of) return adoptSession(call(() => /** @type {any} */ (glue)[name](...args)));
  args[at] = of(args[at], name);
  return call(() => /** @type {any} */ (glue)[name](...args));
};

/** @type {typeof glue.encryptOtp} */
export const encryptOtp = over('encryptOtp', keyOf, 2);
/** @type {typeof glue.openWalletExport} */
export const openWalletExport = over('openWalletExport', keyOf, 1);

// The session store's bindings (js/session-store-impl.js).
/** @type {typeof glue.storeImportClientKey} */
export const storeImportClientKey = over('storeImportClientKey', keyOf);
/** @type {typeof glue.storeImportSessionKey} */
export const storeImportSessionKey = over('storeImportSessionKey', sessionOf);
/** @type {typeof glue.storeAuthorizeStamp} */
export const storeAuthorizeStamp = over('storeAuthorizeStamp', sessionOf);
/** @type {typeof glue.storeAuthorizeRetry} */
export const storeAuthorizeRetry = over('storeAuthorizeRetry', sessionOf);
/** @type {typeof glue.storeAuthorizeQuote} */
export const storeAuthorizeQuote = over('storeAuthorizeQuote', sessionOf);
/** @type {typeof glue.storeStampFromP1363} */
export const storeStampFromP1363 = over('storeStampFromP1363', sessionOf);
/** @type {typeof glue.storeSignedRequestIds} */
export const storeSignedRequestIds = over('storeSignedRequestIds', sessionOf);
/** @type {typeof glue.storeExternalSession} */
export const storeExternalSession = over('storeExternalSession');
/** @type {typeof glue.storeOpenWithDh} */
export const storeOpenWithDh = over('storeOpenWithDh');
