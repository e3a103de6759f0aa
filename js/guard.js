// Shared by both entries: whether the wasm module is ready, and the guard that turns any
// use of the exports before `init()` into KitError NOT_INITIALIZED instead of a
// TypeError from deep inside the wasm-bindgen glue.
//
// The state lives in this module, which both entries import from the same URL, so
// loading the Node entry (which initialises at import) also readies the browser entry.
import { KitError } from './kit-error.js';

let ready = false;

/** Marks the wasm module as instantiated. */
export function markReady() {
  ready = true;
}

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

/** Whether the wasm module has been instantiated. */
export function isReady() {
  return ready;
}

/** @param {string} what */
export function notInitialized(what) {
  return new KitError(
    'NOT_INITIALIZED',
    `embedded-wallet-kit is not initialised: \`await init()\` must resolve before ${what} is used`,
  );
}

/**
 * Makes `free()` zeroize without invalidating the object: it calls the class's `close()`
 * export, so a later use throws the kit's own error (SESSION_CLOSED, KEY_CONSUMED)
 * instead of wasm-bindgen's "null pointer passed to rust". The wasm memory behind the
 * object is released when it is garbage-collected (wasm-bindgen's FinalizationRegistry).
 * `Symbol.dispose` (`using`) gets the same behaviour.
 *
 * @param {Function} cls a wasm-bindgen class with a `close()` method
 */
export function freeMeansClose(cls) {
  const proto = cls.prototype;
  if (typeof proto.close !== 'function') return;
  const free = function free() {
    this.close();
  };
  Object.defineProperty(proto, 'free', { value: free, writable: true, configurable: true, enumerable: false });
  if (typeof Symbol.dispose === 'symbol') {
    Object.defineProperty(proto, Symbol.dispose, { value: free, writable: true, configurable: true, enumerable: false });
  }
}

/**
 * Wraps a wasm-bindgen class so that, until the module is ready, calling one of its own
 * static functions (`ClientKey.generate`, `Session.open`, ...) or `new` throws KitError
 * NOT_INITIALIZED. After init every access goes straight to the class; `instanceof`
 * keeps working because `prototype` is the class's own.
 *
 * @template {Function} C
 * @param {C} cls
 * @param {string} name the exported name, used in the error message
 * @param {{ create?: string, keyClass?: Function }} [options] `create`: the factories to
 *   name when `new` is tried on a class without a public constructor; `keyClass`: the
 *   ClientKey class that `open`/`fromClientKey` must be given
 * @returns {C}
 */
export function guardClass(cls, name, { create, keyClass } = {}) {
  return new Proxy(cls, {
    get(target, prop, receiver) {
      // wasm-bindgen internals (`__wrap` turns any integer into a handle): not public.
      if (typeof prop === 'string' && prop.startsWith('__')) return undefined;
      const value = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function' || !Object.hasOwn(target, prop)) return value;
      if (!ready) {
        const label = `${name}.${String(prop)}`;
        return function notReady() {
          throw notInitialized(label);
        };
      }
      if (keyClass && (prop === 'open' || prop === 'fromClientKey')) {
        // wasm-bindgen's own check would throw a plain Error for a wrong key.
        return function checkedKey(response, key) {
          if (!(key instanceof keyClass)) {
            throw new KitError('INVALID_INPUT', `${name}.${prop}: key must be a ClientKey (from ClientKey.generate())`);
          }
          return value.call(target, response, key);
        };
      }
      return value;
    },
    construct(target, args, newTarget) {
      if (!ready) throw notInitialized(`new ${name}()`);
      if (create) throw new KitError('INVALID_INPUT', `${name} has no public constructor: use ${create}`);
      return Reflect.construct(target, args, newTarget);
    },
  });
}

/**
 * What both entries export for a wasm-bindgen class: `free()` made safe, and the
 * not-initialised guard.
 *
 * @template {Function} C
 * @param {C} cls
 * @param {string} name
 * @param {{ create?: string, keyClass?: Function }} [options] see guardClass
 * @returns {C}
 */
export function exportClass(cls, name, options) {
  freeMeansClose(cls);
  return guardClass(cls, name, options);
}

/**
 * Wraps a wasm-bindgen function export: NOT_INITIALIZED before the module is ready
 * (instead of a TypeError from inside the glue); for one that takes a ClientKey
 * (`encryptOtp`, `openWalletExport`), INVALID_INPUT instead of wasm-bindgen's plain Error
 * when the argument at `keyIndex` is not one.
 *
 * @template {Function} F
 * @param {F} fn the raw export
 * @param {string} name the exported name, used in error messages
 * @param {number} [keyIndex] which argument is the ClientKey
 * @param {Function} [keyClass] the raw ClientKey class
 * @returns {F}
 */
export function guardFunction(fn, name, keyIndex, keyClass) {
  const wrapped = {
    [name](...args) {
      if (!ready) throw notInitialized(`${name}()`);
      if (keyClass !== undefined && !(args[keyIndex] instanceof keyClass)) {
        throw new KitError('INVALID_INPUT', `${name}: key must be a ClientKey (from ClientKey.generate())`);
      }
      return fn(...args);
    },
  };
  return /** @type {F} */ (/** @type {unknown} */ (wrapped[name]));
}
