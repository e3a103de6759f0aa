// Browser (and bundler) entry of embedded-wallet-kit.
//
// `init()` fetches and instantiates the WebAssembly module once; every export is usable
// after it resolves. The module URL is written as a literal
// `new URL('./embedded_wallet_kit_bg.wasm', import.meta.url)` so that Vite, webpack and
// other bundlers copy the .wasm next to the bundle and rewrite the URL.
import __wbg_init, {
  ClientKey as RawClientKey,
  Session as RawSession,
} from './embedded_wallet_kit.js';
import { KitError } from './kit-error.js';
import { exportClass, isReady, markReady } from './guard.js';

export { KitError };

/** @type {typeof RawClientKey} */
export const ClientKey = exportClass(RawClientKey, 'ClientKey');
/** @type {typeof RawSession} */
export const Session = exportClass(RawSession, 'Session');

/** @type {Promise<void> | undefined} */
let initPromise;

function wasmSource(input) {
  if (input === undefined || input === null) {
    return { module_or_path: new URL('./embedded_wallet_kit_bg.wasm', import.meta.url) };
  }
  // Always hand the glue a fresh plain object: it treats anything else as the
  // deprecated positional form.
  if (typeof input === 'object' && 'module_or_path' in input) return { module_or_path: input.module_or_path };
  // A URL, a path string, a Request/Response, bytes, a WebAssembly.Module, or a promise
  // of one of those: wasm-bindgen's loader accepts each under `module_or_path`.
  return { module_or_path: input };
}

/**
 * Loads the WebAssembly module. Idempotent: every call returns the same promise, so
 * concurrent callers share one fetch. If loading fails the promise rejects with
 * KitError NOT_INITIALIZED (the underlying error is its `cause`) and a later call
 * tries again.
 *
 * @param {unknown} [input] where to load the module from: nothing (the .wasm next to this
 *   file), `{ module_or_path }`, a URL or path, a Response, bytes or a WebAssembly.Module
 * @returns {Promise<void>}
 */
export function init(input) {
  if (initPromise === undefined) {
    if (isReady()) {
      initPromise = Promise.resolve();
    } else {
      const attempt = (async () => {
        try {
          await __wbg_init(wasmSource(input));
        } catch (err) {
          if (initPromise === attempt) initPromise = undefined;
          throw new KitError(
            'NOT_INITIALIZED',
            `embedded-wallet-kit could not load its WebAssembly module: ${err && err.message ? err.message : String(err)}`,
            err,
          );
        }
        markReady();
      })();
      initPromise = attempt;
    }
  }
  return initPromise;
}
