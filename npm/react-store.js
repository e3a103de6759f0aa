// The framework-free state behind `embedded-wallet-kit/react` (npm/react.js): one
// WalletClient after one init(), the current session (a Session or a StoredSession; kept
// alive by a SessionKeeper when opted in) and its lifecycle, as an external store for
// useSyncExternalStore. It imports nothing (the kit's init, WalletClient and SessionKeeper
// are passed in), so it is tested in Node without React (tests/js/react.test.mjs).
//
// StrictMode runs effects twice (setup, cleanup, setup) on the same store: `attach()`
// defers its teardown to a macrotask that a re-attach cancels, and `login()` is single
// flight, so a double-mounted effect neither stops the keeper, frees the session, nor opens
// a second session.

/** @typedef {'idle' | 'loading' | 'ready' | 'error'} WalletStatus */
/** @typedef {'none' | 'live' | 'refreshing' | 'expired'} SessionState */

const KEEPER_EVENTS = ['expiring', 'refreshed', 'expired', 'revoked', 'error'];

/** A StoredSession (SessionStore): it has delete() and no free(). */
const isStored = (session) => typeof session?.free !== 'function' && typeof session?.delete === 'function';

/**
 * Lets go of a session no longer installed: an in-memory Session is freed (its key
 * zeroized). A StoredSession is left as it is: it is kept for later page loads and shared
 * by the origin's tabs, so only a logout (revokeSession) deletes it from its store.
 */
function release(session) {
  if (typeof session?.free !== 'function') return;
  // A session the keeper already freed (expired, revoked) throws nothing useful here.
  try {
    session.free();
  } catch {
    // already freed
  }
}

export class WalletStore {
  #options;
  #kit;
  #listeners = new Set();
  #eventListeners = new Set();
  /** @type {{ status: WalletStatus, client: any, error: unknown, session: any, sessionState: SessionState, keeper: any }} */
  #snapshot = { status: 'idle', client: null, error: null, session: null, sessionState: 'none', keeper: null };
  /** @type {Promise<any> | null} */
  #ready = null;
  #attached = 0;
  /** @type {ReturnType<typeof setTimeout> | null} */
  #teardown = null;
  /** @type {Promise<any> | null} */
  #login = null;
  /** Bumped by every setSession/dispose: a keeper that starts after a newer call is stopped. */
  #generation = 0;
  /** @type {(() => void) | null} */
  #unsubscribeKeeper = null;

  /**
   * @param {object} options the provider's props: transport, keys, sandbox, otpSignerPin,
   *   passkey (WalletClient options), initOptions (init's argument), keeper (true or
   *   SessionKeeperOptions to keep sessions alive)
   * @param {{ init: Function, WalletClient: any, SessionKeeper: any }} kit
   */
  constructor(options, kit) {
    this.#options = options ?? {};
    this.#kit = kit;
  }

  /** The current state; a new object after every change (useSyncExternalStore). */
  getSnapshot = () => this.#snapshot;

  /** Calls `listener()` after every change; returns the unsubscribe function. */
  subscribe = (listener) => {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  };

  /** Calls `listener(type, detail)` for every event of every keeper this store runs. */
  onKeeperEvent = (listener) => {
    this.#eventListeners.add(listener);
    return () => this.#eventListeners.delete(listener);
  };

  #set(patch) {
    this.#snapshot = { ...this.#snapshot, ...patch };
    for (const listener of [...this.#listeners]) listener();
  }

  /** init() once, then one WalletClient; every call returns the same promise. */
  start = () => {
    if (this.#ready) return this.#ready;
    this.#set({ status: 'loading' });
    const { transport, keys, sandbox, otpSignerPin, passkey, initOptions } = this.#options;
    this.#ready = Promise.resolve()
      .then(() => this.#kit.init(initOptions))
      .then(() => {
        const clientOptions = { transport, keys, sandbox, otpSignerPin, passkey };
        for (const name of Object.keys(clientOptions)) if (clientOptions[name] === undefined) delete clientOptions[name];
        const client = new this.#kit.WalletClient(clientOptions);
        this.#set({ status: 'ready', client, error: null });
        return client;
      })
      .catch((error) => {
        this.#set({ status: 'error', error });
        throw error;
      });
    // The state carries the failure; a caller that awaits start() sees it too.
    this.#ready.catch(() => {});
    return this.#ready;
  };

  /**
   * The provider's effect: starts init() and returns the cleanup. The cleanup only
   * schedules the teardown (stop the keeper, release the session): StrictMode's immediate
   * re-attach cancels it.
   */
  attach = () => {
    this.#attached++;
    if (this.#teardown !== null) {
      clearTimeout(this.#teardown);
      this.#teardown = null;
    }
    this.start();
    let detached = false;
    return () => {
      if (detached) return;
      detached = true;
      this.#attached--;
      if (this.#attached === 0 && this.#teardown === null) {
        this.#teardown = setTimeout(() => {
          this.#teardown = null;
          if (this.#attached === 0) this.dispose();
        }, 0);
      }
    };
  };

  /**
   * Runs a login flow, `flow(client)` → a Session or StoredSession, and installs it. While one
   * runs, further calls join it (same promise): a double-mounted effect runs one ceremony.
   */
  login = (flow) => {
    if (this.#login) return this.#login;
    const running = this.start()
      .then((client) => flow(client))
      .then(async (session) => {
        await this.setSession(session);
        return session;
      });
    this.#login = running;
    const clear = () => {
      if (this.#login === running) this.#login = null;
    };
    running.then(clear, clear);
    return running;
  };

  /** The session to sign with now (the keeper's after a refresh), or null. */
  get session() {
    return this.#snapshot.keeper?.session ?? this.#snapshot.session;
  }

  /**
   * Installs `session` (null: none): stops the previous keeper, releases the previous
   * session (an in-memory one is freed, a stored one stays in its store; neither is revoked
   * at the service: see logout), and starts a keeper when opted in. Resolves once the
   * keeper runs.
   */
  setSession = async (session) => {
    const generation = ++this.#generation;
    const previous = this.session;
    this.#stopKeeper();
    if (previous && previous !== session) release(previous);
    this.#set({ session: session ?? null, sessionState: session ? 'live' : 'none', keeper: null });
    const keeperOption = this.#options.keeper;
    if (!session || !keeperOption) return;
    const client = await this.start();
    const keeper = await this.#kit.SessionKeeper.start(client, session, keeperOption === true ? undefined : keeperOption);
    if (generation !== this.#generation) {
      // A newer setSession, logout or dispose came first: it already took care of `session`.
      keeper.stop();
      return;
    }
    const offs = KEEPER_EVENTS.map((type) => keeper.on(type, (detail) => this.#onKeeperEvent(keeper, type, detail)));
    this.#unsubscribeKeeper = () => offs.forEach((off) => off());
    this.#set({ keeper });
  };

  #onKeeperEvent(keeper, type, detail) {
    if (this.#snapshot.keeper === keeper) {
      if (type === 'expiring') this.#set({ sessionState: 'refreshing' });
      else if (type === 'refreshed') this.#set({ session: detail.session, sessionState: 'live' });
      else if (type === 'expired' || type === 'revoked') {
        // The keeper stopped (an in-memory session it freed; a stored one expired in every
        // tab, or was deleted from its store): nothing more to hear from it.
        this.#unsubscribeKeeper?.();
        this.#unsubscribeKeeper = null;
        this.#set({ session: null, sessionState: type === 'expired' ? 'expired' : 'none', keeper: null });
      }
      else if (type === 'error' && detail.retryInMs === undefined && keeper.stopped && this.#snapshot.sessionState === 'refreshing') {
        // The keeper gave up; the session stays usable until its expiresAt.
        this.#set({ sessionState: 'live', keeper: null });
      }
    }
    for (const listener of [...this.#eventListeners]) listener(type, detail);
  }

  #stopKeeper() {
    this.#unsubscribeKeeper?.();
    this.#unsubscribeKeeper = null;
    this.#snapshot.keeper?.stop();
  }

  /**
   * Revokes the current session at the service (through the keeper when one runs) and
   * frees it, or deletes it from its store (a StoredSession: a logout in every tab).
   * Resolves when there is none, or when a StoredSession was already deleted from its
   * store (a logout in another tab: the revoke is SESSION_CLOSED, nothing is sent).
   */
  logout = async () => {
    const keeper = this.#snapshot.keeper;
    const session = this.session;
    if (!session) return;
    // A keeper still starting for this session is stopped when it arrives.
    this.#generation++;
    try {
      if (keeper) await keeper.revoke();
      else await (await this.start()).revokeSession(session);
    } catch (err) {
      if (!(isStored(session) && err?.code === 'SESSION_CLOSED')) throw err;
    } finally {
      if (this.#snapshot.keeper === keeper) {
        this.#unsubscribeKeeper?.();
        this.#unsubscribeKeeper = null;
      }
      this.#set({ session: null, sessionState: 'none', keeper: null });
    }
  };

  /** Stops the keeper and releases the session (the provider unmounted): see setSession. */
  dispose = () => {
    this.#generation++;
    const session = this.session;
    this.#stopKeeper();
    release(session);
    this.#set({ session: null, sessionState: 'none', keeper: null });
  };
}

const SIGNALS = ['signalUnknownCredential', 'signalAllAcceptedCredentials', 'signalCurrentUserDetails'];

/**
 * What useCapabilities() (npm/react.js) shows: `capabilities()`'s answer or, when that
 * rejects (its module could not be loaded), every part unavailable with the error as its
 * reason, so that a UI renders the same panel and takes the fallback paths.
 *
 * @param {() => Promise<import('./index.js').Capabilities>} capabilities the kit's
 * @returns {Promise<import('./index.js').Capabilities>}
 */
export function capabilitiesOrUnknown(capabilities) {
  return Promise.resolve().then(capabilities).then(undefined, (err) => {
    const no = { available: false, reason: `not known: capabilities() failed (${err?.code ?? err?.name}: ${err?.message ?? String(err)})` };
    const signals = /** @type {import('./index.js').PasskeyCapabilities['signals']} */ (Object.fromEntries(SIGNALS.map((m) => [m, false])));
    return Object.freeze({
      passkeys: { ...no, platformAuthenticator: false, conditionalMediation: false, signals, clientCapabilities: undefined },
      persistentKeys: no,
      wasm: no,
      isolatedSigner: no,
    });
  });
}
