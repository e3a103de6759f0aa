// The demo wallet: a browser client of the embedded-wallet API, served by the local
// emulator (examples/emulator). It loads the package's browser entry straight from
// /pkg/ (no bundler) and talks to two places only:
//   /backend/<api path>  the emulator's stand-in for an integrator backend: it adds the
//                        API credentials server-side, so this page never holds the secret;
//   /emulator/…          development helpers: demo accounts, the OTP outbox, the
//                        registration challenge an integrator backend would issue.
// Session keys are opened and used inside WebAssembly; this file never sees a private key.
// The wallet's flows (requests, 202 → sign → retry, opening sessions) are the kit's
// WalletClient; this page supplies its transport (a logging fetch to /backend). The
// session key mode is chosen in the header (or with ?keys=client-held): the spec's
// sealed bundle (default), or client-held keys (compressed clientPublicKey, the key
// becomes the session key, encrypted OTP login).
import {
  init, ClientKey, Session, passkey, KitError, WalletClient, SessionKeeper, SessionStore, openWalletExport, capabilities,
} from './pkg/browser.js';

/** The sandbox's magic passkey signature (docs/protocol.md, Sandbox); strict mode checks real ones. */
const SANDBOX_PASSKEY_SIGNATURE = 'sandbox-valid-passkey-signature';

const $ = (id) => document.getElementById(id);

/** Everything the page knows. `session` is the kit's Session (its key is in wasm memory). */
const state = {
  config: null, // GET /emulator/config
  account: null, // {accountId, customerId, email}
  otpCredential: null, // AuthMethod (EMAIL_OTP)
  otp: null,
  otpVerified: false,
  passkeyCredential: null, // AuthMethod (PASSKEY), with credentialId
  revokedCredentialId: null, // the credential removed by the "remove the other credential" step
  exported: false,
  session: null, // Session, or a StoredSession when shared with the other tabs
  store: null, // SessionStore, once "share with other tabs" is on
  client: null, // WalletClient (made once the emulator's mode is known)
  keys: 'sealed', // the WalletClient's key mode: 'sealed' | 'client-held'
  sessionView: null, // {id, type, expiresAt, publicKeyHex, sandboxed, keyMode, status: 'live' | 'revoked'}
  funded: false,
  otpTargetBundle: false, // whether the client holds an otpEncryptionTargetBundle for the credential
  quote: null, // Quote (+ executeKey, executed)
  transaction: null,
  balances: { wallet: null, merchant: null },
  busy: false,
  lastError: null,
};

const sandbox = () => state.config?.mode === 'sandbox';
const clientHeld = () => state.keys === 'client-held';
const live = () =>
  state.session !== null && state.sessionView?.status === 'live' && !state.session.isExpired();

// ---------------------------------------------------------------------------------------
// The log panel

/** Every entry shown in the panel, also readable by tests (window.demo.log). */
const log = [];

/** Headers worth a label in the panel. */
const HEADER_NOTES = {
  'service-wallet-signature': 'stamp: ECDSA P-256 by the session key',
  'request-id': 'single use, from the 202',
  'idempotency-key': 'generated once, reused on retries',
};
/** Response headers worth showing. */
const RESPONSE_HEADERS = ['retry-after', 'location'];

function pretty(text) {
  if (text === undefined || text === null || text === '') return '';
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/** Keeps the newest entry in view. */
function scrollLog() {
  const panel = $('log');
  panel.scrollTop = panel.scrollHeight;
}

function appendToPanel(node) {
  $('log').append(node);
  scrollLog();
}

function headerLines(headers, notes) {
  return Object.entries(headers)
    .map(([name, value]) => {
      const note = notes[name.toLowerCase()];
      return `${name}: ${value}${note ? `   ← ${note}` : ''}`;
    })
    .join('\n');
}

/** Logs a request; returns a function that logs its response. */
function logRequest(method, url, headers, body, note) {
  const entry = { kind: 'http', method, url, requestHeaders: { ...headers }, requestBody: body, note };
  log.push(entry);
  const node = el('details', 'entry http');
  node.open = true;
  const summary = el('summary');
  summary.append(el('span', `method m-${method.toLowerCase()}`, method), el('span', 'url', url));
  const status = el('span', 'code pending', '…');
  summary.append(status);
  node.append(summary);
  if (note) node.append(el('div', 'note', note));
  if (Object.keys(headers).length) node.append(el('pre', 'headers', headerLines(headers, HEADER_NOTES)));
  if (body) node.append(el('pre', 'body', pretty(body)));
  appendToPanel(node);
  return (res, ms) => {
    if (res.error) {
      entry.error = String(res.error);
      status.textContent = 'network error';
      status.className = 'code c-5';
      node.append(el('pre', 'body err', String(res.error)));
      return;
    }
    Object.assign(entry, { status: res.status, responseHeaders: res.shownHeaders, responseBody: res.text, ms });
    status.textContent = `${res.status} · ${Math.round(ms)} ms`;
    status.className = `code c-${String(res.status)[0]}`;
    const arrow = el('div', 'arrow', `← ${res.status} ${res.statusText}`);
    node.append(arrow);
    if (Object.keys(res.shownHeaders).length) node.append(el('pre', 'headers', headerLines(res.shownHeaders, {})));
    if (res.text) node.append(el('pre', 'body', pretty(res.text)));
    scrollLog();
  };
}

/** Logs something the kit did locally (no network). */
function kitLog(text) {
  log.push({ kind: 'kit', text });
  const node = el('div', 'entry kit');
  node.append(el('span', 'tag', 'kit'), el('span', '', text));
  appendToPanel(node);
}

/** Logs a failure of a step. */
function errorLog(text) {
  log.push({ kind: 'error', text });
  const node = el('div', 'entry error');
  node.append(el('span', 'tag', 'error'), el('span', '', text));
  appendToPanel(node);
}

// ---------------------------------------------------------------------------------------
// HTTP helpers

/**
 * Calls the API through the emulator's backend proxy (`/backend<path>`) and logs the
 * exchange. `body` is an object (serialised here) or a string (sent byte for byte).
 * Resolves to {status, ok, text, body (parsed JSON or null), headers}; never throws on
 * an HTTP error status (use `expect`).
 */
async function api(method, path, body, headers = {}, { prefix = '/backend', note } = {}) {
  const text = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
  const sent = { ...(text !== undefined ? { 'Content-Type': 'application/json' } : {}), ...headers };
  const done = logRequest(method, prefix + path, sent, text, note);
  const started = performance.now();
  let res;
  try {
    res = await fetch(prefix + path, { method, headers: sent, body: text });
  } catch (error) {
    done({ error });
    throw error;
  }
  const responseText = await res.text();
  let parsed = null;
  try {
    parsed = responseText ? JSON.parse(responseText) : null;
  } catch {
    parsed = null;
  }
  const shownHeaders = {};
  for (const name of RESPONSE_HEADERS) {
    if (res.headers.has(name)) shownHeaders[name] = res.headers.get(name);
  }
  const result = {
    status: res.status,
    statusText: res.statusText,
    ok: res.ok,
    text: responseText,
    body: parsed,
    headers: res.headers,
    shownHeaders,
  };
  done(result, performance.now() - started);
  return result;
}

/** The `/emulator/…` development helpers (logged the same way). */
const helper = (method, path, body) => api(method, path, body, {}, { prefix: '/emulator' });

/** An HTTP answer that was not the expected one. */
class HttpError extends Error {
  constructor(what, res) {
    const b = res.body ?? {};
    const detail = [b.code, b.reason ?? b.message].filter(Boolean).join(': ');
    const wait = res.status === 429 ? ` (Retry-After ${res.headers.get('retry-after')} s)` : '';
    super(`${what}: HTTP ${res.status}${detail ? ` ${detail}` : ''}${wait}`);
    this.name = 'HttpError';
    this.status = res.status;
    this.body = res.body;
  }
}

function expect(res, status, what) {
  if (res.status !== status) throw new HttpError(what, res);
  return res;
}

/**
 * The WalletClient's transport: the integrator backend's role is played by the emulator's
 * `/backend` proxy, which adds the API credentials. Every request the kit asks for is
 * sent and logged here, byte for byte.
 */
async function transport({ method, path, headers, body }) {
  const note = headers['Request-Id'] && headers['Service-Wallet-Signature']
    ? `signed retry (Request-Id ${headers['Request-Id']}): same method, path and body bytes`
    : undefined;
  const res = await api(method, path, body, headers, { note });
  return { status: res.status, headers: res.headers, body: res.text };
}

/** The sandbox accepts only its magic passkey signature (docs/protocol.md, Sandbox). */
const sandboxPasskey = {
  register: (options) => passkey.register(options),
  async authenticate(options) {
    const assertion = await passkey.authenticate(options);
    kitLog(`sandbox: assertion.signature replaced by the magic value ${SANDBOX_PASSKEY_SIGNATURE}`);
    return { ...assertion, signature: SANDBOX_PASSKEY_SIGNATURE };
  },
};

/**
 * Any request through the kit (for the tests and the curious): a signed retry when a
 * session is given (202 → sign → retry, repeated 202s signed in turn). Resolves to the
 * transport's last response {status, headers, body}; an error answer rejects (KitError).
 */
function signedRetry(session, method, path, body, { headers } = {}) {
  return state.client.request({ method, path, headers, body }, session);
}

// ---------------------------------------------------------------------------------------
// Sessions

/** `held`: the flow sent a compressed clientPublicKey, so the key itself is the session key. */
function sessionLog(s, held) {
  if (s.sandboxed) kitLog(`Session.sandbox(response) → ${s.id} (signs with the sandbox's magic value)`);
  else if (held) kitLog(`Session.fromClientKey(response, key) → ${s.id}; the ClientKey ${s.publicKeyHex} is the session key (no bundle)`);
  else kitLog(`Session.open(response, key) → ${s.id}; session public key ${s.publicKeyHex} (private key stays in wasm)`);
  return s;
}

function newClientKey() {
  const key = ClientKey.generate();
  const sent = clientHeld() ? key.compressedPublicKeyHex : key.publicKeyHex;
  kitLog(`ClientKey.generate() → clientPublicKey ${sent.slice(0, 18)}…${sent.slice(-8)}${clientHeld() ? ' (compressed: client-held)' : ''}`);
  return key;
}

/**
 * Makes `next` the page's session. `fromKeeper`: the SessionKeeper refreshed it (the
 * keeper frees the previous session itself and keeps watching the new one); otherwise the
 * previous session is freed here and a new keeper takes over (when "keep alive" is on).
 * With "share with other tabs" on, a new login is saved to the SessionStore first: the
 * page then signs with the StoredSession, which the origin's other tabs load and keep too.
 */
async function adoptSession(next, { fromKeeper = false } = {}) {
  const previous = state.session;
  if (!fromKeeper) stopKeeper();
  if (!fromKeeper && sharing() && !isStored(next)) next = await share(next);
  state.session = next;
  state.sessionView = {
    id: next.id,
    type: next.type,
    expiresAt: next.expiresAt,
    publicKeyHex: next.publicKeyHex,
    sandboxed: next.sandboxed,
    keyMode: next.keyMode,
    status: 'live',
  };
  if (previous && previous !== next && !fromKeeper) {
    const id = previous.id;
    if (isStored(previous)) {
      // One shared session per origin: the other tabs see this one end ("logged out").
      await previous.delete().catch(() => {});
      kitLog(`previous shared session ${id}: delete() — gone from the store, in every tab`);
    } else {
      previous.free();
      kitLog(`previous session ${id}: free() — its key is zeroized`);
    }
  }
  if (!fromKeeper) keepAlive(next).catch((err) => errorLog(`SessionKeeper: ${err.message}`));
  renderSession();
}

// ---------------------------------------------------------------------------------------
// Sharing the session with the origin's other tabs (SessionStore + SessionKeeper)

/** The store's name, and the localStorage key of the account this tab's session is for. */
const SHARED = 'embedded-wallet-kit-demo';

const sharing = () => $('share-tabs').checked && state.store !== null;
/** A StoredSession signs asynchronously and lives in IndexedDB; a Session has free(). */
const isStored = (session) => typeof session?.free !== 'function';

/** Saves `session` to the store (the in-memory one is freed) and the account's public parts to localStorage. */
async function share(session) {
  const stored = await state.store.save(session);
  session.free();
  kitLog(`store.save(session) → StoredSession ${stored.id}: a non-extractable WebCrypto key in IndexedDB, for every tab of this origin; the in-memory session is freed`);
  localStorage.setItem(SHARED, JSON.stringify({
    account: state.account, otpCredential: state.otpCredential, passkeyCredential: state.passkeyCredential, keys: state.keys,
  }));
  return stored;
}

/** A tab opened while another one shares its session: take it over (account, session, keeper). */
async function joinSharedSession() {
  const [stored] = await state.store.list();
  const shared = JSON.parse(localStorage.getItem(SHARED) ?? 'null');
  if (!stored || !shared?.account) return;
  if (shared.keys !== state.keys) useKeys(shared.keys);
  state.account = shared.account;
  state.otpCredential = shared.otpCredential;
  state.passkeyCredential = shared.passkeyCredential;
  state.otpVerified = true;
  kitLog(`store.list() → StoredSession ${stored.id}, shared by another tab`);
  keeperNote('session from another tab');
  await adoptSession(stored);
}

/** "share with other tabs" switched on: open the store; share the current session, if any. */
async function startSharing() {
  state.store ??= await SessionStore.open({ name: SHARED });
  kitLog(`SessionStore.open({ name: '${SHARED}' }): sessions are shared with this origin's other tabs`);
  if (state.session && !isStored(state.session) && live()) await adoptSession(state.session);
}

// ---------------------------------------------------------------------------------------
// Keeping the session alive (SessionKeeper)

/** Refresh this long before expiry: 60 s, or a third of a short emulator TTL. */
function keeperLeadMs() {
  return Math.min(60_000, ((state.config?.sessionTtlSecs ?? 900) * 1000) / 3);
}

function keeperNote(text) {
  $('keeper-note').textContent = text;
}

function stopKeeper() {
  state.keeper?.stop();
  state.keeper = null;
}

/** Starts a SessionKeeper on `session` when "keep alive" is on. */
async function keepAlive(session) {
  stopKeeper();
  if (!$('keep-alive').checked || !session) return;
  const leadMs = keeperLeadMs();
  const keeper = await SessionKeeper.start(state.client, session, { leadMs });
  if (state.session !== session || !$('keep-alive').checked) {
    keeper.stop(); // superseded while its module loaded
    return;
  }
  state.keeper = keeper;
  kitLog(`SessionKeeper.start(client, session, { leadMs: ${leadMs} }): refreshes ${Math.round(leadMs / 1000)} s before expiresAt`);
  keeperNote(`keeping ${session.id} alive: refresh ${Math.round(leadMs / 1000)} s before it expires`);
  keeper.on('expiring', ({ msLeft }) => keeperNote(`expiring in ${Math.ceil(msLeft / 1000)} s: refreshing…`));
  keeper.on('refreshed', ({ session: fresh, previous, elsewhere }) => {
    state.keeperRefreshes = (state.keeperRefreshes ?? 0) + 1;
    if (elsewhere) {
      kitLog(`SessionKeeper: ${previous.id} was refreshed in another tab → ${fresh.id}, adopted from the store (this tab sent no refresh)`);
    } else {
      kitLog(`SessionKeeper: refreshed ${previous.id} → ${fresh.id}; the previous session is ${isStored(fresh) ? 'replaced in the store, for every tab' : 'freed'}`);
    }
    adoptSession(sessionLog(fresh, clientHeld()), { fromKeeper: true }).catch((err) => errorLog(err.message));
    keeperNote(`${elsewhere ? 'refreshed in another tab' : 'refreshed'} (${state.keeperRefreshes} so far): ${fresh.id}`);
  });
  keeper.on('revoked', ({ fromStore }) => {
    if (!fromStore) return;
    // Logged out in another tab (or the store was cleared): the session is gone here too.
    kitLog(`SessionKeeper: ${state.sessionView?.id} was deleted from the store: logged out in another tab`);
    if (state.sessionView) state.sessionView.status = 'revoked';
    state.session = null;
    state.keeper = null;
    keeperNote('logged out in another tab');
    renderAll();
  });
  keeper.on('expired', () => {
    // At expiry, or a 401 on refresh (revoked elsewhere): the keeper freed the session.
    if (state.sessionView) state.sessionView.status = 'expired';
    keeperNote('expired: log in again');
    state.keeper = null;
    renderAll();
  });
  keeper.on('error', ({ error, retryInMs }) => {
    errorLog(`SessionKeeper: ${error?.code ?? ''} ${error?.message ?? error}`);
    keeperNote(retryInMs === undefined ? `stopped: ${error?.code}` : `refresh failed (${error?.code}); retrying in ${Math.ceil(retryInMs / 1000)} s`);
  });
}

// ---------------------------------------------------------------------------------------
// Money

/** The emulator's accounts are USD: amounts are in cents. */
const USD_DECIMALS = 2;

function toMinor(input) {
  const value = Number(input);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`not a positive amount: ${input}`);
  return Math.round(value * 10 ** USD_DECIMALS);
}

function formatMoney(balance) {
  if (!balance) return '–';
  const d = balance.currency?.decimals ?? 2;
  const symbol = balance.currency?.symbol ?? '';
  return `${symbol}${(balance.amount / 10 ** d).toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d })}`;
}

// ---------------------------------------------------------------------------------------
// The steps

async function createAccount() {
  const res = expect(await helper('POST', '/accounts', {}), 201, 'create demo account');
  state.account = res.body;
  await showBalances();
  return `${res.body.email} · ${res.body.accountId}`;
}

async function createOtpCredential() {
  const credential = await state.client.createEmailOtp(state.account.accountId);
  state.otpCredential = credential;
  if (!clientHeld()) return `${credential.id} (${credential.nickname})`;
  // Newer deployments: the encrypted OTP login seals the code to the enclave key of a
  // challenge's otpEncryptionTargetBundle (the first code may come without one), so ask
  // for a challenge: it emails a fresh code with it. The client remembers the bundle.
  kitLog('client.challenge(credential): a fresh code, and its otpEncryptionTargetBundle for the encrypted OTP login');
  const challenged = await state.client.challenge(credential.id);
  state.otpTargetBundle = typeof challenged.otpEncryptionTargetBundle === 'string';
  return `${credential.id} (${credential.nickname})${state.otpTargetBundle ? ' · target bundle for the encrypted OTP' : ' · no target bundle: plaintext OTP'}`;
}

async function readOtp() {
  if (sandbox()) {
    state.otp = '000000';
    showInbox('Sandbox mode sends no email: the magic code', state.otp);
    return 'sandbox magic OTP 000000';
  }
  const res = expect(
    await helper('GET', `/outbox?accountId=${encodeURIComponent(state.account.accountId)}`),
    200,
    'read the outbox',
  );
  const mail = res.body.at(-1);
  if (!mail) throw new Error('no email in the outbox yet');
  state.otp = mail.otp;
  showInbox(`To ${mail.email} · ${mail.sentAt} · your code`, mail.otp);
  return `OTP ${mail.otp} (from the emulator's outbox)`;
}

async function verifyOtp() {
  const key = newClientKey();
  try {
    if (state.otpTargetBundle) kitLog('encryptOtp(targetBundle, code, key): the code is sealed to the enclave; the key (TEK) will sign the 202');
    await adoptSession(sessionLog(await state.client.verifyEmailOtp(state.otpCredential.id, state.otp, key), state.otpTargetBundle));
  } finally {
    key.free(); // a no-op once the session consumed it
  }
  state.otpVerified = true;
  return `session ${state.session.id}`;
}

async function registerPasskey() {
  const { accountId, email } = state.account;
  const { challenge } = expect(
    await helper('POST', '/registration-challenge'),
    200,
    'registration challenge',
  ).body;
  kitLog(`client.registerPasskey({ challenge, rpId: '${state.config.rpId}', user }, session) → WebAuthn create()`);
  // The account already has a credential, so adding one is a signed retry with its session.
  const credential = await state.client.registerPasskey({
    accountId,
    nickname: 'Demo passkey',
    challenge,
    rpId: state.config.rpId,
    rpName: 'embedded-wallet-kit demo',
    user: { id: accountId, name: email, displayName: email },
  }, state.session);
  state.passkeyCredential = credential;
  renderAccount();
  return `${credential.id} · credential ${credential.credentialId}`;
}

async function loginWithPasskey() {
  const credential = state.passkeyCredential;
  const key = newClientKey();
  try {
    kitLog(`client.loginWithPasskey('${credential.id}', { rpId: '${state.config.rpId}', key }) → challenge → WebAuthn get() → verify`);
    await adoptSession(sessionLog(await state.client.loginWithPasskey(credential.id, { rpId: state.config.rpId, key }), clientHeld()));
  } finally {
    key.free();
  }
  return `session ${state.session.id} (PASSKEY)`;
}

/** The passkey autofill request in flight (its AbortController), if any. */
let autofill;

/**
 * Passkey autofill: when the username field (autocomplete="username webauthn") is used and
 * a passkey is registered, a conditional loginWithPasskey offers it in the field's
 * autofill; the request waits for the user, and any step run ends it (another path).
 */
function startAutofill() {
  const credential = state.passkeyCredential;
  if (autofill || !credential || !window.demo.capabilities?.passkeys.conditionalMediation || state.busy) return;
  const controller = new AbortController();
  autofill = controller;
  const key = newClientKey();
  const note = $('autofill-note');
  note.textContent = 'waiting for a passkey from the autofill…';
  kitLog(`client.loginWithPasskey('${credential.id}', { rpId: '${state.config.rpId}', key, mediation: 'conditional', signal }) → challenge → WebAuthn get() (autofill) → verify`);
  state.client.loginWithPasskey(credential.id, { rpId: state.config.rpId, key, mediation: 'conditional', signal: controller.signal })
    .then(async (session) => {
      await adoptSession(sessionLog(session, clientHeld()));
      note.textContent = `logged in by autofill: session ${state.session.id}`;
      renderAll();
    }, (err) => {
      note.textContent = err instanceof KitError && err.code === 'PASSKEY_CANCELLED' ? 'autofill ended: another path was taken' : `autofill: ${err.message}`;
    })
    .finally(() => {
      key.free();
      if (autofill === controller) autofill = undefined;
    });
}

async function fund() {
  const amount = toMinor($('fund-amount').value);
  const res = expect(
    await api('POST', `/sandbox/internal-accounts/${state.account.accountId}/fund`, { amount }),
    200,
    'fund',
  );
  state.funded = true;
  state.balances.wallet = res.body.balance;
  renderBalances();
  return `balance ${formatMoney(res.body.balance)}`;
}

async function createQuote() {
  const amount = toMinor($('quote-amount').value);
  const res = expect(
    await api(
      'POST',
      '/quotes',
      {
        source: { sourceType: 'ACCOUNT', accountId: state.account.accountId },
        destination: { destinationType: 'ACCOUNT', accountId: state.config.merchantAccountId },
        lockedCurrencySide: 'SENDING',
        lockedCurrencyAmount: amount,
        description: 'Demo purchase',
      },
      { 'Idempotency-Key': crypto.randomUUID() },
    ),
    201,
    'create quote',
  );
  // executeKey: the Idempotency-Key the kit makes for the execution (shown once sent).
  state.quote = { ...res.body, executeKey: null, executed: false };
  return `${res.body.id} · ${formatMoney({ amount: res.body.totalSendingAmount, currency: res.body.sendingCurrency })} to the merchant, expires ${res.body.expiresAt}`;
}

async function executeQuote() {
  const quote = state.quote;
  const from = log.length;
  kitLog('client.executeQuote(session, quote) → Service-Wallet-Signature over quote.payloadToSign, one Idempotency-Key');
  let transaction;
  try {
    transaction = await state.client.executeQuote(state.session, quote);
  } finally {
    // The key the kit sent (every attempt sends the same one).
    const sent = log.slice(from).findLast((e) => e.kind === 'http' && e.url.endsWith(`/quotes/${quote.id}/execute`));
    quote.executeKey = sent?.requestHeaders['Idempotency-Key'] ?? null;
  }
  quote.executed = true;
  state.transaction = transaction;
  await showBalances();
  return `${transaction.id} ${transaction.status}`;
}

async function showBalances() {
  const mine = expect(
    await api('GET', `/internal-accounts?customerId=${encodeURIComponent(state.account.customerId)}`),
    200,
    'list internal accounts',
  );
  const merchant = expect(await api('GET', '/internal-accounts?type=INTERNAL_FIAT'), 200, 'list internal accounts');
  const wallet = mine.body.data.find((a) => a.id === state.account.accountId);
  const shop = merchant.body.data.find((a) => a.id === state.config.merchantAccountId);
  state.balances = { wallet: wallet?.balance ?? null, merchant: shop?.balance ?? null };
  renderBalances();
  return `wallet ${formatMoney(state.balances.wallet)} · merchant ${formatMoney(state.balances.merchant)}`;
}

async function updateEmail() {
  const email = `changed-${Date.now()}@example.com`;
  kitLog(`client.updateCustomer(session, customerId, { email }): the OTP credential's address, a signed retry`);
  const customer = await state.client.updateCustomer(state.session, state.account.customerId, { email });
  state.account.email = customer.email;
  renderAccount();
  return `email ${customer.email}`;
}

async function exportWallet() {
  const key = ClientKey.generate(); // the export's own key: the credentials are sealed to it
  kitLog('client.exportWallet(session, accountId, key): signed retry; the envelope is sealed to the key');
  try {
    const exported = await state.client.exportWallet(state.session, state.account.accountId, key);
    const mnemonic = openWalletExport(exported, key, { pin: sandbox() ? 'sandbox' : state.config.exportSignerPublicKey });
    state.exported = true;
    // Shown only as a count: a real wallet would show it once, to be written down.
    return `opened with the export key: ${mnemonic.split(' ').length} words (not shown)`;
  } finally {
    key.free(); // a no-op once consumed
  }
}

/** A session cannot revoke the credential that issued it: this removes the other one. */
async function revokeOtherCredential() {
  const { id } = state.sessionView.type === 'PASSKEY' ? state.otpCredential : state.passkeyCredential;
  kitLog(`client.revokeCredential(session, '${id}')`);
  await state.client.revokeCredential(state.session, id);
  state.revokedCredentialId = id;
  renderAccount();
  return `${id} removed`;
}

async function refreshSession() {
  kitLog('client.refresh(session): new ClientKey; the kit signs only a payload whose targetPublicKey is that key');
  await adoptSession(sessionLog(await state.client.refresh(state.session), clientHeld())); // frees the old session
  return `new session ${state.session.id}`;
}

async function revokeSession() {
  stopKeeper();
  keeperNote('');
  const shared = isStored(state.session);
  await state.client.revokeSession(state.session); // frees the session once revoked
  kitLog(shared
    ? `session ${state.sessionView.id}: deleted from the store — logged out in every tab`
    : `session ${state.sessionView.id}: free() — its key is zeroized`);
  state.session = null;
  state.sessionView.status = 'revoked';
  renderSession();
  return `${state.sessionView.id} revoked`;
}

/**
 * The passkey step is behind us: a passkey registered, or none can be (a browser without
 * WebAuthn, e.g. WebKitGTK: "Register a passkey" shows the kit's PASSKEY_UNSUPPORTED and
 * the rest of the flow goes on with the OTP session).
 */
const passkeyStepDone = () => state.passkeyCredential || !passkey.isSupported();

/** The steps, in order; `ready` says when a step's button is enabled. */
const STEPS = [
  { id: 'account', title: 'Create a demo account', hint: 'POST /emulator/accounts', run: createAccount,
    ready: () => !state.account },
  { id: 'otp-credential', title: 'Add an EMAIL_OTP credential', hint: 'POST /auth/credentials', run: createOtpCredential,
    ready: () => state.account && !state.otpCredential },
  { id: 'otp-read', title: 'Read the OTP email', hint: 'strict: GET /emulator/outbox · sandbox: 000000', run: readOtp,
    ready: () => state.otpCredential && !state.otpVerified },
  { id: 'otp-verify', title: 'Verify the OTP → session', hint: 'ClientKey → POST …/verify → Session.open', run: verifyOtp,
    ready: () => state.otp && !state.otpVerified },
  { id: 'passkey-register', title: 'Register a passkey', hint: 'WebAuthn create → signed retry POST /auth/credentials', run: registerPasskey,
    ready: () => live() && !state.passkeyCredential },
  { id: 'passkey-login', title: 'Log in with the passkey', hint: 'challenge → WebAuthn get → verify (Request-Id)', run: loginWithPasskey,
    ready: () => state.passkeyCredential && state.revokedCredentialId === null },
  { id: 'fund', title: 'Fund the wallet', hint: 'POST /sandbox/internal-accounts/{id}/fund', run: fund,
    ready: () => passkeyStepDone() && live() },
  { id: 'quote-create', title: 'Create a quote to the merchant', hint: 'POST /quotes (Idempotency-Key)', run: createQuote,
    ready: () => state.funded && live() && (!state.quote || state.quote.executed) },
  { id: 'quote-execute', title: 'Execute the quote, signed', hint: 'session.signQuote → POST /quotes/{id}/execute', run: executeQuote,
    ready: () => state.quote && !state.quote.executed && live() },
  { id: 'balances', title: 'Show balances', hint: 'GET /internal-accounts', run: showBalances,
    ready: () => state.account },
  { id: 'email-update', title: 'Change the email', hint: 'signed retry PATCH /customers/{id}', run: updateEmail,
    ready: () => live() && passkeyStepDone() },
  { id: 'export', title: 'Export the wallet', hint: 'new ClientKey → signed retry POST …/export → openWalletExport', run: exportWallet,
    ready: () => live() && passkeyStepDone() && !state.exported },
  { id: 'credential-revoke', title: 'Remove the other credential', hint: "signed retry DELETE /auth/credentials/{id} (not the session's own)",
    run: revokeOtherCredential, ready: () => live() && state.passkeyCredential && state.revokedCredentialId === null },
  { id: 'refresh', title: 'Refresh the session', hint: 'new ClientKey → signed retry → Session.open', run: refreshSession,
    ready: () => live() && passkeyStepDone() && !isStored(state.session) },
  { id: 'revoke', title: 'Revoke the session', hint: 'signed retry DELETE /auth/sessions/{id}', run: revokeSession,
    ready: () => live() && passkeyStepDone() },
];

/** Runs one step (what its button does); resolves to its one-line result. */
async function runStep(id) {
  const step = STEPS.find((s) => s.id === id);
  if (!step) throw new Error(`no step ${id}`);
  const row = $(`step-${id}`);
  const result = row.querySelector('.result');
  autofill?.abort(); // the user took another path
  state.busy = true;
  row.dataset.state = 'running';
  result.textContent = 'working…';
  renderButtons();
  try {
    const text = await step.run();
    row.dataset.state = 'done';
    result.textContent = text;
    state.lastError = null;
    return text;
  } catch (err) {
    row.dataset.state = 'error';
    const text = err instanceof KitError ? `KitError ${err.code}: ${err.message}` : String(err?.message ?? err);
    result.textContent = text;
    state.lastError = { step: id, code: err?.code, status: err?.status, message: text };
    errorLog(`${step.title}: ${text}`);
    throw err;
  } finally {
    state.busy = false;
    row.dataset.runs = String(Number(row.dataset.runs ?? 0) + 1);
    renderAll();
  }
}

// ---------------------------------------------------------------------------------------
// Rendering

function renderSteps() {
  const list = $('steps');
  for (const [i, step] of STEPS.entries()) {
    const row = el('li', 'step');
    row.id = `step-${step.id}`;
    row.dataset.state = 'idle';
    row.dataset.runs = '0';
    const button = el('button', '', step.title);
    button.type = 'button';
    button.id = `btn-${step.id}`;
    button.disabled = true;
    button.addEventListener('click', () => runStep(step.id).catch(() => {}));
    const line = el('div', 'step-line');
    line.append(button, el('span', 'hint', step.hint));
    const body = el('div', 'step-body');
    body.append(line, el('div', 'result'));
    row.append(el('span', 'num', String(i + 1)), body);
    list.append(row);
  }
}

function renderButtons() {
  for (const step of STEPS) {
    $(`btn-${step.id}`).disabled = state.busy || !state.config || !step.ready();
  }
  // The key mode is the client's, chosen once: locked from the first credential on.
  if (state.config) $('key-mode').disabled = state.busy || state.otpCredential !== null;
}

function renderAccount() {
  const a = state.account;
  $('account-email').textContent = a?.email ?? '–';
  $('account-id').textContent = a?.accountId ?? '–';
  const creds = [[state.otpCredential, 'EMAIL_OTP'], [state.passkeyCredential, 'PASSKEY']]
    .filter(([c]) => c && c.id !== state.revokedCredentialId).map(([, kind]) => kind);
  $('account-credentials').textContent = creds.length ? creds.join(' + ') : '–';
}

function renderBalances() {
  $('balance-wallet').textContent = formatMoney(state.balances.wallet);
  $('balance-merchant').textContent = formatMoney(state.balances.merchant);
}

function showInbox(line, code) {
  $('inbox').hidden = false;
  const body = $('inbox-body');
  body.replaceChildren(el('div', 'sub', line), el('div', 'otp', code));
}

function renderSession() {
  const v = state.sessionView;
  const pill = $('session-state');
  if (!v) return;
  $('session-id').textContent = v.id;
  $('session-type').textContent = `${v.type} (${v.keyMode} session)`;
  $('session-expires').textContent = v.expiresAt.toISOString();
  $('session-key').textContent = v.publicKeyHex ?? '– (sandbox: no key)';
  const left = v.expiresAt.getTime() - Date.now();
  let label;
  if (v.status === 'revoked') label = 'revoked';
  else if (left <= 0 || v.status === 'expired') label = 'expired';
  else label = 'live';
  pill.textContent = label;
  pill.className = `pill small ${label === 'live' ? 'on' : 'off'}`;
  const secs = Math.max(0, Math.ceil(left / 1000));
  $('countdown').textContent = label === 'revoked'
    ? 'revoked'
    : `${String(Math.floor(secs / 60)).padStart(2, '0')}:${String(secs % 60).padStart(2, '0')}`;
  $('countdown').dataset.state = label;
  const ttl = (state.config?.sessionTtlSecs ?? 900) * 1000;
  $('countdown-bar').style.width = label === 'live' ? `${Math.min(100, (100 * left) / ttl)}%` : '0%';
}

function renderAll() {
  renderAccount();
  renderBalances();
  renderSession();
  renderButtons();
}

function setStatus(text, kind = '') {
  $('status').textContent = text;
  $('status').className = `status ${kind}`;
}

// ---------------------------------------------------------------------------------------
// Start

/** For the end-to-end tests and the curious (DevTools console). */
window.demo = {
  state, log, api, helper, signedRetry, runStep, steps: STEPS.map((s) => s.id),
  kit: { ClientKey, Session, KitError, passkey, WalletClient },
  useKeys,
  ready: false,
};

renderSteps();
for (const type of ['focus', 'click']) $('username').addEventListener(type, startAutofill);
$('log-clear').addEventListener('click', () => {
  $('log').replaceChildren();
});

/** A WalletClient in key mode `keys`; the choice is locked once a credential exists. */
function useKeys(keys) {
  const mode = state.config.mode;
  state.keys = keys;
  state.client = new WalletClient({
    transport,
    keys,
    sandbox: mode === 'sandbox',
    // The emulator signs target bundles with its own key: pin it instead of production's.
    otpSignerPin: mode === 'sandbox' ? 'sandbox' : state.config.otpSignerPublicKey,
    passkey: mode === 'sandbox' ? sandboxPasskey : passkey,
    // The service's busy-hour answer (200 PROCESSING): the kit re-sends the identical
    // request; the page shows that it is waiting (make demo MODE=strict, then
    // POST /emulator/processing {"count": 2} to see it).
    onPending: ({ operation, attempt, requestId }) => {
      kitLog(`${operation}: the service is still processing ${requestId ?? 'the request'}; re-sending it unchanged (attempt ${attempt})`);
      setStatus(`Still processing (${operation}, attempt ${attempt})…`, 'pending');
    },
    // What the integrator's backend matches the service's WALLET_OPERATION webhook with.
    onSigned: ({ operation, requestId }) => kitLog(`${operation}: signed request ${requestId} sent`),
  });
  kitLog(`new WalletClient({ keys: '${keys}' })${keys === 'client-held' ? ': compressed clientPublicKey, the key is the session key' : ": the spec's sealed session bundle"}`);
}

/** The capabilities panel: what this browser and page let the kit do (capabilities()), each "no" with its reason. */
async function showCapabilities() {
  const caps = await capabilities();
  const { passkeys } = caps;
  const part = (name, c, extra = '') => `${name} ${c.available ? `✓${extra}` : `✗ (${c.reason})`}`;
  const autofill = passkeys.available ? `, autofill ${passkeys.conditionalMediation ? '✓' : '✗'}, signals ${passkeys.signals.signalUnknownCredential ? '✓' : '✗'}` : '';
  $('capabilities').textContent = `This browser: ${[
    part('passkeys', passkeys, autofill), part('sessions across reloads', caps.persistentKeys), part('wasm', caps.wasm), part('isolated signer', caps.isolatedSigner),
  ].join(' · ')}`;
  window.demo.capabilities = caps;
}

async function start() {
  showCapabilities().catch((err) => errorLog(`capabilities(): ${err.message}`));
  try {
    await init({ passkeys: true, enclave: true }); // the enclave exports: the encrypted OTP login and wallet export
  } catch (err) {
    setStatus(`Could not load the kit: ${err.message}`, 'err');
    return;
  }
  window.demoReady = true;
  try {
    const res = expect(await helper('GET', '/config'), 200, 'emulator config');
    state.config = res.body;
  } catch (err) {
    setStatus(`The kit is loaded, but no emulator answers here (${err.message}). Serve this page with the emulator: make demo`, 'err');
    return;
  }
  const mode = state.config.mode;
  const picker = $('key-mode');
  const requested = new URLSearchParams(window.location.search).get('keys');
  if (requested === 'client-held' || requested === 'sealed') picker.value = requested;
  picker.disabled = false;
  picker.addEventListener('change', () => useKeys(picker.value));
  useKeys(picker.value);
  // Keep alive: on when asked (?keep=1), off when asked (?keep=0), else on unless the
  // emulator's sessions are short (the expiry checks of tests/e2e run with 2 s sessions).
  const keep = new URLSearchParams(window.location.search).get('keep');
  const shareAsked = new URLSearchParams(window.location.search).get('share') === '1';
  // A shared session needs its keeper: it is what hears of the other tabs' refreshes and logouts.
  $('keep-alive').checked = keep === null ? state.config.sessionTtlSecs >= 180 || shareAsked : keep === '1';
  $('keep-alive').addEventListener('change', () => {
    if ($('keep-alive').checked) {
      keepAlive(state.session?.isExpired() === false ? state.session : null).catch((err) => errorLog(`SessionKeeper: ${err.message}`));
    } else {
      stopKeeper();
      keeperNote('');
    }
  });
  // Share with other tabs: ?share=1, or the checkbox. A tab opened while another one
  // shares its session takes it over.
  $('share-tabs').checked = shareAsked;
  $('share-tabs').addEventListener('change', () => {
    if ($('share-tabs').checked) startSharing().catch((err) => errorLog(`SessionStore: ${err.message}`));
  });
  if ($('share-tabs').checked) {
    try {
      await startSharing();
      await joinSharedSession();
    } catch (err) {
      errorLog(`SessionStore: ${err.message}`);
    }
  }
  $('mode').textContent = `${mode} mode`;
  $('mode').className = `pill ${mode}`;
  $('mode-note').textContent = mode === 'strict'
    ? 'real crypto: sealed session keys, verified stamps and passkeys (make demo MODE=sandbox for the sandbox)'
    : "the spec's sandbox: magic OTP and signatures, stub bundles (make demo for strict mode)";
  setStatus(`Ready. Emulator at ${state.config.baseUrl}; merchant account ${state.config.merchantAccountId}.`, 'ok');
  setInterval(() => {
    renderSession();
    renderButtons();
  }, 1000);
  renderAll();
  window.demo.ready = true;
}

start();
