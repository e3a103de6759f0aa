// The isolated signer, page side: `init({ isolate: 'worker' })` (loaded by
// npm/signer-platform.js on its first call).
//
// The kit's signing runs in a dedicated Worker (signer-worker.js) that generates and
// holds every ClientKey and Session; the page gets proxies that name them by opaque
// handles and ask the Worker, over a private MessageChannel, for public keys and
// signatures. No key byte ever reaches the page's realm, so page script (even script
// loaded after the kit) that finds the kit's wasm memory finds no key in it. The platform
// functions the channel uses were captured when the kit loaded (signer-platform.js), and so
// is everything this file calls per message (this file itself may load after such script):
// no reply passes through a global, a prototype method or a thenable lookup that later
// script could replace (replies are null-prototype; values resolve as `Result`s or strings,
// in `KitPromise`s).
//
// No static import: npm/signer-platform.js hands over what this file uses (install()).
// The kit resolves this file's URL when it loads, which a later import map cannot change,
// but a map scoped to this URL could still redirect what this file imported (nothing
// resolved from this URL before it loads; tests/isolate/run.mjs injects such a map). So
// this file and npm/signer-boot.js are the kit's only modules that take what they use
// instead of importing it (tests/js/lazy-isolation.test.mjs checks they import nothing).

/** @type {typeof import('./platform.js').KitError} */
let KitError;
/** @type {import('./signer-platform.js')['platform']} */
let platform;
/** @type {ReturnType<typeof import('./signer-boot.js').signerWorkerStarter>} */
let startSignerWorker;
let {
  apply, create, freeze, setPrototypeOf, KitPromise, settle, Result, isArray, entries, describe, get, stringify,
  isFinite: isFiniteNumber, trunc, FinalizationRegistry, register, fetch, arrayBuffer, hrefOf,
  NativeURL, Date, dateTime, dateNow, WeakMap, weakGet, weakSet, portPost, portClose, setPortOnMessage,
  workerPost, workerTerminate, setWorkerOnError, eventData, ErrorEvent, errorMessage,
  baseURL, requestUrl,
} = /** @type {import('./signer-platform.js')['platform']} */ ({});

/** @type {object} */
let TOKEN;
/** proxy -> { gen, handle, ...public fields }: what a proxy is, invisible to page script. @type {WeakMap<object, any>} */
let records;
const record = (obj) => (obj !== null && typeof obj === 'object' ? apply(weakGet, records, [obj]) : undefined);

// The one live connection. Proxies remember the generation they were made on: after
// terminate() their handles mean nothing, and they act freed.
let generation = 0;
let port = null;
let worker = null;
let nextCall = 1;
let pending;
/** @type {Promise<object> | undefined} */
let connecting;
// Generations whose Worker faulted (their proxies answer ENGINE_FAULT), and whether the
// last one did (the kit's own calls answer ENGINE_FAULT until a new init).
let faults;
let faulted = false;

function sessionClosed() {
  return new KitError('SESSION_CLOSED', 'this session was freed; its key is gone');
}
function keyConsumed() {
  return new KitError(
    'KEY_CONSUMED',
    'this ClientKey was already used to open a session; generate a new one for each verify, challenge or refresh',
  );
}
function stopped(what) {
  if (faulted) return engineFault();
  return new KitError('NOT_INITIALIZED', `the isolated signer is not running: \`await init({ isolate: 'worker' })\` must resolve before ${what} is used`);
}
function engineFault() {
  return new KitError('ENGINE_FAULT', 'the signing engine faulted (a WebAssembly trap or engine error): the isolated signer was stopped and its keys and sessions are gone; reload the page');
}
/** What a proxy made on generation `gen` answers once that Worker is gone. */
function gone(gen, closed) {
  return faults[gen] ? engineFault() : closed();
}

/** An error that crossed the channel as `{ kit, code, name, message }`, rethrown here. */
function revive(error) {
  if (error !== null && typeof error === 'object') setPrototypeOf(error, null);
  if (error && error.kit) return new KitError(error.code, error.message);
  const err = new Error(error && error.message ? error.message : 'the isolated signer failed');
  if (error && typeof error.name === 'string') err.name = error.name;
  return err;
}

/** Ends the connection: every call waiting on it rejects with `reason`. */
function disconnect(reason) {
  const waiting = pending;
  pending = create(null);
  generation++;
  if (port) apply(portClose, port, []);
  if (worker) apply(workerTerminate, worker, []);
  port = null;
  worker = null;
  connecting = undefined;
  for (const id in waiting) waiting[id].fail(reason);
}

function onReply(event) {
  const reply = apply(eventData, event, []);
  // Nothing is read from the reply's prototype (where later script could sit).
  setPrototypeOf(reply, null);
  if (reply.fault === true) {
    // The Worker's module instance faulted (a trap, an engine error): it is stopped, and
    // every call waiting on it, this one included, fails ENGINE_FAULT.
    fault();
    return;
  }
  const waiting = pending[reply.id];
  if (waiting === undefined) return;
  delete pending[reply.id];
  waiting.done(reply);
}

/** Fails closed after a fault in the running Worker: terminates it. */
function fault() {
  faults[generation] = true;
  faulted = true;
  disconnect(engineFault());
}

/**
 * Sends one request: `done(reply)` gets the Worker's null-prototype reply
 * `{ ok, value | error, consumed? }`, `fail(error)` an error of the page side (the signer
 * is not running or stopped; a value that cannot be copied to the Worker, a function or
 * a Proxy, is INVALID_INPUT).
 */
function send(what, op, args, done, fail) {
  if (port === null) {
    fail(stopped(what));
    return;
  }
  const id = nextCall++;
  try {
    apply(portPost, port, [{ __proto__: null, id, op, args }]);
  } catch (err) {
    fail(new KitError('INVALID_INPUT', `${what}: an argument cannot be passed to the isolated signer (${err && err.message})`));
    return;
  }
  pending[id] = { __proto__: null, done, fail };
}

/** What a value from the Worker resolves as: a primitive, or a `Result`. */
function result(value) {
  if (value !== null && typeof value === 'object') setPrototypeOf(value, Result);
  return value;
}

/**
 * One request as a promise: resolves to `map(value)` (default: the value as a `Result`),
 * or rejects with the rethrown error; `onConsumed` gets the key's state either way.
 */
function request(what, op, args, onConsumed, map = result) {
  return new KitPromise((resolve, reject) => {
    send(what, op, args, (reply) => {
      if (onConsumed && reply.consumed !== undefined) onConsumed(reply.consumed);
      if (reply.ok) resolve(map(reply.value));
      else reject(revive(reply.error));
    }, reject);
  });
}

/** `body()`'s promise, or a rejected one if it throws (as an async function would). */
function attempt(body) {
  try {
    return body();
  } catch (err) {
    return new KitPromise((_, reject) => reject(err));
  }
}

const resolved = (value) => new KitPromise((resolve) => resolve(value));
const nothing = () => undefined;
const internal = (value) => setPrototypeOf(value, null);

// Handles whose proxy was garbage-collected are released in the Worker (as wasm-bindgen
// does for same-thread objects).
/** @type {FinalizationRegistry<any> | null} */
let released;

function track(obj, fields) {
  apply(weakSet, records, [obj, fields]);
  if (released) apply(register, released, [obj, { __proto__: null, gen: fields.gen, handle: fields.handle }]);
  return obj;
}

/**
 * `oidcNonce`'s options, by the same rules and messages as the core's (bindings/signing/src/signing.rs
 * `key_form`): whether the nonce is over the compressed key.
 */
function wantsCompressed(options) {
  const shape = 'oidcNonce options must be an object like { compressed: true }';
  if (options === undefined || options === null) return false;
  let array = false;
  try {
    array = isArray(options);
  } catch {
    // As the core's is_array: a revoked Proxy is not an array (Object.entries then fails).
  }
  if (typeof options !== 'object' || array) throw new KitError('INVALID_INPUT', shape);
  let members;
  try {
    members = entries(options);
  } catch {
    throw new KitError('INVALID_INPUT', shape);
  }
  for (let i = 0; i < members.length; i++) {
    if (members[i][0] !== 'compressed') throw new KitError('INVALID_INPUT', 'oidcNonce options take only `compressed` (a boolean)');
  }
  let compressed;
  try {
    compressed = describe(options, 'compressed') === undefined ? undefined : get(options, 'compressed');
  } catch {
    compressed = undefined; // the core's own(): an unreadable member is absent
  }
  if (compressed === undefined || compressed === false) return false;
  if (compressed === true) return true;
  throw new KitError('INVALID_INPUT', 'options.compressed must be a boolean');
}

/** The record of a live key argument, or INVALID_INPUT as in same-thread mode. */
function keyRecord(key, what) {
  const r = key instanceof ClientKey ? record(key) : undefined;
  if (r === undefined) throw new KitError('INVALID_INPUT', `${what}: key must be a ClientKey (from ClientKey.generate())`);
  return r;
}

/** A key's handle for a request, or the error same-thread mode gives for a used key. */
function liveKey(r) {
  if (r.gen !== generation || port === null) throw gone(r.gen, keyConsumed);
  return r.handle;
}

// Exported (for no importer) so that the minified package keeps the name page script sees
// (constructor.name, devtools): scripts/minify.mjs renames what a module keeps to itself.
export class ClientKey {
  constructor(token, fields) {
    if (token !== TOKEN) throw new KitError('INVALID_INPUT', 'ClientKey has no public constructor: use ClientKey.generate()');
    track(this, fields);
  }

  /** Generates a key in the Worker; the page gets its public half (and both nonces). */
  static generate() {
    const gen = generation;
    return request('ClientKey.generate', 'generate', [], null, (v) => {
      internal(v);
      return new ClientKey(TOKEN, {
        __proto__: null, gen, handle: v.handle, publicKeyHex: v.publicKeyHex, compressedPublicKeyHex: v.compressedPublicKeyHex,
        oidcNonce: v.oidcNonce, compressedOidcNonce: v.compressedOidcNonce, consumed: false,
      });
    });
  }

  get publicKeyHex() {
    return record(this).publicKeyHex;
  }

  get compressedPublicKeyHex() {
    return record(this).compressedPublicKeyHex;
  }

  oidcNonce(options) {
    const compressed = wantsCompressed(options);
    const r = record(this);
    return compressed ? r.compressedOidcNonce : r.oidcNonce;
  }

  get consumed() {
    const r = record(this);
    return r.consumed || r.gen !== generation;
  }

  signRetry(pending202) {
    return attempt(() => {
      const r = record(this);
      return request('ClientKey.signRetry', 'keySignRetry', [liveKey(r), pending202], (c) => (r.consumed = c));
    });
  }

  /** Zeroizes the private key in the Worker; resolves once it is gone. */
  free() {
    return attempt(() => {
      const r = record(this);
      r.consumed = true;
      if (r.gen !== generation || port === null) return resolved(undefined);
      return request('ClientKey.free', 'close', [r.handle], null, nothing);
    });
  }

  close() {
    return this.free();
  }
}

/** Turns what the Worker says about a new session into its proxy. */
function newSession(gen, v) {
  internal(v);
  return new Session(TOKEN, { __proto__: null, gen, handle: v.handle, id: v.id, accountId: v.accountId, type: v.type, expiresAtMs: v.expiresAtMs, publicKeyHex: v.publicKeyHex, sandboxed: v.sandboxed, keyMode: v.keyMode, closed: false });
}

// Exported (for no importer) so that the minified package keeps the name page script sees
// (constructor.name, devtools): scripts/minify.mjs renames what a module keeps to itself.
export class Session {
  constructor(token, fields) {
    if (token !== TOKEN) {
      throw new KitError('INVALID_INPUT', 'Session has no public constructor: use Session.open, Session.sandbox or Session.fromClientKey');
    }
    track(this, fields);
  }

  static open(response, key) {
    return attempt(() => {
      const k = keyRecord(key, 'Session.open');
      const gen = generation;
      return request('Session.open', 'open', [response, liveKey(k)], (c) => (k.consumed = c), (v) => newSession(gen, v));
    });
  }

  static sandbox(response) {
    const gen = generation;
    return request('Session.sandbox', 'sandbox', [response], null, (v) => newSession(gen, v));
  }

  static fromClientKey(response, key) {
    return attempt(() => {
      const k = keyRecord(key, 'Session.fromClientKey');
      const gen = generation;
      return request('Session.fromClientKey', 'fromClientKey', [response, liveKey(k)], (c) => (k.consumed = c), (v) => newSession(gen, v));
    });
  }

  get id() {
    return record(this).id;
  }

  get accountId() {
    return record(this).accountId;
  }

  get type() {
    return record(this).type;
  }

  get expiresAt() {
    return new Date(record(this).expiresAtMs);
  }

  get publicKeyHex() {
    const r = record(this);
    return r.closed || r.gen !== generation ? undefined : r.publicKeyHex;
  }

  /** False once freed, as in same-thread mode (a freed session's signer is closed). */
  get sandboxed() {
    const r = record(this);
    return !r.closed && r.gen === generation && r.sandboxed;
  }

  /** Kept after free(), as in same-thread mode. */
  get keyMode() {
    return record(this).keyMode;
  }

  /**
   * Synchronous, as in same-thread mode (it needs no key): the same rules as the core's
   * `isExpired` (a Date or epoch milliseconds, truncated to whole milliseconds).
   */
  isExpired(now) {
    const expires = record(this).expiresAtMs;
    if (now === undefined || now === null) return dateNow() >= expires;
    let ms;
    if (typeof now === 'number') ms = now;
    else {
      try {
        ms = apply(dateTime, now, []);
      } catch {
        throw new KitError('INVALID_INPUT', 'now must be a Date or epoch milliseconds');
      }
    }
    if (!isFiniteNumber(ms)) throw new KitError('INVALID_INPUT', 'now is an invalid Date');
    return trunc(ms) >= expires;
  }

  stamp(payloadToSign) {
    return this.#sign('Session.stamp', 'stamp', payloadToSign);
  }

  signRetry(pending202) {
    return this.#sign('Session.signRetry', 'signRetry', pending202);
  }

  signQuote(quote) {
    return this.#sign('Session.signQuote', 'signQuote', quote);
  }

  #sign(what, op, arg) {
    return attempt(() => {
      const r = record(this);
      if (r.gen !== generation || port === null) throw gone(r.gen, sessionClosed);
      return request(what, op, [r.handle, arg]);
    });
  }

  /** Zeroizes the session key in the Worker; resolves once it is gone. */
  free() {
    return attempt(() => {
      const r = record(this);
      r.closed = true;
      if (r.gen !== generation || port === null) return resolved(undefined);
      return request('Session.free', 'close', [r.handle], null, nothing);
    });
  }

  close() {
    return this.free();
  }
}

function encryptOtp(targetBundle, otpCode, key, options) {
  return attempt(() => {
    const k = keyRecord(key, 'encryptOtp');
    return request('encryptOtp', 'encryptOtp', [targetBundle, otpCode, liveKey(k), options], (c) => (k.consumed = c));
  });
}

function openWalletExport(response, key, options) {
  return attempt(() => {
    const k = keyRecord(key, 'openWalletExport');
    return request('openWalletExport', 'openWalletExport', [response, liveKey(k), options], (c) => (k.consumed = c));
  });
}

/**
 * The custody of this kit's WalletClient (npm/wallet-client-impl.js's SAME_THREAD, over the
 * Worker): its flows run in the page (the wallet module there, which holds no key: they
 * see public keys and session ids only) and ask the Worker to make keys, open sessions
 * and sign.
 */
function walletCustody(loadPasskeys) {
  return freeze({
    __proto__: null,
    generate: ClientKey.generate,
    open: Session.open,
    fromClientKey: Session.fromClientKey,
    sandbox: Session.sandbox,
    encryptOtp,
    /** Whether `s` is one of this kit's sessions; ENGINE_FAULT once its Worker faulted. */
    isSession(s) {
      const r = s instanceof Session ? record(s) : undefined;
      if (r !== undefined && faults[r.gen]) throw engineFault();
      return r !== undefined;
    },
    keyArg(key) {
      const r = keyRecord(key, 'WalletClient');
      if (r.consumed || r.gen !== generation) throw gone(r.gen, keyConsumed);
      return key;
    },
    flows: () => loadPasskeys(flowSource),
  });
}

function inspectPayload(payloadToSign) {
  return request('inspectPayload', 'inspectPayload', [payloadToSign]);
}

/** Zeroizes every key and session in the Worker and stops it; a later init starts anew. */
function terminate() {
  if (port === null) return resolved(undefined);
  return new KitPromise((resolve, reject) => {
    send('terminate', 'terminate', [], (reply) => {
      disconnect(stopped('the isolated signer'));
      if (reply.ok) resolve(undefined);
      else reject(revive(reply.error));
    }, (err) => {
      disconnect(stopped('the isolated signer'));
      reject(err);
    });
  });
}

// Keys, sessions and the kit are `Result`s too: resolving with one asks no `then` of
// Object.prototype.
/** @type {object} the isolated API */
let kit;
/** The deps install() took: the only ones later calls may pass. */
let installed;
/** Where the page loads the wallet module from for WalletClient's flows: init()'s module_or_path. */
let flowSource;

/**
 * Takes what this file uses from the kit's eagerly loaded modules (the captured platform,
 * KitError, the Worker's starter); the first initIsolated() calls it.
 *
 * @param {{ KitError: typeof import('./platform.js').KitError, platform: import('./signer-platform.js')['platform'], startSignerWorker: ReturnType<typeof import('./signer-boot.js').signerWorkerStarter>, WalletClient: typeof import('./wallet-client.js').WalletClient, custodies: WeakMap<object, boolean> }} deps
 * @param {(source: unknown) => Promise<unknown>} loadPasskeys
 */
function install(deps, loadPasskeys) {
  ({ KitError, platform, startSignerWorker } = deps);
  ({
    apply, create, freeze, setPrototypeOf, KitPromise, settle, Result, isArray, entries, describe, get, stringify,
    isFinite: isFiniteNumber, trunc, FinalizationRegistry, register, fetch, arrayBuffer, hrefOf,
    NativeURL, Date, dateTime, dateNow, WeakMap, weakGet, weakSet, portPost, portClose, setPortOnMessage,
    workerPost, workerTerminate, setWorkerOnError, eventData, ErrorEvent, errorMessage,
    baseURL, requestUrl,
  } = platform);
  TOKEN = create(null);
  records = new WeakMap();
  pending = create(null);
  faults = create(null);
  released = FinalizationRegistry
    ? new FinalizationRegistry((held) => {
        if (held.gen === generation && port !== null) send('release', 'release', [held.handle], nothing, nothing);
      })
    : null;
  setPrototypeOf(ClientKey.prototype, Result);
  setPrototypeOf(Session.prototype, Result);
  freeze(ClientKey.prototype);
  freeze(ClientKey);
  freeze(Session.prototype);
  freeze(Session);
  const custody = walletCustody(loadPasskeys);
  apply(weakSet, deps.custodies, [custody, true]);
  // The kit's WalletClient: the public class, over this kit's custody (named by its key,
  // which the minifier keeps: page script and devtools see `WalletClient`).
  const { WalletClient } = {
    WalletClient: class extends deps.WalletClient {
      constructor(options) {
        super(options, custody);
      }
    },
  };
  freeze(WalletClient.prototype);
  freeze(WalletClient);
  kit = freeze({ __proto__: Result, ClientKey, Session, WalletClient, encryptOtp, openWalletExport, inspectPayload, terminate });
}

/** Whether `brand` (a captured getter) accepts `value`: a brand check nothing can fake. */
function branded(brand, value) {
  try {
    apply(brand, value, []);
    return true;
  } catch {
    return false;
  }
}

/**
 * What the Worker gets as `module_or_path` (see signer-platform.js): nothing (the
 * Worker's own .wasm), an absolute URL (a string: a relative path resolves against the
 * document's base URL as it was when the kit loaded), a Response's or Request's bytes, or
 * the value itself (bytes; anything else the Worker refuses, a WebAssembly.Module too: its
 * bytes cannot be checked); passed to `done` (or an error to `fail`), through no method
 * later script could replace and no thenable lookup. Whatever it is, the Worker
 * instantiates it only if its SHA-256 is the one the package was built with.
 */
function workerSource(source, done, fail) {
  try {
    // (In a Worker, which has no document, against its own URL, which script cannot move.)
    if (typeof source === 'string') done(apply(hrefOf, new NativeURL(source, baseURL ?? globalThis.location?.href), []));
    else if (branded(hrefOf, source)) done(apply(hrefOf, source, []));
    else if (branded(requestUrl, source)) settle(fetch(source), (response) => settle(apply(arrayBuffer, response, []), done, fail), fail);
    // A Response's bytes (Response.prototype.arrayBuffer, captured, checks that it is one);
    // anything else as it is.
    else settle(apply(arrayBuffer, source, []), done, () => done(source ?? undefined));
  } catch (err) {
    fail(err);
  }
}

function connect(options) {
  return new KitPromise((resolve, reject) => {
    if (!platform.available) {
      throw new KitError('NOT_INITIALIZED', "init({ isolate: 'worker' }) needs module Workers, which this environment lacks");
    }
    workerSource(options.source, (source) => start(source, resolve, reject), reject);
  });
}

/** Starts the Worker with the wasm `source`; `resolve(kit)` once it is ready. */
function start(source, resolveKit, rejectKit) {
  let w, mine, theirs;
  try {
    const started = startSignerWorker();
    w = started[0];
    mine = started[1];
    theirs = started[2];
  } catch (err) {
    rejectKit(new KitError('NOT_INITIALIZED', `the isolated signer's Worker could not start: ${err && err.message}`, err));
    return;
  }
  const gen = ++generation;
  worker = w;
  const fail = (message, cause) => {
    if (generation === gen) disconnect(stopped('the isolated signer'));
    rejectKit(new KitError('NOT_INITIALIZED', `embedded-wallet-kit could not start its isolated signer: ${message}`, cause));
  };
  apply(setWorkerOnError, w, [(event) => {
    const message = errorMessage && event instanceof ErrorEvent ? apply(errorMessage, event, []) : '';
    // Before it is ready: its script or a module it imports could not be fetched,
    // most often because esbuild or Rollup left them out of the build (the README's copy line).
    if (port === null) fail(`${message || 'its Worker script (signer-worker.js) or a module it imports failed to load'}; with esbuild or Rollup, copy the package's .wasm and .js files next to the bundle`);
    // An uncaught error in the running Worker: fail closed, as after a fault.
    else if (generation === gen) fault();
  }]);
  apply(setPortOnMessage, mine, [(event) => {
    const hello = apply(eventData, event, []);
    setPrototypeOf(hello, null);
    if (!hello.ready) {
      const err = hello.error ? revive(hello.error) : undefined;
      // A refused module (SIGNER_MODULE_REJECTED) keeps its code; anything else could not start.
      if (err instanceof KitError) {
        if (generation === gen) disconnect(stopped('the isolated signer'));
        rejectKit(err);
      } else fail(err ? err.message : 'unknown failure');
      return;
    }
    port = mine;
    faulted = false;
    apply(setPortOnMessage, mine, [onReply]);
    resolveKit(kit);
  }]);
  try {
    apply(workerPost, w, [{ __proto__: null, module_or_path: source }, [theirs]]);
  } catch (err) {
    // A promise, a thenable with a function: nothing is resolved here.
    if (generation === gen) disconnect(stopped('the isolated signer'));
    rejectKit(new KitError('INVALID_INPUT', 'init: module_or_path must be a URL, a path, a Request, a Response or bytes for the isolated signer', err));
  }
}

/**
 * `init({ isolate: 'worker', module_or_path?, passkeys? })`: starts the Worker once (every
 * call returns the same promise until `terminate()` or a failure) and resolves to the
 * isolated API. `passkeys: true` also instantiates the wallet module in the page (from the
 * same `module_or_path` as the Worker's), for the passkey API only: WebAuthn keys live in
 * the authenticator, not in wasm, and no ClientKey or Session is made in the page.
 *
 * @param {Parameters<typeof install>[0]} deps what install() takes: the first call's; a later
 *   call with another object rejects NOT_INITIALIZED
 * @param {{ isolate?: unknown, source?: unknown, passkeys?: unknown }} options init()'s argument as
 *   npm/guard.js's readInit() read it (own data properties, in a null-prototype record)
 * @param {(source: unknown) => Promise<unknown>} loadPasskeys
 */
export function initIsolated(deps, options, loadPasskeys) {
  if (installed === undefined) {
    // Taken before install() runs: deps that throw partway (having been handed this file's
    // prototypes) still leave the kit's own call failing closed.
    installed = deps;
    install(deps, loadPasskeys);
  } else if (deps !== installed) {
    // Page script imported this file and called it first, with a platform of its own: fail
    // closed (the kit's object, made once in signer-platform.js, is not reachable to it).
    return new KitPromise((_, reject) => reject(new KitError('NOT_INITIALIZED', 'embedded-wallet-kit: its isolated signer was set up by other code first; reload the page')));
  }
  if (options.isolate !== 'worker') {
    return new KitPromise((_, reject) => reject(new KitError('INVALID_INPUT', `init: isolate must be 'worker' or false, not ${stringify(String(options.isolate))}`)));
  }
  if (connecting === undefined) {
    const attempt = new KitPromise((resolve, reject) => {
      settle(connect(options), resolve, (err) => {
        if (connecting === attempt) connecting = undefined;
        reject(err);
      });
    });
    connecting = attempt;
  }
  flowSource = options.source;
  const passkeys = options.passkeys;
  if (passkeys === undefined || passkeys === null || passkeys === false) return connecting;
  const source = options.source;
  const both = connecting;
  return new KitPromise((resolve, reject) => {
    let waiting = 2;
    const one = () => {
      if (--waiting === 0) resolve(kit);
    };
    settle(both, one, reject);
    settle(loadPasskeys(source), one, reject);
  });
}
