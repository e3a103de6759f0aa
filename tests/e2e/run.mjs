#!/usr/bin/env node
/* global window, document */
// End to end: the demo wallet page (examples/wallet) against the local service emulator
// (examples/emulator, the release binary), in every engine (tests/support/engines.mjs):
// headless Chromium (Debian's, via playwright-core) with a DevTools-protocol virtual
// authenticator, Firefox ESR (geckodriver) with a WebDriver virtual authenticator (both
// ctap2, internal, resident key, user verification, automatic presence), and WebKitGTK
// (WebKitWebDriver on Xvfb), which has no WebAuthn: there the passkey steps must show the
// unsupported path (KitError PASSKEY_UNSUPPORTED at once, nothing hangs) and every other
// step runs as in the other engines.
//
// Every flow of the page is driven by clicking its buttons, in both emulator modes and
// both session key modes of the page's WalletClient (the header's selector):
//   strict  — real crypto: EMAIL_OTP create + verify (Session.open of a sealed bundle),
//             passkey registration (a signed retry) and login, fund, quote create +
//             execute (balances move), refresh, revoke; stamps are re-verified in Node;
//             (the email change, export and credential removal run in the PROCESSING flow);
//   sandbox — the same flows with the spec's magic values (Session.sandbox, 000000,
//             sandbox-valid-signature, sandbox-valid-passkey-signature);
//   keys: 'client-held' — the compressed clientPublicKey on the passkey challenge and
//             refresh (the key becomes the session key: Session.fromClientKey), and in
//             strict mode the encrypted OTP login (challenge → otpEncryptionTargetBundle
//             → encryptOtp → 202 signed by the TEK → 200 without a bundle).
// Then, in strict mode, PROCESSING twice on every operation the demo performs (both key
// modes: each re-send identical, each wait shown) and, in Chromium, a reload while an OTP
// login is still processing (not resumed, as the npm README says; the service settles it,
// GET /auth/sessions shows it, signing in again works).
// Then negative cases in strict mode, asserting the HTTP status and the `reason`:
// tampered payload and tampered body (401), a reused request id (401, and the kit's
// local REQUEST_ALREADY_SIGNED), a tampered quote signature (401, no money moves), and an
// expired session (a second emulator with --session-ttl-secs 2: the kit refuses locally
// with SESSION_EXPIRED; a stamp made before expiry is answered 401 "Session expired").
//
// The pages are opened at http://localhost:<port> (WebAuthn refuses IP origins).
//
// Usage: node tests/browser.mjs e2e [--engine chromium|firefox|webkit|all] [--screenshot docs/demo.png]
//   (default all engines; the screenshot is Chromium's)
//   (needs pkg/ from `make build`; builds target/release/emulator if it is missing)
import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { checkStamp } from '../support/fixtures.mjs';
import { defineSuite, json, requirePkg, suiteChecks } from '../support/suite.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));
const root = resolve(here, '../..');
const EMULATOR = join(root, 'target', 'release', 'emulator');
const STATIC_DIR = join(root, 'examples', 'wallet');
const PKG_DIR = join(root, 'pkg');
/** The emulator's default API credentials (HTTP Basic at the root), for checks made from Node. */
const BASIC = `Basic ${Buffer.from('emulator-token:emulator-secret').toString('base64')}`;
const SANDBOX_SIGNATURE = 'sandbox-valid-signature';
const SANDBOX_PASSKEY_SIGNATURE = 'sandbox-valid-passkey-signature';
/** A valid uncompressed P-256 public key (the emulator README's), for bodies that need one. */
const SOME_PUBLIC_KEY =
  '04f45f2a22c908b9ce09a7150e514afd24627c401c38a4afc164e1ea783adaaa31d4245acfb88c2ebd42b47628d63ecabf345484f0a9f665b63c54c897d5578be2';
const FUND = 25_000; // the page's default fund amount, 250.00 USD in cents
const QUOTE = 4_250; // the page's default quote amount, 42.50 USD

const screenshotArg = process.argv.indexOf('--screenshot');
const SCREENSHOT = screenshotArg > 0 ? resolve(process.argv[screenshotArg + 1] ?? 'docs/demo.png') : null;

let engine;
/** Every check is named after the engine it ran in. */
const checks = suiteChecks(() => `[${engine}] `);
const { check, checkIn, assert, fail } = checks;
/** Whether the engine has WebAuthn (WebKitGTK has none). */
const hasWebAuthn = () => engine !== 'webkit';

// ---- prerequisites -------------------------------------------------------------------
requirePkg('browser.js', 'embedded_wallet_kit_bg.wasm');
if (!existsSync(EMULATOR)) {
  console.log('# target/release/emulator is missing: cargo build --release -p emulator');
  execFileSync('cargo', ['build', '--release', '-p', 'emulator'], { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
}

// ---- emulator processes --------------------------------------------------------------
const emulators = new Set();

/** Starts the emulator binary on a free port; resolves once it prints its address. */
function startEmulator(mode, extra = []) {
  const args = ['--mode', mode, '--port', '0', '--static-dir', STATIC_DIR, '--pkg-dir', PKG_DIR, ...extra];
  const proc = spawn(EMULATOR, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  emulators.add(proc);
  const stderr = [];
  proc.stderr.setEncoding('utf8');
  proc.stderr.on('data', (chunk) => {
    stderr.push(chunk);
    if (stderr.length > 400) stderr.splice(0, stderr.length - 400);
  });
  proc.on('exit', () => emulators.delete(proc));
  return new Promise((resolvePromise, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`emulator did not start in 15 s: ${out}${stderr.join('')}`)), 15_000);
    proc.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`emulator exited (${code}) before listening: ${out}${stderr.join('')}`));
    });
    proc.stdout.setEncoding('utf8');
    proc.stdout.on('data', (chunk) => {
      out += chunk;
      const m = /emulator listening on (http:\/\/localhost:(\d+)) \(mode: (\w+)\)/.exec(out);
      if (!m) return;
      clearTimeout(timer);
      resolvePromise({
        origin: m[1],
        port: Number(m[2]),
        mode: m[3],
        stderr: () => stderr.join(''),
        stop: () => stopProcess(proc),
      });
    });
  });
}

function stopProcess(proc) {
  if (proc.exitCode !== null || proc.signalCode !== null) return Promise.resolve();
  return new Promise((done) => {
    const kill = setTimeout(() => proc.kill('SIGKILL'), 3_000);
    proc.once('exit', () => {
      clearTimeout(kill);
      done();
    });
    proc.kill('SIGTERM');
  });
}

function killAllNow() {
  for (const proc of emulators) proc.kill('SIGKILL');
}
process.on('exit', killAllNow);
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    killAllNow();
    process.exit(130);
  });
}

/** The API at the emulator's root, with Basic auth, from Node: an independent view. */
async function rootApi(emu, method, path, body) {
  const res = await fetch(`${emu.origin}${path}`, {
    method,
    headers: { Authorization: BASIC, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

async function balanceOf(emu, accountId) {
  const res = await rootApi(emu, 'GET', '/internal-accounts?limit=100');
  const account = res.body.data.find((a) => a.id === accountId);
  assert(account, `account ${accountId} not listed`);
  return account.balance.amount;
}

// ---- the page ------------------------------------------------------------------------
let browser;
/** Firefox and WebKitGTK: the one WebDriver session of the engine's run (a fresh page per demo). */
let session;

/**
 * The demo page of `emu` with a virtual authenticator (none in WebKitGTK). Chromium: a
 * fresh context + page. Firefox and WebKitGTK: the engine's one WebDriver session (its
 * authenticator added once) navigated to the page; page errors are recorded from then on.
 */
async function openDemo(emu, options = {}) {
  if (engine === 'chromium') return openDemoChromium(emu, options);
  if (!session) {
    session = await browser.newPage();
    await session.cmd('POST', '/window/rect', { width: 1440, height: 1000 }).catch(() => {});
    if (hasWebAuthn()) {
      await session.addVirtualAuthenticator({
        protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true,
        isUserVerified: true, isUserConsenting: true,
      });
    }
  }
  const page = session;
  await page.goto(`${emu.origin}/?keys=${options.keys ?? 'sealed'}`);
  await page.waitForFunction(() => window.demo?.ready === true, null, { timeout: 15_000 });
  await page.evaluate(() => {
    window.pageErrors = [];
    window.addEventListener('error', (e) => window.pageErrors.push(`error: ${e.message}`));
    window.addEventListener('unhandledrejection', (e) => window.pageErrors.push(`unhandled rejection: ${e.reason}`));
  });
  const pageErrors = [];
  return {
    page,
    pageErrors,
    takePageErrors: async () => pageErrors.push(...await page.evaluate(() => window.pageErrors.splice(0))),
    close: () => page.goto('about:blank'),
  };
}

async function openDemoChromium(emu, { viewport = { width: 1440, height: 1000 }, keys = 'sealed' } = {}) {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  const pageErrors = [];
  page.on('pageerror', (err) => pageErrors.push(err.message));
  page.on('console', (msg) => {
    // Chromium reports every 4xx/5xx fetch as a console error; the negative cases expect some.
    if (msg.type() === 'error') pageErrors.push(`console: ${msg.text()}`);
  });
  const cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable', { enableUI: false });
  await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true,
      isUserVerified: true, automaticPresenceSimulation: true,
    },
  });
  await page.goto(`${emu.origin}/?keys=${keys}`);
  await page.waitForFunction(() => window.demo?.ready === true, null, { timeout: 15_000 });
  return { page, pageErrors, takePageErrors: async () => {}, close: () => context.close() };
}

/** Clicks a step's button and waits for that run to finish; throws if the step failed. */
async function step(page, id) {
  const outcome = await stepOutcome(page, id);
  assert(outcome.state === 'done', `step ${id} failed: ${outcome.result}`);
  return outcome.result;
}

/** Clicks a step's button and waits for that run to finish: its state and result line. */
async function stepOutcome(page, id) {
  const row = `#step-${id}`;
  const runs = Number(await page.getAttribute(row, 'data-runs'));
  assert(await page.isEnabled(`#btn-${id}`), `the "${id}" button is disabled`);
  await page.click(`#btn-${id}`);
  await page.waitForFunction(({ sel, n }) => Number(document.querySelector(sel).dataset.runs) > n,
    { sel: row, n: runs }, { timeout: 20_000 });
  return page.$eval(row, (el) => ({ state: el.dataset.state, result: el.querySelector('.result').textContent }));
}

/** What the page knows, JSON-safe. */
const snapshot = (page) => page.evaluate(() => {
  const { state } = window.demo;
  const v = state.sessionView;
  return {
    mode: state.config?.mode,
    merchantAccountId: state.config?.merchantAccountId,
    account: state.account,
    otpCredential: state.otpCredential,
    otp: state.otp,
    passkeyCredential: state.passkeyCredential,
    session: v && { ...v, expiresAt: v.expiresAt.toISOString() },
    sessionObject: state.session !== null,
    quote: state.quote,
    transaction: state.transaction,
    balances: state.balances,
    lastError: state.lastError,
  };
});

/** The log entries since index `from`, JSON-safe. */
const logSince = (page, from) => page.evaluate((n) => window.demo.log.slice(n).map((e) => ({ ...e })), from);
const logLength = (page) => page.evaluate(() => window.demo.log.length);
const enabledButtons = (page) => page.$$eval('#steps button:not([disabled])', (bs) => bs.map((b) => b.id.replace(/^btn-/, '')));
const httpEntries = (entries) => entries.filter((e) => e.kind === 'http');

// ---- one full flow per mode ----------------------------------------------------------
async function flow(emu, keys) {
  const mode = emu.mode;
  const strict = mode === 'strict';
  const held = keys === 'client-held';
  // Both modes' challenges carry a target bundle: the client-held OTP login is the
  // encrypted one (the sandbox runs it too, with its magic code).
  const encryptedOtp = held;
  const t = (name) => `${mode}, keys ${keys}: ${name}`;
  const { page, pageErrors, takePageErrors, close } = await openDemo(emu, { keys });
  const passkeys = hasWebAuthn();
  const keyForm = held ? /^0[23][0-9a-f]{64}$/ : /^04[0-9a-f]{128}$/;
  try {
    await check(t('the page loads the kit (init with passkeys) and shows the emulator mode and key mode; only "create account" is enabled'), async () => {
      const pill = await page.textContent('#mode');
      assert(pill.includes(mode), `mode pill: ${pill}`);
      const picked = await page.evaluate(() => [document.getElementById('key-mode').value, window.demo.state.client.keys]);
      assert(json(picked) === json([keys, keys]), `key mode ${json(picked)}`);
      const enabled = await enabledButtons(page);
      assert(json(enabled) === json(['account']), `enabled: ${json(enabled)}`);
      // The passkey API is loaded with the module (isSupported() throws NOT_INITIALIZED before), and it
      // answers what the engine has.
      const supported = await page.evaluate(() => window.demo.kit.passkey.isSupported());
      assert(supported === passkeys, `passkey.isSupported() is ${supported} in ${engine}`);
    });
    await check(t('the capabilities panel shows what this engine has (capabilities()), each "no" with its reason'), async () => {
      await page.waitForFunction(() => window.demo.capabilities !== undefined, null, { timeout: 10_000 });
      const panel = await page.textContent('#capabilities');
      assert(panel.includes(passkeys ? 'passkeys ✓' : 'passkeys ✗ (this browser has no WebAuthn support (no PublicKeyCredential)'), panel);
      for (const part of ['sessions across reloads ✓', 'wasm ✓', 'isolated signer ✓']) assert(panel.includes(part), `${part}: ${panel}`);
    });

    let s;
    await check(t('create a demo account (POST /emulator/accounts)'), async () => {
      await step(page, 'account');
      s = await snapshot(page);
      assert(/^InternalAccount:[0-9a-f-]{36}$/.test(s.account.accountId), json(s.account));
      assert((await page.textContent('#account-id')).includes(s.account.accountId), 'account not shown');
    });

    await check(t(`create an EMAIL_OTP credential (POST /backend/auth/credentials → 201)${held ? ', then a challenge for its target bundle' : ''}`), async () => {
      const from = await logLength(page);
      await step(page, 'otp-credential');
      s = await snapshot(page);
      assert(s.otpCredential.type === 'EMAIL_OTP' && /^AuthMethod:/.test(s.otpCredential.id), json(s.otpCredential));
      const [e, ch, ...rest] = httpEntries(await logSince(page, from));
      assert(e.method === 'POST' && e.url === '/backend/auth/credentials' && e.status === 201, json(e));
      if (held) {
        assert(ch.url === `/backend/auth/credentials/${s.otpCredential.id}/challenge` && ch.status === 200, json(ch));
        const bundle = JSON.parse(ch.responseBody).otpEncryptionTargetBundle;
        assert(encryptedOtp === (typeof bundle === 'string'), `target bundle: ${bundle}`);
        assert(await page.evaluate(() => window.demo.state.otpTargetBundle) === encryptedOtp, 'the page\'s target-bundle flag');
      } else {
        assert(ch === undefined, `unexpected request ${json(ch)}`);
      }
      assert(rest.length === 0, json(rest));
      // The choice is locked once a credential exists.
      assert(await page.isDisabled('#key-mode'), 'the key-mode selector is still enabled');
    });

    await check(t(strict ? 'read the OTP from the outbox (shown as the email received)' : 'the sandbox OTP is 000000 (no email sent)'), async () => {
      await step(page, 'otp-read');
      s = await snapshot(page);
      const outbox = await (await fetch(`${emu.origin}/emulator/outbox?accountId=${encodeURIComponent(s.account.accountId)}`)).json();
      if (strict) {
        assert(/^\d{6}$/.test(s.otp), `otp ${s.otp}`);
        // Client-held: the challenge emailed a second, fresh code; the page reads the last.
        assert(outbox.length === (held ? 2 : 1) && outbox.at(-1).otp === s.otp, `outbox ${json(outbox)}`);
      } else {
        assert(s.otp === '000000', `otp ${s.otp}`);
        assert(outbox.length === 0, `sandbox sent an email: ${json(outbox)}`);
      }
      assert(await page.isVisible('#inbox'), 'inbox not shown');
      assert((await page.textContent('#inbox-body')).includes(s.otp), 'the code is not in the inbox card');
    });

    const opened = encryptedOtp
      ? `the encrypted OTP login: 202 signed by the TEK → ${strict ? 'Session.fromClientKey' : 'Session.sandbox'}`
      : strict ? 'Session.open (real sealed bundle)' : 'Session.sandbox';
    await check(t(`verify the OTP with a fresh ClientKey → ${opened}`), async () => {
      const from = await logLength(page);
      await step(page, 'otp-verify');
      s = await snapshot(page);
      const calls = httpEntries(await logSince(page, from));
      const [e] = calls;
      const sent = JSON.parse(e.requestBody);
      assert(calls.every((c) => c.url === `/backend/auth/credentials/${s.otpCredential.id}/verify`), json(calls.map((c) => c.url)));
      if (encryptedOtp) {
        assert(json(calls.map((c) => c.status)) === json([202, 200]), json(calls.map((c) => c.status)));
        assert(json(Object.keys(sent)) === json(['type', 'encryptedOtpBundle']) && !e.requestBody.includes(s.otp), e.requestBody);
        assert(calls[1].requestBody === e.requestBody, 'the retry body differs');
        const pending = JSON.parse(e.responseBody);
        assert(calls[1].requestHeaders['Request-Id'] === pending.requestId, json(calls[1].requestHeaders));
        // The TEK is the key sealed in the bundle; the 202's token names it. In strict mode
        // it became the session key; the sandbox's session signs with the magic value.
        const tek = JSON.parse(Buffer.from(pending.payloadToSign.split('.')[1], 'base64url').toString()).public_key;
        assert(/^0[23][0-9a-f]{64}$/.test(tek) && (!strict || tek === s.session.publicKeyHex), `TEK ${tek}`);
        assert(checkStamp(calls[1].requestHeaders['Service-Wallet-Signature'], pending.payloadToSign, tek).ok,
          'the 202 is not signed by the TEK');
        assert(!('encryptedSessionSigningKey' in JSON.parse(calls[1].responseBody)), 'a bundle in the client-held answer');
      } else {
        assert(calls.length === 1 && e.status === 200, json(calls));
        assert(/^04[0-9a-f]{128}$/.test(sent.clientPublicKey) && sent.otp === s.otp && sent.type === 'EMAIL_OTP', e.requestBody);
      }
      assert(s.session.type === 'EMAIL_OTP' && s.session.status === 'live', json(s.session));
      if (strict) {
        assert(s.session.sandboxed === false && /^0[23][0-9a-f]{64}$/.test(s.session.publicKeyHex), json(s.session));
      } else {
        assert(s.session.sandboxed === true && s.session.publicKeyHex === undefined, json(s.session));
      }
      const left = Date.parse(s.session.expiresAt) - Date.now();
      assert(left > 880_000 && left <= 900_000, `expiresAt ${s.session.expiresAt}`);
    });

    await check(t('the session counts down to expiresAt'), async () => {
      const first = await page.textContent('#countdown');
      assert(/^1[45]:\d\d$/.test(first), `countdown ${first}`);
      await page.waitForFunction((f) => document.getElementById('countdown').textContent !== f, first, { timeout: 3_000 });
      assert((await page.textContent('#session-state')) === 'live', 'session pill not live');
    });

    let otpSession = s.session;
    if (!passkeys) {
      await check(t('no WebAuthn: "register a passkey" ends at once in KitError PASSKEY_UNSUPPORTED, nothing sent; login stays disabled; the rest of the flow is enabled'), async () => {
        const from = await logLength(page);
        const t0 = Date.now();
        const outcome = await stepOutcome(page, 'passkey-register');
        const ms = Date.now() - t0;
        assert(outcome.state === 'error' && /^KitError PASSKEY_UNSUPPORTED: .*WebAuthn/.test(outcome.result), json(outcome));
        assert(ms < 5_000, `took ${ms} ms`);
        s = await snapshot(page);
        assert(s.passkeyCredential === null && s.lastError?.step === 'passkey-register' && s.lastError.code === 'PASSKEY_UNSUPPORTED', json(s));
        // The registration challenge is the page's own helper call; nothing reaches the API.
        const calls = httpEntries(await logSince(page, from)).filter((e) => e.url.startsWith('/backend/'));
        assert(calls.length === 0, `requests: ${json(calls.map((e) => e.url))}`);
        const enabled = await enabledButtons(page);
        assert(!enabled.includes('passkey-login'), `enabled: ${json(enabled)}`);
        for (const id of ['fund', 'refresh', 'revoke']) assert(enabled.includes(id), `${id} disabled: ${json(enabled)}`);
      });
    }
    if (passkeys) await check(t('register a passkey: WebAuthn create, then a signed retry (202 → signRetry → same body → 201)'), async () => {
      otpSession = s.session;
      const from = await logLength(page);
      await step(page, 'passkey-register');
      s = await snapshot(page);
      assert(s.passkeyCredential.type === 'PASSKEY' && /^[A-Za-z0-9_-]+$/.test(s.passkeyCredential.credentialId),
        json(s.passkeyCredential));
      const calls = httpEntries(await logSince(page, from)).filter((e) => e.url === '/backend/auth/credentials');
      assert(json(calls.map((e) => e.status)) === json([202, 201]), `statuses ${json(calls.map((e) => e.status))}`);
      const [first, retry] = calls;
      assert(first.requestBody === retry.requestBody, 'the retry body differs from the first call');
      const body = JSON.parse(first.requestBody);
      assert(body.accountId === s.account.accountId && body.attestation?.credentialId === s.passkeyCredential.credentialId,
        first.requestBody);
      assert(!('Service-Wallet-Signature' in first.requestHeaders) && !('Request-Id' in first.requestHeaders), 'first call signed');
      const pending = JSON.parse(first.responseBody);
      assert(retry.requestHeaders['Request-Id'] === pending.requestId, json(retry.requestHeaders));
      const stamp = retry.requestHeaders['Service-Wallet-Signature'];
      if (strict) {
        const c = checkStamp(stamp, pending.payloadToSign, otpSession.publicKeyHex);
        assert(c.ok, `the retry stamp does not verify over payloadToSign with the session key: ${json(c)}`);
      } else {
        assert(stamp === SANDBOX_SIGNATURE, stamp);
      }
    });

    if (passkeys) await check(t('log in with the passkey: challenge {clientPublicKey} → WebAuthn get → verify with Request-Id → new PASSKEY session'), async () => {
      const from = await logLength(page);
      await step(page, 'passkey-login');
      s = await snapshot(page);
      const [ch, verify] = httpEntries(await logSince(page, from));
      assert(ch.url === `/backend/auth/credentials/${s.passkeyCredential.id}/challenge` && ch.status === 200, json(ch));
      const bound = JSON.parse(ch.requestBody).clientPublicKey;
      assert(keyForm.test(bound), `challenge clientPublicKey ${bound}`);
      const challenge = JSON.parse(ch.responseBody);
      assert(/^[0-9a-f]{64}$/.test(challenge.challenge), `challenge ${challenge.challenge}`);
      assert(verify.url === `/backend/auth/credentials/${s.passkeyCredential.id}/verify` && verify.status === 200, json(verify));
      assert(verify.requestHeaders['Request-Id'] === challenge.requestId, json(verify.requestHeaders));
      const { assertion } = JSON.parse(verify.requestBody);
      const clientData = JSON.parse(Buffer.from(assertion.clientDataJson, 'base64url').toString('utf8'));
      assert(clientData.type === 'webauthn.get' && clientData.origin === emu.origin, json(clientData));
      assert(clientData.challenge === Buffer.from(challenge.challenge, 'utf8').toString('base64url'), 'challenge binding');
      if (strict) assert(assertion.signature !== SANDBOX_PASSKEY_SIGNATURE, 'strict mode sent the magic signature');
      else assert(assertion.signature === SANDBOX_PASSKEY_SIGNATURE, `sandbox signature ${assertion.signature}`);
      assert(s.session.type === 'PASSKEY' && s.session.id !== otpSession.id && s.session.status === 'live', json(s.session));
      if (strict) assert(s.session.publicKeyHex !== otpSession.publicKeyHex, 'same session key');
      if (strict && held) assert(s.session.publicKeyHex === bound, 'the client-held key is not the session key');
      if (held) assert(!('encryptedSessionSigningKey' in JSON.parse(verify.responseBody)), 'a bundle in the client-held answer');
    });

    // Passkey autofill: Chromium's virtual authenticator answers the conditional request at
    // once; Firefox ESR's leaves it waiting, and the next step (another path) ends it.
    if (passkeys) await check(t(`passkey autofill: using the username field (autocomplete="username webauthn") starts a conditional loginWithPasskey; ${engine === 'chromium' ? 'the virtual authenticator answers: a new PASSKEY session' : 'it waits for the user'}`), async () => {
      const before = (await snapshot(page)).session.id;
      // Strict mode allows one challenge per credential per second (429 otherwise); the
      // passkey login above just asked for one.
      if (strict) await new Promise((ok) => setTimeout(ok, 1_100));
      const from = await logLength(page);
      await page.evaluate(() => document.getElementById('username').click());
      const done = engine === 'chromium' ? /logged in by autofill/ : /waiting for a passkey/;
      await page.waitForFunction((re) => new RegExp(re).test(document.getElementById('autofill-note').textContent), done.source, { timeout: 10_000 });
      const lines = (await logSince(page, from)).map((e) => JSON.stringify(e));
      assert(lines.some((l) => l.includes("mediation: 'conditional'")), `no conditional loginWithPasskey logged: ${lines.join('\n')}`);
      if (engine === 'chromium') {
        s = await snapshot(page);
        assert(s.session.type === 'PASSKEY' && s.session.id !== before && s.session.status === 'live', json(s.session));
      }
    });

    await check(t('fund the wallet (POST /backend/sandbox/internal-accounts/{id}/fund)'), async () => {
      await step(page, 'fund');
      if (passkeys && engine !== 'chromium') {
        await page.waitForFunction(() => /autofill ended: another path was taken/.test(document.getElementById('autofill-note').textContent), null, { timeout: 5_000 })
          .catch(async () => assert(false, `the autofill request was not ended by the step: ${await page.textContent('#autofill-note')}`));
      }
      assert((await balanceOf(emu, s.account.accountId)) === FUND, 'balance after funding');
      assert((await page.textContent('#balance-wallet')) === '$250.00', await page.textContent('#balance-wallet'));
    });

    let merchantBefore;
    await check(t('create a quote to the merchant with an Idempotency-Key'), async () => {
      merchantBefore = await balanceOf(emu, s.merchantAccountId);
      const from = await logLength(page);
      await step(page, 'quote-create');
      s = await snapshot(page);
      const [e] = httpEntries(await logSince(page, from));
      assert(e.url === '/backend/quotes' && e.status === 201, json(e));
      assert(/^[0-9a-f-]{36}$/.test(e.requestHeaders['Idempotency-Key'] ?? ''), json(e.requestHeaders));
      const body = JSON.parse(e.requestBody);
      assert(body.destination.accountId === s.merchantAccountId && body.lockedCurrencyAmount === QUOTE, e.requestBody);
      assert(/^Quote:/.test(s.quote.id) && typeof s.quote.payloadToSign === 'string', json(s.quote));
    });

    await check(t('execute the quote with session.signQuote headers + Idempotency-Key: COMPLETED, balances move'), async () => {
      const from = await logLength(page);
      await step(page, 'quote-execute');
      s = await snapshot(page);
      const [e] = httpEntries(await logSince(page, from));
      assert(e.url === `/backend/quotes/${s.quote.id}/execute` && e.status === 200, json(e));
      assert(!('Request-Id' in e.requestHeaders) && e.requestHeaders['Idempotency-Key'] === s.quote.executeKey,
        json(e.requestHeaders));
      const stamp = e.requestHeaders['Service-Wallet-Signature'];
      if (strict) assert(checkStamp(stamp, s.quote.payloadToSign, s.session.publicKeyHex).ok, 'quote stamp does not verify');
      else assert(stamp === SANDBOX_SIGNATURE, stamp);
      assert(s.transaction.status === 'COMPLETED' && s.transaction.quoteId === s.quote.id, json(s.transaction));
      assert((await balanceOf(emu, s.account.accountId)) === FUND - QUOTE, 'wallet balance');
      assert((await balanceOf(emu, s.merchantAccountId)) === merchantBefore + QUOTE, 'merchant balance');
    });

    await check(t('show balances (GET /backend/internal-accounts)'), async () => {
      await step(page, 'balances');
      assert((await page.textContent('#balance-wallet')) === '$207.50', await page.textContent('#balance-wallet'));
      const merchant = await page.textContent('#balance-merchant');
      assert(merchant === `$${((merchantBefore + QUOTE) / 100).toFixed(2)}`, merchant);
    });

    let beforeRefresh;
    await check(t(`refresh: new ClientKey, 202 → signRetry with the old session → ${strict ? '200 PROCESSING twice, the identical retry re-sent → ' : ''}201 → ${held ? 'the new key is the session key (Session.fromClientKey)' : 'Session.open with the new key'}`), async () => {
      beforeRefresh = s.session;
      const from = await logLength(page);
      // Strict: the service is busy (200 PROCESSING twice); the page re-sends the identical
      // signed retry and shows that it waits (onPending).
      const processing = (count) => fetch(`${emu.origin}/emulator/processing`, {
        method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ count, operations: ['session.refresh'] }),
      }).then((r) => assert(r.status === 200, `POST /emulator/processing: ${r.status}`));
      if (strict) await processing(2);
      try {
        await step(page, 'refresh');
      } finally {
        if (strict) await processing(0);
      }
      s = await snapshot(page);
      const path = `/backend/auth/sessions/${beforeRefresh.id}/refresh`;
      const entries = await logSince(page, from);
      const calls = httpEntries(entries).filter((e) => e.url === path);
      assert(json(calls.map((e) => e.status)) === json(strict ? [202, 200, 200, 201] : [202, 201]), json(calls.map((e) => e.status)));
      if (strict) {
        for (const resent of calls.slice(2)) {
          assert(resent.requestBody === calls[1].requestBody
            && resent.requestHeaders['Service-Wallet-Signature'] === calls[1].requestHeaders['Service-Wallet-Signature']
            && resent.requestHeaders['Request-Id'] === calls[1].requestHeaders['Request-Id'], 'a re-send differs from the signed retry');
        }
        const shown = entries.filter((e) => e.kind === 'kit' && /still processing/.test(e.text));
        assert(shown.length === 2, `the pending state was shown ${shown.length} times`);
      }
      const newKey = JSON.parse(calls[0].requestBody).clientPublicKey;
      assert(keyForm.test(newKey), `refresh clientPublicKey ${newKey}`);
      if (strict && held) assert(s.session.publicKeyHex === newKey, 'the refresh key is not the new session key');
      const pending = JSON.parse(calls[0].responseBody);
      if (strict) {
        assert(JSON.parse(pending.payloadToSign).parameters.targetPublicKey === newKey, 'targetPublicKey');
        assert(checkStamp(calls[1].requestHeaders['Service-Wallet-Signature'], pending.payloadToSign, beforeRefresh.publicKeyHex).ok,
          'the refresh is not signed by the old session');
        assert(s.session.publicKeyHex !== beforeRefresh.publicKeyHex, 'same key after refresh');
      }
      const type = passkeys ? 'PASSKEY' : 'EMAIL_OTP'; // without WebAuthn, the OTP session is the one refreshed
      assert(s.session.id !== beforeRefresh.id && s.session.type === type && s.session.status === 'live', json(s.session));
      const freed = (await logSince(page, from)).some((e) => e.kind === 'kit' && e.text.includes(`${beforeRefresh.id}: free()`));
      assert(freed, 'the old session was not freed');
    });

    if (strict && !held && SCREENSHOT && engine === 'chromium') {
      await page.evaluate(() => window.scrollTo(0, 0));
      await page.screenshot({ path: SCREENSHOT, fullPage: true });
      console.log(`# screenshot ${SCREENSHOT}`);
    }

    await check(t('revoke the session (signed retry DELETE /backend/auth/sessions/{id} → 204); the service refuses it afterwards'), async () => {
      const revoked = s.session;
      const from = await logLength(page);
      await step(page, 'revoke');
      s = await snapshot(page);
      const calls = httpEntries(await logSince(page, from));
      assert(json(calls.map((e) => `${e.method} ${e.status}`)) === json(['DELETE 202', 'DELETE 204']), json(calls.map((e) => e.status)));
      assert(s.session.status === 'revoked' && s.sessionObject === false, json(s.session));
      assert((await page.textContent('#countdown')) === 'revoked', 'countdown not revoked');
      const enabled = await enabledButtons(page);
      for (const id of ['refresh', 'revoke', 'quote-create', 'fund']) assert(!enabled.includes(id), `${id} still enabled`);
      const after = await rootApi(emu, 'POST', `/auth/sessions/${revoked.id}/refresh`, { clientPublicKey: SOME_PUBLIC_KEY });
      assert(after.status === 401 && after.body.reason === 'Session revoked', json(after));
    });

    await check(t('the page never sends Authorization (the API secret stays in the backend proxy); no page errors'), async () => {
      const entries = httpEntries(await logSince(page, 0));
      // Without WebAuthn the passkey steps send nothing (four requests fewer).
      assert(entries.length > (passkeys ? 15 : 11), `only ${entries.length} requests logged`);
      assert(entries.every((e) => !Object.keys(e.requestHeaders).some((h) => h.toLowerCase() === 'authorization')), 'Authorization sent');
      assert(entries.every((e) => e.url.startsWith('/backend/') || e.url.startsWith('/emulator/')), 'a call outside /backend and /emulator');
      await takePageErrors();
      assert(pageErrors.length === 0, pageErrors.join('\n'));
    });
  } finally {
    await close();
  }
}

/** Clicks through to a live EMAIL_OTP session. */
async function otpSession(page) {
  for (const id of ['account', 'otp-credential', 'otp-read', 'otp-verify']) await step(page, id);
}

// ---- PROCESSING through the demo (strict) --------------------------------------------
/**
 * Every operation the demo performs that the service may hold answers PROCESSING twice:
 * the demo finishes each step, each answer is followed by the identical request (same
 * body, signature and Request-Id), and the page shows the pending state once per re-send.
 */
async function processingFlow(emu, keys) {
  const held = keys === 'client-held';
  const passkeys = hasWebAuthn();
  const t = (name) => `strict, keys ${keys}, PROCESSING ×2 on every operation: ${name}`;
  const { page, pageErrors, takePageErrors, close } = await openDemo(emu, { keys });
  const setProcessing = (count) => rootApi(emu, 'POST', '/emulator/processing', { count })
    .then((r) => assert(r.status === 200, `POST /emulator/processing: ${json(r)}`));
  try {
    await setProcessing(2);
    const steps = ['account', 'otp-credential', 'otp-read', 'otp-verify', ...(passkeys ? ['passkey-register', 'passkey-login'] : []),
      'fund', 'quote-create', 'quote-execute', 'email-update', 'export', ...(passkeys ? ['credential-revoke'] : []), 'refresh', 'revoke'];
    await check(t(`the demo finishes ${steps.join(', ')}`), async () => {
      for (const id of steps) await step(page, id);
    });
    await check(t('each PROCESSING answer is followed by the identical request, and the page shows each wait'), async () => {
      const entries = await logSince(page, 0);
      const calls = httpEntries(entries);
      const processing = calls.filter((e) => e.status === 200 && /"status":"PROCESSING"/.test(e.responseBody));
      const headers = (e) => json(['Service-Wallet-Signature', 'Request-Id'].map((h) => e.requestHeaders[h]));
      for (const first of processing) {
        const next = calls.slice(calls.indexOf(first) + 1).find((e) => e.method === first.method && e.url === first.url);
        assert(next, `no re-send after PROCESSING on ${first.method} ${first.url}`);
        assert(next.requestBody === first.requestBody && headers(next) === headers(first), `the re-send of ${first.method} ${first.url} differs`);
      }
      // Where PROCESSING was answered: the login legs, the signed retries the demo makes.
      const answered = new Set(processing.map((e) => `${e.method} ${e.url.replace(/[A-Za-z]+:[0-9a-f-]{36}/g, '{id}')}`));
      const expected = [
        'POST /backend/auth/credentials/{id}/verify',
        'POST /backend/auth/sessions/{id}/refresh',
        'DELETE /backend/auth/sessions/{id}',
        'PATCH /backend/customers/{id}',
        'POST /backend/internal-accounts/{id}/export',
        ...(held || passkeys ? ['POST /backend/auth/credentials/{id}/challenge'] : []),
        ...(passkeys ? ['POST /backend/auth/credentials', 'DELETE /backend/auth/credentials/{id}'] : []),
      ];
      for (const operation of expected) assert(answered.has(operation), `${operation} never answered PROCESSING: ${json([...answered])}`);
      // The OTP verify, email change, export, refresh, revoke; client-held: the OTP
      // challenge; with WebAuthn: the passkey registration, its login's challenge and
      // verify, the OTP credential's removal. Twice each.
      const operations = 5 + (held ? 1 : 0) + (passkeys ? 4 : 0);
      assert(processing.length === 2 * operations, `${processing.length} PROCESSING answers, expected ${2 * operations}`);
      const shown = entries.filter((e) => e.kind === 'kit' && /still processing/.test(e.text));
      assert(shown.length === processing.length, `${processing.length} PROCESSING answers, the pending state shown ${shown.length} times`);
      await takePageErrors();
      assert(pageErrors.length === 0, pageErrors.join('\n'));
    });
  } finally {
    await setProcessing(0);
    await close();
  }
}

/**
 * Chromium: a page reload while an OTP login is still processing. It is not resumed (the
 * npm README says why: the new session's key lived only in the page); the service
 * settles it on its own, `GET /auth/sessions` shows that session, and signing in again
 * works.
 */
async function reloadMidLogin() {
  const emu = await startEmulator('strict', ['--processing-settle-ms', '1500']);
  const { page, pageErrors, close } = await openDemo(emu);
  const t = (name) => `strict, a reload while the OTP login is still processing: ${name}`;
  try {
    for (const id of ['account', 'otp-credential', 'otp-read']) await step(page, id);
    const before = await snapshot(page);
    const accountId = before.account.accountId;
    const sessions = async () => (await rootApi(emu, 'GET', `/auth/sessions?accountId=${encodeURIComponent(accountId)}`)).body.data;
    await rootApi(emu, 'POST', '/emulator/processing', { count: 50, operations: ['auth_credential.verify'] });
    await page.click('#btn-otp-verify');
    await page.waitForFunction(() => window.demo.log.some((e) => e.kind === 'kit' && /still processing/.test(e.text)), null, { timeout: 10_000 });
    await page.reload();
    await page.waitForFunction(() => window.demo?.ready === true, null, { timeout: 15_000 });
    await check(t('after the reload the page holds no session and sends nothing more'), async () => {
      const after = await snapshot(page);
      assert(!after.session && after.sessionObject !== true, json(after.session));
      assert(json(await enabledButtons(page)) === json(['account']), json(await enabledButtons(page)));
      assert((await sessions()).length === 0, 'no session while the login is held');
    });
    await sleep(1_700);
    await check(t('the service settles the login on its own: GET /auth/sessions shows it (a key nobody holds)'), async () => {
      const settled = await sessions();
      assert(settled.length === 1 && settled[0].type === 'EMAIL_OTP', json(settled));
      assert(!('encryptedSessionSigningKey' in settled[0]), 'a lookup carries no key');
    });
    await check(t('signing in again works (the README\'s advice)'), async () => {
      await rootApi(emu, 'POST', '/emulator/processing', { count: 0 });
      for (const id of ['account', 'otp-credential', 'otp-read', 'otp-verify']) await step(page, id);
      const s = await snapshot(page);
      assert(s.session?.status === 'live', json(s.session));
      assert(pageErrors.length === 0, pageErrors.join('\n'));
    });
  } finally {
    await close();
    await emu.stop();
  }
}

// ---- negative cases (strict) ---------------------------------------------------------
async function negatives(emu) {
  const { page, close } = await openDemo(emu);
  try {
    await otpSession(page);
    // One signed-retry operation, driven by hand through the page's api helper:
    // PATCH /internal-accounts/{id} {privacyEnabled: true}.
    const r = await page.evaluate(async () => {
      const { api, state, kit } = window.demo;
      const session = state.session;
      const path = `/internal-accounts/${state.account.accountId}`;
      const body = JSON.stringify({ privacyEnabled: true });
      const out = {};
      const first = await api('PATCH', path, body);
      out.first = { status: first.status };
      const pending = JSON.parse(first.text);
      // (1) a stamp over a different payload than the 202's
      const tampered = pending.payloadToSign.replace(/"timestampMs":"(\d+)"/, (_, ms) => `"timestampMs":"${Number(ms) + 1}"`);
      out.payloadChanged = tampered !== pending.payloadToSign;
      const bad = await api('PATCH', path, body, { 'Service-Wallet-Signature': session.stamp(tampered), 'Request-Id': pending.requestId });
      out.tampered = { status: bad.status, body: bad.body };
      // (2) the right signature, another body
      const headers = session.signRetry(first.text);
      const otherBody = await api('PATCH', path, JSON.stringify({ privacyEnabled: false }), headers);
      out.otherBody = { status: otherBody.status, body: otherBody.body };
      // (3) the genuine retry: failed attempts did not burn the request id
      const good = await api('PATCH', path, body, headers);
      out.good = { status: good.status, body: good.body };
      // (4) the exact successful retry, replayed
      const replay = await api('PATCH', path, body, headers);
      out.replay = { status: replay.status, body: replay.body };
      // (5) the kit refuses to sign the same request id twice
      try {
        session.signRetry(first.text);
        out.resign = 'signed';
      } catch (err) {
        out.resign = { kit: err instanceof kit.KitError, code: err.code };
      }
      return out;
    });

    await check('strict: tampered payload — a stamp over another payload than the 202\'s is refused: 401 Invalid Service-Wallet-Signature', () => {
      assert(r.first.status === 202 && r.payloadChanged, json(r));
      assert(r.tampered.status === 401 && r.tampered.body.code === 'UNAUTHORIZED', json(r.tampered));
      assert(r.tampered.body.reason === 'Invalid Service-Wallet-Signature: the stamp does not verify over payloadToSign',
        `reason: ${r.tampered.body.reason}`);
    });
    await check('strict: tampered body — the signed retry with other body bytes is refused: 401 WALLET_SIGNATURE_BODY_MISMATCH', () => {
      assert(r.otherBody.status === 401 && r.otherBody.body.reason === 'WALLET_SIGNATURE_BODY_MISMATCH', json(r.otherBody));
    });
    await check('strict: after the failed attempts, the genuine retry succeeds (200, privacyEnabled)', () => {
      assert(r.good.status === 200 && r.good.body.privacyEnabled === true, json(r.good));
    });
    await check('strict: reused request id — replaying the exact successful retry: 401 "Request id already used"', () => {
      assert(r.replay.status === 401 && r.replay.body.code === 'UNAUTHORIZED', json(r.replay));
      assert(r.replay.body.reason === 'Request id already used', `reason: ${r.replay.body.reason}`);
    });
    await check('strict: the kit refuses to sign a request id twice (KitError REQUEST_ALREADY_SIGNED)', () => {
      assert(r.resign.kit === true && r.resign.code === 'REQUEST_ALREADY_SIGNED', json(r.resign));
    });

    // The page's signedRetry loop against a routed endpoint that answers 202 twice, then
    // 200 (the emulator never repeats a 202), and one that never stops answering 202.
    // Chromium routes the requests (CDP); WebDriver has no request interception, so in
    // Firefox and WebKitGTK the page's fetch answers /backend/__repeat/ itself (the demo's
    // api() calls fetch at call time), recording what the loop sent the same way.
    const pending = (round) => JSON.stringify({
      payloadToSign: JSON.stringify({ round, nonce: crypto.randomUUID() }),
      requestId: `Request:${crypto.randomUUID()}`,
      expiresAt: new Date(Date.now() + 60_000).toISOString(),
    });
    let seen = [];
    if (engine === 'chromium') {
      await page.route('**/backend/__repeat/**', async (route) => {
        const request = route.request();
        seen.push({ headers: request.headers(), body: request.postData() });
        const endless = request.url().includes('/endless');
        if (endless || seen.length <= 2) await route.fulfill({ status: 202, contentType: 'application/json', body: pending(seen.length) });
        else await route.fulfill({ status: 200, contentType: 'application/json', body: '{"done":true}' });
      });
    } else {
      await page.evaluate((src) => {
        const pendingBody = (0, eval)(src);
        const original = window.fetch;
        window.repeatSeen = [];
        window.unrouteRepeat = () => {
          window.fetch = original;
          return window.repeatSeen;
        };
        window.fetch = async (input, init = {}) => {
          const url = String(input instanceof Request ? input.url : input);
          if (!url.includes('/backend/__repeat/')) return original(input, init);
          const headers = {};
          new Headers(init.headers).forEach((v, k) => {
            headers[k] = v;
          });
          window.repeatSeen.push({ headers, body: init.body ?? null });
          const type = { 'content-type': 'application/json' };
          if (url.includes('/endless') || window.repeatSeen.length <= 2) {
            return new Response(pendingBody(window.repeatSeen.length), { status: 202, headers: type });
          }
          return new Response('{"done":true}', { status: 200, headers: type });
        };
      }, `(${pending})`);
    }
    const repeat = await page.evaluate(async () => {
      const { signedRetry, state } = window.demo;
      const ok = await signedRetry(state.session, 'POST', '/__repeat/op', { n: 1 });
      let endless;
      try {
        await signedRetry(state.session, 'POST', '/__repeat/endless', { n: 2 });
        endless = 'resolved';
      } catch (err) {
        endless = err.message;
      }
      return { status: ok.status, endless };
    });
    if (engine === 'chromium') await page.unroute('**/backend/__repeat/**');
    else seen = await page.evaluate(() => window.unrouteRepeat());
    const routed = seen.length;
    await check('signedRetry: a retry answered 202 again is signed again (same body each time), and the loop is bounded', () => {
      assert(repeat.status === 200, json(repeat));
      const first = seen.slice(0, 3);
      assert(first.every((r) => r.body === '{"n":1}'), `bodies ${json(first.map((r) => r.body))}`);
      assert(first[0].headers['request-id'] === undefined, 'the first call carried a Request-Id');
      const ids = first.slice(1).map((r) => r.headers['request-id']);
      assert(ids.every(Boolean) && ids[0] !== ids[1], `request ids ${json(ids)}`);
      assert(first.slice(1).every((r) => r.headers['service-wallet-signature']), 'a retry was not signed');
      // The kit's driver signs at most 8 legs (MAX_SIGNED_LEGS): the first call + 8 retries.
      assert(/more than 8 signatures/.test(repeat.endless), repeat.endless);
      assert(routed === 3 + 9, `routed ${routed} requests`);
    });

    // A quote executed with a stamp over a tampered payload moves no money.
    const q = await page.evaluate(async () => {
      const { api, state } = window.demo;
      const { accountId } = state.account;
      await api('POST', `/sandbox/internal-accounts/${accountId}/fund`, { amount: 1000 });
      const quote = (await api('POST', '/quotes', {
        source: { sourceType: 'ACCOUNT', accountId },
        destination: { destinationType: 'ACCOUNT', accountId: state.config.merchantAccountId },
        lockedCurrencySide: 'SENDING',
        lockedCurrencyAmount: 500,
      }, { 'Idempotency-Key': crypto.randomUUID() })).body;
      const stamp = state.session.stamp(`${quote.payloadToSign} `);
      const res = await api('POST', `/quotes/${quote.id}/execute`, undefined,
        { 'Idempotency-Key': crypto.randomUUID(), 'Service-Wallet-Signature': stamp });
      return { status: res.status, body: res.body, accountId };
    });
    await check('strict: quote executed with a stamp over a tampered payload: 401, no money moves', async () => {
      assert(q.status === 401 && q.body.reason === 'Invalid Service-Wallet-Signature: the stamp does not verify over payloadToSign',
        json(q));
      assert((await balanceOf(emu, q.accountId)) === 1000, 'money moved');
    });
  } finally {
    await close();
  }
}

async function expiry() {
  const TTL = 2;
  const emu = await startEmulator('strict', ['--session-ttl-secs', String(TTL)]);
  const { page, close } = await openDemo(emu);
  try {
    // Verify, then at once (well within the 2 s) get a 202 and sign it.
    await otpSession(page);
    const early = await page.evaluate(async () => {
      const { api, state } = window.demo;
      const path = `/auth/sessions/${state.session.id}`;
      const first = await api('DELETE', path);
      const headers = state.session.signRetry(first.text);
      return { path, status: first.status, headers, expiresAt: state.session.expiresAt.getTime(), now: Date.now() };
    });
    await check('expired session: a 202 signed while the session was live (TTL 2 s)', () => {
      assert(early.status === 202 && early.now < early.expiresAt, json(early));
      assert(early.expiresAt - early.now <= TTL * 1000, `expiresAt ${early.expiresAt - early.now} ms away`);
    });
    await sleep(Math.max(0, early.expiresAt - Date.now()) + 300);

    await check('expired session: the page shows it expired and disables the signing steps', async () => {
      await page.waitForSelector('#countdown[data-state="expired"]', { timeout: 3_000 });
      assert((await page.textContent('#session-state')) === 'expired', await page.textContent('#session-state'));
      const enabled = await enabledButtons(page);
      assert(!enabled.includes('passkey-register'), `enabled: ${json(enabled)}`);
    });
    const late = await page.evaluate(async (pathAndHeaders) => {
      const { api, state, signedRetry, kit } = window.demo;
      const session = state.session;
      const out = { isExpired: session.isExpired() };
      const codeOf = (err) => ({ kit: err instanceof kit.KitError, code: err.code });
      try {
        session.stamp('anything');
        out.stamp = 'signed';
      } catch (err) {
        out.stamp = codeOf(err);
      }
      try {
        await signedRetry(session, 'DELETE', pathAndHeaders.path);
        out.retry = 'signed';
      } catch (err) {
        out.retry = codeOf(err);
      }
      // The WalletClient refuses before any request.
      const logged = window.demo.log.length;
      out.client = {};
      for (const [name, call] of [
        ['refresh', () => state.client.refresh(session)],
        ['updateAccount', () => state.client.updateAccount(session, state.account.accountId, { privacyEnabled: true })],
      ]) {
        try {
          await call();
          out.client[name] = 'sent';
        } catch (err) {
          out.client[name] = codeOf(err);
        }
      }
      out.clientRequests = window.demo.log.slice(logged).filter((e) => e.kind === 'http').length;
      const res = await api('DELETE', pathAndHeaders.path, undefined, pathAndHeaders.headers);
      out.stale = { status: res.status, body: res.body };
      return out;
    }, { path: early.path, headers: early.headers });
    await check('expired session: the kit refuses locally (stamp and signedRetry → KitError SESSION_EXPIRED)', () => {
      assert(late.isExpired === true, 'isExpired() is false');
      assert(late.stamp.kit && late.stamp.code === 'SESSION_EXPIRED', json(late.stamp));
      assert(late.retry.kit && late.retry.code === 'SESSION_EXPIRED', json(late.retry));
    });
    await check('expired session: WalletClient.refresh and updateAccount refuse with SESSION_EXPIRED and send nothing', () => {
      for (const name of ['refresh', 'updateAccount']) {
        assert(late.client[name].kit && late.client[name].code === 'SESSION_EXPIRED', `${name}: ${json(late.client[name])}`);
      }
      assert(late.clientRequests === 0, `${late.clientRequests} requests sent`);
    });
    await check('expired session: the stamp made before expiry, sent after it → 401 "Session expired"', () => {
      assert(late.stale.status === 401 && late.stale.body.code === 'UNAUTHORIZED', json(late.stale));
      assert(late.stale.body.reason === 'Session expired', `reason: ${late.stale.body.reason}`);
    });
  } finally {
    await close();
    await emu.stop();
  }
}

// ---- main ----------------------------------------------------------------------------
const [strictEmu, sandboxEmu] = await Promise.all([startEmulator('strict'), startEmulator('sandbox')]);
console.log(`# strict emulator ${strictEmu.origin}, sandbox emulator ${sandboxEmu.origin}`);
await checkIn('the emulators report their modes', () => {
  assert(strictEmu.mode === 'strict' && sandboxEmu.mode === 'sandbox', `${strictEmu.mode} ${sandboxEmu.mode}`);
});

export default defineSuite(import.meta, {
  checks,
  async run(e, b) {
    [engine, browser] = [e, b];
    try {
      for (const keys of ['sealed', 'client-held']) {
        await flow(strictEmu, keys);
        await flow(sandboxEmu, keys);
        await processingFlow(strictEmu, keys);
      }
      if (engine === 'chromium') await reloadMidLogin();
      await negatives(strictEmu);
      await expiry();
    } catch (err) {
      fail(`[${engine}] e2e driver: ${String(err?.stack ?? err).split('\n').join('\n  ')}`);
      for (const emu of [strictEmu, sandboxEmu]) {
        console.log(`# ${emu.mode} emulator log (tail):\n${emu.stderr().split('\n').slice(-20).map((l) => `#   ${l}`).join('\n')}`);
      }
    } finally {
      await session?.close();
      session = undefined;
    }
  },
  async close() {
    await Promise.all([strictEmu.stop(), sandboxEmu.stop()]);
    killAllNow();
  },
});
