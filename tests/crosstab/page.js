// One tab of tests/crosstab/run.mjs, served by the strict emulator (a short session TTL):
// the package (/pkg/browser.js), a transport to the emulator's /backend proxy that records
// what it sent, one SessionStore, and a SessionKeeper over a StoredSession. run.mjs opens
// two of these tabs on one origin and drives them through window.ct.
/* global window, fetch, navigator -- a browser page module */
import { init, KitError, SessionKeeper, SessionStore, WalletClient } from '/pkg/browser.js';

const ct = { sent: [], events: [], offset: 0 };
window.ct = ct;

const errorOf = (err) => ({ kit: err instanceof KitError, code: err?.code, name: err?.name, message: String(err?.message ?? err) });

async function transport({ method, path, headers, body }) {
  ct.sent.push({ method, path, signed: Boolean(headers?.['Service-Wallet-Signature']) });
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

/** EMAIL_OTP login on a new account; the session is saved to the store (and freed). */
ct.login = async () => {
  const account = await call('/emulator', 'POST', '/accounts', {});
  const credential = await ct.client.createEmailOtp(account.accountId);
  const outbox = await call('/emulator', 'GET', `/outbox?accountId=${encodeURIComponent(account.accountId)}`);
  const session = await ct.client.verifyEmailOtp(credential.id, outbox.at(-1).otp);
  const saved = await ct.store.save(session);
  session.free();
  return { id: saved.id, accountId: account.accountId, expiresAt: saved.expiresAt.getTime() };
};

/**
 * Keeps the stored session `id` (loaded from this tab's store). `fakeClock`: the keeper's
 * wall clock is Date.now() + ct.offset (a clock jump without a timer firing).
 */
ct.keep = async (id, { fakeClock = false, stopAfterRefresh = false, ...options } = {}) => {
  const stored = await ct.store.load(id);
  if (stored === null) throw new Error(`no stored session ${id}`);
  ct.first = stored;
  const keeper = await SessionKeeper.start(ct.client, stored, { ...options, ...(fakeClock && { now: () => Date.now() + ct.offset }) });
  ct.keeper = keeper;
  for (const type of ['expiring', 'refreshed', 'expired', 'revoked', 'error']) {
    keeper.on(type, (d) => {
      ct.events.push({
        type, at: Date.now(), session: d.session?.id, previous: d.previous?.id, elsewhere: d.elsewhere, fromStore: d.fromStore, error: d.error?.code, message: d.error?.message,
      });
      if (type === 'refreshed' && stopAfterRefresh) keeper.stop();
    });
  }
  return { webLocks: typeof navigator.locks?.request === 'function' };
};

/** Pays a quote from `accountId`, signed with the keeper's current session (the emulator checks the signature). */
ct.pay = async (accountId) => {
  try {
    const config = await call('/emulator', 'GET', '/config');
    await call('/backend', 'POST', `/sandbox/internal-accounts/${accountId}/fund`, { amount: 500 });
    const quote = await call('/backend', 'POST', '/quotes', {
      source: { sourceType: 'ACCOUNT', accountId },
      destination: { destinationType: 'ACCOUNT', accountId: config.merchantAccountId },
      lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 123, description: 'cross-tab e2e',
    });
    const signedWith = ct.keeper.session.id;
    const transaction = await ct.client.executeQuote(ct.keeper.session, quote);
    return { ok: true, signedWith, transaction: transaction.id };
  } catch (err) {
    return { ok: false, error: errorOf(err) };
  }
};

/** Signs with the session this tab started with (replaced or deleted by now). */
ct.stampFirst = async () => {
  try {
    await ct.first.stamp('after');
    return { ok: true };
  } catch (err) {
    return { ok: false, error: errorOf(err) };
  }
};

/** A signed request with the keeper's current session: what reached the transport. */
ct.requestWithCurrent = async () => {
  const before = ct.sent.length;
  try {
    await ct.client.request({ method: 'PATCH', path: '/internal-accounts/none', body: {} }, ct.keeper.session);
    return { ok: true, sent: ct.sent.length - before };
  } catch (err) {
    return { ok: false, error: errorOf(err), sent: ct.sent.length - before };
  }
};

ct.logout = async () => {
  try {
    await ct.keeper.revoke();
    return { ok: true };
  } catch (err) {
    return { ok: false, error: errorOf(err) };
  }
};

/** Between rounds: this tab forgets its keeper, its log and (first tab only) the store. */
ct.reset = async ({ clear = false } = {}) => {
  ct.keeper?.stop();
  ct.keeper = undefined;
  ct.first = undefined;
  ct.offset = 0;
  ct.sent = [];
  ct.events = [];
  if (clear) await ct.store.clear();
};

try {
  await init();
  ct.client = new WalletClient({ transport });
  ct.store = await SessionStore.open({ name: 'crosstab-e2e' });
  ct.ready = true;
} catch (err) {
  ct.failed = errorOf(err);
}
