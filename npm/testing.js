// `embedded-wallet-kit/testing` (browsers and bundlers): a software WebAuthn
// authenticator for tests, where no browser or virtual authenticator exists.
// NEVER for real users: its private keys live in ordinary memory.
//
// A third wasm module (embedded_wallet_kit_testing*), separate from the wallet and the
// signing modules, so nothing of it reaches an app that does not import this entry.
// `await init()` fetches it; until then `new SoftAuthenticator()` throws NOT_INITIALIZED.
// The Node entry (testing-node.js) instantiates the module at import and exports the
// class itself; it imports this file for the free() behaviour set up below.
import __wbg_init, { SoftAuthenticator as RawSoftAuthenticator } from './embedded_wallet_kit_testing.js';
import { KitError } from './platform.js';
import { notInitialized } from './guard.js';

export { KitError };

let ready = false;
/** @type {Promise<void> | undefined} */
let initPromise;

function freed(method) {
  return new KitError('INVALID_INPUT', `SoftAuthenticator.${method}: this authenticator was freed`);
}

// free() (and `using`) drops the authenticator and its credentials; the private keys are
// zeroized as they are dropped. A later call throws KitError INVALID_INPUT instead of
// wasm-bindgen's "null pointer passed to rust".
for (const method of ['register', 'authenticate']) {
  const call = RawSoftAuthenticator.prototype[method];
  Object.defineProperty(RawSoftAuthenticator.prototype, method, {
    value: {
      [method](options) {
        if (!this.__wbg_ptr) throw freed(method);
        return call.call(this, options);
      },
    }[method],
    writable: true,
    configurable: true,
    enumerable: false,
  });
}
{
  const release = RawSoftAuthenticator.prototype.free;
  const safeFree = {
    free() {
      // A second free() is a no-op, as for the other classes.
      if (this.__wbg_ptr) release.call(this);
    },
  }.free;
  Object.defineProperty(RawSoftAuthenticator.prototype, 'free', { value: safeFree, writable: true, configurable: true, enumerable: false });
  if (typeof Symbol.dispose === 'symbol') {
    Object.defineProperty(RawSoftAuthenticator.prototype, Symbol.dispose, { value: safeFree, writable: true, configurable: true, enumerable: false });
  }
}

/**
 * The software authenticator class: `new SoftAuthenticator(origin)` throws KitError
 * NOT_INITIALIZED until `init()` has resolved. `instanceof` works (same prototype).
 *
 * @type {typeof RawSoftAuthenticator}
 */
export const SoftAuthenticator = new Proxy(RawSoftAuthenticator, {
  construct(target, args, newTarget) {
    if (!ready) throw notInitialized('new SoftAuthenticator() (embedded-wallet-kit/testing)');
    return Reflect.construct(target, args, newTarget);
  },
});

/**
 * Loads the testing module. Idempotent (every call returns the same promise). Fetches
 * `embedded_wallet_kit_testing_bg.wasm` next to this file unless told otherwise: `input`
 * is what wasm-bindgen's loader takes (a URL or path, a Response, bytes, a
 * WebAssembly.Module, or `{ module_or_path }`). Rejects with KitError NOT_INITIALIZED
 * (the loader's error as `cause`) if it cannot be loaded; a later call retries. In Node
 * (testing-node.js) the module is loaded at import and this resolves at once.
 *
 * @param {unknown} [input]
 * @returns {Promise<void>}
 */
export function init(input) {
  if (initPromise === undefined) {
    let source = input;
    // A URL, Request, Response, buffer, Module or promise has no such key.
    if (source !== null && typeof source === 'object' && 'module_or_path' in source) source = source.module_or_path;
    if (source === undefined || source === null) {
      source = new URL('./embedded_wallet_kit_testing_bg.wasm', import.meta.url);
    }
    const attempt = (async () => {
      try {
        await __wbg_init({ module_or_path: source });
      } catch (err) {
        if (initPromise === attempt) initPromise = undefined;
        throw new KitError(
          'NOT_INITIALIZED',
          `embedded-wallet-kit/testing could not load its WebAssembly module: ${err && err.message ? err.message : String(err)}`,
          err,
        );
      }
      ready = true;
    })();
    initPromise = attempt;
  }
  return initPromise;
}
