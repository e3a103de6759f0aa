// A React app over embedded-wallet-kit/react, rendered under <StrictMode> (a development
// build: StrictMode runs every effect twice). Served by the emulator (--static-dir), so
// the transport is the emulator's same-origin /backend proxy, which adds the API
// credentials. It logs in with EMAIL_OTP from an effect (as a redirect or magic-link page
// would), pays a quote signed with the current session on a click, shows the keeper's
// countdown and events, and logs out. run.mjs drives it and reads window.reactE2E: every
// request the transport sent, the keeper events, and how often the login effect ran.
// With ?stored=1 the login flow keeps the session in a SessionStore and installs the
// StoredSession (window.reactE2EStoredIds() lists the store's sessions).
import { StrictMode, Suspense, useEffect, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { SessionStore } from 'embedded-wallet-kit';
import { WalletProvider, useWallet, useWalletReady, useSession, useKeeperEvents, useCapabilities } from 'embedded-wallet-kit/react';

const e2e = { sent: [], events: [], loginEffectRuns: 0, payments: [], errors: [] };
window.reactE2E = e2e;
const params = new URLSearchParams(location.search);
const leadMs = Number(params.get('leadMs') ?? 4000);
const stored = params.get('stored') === '1';
const STORE_NAME = 'react-e2e';

/** The page's one SessionStore, opened at first use (after init(): the login flow's client exists). */
let storeOpening;
const openStore = () => (storeOpening ??= SessionStore.open({ name: STORE_NAME }));

/** Keeps `session` in the SessionStore; the in-memory one is freed (only the stored one is used). */
async function keep(session) {
  try {
    return await (await openStore()).save(session);
  } finally {
    session.free();
  }
}

window.reactE2EStoredIds = async () => (await (await openStore()).list()).map((s) => s.id);

async function transport({ method, path, headers, body }) {
  e2e.sent.push({ method, path, signed: Boolean(headers?.['Service-Wallet-Signature']) });
  const res = await fetch(`/backend${path}`, { method, headers: { ...headers, 'Content-Type': 'application/json' }, body });
  return { status: res.status, headers: res.headers, body: await res.text() };
}

async function call(prefix, method, path, body) {
  const res = await fetch(prefix + path, {
    method, headers: { 'Content-Type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${prefix}${path}: HTTP ${res.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

/**
 * Logs in on mount. It suspends until init() resolved (useWalletReady), so its effect runs
 * at mount with the client ready, and StrictMode runs it twice: login() joins the first run.
 */
function Login() {
  useWalletReady();
  const { login } = useWallet();
  useEffect(() => {
    e2e.loginEffectRuns += 1;
    login(async (client) => {
      const account = await call('/emulator', 'POST', '/accounts', {});
      e2e.account = account;
      const credential = await client.createEmailOtp(account.accountId);
      const outbox = await call('/emulator', 'GET', `/outbox?accountId=${encodeURIComponent(account.accountId)}`);
      const session = await client.verifyEmailOtp(credential.id, outbox.at(-1).otp);
      return stored ? keep(session) : session;
    }).catch((err) => e2e.errors.push(`login: ${err?.code ?? err?.name}: ${err?.message}`));
  }, [login]);
  return null;
}

function Wallet() {
  const { client, status, logout } = useWallet();
  const { session, state, msLeft } = useSession({ tickMs: 250 });
  const [paid, setPaid] = useState(0);
  useKeeperEvents((type, detail) => {
    e2e.events.push({ type, session: detail.session?.id, retryInMs: detail.retryInMs, error: detail.error?.code });
  });
  e2e.view = { status, state, sessionId: session?.id ?? null, msLeft, stored: session ? typeof session.free !== 'function' : null };

  async function pay() {
    try {
      const { accountId } = e2e.account;
      const config = await call('/emulator', 'GET', '/config');
      await call('/backend', 'POST', `/sandbox/internal-accounts/${accountId}/fund`, { amount: 500 });
      const quote = await call('/backend', 'POST', '/quotes', {
        source: { sourceType: 'ACCOUNT', accountId },
        destination: { destinationType: 'ACCOUNT', accountId: config.merchantAccountId },
        lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 123, description: 'React e2e',
      });
      // Sign with the session as it is now (after a refresh, the new one).
      const signedWith = session.id;
      const transaction = await client.executeQuote(session, quote);
      e2e.payments.push({ signedWith, transaction: transaction.id, status: transaction.status });
      setPaid((n) => n + 1);
    } catch (err) {
      e2e.errors.push(`pay: ${err?.code ?? err?.name}: ${err?.message}`);
    }
  }

  return (
    <section>
      <p id="status">wallet {status} · session {state}{session ? ` ${session.id}` : ''}</p>
      <p id="countdown">{msLeft === null ? '–' : `${Math.ceil(msLeft / 1000)} s left`}</p>
      <button id="pay" type="button" disabled={!session} onClick={pay}>Pay 1.23 ({paid} paid)</button>
      <button id="logout" type="button" disabled={!session} onClick={() => logout().catch((err) => e2e.errors.push(`logout: ${err?.message}`))}>
        Log out
      </button>
    </section>
  );
}

/** The capabilities panel (useCapabilities: no provider needed). */
function Capabilities() {
  const caps = useCapabilities();
  e2e.capabilities = caps && JSON.parse(JSON.stringify(caps));
  if (!caps) return <p id="capabilities">checking this browser…</p>;
  return (
    <ul id="capabilities">
      {['passkeys', 'persistentKeys', 'wasm', 'isolatedSigner'].map((part) => (
        <li key={part}>{part}: {caps[part].available ? 'yes' : `no (${caps[part].reason})`}</li>
      ))}
    </ul>
  );
}

createRoot(document.getElementById('root')).render(
  <StrictMode>
    <Capabilities />
    <WalletProvider transport={transport} keeper={{ leadMs }}>
      <Suspense fallback={<p id="loading">loading the wallet…</p>}>
        <Login />
      </Suspense>
      <Wallet />
    </WalletProvider>
  </StrictMode>,
);
