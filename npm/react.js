// `embedded-wallet-kit/react`: a provider and hooks over the framework-free WalletStore
// (npm/react-store.js). React is imported here only: the core entries never reach it
// (tests/js/react.test.mjs checks their import graph). The kit is imported by its own
// package name, so an app and this module share one instance (the browser entry in a
// bundle, the Node entry during server rendering).
import { createContext, createElement, useContext, useEffect, useRef, useState, useSyncExternalStore } from 'react';
import { capabilities, init, KitError, SessionKeeper, WalletClient } from 'embedded-wallet-kit';
import { WalletStore, capabilitiesOrUnknown } from './react-store.js';
import { readOptions } from './guard.js';

/**
 * Made at the first render, not at import: React's server-component build (Next.js server
 * components, edge routes) has no createContext, and importing this module there must work.
 *
 * @type {import('react').Context<WalletStore | null> | undefined}
 */
let walletContext;
const WalletContext = () => walletContext || (walletContext = createContext(/** @type {WalletStore | null} */ (null)));

/** What the provider reads of its props (npm/guard.js: own data properties only). */
const PROVIDER_OPTIONS = ['transport', 'keys', 'sandbox', 'otpSignerPin', 'passkey', 'initOptions', 'keeper'];

/** Props are read once, at the first render (pass a stable transport). */
export function WalletProvider(props) {
  // StrictMode may call this initializer twice and keep one result: constructing a store
  // has no side effect; init() starts in the effect.
  const [store] = useState(() => new WalletStore(
    readOptions(props, PROVIDER_OPTIONS, 'WalletProvider'),
    { init, WalletClient, SessionKeeper },
  ));
  useEffect(() => store.attach(), [store]);
  return createElement(WalletContext().Provider, { value: store }, props.children);
}

function useStore(hook) {
  const store = useContext(WalletContext());
  if (!store) throw new KitError('INVALID_INPUT', `${hook}() must be called inside <WalletProvider>`);
  return store;
}

function useSnapshot(store) {
  return useSyncExternalStore(store.subscribe, store.getSnapshot, store.getSnapshot);
}

export function useWallet() {
  const store = useStore('useWallet');
  const snapshot = useSnapshot(store);
  return {
    client: snapshot.client,
    status: snapshot.status,
    ready: snapshot.status === 'ready',
    error: snapshot.error,
    login: store.login,
    setSession: store.setSession,
    logout: store.logout,
  };
}

export function useWalletReady() {
  const store = useStore('useWalletReady');
  const snapshot = useSnapshot(store);
  if (snapshot.status === 'ready') return snapshot.client;
  if (snapshot.status === 'error') throw snapshot.error;
  // Suspense: the same (memoized) promise on every render until init() settles.
  throw store.start();
}

export function useSession({ tickMs = 1000 } = {}) {
  const store = useStore('useSession');
  const snapshot = useSnapshot(store);
  const session = snapshot.keeper?.session ?? snapshot.session;
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!session) return undefined;
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), tickMs);
    return () => clearInterval(timer);
  }, [session, tickMs]);
  const expiresAt = session ? session.expiresAt : null;
  const msLeft = expiresAt ? Math.max(0, expiresAt.getTime() - now) : null;
  let state = snapshot.sessionState;
  // Without a keeper nothing reports the expiry: the clock does.
  if (state === 'live' && msLeft === 0) state = 'expired';
  return { session, state, expiresAt, msLeft, keeper: snapshot.keeper };
}

export function useKeeperEvents(handler) {
  const store = useStore('useKeeperEvents');
  const latest = useRef(handler);
  useEffect(() => {
    latest.current = handler;
  });
  useEffect(() => store.onKeeperEvent((type, detail) => latest.current?.(type, detail)), [store]);
}

/** The page's capabilities(): null until they are known; each part unavailable, with the error, if their module cannot load. No provider needed. */
export function useCapabilities() {
  const [caps, setCaps] = useState(/** @type {import('./index.js').Capabilities | null} */ (null));
  useEffect(() => {
    let mounted = true;
    capabilitiesOrUnknown(capabilities).then((answer) => mounted && setCaps(answer));
    return () => {
      mounted = false;
    };
  }, []);
  return caps;
}
