// The isolated signer, page side: `init({ isolate: 'worker' })` (loaded by
// js/isolated-boot.js on its first call).
//
// The signing module runs in a dedicated Worker (signer-worker.js) that generates and
// holds every ClientKey and Session; the page gets proxies that name them by opaque
// handles and ask the Worker, over a private MessageChannel, for public keys and
// signatures. No key byte ever reaches the page's realm, so page script (even script
// loaded after the kit) that finds the kit's wasm memory finds no key in it. The platform
// functions the channel uses were captured when the kit loaded (isolated-boot.js).
import { KitError } from './kit-error.js';
import { platform, startSignerWorker } from './isolated-boot.js';

const {
  apply, create, NativeURL, Date, dateTime, dateNow, WeakMap, weakGet, weakSet, portPost, portClose, setPortOnMessage,
  workerPost, workerTerminate, setWorkerOnError, eventData, ErrorEvent, errorMessage,
} = platform;
const freeze = Object.freeze;
const isFiniteNumber = Number.isFinite;
const trunc = Math.trunc;
const g = globalThis;

const TOKEN = Symbol('isolated');
/** proxy -> { gen, handle, ...public fields }: what a proxy is, invisible to page script. */
const records = new WeakMap();
const record = (obj) => (obj !== null && typeof obj === 'object' ? apply(weakGet, records, [obj]) : undefined);

// The one live connection. Proxies remember the generation they were made on: after
// terminate() their handles mean nothing, and they act freed.
let generation = 0;
let port = null;
let worker = null;
let nextCall = 1;
let pending = create(null);
/** @type {Promise<object> | undefined} */
let connecting;

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
  return new KitError('NOT_INITIALIZED', `the isolated signer is not running: \`await init({ isolate: 'worker' })\` must resolve before ${what} is used`);
}

/** An error that crossed the channel as `{ kit, code, name, message }`, rethrown here. */
function revive(error) {
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
  for (const id in waiting) waiting[id].reject(reason);
}

function onReply(event) {
  const reply = apply(eventData, event, []);
  const waiting = pending[reply.id];
  if (waiting === undefined) return;
  delete pending[reply.id];
  if (reply.ok) waiting.resolve(reply);
  else waiting.reject(reply);
}

/**
 * Sends one request; resolves to the reply `{ ok, value, consumed? }` or rejects with it.
 * A value that cannot be copied to the Worker (a function, a Proxy, ...) is INVALID_INPUT.
 */
function call(what, op, args) {
  if (port === null) return Promise.reject(stopped(what));
  const id = nextCall++;
  return new Promise((resolve, reject) => {
    try {
      apply(portPost, port, [{ id, op, args }]);
    } catch (err) {
      reject({ error: { kit: true, code: 'INVALID_INPUT', message: `${what}: an argument cannot be passed to the isolated signer (${err && err.message})` } });
      return;
    }
    pending[id] = { resolve, reject };
  });
}

/** `call` for a result: the value, or the rethrown error. */
async function request(what, op, args, onConsumed) {
  try {
    const reply = await call(what, op, args);
    if (onConsumed && reply.consumed !== undefined) onConsumed(reply.consumed);
    return reply.value;
  } catch (reply) {
    if (reply instanceof Error) throw reply;
    if (onConsumed && reply.consumed !== undefined) onConsumed(reply.consumed);
    throw revive(reply.error);
  }
}

// Handles whose proxy was garbage-collected are released in the Worker (as wasm-bindgen
// does for same-thread objects).
const released = g.FinalizationRegistry
  ? new g.FinalizationRegistry(({ gen, handle }) => {
      if (gen === generation && port !== null) call('release', 'release', [handle]).catch(() => {});
    })
  : null;

function track(obj, fields) {
  apply(weakSet, records, [obj, fields]);
  if (released) released.register(obj, { gen: fields.gen, handle: fields.handle });
  return obj;
}

/** The record of a live key argument, or INVALID_INPUT as in same-thread mode. */
function keyRecord(key, what) {
  const r = key instanceof ClientKey ? record(key) : undefined;
  if (r === undefined) throw new KitError('INVALID_INPUT', `${what}: key must be a ClientKey (from ClientKey.generate())`);
  return r;
}

/** A key's handle for a request, or the error same-thread mode gives for a used key. */
function liveKey(r) {
  if (r.gen !== generation || port === null) throw keyConsumed();
  return r.handle;
}

class ClientKey {
  constructor(token, fields) {
    if (token !== TOKEN) throw new KitError('INVALID_INPUT', 'ClientKey has no public constructor: use ClientKey.generate()');
    track(this, fields);
  }

  /** Generates a key in the Worker; the page gets its public half. */
  static async generate() {
    const gen = generation;
    const v = await request('ClientKey.generate', 'generate', []);
    return new ClientKey(TOKEN, { gen, handle: v.handle, publicKeyHex: v.publicKeyHex, compressedPublicKeyHex: v.compressedPublicKeyHex, oidcNonce: v.oidcNonce, consumed: false });
  }

  get publicKeyHex() {
    return record(this).publicKeyHex;
  }

  get compressedPublicKeyHex() {
    return record(this).compressedPublicKeyHex;
  }

  oidcNonce() {
    return record(this).oidcNonce;
  }

  get consumed() {
    const r = record(this);
    return r.consumed || r.gen !== generation;
  }

  async signRetry(pending202) {
    const r = record(this);
    return request('ClientKey.signRetry', 'keySignRetry', [liveKey(r), pending202], (c) => (r.consumed = c));
  }

  /** Zeroizes the private key in the Worker; resolves once it is gone. */
  async free() {
    const r = record(this);
    r.consumed = true;
    if (r.gen !== generation || port === null) return;
    await request('ClientKey.free', 'close', [r.handle]);
  }

  close() {
    return this.free();
  }
}

/** Turns what the Worker says about a new session into its proxy. */
function newSession(gen, v) {
  return new Session(TOKEN, { gen, handle: v.handle, id: v.id, accountId: v.accountId, type: v.type, expiresAtMs: v.expiresAtMs, publicKeyHex: v.publicKeyHex, sandboxed: v.sandboxed, closed: false });
}

class Session {
  constructor(token, fields) {
    if (token !== TOKEN) {
      throw new KitError('INVALID_INPUT', 'Session has no public constructor: use Session.open, Session.sandbox or Session.fromClientKey');
    }
    track(this, fields);
  }

  static async open(response, key) {
    const k = keyRecord(key, 'Session.open');
    const gen = generation;
    return newSession(gen, await request('Session.open', 'open', [response, liveKey(k)], (c) => (k.consumed = c)));
  }

  static async sandbox(response) {
    const gen = generation;
    return newSession(gen, await request('Session.sandbox', 'sandbox', [response]));
  }

  static async fromClientKey(response, key) {
    const k = keyRecord(key, 'Session.fromClientKey');
    const gen = generation;
    return newSession(gen, await request('Session.fromClientKey', 'fromClientKey', [response, liveKey(k)], (c) => (k.consumed = c)));
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

  get sandboxed() {
    return record(this).sandboxed;
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

  async #sign(what, op, arg) {
    const r = record(this);
    if (r.gen !== generation || port === null) throw sessionClosed();
    return request(what, op, [r.handle, arg]);
  }

  /** Zeroizes the session key in the Worker; resolves once it is gone. */
  async free() {
    const r = record(this);
    r.closed = true;
    if (r.gen !== generation || port === null) return;
    await request('Session.free', 'close', [r.handle]);
  }

  close() {
    return this.free();
  }
}

async function encryptOtp(targetBundle, otpCode, key, options) {
  const k = keyRecord(key, 'encryptOtp');
  return request('encryptOtp', 'encryptOtp', [targetBundle, otpCode, liveKey(k), options], (c) => (k.consumed = c));
}

async function openWalletExport(response, key, options) {
  const k = keyRecord(key, 'openWalletExport');
  return request('openWalletExport', 'openWalletExport', [response, liveKey(k), options], (c) => (k.consumed = c));
}

async function inspectPayload(payloadToSign) {
  return request('inspectPayload', 'inspectPayload', [payloadToSign]);
}

/** Zeroizes every key and session in the Worker and stops it; a later init starts anew. */
async function terminate() {
  if (port === null) return;
  try {
    await request('terminate', 'terminate', []);
  } finally {
    disconnect(stopped('the isolated signer'));
  }
}

for (const cls of [ClientKey, Session]) {
  freeze(cls.prototype);
  freeze(cls);
}
const kit = freeze({ ClientKey, Session, encryptOtp, openWalletExport, inspectPayload, terminate });

/** What the Worker gets as `module_or_path`: something it can fetch or instantiate. */
async function workerSource(input) {
  let source = await input;
  if (source === undefined || source === null) return undefined;
  if (typeof source === 'string') return new NativeURL(source, g.document?.baseURI ?? g.location?.href).href;
  if (source instanceof NativeURL) return source.href;
  if (g.Request && source instanceof g.Request) source = await fetch(source);
  if (g.Response && source instanceof g.Response) return source.arrayBuffer();
  return source;
}

async function connect(options) {
  if (!platform.available) {
    throw new KitError('NOT_INITIALIZED', "init({ isolate: 'worker' }) needs module Workers, which this environment lacks");
  }
  const source = await workerSource(options.module_or_path);
  let w, mine, theirs;
  try {
    [w, mine, theirs] = startSignerWorker();
  } catch (err) {
    throw new KitError('NOT_INITIALIZED', `the isolated signer's Worker could not start: ${err && err.message}`, err);
  }
  const gen = ++generation;
  worker = w;
  await new Promise((resolve, reject) => {
    const fail = (message, cause) => {
      if (generation === gen) disconnect(stopped('the isolated signer'));
      reject(new KitError('NOT_INITIALIZED', `embedded-wallet-kit could not start its isolated signer: ${message}`, cause));
    };
    apply(setWorkerOnError, w, [(event) => {
      const message = errorMessage && event instanceof ErrorEvent ? apply(errorMessage, event, []) : '';
      if (port === null) fail(message || 'the Worker script failed to load');
      else disconnect(new KitError('NOT_INITIALIZED', `the isolated signer stopped: ${message || 'Worker error'}`));
    }]);
    apply(setPortOnMessage, mine, [(event) => {
      const hello = apply(eventData, event, []);
      if (!hello.ready) {
        fail(hello.error ? hello.error.message : 'unknown failure');
        return;
      }
      port = mine;
      apply(setPortOnMessage, mine, [onReply]);
      resolve();
    }]);
    try {
      apply(workerPost, w, [{ module_or_path: source }, [theirs]]);
    } catch (err) {
      fail(`module_or_path cannot be passed to a Worker (${err && err.message})`, err);
    }
  });
  return kit;
}

/**
 * `init({ isolate: 'worker', module_or_path?, passkeys? })`: starts the Worker once (every
 * call returns the same promise until `terminate()` or a failure) and resolves to the
 * isolated API. `passkeys` loads the passkey module in the page, as in same-thread mode
 * (WebAuthn keys live in the authenticator, not in wasm).
 *
 * @param {{ isolate: unknown, module_or_path?: unknown, passkeys?: unknown }} options
 * @param {(source: unknown) => Promise<unknown>} loadPasskeys
 */
export function initIsolated(options, loadPasskeys) {
  if (options.isolate !== 'worker') {
    return Promise.reject(new KitError('INVALID_INPUT', `init: isolate must be 'worker' or false, not ${JSON.stringify(String(options.isolate))}`));
  }
  if (connecting === undefined) {
    const attempt = connect(options).catch((err) => {
      if (connecting === attempt) connecting = undefined;
      throw err;
    });
    connecting = attempt;
  }
  const passkeys = options.passkeys;
  if (passkeys === undefined || passkeys === null || passkeys === false) return connecting;
  const source = typeof passkeys === 'object' ? passkeys.module_or_path : undefined;
  return Promise.all([connecting, loadPasskeys(source)]).then(([isolated]) => isolated);
}
