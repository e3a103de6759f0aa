// SessionKeeper's implementation, loaded by the first SessionKeeper.start()
// (npm/session-store.js): keeps one session alive over a WalletClient. It refreshes the
// session a lead time before its expiresAt (client.refresh, in either key mode), frees the
// session it replaced, and tells the app what happened through events it can show:
// `expiring`, `refreshed`, `expired`, `revoked`, `error`.
//
// Time is the wall clock (`now`, by default the Date.now the kit captured at load:
// npm/platform.js), re-read on every timer fire and whenever the page wakes up
// (visibilitychange, focus, pageshow, online): a laptop that slept or a throttled
// background tab delays timers, so no single long setTimeout is trusted; each wait is
// capped (maxWaitMs) and only ever means "look at the clock again". The timer functions
// and the event targets are options, so that tests drive it with a fake clock.
//
// Rules the service sets (spec: refresh needs a live session; an expired one means
// logging in again): an expired session is never refreshed (`expired`, then the keeper
// stops); a 401 is not retried (`error`, then `expired`); other transient failures
// (SERVICE_ERROR, RATE_LIMITED, REQUEST_EXPIRED) are retried with backoff until expiry.
//
// A StoredSession (npm/session-store-impl.js) is kept for every tab of the origin at once:
// one tab refreshes it, under a Web Lock named after the store and the session (where Web
// Locks are missing, a lease in the session's IndexedDB record, taken in one
// transaction), and the store replaces it (a tombstone naming the new session, and a
// BroadcastChannel message); the other tabs adopt the new session instead of refreshing
// (`refreshed` with `elsewhere: true`), and a tab that waited for the lock finds the
// tombstone and adopts. A session deleted from the store (a logout in any tab) ends every
// keeper of it (`revoked` with `fromStore: true`); a logout deletes the sessions that
// replaced it too, and a deletion of only an older session of its chain ends it as well. Without BroadcastChannel the store is
// read at every check instead.
import { KitError, now as capturedNow } from './platform.js';
import { readOption } from './guard.js';
import { SessionKeeper, KEEPER_TOKEN as TOKEN, storedSessions } from './shared.js';

const invalid = (message) => new KitError('INVALID_INPUT', `SessionKeeper: ${message}`);

/** Codes worth another refresh attempt: the service or the network may answer next time. */
const TRANSIENT = new Set(['SERVICE_ERROR', 'RATE_LIMITED', 'REQUEST_EXPIRED']);
const EVENTS = ['expiring', 'refreshed', 'expired', 'revoked', 'error'];
/**
 * Against a refresh storm (a leadMs at or above a session's lifetime made every fresh
 * session due at once: 51 refreshes in 0.3 s against 8 s sessions): the lead is at most
 * half of the session's lifetime as the keeper saw it (from when it took the session to
 * its expiresAt), and a session the keeper took less than MIN_AGE_MS ago is never
 * refreshed, so one keeper refreshes at most once a second.
 */
const LEAD_SHARE_OF_LIFETIME = 0.5;
const MIN_AGE_MS = 1_000;
/** How often a tab waiting for another tab's refresh lease reads the store again. */
const LEASE_POLL_MS = 250;

/** Whether `session` was freed: a freed session has neither a key nor the sandbox's signer. */
const freed = (session) => session.publicKeyHex === undefined && !session.sandboxed;

/** options.locks: a LockManager, null (none: the lease), or undefined (navigator.locks where there is one). */
function lockManager(options) {
  let value = readOption(options, 'locks');
  if (value === undefined) value = globalThis.navigator?.locks;
  if (value === null || value === undefined) return undefined;
  if (typeof value.request !== 'function') throw invalid('options.locks must be a LockManager (navigator.locks) or null');
  return value;
}

// Each option is read once, as an own data property (npm/guard.js).
function duration(options, name, fallback, min) {
  const value = readOption(options, name);
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min) {
    throw invalid(`options.${name} must be a finite number of milliseconds >= ${min}`);
  }
  return value;
}

function fn(options, name, fallback) {
  const value = readOption(options, name);
  if (value === undefined) return fallback;
  if (typeof value !== 'function') throw invalid(`options.${name} must be a function`);
  return value;
}

/** options.document / options.window: an EventTarget, null (none), or undefined (the global one). */
function wakeTarget(options, name) {
  let value = readOption(options, name);
  if (value === undefined) value = globalThis[name];
  if (value === null || value === undefined) return undefined;
  if (typeof value.addEventListener !== 'function') throw invalid(`options.${name} must be an EventTarget or null`);
  return value;
}

/**
 * @template {import('./index.js').Session | import('./index.js').StoredSession} S
 * @param {import('./index.js').WalletClient} client
 * @param {S} session
 * @param {import('./index.js').SessionKeeperOptions} [options]
 * @returns {import('./index.js').SessionKeeper<S>}
 */
export function start(client, session, options = {}) {
  if (client === null || typeof client !== 'object' || typeof client.refresh !== 'function' || typeof client.revokeSession !== 'function') {
    throw invalid('client must be a WalletClient');
  }
  if (session === null || typeof session !== 'object' || !(session.expiresAt instanceof Date) || typeof session.isExpired !== 'function') {
    throw invalid('session must be a Session (from a WalletClient login) or a StoredSession');
  }
  if (options === null || typeof options !== 'object') throw invalid('options must be an object');
  return /** @type {any} the Keeper of S (its declared members are checked as SessionKeeper<Session>) */ (new Keeper(client, session, {
    leadMs: duration(options, 'leadMs', 60_000, 0),
    maxWaitMs: duration(options, 'maxWaitMs', 30_000, 1),
    retryMs: duration(options, 'retryMs', 1_000, 1),
    maxRetryMs: duration(options, 'maxRetryMs', 30_000, 1),
    now: fn(options, 'now', capturedNow),
    setTimeout: fn(options, 'setTimeout', (callback, ms) => globalThis.setTimeout(callback, ms)),
    clearTimeout: fn(options, 'clearTimeout', (handle) => globalThis.clearTimeout(handle)),
    document: wakeTarget(options, 'document'),
    window: wakeTarget(options, 'window'),
    locks: lockManager(options),
    lockWaitMs: duration(options, 'lockWaitMs', 20_000, 1),
    leaseMs: duration(options, 'leaseMs', 30_000, 1),
  }));
}

/** @typedef {import('./index.js').SessionKeeperEvents} Events */
/** @typedef {import('./index.js').SessionKeeper} DeclaredSessionKeeper */

/**
 * The keeper SessionKeeper.start() returns: the entries export its base
 * (npm/shared.js); this subclass has the members index.d.ts declares.
 * Exported (for no importer) so that the minified package keeps the name page script
 * sees (constructor.name, devtools): scripts/minify.mjs renames what a module keeps to itself.
 *
 * @implements {DeclaredSessionKeeper}
 */
export class Keeper extends SessionKeeper {
  #client;
  #session;
  #leadMs;
  #maxWaitMs;
  #retryMs;
  #maxRetryMs;
  #now;
  #setTimeout;
  #clearTimeout;
  /** @type {Map<string, Set<Function>>} */
  #listeners = new Map(EVENTS.map((type) => [type, new Set()]));
  /** The pending timer's handle, if one is set. */
  #timer;
  /** The refresh in flight, if any. */
  #busy;
  /** Failed refresh attempts in a row (the backoff's exponent); and the earliest next one. */
  #failures = 0;
  #retryAt = 0;
  /** Whether `expiring` was emitted for the current session. */
  #warned = false;
  /** When the keeper took the current session (its lifetime, as the keeper sees it, starts there). */
  #takenAt;
  #stopped = false;
  /** [target, type] pairs listened to, removed by stop(). */
  #wakeups = [];
  #wake = () => this.#check();
  /** A StoredSession's store internals (npm/session-store-impl.js); undefined for a Session. */
  #stored;
  #locks;
  #lockWaitMs;
  #leaseMs;
  /** This keeper's name as a lease owner. */
  #owner = `${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}`;
  /** Stops watching the store. */
  #unwatch;
  /** Ends a wait for another tab's lease early (its refresh landed). */
  #nudge;
  /** Ids of the stored sessions the current one replaced (directly or not): a logout of any is one of it. */
  #predecessors = new Set();

  constructor(client, session, settings) {
    super(TOKEN);
    this.#client = client;
    this.#session = session;
    ({
      leadMs: this.#leadMs, maxWaitMs: this.#maxWaitMs, retryMs: this.#retryMs, maxRetryMs: this.#maxRetryMs,
      now: this.#now, setTimeout: this.#setTimeout, clearTimeout: this.#clearTimeout,
      locks: this.#locks, lockWaitMs: this.#lockWaitMs, leaseMs: this.#leaseMs,
    } = settings);
    this.#takenAt = this.#now();
    this.#stored = storedSessions.get(session);
    if (this.#stored !== undefined) this.#unwatch = this.#stored.watch((message) => this.#storeChanged(message));
    this.#listen(settings.document, ['visibilitychange']);
    this.#listen(settings.window, ['focus', 'pageshow', 'online']);
    // The first look at the clock is a timer, not now: the caller of start() attaches its
    // listeners first and sees an `expiring` or `expired` that is already due.
    this.#schedule(0);
  }

  #listen(target, types) {
    if (target === undefined) return;
    for (const type of types) {
      target.addEventListener(type, this.#wake);
      this.#wakeups.push([target, type]);
    }
  }

  /** The session to sign with now: after a refresh, the new one (the old one is freed). */
  get session() {
    return this.#session;
  }

  /** Whether the keeper stopped (stop(), revoke(), expiry, a 401 or a failure it does not retry). */
  get stopped() {
    return this.#stopped;
  }

  /**
   * Adds a listener; returns a function that removes it.
   *
   * @template {keyof Events} K
   * @param {K} type
   * @param {(detail: Events[K]) => void} listener
   * @returns {() => void}
   */
  on(type, listener) {
    const set = this.#listeners.get(type);
    if (set === undefined) throw invalid(`on: type must be one of ${EVENTS.join(', ')}`);
    if (typeof listener !== 'function') throw invalid('on: listener must be a function');
    set.add(listener);
    return () => {
      set.delete(listener);
    };
  }

  #emit(type, detail) {
    for (const listener of [...(this.#listeners.get(type) ?? [])]) {
      try {
        listener(detail);
      } catch (err) {
        // An app's listener must not break the keeper; its error is not lost.
        queueMicrotask(() => {
          throw err;
        });
      }
    }
  }

  /** Stops the timers and the wake-up listeners; the current session stays open (yours to free). */
  stop() {
    if (this.#stopped) return;
    this.#stopped = true;
    if (this.#timer !== undefined) this.#clearTimeout(this.#timer);
    this.#timer = undefined;
    for (const [target, type] of this.#wakeups) target.removeEventListener(type, this.#wake);
    this.#wakeups = [];
    this.#unwatch?.();
    this.#unwatch = undefined;
  }

  /**
   * Revokes the current session at the service (after a refresh in flight has settled, so
   * the newest session is the one revoked) and stops; the session is freed whatever the
   * answer. Emits `revoked`, or `error` and rejects with the failure.
   */
  async revoke() {
    this.stop();
    if (this.#busy !== undefined) await this.#busy.catch(() => {});
    const session = this.#session;
    try {
      await this.#client.revokeSession(session);
    } catch (err) {
      this.#emit('error', { error: err, session });
      throw err;
    }
    this.#emit('revoked', { session });
  }

  /** Ends the keeper: the session expired at `left` (<= 0) or the service refused it. */
  #expire() {
    const session = this.#session;
    this.stop();
    this.#emit('expired', { session });
    // It cannot sign any more; its key is zeroized now rather than at GC. (A stored one
    // expires in every tab alike, and the store drops it at its next open.)
    if (this.#stored === undefined) session.free();
  }

  /** Ends the keeper: its stored session was deleted from the store (a logout, in any tab). */
  #deleted(session) {
    this.stop();
    this.#emit('revoked', { session, fromStore: true });
  }

  /**
   * An older session of this one's chain was deleted and this one was not (a tab of an
   * older kit deleted only the record it knew): that was a logout, which the refresh must
   * not survive. Ends the keeper and revokes the newest session (revokeSession deletes its
   * chain from the store, so no tab signs with it), once a refresh in flight has settled.
   */
  #predecessorDeleted() {
    this.stop();
    (this.#busy ?? Promise.resolve())
      .then(() => {
        const session = this.#session;
        this.#emit('revoked', { session, fromStore: true });
        return this.#client.revokeSession(session);
      })
      .catch(() => {}); // revokeSession deletes it from the store whatever the service says
  }

  /** A change to the store, in this page or another: the session deleted, or replaced. */
  #storeChanged(message) {
    if (this.#stopped) return;
    const id = this.#session.id;
    const pair = message?.replaced;
    if (Array.isArray(pair) && (pair[1] === id || this.#predecessors.has(pair[1]))) this.#predecessors.add(pair[0]);
    const ids = Array.isArray(message?.deleted) ? message.deleted : [];
    if (!ids.includes(id) && ids.some((deletedId) => this.#predecessors.has(deletedId))) {
      this.#predecessorDeleted();
      return;
    }
    const deleted = message?.cleared === true || ids.includes(id);
    const replaced = Array.isArray(pair) && pair[0] === id;
    if (!deleted && !replaced) return;
    this.#nudge?.();
    // Read from the store, after this message's sender finished its step (and not inside
    // it): a refresh or a wait in flight reads it itself, and a session this keeper has
    // already moved on from (its own refresh) needs nothing.
    queueMicrotask(() => {
      if (!this.#stopped && this.#busy === undefined && this.#session.id === id) this.#follow(() => this.#check());
    });
  }

  /**
   * Reads what became of the stored session: replaced (adopt the new one), deleted (end),
   * or live (`then`, which goes on with the clock).
   */
  #follow(then) {
    const session = this.#session;
    const attempt = this.#stored.status()
      .then((status) => (status.state === 'live' ? undefined : this.#outcomeOf(status)))
      .then(
        (outcome) => {
          this.#busy = undefined;
          if (outcome === undefined) then();
          else this.#landed(session, outcome);
        },
        (err) => {
          this.#busy = undefined;
          this.#failed(session, err);
        },
      );
    this.#busy = attempt;
  }

  /** What a store status that is not `live` means for this keeper. */
  async #outcomeOf(status) {
    if (status.state === 'deleted') return { deleted: true };
    // null: the new session expired too (or was deleted in between): `expired`.
    return { adopted: await this.#stored.load(status.id) };
  }

  #schedule(ms) {
    if (this.#stopped) return;
    if (this.#timer !== undefined) this.#clearTimeout(this.#timer);
    // Never one long wait: a capped wait only means "read the clock again".
    this.#timer = this.#setTimeout(() => {
      this.#timer = undefined;
      this.#check();
    }, Math.max(0, Math.min(ms, this.#maxWaitMs)));
  }

  /** Reads the clock and does what is due: nothing yet, warn and refresh, or expire. */
  #check() {
    if (this.#stopped || this.#busy !== undefined) return;
    // Without BroadcastChannel no other tab's refresh or logout is announced: read the store.
    if (this.#stored !== undefined && !this.#stored.broadcasts) this.#follow(() => this.#checkClock());
    else this.#checkClock();
  }

  #checkClock() {
    if (this.#stopped || this.#busy !== undefined) return;
    const session = this.#session;
    if (this.#stored === undefined && freed(session)) {
      // The app freed (or revoked) it behind the keeper's back: nothing left to keep.
      this.stop();
      this.#emit('error', { error: new KitError('SESSION_CLOSED', 'SessionKeeper: the session was freed; the keeper stopped'), session });
      return;
    }
    const at = this.#now();
    const left = session.expiresAt.getTime() - at;
    if (left <= 0 || session.isExpired(at)) {
      this.#expire();
      return;
    }
    const lead = Math.min(this.#leadMs, (session.expiresAt.getTime() - this.#takenAt) * LEAD_SHARE_OF_LIFETIME);
    const wait = Math.max(left - lead, this.#takenAt + MIN_AGE_MS - at);
    if (wait > 0) {
      this.#schedule(wait);
      return;
    }
    if (!this.#warned) {
      this.#warned = true;
      this.#emit('expiring', { session, msLeft: left });
      if (this.#stopped) return; // a listener stopped the keeper
    }
    if (at < this.#retryAt) {
      this.#schedule(Math.min(this.#retryAt - at, left));
      return;
    }
    this.#refresh(session);
  }

  #refresh(session) {
    const attempt = Promise.resolve()
      .then(() => (this.#stored === undefined ? this.#client.refresh(session).then((fresh) => ({ fresh })) : this.#sharedRefresh(session)))
      .then(
        (outcome) => {
          this.#busy = undefined;
          this.#landed(session, outcome);
        },
        (err) => {
          this.#busy = undefined;
          this.#failed(session, err);
        },
      );
    this.#busy = attempt;
  }

  /**
   * A refresh's (or the store's) outcome: `fresh` (refreshed here), `adopted` (another
   * tab's refresh; null when that session is gone too), or `deleted`.
   */
  #landed(session, outcome) {
    if (outcome.deleted) {
      this.#deleted(session);
      return;
    }
    const fresh = outcome.fresh ?? outcome.adopted;
    if (fresh === null) {
      this.#expire();
      return;
    }
    this.#session = fresh;
    this.#takenAt = this.#now();
    if (this.#stored !== undefined) {
      this.#stored = storedSessions.get(fresh);
      this.#predecessors.add(session.id);
    }
    this.#failures = 0;
    this.#retryAt = 0;
    this.#warned = false;
    this.#emit('refreshed', { session: fresh, previous: session, ...(outcome.adopted && { elsewhere: true }) });
    // Replaced: its key is zeroized once the listeners have seen it (a stored one was
    // closed by the store's replace, or is refused by it once replaced).
    if (this.#stored === undefined) session.free();
    this.#check();
  }

  /**
   * One refresh for every tab: under the session's lock (or lease), read the store first;
   * a session another tab already replaced (or deleted) is adopted (or ended), not
   * refreshed again.
   */
  #sharedRefresh(session) {
    const work = async () => {
      const status = await this.#stored.status();
      if (status.state !== 'live') return this.#outcomeOf(status);
      return this.#keep(await this.#client.refresh(session));
    };
    return this.#locks === undefined ? this.#withLease(work) : this.#withLock(session, work);
  }

  /** Puts a fresh session in the store in place of the current one. */
  async #keep(fresh) {
    const stored = this.#stored;
    let kept;
    try {
      kept = await stored.replace(fresh);
    } catch (err) {
      fresh.free();
      throw err;
    }
    if (kept !== null) {
      fresh.free(); // the store holds it now (a non-extractable WebCrypto key)
      return { fresh: kept };
    }
    // Replaced or deleted while this refresh ran (a lease that outlived leaseMs, its tab
    // slow rather than gone): follow the store; the session nobody keeps is revoked rather
    // than left live at the service (revokeSession frees it whatever the answer).
    const status = await stored.status();
    await this.#client.revokeSession(fresh).catch(() => {});
    return this.#outcomeOf(status);
  }

  #waitTimedOut() {
    return new KitError('SERVICE_ERROR', `SessionKeeper: another tab's refresh of this session did not finish within ${this.#lockWaitMs} ms (options.lockWaitMs); retrying`);
  }

  /** Runs `work` holding the Web Lock of this session; waits for it at most lockWaitMs. */
  async #withLock(session, work) {
    const controller = new AbortController();
    const timer = this.#setTimeout(() => controller.abort(), this.#lockWaitMs);
    let result;
    try {
      await this.#locks.request(`embedded-wallet-kit/session-refresh/${this.#stored.name}/${session.id}`, { signal: controller.signal }, async () => {
        this.#clearTimeout(timer); // granted: the wait is over, the work is not bounded by it
        result = await work();
      });
    } catch (err) {
      if (controller.signal.aborted && err?.name === 'AbortError') throw this.#waitTimedOut();
      throw err;
    } finally {
      this.#clearTimeout(timer);
    }
    return result;
  }

  /**
   * Runs `work` holding the session's lease (no Web Locks): taken in one IndexedDB
   * transaction unless another tab holds an unexpired one; then the store is read again
   * every LEASE_POLL_MS (or at once when the store announces a change) for at most
   * lockWaitMs.
   */
  async #withLease(work) {
    const stored = this.#stored;
    const deadline = this.#now() + this.#lockWaitMs;
    for (;;) {
      const lease = await stored.takeLease(this.#owner, this.#now(), this.#leaseMs);
      if (lease.state === 'changed') return this.#outcomeOf(await stored.status());
      if (lease.state === 'taken') {
        try {
          return await work(); // a replace leaves a tombstone: the lease goes with the record
        } catch (err) {
          await stored.releaseLease(this.#owner).catch(() => {});
          throw err;
        }
      }
      const at = this.#now();
      if (at >= deadline) throw this.#waitTimedOut();
      await this.#pause(Math.min(LEASE_POLL_MS, lease.until - at, deadline - at));
    }
  }

  /** Waits `ms` on the keeper's timers, or until the store announces a change. */
  #pause(ms) {
    return /** @type {Promise<void>} */ (new Promise((resolve) => {
      const done = () => {
        this.#nudge = undefined;
        resolve();
      };
      const handle = this.#setTimeout(done, Math.max(0, ms));
      this.#nudge = () => {
        this.#clearTimeout(handle);
        done();
      };
    }));
  }

  #failed(session, err, followed = false) {
    const code = err instanceof KitError ? err.code : undefined;
    if (code === 'SESSION_CLOSED' && this.#stored !== undefined && !followed && !this.#stopped) {
      // A stored session replaced or deleted under this refresh (another tab refreshed it
      // after this tab's lease had run out, or logged out): the store says which.
      this.#follow(() => this.#failed(session, err, true));
      return;
    }
    if (code === 'SESSION_EXPIRED') {
      // It expired while waiting for the transport (checked before sending): log in again.
      this.#expire();
      return;
    }
    if (code === 'UNAUTHORIZED') {
      // The service no longer accepts this session (revoked elsewhere, or expired there):
      // retrying cannot help, and only a new login can.
      this.#emit('error', { error: err, session });
      this.#expire();
      return;
    }
    if (code === undefined || !TRANSIENT.has(code)) {
      this.stop();
      this.#emit('error', { error: err, session });
      return;
    }
    this.#failures += 1;
    const backoff = Math.min(this.#maxRetryMs, this.#retryMs * 2 ** (this.#failures - 1));
    const wait = code === 'RATE_LIMITED' && typeof err.retryAfterMs === 'number' ? Math.max(backoff, err.retryAfterMs) : backoff;
    const at = this.#now();
    this.#retryAt = at + wait;
    this.#emit('error', { error: err, session, retryInMs: wait });
    if (this.#stopped) return;
    // Past expiry there is nothing to retry: the check at expiresAt ends it.
    this.#schedule(Math.min(wait, session.expiresAt.getTime() - at));
  }
}
