#!/usr/bin/env node
/* global window, document */
// The demo wallet (examples/wallet) under the emulator's strict Content-Security-Policy
// (--strict-csp, as `make demo` serves it), in headless Chromium, Firefox ESR and
// WebKitGTK (tests/support/engines.mjs): the page loads, init({ passkeys: true }) compiles
// both wasm modules, and the EMAIL_OTP flow opens a session (a ClientKey generated, a
// sealed bundle opened), which then signs, with no CSP violation. Then the isolated
// signer, init({ isolate: 'worker' }), on a page of its own under the same policy
// (worker-src 'self'). And a control: the same demo with 'wasm-unsafe-eval' taken out of
// the policy fails to load the kit with a reported violation, in every engine, so the
// check is known to see one. And the demo's "keep alive" (SessionKeeper) with 6 s
// sessions: its countdown refreshed twice. And capabilities() (capabilities.html, no init())
// under the strict policy, under one without 'wasm-unsafe-eval' and under worker-src 'none':
// the wasm and isolatedSigner answers are real (the kit's own Worker is started).
//
// Violations are seen through the policy's report-uri (report-proxy.mjs: every engine
// sends the reports, for the page and its Worker, from before the first script runs); in
// Chromium also through a `securitypolicyviolation` listener injected before the page's
// scripts and the console's errors. Firefox and WebKitGTK are driven through WebDriver
// without the page's eval (newPage({ withoutPageEval: true })), which the policy forbids.
//
// Usage: node tests/browser.mjs csp [--engine chromium|firefox|webkit|all] (needs pkg/ from
// `make build` and a release emulator built from this tree: `cargo build --release -p emulator`)
import { join } from 'node:path';
import { createChecks } from '../support/checks.mjs';
import { ROOT, startEmulator } from '../support/emulator.mjs';
import { defineSuite } from '../support/suite.mjs';
import { REPORT_PATH, startReportingProxy } from './report-proxy.mjs';

const checks = createChecks();
const { check, assert } = checks;

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

/**
 * A fresh page (a Playwright context, or a WebDriver session) whose violations are the
 * reports `proxy` collects from now on; in Chromium also those of a listener injected
 * before the page's scripts, and console errors.
 */
async function watchedPage(engine, browser, proxy) {
  proxy.clear();
  if (engine !== 'chromium') {
    const page = await browser.newPage({ withoutPageEval: true });
    return { page, consoleErrors: [], violations: () => proxy.settled(), close: () => page.close() };
  }
  const context = await browser.newContext();
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
      window.cspViolations.push(`${e.violatedDirective} blocked ${e.blockedURI || '(inline)'} (${e.sourceFile}:${e.lineNumber}) [listener]`);
    });
  });
  const violations = async () => [...await proxy.settled(), ...await page.evaluate(() => window.cspViolations)];
  return { page, consoleErrors, violations, close: () => context.close() };
}

async function clickStep(page, id) {
  await page.click(`#btn-${id}`);
  await page.waitForFunction((step) => ['done', 'error'].includes(document.getElementById(`step-${step}`).dataset.state), id, { timeout: 20_000 });
  // Read through $eval (getAttribute, textContent), which WebDriver pages also run without the page's eval.
  const state = await page.getAttribute(`#step-${id}`, 'data-state');
  const result = await page.textContent(`#step-${id} .result`);
  assert(state === 'done', `${id}: ${result}`);
  return result;
}

const wallet = ['--static-dir', join(ROOT, 'examples', 'wallet'), '--pkg-dir', join(ROOT, 'pkg')];
const demo = await startEmulator(['--strict-csp', ...wallet]);
const shortSessions = await startEmulator(['--strict-csp', '--session-ttl-secs', '6', ...wallet]);
const isolatePage = await startEmulator(['--strict-csp', '--static-dir', join(ROOT, 'tests', 'csp'), '--pkg-dir', join(ROOT, 'pkg')]);
const withoutWasmEval = (csp) => csp.replace(" 'wasm-unsafe-eval'", '');
const proxies = {
  demo: await startReportingProxy(demo.origin),
  shortSessions: await startReportingProxy(shortSessions.origin),
  isolate: await startReportingProxy(isolatePage.origin),
  control: await startReportingProxy(demo.origin, { rewritePolicy: withoutWasmEval }),
  noWorkers: await startReportingProxy(isolatePage.origin, { rewritePolicy: (csp) => csp.replace("worker-src 'self'", "worker-src 'none'") }),
  capabilitiesNoWasm: await startReportingProxy(isolatePage.origin, { rewritePolicy: withoutWasmEval }),
};

/** The checks of one engine, each on a fresh page. */
async function engineChecks(engine, browser) {
  // WebDriver (classic) has no console: there only the reports are read.
  const clean = engine === 'chromium' ? 'no CSP violation, no console error' : 'no CSP violation reported';
  /** Runs `fn(page)` on a watched page of `proxy`, then asserts no violation and no console error. */
  const withoutViolations = async (proxy, fn) => {
    const { page, consoleErrors, violations, close } = await watchedPage(engine, browser, proxy);
    try {
      await fn(page);
      const found = await violations();
      assert(found.length === 0, `CSP violations: ${found.join(' | ')}`);
      assert(consoleErrors.length === 0, `console errors: ${consoleErrors.join(' | ')}`);
    } finally {
      await close();
    }
  };

  await check(`${engine}: the demo under that policy: init(), a ClientKey, a session opened against the emulator; ${clean}`, () =>
    withoutViolations(proxies.demo, async (page) => {
      await page.goto(proxies.demo.origin + '/');
      await page.waitForFunction(() => window.demo?.ready === true, null, { timeout: 30_000 });
      await clickStep(page, 'account');
      await clickStep(page, 'otp-credential');
      await clickStep(page, 'otp-read');
      const opened = await clickStep(page, 'otp-verify');
      assert(/^session Session:/.test(opened), opened);
      const done = await page.$$eval('[id^="step-"][data-state="done"]', (steps) => steps.map((step) => step.id));
      for (const step of ['account', 'otp-credential', 'otp-read', 'otp-verify']) assert(done.includes(`step-${step}`), `step ${step} not done: ${done}`);
      // A ClientKey, generated in the page's wasm, and the session's own stamp.
      const stamped = await page.evaluate(() => {
        const key = window.demo.kit.ClientKey.generate();
        const ok = /^04[0-9a-f]{128}$/.test(key.publicKeyHex);
        key.free();
        return ok && typeof window.demo.state.session.stamp('{"csp":true}') === 'string';
      });
      assert(stamped, 'ClientKey.generate() and session.stamp() work under the policy');
    }));

  await check(`${engine}: the demo keeps its session alive (SessionKeeper, 6 s sessions): two refreshes in a row, the countdown live; ${clean}`, () =>
    withoutViolations(proxies.shortSessions, async (page) => {
      await page.goto(proxies.shortSessions.origin + '/?keep=1');
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
    }));

  await check(`${engine}: init({ isolate: 'worker' }) under the same policy (worker-src 'self'): the Worker signs; ${clean}`, () =>
    withoutViolations(proxies.isolate, async (page) => {
      await page.goto(proxies.isolate.origin + '/isolate.html');
      await page.waitForFunction(() => document.body.dataset.result !== undefined, null, { timeout: 30_000 });
      const result = await page.evaluate(() => document.body.dataset.result);
      assert(result === 'ok', `the isolated page says: ${result}`);
    }));

  await check(`${engine}: control: without 'wasm-unsafe-eval' the kit cannot load, naming the policy, and the violation is reported`, async () => {
    const { page, violations, close } = await watchedPage(engine, browser, proxies.control);
    try {
      await page.goto(proxies.control.origin + '/');
      await page.waitForFunction(() => /Could not load the kit/.test(document.getElementById('status').textContent), null, { timeout: 30_000 });
      const status = await page.evaluate(() => document.getElementById('status').textContent);
      assert(/CSP|Content Security Policy/.test(status), `the failure does not name the policy: ${status}`);
      const found = await violations();
      const reported = found.filter((v) => !v.endsWith('[listener]'));
      if (engine === 'webkit') {
        // WebKitGTK (2.50) refuses the compile but fires no securitypolicyviolation and
        // sends no report for it; the worker-src control below shows its reports arrive.
        assert(/'wasm-unsafe-eval'/.test(status), `WebKit's refusal names 'wasm-unsafe-eval': ${status}`);
      } else {
        // Chromium and Firefox report the compile as script-src blocking `wasm-eval`.
        assert(reported.some((v) => /^script-src blocked wasm-eval /.test(v)), `expected a reported script-src violation, saw: ${found.join(' | ') || 'none'}`);
      }
      if (engine === 'chromium') {
        assert(found.some((v) => v.endsWith('[listener]') && /script-src/.test(v)), `the in-page listener saw none: ${found.join(' | ')}`);
      }
    } finally {
      await close();
    }
  });

  await check(`${engine}: control: with worker-src 'none' the isolated signer cannot start and the worker-src violation is reported`, async () => {
    const { page, violations, close } = await watchedPage(engine, browser, proxies.noWorkers);
    try {
      await page.goto(proxies.noWorkers.origin + '/isolate.html');
      await page.waitForFunction(() => document.body.dataset.result !== undefined, null, { timeout: 30_000 });
      const result = await page.evaluate(() => document.body.dataset.result);
      assert(/^NOT_INITIALIZED: .*(Worker|signer)/.test(result), `the isolated page says: ${result}`);
      const found = await violations();
      assert(found.some((v) => /^worker-src blocked \S*\/pkg\/signer-worker\.js /.test(v)), `expected a reported worker-src violation, saw: ${found.join(' | ') || 'none'}`);
    } finally {
      await close();
    }
  });

  /** capabilities() on capabilities.html through `proxy` (before any init()), parsed. */
  const capabilitiesThrough = async (page, proxy) => {
    await page.goto(proxy.origin + '/capabilities.html');
    await page.waitForFunction(() => document.body.dataset.result !== undefined, null, { timeout: 30_000 });
    const result = await page.evaluate(() => document.body.dataset.result);
    assert(result.startsWith('{'), `capabilities() failed: ${result}`);
    const ms = await page.getAttribute('body', 'data-ms');
    console.log(`# [${engine}] capabilities() first call, ${proxy === proxies.isolate ? 'strict policy' : 'rewritten policy'}: ${ms} ms`);
    return JSON.parse(result);
  };

  await check(`${engine}: capabilities() under the strict policy: wasm and isolatedSigner available; ${clean}`, () =>
    withoutViolations(proxies.isolate, async (page) => {
      const caps = await capabilitiesThrough(page, proxies.isolate);
      assert(JSON.stringify(caps.wasm) === '{"available":true}', `wasm: ${JSON.stringify(caps.wasm)}`);
      assert(JSON.stringify(caps.isolatedSigner) === '{"available":true}', `isolatedSigner: ${JSON.stringify(caps.isolatedSigner)}`);
    }));

  await check(`${engine}: capabilities() under worker-src 'none': isolatedSigner unavailable (the kit's Worker was refused), the reason naming the policy; the worker-src violation reported`, async () => {
    const { page, violations, close } = await watchedPage(engine, browser, proxies.noWorkers);
    try {
      const caps = await capabilitiesThrough(page, proxies.noWorkers);
      assert(caps.isolatedSigner.available === false, `isolatedSigner: ${JSON.stringify(caps.isolatedSigner)}`);
      assert(/signer-worker\.js/.test(caps.isolatedSigner.reason) && /worker-src/.test(caps.isolatedSigner.reason), `reason: ${caps.isolatedSigner.reason}`);
      assert(JSON.stringify(caps.wasm) === '{"available":true}', `wasm: ${JSON.stringify(caps.wasm)}`);
      console.log(`# [${engine}] isolatedSigner refused: ${caps.isolatedSigner.reason}`);
      const found = await violations();
      assert(found.some((v) => /^worker-src blocked \S*\/pkg\/signer-worker\.js /.test(v)), `expected a reported worker-src violation, saw: ${found.join(' | ') || 'none'}`);
    } finally {
      await close();
    }
  });

  await check(`${engine}: capabilities() under a real policy without 'wasm-unsafe-eval': wasm unavailable, the reason naming it`, async () => {
    const { page, close } = await watchedPage(engine, browser, proxies.capabilitiesNoWasm);
    try {
      const caps = await capabilitiesThrough(page, proxies.capabilitiesNoWasm);
      assert(caps.wasm.available === false && /'wasm-unsafe-eval'/.test(caps.wasm.reason), `wasm: ${JSON.stringify(caps.wasm)}`);
      console.log(`# [${engine}] wasm refused: ${caps.wasm.reason}`);
    } finally {
      await close();
    }
  });
}

await check("every file of the demo is served with a strict CSP: script-src 'self' 'wasm-unsafe-eval', no unsafe-eval, no inline", async () => {
  for (const path of ['/', '/app.js', '/style.css', '/pkg/browser.js', '/pkg/embedded_wallet_kit_bg.wasm', '/pkg/signer-worker.js']) {
    const res = await fetch(demo.origin + path);
    assert(res.status === 200, `${path}: ${res.status}`);
    const csp = res.headers.get('content-security-policy');
    assert(csp, `${path}: no Content-Security-Policy header`);
    strictEnough(csp);
    // What the browsers get through the reporting proxy: that policy, and a report-uri only.
    const proxied = await fetch(proxies.demo.origin + path);
    await proxied.arrayBuffer();
    assert(proxied.headers.get('content-security-policy') === `${csp}; report-uri ${REPORT_PATH}`, `${path} through the proxy: ${proxied.headers.get('content-security-policy')}`);
  }
});

export default defineSuite(import.meta, {
  checks,
  run: engineChecks,
  async close() {
    await Promise.all(Object.values(proxies).map((proxy) => proxy.close()));
    demo.proc.kill('SIGTERM');
    isolatePage.proc.kill('SIGTERM');
    shortSessions.proc.kill('SIGTERM');
  },
});
