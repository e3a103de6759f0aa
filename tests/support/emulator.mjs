// Starting the local emulator (target/release/emulator, built if missing) from a test, and
// calling it the way an integrator's backend would (HTTP Basic added on the way), from Node
// or from a page it serves; checking the stamps of what a page's WalletClient sent it.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { checkStamp } from './fixtures.mjs';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const EMULATOR = `${ROOT}target/release/emulator`;
export const BASIC = `Basic ${Buffer.from('emulator-token:emulator-secret').toString('base64')}`;

/** Starts the emulator with `args` (after `--mode strict --port 0`); resolves to `{ proc, origin }`. */
export async function startEmulator(args = []) {
  if (!existsSync(EMULATOR)) {
    execFileSync('cargo', ['build', '--release', '-p', 'emulator'], { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
  }
  const proc = spawn(EMULATOR, ['--mode', 'strict', '--port', '0', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  const origin = await new Promise((resolve, reject) => {
    let out = '';
    // The request log (stderr) is kept for a failed start only.
    proc.stderr.setEncoding('utf8');
    proc.stderr.on('data', (chunk) => {
      if (out.length < 20_000) out += chunk;
    });
    const timer = setTimeout(() => reject(new Error(`emulator did not start: ${out}`)), 15_000);
    proc.on('exit', (code) => reject(new Error(`emulator exited (${code}): ${out}`)));
    proc.stdout.setEncoding('utf8');
    proc.stdout.on('data', (chunk) => {
      out += chunk;
      const m = /emulator listening on (http:\/\/localhost:\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
  });
  return { proc, origin };
}

/** `call`: the emulator's API from Node (Basic auth); `transport`: a WalletClient transport, recording what was sent. */
export function emulatorApi(origin) {
  const call = async (method, path, body, headers = {}) => {
    const res = await fetch(origin + path, {
      method, headers: { Authorization: BASIC, 'Content-Type': 'application/json', ...headers }, body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  };
  const sent = [];
  /** The integrator backend's job: add Basic auth, forward, hand back the answer. */
  const transport = async ({ method, path, headers, body }) => {
    const res = await fetch(origin + path, { method, headers: { ...headers, Authorization: BASIC, 'Content-Type': 'application/json' }, body });
    const text = await res.text();
    sent.push({ method, path, headers, body, status: res.status, response: text });
    return { status: res.status, headers: res.headers, body: text };
  };
  return { call, transport, sent };
}

/**
 * The emulator's API from a page it serves (its --static-dir; /backend adds the API
 * credentials), as a function that closes over nothing, for page.evaluate: pass
 * `String(emulatorInPage)` in and call `(0, eval)(`(${source})`)()` in the page. `call(prefix,
 * method, path, body)`: /emulator or /backend, JSON in and out, throws on an HTTP error;
 * `transport(sent)`: a WalletClient transport through /backend recording each exchange in
 * `sent` (for verifySignedRequests); `loginByEmail(client, { challenge })`: a new account
 * logged in by EMAIL_OTP (`challenge`: the client-held login's encrypted OTP);
 * `fundedQuote(accountId, description)`: the account funded, a quote to the merchant.
 */
export function emulatorInPage() {
  const call = async (prefix, method, path, body) => {
    const res = await fetch(prefix + path, { method, headers: { 'Content-Type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path}: HTTP ${res.status} ${text}`);
    return text ? JSON.parse(text) : null;
  };
  const transport = (sent) => async ({ method, path, headers, body }) => {
    const res = await fetch(`/backend${path}`, { method, headers: { ...headers, 'Content-Type': 'application/json' }, body });
    const text = await res.text();
    sent.push({ method, path, headers, status: res.status, response: text });
    return { status: res.status, headers: res.headers, body: text };
  };
  const loginByEmail = async (client, { challenge = false } = {}) => {
    const account = await call('/emulator', 'POST', '/accounts', {});
    const credential = await client.createEmailOtp(account.accountId);
    if (challenge) await client.challenge(credential.id);
    const outbox = await call('/emulator', 'GET', `/outbox?accountId=${encodeURIComponent(account.accountId)}`);
    const session = await client.verifyEmailOtp(credential.id, outbox.at(-1).otp);
    return { account, credential, session };
  };
  const fundedQuote = async (accountId, description) => {
    const config = await call('/emulator', 'GET', '/config');
    await call('/backend', 'POST', `/sandbox/internal-accounts/${accountId}/fund`, { amount: 500 });
    return call('/backend', 'POST', '/quotes', {
      source: { sourceType: 'ACCOUNT', accountId },
      destination: { destinationType: 'ACCOUNT', accountId: config.merchantAccountId },
      lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 123, description,
    });
  };
  return { call, transport, loginByEmail, fundedQuote };
}

/**
 * Checks every signed request in `sent` (emulatorInPage's transport): its stamp verifies
 * over what it signed (the 202's payloadToSign its Request-Id names, else `quotePayload`)
 * under one of `keys`. Returns them, their operations ("POST /v1/...:id") and each one's
 * signer (its index in `keys`); throws naming the first that does not verify (after `where`).
 */
export function verifySignedRequests(sent, { quotePayload, keys, where = '' }) {
  const payloads = new Map();
  for (const r of sent) {
    if (r.status !== 202) continue;
    const body = JSON.parse(r.response);
    payloads.set(body.requestId, body.payloadToSign);
  }
  const signed = sent.filter((r) => r.headers?.['Service-Wallet-Signature'] !== undefined);
  const ops = signed.map((r) => `${r.method} ${r.path.replace(/[0-9a-f-]{36}/g, ':id').replace(/(Session|AuthMethod|InternalAccount|Quote):[^/]+/g, ':id')}`);
  const signers = signed.map((r) => {
    const payload = r.headers['Request-Id'] !== undefined ? payloads.get(r.headers['Request-Id']) : quotePayload;
    const c = checkStamp(r.headers['Service-Wallet-Signature'], payload);
    if (!c.ok || !keys.includes(c.json.publicKey)) throw new Error(`${where}${r.method} ${r.path}: ${JSON.stringify(c)}`);
    return keys.indexOf(c.json.publicKey);
  });
  return { signed, ops, signers };
}
