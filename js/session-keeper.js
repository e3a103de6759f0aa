// The public SessionKeeper class (js/shared.js, which its implementation extends) with its
// static start(). The implementation (js/session-keeper-impl.js: the clock, the timers,
// the refreshes) is loaded by the first SessionKeeper.start(), so init(), and every page
// that never keeps a session, does not download it.
import { lazy, SessionKeeper } from './shared.js';

// Resolved now, so that an import map injected later cannot redirect it (js/isolated-platform.js).
import.meta.resolve?.('./session-keeper-impl.js');

const loadKeeper = lazy(() => import('./session-keeper-impl.js'), 'SessionKeeper module');

const statics = {
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
const PublicSessionKeeper = /** @type {typeof SessionKeeper & typeof statics} */ (
  Object.defineProperty(SessionKeeper, 'start', { value: statics.start, writable: true, configurable: true })
);
export { PublicSessionKeeper as SessionKeeper };
