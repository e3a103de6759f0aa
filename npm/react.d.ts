// `embedded-wallet-kit/react`: React bindings (React 18 or 19, an optional peer dependency).
import type { ReactNode, JSX } from 'react';
import type {
  Capabilities, InitInput, InitOptions, KitError, Session, SessionKeeper, SessionKeeperEvents, SessionKeeperOptions,
  StoredSession, WalletClient, WalletClientOptions,
} from './index.js';

/**
 * What the provider holds: an in-memory {@link Session} (freed when replaced, or when the
 * provider unmounts) or a {@link StoredSession} (left in its store then: it is kept for
 * later page loads and the origin's other tabs; only `logout` deletes it).
 */
export type AnySession = Session | StoredSession;

/** Props of {@link WalletProvider}; read once, at its first render. */
export interface WalletProviderProps extends WalletClientOptions {
  children?: ReactNode;
  /** The argument of `init()` (called once, in an effect; idempotent). */
  initOptions?: InitInput | InitOptions;
  /**
   * Keep every installed session alive with a {@link SessionKeeper} (`true`: its default
   * options). Default: off.
   */
  keeper?: boolean | SessionKeeperOptions;
}

/**
 * Calls `init()` once and makes one {@link WalletClient} for its subtree. StrictMode
 * safe: a double-mounted effect starts one init, one keeper, frees no live session. On
 * unmount it stops the keeper and frees an in-memory session; a {@link StoredSession}
 * stays in its store (neither is revoked: see `logout`).
 */
export declare function WalletProvider(props: WalletProviderProps): JSX.Element;

/**
 * A login flow: runs a ceremony with the client and resolves to the new session, in
 * memory or kept in a `SessionStore` (`store.save(session)`, then free `session`).
 */
export type LoginFlow<S extends AnySession = AnySession> = (client: WalletClient) => Promise<S>;

export interface WalletState {
  /** The client once `init()` resolved, else null. */
  client: WalletClient | null;
  status: 'idle' | 'loading' | 'ready' | 'error';
  ready: boolean;
  /** Why `init()` failed (a {@link KitError}), else null. */
  error: unknown;
  /**
   * Runs `flow(client)` and installs its session (as {@link setSession}). Single flight:
   * calls while one runs join it (one ceremony, one session under StrictMode).
   */
  login<S extends AnySession>(flow: LoginFlow<S>): Promise<S>;
  /**
   * Installs `session` (null: none): stops the previous keeper and frees the previous
   * session (a {@link StoredSession} is not deleted from its store); starts a keeper when
   * the provider has `keeper`. Resolves once it runs.
   */
  setSession(session: AnySession | null): Promise<void>;
  /**
   * Revokes the current session at the service (through its keeper) and frees it; a
   * {@link StoredSession} is deleted from its store (a logout in every tab). Resolves at
   * once without a session, and for a StoredSession already deleted (a logout in another
   * tab); rejects with the revoke's failure (the session is dropped all the same).
   */
  logout(): Promise<void>;
}

/** The client and its readiness; throws `INVALID_INPUT` outside a {@link WalletProvider}. */
export declare function useWallet(): WalletState;

/** The client, suspending (throws `init()`'s promise) until it is ready; throws init's error. */
export declare function useWalletReady(): WalletClient;

export type SessionState = 'none' | 'live' | 'refreshing' | 'expired';

export interface SessionView {
  /** The session to sign with now (after a refresh, the new one), or null. */
  session: AnySession | null;
  /** `refreshing`: the keeper entered the lead time; `expired`: log in again. */
  state: SessionState;
  expiresAt: Date | null;
  /** Milliseconds until `expiresAt` (0 once past), updated every `tickMs`; null without a session. */
  msLeft: number | null;
  /** The keeper keeping it alive, or null. */
  keeper: SessionKeeper<AnySession> | null;
}

/** The current session and its lifecycle; re-renders every `tickMs` (default 1000) while there is one. */
export declare function useSession(options?: { tickMs?: number }): SessionView;

/**
 * A listener of every keeper event of the provider, across refreshes and logins (with a
 * {@link StoredSession}, `refreshed` may be another tab's refresh: `elsewhere`).
 */
export type KeeperEventHandler = <K extends keyof SessionKeeperEvents<AnySession>>(type: K, detail: SessionKeeperEvents<AnySession>[K]) => void;

/** Calls the latest `handler` for each keeper event (subscribed once per provider). */
export declare function useKeeperEvents(handler: KeeperEventHandler): void;

/**
 * The page's `capabilities()` (passkeys, persistent keys, wasm, isolated signer, each
 * with a `reason` when not): `null` on the server and until they are known; probed once
 * per page, then the same object. If their module cannot be loaded, every part is
 * unavailable with that error as its `reason` (`not known: capabilities() failed (…)`),
 * so the UI renders it and takes its fallbacks. Needs no {@link WalletProvider}.
 */
export declare function useCapabilities(): Capabilities | null;
