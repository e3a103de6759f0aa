// The `passkey` namespace of embedded-wallet-kit, shared by both entries.
//
// The WebAuthn code is a second wasm module (embedded_wallet_kit_wallet*), so pages that
// only sign never download it. In the browser it is loaded on first use — or up front by
// `init({ passkeys: true })`, which is what pages should do: Safari ties WebAuthn to the
// user's click (transient activation), so once the module is loaded `register` and
// `authenticate` call straight into it, with no `await` between the click handler and
// `navigator.credentials`. The Node entry loads the module at import and hands it over
// with `providePasskeyModule` (Node has no WebAuthn: ceremonies reject PASSKEY_UNSUPPORTED).
//
// The state lives in this module, which both entries import from the same URL.
import { KitError } from './kit-error.js';

/** The initialised passkey glue module, once loaded. */
let mod;
/** @type {Promise<object> | undefined} the load in progress (or done) */
let loading;
/** Bumped by `cancel()`, so a ceremony still waiting for the module is cancelled too. */
let epoch = 0;

/**
 * Hands over an already initialised passkey glue module (the Node entry).
 *
 * @param {object} glue
 */
export function providePasskeyModule(glue) {
  mod = glue;
  loading = Promise.resolve(glue);
}

function loadFailure(err) {
  return new KitError(
    'NOT_INITIALIZED',
    `embedded-wallet-kit could not load its wallet module: ${err && err.message ? err.message : String(err)}`,
    err,
  );
}

/**
 * Loads the wallet module once (concurrent callers share one promise); after a failure
 * (KitError NOT_INITIALIZED, the loader's error as `cause`) a later call tries again.
 *
 * @param {unknown} [source] what wasm-bindgen's loader takes as `module_or_path`;
 *   default: the .wasm next to this file
 * @returns {Promise<object>}
 */
export function loadPasskeys(source) {
  if (loading === undefined) {
    // Assigned in two steps for the type checker: the catch below reads `attempt`, which is
    // assigned by then (the body's first step, import(), never throws synchronously).
    let attempt;
    attempt = (async () => {
      try {
        const glue = await import('./embedded_wallet_kit_wallet.js');
        await glue.default({
          module_or_path: source === undefined || source === null
            ? new URL('./embedded_wallet_kit_wallet_bg.wasm', import.meta.url)
            : source,
        });
        mod = glue;
        return glue;
      } catch (err) {
        if (loading === attempt) loading = undefined;
        throw loadFailure(err);
      }
    })();
    loading = attempt;
  }
  return loading;
}

function notLoaded(what) {
  return new KitError(
    'NOT_INITIALIZED',
    `the wallet module is not loaded: \`await init({ passkeys: true })\` must resolve before passkey.${what}() is used`,
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
      throw new KitError('PASSKEY_CANCELLED', 'the passkey ceremony was cancelled while the wallet module was loading');
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
