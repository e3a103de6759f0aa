// The handle classes page script sees, ClientKey and Session, over the raw classes of one
// wasm-bindgen glue (each entry has its own glue: js/glue-full.js and js/glue-signing.js
// call `handleClasses` once each). The raw objects never leave the kit: wasm-bindgen keeps
// their wasm pointer in a writable `__wbg_ptr` that it trusts on every call, and its
// classes carry `__wrap` (any integer becomes a handle) and `__destroy_into_raw`. Here:
//   - a handle's raw object is in a WeakMap of this factory, reachable only by the kit's
//     modules (through `keyOf`/`sessionOf`); an object the factory did not make (a
//     prototype object carrying a copied `__wbg_ptr`, a Session re-prototyped as a
//     ClientKey) is KitError INVALID_INPUT before anything reaches wasm;
//   - there is no public constructor; the static functions are NOT_INITIALIZED until the
//     entry's init() readied the module;
//   - every call fails closed (js/guard.js): an exception out of the wasm that is not a
//     KitError marks the module dead, and every later call answers ENGINE_FAULT;
//   - `free()` zeroizes the key and releases the wasm memory at once (wasm-bindgen's own
//     `free()` drops the Rust value, whose key is zeroized on drop). Made while a call into
//     the module is under way (from a getter of an argument), it closes the handle at once
//     (the Rust side zeroizes when the call lets go of the key, and the call throws
//     KEY_CONSUMED / SESSION_CLOSED) and releases it when the outermost call returns. A
//     freed handle keeps its public facts (public key, session id, expiry) and answers
//     every use of its key as a closed one did before: KEY_CONSUMED, SESSION_CLOSED.
// The declarations (index.d.ts, signing.d.ts) are the glue's own, generated from the Rust
// docs; the entries declare these classes as those types, which tsc checks.
import { KitError } from './kit-error.js';
import { engineFault, notInitialized, registerHandleClass } from './guard.js';
import { now } from './platform.js';

const KEY_FACTORIES = 'ClientKey.generate()';
const SESSION_FACTORIES = 'Session.open, Session.sandbox or Session.fromClientKey';
/** What `new ClientKey(...)` from the kit passes: anything else is page script's `new`. */
const TOKEN = Symbol('handle');

/** The core's answers for a freed handle (src/client_key.rs, src/session.rs). */
const keyConsumed = () => new KitError('KEY_CONSUMED',
  'this ClientKey was already used to open a session; generate a new one for each verify, challenge or refresh');
const sessionClosed = () => new KitError('SESSION_CLOSED', 'this session was freed; its key is gone');
const invalid = (message) => new KitError('INVALID_INPUT', message);

/**
 * `oidcNonce`'s options as bindings/signing/src/signing.rs `key_form` reads them (for a
 * freed key, whose nonces are kept): whether the compressed form is asked for.
 */
function wantsCompressed(options) {
  if (options === undefined || options === null) return false;
  if (typeof options !== 'object' || Array.isArray(options)) throw invalid('oidcNonce options must be an object like { compressed: true }');
  if (Object.keys(options).some((k) => k !== 'compressed')) throw invalid('oidcNonce options take only `compressed` (a boolean)');
  const compressed = Object.hasOwn(options, 'compressed') ? options.compressed : undefined;
  if (compressed === undefined) return false;
  if (typeof compressed !== 'boolean') throw invalid('options.compressed must be a boolean');
  return compressed;
}

/** `isExpired`'s `now` as signing.rs reads it, in epoch milliseconds. */
function epochMillis(value) {
  if (value === undefined || value === null) return now();
  let ms = value;
  if (typeof value !== 'number') {
    try {
      ms = Date.prototype.getTime.call(value);
    } catch {
      throw invalid('now must be a Date or epoch milliseconds');
    }
  }
  if (!Number.isFinite(ms)) throw invalid('now is an invalid Date');
  return ms;
}

/**
 * The handle classes of one glue.
 *
 * @param {{ ClientKey: any, Session: any }} glue the raw classes (wasm-bindgen's)
 * @param {typeof import('./guard.js').mainModule} module the entry's module state
 */
export function handleClasses(glue, module) {
  const RawKey = glue.ClientKey;
  const RawSession = glue.Session;

  /**
   * A handle's state: `raw` until it is released (then null), `freed` once `free()` was
   * called, `facts` (what stays readable) once released.
   *
   * @typedef {{ raw: any, freed: boolean, facts: any }} Cell
   */
  /** @type {WeakMap<object, Cell>} */
  const keys = new WeakMap();
  /** @type {WeakMap<object, Cell>} */
  const sessions = new WeakMap();

  /** Calls into the module under way, and the handles freed during them. */
  let depth = 0;
  /** @type {Array<{ cell: Cell, facts: (raw: any) => object }>} */
  const freedDuringCall = [];

  /**
   * Runs `fn`, a call into the module, failing closed (js/guard.js failClosed); when the
   * outermost call returns, releases the handles freed during it.
   *
   * @template R
   * @param {() => R} fn
   * @returns {R}
   */
  function call(fn) {
    if (module.isPoisoned()) throw engineFault();
    depth += 1;
    try {
      return fn();
    } catch (err) {
      if (err instanceof KitError) throw err;
      module.poison();
      throw engineFault(err);
    } finally {
      depth -= 1;
      while (depth === 0 && freedDuringCall.length > 0) {
        const { cell, facts } = /** @type {{ cell: Cell, facts: (raw: any) => object }} */ (freedDuringCall.pop());
        release(cell, facts);
      }
    }
  }

  /**
   * Closes the handle (the facts are then a closed one's: a freed sandbox session is no
   * longer `sandboxed`, as before), keeps its public facts, then drops the Rust value (its
   * key zeroized again on drop) and releases its memory.
   */
  function release(cell, facts) {
    const raw = cell.raw;
    cell.raw = null;
    depth += 1;
    try {
      if (!module.isPoisoned()) {
        raw.close();
        cell.facts = facts(raw);
      }
      raw.free();
    } catch (err) {
      // free() returns: a module that traps here is dead (a dead one's free is tried, quietly).
      if (!(err instanceof KitError)) module.poison();
    } finally {
      depth -= 1;
    }
  }

  /** `close()`: zeroizes now, or when the call using the key lets go; a dead module's is tried quietly. */
  function close(cell) {
    if (cell.raw === null) return;
    if (!module.isPoisoned()) {
      call(() => cell.raw.close());
      return;
    }
    try {
      cell.raw.close();
    } catch {
      // A dead module's close: best effort.
    }
  }

  /** `free()`: now, or when the call under way returns (it closes at once). */
  function free(cell, facts) {
    if (cell.freed) return;
    cell.freed = true;
    if (depth === 0) {
      release(cell, facts);
      return;
    }
    try {
      cell.raw.close();
    } catch (err) {
      if (!(err instanceof KitError)) module.poison();
    }
    freedDuringCall.push({ cell, facts });
  }

  /** The static functions: NOT_INITIALIZED before init(), ENGINE_FAULT once dead. */
  function ready(label) {
    if (module.isPoisoned()) throw engineFault();
    if (!module.isReady()) throw notInitialized(label);
  }

  /** `new X()` by page script: never a handle. */
  function refuseNew(name, factories) {
    ready(`new ${name}()`);
    return invalid(`${name} has no public constructor: use ${factories}`);
  }

  /**
   * The state of the ClientKey `obj`; `where` names the function it is an argument of.
   *
   * @param {unknown} obj
   * @param {string} [where]
   * @returns {Cell}
   */
  function keyCell(obj, where) {
    const cell = typeof obj === 'object' && obj !== null ? keys.get(obj) : undefined;
    if (cell === undefined) {
      throw invalid(where === undefined
        ? `not a ClientKey made by embedded-wallet-kit (use ${KEY_FACTORIES})`
        : `${where}: key must be a ClientKey (from ${KEY_FACTORIES})`);
    }
    return cell;
  }

  /**
   * The state of the Session `obj`; `where` names the function it is an argument of.
   *
   * @param {unknown} obj
   * @param {string} [where]
   * @returns {Cell}
   */
  function sessionCell(obj, where) {
    const cell = typeof obj === 'object' && obj !== null ? sessions.get(obj) : undefined;
    if (cell === undefined) {
      throw invalid(where === undefined
        ? `not a Session made by embedded-wallet-kit (use ${SESSION_FACTORIES})`
        : `${where}: session must be a Session (from ${SESSION_FACTORIES})`);
    }
    return cell;
  }

  /** A handle's state for a use (not its free or close): ENGINE_FAULT once the module is dead. */
  function live(cell) {
    if (module.isPoisoned()) throw engineFault();
    return cell;
  }

  /** The raw ClientKey behind `obj`, for a call into the module; KEY_CONSUMED once freed. */
  function keyOf(obj, where) {
    const { raw } = live(keyCell(obj, where));
    if (raw === null) throw keyConsumed();
    return raw;
  }

  /** The raw Session behind `obj`, for a call into the module; SESSION_CLOSED once freed. */
  function sessionOf(obj, where) {
    const { raw } = live(sessionCell(obj, where));
    if (raw === null) throw sessionClosed();
    return raw;
  }

  const keyFacts = (raw) => ({
    publicKeyHex: raw.publicKeyHex,
    compressedPublicKeyHex: raw.compressedPublicKeyHex,
    oidcNonce: raw.oidcNonce(),
    compressedOidcNonce: raw.oidcNonce({ compressed: true }),
  });
  const sessionFacts = (raw) => ({
    id: raw.id,
    accountId: raw.accountId,
    type: raw.type,
    expiresAt: raw.expiresAt.getTime(),
    sandboxed: raw.sandboxed,
  });

  /** A key's public fact: from wasm while the handle holds its raw object, kept after. */
  function keyFact(obj, name) {
    const cell = live(keyCell(obj));
    return cell.raw === null ? cell.facts[name] : call(() => cell.raw[name]);
  }

  /** A session's public fact, likewise. */
  function sessionFact(obj, name) {
    const cell = live(sessionCell(obj));
    return cell.raw === null ? cell.facts[name] : call(() => cell.raw[name]);
  }

  /** A session's use of its key: SESSION_CLOSED once released. */
  function sessionUse(obj, use) {
    const cell = live(sessionCell(obj));
    if (cell.raw === null) throw sessionClosed();
    return call(() => use(cell.raw));
  }

  /** An ephemeral P-256 key pair generated inside WebAssembly memory (see the declarations). */
  class ClientKey {
    /** @param {never} [token] @param {any} [raw] */
    constructor(token, raw) {
      if (token !== TOKEN) throw refuseNew('ClientKey', KEY_FACTORIES);
      keys.set(this, { raw, freed: false, facts: undefined });
    }

    static generate() {
      ready('ClientKey.generate');
      return new ClientKey(/** @type {never} */ (TOKEN), call(() => RawKey.generate()));
    }

    /** @returns {string} */
    get publicKeyHex() {
      return keyFact(this, 'publicKeyHex');
    }

    /** @returns {string} */
    get compressedPublicKeyHex() {
      return keyFact(this, 'compressedPublicKeyHex');
    }

    /**
     * @param {{ compressed?: boolean }} [options]
     * @returns {string}
     */
    oidcNonce(options) {
      const cell = live(keyCell(this));
      if (cell.raw !== null) return call(() => cell.raw.oidcNonce(options));
      return wantsCompressed(options) ? cell.facts.compressedOidcNonce : cell.facts.oidcNonce;
    }

    /** @returns {boolean} */
    get consumed() {
      const cell = live(keyCell(this));
      return cell.raw === null || call(() => cell.raw.consumed);
    }

    /**
     * @param {import('./index.js').PendingSignature | string} pending202
     * @returns {import('./index.js').SignedRetryHeaders}
     */
    signRetry(pending202) {
      const raw = keyOf(this);
      return call(() => raw.signRetry(pending202));
    }

    close() {
      close(keyCell(this));
    }

    free() {
      free(keyCell(this), keyFacts);
    }

    /** Whether this is a ClientKey the kit made (code that tested wasm-bindgen's pointer). */
    get __wbg_ptr() {
      return keys.has(this);
    }
  }

  /** An authenticated session whose P-256 signing key lives only in wasm memory. */
  class Session {
    /** @param {never} [token] @param {any} [raw] */
    constructor(token, raw) {
      if (token !== TOKEN) throw refuseNew('Session', SESSION_FACTORIES);
      sessions.set(this, { raw, freed: false, facts: undefined });
    }

    /**
     * @param {import('./index.js').SessionResponse | string} response
     * @param {ClientKey} key
     * @returns {Session}
     */
    static open(response, key) {
      ready('Session.open');
      const raw = keyOf(key, 'Session.open');
      return new Session(/** @type {never} */ (TOKEN), call(() => RawSession.open(response, raw)));
    }

    /**
     * @param {import('./index.js').SessionResponse | string} response
     * @returns {Session}
     */
    static sandbox(response) {
      ready('Session.sandbox');
      return new Session(/** @type {never} */ (TOKEN), call(() => RawSession.sandbox(response)));
    }

    /**
     * @param {import('./index.js').SessionResponse | string} response
     * @param {ClientKey} key
     * @returns {Session}
     */
    static fromClientKey(response, key) {
      ready('Session.fromClientKey');
      const raw = keyOf(key, 'Session.fromClientKey');
      return new Session(/** @type {never} */ (TOKEN), call(() => RawSession.fromClientKey(response, raw)));
    }

    /** @returns {string} */
    get id() {
      return sessionFact(this, 'id');
    }

    /** @returns {string} */
    get accountId() {
      return sessionFact(this, 'accountId');
    }

    /** @returns {string} */
    get type() {
      return sessionFact(this, 'type');
    }

    /** @returns {Date} */
    get expiresAt() {
      const cell = live(sessionCell(this));
      return cell.raw === null ? new Date(cell.facts.expiresAt) : call(() => cell.raw.expiresAt);
    }

    /** @returns {string | undefined} */
    get publicKeyHex() {
      const cell = live(sessionCell(this));
      return cell.raw === null ? undefined : call(() => cell.raw.publicKeyHex);
    }

    /** @returns {boolean} */
    get sandboxed() {
      return sessionFact(this, 'sandboxed');
    }

    /**
     * @param {Date | number} [now]
     * @returns {boolean}
     */
    isExpired(now) {
      const cell = live(sessionCell(this));
      if (cell.raw !== null) return call(() => cell.raw.isExpired(now));
      return epochMillis(now) >= cell.facts.expiresAt;
    }

    /**
     * @param {string} payloadToSign
     * @returns {string}
     */
    stamp(payloadToSign) {
      return sessionUse(this, (raw) => raw.stamp(payloadToSign));
    }

    /**
     * @param {import('./index.js').PendingSignature | string} pending202
     * @returns {import('./index.js').SignedRetryHeaders}
     */
    signRetry(pending202) {
      return sessionUse(this, (raw) => raw.signRetry(pending202));
    }

    /**
     * @param {import('./index.js').Quote | string} quote
     * @returns {import('./index.js').QuoteSignatureHeader}
     */
    signQuote(quote) {
      return sessionUse(this, (raw) => raw.signQuote(quote));
    }

    close() {
      close(sessionCell(this));
    }

    free() {
      free(sessionCell(this), sessionFacts);
    }

    /** Whether this is a Session the kit made (code that tested wasm-bindgen's pointer). */
    get __wbg_ptr() {
      return sessions.has(this);
    }
  }

  for (const [name, cls] of /** @type {Array<[string, Function]>} */ ([['ClientKey', ClientKey], ['Session', Session]])) {
    // Their own names, whatever the minifier calls the declarations (error messages,
    // devtools and inspect() show them).
    Object.defineProperty(cls, 'name', { value: name });
    // Read-only and fixed, as the wasm-bindgen pointer's flag was.
    Object.defineProperty(cls.prototype, '__wbg_ptr', { configurable: false, enumerable: false });
    // `using` frees, where the runtime has Symbol.dispose (as wasm-bindgen's classes do).
    const dispose = /** @type {{ dispose?: symbol }} */ (Symbol).dispose;
    if (dispose) Object.defineProperty(cls.prototype, dispose, { value: cls.prototype.free, writable: true, configurable: true });
  }
  registerHandleClass(ClientKey, (obj) => typeof obj === 'object' && obj !== null && keys.has(obj));
  registerHandleClass(Session, (obj) => typeof obj === 'object' && obj !== null && sessions.has(obj));

  return {
    ClientKey,
    Session,
    /** Runs a call into the module that takes handles (the glue's functions): js/glue-full.js. */
    call,
    keyOf,
    sessionOf,
    /** The handle of a raw Session a glue function returned. */
    adoptSession: (raw) => new Session(/** @type {never} */ (TOKEN), raw),
  };
}
