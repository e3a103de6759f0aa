// The public SessionKeeper class. Its implementation (js/session-keeper-impl.js: the
// clock, the timers, the refreshes) is loaded by the first SessionKeeper.start(), so
// init(), and every page that never keeps a session, does not download it.
import { KitError } from './kit-error.js';

// Resolved now, so that an import map injected later cannot redirect it (js/isolated-platform.js).
import.meta.resolve?.('./session-keeper-impl.js');

/** Lets the implementation (and only it) construct keepers. */
export const TOKEN = Symbol('session-keeper');

/** @type {Promise<typeof import('./session-keeper-impl.js')> | undefined} */
let loading;

export class SessionKeeper {
  constructor(token) {
    if (token !== TOKEN) throw new KitError('INVALID_INPUT', 'SessionKeeper: use await SessionKeeper.start(client, session)');
  }

  /**
   * Starts keeping `session` alive; see index.d.ts.
   *
   * @template {import('./index.js').Session | import('./index.js').StoredSession} S
   * @param {import('./index.js').WalletClient} client
   * @param {S} session
   * @param {import('./index.js').SessionKeeperOptions} [options]
   * @returns {Promise<import('./index.js').SessionKeeper<S>>}
   */
  static async start(client, session, options) {
    if (loading === undefined) {
      const attempt = import('./session-keeper-impl.js').catch((err) => {
        if (loading === attempt) loading = undefined; // a later call retries
        throw new KitError('NOT_INITIALIZED', 'embedded-wallet-kit could not load its SessionKeeper module', err);
      });
      loading = attempt;
    }
    return (await loading).start(client, session, options);
  }
}
