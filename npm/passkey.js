// The `passkey` namespace of the main entry (browser.js and node.js share it).
//
// The ceremonies run here; the wallet module, the one the main entry's `init()` loads, only
// builds the WebAuthn options, reads the credential and names the error, synchronously.
// Once `init()` resolved, `register` and `authenticate` reach `navigator.credentials`
// within the call, with no `await` between the click handler and it (Safari ties WebAuthn
// to the user's click: transient activation). A call before the module is instantiated
// loads it first (the entry's loader: `provideModuleLoader`; a ceremony without WebAuthn
// loads nothing and rejects PASSKEY_UNSUPPORTED at once); so does the isolated
// signer's page side, which needs the module for passkeys only. The Node entry starts
// the module at its first call (Node has no WebAuthn: ceremonies reject
// PASSKEY_UNSUPPORTED).
//
// The state lives in this module, which both variants of the main entry import from the same URL.
import * as glue from './embedded_wallet_kit.js';
import { failClosed, mainModule } from './guard.js';
import { KitError, now } from './platform.js';
import { webAuthnMissing } from './shared.js';

/** @type {() => Promise<typeof import('./capabilities.js')>} npm/capabilities.js's loader (the entry's), for the signal methods */
let loadCapabilities;
/** The entry's loader of npm/capabilities.js (browser.js). */
export function provideCapabilities(loader) {
  loadCapabilities = loader;
}
const signal = (method) => (options) => loadCapabilities().then((m) => m.signal(method, options));

/**
 * A glue module's exports failing closed (npm/guard.js failClosed): each function wrapped,
 * each class (the flow classes: OtpLoginFlow, ...) in place, its static functions, methods
 * and getters; a frozen object with the same names. Made once (`mod`).
 *
 * @template {object} G
 * @param {G} glue
 * @param {typeof mainModule} module
 * @returns {G}
 */
function failClosedExports(glue, module) {
  const out = Object.create(null);
  for (const [name, value] of Object.entries(/** @type {Record<string, any>} */ (glue))) {
    const cls = value?.prototype?.free;
    out[name] = typeof value !== 'function' || cls ? value : failClosed(value, module);
    if (!cls) continue;
    for (const target of [value, value.prototype]) {
      for (const [key, d] of Object.entries(Object.getOwnPropertyDescriptors(target))) {
        // (A class's prototype is not configurable; its `constructor`, wrapped too, is not called.)
        if (key.startsWith('__') || !d.configurable) continue;
        if (typeof d.value === 'function') d.value = failClosed(d.value, module, key === 'free' || key === 'close');
        else if (typeof d.get === 'function') d.get = failClosed(d.get, module);
        else continue;
        Object.defineProperty(target, key, d);
      }
    }
  }
  return Object.freeze(out);
}

/** The wallet module's glue, once it is instantiated. */
let mod;
/** @type {(source?: unknown) => Promise<unknown>} instantiates the wallet module (the entry's loader) */
let load = () => Promise.reject(new KitError('NOT_INITIALIZED', 'embedded-wallet-kit: no loader for its WebAssembly module'));
/** Bumped by `cancel()`, so a ceremony still waiting for the module is cancelled too. */
let epoch = 0;

/**
 * The entry's loader of the wallet module (browser.js): what a passkey call before
 * `init()` awaits.
 *
 * @param {(source?: unknown) => Promise<unknown>} loader
 */
export function provideModuleLoader(loader) {
  load = loader;
}

/**
 * The glue's exports once the module is loaded, else undefined; an entry that starts the
 * module on demand (the Node entry) starts it here.
 */
const loaded = () => mod ?? (mainModule.isReady(), mod);

/** Says that the wallet module is instantiated (the entries, once it is). */
export function moduleLoaded() {
  if (mod === undefined) mod = failClosedExports(glue, mainModule);
}

/**
 * The wallet module's glue, instantiating the module first if no one did (concurrent
 * callers share the entry's one load; after a failure, KitError NOT_INITIALIZED, a later
 * call tries again).
 *
 * @param {unknown} [source] what wasm-bindgen's loader takes as `module_or_path`;
 *   default: the .wasm next to the entry
 * @returns {Promise<object>}
 */
export function loadPasskeys(source) {
  if (mod !== undefined) return Promise.resolve(mod);
  return load(source).then(() => {
    moduleLoaded();
    return mod;
  });
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

/** How long after the requested timeout the watchdog gives up on the browser. */
const WATCHDOG_GRACE_MS = 1000;

/**
 * The ceremony in flight ({controller, cancelled, watchdogFired}): one at a time, so that a
 * new one or `cancel()` can abort it.
 */
let current;

function abortCurrent() {
  const active = current;
  current = undefined;
  if (active !== undefined) {
    active.cancelled = true;
    active.controller.abort();
  }
}


/** `navigator.credentials`, read when a ceremony starts; PASSKEY_UNSUPPORTED without WebAuthn. */
function credentials() {
  const missing = webAuthnMissing();
  if (missing !== undefined) throw new KitError('PASSKEY_UNSUPPORTED', missing);
  return globalThis.navigator.credentials;
}

/** The caller's `signal`, if any: a genuine AbortSignal (a lookalike passing instanceof answers `aborted` with no boolean). */
function callerSignal(options) {
  let signal;
  let genuine;
  try {
    signal = options.signal;
    if (signal === undefined || signal === null) return undefined;
    genuine = typeof signal.aborted === 'boolean' && signal instanceof AbortSignal;
  } catch {
    // A throwing `signal` getter reads as no signal (as the option readers treat members).
    if (signal === undefined) return undefined;
    genuine = false;
  }
  if (!genuine) throw new KitError('INVALID_INPUT', 'signal must be an AbortSignal');
  return signal;
}

const HINTS = ['security-key', 'client-device', 'hybrid'];

/** The caller's `hints` (which authenticator UI first, WebAuthn L3), checked; undefined when none. */
function callerHints(options) {
  const hints = options.hints;
  if (hints === undefined) return undefined;
  if (!Array.isArray(hints)) throw new KitError('INVALID_INPUT', `hints must be an array (of ${HINTS.join(', ')})`);
  const copy = [...hints];
  for (const hint of copy) {
    if (!HINTS.includes(hint)) throw new KitError('INVALID_INPUT', `hints: unknown hint ${typeof hint === 'string' ? JSON.stringify(hint) : `of type ${typeof hint}`} (one of ${HINTS.join(', ')})`);
  }
  return copy;
}

/** Whether the caller asked for passkey autofill (`mediation: 'conditional'`, authenticate only). */
function conditionalMediation(register, options) {
  const mediation = options.mediation;
  if (mediation === undefined) return false;
  if (register || mediation !== 'conditional') throw new KitError('INVALID_INPUT', "mediation must be 'conditional' (authenticate only)");
  return true;
}

/**
 * One ceremony, synchronous up to `navigator.credentials.create/get` (no await before it:
 * Safari's transient activation). The wasm module builds the options, reads the
 * credential and names the error; this drives the call: it aborts the previous ceremony,
 * honours the caller's signal, and races the browser against its own abort, so that a
 * `navigator.credentials` ignoring the signal (some extensions and polyfills) cannot keep
 * the caller waiting after a cancel or the watchdog, which ends a ceremony the browser
 * never settles (a request with no authenticator can hang forever).
 */
function start(glue, register, options) {
  const publicKey = register ? glue.passkeyCreationOptions(options) : glue.passkeyRequestOptions(options);
  const signal = callerSignal(options);
  const hints = callerHints(options);
  const conditional = conditionalMediation(register, options);
  if (hints !== undefined) publicKey.hints = hints;
  const creds = credentials();
  if (signal?.aborted) {
    throw new KitError('PASSKEY_CANCELLED', 'the passkey ceremony was cancelled before it started (the signal was already aborted)');
  }
  // A copy the browser (or a wrapper of navigator.credentials) never sees.
  const allowedId = register ? undefined : publicKey.allowCredentials[0].id.slice();
  abortCurrent();
  let controller;
  try {
    controller = new AbortController();
  } catch (err) {
    throw new KitError('PASSKEY_UNSUPPORTED', 'AbortController is unavailable', err);
  }
  const active = { controller, cancelled: false, watchdogFired: false };
  current = active;
  const onCallerAbort = () => {
    active.cancelled = true;
    controller.abort();
  };
  signal?.addEventListener('abort', onCallerAbort);
  const { timeout } = publicKey;
  // Autofill waits for the user as long as the page wants it (its signal, or cancel()).
  const watchdog = conditional ? undefined : setTimeout(() => {
    active.watchdogFired = true;
    controller.abort();
  }, timeout + WATCHDOG_GRACE_MS);
  const finish = () => {
    signal?.removeEventListener('abort', onCallerAbort);
    clearTimeout(watchdog);
    if (current === active) current = undefined;
  };

  // Listening before the browser is called: a cancel while it runs (a wrapper calling
  // back into the page) must end a ceremony that the browser then never settles.
  const aborted = new Promise((_, reject) => controller.signal.addEventListener('abort', reject));
  const started = now();
  let answer;
  try {
    const request = { publicKey, signal: controller.signal, ...(conditional && { mediation: /** @type {const} */ ('conditional') }) };
    answer = register ? creds.create(request) : creds.get(request);
  } catch (err) {
    answer = Promise.reject(err);
  }
  return Promise.race([answer, aborted]).then((credential) => {
    finish();
    if (credential === null || typeof credential !== 'object') {
      throw new KitError('PASSKEY_FAILED', 'the browser returned no credential');
    }
    return register ? glue.passkeyAttestation(credential) : glue.passkeyAssertion(credential, allowedId);
  }, (err) => {
    const pastDeadline = now() - started >= timeout;
    finish();
    throw glue.passkeyRejection(register, err, active.watchdogFired, active.cancelled, pastDeadline);
  });
}

/**
 * Runs a ceremony. With the module loaded, synchronously up to navigator.credentials;
 * otherwise after loading it, unless `cancel()` was called meanwhile. Without WebAuthn
 * nothing is loaded: PASSKEY_UNSUPPORTED at once (the options are checked in the module).
 */
function ceremony(register, options) {
  try {
    const m = loaded();
    if (m !== undefined) return start(m, register, options).then(undefined, asKitError);
    credentials();
  } catch (err) {
    return Promise.reject(err).then(undefined, asKitError);
  }
  const started = epoch;
  return loadPasskeys().then((glue) => {
    if (epoch !== started) {
      throw new KitError('PASSKEY_CANCELLED', 'the passkey ceremony was cancelled while the WebAssembly module was loading');
    }
    return start(glue, register, options);
  }).then(undefined, asKitError);
}

/**
 * A static probe of PublicKeyCredential (once the module is loaded, as before): its
 * answer through `coerce`, or `fallback` where the browser lacks it, throws, answers with
 * no promise or rejects. Without WebAuthn, `fallback` at once, and nothing is loaded.
 */
function probe(method, fallback, coerce) {
  if (webAuthnMissing() !== undefined) return Promise.resolve(fallback);
  return loadPasskeys().then(() => {
    const pkc = globalThis.PublicKeyCredential;
    let answer;
    try {
      answer = typeof pkc === 'function' && typeof pkc[method] === 'function' ? pkc[method]() : undefined;
    } catch {
      return fallback;
    }
    return answer instanceof Promise ? answer.then(coerce, () => fallback) : fallback;
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
    return ceremony(true, options);
  },

  authenticate(options) {
    return ceremony(false, options);
  },

  isSupported() {
    if (loaded() === undefined) throw notLoaded('isSupported');
    try {
      credentials();
      return true;
    } catch {
      return false;
    }
  },

  platformAuthenticatorAvailable() {
    return probe('isUserVerifyingPlatformAuthenticatorAvailable', false, (v) => v === true);
  },

  conditionalMediationAvailable() {
    return probe('isConditionalMediationAvailable', false, (v) => v === true);
  },

  clientCapabilities() {
    return probe('getClientCapabilities', undefined, (v) => (v !== null && typeof v === 'object' ? v : undefined));
  },

  cancel() {
    epoch++;
    abortCurrent();
  },

  signalUnknownCredential: signal('signalUnknownCredential'),
  signalAllAcceptedCredentials: signal('signalAllAcceptedCredentials'),
  signalCurrentUserDetails: signal('signalCurrentUserDetails'),

  registrationBody(accountId, nickname, challenge, attestation) {
    const m = loaded();
    if (m === undefined) throw notLoaded('registrationBody');
    return m.passkeyRegistrationBody(accountId, nickname, challenge, attestation);
  },
});
