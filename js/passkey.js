// The `passkey` namespace of the main entry (browser.js and node.js share it).
//
// The WebAuthn driver is part of the full module, the one the main entry's `init()` loads:
// once `init()` resolved, `register` and `authenticate` call straight into it, with no
// `await` between the click handler and `navigator.credentials` (Safari ties WebAuthn to
// the user's click: transient activation). A call before the module is instantiated
// loads it first (the entry's loader: `provideModuleLoader`); so does the isolated
// signer's page side, which needs the module for passkeys only. The Node entry
// instantiates the module at import (Node has no WebAuthn: ceremonies reject
// PASSKEY_UNSUPPORTED).
//
// The state lives in this module, which both variants of the main entry import from the same URL.
import * as glue from './embedded_wallet_kit.js';
import { KitError } from './kit-error.js';

/** The full module's glue, once it is instantiated. */
let mod;
/** @type {(source?: unknown) => Promise<unknown>} instantiates the full module (the entry's loader) */
let load = () => Promise.reject(new KitError('NOT_INITIALIZED', 'embedded-wallet-kit: no loader for its WebAssembly module'));
/** Bumped by `cancel()`, so a ceremony still waiting for the module is cancelled too. */
let epoch = 0;

/**
 * The entry's loader of the full module (browser.js): what a passkey call before
 * `init()` awaits.
 *
 * @param {(source?: unknown) => Promise<unknown>} loader
 */
export function provideModuleLoader(loader) {
  load = loader;
}

/** Says that the full module is instantiated (the entries, once it is). */
export function moduleLoaded() {
  mod = glue;
}

/**
 * The full module's glue, instantiating the module first if no one did (concurrent
 * callers share the entry's one load; after a failure, KitError NOT_INITIALIZED, a later
 * call tries again).
 *
 * @param {unknown} [source] what wasm-bindgen's loader takes as `module_or_path`;
 *   default: the .wasm next to the entry
 * @returns {Promise<object>}
 */
export function loadPasskeys(source) {
  if (mod !== undefined) return Promise.resolve(mod);
  return load(source).then(() => glue);
}

function notLoaded(what) {
  return new KitError(
    'NOT_INITIALIZED',
    `embedded-wallet-kit is not initialised: \`await init()\` must resolve before passkey.${what}() is used`,
  );
}

/** Anything a ceremony rejects with is a KitError; a non-kit error (a wasm trap) becomes PASSKEY_FAILED. */
function asKitError(err) {
  if (err instanceof KitError) throw err;
  throw new KitError('PASSKEY_FAILED', `the passkey ceremony failed: ${err && err.message ? err.message : String(err)}`, err);
}

/**
 * Runs a ceremony export. With the module loaded, the wasm export is called synchronously
 * (no await before navigator.credentials); otherwise after loading it, unless `cancel()`
 * was called meanwhile.
 */
function ceremony(name, options) {
  if (mod !== undefined) {
    try {
      return mod[name](options).then(undefined, asKitError);
    } catch (err) {
      return Promise.reject(err).then(undefined, asKitError);
    }
  }
  const started = epoch;
  return loadPasskeys().then((glue) => {
    if (epoch !== started) {
      throw new KitError('PASSKEY_CANCELLED', 'the passkey ceremony was cancelled while the WebAssembly module was loading');
    }
    return glue[name](options);
  }).then(undefined, asKitError);
}

/** A probe that resolves to `fallback` where the browser rejects. */
function probe(name, fallback, coerce) {
  return loadPasskeys().then((glue) => {
    let p;
    try {
      p = glue[name]();
    } catch {
      return fallback;
    }
    return Promise.resolve(p).then(coerce, () => fallback);
  });
}

/**
 * The `passkey` export of both entries (index.d.ts documents each function). The probes
 * resolve to false / undefined where the browser rejects; the sync functions need the
 * module loaded; `cancel()` also cancels ceremonies still waiting for the module.
 *
 * @type {import('./index.js').PasskeyApi}
 */
export const passkey = Object.freeze({
  register(options) {
    return ceremony('passkeyRegister', options);
  },

  authenticate(options) {
    return ceremony('passkeyAuthenticate', options);
  },

  isSupported() {
    if (mod === undefined) throw notLoaded('isSupported');
    return mod.passkeyIsSupported();
  },

  platformAuthenticatorAvailable() {
    return probe('passkeyPlatformAuthenticatorAvailable', false, (v) => v === true);
  },

  conditionalMediationAvailable() {
    return probe('passkeyConditionalMediationAvailable', false, (v) => v === true);
  },

  clientCapabilities() {
    return probe('passkeyClientCapabilities', undefined, (v) => (v !== null && typeof v === 'object' ? v : undefined));
  },

  cancel() {
    epoch++;
    if (mod !== undefined) mod.passkeyCancel();
  },

  registrationBody(accountId, nickname, challenge, attestation) {
    if (mod === undefined) throw notLoaded('registrationBody');
    return mod.passkeyRegistrationBody(accountId, nickname, challenge, attestation);
  },
});
