// `make bench` in one browser engine (tests/support/engines.mjs: Chromium through
// playwright-core, Firefox ESR through geckodriver, WebKitGTK through WebKitWebDriver on
// Xvfb): the suite (bench/suite.mjs) in a cross-origin isolated page that loads both
// entries (pkg/browser.js and pkg/signing.js, each its own module), the cold start in
// fresh pages (a signing-only page: embedded-wallet-kit/signing), and the files the engine
// fetched for that init() and for a passkey wallet page (the main entry).
// The pages are files in a scratch folder (writePages), served with scripts/serve.mjs.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { collectPageErrors, launchEngine } from '../tests/support/engines.mjs';
import { wasm } from '../scripts/size.mjs';
import { stats } from './suite.mjs';

/** Every response cross-origin isolated, for performance.now()'s finest resolution. */
export const ISOLATION_HEADERS = { 'cross-origin-opener-policy': 'same-origin', 'cross-origin-embedder-policy': 'require-corp' };

// WebDriver has no page-error events: the pages record their own (collectPageErrors).
const HEAD = `<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><script>
globalThis.pageErrors = [];
globalThis.takePageErrors = () => globalThis.pageErrors.splice(0);
addEventListener('error', (e) => globalThis.pageErrors.push('error: ' + e.message));
addEventListener('unhandledrejection', (e) => globalThis.pageErrors.push('unhandled rejection: ' + e.reason));
</script>`;

/**
 * Writes the bench page (index.html) and the blank page of the cold samples (cold.html).
 * The bench page is ready once both entries' init() resolved and their warm-ups ended:
 * each init() then queues its warm-up (npm/guard.js), WARM_UP_ROUNDS rounds in idle
 * callbacks (timers without requestIdleCallback), at least one round per callback, the
 * next callback queued from inside the last. Both kinds run first in, first out, so a
 * chain of WARM_UP_ROUNDS + 1 callbacks of the page's own, started after both init()s,
 * ends after the last round of either warm-up: no round runs inside a timed loop.
 */
export function writePages(pageDir) {
  writeFileSync(join(pageDir, 'index.html'), `${HEAD}<title>bench</title>
<script type="module">
import * as kit from '/pkg/browser.js';
import * as signing from '/pkg/signing.js';
import { WARM_UP_ROUNDS } from '/pkg/guard.js';
import * as peer from '/peer.js';
import { createHarness } from '/bench/suite.mjs';
await Promise.all([kit.init(), signing.init()]);
const later = (resolve) => (typeof globalThis.requestIdleCallback === 'function' ? globalThis.requestIdleCallback(resolve) : setTimeout(resolve, 0));
for (let i = 0; i <= WARM_UP_ROUNDS; i++) await new Promise(later);
const params = new URLSearchParams(location.search);
globalThis.bench = createHarness({ kit, signing, peer, warmup: Number(params.get('warmup')), iters: Number(params.get('iters')) });
globalThis.benchReady = true;
</script>`);
  writeFileSync(join(pageDir, 'cold.html'), `${HEAD}<title>cold</title><p>cold</p>
<script type="module">import * as cold from '/bench/cold-page.mjs'; globalThis.cold = cold;</script>`);
}

/**
 * Launches `engine`; `page()` opens a page ({ goto, evaluate, errors, close }) in a new
 * Chromium context or a new WebDriver session; `fresh(url)` a fresh document, to `done()`
 * with: a new context each (Chromium), a navigation of one session (Firefox, WebKit: a
 * session is a new browser process, seconds each). Every response is no-store.
 */
export async function openEngine(engine) {
  const browser = await launchEngine(engine, { chromium });
  const page = async () => {
    const errors = [];
    if (engine === 'chromium') {
      const ctx = await browser.newContext();
      const p = await ctx.newPage();
      p.on('pageerror', (e) => errors.push(e.message));
      p.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
      return { errors, version: browser.version(), goto: (u) => p.goto(u), evaluate: (fn, arg) => p.evaluate(fn, arg), close: () => ctx.close() };
    }
    const p = collectPageErrors(await browser.newPage(), errors);
    return {
      errors, version: p.capabilities?.browserVersion ?? '?',
      goto: (u) => p.goto(u), evaluate: (fn, arg) => p.evaluate(fn, arg ?? null, { timeoutMs: 300_000 }), close: () => p.close(),
    };
  };
  let shared;
  return {
    engine,
    page,
    async fresh(url) {
      if (engine === 'chromium') {
        const p = await page();
        await p.goto(url);
        return { ...p, done: p.close };
      }
      shared ??= await page();
      await shared.goto(`${url}?${Math.random()}`);
      return { ...shared, done: async () => {} };
    },
    async close() {
      await shared?.close();
      await browser.close();
    },
  };
}

/** Runs the step `name` of bench/cold-page.mjs in the page `p` (a fresh document). */
const step = (p, name, arg) => p.evaluate(([n, a]) => globalThis.cold[n](a), [name, arg ?? null]);

/** Runs one step in a fresh document (openEngine's fresh). */
async function inFresh(eng, url, name, arg) {
  const p = await eng.fresh(url);
  try {
    return await step(p, name, arg);
  } finally {
    await p.done();
  }
}

/** Loads the bench page; resolves to it when both entries' init() and warm-up, and the harness, are ready. */
export async function benchPage(eng, base, { warmup, iters }) {
  const page = await eng.page();
  await page.goto(`${base}/?warmup=${warmup}&iters=${iters}`);
  for (const deadline = Date.now() + 60_000; !await page.evaluate(() => globalThis.benchReady === true);) {
    if (Date.now() > deadline) throw new Error(`the bench page did not load: ${page.errors.join('; ')}`);
    await new Promise((ok) => setTimeout(ok, 100));
  }
  page.about = await page.evaluate(() => ({ isolated: globalThis.crossOriginIsolated, resolution: globalThis.bench.resolution }));
  return page;
}

/**
 * `cold` fresh pages each: import + init() of the signing entry, then the first keygen, open (of a bundle that
 * `respond(publicKeyHex)` seals and wraps) and stamp; the peer's import and first keygen;
 * init()'s split into fetch and compile. Then the files fetched from pkg/ for init() and for
 * a passkey wallet page (init({ passkeys: true }) + SessionStore.open()). `verify(stamp,
 * publicKeyHex)` checks the first stamp.
 */
export async function coldStart(eng, base, server, { cold, respond, payload, verify }) {
  const s = { kitImportInit: [], kitInit: [], firstKeygen: [], firstOpen: [], firstStamp: [], kitFetch: [], kitCompile: [], peerImport: [], peerFirst: [] };
  const fetched = (from) => [...new Set(server.requests.slice(from).filter((r) => r.status === 200 && r.path.startsWith('/pkg/')).map((r) => r.path.slice(5)))];
  const url = `${base}/cold.html`;
  let initSet;
  for (let i = 0; i < cold; i++) {
    const from = server.requests.length;
    const p = await eng.fresh(url);
    try {
      const k = await step(p, 'importInitKeygen');
      const o = await step(p, 'openAndStamp', [respond(k.publicKeyHex), payload]);
      if (i === 0) verify(o.stampValue, o.publicKeyHex);
      s.kitImportInit.push(k.importInit);
      s.kitInit.push(k.init);
      s.firstKeygen.push(k.keygen);
      s.firstOpen.push(o.open);
      s.firstStamp.push(o.stamp);
    } finally {
      await p.done();
    }
    initSet ??= fetched(from);
    const q = await inFresh(eng, url, 'peer');
    s.peerImport.push(q[0]);
    s.peerFirst.push(q[1]);
    const w = await inFresh(eng, url, 'initSplit', `/pkg/${wasm('signing')}`);
    s.kitFetch.push(w[0]);
    s.kitCompile.push(w[1]);
  }
  const from = server.requests.length;
  await inFresh(eng, url, 'walletPage');
  const pageSet = fetched(from);
  return { stats: Object.fromEntries(Object.entries(s).map(([k, v]) => [k, stats(v)])), initSet, pageSet };
}
