#!/usr/bin/env node
// End to end: the packed tarball, installed into a Vite app, built with Vite (once), served
// from a local static server and driven in every engine (tests/support/engines.mjs):
// headless Chromium (Debian's, via playwright-core), Firefox ESR (geckodriver) and
// WebKitGTK (WebKitWebDriver on Xvfb), the same page checks in each.
// Node seals a session key to the page's ClientKey with @turnkey/crypto; the page opens
// it and stamps; Node verifies the stamp with @noble/curves. Also checks that the passkey
// module and WalletClient's implementation are separate chunks loaded by
// init({ passkeys: true }), not by init(), nor is the isolated signer's code. Then the isolated signer,
// init({ isolate: 'worker' }), in the same build (Vite's default worker config): the signer
// Worker and its .wasm are emitted as assets, the Worker's stamps verify in Node, and the
// page's own realm never fetches or instantiates the signing .wasm; the same isolated page
// again from Vite's dev server. Neither `vite build` nor the dev server may warn. (The
// plain demo page is driven against the emulator by tests/e2e/run.mjs.)
//
// Usage: node tests/browser.mjs vite [--engine chromium|firefox|webkit|all] [path/to/embedded-wallet-kit-x.y.z.tgz]
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, createServer } from 'vite';
import { serveStatic } from '../../scripts/serve.mjs';
import { sessionResponse, pending202, randomScalar, compressedPublicKeyHex, sealBundle, checkStamp } from '../support/fixtures.mjs';
import { defineSuite, pageWithErrors, suiteChecks } from '../support/suite.mjs';
import { installTarball, recordingLogger } from '../support/tarball.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));

/** The engine of the page checks; the build checks (once) are named without one. */
let engine;
const checks = suiteChecks(() => (engine ? `[${engine}] ` : ''));
const { check, assert, fail } = checks;
// Install the tarball into the Vite app (not saved anywhere), then build.
installTarball(here);
const outDir = join(here, 'dist');
// Vite's defaults, as an app author gets them (no worker or wasm config); the logger only
// records what `vite build` warns about.
const buildWarnings = [];
await build({ root: here, configFile: false, logLevel: 'warn', customLogger: recordingLogger(buildWarnings), build: { outDir, emptyOutDir: true } });
const assets = readdirSync(join(outDir, 'assets'));
console.log(`# vite output: ${assets.join(', ')}`);

const server = await serveStatic({ '/': outDir });
const base = `http://localhost:${server.port}`;

/**
 * The isolated signer at `pageUrl` (main.js with ?isolate=worker), in a fresh browser
 * context (Chromium) or the engine's WebDriver session: the Worker is started from the
 * expected script, a session sealed here opens in it, its stamp and signRetry verify here,
 * and the page's own realm never fetches, compiles or instantiates wasm (index.html counts
 * every WebAssembly compile/instantiate call of the page's realm, before any module runs)
 * while the Worker fetches the signing .wasm once. `served()` is the serving side's log of
 * the requests since the page was opened (it sees the Worker's requests as well as the
 * page's; every response is fresh: no-store, or a fresh profile).
 */
async function checkIsolatedPage(label, pageUrl, expected, served) {
  const context = engine === 'chromium' ? await browser.newContext() : null;
  let page;
  const workers = [];
  if (context) {
    page = await context.newPage();
    page.on('pageerror', (err) => pageErrors.push(`isolated page (${label}): ${err.message}`));
    page.on('console', (msg) => {
      if (msg.type() === 'error') pageErrors.push(`isolated page (${label}) console: ${msg.text()}`);
    });
    page.on('worker', (w) => workers.push(new URL(w.url()).pathname));
  } else {
    page = session;
  }
  try {
    await page.goto(pageUrl);
    await page.waitForFunction(() => window.kitState?.done === true, null, { timeout: 30_000 });
    const state = await page.evaluate(() => window.kitState);
    // WebDriver reports no workers: the serving side saw which Worker script was fetched.
    if (!context) workers.push(...served().map((r) => r.path).filter((path) => /signer-worker[^/]*\.js$/.test(path)));

    await check(`${label}: init({ isolate: 'worker' }) resolves in the Vite page (default Vite config)`, () => {
      assert(state.isolated === true, 'the page did not take the isolated path');
      assert(state.error === null, `init({ isolate: 'worker' }) failed: ${state.error}`);
      assert(state.sameIsolatedKit === true, 'concurrent init({ isolate }) calls resolved to different objects');
      assert(/^04[0-9a-f]{128}$/.test(state.publicKeyHex ?? ''), `ClientKey.generate in the Worker: ${state.publicKeyHex}`);
    });
    await check(`${label}: the signer Worker ran from the kit's worker script`, () =>
      assert(workers.length === 1 && expected.worker(workers[0]), `workers: ${workers.join(', ') || 'none'}`));
    if (state.error !== null) return;

    const clientPublicKeyHex = await page.evaluate(async () => {
      window.__key = await window.kit.isolated.ClientKey.generate();
      return window.__key.publicKeyHex;
    });
    const scalar = randomScalar();
    const expectedPub = compressedPublicKeyHex(scalar);
    const response = sessionResponse({ bundle: sealBundle(scalar, clientPublicKeyHex) });
    const payload = '{"amount":"12.34","memo":"café ☕ — 🚀"}\r\n';
    const p202 = pending202();
    const r = await page.evaluate(async ({ response, payload, p202 }) => {
      const { isolated, KitError } = window.kit;
      const s = await isolated.Session.open(response, window.__key);
      const out = { id: s.id, publicKeyHex: s.publicKeyHex, stamp: await s.stamp(payload), retry: await s.signRetry(p202) };
      try {
        await isolated.Session.open({ ...response, encryptedSessionSigningKey: '0OIl-not-base58' }, await isolated.ClientKey.generate());
        out.bad = 'no error';
      } catch (err) {
        out.bad = { kit: err instanceof KitError, code: err.code };
      }
      await isolated.terminate();
      out.afterTerminate = await s.stamp(payload).then(() => 'resolved', (err) => (err instanceof KitError ? err.code : String(err)));
      return out;
    }, { response, payload, p202 });

    await check(`${label}: isolated Session.open opens the @turnkey/crypto bundle to the expected key`, () => {
      assert(r.publicKeyHex === expectedPub, `${r.publicKeyHex} != ${expectedPub}`);
      assert(r.id === response.id, 'id');
    });
    await check(`${label}: the isolated stamp verifies in Node (@noble/curves + node:crypto)`, () => {
      const c = checkStamp(r.stamp, payload, expectedPub);
      assert(c.ok, JSON.stringify(c));
      assert(!checkStamp(r.stamp, `${payload}x`, expectedPub).ok, 'a different payload must not verify');
    });
    await check(`${label}: isolated signRetry: exact headers, verifying signature`, () => {
      assert(JSON.stringify(Object.keys(r.retry)) === JSON.stringify(['Service-Wallet-Signature', 'Request-Id']), Object.keys(r.retry).join());
      assert(r.retry['Request-Id'] === p202.requestId, 'Request-Id');
      assert(checkStamp(r.retry['Service-Wallet-Signature'], p202.payloadToSign, expectedPub).ok, 'signature');
    });
    await check(`${label}: an error from the Worker is the package KitError in the page (INVALID_BUNDLE); after terminate() SESSION_CLOSED`, () => {
      assert(r.bad.kit && r.bad.code === 'INVALID_BUNDLE', JSON.stringify(r.bad));
      assert(r.afterTerminate === 'SESSION_CLOSED', r.afterTerminate);
    });
    await check(`${label}: the page realm never fetched or instantiated the signing .wasm; the Worker fetched it once`, async () => {
      const inPage = await page.evaluate(() => ({
        wasmCalls: window.pageRealmWasm,
        wasmResources: performance.getEntriesByType('resource').map((e) => e.name).filter((n) => n.includes('.wasm')),
      }));
      assert(inPage.wasmCalls.length === 0, `page realm called WebAssembly.${inPage.wasmCalls.join(', WebAssembly.')}`);
      assert(inPage.wasmResources.length === 0, `page realm fetched ${inPage.wasmResources.join(', ')}`);
      assert(state.preInitCode === 'NOT_INITIALIZED' && state.sameThreadCodeAfterInit === 'NOT_INITIALIZED',
        `same-thread ClientKey.generate before/after init({ isolate }): ${state.preInitCode}/${state.sameThreadCodeAfterInit}`);
      const wasmFetches = served().filter((r) => r.path.endsWith('.wasm'));
      assert(wasmFetches.length === 1 && expected.wasm(wasmFetches[0].path) && wasmFetches[0].status === 200
        && wasmFetches[0].type === 'application/wasm', `wasm fetches: ${JSON.stringify(wasmFetches)}`);
    });
  } finally {
    if (context) await context.close();
    else {
      await session.evaluate(() => true); // collects what the page recorded since the last evaluate
      await session.goto('about:blank'); // ends the page's Worker
    }
  }
}

let browser;
/** Firefox and WebKitGTK: the engine's one WebDriver session. */
let session;
let pageErrors = [];
// ---- the build (once) ------------------------------------------------------------------
try {
  await check('vite build emitted the .wasm as an asset', () => {
    assert(assets.some((a) => a.endsWith('.wasm')), `no .wasm in ${assets.join(', ')}`);
  });
  await check('vite build printed no warnings', () => assert(buildWarnings.length === 0, buildWarnings.join('\n')));
  await check('vite build emitted the wallet module\'s two builds, with and without the enclave exports, and no other .wasm (the page imports the main entry only)', () => {
    const wasm = assets.filter((a) => a.endsWith('.wasm')).sort();
    assert(wasm.length === 2 && /^embedded_wallet_kit_bg-.*\.wasm$/.test(wasm[0]) && /^embedded_wallet_kit_no_enclave_bg-.*\.wasm$/.test(wasm[1]),
      `.wasm assets: ${wasm.join(', ')}`);
  });
  await check("vite build emitted WalletClient's implementation as its own chunk", () => {
    assert(assets.some((a) => /^wallet-client-impl-.*\.js$/.test(a)), `no wallet-client-impl chunk in ${assets.join(', ')}`);
  });
} catch (err) {
  fail(`vite build checks: ${err?.stack ?? err}`);
}
const pkgWasm = readFileSync(join(here, 'node_modules', 'embedded-wallet-kit', 'embedded_wallet_kit_bg.wasm'));
const workerAsset = assets.find((a) => /^signer-worker-.*\.js$/.test(a));
await check('vite build emitted the signer Worker as its own asset, started by URL from the isolated signer\'s own chunk (not the page\'s)', () => {
  assert(workerAsset !== undefined, `no signer-worker-*.js in ${assets.join(', ')}`);
  const startsIt = assets.filter((a) => a.endsWith('.js') && a !== workerAsset)
    .filter((a) => readFileSync(join(outDir, 'assets', a), 'utf8').includes(`/assets/${workerAsset}`));
  assert(startsIt.length === 1 && /^signer-(?!worker-).*\.js$/.test(startsIt[0]), `chunks naming /assets/${workerAsset}: ${startsIt.join(', ') || 'none'}`);
});
await check('the Worker bundle loads an emitted .wasm that is the package\'s wallet module', () => {
  const code = readFileSync(join(outDir, 'assets', workerAsset), 'utf8');
  // Emitted asset names (name-hash.wasm), not a minified property access such as `R.wasm`
  // (the wallet module's glue has one).
  const named = [...new Set(code.match(/[\w.]+-[\w-]+\.wasm/g) ?? [])];
  assert(named.length === 1, `.wasm names in the Worker bundle: ${named.join(', ') || 'none'}`);
  assert(assets.includes(named[0]), `${named[0]} is not among the emitted assets`);
  assert(readFileSync(join(outDir, 'assets', named[0])).equals(pkgWasm), `${named[0]} is not embedded_wallet_kit_bg.wasm`);
});

// ---- the page, in each engine -----------------------------------------------------------
async function suite() {
  const firstRequest = server.requests.length;
  /** What the static server answered in this engine's run. */
  const requests = () => server.requests.slice(firstRequest);
  pageErrors = [];
  const page = await pageWithErrors(engine, browser, pageErrors);
  if (engine !== 'chromium') session = page;

  await page.goto(`${base}/`);
  await page.waitForFunction(() => window.kitState?.done === true, null, { timeout: 30_000 });
  const state = await page.evaluate(() => window.kitState);

  await check('init() resolves in the Vite-built page', () => assert(state.error === null, `init failed: ${state.error}`));
  await check('before init a call throws KitError NOT_INITIALIZED', () =>
    assert(state.preInitCode === 'NOT_INITIALIZED', `got ${state.preInitCode}`));
  await check('concurrent init() calls share one promise', () => assert(state.sameInitPromise === true, 'different promises'));
  await check('the .wasm was fetched once, as application/wasm', () => {
    const wasm = requests().filter((r) => r.path.endsWith('.wasm'));
    assert(wasm.length === 1, `wasm requests: ${JSON.stringify(wasm)}`);
    assert(wasm[0].status === 200 && wasm[0].type === 'application/wasm', JSON.stringify(wasm[0]));
  });
  await check('init() fetched the wallet module without the enclave exports', () => {
    const wasm = requests().filter((r) => r.path.endsWith('.wasm'));
    assert(/\/embedded_wallet_kit_no_enclave_bg-.*\.wasm$/.test(wasm[0]?.path ?? ''), `fetched: ${wasm.map((r) => r.path).join(', ')}`);
  });
  await check("init() alone did not fetch WalletClient's implementation chunk", () => {
    const implFiles = requests().filter((r) => r.path.includes('wallet-client-impl'));
    assert(implFiles.length === 0, `fetched: ${implFiles.map((r) => r.path).join(', ')}`);
  });
  await check("init() did not fetch the isolated signer's chunk or Worker", () => {
    const isolated = requests().filter((r) => /\/assets\/(isolated|signer-worker)-/.test(r.path));
    assert(isolated.length === 0, `fetched: ${isolated.map((r) => r.path).join(', ')}`);
  });
  await check('ClientKey.generate in the page', () => assert(/^04[0-9a-f]{128}$/.test(state.publicKeyHex ?? ''), state.publicKeyHex));

  // A real session: the page's key, a bundle sealed in Node by the peer library.
  const clientPublicKeyHex = await page.evaluate(() => {
    window.__key = window.kit.ClientKey.generate();
    return window.__key.publicKeyHex;
  });
  const scalar = randomScalar();
  const expectedPub = compressedPublicKeyHex(scalar);
  const response = sessionResponse({ bundle: sealBundle(scalar, clientPublicKeyHex) });
  const payload = '{"amount":"12.34","memo":"café ☕ — 🚀"}\r\n';
  const p202 = pending202();
  const r = await page.evaluate(({ response, payload, p202 }) => {
    const { Session } = window.kit;
    const s = Session.open(response, window.__key);
    const out = {
      id: s.id,
      publicKeyHex: s.publicKeyHex,
      expiresAtIso: s.expiresAt.toISOString(),
      isDate: s.expiresAt instanceof Date,
      stamp: s.stamp(payload),
      retry: s.signRetry(p202),
    };
    s.free();
    return out;
  }, { response, payload, p202 });

  await check('Session.open in the page opens the @turnkey/crypto bundle to the expected key', () => {
    assert(r.publicKeyHex === expectedPub, `${r.publicKeyHex} != ${expectedPub}`);
    assert(r.id === response.id, 'id');
    assert(r.isDate && r.expiresAtIso === new Date(response.expiresAt).toISOString(), 'expiresAt');
  });
  await check('the page stamp verifies in Node (@noble/curves + node:crypto)', () => {
    const c = checkStamp(r.stamp, payload, expectedPub);
    assert(c.ok, JSON.stringify(c));
    assert(!checkStamp(r.stamp, `${payload}x`, expectedPub).ok, 'a different payload must not verify');
  });
  await check('signRetry in the page: exact headers, verifying signature', () => {
    const keys = Object.keys(r.retry);
    assert(JSON.stringify(keys) === JSON.stringify(['Service-Wallet-Signature', 'Request-Id']), keys.join());
    assert(r.retry['Request-Id'] === p202.requestId, 'Request-Id');
    assert(checkStamp(r.retry['Service-Wallet-Signature'], p202.payloadToSign, expectedPub).ok, 'signature');
  });

  const e = await page.evaluate((response) => {
    const { Session, ClientKey, KitError } = window.kit;
    const out = {};
    try {
      Session.open({ ...response, encryptedSessionSigningKey: '0OIl-not-base58' }, ClientKey.generate());
      out.bad = 'no error';
    } catch (err) {
      out.bad = { kit: err instanceof KitError, error: err instanceof Error, name: err.name, code: err.code };
    }
    const sb = Session.sandbox(response);
    out.sandbox = sb.stamp('anything');
    sb.free();
    try {
      sb.stamp('after free');
      out.closed = 'no error';
    } catch (err) {
      out.closed = { kit: err instanceof KitError, code: err.code };
    }
    return out;
  }, sessionResponse({ bundle: 'stub' }));
  await check('errors thrown from wasm are the package KitError (INVALID_BUNDLE)', () =>
    assert(e.bad.kit && e.bad.error && e.bad.name === 'KitError' && e.bad.code === 'INVALID_BUNDLE', JSON.stringify(e.bad)));
  await check('sandbox session signs sandbox-valid-signature in the page', () =>
    assert(e.sandbox === 'sandbox-valid-signature', e.sandbox));
  await check('use after free throws SESSION_CLOSED in the page', () =>
    assert(e.closed.kit && e.closed.code === 'SESSION_CLOSED', JSON.stringify(e.closed)));

  const pk = await page.evaluate(async () => {
    const { init, passkey, KitError, WalletClient } = window.kit;
    let before;
    try {
      passkey.isSupported();
      before = 'no error';
    } catch (err) {
      before = err instanceof KitError ? err.code : String(err);
    }
    try {
      await init({ passkeys: true });
      // An error from the passkey chunk is the same KitError class as the main chunk's.
      const bad = await passkey.register({}).then(() => 'resolved', (err) => (err instanceof KitError ? err.code : String(err)));
      // WalletClient's implementation chunk came with it: a flow runs in the page.
      const client = new WalletClient({ transport: () => ({ status: 200, body: '{"id":"AuthMethod:1"}' }) });
      const flow = { isClient: client instanceof WalletClient, created: await client.createEmailOtp('InternalAccount:1') };
      return { before, supported: passkey.isSupported(), bad, flow };
    } catch (err) {
      return { before, error: `${err?.code ?? err?.name}: ${err?.message}` };
    }
  });
  await check('init({ passkeys: true }) in the Vite page fetches no other .wasm; passkey.isSupported() is a boolean; its errors are the KitError', () => {
    // init() loaded the passkey API with the module: no init({ passkeys: true }) needed for it.
    assert(pk.before === 'no error', `passkey.isSupported() after init(): ${pk.before}`);
    assert(pk.error === undefined, pk.error);
    assert(typeof pk.supported === 'boolean', JSON.stringify(pk));
    assert(pk.bad === 'INVALID_INPUT', `passkey.register({}) in the Vite page: ${pk.bad}`);
    const wasm = requests().filter((r) => r.path.endsWith('.wasm'));
    assert(wasm.length === 1 && wasm[0].type === 'application/wasm', JSON.stringify(wasm));
  });
  await check("init({ passkeys: true }) in the Vite page also loads WalletClient's implementation chunk, once; a flow runs", () => {
    const impl = requests().filter((r) => /\/wallet-client-impl-.*\.js$/.test(r.path));
    assert(impl.length === 1 && impl[0].status === 200, JSON.stringify(impl));
    assert(pk.flow?.isClient === true && pk.flow.created?.id === 'AuthMethod:1', JSON.stringify(pk.flow));
  });

  // ---- the isolated signer: init({ isolate: 'worker' }) in the same Vite build -------------
  const isolatedFrom = server.requests.length;
  await checkIsolatedPage('build', `${base}/?isolate=worker`, {
    worker: (path) => path === `/assets/${workerAsset}`,
    wasm: (path) => /^\/assets\/embedded_wallet_kit_bg-.*\.wasm$/.test(path),
  }, () => server.requests.slice(isolatedFrom));

  // The same page from Vite's dev server (no bundling of the Worker, the kit served from
  // node_modules): init({ isolate: 'worker' }) must work there too, unconfigured.
  const devWarnings = [];
  const devRequests = [];
  const dev = await createServer({
    root: here, configFile: false, logLevel: 'warn', customLogger: recordingLogger(devWarnings), server: { host: 'localhost', port: 0 },
    // Only records what the dev server answered (first in its middleware stack); no other config.
    plugins: [{
      name: 'record-requests',
      configureServer(devServer) {
        devServer.middlewares.use((req, res, next) => {
          const path = new URL(req.url, 'http://localhost').pathname;
          res.on('finish', () => devRequests.push({ path, status: res.statusCode, type: String(res.getHeader('content-type') ?? '') }));
          next();
        });
      },
    }],
  });
  try {
    await dev.listen();
    await checkIsolatedPage('dev server', new URL('?isolate=worker', dev.resolvedUrls.local[0]).href, {
      worker: (path) => path.endsWith('/embedded-wallet-kit/signer-worker.js'),
      wasm: (path) => path.endsWith('/embedded-wallet-kit/embedded_wallet_kit_bg.wasm'),
    }, () => devRequests);
  } finally {
    await dev.close();
  }
  await check('vite dev server printed no warnings', () => assert(devWarnings.length === 0, devWarnings.join('\n')));

  await check('no page errors and no 404s', async () => {
    const missing = requests().filter((r) => r.status !== 200).map((r) => `${r.status} ${r.path}`);
    assert(pageErrors.length === 0 && missing.length === 0, [...pageErrors, ...missing].join('\n'));
  });
}

export default defineSuite(import.meta, {
  checks,
  async run(e, b) {
    [engine, browser] = [e, b];
    try {
      await suite();
    } finally {
      await session?.close();
      session = undefined;
    }
  },
  close: () => server.close(),
});
