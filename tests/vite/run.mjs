#!/usr/bin/env node
// End to end: the packed tarball, installed into a Vite app, built with Vite, served from
// a local static server and driven in headless Chromium (Debian's, via playwright-core).
// Node seals a session key to the page's ClientKey with @turnkey/crypto; the page opens
// it and stamps; Node verifies the stamp with @noble/curves. Also checks that the passkey
// module is a separate chunk loaded by init({ passkeys: true }). (The plain demo page is
// driven against the emulator by tests/e2e/run.mjs.) Prints "N passed, N failed"; exits non-zero on failure.
//
// Usage: node tests/vite/run.mjs [path/to/embedded-wallet-kit-x.y.z.tgz]
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';
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
await build({ root: here, configFile: false, logLevel: 'warn', build: { outDir, emptyOutDir: true } });
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
