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

/**
 * A module's state: `isReady()` is false until `markReady()`; `poison()` (a fault) makes
 * it dead for good (`isPoisoned()`): every call on it is ENGINE_FAULT.
 */
function readyFlag() {
  let ready = false;
  let poisoned = false;
  return Object.freeze({
    isReady: () => ready,
    markReady() {
      ready = true;
    },
    isPoisoned: () => poisoned,
    poison() {
      poisoned = true;
    },
  });
}

/** The main entry's flag (the full module). */
export const mainModule = readyFlag();
export const { isReady, markReady } = mainModule;

/** The signing entry's flag (the signing-only module). */
export const signingReady = readyFlag();

/** What every call answers once its module faulted. */
export function engineFault(cause) {
  return new KitError(
    'ENGINE_FAULT',
    'the WebAssembly module faulted (a trap or an engine error) and is not used again: reload the page',
    cause,
  );
}

/**
 * `fn` failing closed (issue 26): an exception out of the wasm that is not a KitError (a
 * trap, an engine error) marks `module` dead and is ENGINE_FAULT, and so is every later
 * call on any of its objects: the state of a module that trapped mid-call (a borrow left
 * held, a half-written key) is not trusted again. A dead module's `free()` is still
 * tried, quietly (it may zeroize, or trap again).
 *
 * @template {Function} F
 * @param {F} fn
 * @param {ReturnType<typeof readyFlag>} module
 * @param {boolean} [freeing]
 * @returns {F}
 */
function failClosed(fn, module, freeing = false) {
  const wrapped = {
    [fn.name](...args) {
      if (module.isPoisoned()) {
        if (freeing) {
          try {
            Reflect.apply(fn, this, args);
          } catch {
            // A dead module's free: best effort.
          }
          return undefined;
        }
        throw engineFault();
      }
      try {
        return Reflect.apply(fn, this, args);
      } catch (err) {
        if (err instanceof KitError) throw err;
        module.poison();
        throw engineFault(err);
      }
    },
  };
  return /** @type {F} */ (/** @type {unknown} */ (wrapped[fn.name]));
}

/** Classes (and their prototypes) already made to fail closed. */
const failingClosed = new WeakSet();

/**
 * Makes a wasm-bindgen class fail closed in place: its static functions, its methods and
 * its getters (js/guard.js failClosed). Other glue exports are wrapped where they are
 * handed out (`failClosedExports`).
 *
 * @param {Function} cls
 * @param {ReturnType<typeof readyFlag>} module
 */
export function failClosedClass(cls, module) {
  if (failingClosed.has(cls)) return;
  failingClosed.add(cls);
  for (const target of [cls, cls.prototype]) {
    for (const name of Object.getOwnPropertyNames(target)) {
      if (name === 'constructor' || name === 'prototype' || name.startsWith('__')) continue;
      const d = Object.getOwnPropertyDescriptor(target, name);
      if (d === undefined || !d.configurable) continue;
      if (typeof d.value === 'function') {
        Object.defineProperty(target, name, { ...d, value: failClosed(d.value, module, name === 'free' || name === 'close') });
      } else if (typeof d.get === 'function') {
        Object.defineProperty(target, name, { ...d, get: failClosed(d.get, module) });
      }
    }
  }
}

/**
 * A glue module's exports failing closed: each class in place (failClosedClass), each
 * function wrapped; a frozen object with the same names.
 *
 * @template {object} G
 * @param {G} glue
 * @param {ReturnType<typeof readyFlag>} module
 * @returns {G}
 */
export function failClosedExports(glue, module) {
  const out = Object.create(null);
  const exports = /** @type {Record<string, any>} */ (glue);
  for (const name of Object.keys(exports)) {
    const value = exports[name];
    if (typeof value !== 'function' || name === 'default' || name === 'initSync') out[name] = value;
    else if (value.prototype !== undefined && typeof value.prototype.free === 'function') {
      failClosedClass(value, module);
      out[name] = value;
    } else out[name] = failClosed(value, module);
  }
  return Object.freeze(out);
}

/**
 * runSelfTest for an entry that instantiates its module at import (Node): never throws
 * there; the promise its init() returns, rejected with the fault (and marked handled)
 * on a faulty engine.
 *
 * @param {() => void} selfTest
 * @param {ReturnType<typeof readyFlag>} module
 * @returns {Promise<void>}
 */
export function selfTestedAtImport(selfTest, module) {
  try {
    runSelfTest(selfTest, module);
    return Promise.resolve();
  } catch (err) {
    const failed = Promise.reject(err);
    failed.catch(() => {});
    return failed;
  }
}

/**
 * Runs the module's start-up self-test (the core's `selfTest()`: fixed answers for k·G, a
 * bundle open and a verified signature) once it is instantiated: a wrong answer, or a
 * trap, marks the module dead and is ENGINE_FAULT.
 *
 * @param {() => void} selfTest the module's export
 * @param {ReturnType<typeof readyFlag>} module
 */
export function runSelfTest(selfTest, module) {
  try {
    selfTest();
  } catch (err) {
    module.poison();
    throw err instanceof KitError && err.code === 'ENGINE_FAULT' ? err : engineFault(err);
  }
}

/** The kit's handle classes (js/handles.js) and how each tells its own objects. */
const handleClassChecks = new WeakMap();

/**
 * Registers a handle class of js/handles.js with the test of its objects.
 *
 * @param {Function} cls
 * @param {(obj: unknown) => boolean} check
 */
export function registerHandleClass(cls, check) {
  handleClassChecks.set(cls, check);
}

/**
 * Whether `obj` is a handle of the class `cls` (ClientKey, Session of js/handles.js): one
 * the kit made, not an object that merely has the class's prototype.
 *
 * @param {unknown} obj
 * @param {Function} cls
 */
export function isHandle(obj, cls) {
  const check = handleClassChecks.get(cls);
  return check !== undefined && check(obj);
}

/** @param {string} what */
export function notInitialized(what) {
  return new KitError(
    'NOT_INITIALIZED',
    `embedded-wallet-kit is not initialised: \`await init()\` must resolve before ${what} is used`,
  );
}

/**
 * Wraps a wasm-bindgen function export: NOT_INITIALIZED before the module is ready
 * (instead of a TypeError from inside the glue).
 *
 * @template {Function} F
 * @param {F} fn the raw export
 * @param {string} name the exported name, used in error messages
 * @param {ReturnType<typeof readyFlag>} [module] the entry's module state (default: the
 *   main entry's); the function fails closed
 * @returns {F}
 */
export function guardFunction(fn, name, module = mainModule) {
  const closed = failClosed(fn, module);
  const wrapped = {
    [name](...args) {
      if (module.isPoisoned()) throw engineFault();
      if (!module.isReady()) throw notInitialized(`${name}()`);
      return closed(...args);
    },
  };
  return /** @type {F} */ (/** @type {unknown} */ (wrapped[name]));
}
