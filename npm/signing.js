// The signing-only entry, `embedded-wallet-kit/signing` (browsers and bundlers).
//
// For pages that only sign: `init()` fetches and instantiates the signing-only
// WebAssembly module (ClientKey, Session and nothing else), smaller than what the main
// entry's wallet module weighs. A page loads exactly one module: this one, or the main
// entry's (which has these exports too, plus passkeys, WalletClient, the session store,
// inspectPayload and the enclave exports). The two entries are two modules with two
// glues: a ClientKey of one is not a ClientKey of the other, and each has its own ready
// state (npm/guard.js). The module URL is a literal
// `new URL('./embedded_wallet_kit_signing_bg.wasm', import.meta.url)` for bundlers.
//
// npm/platform.js is imported first: it captures WebCrypto and Date.now before any other
// kit code runs (the glue uses those captures).
import { KitError } from './platform.js';
import * as glue from './embedded_wallet_kit_signing.js';
import { handleClasses, warmUpLater, readInit, guardFunction, runSelfTest, signingReady } from './guard.js';
import { refuseMainOptions } from './signing-options.js';

export { KitError };

const ready = signingReady.isReady;

const { default: __wbg_init, warmUp, selfTest } = glue;
const handles = handleClasses(glue, signingReady);

// The handle classes (npm/guard.js) over the glue's raw ones, declared as the glue's
// generated types.
/** @type {typeof glue.ClientKey} */
export const ClientKey = handles.ClientKey;
/** @type {typeof glue.Session} */
export const Session = handles.Session;

/** @type {Promise<void> | undefined} */
let initPromise;

/**
 * Loads the signing-only WebAssembly module. Idempotent: every call returns the same
 * promise. If loading fails the promise rejects with KitError NOT_INITIALIZED (the
 * underlying error is its `cause`) and a later call tries again. `input`: nothing (the
 * .wasm next to this file), `{ module_or_path? }`, a URL or path, a Response, bytes or a
 * WebAssembly.Module. Typed in signing.d.ts.
 *
 * @param {import('./signing.js').InitInput | { module_or_path?: import('./signing.js').InitInput }} [input]
 * @returns {Promise<void>}
 */
export function init(input) {
  let read;
  try {
    read = readInit(input);
  } catch (err) {
    return Promise.reject(err);
  }
  // Checked on every call (not only the first): such a page wants the main entry.
  const refused = refuseMainOptions(read);
  if (refused !== undefined) return refused;
  if (initPromise === undefined) {
    if (ready()) {
      initPromise = Promise.resolve();
    } else {
      const attempt = Promise.resolve()
        .then(() => __wbg_init({ module_or_path: read.source ?? new URL('./embedded_wallet_kit_signing_bg.wasm', import.meta.url) }))
        .then(
          (wasm) => {
            signingReady.holds(wasm.memory);
            // Before init() resolves: a faulty engine fails it (ENGINE_FAULT), for good.
            runSelfTest(selfTest, signingReady);
            signingReady.markReady();
            warmUpLater(guardFunction(warmUp, 'warmUp', signingReady));
          },
          (err) => {
            if (initPromise === attempt) initPromise = undefined;
            const detail = err && err.message ? err.message : String(err);
            throw new KitError('NOT_INITIALIZED', `embedded-wallet-kit could not load its signing module: ${detail}`, err);
          },
        );
      initPromise = attempt;
    }
  }
  return initPromise;
}
