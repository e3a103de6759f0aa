#!/usr/bin/env node
// One session across tabs, end to end: two tabs of one origin (tests/crosstab/page.js,
// served by the strict emulator with a short session TTL, the package from pkg/) keep the
// same StoredSession with a SessionKeeper each, in every engine (tests/support/engines.mjs:
// headless Chromium through Playwright, two pages of one context; Firefox ESR and WebKitGTK
// through WebDriver, two tabs of one session). Checked in each:
// - a clock jump (the keeper's clock moved, no timer fired) is caught up on visibilitychange;
// - both tabs due at once → one refresh request reached the service; one tab refreshed, the
//   other adopted the new session (`refreshed`, elsewhere), both pay a quote signed with it
//   (the emulator checks the signature), and the replaced session is SESSION_CLOSED in both;
//   with Web Locks (navigator.locks) and again with the IndexedDB lease (locks: null);
// - logout (keeper.revoke) in tab A: one revoke sent, tab B's keeper reports `revoked`
//   (fromStore) and stops, and B's signing is SESSION_CLOSED with nothing sent.
//
// Usage: node tests/browser.mjs crosstab [--engine chromium|firefox|webkit|all] (default all)
/* global window, document -- in page.evaluate callbacks, which run in the tab */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { startEmulator, ROOT } from '../support/emulator.mjs';
import { defineSuite, json, requirePkg, suiteChecks } from '../support/suite.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));
const SESSION_TTL_SECS = 10;
const LEAD_MS = 4000;

let engine;
const checks = suiteChecks(() => `[${engine}] `);
const { check, assert } = checks;

requirePkg('session-keeper-impl.js');

const { proc, origin } = await startEmulator(['--static-dir', here, '--pkg-dir', join(ROOT, 'pkg'), '--session-ttl-secs', String(SESSION_TTL_SECS)]);
console.log(`# emulator ${origin}, session TTL ${SESSION_TTL_SECS} s`);
// The demo wallet (examples/wallet) on its own emulator, same TTL.
const demoEmulator = await startEmulator(['--static-dir', join(ROOT, 'examples', 'wallet'), '--pkg-dir', join(ROOT, 'pkg'), '--session-ttl-secs', String(SESSION_TTL_SECS)]);

/** The refresh requests a tab sent (the first leg; the signed retry is the same refresh). */
const refreshes = (sent) => sent.filter((r) => r.method === 'POST' && /^\/auth\/sessions\/[^/]+\/refresh$/.test(r.path) && !r.signed);

/**
 * Two tabs of one origin, each with `evaluate(fn, arg)`: Playwright pages of one context
 * (Chromium), or two windows of one WebDriver session, switched to before each call.
 */
async function openTabs(browser, pageErrors, url = `${origin}/`) {
  if (engine === 'chromium') {
    const context = await browser.newContext();
    const pages = [await context.newPage(), await context.newPage()];
    for (const page of pages) {
      page.on('pageerror', (err) => pageErrors.push(err.message));
      page.on('console', (msg) => {
        if (msg.type() === 'error') pageErrors.push(`console: ${msg.text()}`);
      });
      await page.goto(url);
    }
    return { tabs: pages.map((page) => ({ evaluate: (fn, arg) => page.evaluate(fn, arg) })), close: () => context.close() };
  }
  const page = await browser.newPage();
  await page.goto(url);
  await page.cmd('POST', '/window/new', { type: 'tab' });
  const handles = await page.cmd('GET', '/window/handles');
  if (handles.length !== 2) throw new Error(`expected two windows, got ${json(handles)}`);
  const original = await page.cmd('GET', '/window');
  const other = handles.find((h) => h !== original);
  await page.cmd('POST', '/window', { handle: other });
  await page.goto(url);
  let current = other;
  const tab = (handle) => ({
    async evaluate(fn, arg) {
      if (current !== handle) {
        await page.cmd('POST', '/window', { handle });
        current = handle;
      }
      return page.evaluate(fn, arg);
    },
  });
  return { tabs: [tab(original), tab(other)], close: () => page.close() };
}

async function waitFor(tab, fn, arg, timeoutMs, what) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await tab.evaluate(fn, arg)) return;
    if (Date.now() > deadline) {
      const state = await tab.evaluate(() => JSON.stringify({ readyState: document.readyState, visibility: document.visibilityState, ct: window.ct && { ready: window.ct.ready, failed: window.ct.failed, events: window.ct.events } }));
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}: ${state}`);
    }
    await sleep(100);
  }
}

const read = (tab) => tab.evaluate(() => JSON.parse(JSON.stringify({ sent: window.ct.sent, events: window.ct.events })));
const types = (events) => events.map((e) => e.type).join(', ');

async function suite(browser) {
  const pageErrors = [];
  const { tabs: [a, b], close } = await openTabs(browser, pageErrors);
  try {
    for (const [name, tab] of [['A', a], ['B', b]]) {
      await waitFor(tab, () => window.ct?.ready === true || window.ct?.failed !== undefined, null, 60_000, `tab ${name} to start`);
    }
    await check('both tabs started: init(), a WalletClient, SessionStore.open()', async () => {
      for (const tab of [a, b]) {
        const failed = await tab.evaluate(() => window.ct.failed ?? null);
        assert(failed === null, json(failed));
      }
    });

    // A clock jump: the keeper's clock moves 7 s ahead, no timer fires (the next is ~6 s
    // away): only the visibilitychange makes it look at the clock again.
    let login = await a.evaluate(() => window.ct.login());
    await a.evaluate(({ id }) => window.ct.keep(id, { leadMs: 3000, fakeClock: true, stopAfterRefresh: true }), login);
    await sleep(300);
    await a.evaluate(() => {
      window.ct.offset = 7000;
    });
    await sleep(800);
    const quiet = await read(a);
    const woken = Date.now();
    await a.evaluate(() => document.dispatchEvent(new Event('visibilitychange')));
    await waitFor(a, () => window.ct.events.some((e) => e.type !== 'expiring'), null, 5000, 'a refresh after visibilitychange');
    const jumped = await read(a);
    await check('a clock jump is caught up on visibilitychange: nothing before it, then expiring and one refresh, before any timer was due', () => {
      assert(quiet.events.length === 0 && refreshes(quiet.sent).length === 0, `before the event: ${types(quiet.events)}`);
      assert(types(jumped.events) === 'expiring, refreshed', `events: ${types(jumped.events)} ${json(jumped.events.at(-1))}`);
      assert(refreshes(jumped.sent).length === 1, `refreshes: ${refreshes(jumped.sent).length}`);
      const refreshedAt = jumped.events.at(-1).at;
      assert(refreshedAt - woken < 3000, `refreshed ${refreshedAt - woken} ms after the event`);
      // The keeper's own timer was due at expiresAt - leadMs (real time): this was earlier.
      assert(refreshedAt < login.expiresAt - 3000 - 500, `refreshed at ${refreshedAt}, timer due at ${login.expiresAt - 3000}`);
    });
    await a.evaluate(() => window.ct.reset({ clear: true }));

    for (const [label, options] of [['Web Locks', {}], ['the IndexedDB lease (locks: null)', { locks: null }]]) {
      await b.evaluate(() => window.ct.reset());
      login = await a.evaluate(() => window.ct.login());
      const keptA = await a.evaluate(({ id, options }) => window.ct.keep(id, options), { id: login.id, options: { leadMs: LEAD_MS, ...options } });
      await b.evaluate(({ id, options }) => window.ct.keep(id, options), { id: login.id, options: { leadMs: LEAD_MS, ...options } });
      if (label === 'Web Locks') {
        await check('Web Locks: navigator.locks is there', () => assert(keptA.webLocks, 'no navigator.locks in this engine'));
      }
      const settled = () => window.ct.events.some((e) => e.type !== 'expiring');
      for (const tab of [a, b]) await waitFor(tab, settled, null, SESSION_TTL_SECS * 1000 + 10_000, 'a refresh in both tabs');
      // A moment for a second refresh, if one were coming.
      await sleep(1000);
      const [ra, rb] = [await read(a), await read(b)];
      await check(`${label}: two tabs due at once → one refresh request reached the service`, () => {
        const n = refreshes(ra.sent).length + refreshes(rb.sent).length;
        assert(n === 1, `refresh requests: tab A ${refreshes(ra.sent).length}, tab B ${refreshes(rb.sent).length}`);
      });
      await check(`${label}: one tab refreshed, the other adopted the same new session (refreshed, elsewhere)`, () => {
        const ea = ra.events.filter((e) => e.type === 'refreshed');
        const eb = rb.events.filter((e) => e.type === 'refreshed');
        assert(ea.length === 1 && eb.length === 1, `tab A: ${types(ra.events)}; tab B: ${types(rb.events)} ${json([...ra.events, ...rb.events].find((e) => e.error))}`);
        assert([ea[0].elsewhere, eb[0].elsewhere].filter(Boolean).length === 1, `elsewhere: ${ea[0].elsewhere}, ${eb[0].elsewhere}`);
        assert(ea[0].session === eb[0].session && ea[0].session !== login.id, `${ea[0].session} / ${eb[0].session}`);
        assert(ea[0].previous === login.id && eb[0].previous === login.id, json([ea[0], eb[0]]));
      });
      for (const [name, tab] of [['A', a], ['B', b]]) {
        const paid = await tab.evaluate((accountId) => window.ct.pay(accountId), login.accountId);
        const old = await tab.evaluate(() => window.ct.stampFirst());
        await check(`${label}: tab ${name} pays a quote signed with the new session; the replaced one is SESSION_CLOSED`, () => {
          assert(paid.ok && /^Transaction:/.test(paid.transaction ?? ''), json(paid));
          assert(paid.signedWith !== login.id, `signed with ${paid.signedWith}`);
          assert(!old.ok && old.error.kit && old.error.code === 'SESSION_CLOSED' && /replaced/.test(old.error.message), json(old));
        });
      }

      const loggedOut = await a.evaluate(() => window.ct.logout());
      await waitFor(b, () => window.ct.events.some((e) => e.type === 'revoked'), null, 5000, "tab B's keeper to report the logout");
      const [la, lb] = [await read(a), await read(b)];
      const signB = await b.evaluate(() => window.ct.requestWithCurrent());
      const stopped = await b.evaluate(() => window.ct.keeper.stopped);
      await check(`${label}: logout in tab A (keeper.revoke): one revoke sent; tab B's keeper reports revoked (fromStore) and stops`, () => {
        assert(loggedOut.ok, json(loggedOut));
        const revokes = la.sent.filter((r) => r.method === 'DELETE' && /^\/auth\/sessions\//.test(r.path) && !r.signed);
        assert(revokes.length === 1, `revokes sent by A: ${revokes.length}`);
        assert(la.events.at(-1).type === 'revoked' && la.events.at(-1).fromStore === undefined, json(la.events.at(-1)));
        const revokedB = lb.events.filter((e) => e.type === 'revoked');
        assert(revokedB.length === 1 && revokedB[0].fromStore === true, `tab B: ${json(lb.events)}`);
        assert(lb.sent.every((r) => r.method !== 'DELETE'), 'tab B sent a revoke');
        assert(stopped === true, 'tab B keeper not stopped');
      });
      await check(`${label}: tab B signing after the logout: SESSION_CLOSED (a KitError), nothing sent`, () => {
        assert(!signB.ok && signB.error.kit && signB.error.code === 'SESSION_CLOSED', json(signB));
        assert(/deleted from the store/.test(signB.error.message), signB.error.message);
        assert(signB.sent === 0, `sent ${signB.sent}`);
      });
      await a.evaluate(() => window.ct.reset({ clear: true }));
    }
    if (engine === 'chromium') {
      await check('no page errors', () => assert(pageErrors.length === 0, pageErrors.join('\n')));
    }
  } finally {
    await close();
  }
}

/**
 * The demo wallet with "share with other tabs" (?share=1): tab A logs in (the demo's own
 * steps), tab B opened next takes the session over; the keepers refresh it once, one tab
 * shows "refreshed in another tab"; revoking in A shows "logged out in another tab" in B.
 */
async function demoSuite(browser) {
  const pageErrors = [];
  const { tabs: [a, b], close } = await openTabs(browser, pageErrors, `${demoEmulator.origin}/?share=1`);
  const demoReady = () => window.demo?.ready === true;
  const view = (tab) => tab.evaluate(() => ({
    id: window.demo.state.sessionView?.id ?? null,
    status: window.demo.state.sessionView?.status ?? null,
    note: document.getElementById('keeper-note').textContent,
    pill: document.getElementById('session-state').textContent,
    countdown: document.getElementById('countdown').textContent,
    refreshes: window.demo.log.filter((e) => e.kind === 'http' && e.method === 'POST' && /\/auth\/sessions\/[^/]+\/refresh$/.test(e.url)
      && !e.requestHeaders?.['Service-Wallet-Signature']).length,
  }));
  try {
    for (const tab of [a, b]) await waitFor(tab, demoReady, null, 30_000, 'the demo to start');
    for (const id of ['account', 'otp-credential', 'otp-read', 'otp-verify']) {
      await a.evaluate((step) => window.demo.runStep(step).then(() => true), id);
    }
    const first = await view(a);
    await b.evaluate(() => {
      setTimeout(() => window.location.reload(), 0);
      return true;
    });
    await sleep(500);
    await waitFor(b, () => window.demo?.ready === true && window.demo.state.sessionView !== null, null, 30_000, 'tab B to take the shared session');
    const joined = await view(b);
    await check('demo: a tab opened while another shares its session takes it over (same session, live countdown)', () => {
      assert(/^Session:/.test(first.id ?? ''), json(first));
      assert(joined.id === first.id && joined.status === 'live', json(joined));
      assert(/^\d\d:\d\d$/.test(joined.countdown), json(joined));
    });
    const refreshedNote = () => /refreshed/.test(document.getElementById('keeper-note').textContent);
    for (const tab of [a, b]) await waitFor(tab, refreshedNote, null, SESSION_TTL_SECS * 1000 + 10_000, 'the demo keepers to refresh');
    await sleep(500);
    const [va, vb] = [await view(a), await view(b)];
    await check('demo: the countdown refreshed itself once for both tabs; one tab shows "refreshed in another tab"', () => {
      assert(va.id === vb.id && va.id !== first.id, json([va, vb]));
      assert(va.pill === 'live' && vb.pill === 'live', json([va, vb]));
      const elsewhere = [va, vb].filter((v) => v.note.startsWith('refreshed in another tab'));
      assert(elsewhere.length === 1, json([va.note, vb.note]));
      assert(va.refreshes + vb.refreshes === 1, `refresh requests: tab A ${va.refreshes}, tab B ${vb.refreshes}`);
    });
    await a.evaluate(() => window.demo.runStep('revoke').then(() => true));
    await waitFor(b, () => document.getElementById('keeper-note').textContent === 'logged out in another tab', null, 5000, 'tab B to show the logout');
    const [la, lb] = [await view(a), await view(b)];
    await check('demo: revoking in one tab shows "logged out in another tab" in the other', () => {
      assert(la.status === 'revoked' && lb.status === 'revoked' && lb.pill === 'revoked', json([la, lb]));
      assert(lb.note === 'logged out in another tab', lb.note);
    });
    if (engine === 'chromium') await check('demo: no page errors', () => assert(pageErrors.length === 0, pageErrors.join('\n')));
  } finally {
    await close();
  }
}

export default defineSuite(import.meta, {
  checks,
  async run(e, browser) {
    engine = e;
    await suite(browser);
    await demoSuite(browser);
  },
  close() {
    proc.kill();
    demoEmulator.proc.kill();
  },
});
