#!/usr/bin/env node
// Every framework a user brings: the packed tarball in fixture apps built with
// the real tools, pinned in this directory's package-lock.json — webpack 5, esbuild, Rollup
// (+ @rollup/plugin-node-resolve), Parcel 2, a plain <script type="module"> page (the README's import
// map), and Next.js (app router) built with Turbopack and with `--webpack`, served by
// `next start`, and also run under `next dev` — each as the package README's recipe says
// (build.mjs: esbuild and Rollup with its copy line, Parcel with its defaults).
// Chromium only: the engines' differences are the other suites' subject (tests/vite and
// tests/isolate run in all three), this one is about the tools.
//
// The tools are installed with `npm ci` when package-lock.json changed (a stamp in
// node_modules), so a warm run installs nothing; the tarball is unpacked into
// node_modules/embedded-wallet-kit, as npm would install it. The fixtures build side by side
// (build.mjs, one process each), then one strict emulator serves the static builds (its
// --static-dir, whose /backend adds the API credentials) and is the wallet API behind the
// Next apps' backend route and an Express server's backend in front of the plain page
// (the package README's route handler and Express handler, taken from the README).
//
// Checks: each build succeeds; no file a browser loads holds the build machine's path; in
// Chromium each page logs in by email code against the strict emulator and stamps,
// same-thread and isolated (init({ isolate: 'worker' })), and the stamp verifies in Node
// (@noble/curves + node:crypto); without the README's copy line an esbuild page's init()
// names it, same-thread and isolated; Next renders a server component that imports the main, signing and React
// entries (the provider rendered on the server), a Node route calls init() and makes a
// key, an edge route (Turbopack build) imports the three entries.
//
// Usage: node tests/browser.mjs frameworks [path/to/embedded-wallet-kit-x.y.z.tgz]
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, renameSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { BASIC, emulatorApi, startEmulator, ROOT } from '../support/emulator.mjs';
import { checkStamp } from '../support/fixtures.mjs';
import { defineSuite, suiteChecks } from '../support/suite.mjs';
import { findTarball } from '../support/tarball.mjs';
import { readmeBlock } from './readme-code.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));
const outRoot = join(here, 'out');
const PAYLOAD = '{"amount":"12.34","memo":"café ☕"}';
/** The static fixtures (served by the emulator), and the Next apps. */
const STATIC = ['webpack', 'esbuild', 'rollup', 'parcel', 'plain'];
const NEXT = ['next-turbopack', 'next-webpack'];

let engine;
const checks = suiteChecks(() => (engine ? `[${engine}] ` : ''));
const { check, assert } = checks;
const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;
const t0 = Date.now();

// ---- the tools: npm ci when the lock changed --------------------------------------------
// Their environment has no NODE_ENV: Vite's build API, which the vite and react suites run
// in this process first, sets it to production, and npm ci would then skip every
// devDependency here (and next dev would not be a dev server).
const toolEnv = { ...process.env, NEXT_TELEMETRY_DISABLED: '1' };
delete toolEnv.NODE_ENV;
const lockHash = createHash('sha256').update(readFileSync(join(here, 'package-lock.json'))).digest('hex');
const stamp = join(here, 'node_modules', '.ewk-lock-sha256');
if (!existsSync(stamp) || readFileSync(stamp, 'utf8') !== lockHash) {
  const started = Date.now();
  execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: here, stdio: ['ignore', 'inherit', 'inherit'], env: toolEnv });
  writeFileSync(stamp, lockHash);
  console.log(`# npm ci (the lock changed): ${seconds(Date.now() - started)}`);
}

// ---- the kit, as npm installs it ----------------------------------------------------------
const tarball = findTarball();
console.log(`# tarball ${tarball}`);
{
  const unpacked = mkdtempSync(join(tmpdir(), 'ewk-frameworks-'));
  execFileSync('tar', ['-xzf', tarball, '-C', unpacked]);
  const kitDir = join(here, 'node_modules', 'embedded-wallet-kit');
  rmSync(kitDir, { recursive: true, force: true });
  renameSync(join(unpacked, 'package'), kitDir);
  rmSync(unpacked, { recursive: true, force: true });
}

// ---- the builds, side by side ---------------------------------------------------------------
const FIXTURES = [...NEXT, 'webpack', 'parcel', 'rollup', 'esbuild', 'esbuild-uncopied', 'plain'];
// The tools' caches (Parcel's, .next/cache) take a package's files as unchanged while its
// name, version and file times are (npm packs every file with one fixed time): a new
// tarball starts from clean outputs; the same tarball again builds warm.
const tarballHash = createHash('sha256').update(readFileSync(tarball)).digest('hex');
const builtFrom = join(outRoot, '.tarball-sha256');
if (!existsSync(builtFrom) || readFileSync(builtFrom, 'utf8') !== tarballHash) rmSync(outRoot, { recursive: true, force: true });
mkdirSync(outRoot, { recursive: true });
writeFileSync(builtFrom, tarballHash);
const builds = Object.fromEntries(await Promise.all(FIXTURES.map((name) => new Promise((resolve) => {
  const started = Date.now();
  const child = spawn(process.execPath, [join(here, 'build.mjs'), name], {
    cwd: here, stdio: ['ignore', 'pipe', 'pipe'], env: toolEnv,
  });
  let log = '';
  child.stdout.on('data', (d) => { log += d; });
  child.stderr.on('data', (d) => { log += d; });
  child.on('close', (code) => resolve([name, { ok: code === 0, log, ms: Date.now() - started }]));
}))));
console.log(`# builds (side by side): ${FIXTURES.map((n) => `${n} ${seconds(builds[n].ms)}`).join(', ')}; ${seconds(Date.now() - t0)} since start`);
for (const name of FIXTURES) {
  await check(`${name}: the build succeeds`, () => assert(builds[name].ok, builds[name].log.split('\n').slice(-40).join('\n')));
}

/** Every file under `dir` (recursively). */
const filesUnder = (dir) => (existsSync(dir) ? readdirSync(dir, { recursive: true, withFileTypes: true }) : [])
  .filter((d) => d.isFile()).map((d) => join(d.parentPath ?? d.path, d.name));
await check('no file a browser loads holds the build machine\'s path (the checkout, as a path or a file: URL)', () => {
  const found = [];
  for (const name of [...STATIC, 'esbuild-uncopied', ...NEXT]) {
    const dir = NEXT.includes(name) ? join(outRoot, name, '.next', 'static') : join(outRoot, name);
    for (const file of filesUnder(dir).filter((f) => /\.(js|mjs|html|css|json)$/.test(f))) {
      const text = readFileSync(file, 'utf8');
      if (text.includes(ROOT)) found.push(`${relative(outRoot, file)}: …${text.slice(text.indexOf(ROOT) - 60, text.indexOf(ROOT) + 80)}…`);
    }
  }
  assert(found.length === 0, found.join('\n'));
});

// ---- the servers: one emulator; next start for each Next build; next dev ------------------
const { proc: emulator, origin } = await startEmulator(['--static-dir', outRoot]);
const api = emulatorApi(origin);
const [token, secret] = Buffer.from(BASIC.slice('Basic '.length), 'base64').toString().split(':');
const children = [];

async function freePort() {
  const srv = createServer();
  await new Promise((r) => srv.listen(0, 'localhost', r));
  const { port } = srv.address();
  await new Promise((r) => srv.close(r));
  return port;
}

/** `next <command>` in out/<dir>, resolved once it answers; its output kept for failures. */
async function startNext(dir, command) {
  const port = await freePort();
  const child = spawn(process.execPath, [join(here, 'node_modules', 'next', 'dist', 'bin', 'next'), command, '-p', String(port), '-H', 'localhost'], {
    cwd: join(outRoot, dir), stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...toolEnv, WALLET_API_URL: origin, WALLET_API_TOKEN: token, WALLET_API_SECRET: secret },
  });
  children.push(child);
  const server = { origin: `http://localhost:${port}`, log: '' };
  child.stdout.on('data', (d) => { server.log += d; });
  child.stderr.on('data', (d) => { server.log += d; });
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      await fetch(server.origin, { method: 'HEAD' });
      return server;
    } catch {
      if (Date.now() > deadline || child.exitCode !== null) throw new Error(`next ${command} in ${dir} did not start:\n${server.log}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

const nextServers = {};
for (const name of NEXT.filter((n) => builds[n].ok)) {
  try {
    nextServers[name] = await startNext(name, 'start');
  } catch (err) {
    checks.fail(`${name}: next start: ${err.message}`);
  }
}
// next dev over a copy of the Turbopack app's sources (its own .next).
try {
  execFileSync(process.execPath, [join(here, 'build.mjs'), 'next-dev'], { cwd: here, stdio: 'inherit', env: toolEnv });
  nextServers['next-dev'] = await startNext('next-dev', 'dev');
} catch (err) {
  checks.fail(`next dev: ${err.message}`);
}

for (const [name, server] of Object.entries(nextServers)) {
  await check(`${name}: the server component imports the main, signing and React entries; the provider renders on the server (a loading state)`, async () => {
    const res = await fetch(server.origin);
    const html = await res.text();
    assert(res.status === 200, `GET /: HTTP ${res.status}\n${html.slice(0, 2000)}\n${server.log.slice(-3000)}`);
    assert(html.includes('<p id="server-imports">function function function function</p>'), `no server imports in ${html.slice(0, 2000)}`);
    assert(html.includes('<p id="provider-status">idle</p>'), `provider status: ${/provider-status">[^<]*/.exec(html)?.[0]}`);
  });
  await check(`${name}: a Node route calls init() and makes a key`, async () => {
    const res = await fetch(`${server.origin}/api/key`);
    const text = await res.text();
    assert(res.status === 200 && /^04[0-9a-f]{128}$/.test(JSON.parse(text).publicKeyHex), `HTTP ${res.status} ${text.slice(0, 500)}`);
  });
  if (name !== 'next-webpack') {
    await check(`${name}: an edge route imports the main, signing and React entries`, async () => {
      const res = await fetch(`${server.origin}/api/edge`);
      const text = await res.text();
      assert(res.status === 200 && text === '{"imported":["function","function","function"]}', `HTTP ${res.status} ${text.slice(0, 500)}`);
    });
  }
}

// The plain page again, served by Express with the README's Express handler as its backend.
let expressServer;
try {
  Object.assign(process.env, { WALLET_API_URL: origin, WALLET_API_TOKEN: token, WALLET_API_SECRET: secret });
  const handlerFile = join(outRoot, 'express-backend.mjs');
  writeFileSync(handlerFile, await readmeBlock('// backend.ts — an Express handler: the transport calls /backend/<API path>'));
  const { walletProxy } = await import(pathToFileURL(handlerFile).href);
  const { default: express } = await import('express');
  const app = express();
  app.use('/backend', express.text({ type: '*/*' }), walletProxy);
  app.use('/vendor', express.static(join(outRoot, 'vendor')));
  app.use(express.static(join(outRoot, 'plain')));
  expressServer = await new Promise((resolve) => {
    const s = app.listen(0, 'localhost', () => resolve(s));
  });
} catch (err) {
  checks.fail(`the README's Express handler: ${err?.stack ?? err}`);
}

/** The pages each engine run drives: [label, url]. */
const pages = [
  ...STATIC.filter((n) => builds[n].ok).map((n) => [n, `${origin}/${n}/`]),
  ...(expressServer && builds.plain.ok ? [['plain (Express backend)', `http://localhost:${expressServer.address().port}/`]] : []),
  ...Object.entries(nextServers).map(([n, s]) => [n, `${s.origin}/`]),
];

async function drive(browser, url) {
  const context = await browser.newContext();
  const errors = [];
  try {
    const page = await context.newPage();
    page.on('pageerror', (err) => errors.push(err.message));
    page.on('response', (r) => {
      if (r.status() >= 400) errors.push(`HTTP ${r.status()} ${r.url()}`);
    });
    await page.exposeFunction('fwEmulator', async (method, path, body) => (await api.call(method, `/emulator${path}`, body)).body);
    await page.goto(url);
    await page.waitForFunction(() => window.fwState?.done === true, null, { timeout: 60_000 }).catch((err) => {
      throw new Error(`${err.message}\n${errors.join('\n')}`);
    });
    return { state: await page.evaluate(() => window.fwState), errors };
  } finally {
    await context.close();
  }
}

async function suite(browser) {
  for (const [name, url] of pages) {
    for (const isolate of [false, true]) {
      const mode = isolate ? 'isolated' : 'same-thread';
      await check(`${name}: ${mode}: logs in by email code against the strict emulator and stamps; the stamp verifies in Node`, async () => {
        const started = Date.now();
        const { state, errors } = await drive(browser, isolate ? `${url}?isolate=worker` : url);
        assert(state.error === null && state.mode === mode, `${state.mode}: ${state.error}\n${errors.join('\n')}`);
        const c = checkStamp(state.stamp, PAYLOAD, state.publicKeyHex);
        assert(c.ok, JSON.stringify(c));
        assert(/^Session:/.test(state.sessionId), state.sessionId);
        assert(errors.length === 0, errors.join('\n'));
        console.log(`# ${name} ${mode}: ${seconds(Date.now() - started)}`);
      });
    }
  }
  if (builds['esbuild-uncopied'].ok) {
    for (const isolate of [false, true]) {
      const mode = isolate ? 'isolated' : 'same-thread';
      await check(`esbuild without the README's copy line: ${mode}: init() rejects NOT_INITIALIZED naming the copy`, async () => {
        const { state } = await drive(browser, `${origin}/esbuild-uncopied/${isolate ? '?isolate=worker' : ''}`);
        assert(state.mode === mode && /^KitError NOT_INITIALIZED: /.test(state.error ?? ''), `${state.mode}: ${state.error}`);
        assert(/copy the package's \.wasm and \.js files next to the bundle/.test(state.error), state.error);
      });
    }
  }
}

export default defineSuite(import.meta, {
  checks,
  async run(e, browser) {
    engine = e;
    if (e !== 'chromium') {
      console.log(`# frameworks runs in Chromium only (not ${e})`);
      return;
    }
    await suite(browser);
    console.log(`# frameworks: ${seconds(Date.now() - t0)} since start`);
  },
  async close() {
    for (const child of children) child.kill();
    expressServer?.close();
    emulator.kill();
  },
});
