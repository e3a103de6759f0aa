#!/usr/bin/env node
// End to end: the packed tarball, installed into a Vite app, built with Vite, served from
// a local static server and driven in headless Chromium (Debian's, via playwright-core).
// Node seals a session key to the page's ClientKey with @turnkey/crypto; the page opens
// it and stamps; Node verifies the stamp with @noble/curves. Also checks that the passkey
// module is a separate chunk loaded by init({ passkeys: true }). Then the isolated signer,
// init({ isolate: 'worker' }), in the same build (Vite's default worker config): the signer
// Worker and its .wasm are emitted as assets, the Worker's stamps verify in Node, and the
// page's own realm never fetches or instantiates the signing .wasm. `vite build` must
// print no warning. (The plain demo page is driven against the emulator by
// tests/e2e/run.mjs.) Prints "N passed, N failed"; exits non-zero on failure.
//
// Usage: node tests/vite/run.mjs [path/to/embedded-wallet-kit-x.y.z.tgz]
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, createLogger } from 'vite';
import { chromium } from 'playwright-core';
import { serveStatic } from '../../scripts/serve.mjs';
import { sessionResponse, pending202, randomScalar, compressedPublicKeyHex, sealBundle, checkStamp } from '../support/fixtures.mjs';
import { launchChromium } from '../support/chromium.mjs';
import { createChecks } from '../support/checks.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));
const root = resolve(here, '../..');

const { check, assert, fail, finish } = createChecks();
function sh(cmd, args, cwd) {
  execFileSync(cmd, args, { cwd, stdio: ['ignore', 'inherit', 'inherit'] });
}

function findTarball() {
  if (process.argv[2]) return resolve(process.argv[2]);
  const dist = join(root, 'dist');
  const candidates = existsSync(dist)
    ? readdirSync(dist).filter((f) => /^embedded-wallet-kit-.*\.tgz$/.test(f)).map((f) => join(dist, f))
    : [];
  if (candidates.length === 0) {
    assert(existsSync(join(root, 'pkg', 'package.json')), 'no tarball and no pkg/: run `make build` first');
    sh('npm', ['pack', './pkg', '--pack-destination', 'dist', '--loglevel=error'], root);
    return findTarball();
  }
  return candidates.sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0];
}

const tarball = findTarball();
console.log(`# tarball ${tarball}`);

// Install the tarball into the Vite app (not saved anywhere), then build.
rmSync(join(here, 'node_modules'), { recursive: true, force: true });
sh('npm', ['install', '--no-save', '--no-package-lock', '--no-audit', '--no-fund', '--loglevel=error', tarball], here);
const outDir = join(here, 'dist');
// Vite's defaults, as an app author gets them (no worker or wasm config); the logger only
// records what `vite build` warns about.
const buildWarnings = [];
const logger = createLogger('warn');
for (const level of ['warn', 'warnOnce', 'error']) {
  const print = logger[level].bind(logger);
  logger[level] = (msg, opts) => {
    buildWarnings.push(`${level}: ${msg}`);
    print(msg, opts);
  };
}
await build({ root: here, configFile: false, logLevel: 'warn', customLogger: logger, build: { outDir, emptyOutDir: true } });
const assets = readdirSync(join(outDir, 'assets'));
console.log(`# vite output: ${assets.join(', ')}`);

const server = await serveStatic({ '/': outDir });
const base = `http://localhost:${server.port}`;
let browser;
try {
  browser = await launchChromium(chromium);
  const page = await browser.newPage();
  const pageErrors = [];
  page.on('pageerror', (err) => pageErrors.push(err.message));
  page.on('console', (msg) => {
    if (msg.type() === 'error') pageErrors.push(`console: ${msg.text()}`);
  });

  await check('vite build emitted the .wasm as an asset', () => {
    assert(assets.some((a) => a.endsWith('.wasm')), `no .wasm in ${assets.join(', ')}`);
  });
  await check('vite build printed no warnings', () => assert(buildWarnings.length === 0, buildWarnings.join('\n')));
  await check('vite build emitted the passkey module as its own chunk plus its .wasm', () => {
    assert(assets.some((a) => /^embedded_wallet_kit_passkey_bg-.*\.wasm$/.test(a)), `no passkey .wasm in ${assets.join(', ')}`);
    assert(assets.some((a) => /^embedded_wallet_kit_passkey-.*\.js$/.test(a)), `no passkey chunk in ${assets.join(', ')}`);
  });

  await page.goto(`${base}/`);
  await page.waitForFunction(() => window.kitState?.done === true, null, { timeout: 30_000 });
  const state = await page.evaluate(() => window.kitState);

  await check('init() resolves in the Vite-built page', () => assert(state.error === null, `init failed: ${state.error}`));
  await check('before init a call throws KitError NOT_INITIALIZED', () =>
    assert(state.preInitCode === 'NOT_INITIALIZED', `got ${state.preInitCode}`));
  await check('concurrent init() calls share one promise', () => assert(state.sameInitPromise === true, 'different promises'));
  await check('the .wasm was fetched once, as application/wasm', () => {
    const wasm = server.requests.filter((r) => r.path.endsWith('.wasm'));
    assert(wasm.length === 1, `wasm requests: ${JSON.stringify(wasm)}`);
    assert(wasm[0].status === 200 && wasm[0].type === 'application/wasm', JSON.stringify(wasm[0]));
  });
  await check('init() alone did not fetch the passkey module', () => {
    const passkeyFiles = server.requests.filter((r) => r.path.includes('embedded_wallet_kit_passkey'));
    assert(passkeyFiles.length === 0, `fetched: ${passkeyFiles.map((r) => r.path).join(', ')}`);
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
    const { init, passkey, KitError } = window.kit;
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
      return { before, supported: passkey.isSupported(), bad };
    } catch (err) {
      return { before, error: `${err?.code ?? err?.name}: ${err?.message}` };
    }
  });
  await check('init({ passkeys: true }) in the Vite page loads the passkey chunk; passkey.isSupported() is a boolean; its errors are the KitError', () => {
    assert(pk.before === 'NOT_INITIALIZED', `before: ${pk.before}`);
    assert(pk.error === undefined, pk.error);
    assert(typeof pk.supported === 'boolean', JSON.stringify(pk));
    assert(pk.bad === 'INVALID_INPUT', `passkey.register({}) in the Vite page: ${pk.bad}`);
    const wasm = server.requests.filter((r) => /embedded_wallet_kit_passkey_bg-.*\.wasm$/.test(r.path));
    assert(wasm.length === 1 && wasm[0].type === 'application/wasm', JSON.stringify(wasm));
  });

  // ---- the isolated signer: init({ isolate: 'worker' }) in the same Vite build -------------
  const pkgWasm = readFileSync(join(here, 'node_modules', 'embedded-wallet-kit', 'embedded_wallet_kit_bg.wasm'));
  const workerAsset = assets.find((a) => /^signer-worker-.*\.js$/.test(a));
  await check('vite build emitted the signer Worker as its own asset, started by URL from the page chunk', () => {
    assert(workerAsset !== undefined, `no signer-worker-*.js in ${assets.join(', ')}`);
    const startsIt = assets.filter((a) => a.endsWith('.js') && a !== workerAsset)
      .filter((a) => readFileSync(join(outDir, 'assets', a), 'utf8').includes(`/assets/${workerAsset}`));
    assert(startsIt.length === 1, `chunks naming /assets/${workerAsset}: ${startsIt.join(', ') || 'none'}`);
  });
  await check('the Worker bundle loads an emitted .wasm that is the package\'s signing module', () => {
    const code = readFileSync(join(outDir, 'assets', workerAsset), 'utf8');
    const named = [...new Set(code.match(/[\w.-]+\.wasm/g) ?? [])];
    assert(named.length === 1, `.wasm names in the Worker bundle: ${named.join(', ') || 'none'}`);
    assert(assets.includes(named[0]), `${named[0]} is not among the emitted assets`);
    assert(readFileSync(join(outDir, 'assets', named[0])).equals(pkgWasm), `${named[0]} is not embedded_wallet_kit_bg.wasm`);
  });

  // A fresh context: nothing cached, and this page's requests counted on their own.
  const isoContext = await browser.newContext();
  // Counts, in the page's own realm only, every way to compile or instantiate wasm.
  await isoContext.addInitScript(() => {
    window.pageRealmWasm = [];
    for (const name of ['instantiate', 'instantiateStreaming', 'compile', 'compileStreaming']) {
      const original = WebAssembly[name];
      WebAssembly[name] = function (...args) {
        window.pageRealmWasm.push(name);
        return Reflect.apply(original, this, args);
      };
    }
  });
  const iso = await isoContext.newPage();
  iso.on('pageerror', (err) => pageErrors.push(`isolated page: ${err.message}`));
  iso.on('console', (msg) => {
    if (msg.type() === 'error') pageErrors.push(`isolated page console: ${msg.text()}`);
  });
  const workers = [];
  iso.on('worker', (w) => workers.push(new URL(w.url()).pathname));
  const firstIsoRequest = server.requests.length;
  await iso.goto(`${base}/?isolate=worker`);
  await iso.waitForFunction(() => window.kitState?.done === true, null, { timeout: 30_000 });
  const isoState = await iso.evaluate(() => window.kitState);

  await check('init({ isolate: \'worker\' }) resolves in the Vite-built page (default Vite config)', () => {
    assert(isoState.isolated === true, 'the page did not take the isolated path');
    assert(isoState.error === null, `init({ isolate: 'worker' }) failed: ${isoState.error}`);
    assert(isoState.sameIsolatedKit === true, 'concurrent init({ isolate }) calls resolved to different objects');
    assert(/^04[0-9a-f]{128}$/.test(isoState.publicKeyHex ?? ''), `ClientKey.generate in the Worker: ${isoState.publicKeyHex}`);
  });
  await check('the signer Worker ran from the emitted asset', () =>
    assert(workers.length === 1 && workers[0] === `/assets/${workerAsset}`, `workers: ${workers.join(', ') || 'none'}`));

  const isoKey = await iso.evaluate(async () => {
    window.__key = await window.kit.isolated.ClientKey.generate();
    return window.__key.publicKeyHex;
  });
  const isoScalar = randomScalar();
  const isoPub = compressedPublicKeyHex(isoScalar);
  const isoResponse = sessionResponse({ bundle: sealBundle(isoScalar, isoKey) });
  const isoP202 = pending202();
  const ir = await iso.evaluate(async ({ response, payload, p202 }) => {
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
  }, { response: isoResponse, payload, p202: isoP202 });

  await check('isolated Session.open opens the @turnkey/crypto bundle to the expected key', () => {
    assert(ir.publicKeyHex === isoPub, `${ir.publicKeyHex} != ${isoPub}`);
    assert(ir.id === isoResponse.id, 'id');
  });
  await check('the isolated stamp verifies in Node (@noble/curves + node:crypto)', () => {
    assert(checkStamp(ir.stamp, payload, isoPub).ok, JSON.stringify(checkStamp(ir.stamp, payload, isoPub)));
    assert(!checkStamp(ir.stamp, `${payload}x`, isoPub).ok, 'a different payload must not verify');
  });
  await check('isolated signRetry: exact headers, verifying signature', () => {
    assert(JSON.stringify(Object.keys(ir.retry)) === JSON.stringify(['Service-Wallet-Signature', 'Request-Id']), Object.keys(ir.retry).join());
    assert(ir.retry['Request-Id'] === isoP202.requestId, 'Request-Id');
    assert(checkStamp(ir.retry['Service-Wallet-Signature'], isoP202.payloadToSign, isoPub).ok, 'signature');
  });
  await check('an error from the Worker is the package KitError in the page (INVALID_BUNDLE); after terminate() SESSION_CLOSED', () => {
    assert(ir.bad.kit && ir.bad.code === 'INVALID_BUNDLE', JSON.stringify(ir.bad));
    assert(ir.afterTerminate === 'SESSION_CLOSED', ir.afterTerminate);
  });
  await check('isolated: the page realm never fetched or instantiated the signing .wasm; the Worker fetched it once', async () => {
    const inPage = await iso.evaluate(() => ({
      wasmCalls: window.pageRealmWasm,
      wasmResources: performance.getEntriesByType('resource').map((e) => e.name).filter((n) => n.includes('.wasm')),
    }));
    assert(inPage.wasmCalls.length === 0, `page realm called WebAssembly.${inPage.wasmCalls.join(', WebAssembly.')}`);
    assert(inPage.wasmResources.length === 0, `page realm fetched ${inPage.wasmResources.join(', ')}`);
    assert(isoState.preInitCode === 'NOT_INITIALIZED' && isoState.sameThreadCodeAfterInit === 'NOT_INITIALIZED',
      `same-thread ClientKey.generate before/after init({ isolate }): ${isoState.preInitCode}/${isoState.sameThreadCodeAfterInit}`);
    const wasm = server.requests.slice(firstIsoRequest).filter((r) => r.path.endsWith('.wasm'));
    assert(wasm.length === 1 && /^\/assets\/embedded_wallet_kit_bg-.*\.wasm$/.test(wasm[0].path) && wasm[0].type === 'application/wasm',
      `wasm requests: ${JSON.stringify(wasm)}`);
  });
  await isoContext.close();

  await check('no page errors and no 404s', () => {
    const missing = server.requests.filter((r) => r.status !== 200).map((r) => `${r.status} ${r.path}`);
    assert(pageErrors.length === 0 && missing.length === 0, [...pageErrors, ...missing].join('\n'));
  });
} catch (err) {
  fail(`e2e driver: ${err?.stack ?? err}`);
} finally {
  await browser?.close();
  await server.close();
}

finish();
