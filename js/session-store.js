// The public SessionStore class (js/shared.js, which its implementation extends) with its
// static open(). The implementation (js/session-store-impl.js, about 3 KB gzip) is loaded
// by the first SessionStore.open(), so init() — and every page that never keeps a session
// — does not download it; this file is what the entries import.
import { isReady, notInitialized } from './guard.js';
import { lazy, SessionStore } from './shared.js';

// Resolved now, so that an import map injected later cannot redirect it (js/isolated-platform.js).
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
