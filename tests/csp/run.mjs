#!/usr/bin/env node
/* global window, document */
// The demo wallet (examples/wallet) under the emulator's strict Content-Security-Policy
// (--strict-csp, as `make demo` serves it),
// in headless Chromium: the page loads, init({ passkeys: true }) compiles both wasm
// modules, and the EMAIL_OTP flow opens a session (a ClientKey generated, a sealed bundle
// opened), which then signs, with no CSP violation: no `securitypolicyviolation` event in
// the page and no console error. Then the isolated signer, init({ isolate: 'worker' }),
// on a page of its own under the same policy (worker-src 'self'). And a control: the same
// demo with 'wasm-unsafe-eval' taken out of the policy (rewritten in flight) fails to
// load the kit with a reported violation, so the listener is known to see one. And the
// demo's "keep alive" (SessionKeeper) with 6 s sessions: its countdown refreshed twice.
//
// Usage: node tests/csp/run.mjs (needs pkg/ from `make build` and a release emulator
// built from this tree: `cargo build --release -p emulator`)
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { launchChromium } from '../support/chromium.mjs';
import { createChecks } from '../support/checks.mjs';
import { ROOT, startEmulator } from '../support/emulator.mjs';

const { check, assert, fail, finish } = createChecks();

/** What a strict policy for the kit must and must not say. */
function strictEnough(csp) {
  const directives = new Map(csp.split(';').map((d) => d.trim().split(/\s+/)).filter((d) => d[0]).map(([name, ...values]) => [name, values]));
  const script = directives.get('script-src') ?? [];
  assert(script.includes("'self'") && script.includes("'wasm-unsafe-eval'"), `script-src: ${script}`);
  for (const value of ["'unsafe-eval'", "'unsafe-inline'", '*', 'data:', 'blob:']) {
    assert(!script.includes(value), `script-src allows ${value}`);
  }
  assert(!csp.includes("'unsafe-eval'") && !csp.includes("'unsafe-inline'"), `no unsafe-eval / unsafe-inline anywhere: ${csp}`);
  for (const [name, value] of [['object-src', "'none'"], ['base-uri', "'none'"], ['worker-src', "'self'"], ['default-src', "'self'"]]) {
    assert(JSON.stringify(directives.get(name)) === JSON.stringify([value]), `${name} must be ${value}: ${directives.get(name)}`);
  }
}

/** A page that records CSP violations and console errors from its first script on. */
async function watchedPage(context) {
  const page = await context.newPage();
  const consoleErrors = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error') consoleErrors.push(msg.text());
  });
  page.on('pageerror', (err) => consoleErrors.push(`pageerror: ${err.message}`));
  // An init script (injected by the DevTools protocol, not subject to the page's policy).
  await page.addInitScript(() => {
    window.cspViolations = [];
    document.addEventListener('securitypolicyviolation', (e) => {
      window.cspViolations.push(`${e.violatedDirective} blocked ${e.blockedURI || '(inline)'} (${e.sourceFile}:${e.lineNumber})`);
    });
  });
  const violations = () => page.evaluate(() => window.cspViolations);
  return { page, consoleErrors, violations };
}

async function clickStep(page, id) {
  await page.click(`#btn-${id}`);
  await page.waitForFunction((step) => ['done', 'error'].includes(document.getElementById(`step-${step}`).dataset.state), id, { timeout: 20_000 });
  const state = await page.evaluate((step) => ({
    state: document.getElementById(`step-${step}`).dataset.state,
    result: document.querySelector(`#step-${step} .result`).textContent,
  }), id);
  assert(state.state === 'done', `${id}: ${state.result}`);
  return state.result;
}

const demo = await startEmulator(['--strict-csp', '--static-dir', join(ROOT, 'examples', 'wallet'), '--pkg-dir', join(ROOT, 'pkg')]);
const shortSessions = await startEmulator(['--strict-csp', '--session-ttl-secs', '6', '--static-dir', join(ROOT, 'examples', 'wallet'), '--pkg-dir', join(ROOT, 'pkg')]);
const isolatePage = await startEmulator(['--strict-csp', '--static-dir', join(ROOT, 'tests', 'csp'), '--pkg-dir', join(ROOT, 'pkg')]);
const browser = await launchChromium(chromium);
try {
  await check("every file of the demo is served with a strict CSP: script-src 'self' 'wasm-unsafe-eval', no unsafe-eval, no inline", async () => {
    for (const path of ['/', '/app.js', '/style.css', '/pkg/browser.js', '/pkg/embedded_wallet_kit_bg.wasm', '/pkg/signer-worker.js']) {
      const res = await fetch(demo.origin + path);
      assert(res.status === 200, `${path}: ${res.status}`);
      const csp = res.headers.get('content-security-policy');
      assert(csp, `${path}: no Content-Security-Policy header`);
      strictEnough(csp);
    }
  });

  await check('the demo under that policy: init(), a ClientKey, a session opened against the emulator; no CSP violation, no console error', async () => {
    const context = await browser.newContext();
    try {
      const { page, consoleErrors, violations } = await watchedPage(context);
      await page.goto(demo.origin + '/');
      await page.waitForFunction(() => window.demo?.ready === true, null, { timeout: 30_000 });
      await clickStep(page, 'account');
      await clickStep(page, 'otp-credential');
      await clickStep(page, 'otp-read');
      const opened = await clickStep(page, 'otp-verify');
      assert(/^session Session:/.test(opened), opened);
      // A ClientKey, generated in the page's wasm, and the session's own stamp.
      const stamped = await page.evaluate(() => {
        const key = window.demo.kit.ClientKey.generate();
        const ok = /^04[0-9a-f]{128}$/.test(key.publicKeyHex);
        key.free();
        return ok && typeof window.demo.state.session.stamp('{"csp":true}') === 'string';
      });
      assert(stamped, 'ClientKey.generate() and session.stamp() work under the policy');
      const found = await violations();
      assert(found.length === 0, `CSP violations: ${found.join(' | ')}`);
      assert(consoleErrors.length === 0, `console errors: ${consoleErrors.join(' | ')}`);
    } finally {
      await context.close();
    }
  });

  await check('the demo keeps its session alive (SessionKeeper, 6 s sessions): two refreshes in a row, the countdown live, no violation', async () => {
    const context = await browser.newContext();
    try {
      const { page, consoleErrors, violations } = await watchedPage(context);
      await page.goto(shortSessions.origin + '/?keep=1');
      await page.waitForFunction(() => window.demo?.ready === true, null, { timeout: 30_000 });
      for (const step of ['account', 'otp-credential', 'otp-read', 'otp-verify']) await clickStep(page, step);
      const first = await page.evaluate(() => window.demo.state.session.id);
      await page.waitForFunction(() => (window.demo.state.keeperRefreshes ?? 0) >= 2, null, { timeout: 20_000 });
      const after = await page.evaluate(() => ({
        id: window.demo.state.session.id,
        countdown: document.getElementById('countdown').dataset.state,
        note: document.getElementById('keeper-note').textContent,
        live: !window.demo.state.session.isExpired() && window.demo.state.session.publicKeyHex !== undefined,
      }));
      assert(after.id !== first, 'a new session');
      assert(after.countdown === 'live' && after.live, `the countdown says ${after.countdown}; ${after.note}`);
      assert(/refreshed \(\d+ so far\)|expiring|keeping/.test(after.note), after.note);
      const found = await violations();
      assert(found.length === 0, `CSP violations: ${found.join(' | ')}`);
      assert(consoleErrors.length === 0, `console errors: ${consoleErrors.join(' | ')}`);
    } finally {
      await context.close();
    }
  });

  await check("init({ isolate: 'worker' }) under the same policy (worker-src 'self'): the Worker signs; no violation, no console error", async () => {
    const context = await browser.newContext();
    try {
      const { page, consoleErrors, violations } = await watchedPage(context);
      await page.goto(isolatePage.origin + '/isolate.html');
      await page.waitForFunction(() => document.body.dataset.result !== undefined, null, { timeout: 30_000 });
      const result = await page.evaluate(() => document.body.dataset.result);
      assert(result === 'ok', `the isolated page says: ${result}`);
      const found = await violations();
      assert(found.length === 0, `CSP violations: ${found.join(' | ')}`);
      assert(consoleErrors.length === 0, `console errors: ${consoleErrors.join(' | ')}`);
    } finally {
      await context.close();
    }
  });

  await check("control: without 'wasm-unsafe-eval' the kit cannot load and the violation is seen", async () => {
    const context = await browser.newContext();
    try {
      await context.route('**/*', async (route) => {
        const response = await route.fetch();
        const headers = response.headers();
        if (headers['content-security-policy']) {
          headers['content-security-policy'] = headers['content-security-policy'].replace(" 'wasm-unsafe-eval'", '');
        }
        await route.fulfill({ response, headers });
      });
      const { page, violations } = await watchedPage(context);
      await page.goto(demo.origin + '/');
      await page.waitForFunction(() => /Could not load the kit/.test(document.getElementById('status').textContent), null, { timeout: 30_000 });
      const found = await violations();
      assert(found.some((v) => /script-src/.test(v)), `expected a script-src violation, saw: ${found.join(' | ') || 'none'}`);
    } finally {
      // A request still in flight (the page keeps loading after the failure) would make
      // its route callback throw once the context is gone: drop the route first.
      await context.unrouteAll({ behavior: 'ignoreErrors' });
      await context.close();
    }
  });
} catch (err) {
  fail(`driver: ${err?.stack ?? err}`);
} finally {
  await browser.close();
  demo.proc.kill('SIGTERM');
  isolatePage.proc.kill('SIGTERM');
  shortSessions.proc.kill('SIGTERM');
}
finish();
