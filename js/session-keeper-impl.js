// SessionKeeper's implementation, loaded by the first SessionKeeper.start()
// (js/session-keeper.js): keeps one session alive over a WalletClient. It refreshes the
// session a lead time before its expiresAt (client.refresh, in either key mode), frees the
// session it replaced, and tells the app what happened through events it can show:
// `expiring`, `refreshed`, `expired`, `revoked`, `error`.
//
// Time is the wall clock (`now`, by default the Date.now the kit captured at load:
// js/platform.js), re-read on every timer fire and whenever the page wakes up
// (visibilitychange, focus, pageshow, online): a laptop that slept or a throttled
// background tab delays timers, so no single long setTimeout is trusted; each wait is
// capped (maxWaitMs) and only ever means "look at the clock again". The timer functions
// and the event targets are options, so that tests drive it with a fake clock.
//
// Rules the service sets (spec: refresh needs a live session; an expired one means
// logging in again): an expired session is never refreshed (`expired`, then the keeper
// stops); a 401 is not retried (`error`, then `expired`); other transient failures
// (SERVICE_ERROR, RATE_LIMITED, REQUEST_EXPIRED) are retried with backoff until expiry.
import { now as capturedNow } from './platform.js';
import { KitError } from './kit-error.js';
import { SessionKeeper, TOKEN } from './session-keeper.js';

const invalid = (message) => new KitError('INVALID_INPUT', `SessionKeeper: ${message}`);

/** Codes worth another refresh attempt: the service or the network may answer next time. */
const TRANSIENT = new Set(['SERVICE_ERROR', 'RATE_LIMITED', 'REQUEST_EXPIRED']);
const EVENTS = ['expiring', 'refreshed', 'expired', 'revoked', 'error'];

/** Whether `session` was freed: a freed session has neither a key nor the sandbox's signer. */
const freed = (session) => session.publicKeyHex === undefined && !session.sandboxed;

function duration(options, name, fallback, min) {
  const value = options[name];
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min) {
    throw invalid(`options.${name} must be a finite number of milliseconds >= ${min}`);
  }
  return value;
}

function fn(options, name, fallback) {
  const value = options[name];
  if (value === undefined) return fallback;
  if (typeof value !== 'function') throw invalid(`options.${name} must be a function`);
  return value;
}

/** options.document / options.window: an EventTarget, null (none), or undefined (the global one). */
function wakeTarget(options, name) {
  const value = options[name] === undefined ? globalThis[name] : options[name];
  if (value === null || value === undefined) return undefined;
  if (typeof value.addEventListener !== 'function') throw invalid(`options.${name} must be an EventTarget or null`);
  return value;
}

/**
 * @param {import('./index.js').WalletClient} client
 * @param {import('./index.js').Session} session
 * @param {import('./index.js').SessionKeeperOptions} [options]
 */
export function start(client, session, options = {}) {
  if (client === null || typeof client !== 'object' || typeof client.refresh !== 'function' || typeof client.revokeSession !== 'function') {
    throw invalid('client must be a WalletClient');
  }
  if (session === null || typeof session !== 'object' || !(session.expiresAt instanceof Date) || typeof session.isExpired !== 'function') {
    throw invalid('session must be a Session (from a WalletClient login)');
  }
  if (options === null || typeof options !== 'object') throw invalid('options must be an object');
  return new Keeper(client, session, {
    leadMs: duration(options, 'leadMs', 60_000, 0),
    maxWaitMs: duration(options, 'maxWaitMs', 30_000, 1),
    retryMs: duration(options, 'retryMs', 1_000, 1),
    maxRetryMs: duration(options, 'maxRetryMs', 30_000, 1),
    now: fn(options, 'now', capturedNow),
    setTimeout: fn(options, 'setTimeout', (callback, ms) => globalThis.setTimeout(callback, ms)),
    clearTimeout: fn(options, 'clearTimeout', (handle) => globalThis.clearTimeout(handle)),
    document: wakeTarget(options, 'document'),
    window: wakeTarget(options, 'window'),
  });
}

/** @typedef {import('./index.js').SessionKeeperEvents} Events */
/** @typedef {import('./index.js').SessionKeeper} DeclaredSessionKeeper */

/**
 * The keeper SessionKeeper.start() returns: the entries export its base
 * (js/session-keeper.js); this subclass has the members index.d.ts declares.
 *
 * @implements {DeclaredSessionKeeper}
 */
class Keeper extends SessionKeeper {
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
  #stopped = false;
  /** [target, type] pairs listened to, removed by stop(). */
  #wakeups = [];
  #wake = () => this.#check();

  constructor(client, session, settings) {
    super(TOKEN);
    this.#client = client;
    this.#session = session;
    ({
      leadMs: this.#leadMs, maxWaitMs: this.#maxWaitMs, retryMs: this.#retryMs, maxRetryMs: this.#maxRetryMs,
      now: this.#now, setTimeout: this.#setTimeout, clearTimeout: this.#clearTimeout,
    } = settings);
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
    session.free(); // it cannot sign any more; its key is zeroized now rather than at GC
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
    const session = this.#session;
    if (freed(session)) {
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
    if (left > this.#leadMs) {
      this.#schedule(left - this.#leadMs);
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
      .then(() => this.#client.refresh(session))
      .then(
        (fresh) => {
          this.#busy = undefined;
          this.#session = fresh;
          this.#failures = 0;
          this.#retryAt = 0;
          this.#warned = false;
          this.#emit('refreshed', { session: fresh, previous: session });
          session.free(); // replaced: its key is zeroized once the listeners have seen it
          this.#check();
        },
        (err) => {
          this.#busy = undefined;
          this.#failed(session, err);
        },
      );
    this.#busy = attempt;
  }

  #failed(session, err) {
    const code = err instanceof KitError ? err.code : undefined;
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
