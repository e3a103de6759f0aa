// A React consumer of embedded-wallet-kit/react, compiled with tsc --strict against the
// packed declarations by scripts/pack-smoke.mjs (jsx: react-jsx, both module resolutions).
import { StrictMode, Suspense, useEffect, type ReactNode } from 'react';
import type {
  Session, SessionKeeper, SessionKeeperEvents, SessionStore, StoredSession, Transport, WalletClient,
} from 'embedded-wallet-kit';
import {
  WalletProvider, useCapabilities, useKeeperEvents, useSession, useWallet, useWalletReady,
  type AnySession, type LoginFlow, type SessionState, type SessionView, type WalletState,
} from 'embedded-wallet-kit/react';

const transport: Transport = async ({ method, path, headers, body }) => {
  const res = await fetch(`/backend${path}`, { method, headers, body });
  return { status: res.status, headers: res.headers, body: await res.text() };
};

function Login({ credentialId, otp }: { credentialId: string; otp: string }): ReactNode {
  const client: WalletClient = useWalletReady();
  const { login }: WalletState = useWallet();
  useEffect(() => {
    const running: Promise<Session> = login((c) => c.verifyEmailOtp(credentialId, otp));
    void running;
  }, [login, credentialId, otp]);
  return <p>{client.keys}</p>;
}

// A StoredSession (SessionStore) is taken wherever a Session is: login's result has the flow's type.
function StoredLogin({ sessions, credentialId, otp }: { sessions: SessionStore; credentialId: string; otp: string }): ReactNode {
  const { login, setSession }: WalletState = useWallet();
  useEffect(() => {
    const flow: LoginFlow<StoredSession> = async (c) => {
      const session = await c.verifyEmailOtp(credentialId, otp);
      try {
        return await sessions.save(session);
      } finally {
        session.free();
      }
    };
    const running: Promise<StoredSession> = login(flow);
    // @ts-expect-error -- a StoredSession flow does not resolve to an in-memory Session
    const notPlain: Promise<Session> = login(flow);
    const either: Promise<Session | StoredSession> = login(async (c) => (otp ? c.verifyEmailOtp(credentialId, otp) : flow(c)));
    const reload = async (): Promise<void> => {
      const [kept] = await sessions.list();
      if (kept) await setSession(kept);
    };
    void [running, notPlain, either, reload()];
  }, [login, setSession, sessions, credentialId, otp]);
  const view = useSession();
  const session: Session | StoredSession | null = view.session;
  // @ts-expect-error -- the view's session may be a StoredSession (no free())
  view.session?.free();
  const keeper: SessionKeeper<Session | StoredSession> | null = view.keeper;
  useKeeperEvents((type, detail) => {
    if (type === 'refreshed') {
      const refreshed = detail as SessionKeeperEvents<Session | StoredSession>['refreshed'];
      const elsewhere: true | undefined = refreshed.elsewhere;
      void [refreshed.session.id, elsewhere];
    }
  });
  void [session, keeper];
  // @ts-expect-error -- setSession takes a session or null, not its id
  void setSession('Session:1');
  return null;
}

function Status(): ReactNode {
  const { status, ready, error, client, setSession, logout } = useWallet();
  const view: SessionView = useSession({ tickMs: 500 });
  const state: SessionState = view.state;
  const msLeft: number | null = view.msLeft;
  const expiresAt: Date | null = view.expiresAt;
  const keeper: SessionKeeper<AnySession> | null = view.keeper;
  useKeeperEvents((type, detail) => {
    if (type === 'expiring') console.log((detail as { msLeft: number }).msLeft);
  });
  const s: 'idle' | 'loading' | 'ready' | 'error' = status;
  // @ts-expect-error -- a session state the hook never reports
  const wrong: SessionState = 'refreshed';
  void [ready, error, client, state, msLeft, expiresAt, keeper, s, wrong];
  return (
    <div>
      <button type="button" onClick={() => void setSession(null)}>forget</button>
      <button type="button" onClick={() => void logout()}>log out</button>
    </div>
  );
}

export function App(): ReactNode {
  return (
    <StrictMode>
      <WalletProvider transport={transport} keeper={{ leadMs: 30_000 }} initOptions={{ passkeys: true }}>
        <Suspense fallback={<p>loading</p>}>
          <Login credentialId="AuthMethod:1" otp="123456" />
          <StoredLogin sessions={{} as SessionStore} credentialId="AuthMethod:1" otp="123456" />
        </Suspense>
        <Status />
      </WalletProvider>
      <WalletProvider transport={transport} keys="client-held" keeper>
        <Status />
      </WalletProvider>
      {/* @ts-expect-error -- the transport is required */}
      <WalletProvider>
        <Status />
      </WalletProvider>
      {/* @ts-expect-error -- keeper is a boolean or SessionKeeperOptions */}
      <WalletProvider transport={transport} keeper="yes" />
    </StrictMode>
  );
}

export function CapabilitiesPanel(): ReactNode {
  const caps = useCapabilities();
  if (caps === null) return null;
  const reason: string | undefined = caps.persistentKeys.reason;
  return caps.passkeys.available && caps.passkeys.conditionalMediation ? 'autofill' : (reason ?? 'no passkeys');
}
