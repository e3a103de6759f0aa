// The public SessionStore class. Its implementation (js/session-store-impl.js, about 3 KB
// gzip) is loaded by the first SessionStore.open(), so init() — and every page that never
// keeps a session — does not download it; this file is what the entries import.
import { KitError } from './kit-error.js';
import { isReady, notInitialized } from './guard.js';

// Resolved now, so that an import map injected later cannot redirect it (js/isolated-platform.js).
import.meta.resolve?.('./session-store-impl.js');

/** Lets the implementation (and only it) construct stores and stored sessions. */
export const TOKEN = Symbol('session-store');

/** @type {Promise<typeof import('./session-store-impl.js')> | undefined} */
let loading;

export class SessionStore {
  constructor(token) {
    if (token !== TOKEN) throw new KitError('INVALID_INPUT', 'session store: use await SessionStore.open()');
  }

  /** Opens (or creates) the store; see index.d.ts. */
  static async open(options) {
    if (!isReady()) throw notInitialized('SessionStore.open');
    if (loading === undefined) {
      const attempt = import('./session-store-impl.js').catch((err) => {
        if (loading === attempt) loading = undefined; // a later call retries
        throw new KitError('NOT_INITIALIZED', 'embedded-wallet-kit could not load its session store module', err);
      });
      loading = attempt;
    }
    return (await loading).open(options);
  }
}
