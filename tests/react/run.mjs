#!/usr/bin/env node
// End to end for embedded-wallet-kit/react: the packed tarball installed into a Vite +
// React app (main.jsx, rendered under <StrictMode>), built once with Vite in development
// mode (React's development build: StrictMode runs every effect twice, which is what this
// checks), served by the strict emulator (--static-dir, a short --session-ttl-secs) and
// driven in each engine (tests/support/engines.mjs). The page logs in with EMAIL_OTP from
// an effect, pays a quote signed with the session, sees its SessionKeeper refresh it, pays
// again with the refreshed session, and logs out. Counted at the app's transport: one
// verify although the login effect ran twice, one refresh per `refreshed` event (one
// keeper). In Chromium the same again with a StoredSession (?stored=1: the login flow saves
// the session in a SessionStore): the keeper replaces it in the store, logout deletes it.
// And in Chromium useCapabilities() when the capabilities module's chunk is refused.
//
// Usage: node tests/browser.mjs react [--engine chromium|firefox|webkit|all] [path/to/embedded-wallet-kit-x.y.z.tgz]
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';
import { startEmulator } from '../support/emulator.mjs';
import { defineSuite, pageWithErrors, suiteChecks } from '../support/suite.mjs';
import { installTarball, recordingLogger } from '../support/tarball.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));
const SESSION_TTL_SECS = 8;
const LEAD_MS = 4000;

let engine;
let variant = '';
const checks = suiteChecks(() => (engine ? `[${engine}${variant}] ` : ''));
const { check, assert, fail } = checks;
const t0 = Date.now();
installTarball(here);

const outDir = join(here, 'dist');
const buildWarnings = [];
await build({
  root: here, configFile: false, mode: 'development', logLevel: 'warn', customLogger: recordingLogger(buildWarnings),
  // Vite builds React's production code whatever the mode; StrictMode checks are in the development code.
  define: { 'process.env.NODE_ENV': JSON.stringify('development') },
  build: { outDir, emptyOutDir: true, minify: false },
});
console.log(`# vite build (development): ${((Date.now() - t0) / 1000).toFixed(1)} s since start`);

await check('vite build of the React app printed no warnings', () => assert(buildWarnings.length === 0, buildWarnings.join('\n')));
await check("React's development build (StrictMode's double effects); react not installed with the kit (an optional peer)", () => {
  const assets = readdirSync(join(outDir, 'assets'));
  assert(assets.some((a) => a.endsWith('.wasm')), `no .wasm in ${assets.join(', ')}`);
  const code = assets.filter((a) => a.endsWith('.js')).map((a) => readFileSync(join(outDir, 'assets', a), 'utf8')).join('\n');
  assert(code.includes('react-dom-client.development') && !code.includes('react-dom-client.production'), 'not the development build of react-dom');
  assert(!existsSync(join(here, 'node_modules', 'react')), 'npm installed react next to the kit (the peer is optional)');
});

const { proc, origin } = await startEmulator(['--static-dir', outDir, '--session-ttl-secs', String(SESSION_TTL_SECS)]);
let browser;
let pageErrors = [];

const verifies = (sent) => sent.filter((r) => r.method === 'POST' && /^\/auth\/credentials\/[^/]+\/verify$/.test(r.path));
const refreshes = (sent) => sent.filter((r) => r.method === 'POST' && /^\/auth\/sessions\/[^/]+\/refresh$/.test(r.path) && !r.signed);

async function suite({ stored = false } = {}) {
  variant = stored ? ', StoredSession' : '';
  pageErrors = [];
  const page = await pageWithErrors(engine, browser, pageErrors);
  const read = () => page.evaluate(() => JSON.parse(JSON.stringify(window.reactE2E)));
  const click = (id) => page.evaluate((id) => document.getElementById(id).click(), id);
  const storedIds = () => page.evaluate(() => window.reactE2EStoredIds());
  const loginStarted = Date.now();
  await page.goto(`${origin}/?leadMs=${LEAD_MS}${stored ? '&stored=1' : ''}`);
  await page.waitForFunction(() => window.reactE2E?.view?.state === 'live' || window.reactE2E?.errors?.length > 0, null, { timeout: 30_000 });
  let s = await read();
  console.log(`# [${engine}${variant}] logged in after ${((Date.now() - loginStarted) / 1000).toFixed(1)} s`);
  await check('logs in with EMAIL_OTP under StrictMode: the session is live', () => {
    assert(s.errors.length === 0, s.errors.join('\n'));
    assert(/^Session:/.test(s.view.sessionId ?? ''), JSON.stringify(s.view));
  });
  await check('StrictMode ran the login effect twice, and one verify was sent (login() joined the first run)', () => {
    assert(s.loginEffectRuns === 2, `login effect runs: ${s.loginEffectRuns} (not a StrictMode development build?)`);
    const v = verifies(s.sent);
    assert(v.length === 1, `verify requests: ${v.length}`);
    const accounts = s.sent.filter((r) => r.method === 'POST' && r.path === '/auth/credentials');
    assert(accounts.length === 1, `credential creations: ${accounts.length}`);
  });
  await check('useCapabilities(): the panel shows this engine\'s answers (WebKitGTK: no WebAuthn, with the reason)', async () => {
    await page.waitForFunction(() => window.reactE2E.capabilities !== null && window.reactE2E.capabilities !== undefined, null, { timeout: 10_000 });
    const { capabilities: caps } = await read();
    assert(caps.passkeys.available === (engine !== 'webkit'), JSON.stringify(caps.passkeys));
    if (engine === 'webkit') assert(/no PublicKeyCredential/.test(caps.passkeys.reason), caps.passkeys.reason);
    for (const part of ['persistentKeys', 'wasm', 'isolatedSigner']) assert(caps[part].available === true, `${part}: ${JSON.stringify(caps[part])}`);
    const panel = await page.evaluate(() => document.getElementById('capabilities').textContent);
    assert(panel.includes(`passkeys: ${engine === 'webkit' ? 'no (' : 'yes'}`) && panel.includes('persistentKeys: yes'), panel);
  });
  const firstSession = s.view.sessionId;
  if (stored) {
    await check('the installed session is the StoredSession the flow saved (no free()), in the store', async () => {
      assert(s.view.stored === true, JSON.stringify(s.view));
      const ids = await storedIds();
      assert(ids.length === 1 && ids[0] === firstSession, `stored ${ids.join(', ')}; view ${firstSession}`);
    });
  }
  const msLeft1 = s.view.msLeft;
  await new Promise((r) => setTimeout(r, 700));
  s = await read();
  await check('useSession: msLeft ticks down toward expiresAt', () => {
    assert(typeof msLeft1 === 'number' && msLeft1 > 0 && msLeft1 <= SESSION_TTL_SECS * 1000, `msLeft ${msLeft1}`);
    assert(s.view.msLeft < msLeft1, `msLeft ${msLeft1} then ${s.view.msLeft}`);
  });

  await click('pay');
  await page.waitForFunction(() => window.reactE2E.payments.length === 1 || window.reactE2E.errors.length > 0, null, { timeout: 20_000 });
  s = await read();
  await check('pays a quote signed with the session (the emulator checked the signature)', () => {
    assert(s.errors.length === 0, s.errors.join('\n'));
    assert(s.payments[0].signedWith === firstSession, JSON.stringify(s.payments[0]));
    assert(/^Transaction:/.test(s.payments[0].transaction ?? ''), JSON.stringify(s.payments[0]));
  });

  await page.waitForFunction(
    (first) => (window.reactE2E.view.state === 'live' && window.reactE2E.view.sessionId !== first) || window.reactE2E.errors.length > 0,
    firstSession, { timeout: SESSION_TTL_SECS * 1000 + 10_000 },
  );
  s = await read();
  const types = s.events.map((e) => e.type);
  await check('the keeper refreshed the session before it expired: expiring, refreshed; the view shows the new one', () => {
    assert(s.errors.length === 0, s.errors.join('\n'));
    assert(types[0] === 'expiring' && types.includes('refreshed'), `events: ${types.join(', ')}`);
    assert(!types.includes('error') && !types.includes('expired'), `events: ${types.join(', ')}`);
    const refreshed = s.events.find((e) => e.type === 'refreshed');
    assert(refreshed.session === s.view.sessionId, `${refreshed.session} != ${s.view.sessionId}`);
  });
  await check('one keeper: one refresh request per refreshed event, one verify in all', () => {
    const r = refreshes(s.sent).length;
    const refreshedEvents = types.filter((t) => t === 'refreshed').length;
    assert(r === refreshedEvents && r >= 1, `refresh requests ${r}, refreshed events ${refreshedEvents}`);
    assert(verifies(s.sent).length === 1, `verify requests: ${verifies(s.sent).length}`);
  });

  await click('pay');
  await page.waitForFunction(() => window.reactE2E.payments.length === 2 || window.reactE2E.errors.length > 0, null, { timeout: 20_000 });
  s = await read();
  await check('pays again, signed with the refreshed session', () => {
    assert(s.errors.length === 0, s.errors.join('\n'));
    assert(s.payments[1].signedWith !== firstSession && s.payments[1].signedWith === s.view.sessionId, JSON.stringify(s.payments));
    assert(/^Transaction:/.test(s.payments[1].transaction ?? ''), JSON.stringify(s.payments[1]));
  });
  if (stored) {
    await check('the keeper replaced the StoredSession in the store: the refreshed one only', async () => {
      assert(s.view.stored === true, JSON.stringify(s.view));
      const ids = await storedIds();
      assert(ids.length === 1 && ids[0] === s.view.sessionId, `stored ${ids.join(', ')}; view ${s.view.sessionId}`);
    });
  }

  await click('logout');
  await page.waitForFunction(() => window.reactE2E.view.state === 'none' || window.reactE2E.errors.length > 0, null, { timeout: 20_000 });
  s = await read();
  await check('logout revokes the current session through the keeper (revoked event, one DELETE), state none', () => {
    assert(s.errors.length === 0, s.errors.join('\n'));
    const deletes = s.sent.filter((r) => r.method === 'DELETE' && /^\/auth\/sessions\//.test(r.path) && !r.signed);
    assert(deletes.length === 1, `revokes: ${deletes.length}`);
    assert(s.events.at(-1).type === 'revoked', `events: ${s.events.map((e) => e.type).join(', ')}`);
    assert(s.view.sessionId === null && s.view.msLeft === null, JSON.stringify(s.view));
  });
  if (stored) {
    await check('logout deleted the StoredSession from the store', async () => {
      const ids = await storedIds();
      assert(ids.length === 0, `still stored: ${ids.join(', ')}`);
    });
  }
  await check('no page errors', async () => {
    await page.evaluate(() => true);
    assert(pageErrors.length === 0, pageErrors.join('\n'));
  });
  if (engine === 'chromium') await page.close();
  else await page.close?.();
}

/**
 * Chromium: the capabilities module's chunk refused (its request aborted): useCapabilities()
 * still settles, each part unavailable with the load error, and the panel renders that.
 */
async function capabilitiesRefused() {
  variant = ', capabilities module refused';
  const page = await browser.newPage();
  try {
    await page.route(/\/assets\/capabilities-[^/]*\.js$/, (route) => route.abort());
    await page.goto(`${origin}/?leadMs=${LEAD_MS}`);
    await check('useCapabilities(): every part unavailable, the load error as its reason (not null for ever); the panel shows it', async () => {
      await page.waitForFunction(() => window.reactE2E?.capabilities !== null && window.reactE2E?.capabilities !== undefined, null, { timeout: 10_000 });
      const caps = await page.evaluate(() => window.reactE2E.capabilities);
      for (const part of ['passkeys', 'persistentKeys', 'wasm', 'isolatedSigner']) {
        assert(caps[part].available === false && /capabilities\(\) failed \(NOT_INITIALIZED: .*capabilities module/.test(caps[part].reason), `${part}: ${JSON.stringify(caps[part])}`);
      }
      const panel = await page.evaluate(() => document.getElementById('capabilities').textContent);
      assert(panel.includes('passkeys: no (not known: capabilities() failed'), panel);
    });
  } finally {
    await page.close();
    variant = '';
  }
}

export default defineSuite(import.meta, {
  checks,
  async run(e, b) {
    [engine, browser] = [e, b];
    try {
      await suite();
      if (engine === 'chromium') await suite({ stored: true });
      if (engine === 'chromium') await capabilitiesRefused();
    } catch (err) {
      fail(`[${engine}${variant}] react e2e driver: ${err?.stack ?? err}`);
    }
  },
  close: () => proc.kill(),
});
