// What the kit's modules share across the line between what loads with the kit and what
// loads on first use, in one module that imports none of the modules that load anything
// lazily, so that no import closes a circle (scripts/check-imports.mjs):
//   - lazy(), the one lazy-load helper: every module the kit loads on first use
//     (WalletClient's, SessionStore's and SessionKeeper's implementations, the isolated
//     signer) is loaded through it, by the module that first needs it;
//   - what those implementations (npm/wallet-client-impl.js, npm/session-store-impl.js,
//     npm/session-keeper-impl.js) share with the modules that load them: the public
//     SessionStore and SessionKeeper classes, which the implementations extend
//     (npm/session-store.js gives them their static `open` and
//     `start`, which load the implementations), the tokens that let only the
//     implementations construct them, the StoredSession registry and the ClientKey check;
//   - the wallet module's glue as the kit's modules use it (below).
// One module rather than two: every page that loads the kit loads it (scripts/size.mjs).
import * as glue from './embedded_wallet_kit.js';
import { KitError } from './platform.js';
import { handleClasses, mainModule } from './guard.js';

/**
 * A load-once function: its first call runs `load` (concurrent callers share the one
 * promise); after a failure, which rejects KitError NOT_INITIALIZED naming `what` (the
 * loader's error as `cause`), a later call runs `load` again.
 *
 * `load` holds the literal `import('./x.js')`, which bundlers and browsers need to see
 * where it is written; the same module resolves the specifier at its top level,
 * `import.meta.resolve?.('./x.js')`, so that an import map injected later cannot redirect
 * it (npm/signer-platform.js). Only `load`'s promise's own `then` is called: a KitPromise
 * (npm/signer-platform.js) stays one, reaching nothing later script could replace.
 *
 * @template T
 * @param {() => Promise<T>} load e.g. `() => import('./session-store-impl.js')`
 * @param {string} what what it loads, for the error: "embedded-wallet-kit could not load its <what>: …"
 * @returns {() => Promise<T>}
 */
export function lazy(load, what) {
  /** @type {Promise<T> | undefined} */
  let loading;
  return () => {
    if (loading === undefined) {
      const attempt = load().then(undefined, (err) => {
        if (loading === attempt) loading = undefined; // a later call retries
        throw new KitError('NOT_INITIALIZED', `embedded-wallet-kit could not load its ${what}: ${err && err.message ? err.message : String(err)}`, err);
      });
      loading = attempt;
    }
    return loading;
  };
}

/** Lets the store's implementation (and only it) construct stores and stored sessions. */
export const STORE_TOKEN = Symbol('session-store');
/** Lets the keeper's implementation (and only it) construct keepers. */
export const KEEPER_TOKEN = Symbol('session-keeper');

/** The public SessionStore class: npm/session-store-impl.js's `Store` extends it. */
export class SessionStore {
  constructor(token) {
    if (token !== STORE_TOKEN) throw new KitError('INVALID_INPUT', 'session store: use await SessionStore.open()');
  }
}

/** The public SessionKeeper class: npm/session-keeper-impl.js's `Keeper` extends it. */
export class SessionKeeper {
  constructor(token) {
    if (token !== KEEPER_TOKEN) throw new KitError('INVALID_INPUT', 'SessionKeeper: use await SessionKeeper.start(client, session)');
  }
}

/**
 * The StoredSessions (npm/session-store-impl.js registers each one it makes, with what
 * WalletClient and SessionKeeper need of it beyond its public API). A WeakMap: only the
 * store's own objects pass, and an entry does not keep its session alive.
 *
 * @type {WeakMap<object, any>}
 */
export const storedSessions = new WeakMap();

/** A live ClientKey (WalletClient and its implementation). */
export function keyArg(key) {
  // isClientKey: an object made from the prototype passes instanceof with no wasm behind it.
  if (!isClientKey(key)) throw new KitError('INVALID_INPUT', 'key must be a ClientKey (from ClientKey.generate())');
  // Checked before any request: a consumed key would burn an OTP or a challenge.
  if (key.consumed) throw new KitError('KEY_CONSUMED', 'this ClientKey was already used to open a session; generate a new one');
  return key;
}

// ------------------------------------------------------------------------------------
// The wallet module's glue as the kit's modules use it (the main entry, WalletClient's
// implementation, the session store): ClientKey and Session the kit's handle classes
// (npm/guard.js) over wasm-bindgen's raw ones, and the functions that take or return a
// handle taking and returning those (a handle argument is checked as the handle classes
// check theirs: INVALID_INPUT naming the function). The glue's other exports are imported
// from the glue itself: Parcel 2.16's scope hoisting drops this module's namespace import
// of the glue when the module also re-exports from it (`export *`). The isolated signer's
// Worker, which no page script reaches, uses the raw glue.
const { ClientKey, Session, call, keyOf, sessionOf, isClientKey, isSession, adoptSession } = handleClasses(glue, mainModule);
export { ClientKey, Session, isClientKey, isSession };

/**
 * The glue function `name`, failing closed (npm/guard.js) as the handle classes' members
 * do, with its handle argument at `at` (`of`: keyOf or sessionOf) taken as the raw
 * object behind it; or, with `of` true, returning a Session's handle.
 *
 * @param {string} name
 * @param {Function | boolean} [of]
 * @param {number} [at]
 * @returns {any}
 */
const over = (name, of, at = 0) => (/** @type {any[]} */ ...args) => {
  if (typeof of === 'function') args[at] = of(args[at], name);
  const out = call(() => /** @type {any} */ (glue)[name](...args));
  return of === true ? adoptSession(out) : out;
};

/** @type {typeof import('./index.js').encryptOtp} */
export const encryptOtp = over('encryptOtp', keyOf, 2);
/** @type {typeof import('./index.js').openWalletExport} */
export const openWalletExport = over('openWalletExport', keyOf, 1);

// The session store's bindings (npm/session-store-impl.js).
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
export const storeExternalSession = over('storeExternalSession', true);
/** @type {typeof glue.storeOpenWithDh} */
export const storeOpenWithDh = over('storeOpenWithDh', true);
/** @type {typeof glue.storeEncapsulatedKey} */
export const storeEncapsulatedKey = over('storeEncapsulatedKey');
/** @type {typeof glue.storeRecordRequestId} */
export const storeRecordRequestId = over('storeRecordRequestId');

const unsupportedWhy = (what) =>
  `this browser has no WebAuthn support (${what}); passkeys need a secure context (https or http://localhost)`;

/** Why this page has no WebAuthn (PASSKEY_UNSUPPORTED's message, capabilities()); undefined when it has it. */
export function webAuthnMissing() {
  const creds = globalThis.navigator?.credentials;
  if (typeof globalThis.PublicKeyCredential !== 'function') return unsupportedWhy('no PublicKeyCredential');
  if (typeof creds?.create !== 'function' || typeof creds.get !== 'function') return unsupportedWhy('no navigator.credentials');
}
