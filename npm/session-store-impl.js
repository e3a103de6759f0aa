// The session store: sessions kept across page loads in IndexedDB, each key as a
// non-extractable WebCrypto key (the one place a private key leaves wasm memory), and a client key kept the same way across an OAUTH redirect. Loaded by the
// first SessionStore.open() (npm/session-store.js), so init() does not download it.
//
// Rust keeps the logic: record checks, every signing guard, the stamp encoding (DER from
// WebCrypto's r ‖ s) and the HPKE open; WebCrypto only does the private-key step (ECDSA
// sign, ECDH deriveBits). The store's bindings are functions of the glue module that the
// package's entries do not export (no ClientKey or Session carries them), and WebCrypto and
// Date.now are the ones captured when the kit's modules loaded (npm/platform.js, which the
// glue reads too): page script that replaces them later sees no key, ECDH result or
// signing call of the store, and cannot make an expired session look live.
import {
  ClientKey as RawClientKey,
  Session as RawSession,
  storeAuthorizeQuote,
  storeAuthorizeRetry,
  storeAuthorizeStamp,
  storeEncapsulatedKey,
  storeExternalSession,
  storeImportClientKey,
  storeImportSessionKey,
  storeOpenWithDh,
  storeRecordRequestId,
  storeSignedRequestIds,
  storeStampFromP1363,
  SessionStore,
  STORE_TOKEN as TOKEN,
  storedSessions,
} from './shared.js';
import { readOptions } from './guard.js';
import { KitError, now as clock, subtle } from './platform.js';

/** @typedef {import('./index.js').StoredSession} DeclaredStoredSession */
/** @typedef {import('./index.js').SessionStore} DeclaredSessionStore */

const SESSIONS = 'sessions';
const CLIENT_KEYS = 'clientKeys';
// A stored client key only has to outlive one IdP round trip.
const CLIENT_KEY_MAX_AGE_MS = 3600_000;

const fail = (code, what, cause) => new KitError(code, `session store: ${what}`, cause);
const invalid = (what) => fail('INVALID_INPUT', what);
const gone = () => fail('SESSION_CLOSED', 'this session was deleted from the store (a logout, here or in another tab)');
const replaced = () =>
  fail('SESSION_CLOSED', 'this session was replaced by a refresh (here or in another tab); sign with the new one (SessionKeeper.session)');
/** A record that only says which session replaced it (kept until the old one's expiry). */
const isTombstone = (record) => record.replacedBy !== undefined;

/** Runs an IndexedDB or WebCrypto step: its errors become STORE_UNAVAILABLE (cause kept). */
async function guarded(what, fn) {
  try {
    return await fn();
  } catch (err) {
    throw err instanceof KitError ? err : fail('STORE_UNAVAILABLE', `${what} failed (${err?.name ?? 'error'})`, err);
  }
}

const done = (request) =>
  new Promise((ok, no) => {
    request.onsuccess = () => ok(request.result);
    request.onerror = () => no(request.error);
  });

/**
 * One transaction over both object stores: resolves with `fn`'s result once it commits;
 * a throw in `fn` aborts it (nothing written) and rejects with that error.
 */
function run(db, mode, fn) {
  return guarded('IndexedDB', () =>
    new Promise((ok, no) => {
      const tx = db.transaction([SESSIONS, CLIENT_KEYS], mode);
      let result;
      let error;
      tx.oncomplete = () => ok(result);
      tx.onabort = () => no(error ?? tx.error);
      fn(tx.objectStore(SESSIONS), tx.objectStore(CLIENT_KEYS)).then(
        (value) => {
          result = value;
        },
        (err) => {
          error = err;
          try {
            tx.abort();
          } catch {
            no(err); // already finished
          }
        },
      );
    }),
  );
}

function openDatabase(factory, name) {
  return guarded('opening IndexedDB', () =>
    new Promise((ok, no) => {
      const request = factory.open(name, 1);
      request.onupgradeneeded = () => {
        request.result.createObjectStore(SESSIONS, { keyPath: 'id' });
        request.result.createObjectStore(CLIENT_KEYS, { keyPath: 'publicKeyHex' });
      };
      request.onsuccess = () => {
        const db = request.result;
        // Let another tab upgrade (or delete) the database instead of blocking it.
        db.onversionchange = () => db.close();
        ok(db);
      };
      request.onerror = () => no(request.error);
    }),
  );
}

/**
 * Where a session goes when this browser cannot keep a CryptoKey in IndexedDB (iOS
 * Lockdown Mode, some private modes: DataCloneError): the same records, in this page's
 * memory for its life, behind the few IndexedDB calls the store makes, so every path
 * (signing, refresh, revoke, the keeper's lease) is the one a stored session takes.
 * A transaction completes once a task passes with no request pending.
 */
class MemoryDatabase {
  #stores = { [SESSIONS]: new Map(), [CLIENT_KEYS]: new Map() };

  transaction() {
    let pending = 0;
    let ended = false;
    const settle = () =>
      setTimeout(() => {
        if (pending === 0 && !ended) {
          ended = true;
          tx.oncomplete?.();
        }
      });
    const tx = {
      error: null,
      abort: () => {
        ended = true;
        queueMicrotask(() => tx.onabort?.());
      },
      objectStore: (name) => {
        const map = this.#stores[name];
        const request = (fn) => {
          const r = {};
          pending++;
          setTimeout(() => {
            pending--;
            r.result = fn();
            r.onsuccess?.();
            settle();
          });
          return r;
        };
        return {
          get: (id) => request(() => map.get(id) && { ...map.get(id) }),
          getAll: () => request(() => [...map.values()].map((r) => ({ ...r }))),
          put: (record) => request(() => map.set(record.id, { ...record })),
          delete: (id) => request(() => map.delete(id)),
          clear: () => request(() => map.clear()),
        };
      },
    };
    settle();
    return tx;
  }

  close() {}
}

/** The live record of `id` (SESSION_CLOSED once deleted or replaced), inside a transaction. */
async function liveRecord(sessions, id) {
  const record = await done(sessions.get(id));
  if (!record) throw gone();
  if (isTombstone(record)) throw replaced();
  return record;
}

/**
 * Deletes session `id` and every session that replaced it (the chain of `replacedBy`
 * tombstones), inside a readwrite transaction: a logout must not leave the refresh that
 * another tab landed meanwhile. With `end`, deletes nothing (null) unless the chain still
 * ends at `end` (the session just revoked at the service). Resolves to the deleted ids.
 */
async function deleteChain(sessions, id, end) {
  const ids = [];
  for (let current = id; current !== undefined && ids.length < 64 && !ids.includes(current); ) {
    const record = await done(sessions.get(current));
    if (!record) break;
    ids.push(current);
    current = record.replacedBy;
  }
  if (end !== undefined && ids[ids.length - 1] !== end) return null;
  for (const deleted of ids) await done(sessions.delete(deleted));
  return ids;
}

/** The ids to announce for a deletion of `id` (announced even when nothing was stored). */
const deletedIds = (id, ids) => [...new Set([id, ...ids])];

/**
 * Which stored sessions were deleted, known without reading IndexedDB: deletions in this
 * page at once, those of other pages of the origin through a BroadcastChannel (delivered
 * a task later). So a stamp or quote signature needs no IndexedDB round trip; a signed
 * retry still has one, to persist its spent requestId. Without
 * BroadcastChannel, `known` is false and every signature reads the record.
 */
class Deletions {
  #ids = new Set();
  /** Replaced session id → the id of the session that replaced it (a refresh in any tab). */
  #replaced = new Map();
  #clears = 0;
  #channel;
  /** Listeners (SessionKeepers) told of every change, this page's and the others'. */
  #watchers = new Set();

  constructor(name) {
    if (typeof BroadcastChannel === 'function') {
      this.#channel = new BroadcastChannel(`embedded-wallet-kit/session-store/${name}`);
      this.#channel.onmessage = (event) => this.#apply(event.data);
      /** @type {{ unref?: () => void }} */ (this.#channel).unref?.(); // Node: an open channel must not keep the process alive
    }
  }

  get known() {
    return this.#channel !== undefined;
  }

  /** Bumped by every clear(): handles made before it are gone. */
  get clears() {
    return this.#clears;
  }

  #apply(message) {
    if (message?.cleared === true) this.#clears++;
    if (Array.isArray(message?.deleted)) for (const id of message.deleted) this.#ids.add(id);
    const pair = message?.replaced;
    if (Array.isArray(pair) && typeof pair[0] === 'string' && typeof pair[1] === 'string') this.#replaced.set(pair[0], pair[1]);
    for (const watcher of [...this.#watchers]) watcher(message);
  }

  /** A change this page read from IndexedDB (another page's, whose message has not come, or never will). */
  learn(message) {
    this.#apply(message);
  }

  /** Calls `watcher(message)` on every change; returns the remover. */
  watch(watcher) {
    this.#watchers.add(watcher);
    return () => {
      this.#watchers.delete(watcher);
    };
  }

  replacedBy(id) {
    return this.#replaced.get(id);
  }

  /** Records a deletion here and tells the other pages. */
  announce(message) {
    this.#apply(message);
    this.#channel?.postMessage(message);
  }

  /** A session saved (again) is live again. */
  saved(id) {
    this.#ids.delete(id);
    this.#replaced.delete(id);
  }

  isDeleted(id, clearsAtCreation) {
    return this.#ids.has(id) || this.#replaced.has(id) || this.#clears !== clearsAtCreation;
  }

  close() {
    this.#channel?.close();
  }
}

const CHECK_LIVE = Symbol('check live');
const CLOSE = Symbol('close');

/** The fields of a session's record; `key` its non-extractable CryptoKey (none for a sandbox session). */
function recordOf(session, key) {
  const expiresAt = session.expiresAt;
  return {
    id: session.id,
    accountId: session.accountId,
    type: session.type,
    expiresAt: expiresAt.toISOString(),
    expiresAtMs: expiresAt.getTime(),
    publicKeyHex: session.publicKeyHex ?? null,
    sandboxed: session.sandboxed,
    keyMode: session.keyMode,
    signed: storeSignedRequestIds(session), // ids it signed before being stored stay spent
    ...(key && { key }),
  };
}

/** Imports the key of a session worth keeping (SESSION_CLOSED, SESSION_EXPIRED otherwise). */
async function keyOf(session) {
  storeAuthorizeStamp(session, ''); // SESSION_CLOSED, SESSION_EXPIRED: nothing worth keeping
  return session.sandboxed ? undefined : guarded('WebCrypto importKey', () => storeImportSessionKey(session));
}

/**
 * A stored session: its guards in wasm, its key (if any) a non-extractable CryptoKey.
 * Exported (for no importer) so that the minified package keeps the name page script
 * sees (constructor.name, devtools): scripts/minify.mjs renames what a module keeps to itself.
 *
 * @implements {DeclaredStoredSession}
 */
export class StoredSession {
  #db;
  #deletions;
  #clears;
  #session;
  #key;
  /** The ENGINE_FAULT of a WebCrypto signature that did not verify: every later use throws it. */
  #fault;

  constructor(db, deletions, session, key, token) {
    if (token !== TOKEN) throw invalid('use SessionStore.save or load');
    this.#db = db;
    this.#deletions = deletions;
    this.#clears = deletions.clears;
    this.#session = session;
    this.#key = key;
  }

  /** SESSION_CLOSED once deleted from the store (here, or in another page). */
  async #checkLive() {
    if (!this.#deletions.known) {
      this.#knownGone();
      await run(this.#db, 'readonly', (sessions) => liveRecord(sessions, this.id));
    } else {
      this.#knownGone();
    }
  }

  /** SESSION_CLOSED, saying why, once this page knows it was deleted or replaced. */
  #knownGone() {
    if (this.#fault) throw this.#fault;
    if (this.#deletions.isDeleted(this.id, this.#clears)) throw this.#deletions.replacedBy(this.id) === undefined ? gone() : replaced();
  }

  /** For WalletClient (through storedSessions): SESSION_CLOSED before anything is sent. */
  [CHECK_LIVE]() {
    return this.#checkLive();
  }

  /** Replaced in this page: its key is dropped at once. */
  [CLOSE]() {
    this.#session.close();
    this.#key = undefined;
  }

  get id() {
    return this.#session.id;
  }
  get accountId() {
    return this.#session.accountId;
  }
  get type() {
    return this.#session.type;
  }
  get expiresAt() {
    return this.#session.expiresAt;
  }
  get publicKeyHex() {
    return this.#session.publicKeyHex;
  }
  get sandboxed() {
    return this.#session.sandboxed;
  }
  get keyMode() {
    return this.#session.keyMode;
  }
  get persisted() {
    return !(this.#db instanceof MemoryDatabase);
  }

  isExpired(now) {
    return this.#session.isExpired(now);
  }

  async stamp(payloadToSign) {
    this.#knownGone();
    const payload = storeAuthorizeStamp(this.#session, payloadToSign);
    await this.#checkLive();
    return this.#sign(payload);
  }

  async signRetry(pending202) {
    this.#knownGone();
    const { payloadToSign, requestId } = storeAuthorizeRetry(this.#session, pending202);
    // Spent ids live in the record, so one signed before a reload or in another tab is
    // refused too; the check and the write are one transaction. The rule (canonical ids,
    // kept for the session's life, the cap) is the core's, as for a session in memory.
    await run(this.#db, 'readwrite', async (sessions) => {
      const record = await liveRecord(sessions, this.id);
      record.signed = storeRecordRequestId(record.signed, requestId);
      await done(sessions.put(record));
    });
    return { 'Service-Wallet-Signature': await this.#sign(payloadToSign), 'Request-Id': requestId };
  }

  async signQuote(quote) {
    this.#knownGone();
    const payload = storeAuthorizeQuote(this.#session, quote);
    await this.#checkLive();
    return { 'Service-Wallet-Signature': await this.#sign(payload) };
  }

  /**
   * Removes it, and any session that replaced it (a refresh in another tab), from the
   * store; this object then throws SESSION_CLOSED.
   */
  async delete() {
    const ids = await run(this.#db, 'readwrite', (sessions) => deleteChain(sessions, this.id));
    this.#deletions.announce({ deleted: deletedIds(this.id, ids) });
    this[CLOSE]();
  }

  async #sign(payload) {
    if (this.#key === undefined) return this.#session.stamp(payload); // sandbox, or deleted
    const key = this.#key;
    const signature = await guarded('WebCrypto sign', () =>
      /** @type {NonNullable<typeof subtle>} open() checked it */ (subtle).sign({ name: 'ECDSA', hash: 'SHA-256' }, key, new TextEncoder().encode(payload)),
    );
    try {
      // Released only once it verifies (the core's verifier, not WebCrypto's).
      return storeStampFromP1363(this.#session, payload, new Uint8Array(signature));
    } catch (err) {
      if (err?.code === 'ENGINE_FAULT') {
        this.#fault = err;
        this[CLOSE]();
      }
      throw err;
    }
  }
}

/**
 * SessionStore.open, once npm/session-store.js checked init() and loaded this module.
 *
 * @param {import('./index.js').SessionStoreOptions} [options]
 */
export async function open(options = {}) {
  if (options === null || typeof options !== 'object') throw invalid('options must be an object');
  // Each option once, as an own data property (npm/guard.js).
  const { name = 'embedded-wallet-kit', indexedDB: factory = globalThis.indexedDB } = readOptions(options, ['name', 'indexedDB']);
  if (typeof name !== 'string' || name === '') throw invalid('options.name must be a non-empty string');
  if (typeof factory?.open !== 'function') {
    throw fail('STORE_UNAVAILABLE', 'IndexedDB is not available here (options.indexedDB can supply one)');
  }
  if (subtle === undefined) {
    throw fail('STORE_UNAVAILABLE', 'WebCrypto (crypto.subtle) is not available here; browsers offer it only in secure contexts');
  }
  return Store.create(await openDatabase(factory, name), name);
}

/**
 * Sessions (and OAUTH client keys) in one IndexedDB database; see the README. The entries
 * export its base (npm/shared.js); this subclass has the methods index.d.ts declares.
 * Exported (for no importer) so that the minified package keeps the name page script
 * sees (constructor.name, devtools): scripts/minify.mjs renames what a module keeps to itself.
 *
 * @implements {DeclaredSessionStore}
 */
export class Store extends SessionStore {
  #db;
  /** Sessions whose key IndexedDB refused (DataCloneError), kept for this page's life. */
  #memory = new MemoryDatabase();
  /** False once IndexedDB refused a CryptoKey: later sessions go to #memory at once. */
  #keysPersist = true;
  #deletions;
  #name;

  constructor(db, name) {
    super(TOKEN);
    this.#db = db;
    this.#name = name;
    this.#deletions = new Deletions(name);
  }

  static async create(db, name) {
    const store = new Store(db, name);
    await store.#purge();
    return store;
  }

  async save(session) {
    if (!(session instanceof RawSession)) throw invalid('save() takes a Session');
    const record = recordOf(session, await keyOf(session));
    const write = (db) =>
      run(db, 'readwrite', async (sessions) => {
        const old = await done(sessions.get(record.id));
        // Saving the same session again must not forget the request ids it signed.
        if (old?.publicKeyHex === record.publicKeyHex) record.signed = old.signed.concat(record.signed);
        await done(sessions.put(record));
      });
    let db = this.#keysPersist || !record.key ? this.#db : this.#memory;
    try {
      await write(db);
    } catch (err) {
      if (db === this.#memory || err?.cause?.name !== 'DataCloneError') throw err;
      // This browser cannot keep a CryptoKey in IndexedDB: the session lives in this page.
      this.#keysPersist = false;
      await write((db = this.#memory));
    }
    this.#deletions.saved(record.id);
    return this.#restore(record, db);
  }

  /**
   * The session `id`, or the one that replaced it: refreshes (in any tab) leave a
   * tombstone naming the new session, and `load` follows them to the live end, so an app
   * that remembered one id finds its session after any number of refreshes.
   */
  async load(id) {
    if (typeof id !== 'string') throw invalid('load() takes a session id string');
    for (const db of [this.#memory, this.#db]) {
      const record = await run(db, 'readonly', async (sessions) => {
        let current = await done(sessions.get(id));
        for (let hops = 0; current && isTombstone(current) && hops < 64; hops++) current = await done(sessions.get(current.replacedBy));
        return current;
      });
      if (record) return !isTombstone(record) && record.expiresAtMs > clock() ? this.#restore(record, db) : null;
    }
    return null;
  }

  async list() {
    const now = clock();
    const found = [];
    for (const db of [this.#db, this.#memory]) {
      const records = await run(db, 'readonly', (sessions) => done(sessions.getAll()));
      for (const r of records) if (!isTombstone(r) && r.expiresAtMs > now) found.push(this.#restore(r, db));
    }
    return found;
  }

  async delete(id) {
    if (typeof id !== 'string') throw invalid('delete() takes a session id string');
    const ids = [];
    for (const db of [this.#db, this.#memory]) ids.push(...(await run(db, 'readwrite', (sessions) => deleteChain(sessions, id))));
    this.#deletions.announce({ deleted: deletedIds(id, ids) });
  }

  /** Deletes every session and stored client key. */
  async clear() {
    for (const db of [this.#db, this.#memory]) {
      await run(db, 'readwrite', (sessions, clientKeys) => Promise.all([done(sessions.clear()), done(clientKeys.clear())]));
    }
    this.#deletions.announce({ cleared: true });
  }

  /** Closes the database connection; later calls fail with STORE_UNAVAILABLE. */
  close() {
    this.#db.close();
    this.#deletions.close();
  }

  async saveClientKey(clientKey) {
    if (!(clientKey instanceof RawClientKey)) throw invalid('saveClientKey() takes a ClientKey');
    const key = await guarded('WebCrypto importKey', () => storeImportClientKey(clientKey)); // KEY_CONSUMED if used
    const kept = {
      publicKeyHex: clientKey.publicKeyHex,
      compressedPublicKeyHex: clientKey.compressedPublicKeyHex,
      oidcNonce: clientKey.oidcNonce(),
    };
    await run(this.#db, 'readwrite', (_, clientKeys) => done(clientKeys.put({ ...kept, savedAt: clock(), key })));
    return kept;
  }

  async openSession(response, options = {}) {
    const publicKeyHex = options?.publicKeyHex;
    if (publicKeyHex !== undefined && typeof publicKeyHex !== 'string') {
      throw invalid('openSession(): publicKeyHex must be a string');
    }
    const records = await run(this.#db, 'readonly', async (_, clientKeys) =>
      publicKeyHex === undefined ? done(clientKeys.getAll()) : [await done(clientKeys.get(publicKeyHex))].filter(Boolean),
    );
    if (records.length === 0) {
      throw fail('KEY_CONSUMED', 'no client key is kept here (it already opened a session, or was deleted, expired or never saved)');
    }
    if (records.length > 1) throw invalid('openSession(): several client keys are kept; pass { publicKeyHex }');
    const record = records[0];
    const enc = storeEncapsulatedKey(response);
    let dh;
    let session;
    try {
      dh = new Uint8Array(
        await guarded('WebCrypto ECDH', async () => {
          const webCrypto = /** @type {NonNullable<typeof subtle>} open() checked it */ (subtle);
          const peer = await webCrypto.importKey('raw', enc, { name: 'ECDH', namedCurve: 'P-256' }, false, []);
          return webCrypto.deriveBits({ name: 'ECDH', public: peer }, record.key, 256);
        }),
      );
      session = storeOpenWithDh(response, dh, record.publicKeyHex);
    } finally {
      dh?.fill(0);
    }
    // Single use, like ClientKey: only the open that deletes the record gets its session.
    try {
      await run(this.#db, 'readwrite', async (_, clientKeys) => {
        if (!(await done(clientKeys.get(record.publicKeyHex)))) throw fail('KEY_CONSUMED', 'this client key was used by another openSession');
        await done(clientKeys.delete(record.publicKeyHex));
      });
    } catch (err) {
      session.close();
      throw err;
    }
    return session;
  }

  async #purge() {
    const now = clock();
    await run(this.#db, 'readwrite', async (sessions, clientKeys) => {
      for (const r of await done(sessions.getAll())) if (!(r.expiresAtMs > now)) sessions.delete(r.id);
      for (const r of await done(clientKeys.getAll())) {
        if (!(r.savedAt + CLIENT_KEY_MAX_AGE_MS > now)) clientKeys.delete(r.publicKeyHex);
      }
    });
  }

  #restore(record, db = this.#db) {
    const info = { id: record.id, accountId: record.accountId, type: record.type, expiresAt: record.expiresAt, keyMode: record.keyMode };
    const { sandboxed, key } = record;
    let stored;
    if (sandboxed) {
      stored = new StoredSession(db, this.#deletions, RawSession.sandbox(info), undefined, TOKEN);
    } else {
      if (!(key instanceof CryptoKey)) throw fail('INVALID_SESSION', 'a stored session record has no key');
      stored = new StoredSession(db, this.#deletions, storeExternalSession(info, record.publicKeyHex), key, TOKEN);
    }
    storedSessions.set(stored, this.#internals(stored, db));
    return stored;
  }

  /**
   * What WalletClient and SessionKeeper need of a stored session beyond its public API
   * (through storedSessions): the liveness check, and the cross-tab refresh steps.
   */
  #internals(stored, db) {
    const id = stored.id;
    return {
      name: this.#name,
      broadcasts: this.#deletions.known,
      checkLive: () => stored[CHECK_LIVE](),
      status: () => this.#status(db, id),
      replace: (fresh) => this.#replace(db, stored, fresh),
      deleteChainEndingAt: (end) => this.#deleteChainEndingAt(db, stored, end),
      load: (newId) => this.load(newId),
      watch: (watcher) => this.#deletions.watch(watcher),
      takeLease: (owner, now, ms) => this.#takeLease(db, id, owner, now, ms),
      releaseLease: (owner) => this.#releaseLease(db, id, owner),
    };
  }

  /**
   * What became of session `id`, read from IndexedDB: `live`, `replaced` (by `id`, the end
   * of the chain of refreshes) or `deleted`. What it learns counts as known in this page
   * at once (signing with a replaced session is SESSION_CLOSED from then on).
   */
  async #status(db, id) {
    const status = await run(db, 'readonly', async (sessions) => {
      let current = id;
      // Each refresh leaves one tombstone; a tab asleep through many refreshes follows them all.
      for (let hops = 0; hops < 64; hops++) {
        const record = await done(sessions.get(current));
        if (!record) return { state: 'deleted' };
        if (!isTombstone(record)) return current === id ? { state: 'live' } : { state: 'replaced', id: current };
        current = record.replacedBy;
      }
      return { state: 'deleted' };
    });
    if (status.state === 'replaced' && this.#deletions.replacedBy(id) !== status.id) this.#deletions.learn({ replaced: [id, status.id] });
    if (status.state === 'deleted' && !this.#deletions.isDeleted(id, this.#deletions.clears)) this.#deletions.learn({ deleted: [id] });
    return status;
  }

  /**
   * Deletes `stored` and its successors if the chain still ends at `end` (true), else
   * nothing (false: another tab replaced `end` meanwhile, and its successor is live).
   */
  async #deleteChainEndingAt(db, stored, end) {
    const ids = await run(db, 'readwrite', (sessions) => deleteChain(sessions, stored.id, end));
    if (ids === null) return false;
    this.#deletions.announce({ deleted: deletedIds(stored.id, ids) });
    stored[CLOSE]();
    return true;
  }

  /**
   * Saves `fresh` (the refresh of `old`) and leaves a tombstone naming it in `old`'s
   * record, in one transaction, then tells the other pages. Resolves to the new stored
   * session, or null when `old` was no longer live (replaced or deleted meanwhile:
   * nothing is written).
   */
  async #replace(db, old, fresh) {
    const record = recordOf(fresh, await keyOf(fresh));
    const written = await run(db, 'readwrite', async (sessions) => {
      const previous = await done(sessions.get(old.id));
      if (!previous || isTombstone(previous)) return false;
      await done(sessions.put(record));
      await done(sessions.put({ id: old.id, replacedBy: record.id, expiresAt: previous.expiresAt, expiresAtMs: previous.expiresAtMs }));
      return true;
    });
    if (!written) return null;
    this.#deletions.saved(record.id);
    this.#deletions.announce({ replaced: [old.id, record.id] });
    old[CLOSE]();
    return this.#restore(record, db);
  }

  /**
   * The refresh lease where Web Locks are missing: taken in one transaction when no other
   * owner holds an unexpired one (`taken`); else `held` (until when) or `changed` (the
   * session was replaced or deleted).
   */
  #takeLease(db, id, owner, now, ms) {
    return run(db, 'readwrite', async (sessions) => {
      const record = await done(sessions.get(id));
      if (!record || isTombstone(record)) return { state: 'changed' };
      if (record.lease && record.lease.owner !== owner && record.lease.until > now) return { state: 'held', until: record.lease.until };
      record.lease = { owner, until: now + ms };
      await done(sessions.put(record));
      return { state: 'taken' };
    });
  }

  /** Gives the lease back (after a failed refresh), if `owner` still holds it. */
  #releaseLease(db, id, owner) {
    return run(db, 'readwrite', async (sessions) => {
      const record = await done(sessions.get(id));
      if (record?.lease?.owner !== owner) return;
      delete record.lease;
      await done(sessions.put(record));
    });
  }
}
