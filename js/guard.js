// Whether an entry's wasm module is ready, and the guard that turns any use of its
// exports before `init()` into KitError NOT_INITIALIZED instead of a TypeError from deep
// inside the wasm-bindgen glue.
//
// One flag per entry, because each entry has its own glue: the main entry's (browser.js
// and node.js share it, importing this module from the same URL, so loading the Node
// entry, which initialises at import, also readies the browser entry) and the signing
// entry's (signing.js and signing-node.js). A page that imports both entries must not see
// the signing entry's init() mark the main entry's exports ready: they are another module.
import { KitError } from './kit-error.js';

/** A ready flag: `isReady()` is false until `markReady()`. */
function readyFlag() {
  let ready = false;
  return Object.freeze({
    isReady: () => ready,
    markReady() {
      ready = true;
    },
  });
}

/** The main entry's flag (the full module). */
export const { isReady, markReady } = readyFlag();

/** The signing entry's flag (the signing-only module). */
export const signingReady = readyFlag();

/**
 * Whether `obj` is a live handle of the wasm-bindgen class `cls` (ClientKey, Session):
 * one the glue made, not an object that merely has the class's prototype. The glue keeps
 * the pointer in a private field; its read-only `__wbg_ptr` accessor says whether `obj`
 * has one (scripts/harden-glue.mjs).
 *
 * @param {unknown} obj
 * @param {Function} cls
 */
export function isHandle(obj, cls) {
  const flag = Object.getOwnPropertyDescriptor(cls.prototype, '__wbg_ptr')?.get;
  return obj instanceof cls && typeof flag === 'function' && flag.call(obj) === true;
}

/** @param {string} what */
export function notInitialized(what) {
  return new KitError(
    'NOT_INITIALIZED',
    `embedded-wallet-kit is not initialised: \`await init()\` must resolve before ${what} is used`,
  );
}

/**
 * Wraps a wasm-bindgen class so that, until the module is ready, calling one of its own
 * static functions (`ClientKey.generate`, `Session.open`, ...) or `new` throws KitError
 * NOT_INITIALIZED. After init every access goes straight to the class; `instanceof`
 * keeps working because `prototype` is the class's own. (Handle arguments and `free()`
 * are the glue's own: scripts/harden-glue.mjs.)
 *
 * @template {Function} C
 * @param {C} cls
 * @param {string} name the exported name, used in the error message
 * @param {{ create?: string, ready?: () => boolean }} [options] `create`: the factories
 *   to name when `new` is tried on a class without a public constructor; `ready`: the
 *   entry's flag (default: the main entry's)
 * @returns {C}
 */
export function guardClass(cls, name, { create, ready = isReady } = {}) {
  return new Proxy(cls, {
    get(target, prop, receiver) {
      // wasm-bindgen internals (`__wrap` turns any integer into a handle): not public.
      if (typeof prop === 'string' && prop.startsWith('__')) return undefined;
      const value = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function' || !Object.hasOwn(target, prop)) return value;
      if (!ready()) {
        const label = `${name}.${String(prop)}`;
        return function notReady() {
          throw notInitialized(label);
        };
      }
      return value;
    },
    construct(target, args, newTarget) {
      if (!ready()) throw notInitialized(`new ${name}()`);
      if (create) throw new KitError('INVALID_INPUT', `${name} has no public constructor: use ${create}`);
      return Reflect.construct(target, args, newTarget);
    },
  });
}

/**
 * Wraps a wasm-bindgen function export: NOT_INITIALIZED before the module is ready
 * (instead of a TypeError from inside the glue).
 *
 * @template {Function} F
 * @param {F} fn the raw export
 * @param {string} name the exported name, used in error messages
 * @param {() => boolean} [ready] the entry's flag (default: the main entry's)
 * @returns {F}
 */
export function guardFunction(fn, name, ready = isReady) {
  const wrapped = {
    [name](...args) {
      if (!ready()) throw notInitialized(`${name}()`);
      return fn(...args);
    },
  };
  return /** @type {F} */ (/** @type {unknown} */ (wrapped[name]));
}
