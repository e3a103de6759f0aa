// The session store (issue #6): sessions kept across page loads in IndexedDB, each key as
// a non-extractable WebCrypto key (DESIGN §5: the one place a private key leaves wasm
// memory), and a client key kept the same way across an OAUTH redirect. Loaded by the
// first SessionStore.open() (js/session-store.js), so init() does not download it.
//
// Rust keeps the logic: record checks, every signing guard, the stamp encoding (DER from
// WebCrypto's r ‖ s) and the HPKE open; WebCrypto only does the private-key step (ECDSA
// sign, ECDH deriveBits). The store's bindings are functions of the glue module that the
// package's entries do not export (no ClientKey or Session carries them), and WebCrypto and
// Date.now are the ones captured when the kit's modules loaded (js/platform.js, which the
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
} from './embedded_wallet_kit.js';
import { KitError } from './kit-error.js';
import { now as clock, subtle } from './platform.js';
import { SessionStore, TOKEN } from './session-store.js';

/** @typedef {import('./index.js').StoredSession} DeclaredStoredSession */
/** @typedef {import('./index.js').SessionStore} DeclaredSessionStore */

const SESSIONS = 'sessions';
const CLIENT_KEYS = 'clientKeys';
// A kept client key only has to outlive one IdP round trip.
const CLIENT_KEY_MAX_AGE_MS = 3600_000;

const fail = (code, what, cause) => new KitError(code, `session store: ${what}`, cause);
const invalid = (what) => fail('INVALID_INPUT', what);
const gone = () => fail('SESSION_CLOSED', 'this session was deleted from the store');

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

/** The live record of `id` (SESSION_CLOSED once deleted), inside a transaction. */
async function liveRecord(sessions, id) {
  const record = await done(sessions.get(id));
  if (!record) throw gone();
  return record;
}

/**
 * Which stored sessions were deleted, known without reading IndexedDB: deletions in this
 * page at once, those of other pages of the origin through a BroadcastChannel (delivered
 * a task later). So a stamp or quote signature needs no IndexedDB round trip (about
 * 0.5 ms); a signed retry still has one, to persist its spent requestId. Without
 * BroadcastChannel, `known` is false and every signature reads the record.
 */
class Deletions {
  #ids = new Set();
  #clears = 0;
  #channel;

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
  }

  /** Records a deletion here and tells the other pages. */
  announce(message) {
    this.#apply(message);
    this.#channel?.postMessage(message);
  }

  /** A session saved (again) is live again. */
  saved(id) {
    this.#ids.delete(id);
  }

  isDeleted(id, clearsAtCreation) {
    return this.#ids.has(id) || this.#clears !== clearsAtCreation;
  }

  close() {
    this.#channel?.close();
  }
}

/**
 * A stored session: its guards in wasm, its key (if any) a non-extractable CryptoKey.
 *
 * @implements {DeclaredStoredSession}
 */
class StoredSession {
  #db;
  #deletions;
  #clears;
  #session;
  #key;

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
      await run(this.#db, 'readonly', (sessions) => liveRecord(sessions, this.id));
    } else if (this.#deletions.isDeleted(this.id, this.#clears)) {
      throw gone();
    }
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

  isExpired(now) {
    return this.#session.isExpired(now);
  }

  async stamp(payloadToSign) {
    const payload = storeAuthorizeStamp(this.#session, payloadToSign);
    await this.#checkLive();
    return this.#sign(payload);
  }

  async signRetry(pending202) {
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
    const payload = storeAuthorizeQuote(this.#session, quote);
    await this.#checkLive();
    return { 'Service-Wallet-Signature': await this.#sign(payload) };
  }

  /** Removes it from the store; this object then throws SESSION_CLOSED. */
  async delete() {
    await run(this.#db, 'readwrite', (sessions) => done(sessions.delete(this.id)));
    this.#deletions.announce({ deleted: [this.id] });
    this.#session.close();
    this.#key = undefined;
  }

  async #sign(payload) {
    if (this.#key === undefined) return this.#session.stamp(payload); // sandbox, or deleted
    const key = this.#key;
    const signature = await guarded('WebCrypto sign', () =>
      /** @type {NonNullable<typeof subtle>} open() checked it */ (subtle).sign({ name: 'ECDSA', hash: 'SHA-256' }, key, new TextEncoder().encode(payload)),
    );
    return storeStampFromP1363(this.#session, new Uint8Array(signature));
  }
}

/**
 * SessionStore.open, once js/session-store.js checked init() and loaded this module.
 *
 * @param {import('./index.js').SessionStoreOptions} [options]
 */
export async function open(options = {}) {
  if (options === null || typeof options !== 'object') throw invalid('options must be an object');
  const { name = 'embedded-wallet-kit', indexedDB: factory = globalThis.indexedDB } = options;
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
 * export its base (js/session-store.js); this subclass has the methods index.d.ts declares.
 *
 * @implements {DeclaredSessionStore}
 */
class Store extends SessionStore {
  #db;
  #deletions;

  constructor(db, name) {
    super(TOKEN);
    this.#db = db;
    this.#deletions = new Deletions(name);
  }

  static async create(db, name) {
    const store = new Store(db, name);
    await store.#purge();
    return store;
  }

  async save(session) {
    if (!(session instanceof RawSession)) throw invalid('save() takes a Session');
    storeAuthorizeStamp(session, ''); // SESSION_CLOSED, SESSION_EXPIRED: nothing worth keeping
    const sandboxed = session.sandboxed;
    const key = sandboxed ? undefined : await guarded('WebCrypto importKey', () => storeImportSessionKey(session));
    const expiresAt = session.expiresAt;
    const record = {
      id: session.id,
      accountId: session.accountId,
      type: session.type,
      expiresAt: expiresAt.toISOString(),
      expiresAtMs: expiresAt.getTime(),
      publicKeyHex: session.publicKeyHex ?? null,
      sandboxed,
      signed: storeSignedRequestIds(session), // ids it signed before being stored stay spent
      ...(key && { key }),
    };
    await run(this.#db, 'readwrite', async (sessions) => {
      const old = await done(sessions.get(record.id));
      // Saving the same session again must not forget the request ids it signed.
      if (old?.publicKeyHex === record.publicKeyHex) record.signed = old.signed.concat(record.signed);
      await done(sessions.put(record));
    });
    this.#deletions.saved(record.id);
    return this.#restore(record);
  }

  async load(id) {
    if (typeof id !== 'string') throw invalid('load() takes a session id string');
    const record = await run(this.#db, 'readonly', (sessions) => done(sessions.get(id)));
    return record && record.expiresAtMs > clock() ? this.#restore(record) : null;
  }

  async list() {
    const records = await run(this.#db, 'readonly', (sessions) => done(sessions.getAll()));
    const now = clock();
    return records.filter((r) => r.expiresAtMs > now).map((r) => this.#restore(r));
  }

  async delete(id) {
    if (typeof id !== 'string') throw invalid('delete() takes a session id string');
    await run(this.#db, 'readwrite', (sessions) => done(sessions.delete(id)));
    this.#deletions.announce({ deleted: [id] });
  }

  /** Deletes every session and kept client key. */
  async clear() {
    await run(this.#db, 'readwrite', (sessions, clientKeys) => Promise.all([done(sessions.clear()), done(clientKeys.clear())]));
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

  #restore(record) {
    const info = { id: record.id, accountId: record.accountId, type: record.type, expiresAt: record.expiresAt };
    const { sandboxed, key } = record;
    if (sandboxed) return new StoredSession(this.#db, this.#deletions, RawSession.sandbox(info), undefined, TOKEN);
    if (!(key instanceof CryptoKey)) throw fail('INVALID_SESSION', 'a stored session record has no key');
    return new StoredSession(this.#db, this.#deletions, storeExternalSession(info, record.publicKeyHex), key, TOKEN);
  }
}
