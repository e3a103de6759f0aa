// What the kit's modules share, in one module (a file of its own would cost every page a
// few more bytes: scripts/size.mjs): the entries' ready state and fail-closed calls (this
// section), the option reading, the warm-up and the handle classes (below).
//
// Whether an entry's wasm module is ready, and the guard that turns any use of its
// exports before `init()` into KitError NOT_INITIALIZED instead of a TypeError from deep
// inside the wasm-bindgen glue.
//
// One flag per entry, because each entry has its own glue: the main entry's (browser.js
// and node.js share it, importing this module from the same URL, so the Node entry, which
// starts the module at its first check, also readies the browser entry) and the signing
// entry's (signing.js and signing-node.js). A page that imports both entries must not see
// the signing entry's init() mark the main entry's exports ready: they are another module.
import { KitError, now } from './platform.js';

/**
 * A module's state: `isReady()` is false until `markReady()`; `poison()` (a fault) makes
 * it dead for good (`isPoisoned()`): every call on it is ENGINE_FAULT, and its memory
 * (`holds(memory)`, given when instantiated) is wiped. An entry that starts its module on
 * demand (the Node entries: npm/node-start.js) registers the start with
 * `startOnDemand()`; the first check runs it (and what it throws reaches the caller).
 */
function readyFlag() {
  let ready = false;
  let poisoned = false;
  /** @type {(() => void) | undefined} */
  let start;
  /** @type {WebAssembly.Memory | undefined} */
  let memory;
  return Object.freeze({
    isReady: () => ready || (start?.(), ready),
    /** @param {() => void} fn */
    startOnDemand(fn) {
      start = fn;
    },
    markReady() {
      ready = true;
    },
    /** @param {WebAssembly.Memory} wasmMemory */
    holds(wasmMemory) {
      memory = wasmMemory;
    },
    isPoisoned: () => poisoned,
    poison() {
      poisoned = true;
      // A call that faulted may keep its borrow of a key held: then neither free() nor a
      // drop ever zeroizes that key, and no later call into the module is trusted to.
      if (memory) new Uint8Array(memory.buffer).fill(0);
    },
  });
}

/** The main entry's flag (the wallet module). */
export const mainModule = readyFlag();
export const { isReady, markReady } = mainModule;

/** The signing entry's flag (the signing module). */
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
 * `fn` applied to `args`, failing closed: an exception out of the wasm that is
 * not a KitError (a trap, an engine error) marks `module` dead and is ENGINE_FAULT, and so
 * is every later call on any of its objects: the state of a module that trapped mid-call
 * (a borrow left held, a half-written key) is not trusted again.
 *
 * @param {ReturnType<typeof readyFlag>} module
 * @param {Function} fn
 * @param {unknown[]} [args]
 * @param {unknown} [self]
 */
export function attempt(module, fn, args = [], self = undefined) {
  if (module.isPoisoned()) throw engineFault();
  try {
    return Reflect.apply(fn, self, args);
  } catch (err) {
    if (err instanceof KitError) throw err;
    module.poison();
    throw engineFault(err);
  }
}

/**
 * `fn` failing closed (`attempt`). A dead module's `free()` is still tried, quietly (it
 * may zeroize, or trap again).
 *
 * @template {Function} F
 * @param {F} fn
 * @param {ReturnType<typeof readyFlag>} module
 * @param {boolean} [freeing]
 * @returns {F}
 */
export function failClosed(fn, module, freeing = false) {
  const wrapped = {
    [fn.name](...args) {
      if (freeing && module.isPoisoned()) {
        try {
          Reflect.apply(fn, this, args);
        } catch {
          // A dead module's free: best effort.
        }
        return undefined;
      }
      return attempt(module, fn, args, this);
    },
  };
  return /** @type {F} */ (/** @type {unknown} */ (wrapped[fn.name]));
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
  const wrapped = {
    [name](...args) {
      // (ENGINE_FAULT first: a module whose self-test failed was never ready.)
      if (!module.isReady() && !module.isPoisoned()) throw notInitialized(`${name}()`);
      return attempt(module, fn, args);
    },
  };
  return /** @type {F} */ (/** @type {unknown} */ (wrapped[name]));
}

// ------------------------------------------------------------------------------------
// Reading the option objects the kit accepts: init()'s argument (every entry),
// WalletClient's, SessionStore.open's, SessionKeeper.start's and the React provider's
// props. Each option is read once, as an own data property, into a null-prototype record:
// nothing is looked up on a prototype (script that runs after the kit could have put a
// `module_or_path`, a `transport` or a `then` on Object.prototype), no getter runs (it
// could answer differently each time it is asked: refused, INVALID_INPUT naming the
// option), and no value is resolved as a thenable.

const describe = Object.getOwnPropertyDescriptor;
const hasOwn = Object.hasOwn;
const invalid = (message) => new KitError('INVALID_INPUT', message);

/**
 * The option `name` of the options object `value`: its own data property, or undefined.
 *
 * @param {unknown} value the options object the app passed (not undefined or null)
 * @param {string} name
 * @param {string} [where] what took it, for the message (`init`, `WalletClient`, ...)
 * @returns {any}
 */
export function readOption(value, name, where) {
  const d = describe(value, name);
  // `hasOwn`, not `in`: a descriptor is an ordinary object, and Object.prototype may have a `value`.
  if (d !== undefined && !hasOwn(d, 'value')) throw invalid(`${where ? `${where}: ` : ''}options.${name} is a getter or setter`);
  return d?.value;
}

/**
 * The options `names` that `value` holds as own data properties (undefined where it has
 * none); undefined, null and other primitives hold none (the caller says what it needed).
 *
 * @param {unknown} value the options object the app passed
 * @param {readonly string[]} names the options the caller reads
 * @param {string} [where] what took them, for messages
 * @returns {Record<string, any>}
 */
export function readOptions(value, names, where) {
  const out = Object.create(null);
  // An index loop: an array iterator is something later script can replace.
  for (let i = 0; value !== undefined && value !== null && i < names.length; i++) out[names[i]] = readOption(value, names[i], where);
  return out;
}

/** Every option init() takes; all but the first are the main entry's (npm/signing-options.js). */
export const INIT_OPTIONS = ['module_or_path', 'passkeys', 'isolate', 'enclave'];

/**
 * init()'s argument read once: its options and the module's `source` (`module_or_path`,
 * or the argument itself when it is where to load the module from: a URL, a path, a
 * Request or Response, bytes, a WebAssembly.Module or a promise of one). It is options
 * when it is a plain object (`{}` too) or has one of the options as its own property.
 *
 * @param {unknown} input
 * @returns {{ source: unknown, passkeys?: unknown, isolate?: unknown, enclave?: unknown }}
 */
export function readInit(input) {
  if (input !== null && typeof input === 'object') {
    const proto = Object.getPrototypeOf(input);
    if (proto === Object.prototype || proto === null || INIT_OPTIONS.some((name) => hasOwn(input, name))) {
      const read = readOptions(input, INIT_OPTIONS, 'init');
      read.source = read.module_or_path;
      return /** @type {any} */ (read);
    }
  }
  return /** @type {any} */ ({ __proto__: null, source: input });
}

/**
 * Whether init() asks for the isolated signer (decided before any of its code loads).
 *
 * @param {{ isolate?: unknown }} read what readInit() read
 */
export function wantsIsolation(read) {
  const isolate = read.isolate;
  return isolate !== undefined && isolate !== null && isolate !== false;
}

// ------------------------------------------------------------------------------------
// Shared by both entries: runs the module's warmUp() in idle time after init() resolved.
//
// warmUp() runs one round of what the first keygen, open and stamp would otherwise run
// cold (the kit's basepoint table on the first round, then a keygen, an open and a stamp of
// throwaway keys: bindings/signing/src/warm.rs). One round is not enough: an engine
// optimises a function once it has run enough (bench/results.md, "Measured by hand").

/** How many rounds run in all. */
export const WARM_UP_ROUNDS = 6;

/**
 * Schedules the rounds: as many as an idle period has room for, the rest in later idle
 * periods (setTimeout where requestIdleCallback is missing); never inside init(), whose
 * promise has resolved by then. A round that fails (answers false) or throws ends the
 * warm-up: the first real operations then warm up instead, and there is nothing to report.
 *
 * @param {() => boolean} warmUp the module's export
 */
export function warmUpLater(warmUp) {
  let left = WARM_UP_ROUNDS;
  const schedule = () => {
    if (typeof globalThis.requestIdleCallback === 'function') globalThis.requestIdleCallback(run, { timeout: 50 });
    else setTimeout(run, 0);
  };
  /** @param {{ timeRemaining(): number }} [deadline] */
  const run = (deadline) => {
    try {
      do {
        if (!warmUp()) return;
        left -= 1;
      } while (left > 0 && deadline !== undefined && deadline.timeRemaining() > 5);
    } catch {
      return;
    }
    if (left > 0) schedule();
  };
  schedule();
}

// ------------------------------------------------------------------------------------
// The handle classes page script sees, ClientKey and Session, over the raw classes of one
// wasm-bindgen glue (each entry has its own glue: npm/shared.js and npm/signing.js call
// `handleClasses` once each). The raw objects never leave the kit: wasm-bindgen keeps
// their wasm pointer in a writable `__wbg_ptr` that it trusts on every call, and its
// classes carry `__wrap` (any integer becomes a handle) and `__destroy_into_raw`. Here:
//   - a handle's raw object is in a WeakMap of this factory, reachable only by the kit's
//     modules (through `keyOf`/`sessionOf`); an object the factory did not make (a
//     prototype object carrying a copied `__wbg_ptr`, a Session re-prototyped as a
//     ClientKey) is KitError INVALID_INPUT before anything reaches wasm;
//   - there is no public constructor; the static functions are NOT_INITIALIZED until the
//     entry's init() readied the module;
//   - every call fails closed (npm/guard.js): an exception out of the wasm that is not a
//     KitError marks the module dead, and every later call answers ENGINE_FAULT;
//   - `free()` zeroizes the key and releases the wasm memory at once (wasm-bindgen's own
//     `free()` drops the Rust value, whose key is zeroized on drop). Made while a call into
//     the module is under way (from a getter of an argument), it closes the handle at once
//     (the Rust side zeroizes when the call lets go of the key, and the call throws
//     KEY_CONSUMED / SESSION_CLOSED) and releases it when the outermost call returns. A
//     freed handle keeps its public facts (public key, nonces, session id, expiry) and
//     answers every use of its key as a closed one did before: KEY_CONSUMED,
//     SESSION_CLOSED.
// Both classes are made from one table each (SPECS): their static functions, getters and
// methods all go through the same checks. Their declarations are index.d.ts's
// (tests/types/glue-agrees.ts checks them against the glue's).

/** What `new ClientKey(...)` from the kit passes: anything else is page script's `new`. */
const TOKEN = Symbol();

/**
 * Per class: its name, what an argument of it is called, its factories, the error of a use
 * of a freed one's key (the core's: src/client_key.rs, src/session.rs), its static
 * functions (with the index of a ClientKey argument), its getters (a freed handle answers
 * the value read after it was closed), its methods (a freed handle throws the error), the
 * extra facts kept, and the answers of a freed handle that differ from those.
 */
const SPECS = [
  {
    name: 'ClientKey',
    arg: 'key',
    from: 'ClientKey.generate()',
    closed: ['KEY_CONSUMED', 'this ClientKey was already used to open a session; generate a new one for each verify, challenge or refresh'],
    statics: [['generate']],
    getters: ['publicKeyHex', 'compressedPublicKeyHex', 'consumed'],
    methods: ['oidcNonce', 'signRetry'],
    facts: (/** @type {any} */ raw) => ({ n: raw.oidcNonce(), c: raw.oidcNonce({ compressed: true }) }),
    /** @type {Record<string, (facts: any, arg?: any, check?: any) => unknown>} */
    // The options checked as the core checks them (a closed key of the kit's own answers;
    // its nonce tells which form they ask for).
    freed: { oidcNonce: (f, options, check) => (check(options) === check() ? f.n : f.c) },
  },
  {
    name: 'Session',
    arg: 'session',
    from: 'Session.open, Session.sandbox or Session.fromClientKey',
    closed: ['SESSION_CLOSED', 'this session was freed; its key is gone'],
    statics: [['open', 1], ['sandbox'], ['fromClientKey', 1]],
    getters: ['id', 'accountId', 'type', 'expiresAt', 'publicKeyHex', 'sandboxed', 'keyMode'],
    methods: ['isExpired', 'stamp', 'signRetry', 'signQuote'],

    /** @type {Record<string, (facts: any, arg?: any, check?: any) => unknown>} */
    freed: {
      expiresAt: (f) => new Date(f.expiresAt),
      isExpired: (f, at) => (at ?? now()) >= f.expiresAt,
    },
  },
];

/**
 * The handle classes of one glue.
 *
 * @param {any} glue the glue's exports (wasm-bindgen's raw ClientKey and Session)
 * @param {typeof mainModule} module the entry's module state
 * @returns {{ ClientKey: any, Session: any, call: <R>(fn: () => R) => R, keyOf: Function,
 *   sessionOf: Function, isClientKey: (obj: unknown) => boolean, isSession: (obj: unknown) => boolean,
 *   adoptSession: (raw: any) => any }}
 */
export function handleClasses(glue, module) {
  /** Calls into the module under way, and the handles freed during them. */
  let depth = 0;
  /** @type {any[]} */
  const freedDuringCall = [];
  const live = () => {
    if (module.isPoisoned()) throw engineFault();
  };
  /** Runs `fn` quietly: a fault other than a KitError marks the module dead. */
  const quietly = (/** @type {() => void} */ fn) => {
    try {
      fn();
    } catch (err) {
      if (!(err instanceof KitError)) module.poison();
    }
  };

  /**
   * Runs `fn`, a call into the module, failing closed (`attempt`); when the
   * outermost call returns, releases the handles freed during it.
   *
   * @template R
   * @param {() => R} fn
   * @returns {R}
   */
  function call(fn) {
    depth++;
    try {
      return attempt(module, fn);
    } finally {
      depth--;
      while (depth === 0 && freedDuringCall.length) release(freedDuringCall.pop());
    }
  }

  /**
   * Closes the handle (the facts are then a closed one's: a freed sandbox session is no
   * longer `sandboxed`, as before), keeps its public facts, then drops the Rust value (its
   * key zeroized again on drop) and releases its memory. A dead module's free is tried.
   */
  function release(/** @type {any} */ cell) {
    const { raw, spec } = cell;
    cell.raw = null;
    depth++;
    quietly(() => {
      if (!module.isPoisoned()) {
        raw.close();
        cell.facts = { ...spec.facts?.(raw) };
        for (const name of spec.getters) cell.facts[name] = raw[name];
      }
      raw.free();
    });
    depth--;
  }

  const out = /** @type {any} */ ({ call });
  for (const spec of SPECS) {
    const { name, arg, from, closed } = spec;
    /** A use of a freed handle's key: what a closed one's use answered (the core's error). */
    const gone = () => new KitError(.../** @type {[any, string]} */ (closed));
    /** @type {any} */
    let probe;
    /** `oidcNonce(options)` of a closed raw key (made once): how the core reads `options`. */
    const check = (/** @type {unknown} */ options) => call(() => {
      if (probe === undefined) {
        probe = Raw.generate();
        probe.close();
      }
      return probe.oidcNonce(options);
    });
    const Raw = glue[name];
    /** @type {WeakMap<object, any>} */
    const cells = new WeakMap();
    /** The state of the handle `obj` (`where`: the function it is an argument of). */
    const cellOf = (/** @type {any} */ obj, /** @type {string} */ where = name) => {
      const cell = cells.get(obj);
      if (cell === undefined) throw invalid(`${where}: ${arg} must be a ${name} (from ${from})`);
      return cell;
    };
    /** The raw object behind `obj`, for a call into the module: the closed error once freed. */
    const rawOf = (/** @type {any} */ obj, /** @type {string} */ where) => {
      const cell = cellOf(obj, where);
      live();
      if (cell.raw === null) throw gone();
      return cell.raw;
    };
    const Handle = {
      [name]: class {
        /** @param {any} [token] @param {any} [raw] */
        constructor(token, raw) {
          if (token !== TOKEN) {
            ready(`new ${name}()`);
            throw invalid(`${name} has no public constructor: use ${from}`);
          }
          cells.set(this, { raw, spec });
        }
      },
    }[name];
    const ready = (/** @type {string} */ label) => {
      live();
      if (!module.isReady()) throw notInitialized(label);
    };
    const proto = Handle.prototype;
    const define = (/** @type {object} */ target, /** @type {PropertyKey} */ key, /** @type {PropertyDescriptor} */ d) =>
      Object.defineProperty(target, key, { configurable: true, ...d });
    for (const [fn, keyAt] of spec.statics) {
      const label = `${name}.${fn}`;
      define(Handle, fn, {
        writable: true,
        value: (/** @type {any[]} */ ...args) => {
          ready(label);
          if (keyAt !== undefined) args[keyAt] = out.keyOf(args[keyAt], label);
          return new Handle(TOKEN, call(() => Raw[fn](...args)));
        },
      });
    }
    // Getters and methods: the raw object's while the handle holds it; a freed one's
    // answer (`spec.freed`, the kept fact, or the closed error) after.
    for (const key of [...spec.getters, ...spec.methods]) {
      const getter = spec.getters.includes(key);
      /** @this {any} */
      const member = function (/** @type {any[]} */ ...a) {
        const cell = cellOf(this);
        live();
        const { raw } = cell;
        if (raw !== null) return call(() => (getter ? raw[key] : raw[key](...a)));
        const freed = spec.freed[key];
        if (freed) return freed(cell.facts, a[0], check);
        if (getter) return cell.facts[key];
        throw gone();
      };
      define(proto, key, getter ? { get: member } : { writable: true, value: member });
    }
    define(proto, 'close', {
      writable: true,
      /** `close()`: zeroizes now, or when the call using the key lets go; a dead module's is tried quietly. */
      value() {
        const { raw } = cellOf(this);
        if (raw === null) return;
        if (module.isPoisoned()) quietly(() => raw.close());
        else call(() => raw.close());
      },
    });
    define(proto, 'free', {
      writable: true,
      /** `free()`: now, or when the call under way returns (it closes at once). */
      value() {
        const cell = cellOf(this);
        if (cell.freed) return;
        cell.freed = true;
        if (depth === 0) release(cell);
        else {
          quietly(() => cell.raw.close());
          freedDuringCall.push(cell);
        }
      },
    });
    // Whether this is a handle the kit made (code that tested wasm-bindgen's pointer):
    // read-only and fixed, as the wasm-bindgen pointer's flag was.
    define(proto, '__wbg_ptr', {
      configurable: false,
      get() {
        return cells.has(this);
      },
    });
    // `using` frees, where the runtime has Symbol.dispose (as wasm-bindgen's classes do).
    const dispose = /** @type {{ dispose?: symbol }} */ (Symbol).dispose;
    if (dispose) define(proto, dispose, { writable: true, value: /** @type {any} */ (proto).free });
    out[name] = Handle;
    out[`is${name}`] = (/** @type {any} */ obj) => cells.has(obj);
    out[`${arg}Of`] = rawOf;
  }
  /** The handle of a raw Session a glue function returned. */
  out.adoptSession = (/** @type {any} */ raw) => new out.Session(TOKEN, raw);
  return out;
}
