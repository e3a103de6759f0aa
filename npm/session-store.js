// The public SessionStore and SessionKeeper classes (npm/shared.js, which their
// implementations extend) with their static open() and start(): what the entries import.
// The implementations (npm/session-store-impl.js, npm/session-keeper-impl.js) load with the
// first SessionStore.open() / SessionKeeper.start(), so a page that never keeps a session
// does not download them.
import { isReady, notInitialized } from './guard.js';
import { lazy, SessionKeeper, SessionStore } from './shared.js';

// Resolved now, so that an import map injected later cannot redirect it (npm/signer-platform.js).
import.meta.resolve?.('./session-store-impl.js');

const loadStore = lazy(() => import('./session-store-impl.js'), 'session store module');

const statics = {
  /**
   * Opens (or creates) the store; see index.d.ts.
   *
   * @param {import('./index.js').SessionStoreOptions} [options]
   */
  async open(options) {
    if (!isReady()) throw notInitialized('SessionStore.open');
    return (await loadStore()).open(options);
  },
};

// As a static method would be: writable, configurable, not enumerable.
const PublicSessionStore = /** @type {typeof SessionStore & typeof statics} */ (
  Object.defineProperty(SessionStore, 'open', { value: statics.open, writable: true, configurable: true })
);
export { PublicSessionStore as SessionStore };

// The public SessionKeeper class (npm/shared.js, which its implementation extends) with its
// static start(). The implementation (npm/session-keeper-impl.js: the clock, the timers,
// the refreshes) is loaded by the first SessionKeeper.start(), so init(), and every page
// that never keeps a session, does not download it.

// Resolved now, so that an import map injected later cannot redirect it (npm/signer-platform.js).
import.meta.resolve?.('./session-keeper-impl.js');

const loadKeeper = lazy(() => import('./session-keeper-impl.js'), 'SessionKeeper module');

const keeperStatics = {
  /**
   * Starts keeping `session` alive; see index.d.ts.
   *
   * @template {import('./index.js').Session | import('./index.js').StoredSession} S
   * @param {import('./index.js').WalletClient} client
   * @param {S} session
   * @param {import('./index.js').SessionKeeperOptions} [options]
   * @returns {Promise<import('./index.js').SessionKeeper<S>>}
   */
  async start(client, session, options) {
    return (await loadKeeper()).start(client, session, options);
  },
};

// As a static method would be: writable, configurable, not enumerable.
const PublicSessionKeeper = /** @type {typeof SessionKeeper & typeof keeperStatics} */ (
  Object.defineProperty(SessionKeeper, 'start', { value: keeperStatics.start, writable: true, configurable: true })
);
export { PublicSessionKeeper as SessionKeeper };
