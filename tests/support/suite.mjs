// What every browser suite (tests/<name>/run.mjs) shares: where the package is, its checks
// named after the engine they run in, and the shape the runner (tests/browser.mjs) drives.
// A suite module sets up its servers when it is imported and ends with
//   export default defineSuite(import.meta, { checks, run: (engine, browser) => …, close });
// The runner calls run() once per engine, never two at once, with that engine's shared
// browser (launched once for every suite; tests/support/engines.mjs), then close().
// Running the module itself (node tests/<name>/run.mjs [--engine …]) is the runner with
// that one suite.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { serveStatic } from '../../scripts/serve.mjs';
import { createChecks } from './checks.mjs';
import { startEmulator } from './emulator.mjs';
import { collectPageErrors } from './engines.mjs';
import { checkStamp } from './fixtures.mjs';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const PKG_DIR = join(ROOT, 'pkg');

export const json = (v) => JSON.stringify(v);
export const hex = (bytes) => Buffer.from(bytes).toString('hex');

/** Throws unless pkg/ holds every one of `files` (paths relative to pkg/). */
export function requirePkg(...files) {
  const missing = files.filter((f) => !existsSync(join(PKG_DIR, f)));
  if (missing.length > 0) throw new Error(`pkg/ is missing or has no ${missing.join(', ')}: run \`make build\` first`);
}

/**
 * createChecks() (tests/support/checks.mjs) whose `check` prefixes each name with
 * `label()`, e.g. `() => \`[${engine}] \``; `checkIn` is the unprefixed one.
 */
export function suiteChecks(label) {
  const checks = createChecks();
  return { ...checks, checkIn: checks.check, check: (name, fn) => checks.check(`${label()}${name}`, fn) };
}

/**
 * A suite's page directory `dir` at / and pkg/ at /pkg/ (plus `routes`) served on localhost
 * twice: by a static server (`server`, at `origin`) and by the strict emulator (`emulator`,
 * { proc, origin }), whose /backend adds the API credentials for the page's WalletClient.
 */
export async function servePageAndEmulator(dir, routes = {}) {
  const server = await serveStatic({ '/': dir, '/pkg/': PKG_DIR, ...routes });
  const origin = `http://localhost:${server.port}`;
  console.log(`# serving ${origin}`);
  const emulator = await startEmulator(['--static-dir', dir, '--pkg-dir', PKG_DIR, '--quiet']);
  return { server, origin, emulator };
}

/**
 * Runs `fn(arg)` in `page` as an attempt (the page's window.attempt: { ok, value } or
 * { ok: false, error }, never rejects); `fn` closes over nothing, it is sent as source.
 */
export function attemptIn(page, fn, arg) {
  // eslint-disable-next-line no-undef -- runs in the page
  return page.evaluate(({ src, arg }) => window.attempt(() => (0, eval)(src)(arg)), { src: `(${fn})`, arg });
}

/** An attempt's value (window.attempt in the pages: { ok, value } or { ok: false, error }). */
export function expectOk(r, what) {
  if (!r.ok) throw new Error(`${what} failed: ${json(r.error)}`);
  return r.value;
}

/** Throws unless `stamp` verifies over `payload` (both verifiers of checkStamp). */
export function expectStamp(stamp, payload, publicKeyHex) {
  const c = checkStamp(stamp, payload, publicKeyHex);
  if (!c.ok) throw new Error(`stamp does not verify: ${json(c)}`);
}

/**
 * A fresh page whose errors land in `pageErrors`: in Chromium a Playwright page (its own
 * context) with its page errors and console errors, elsewhere a WebDriver session whose
 * page records its own (collectPageErrors).
 */
export async function pageWithErrors(engine, browser, pageErrors) {
  if (engine !== 'chromium') return collectPageErrors(await browser.newPage(), pageErrors);
  const page = await browser.newPage();
  page.on('pageerror', (err) => pageErrors.push(err.message));
  page.on('console', (msg) => {
    if (msg.type() === 'error') pageErrors.push(`console: ${msg.text()}`);
  });
  return page;
}

/**
 * A suite for the runner: `checks` (from suiteChecks or createChecks), `run(engine,
 * browser)` for one engine (a throw fails the suite in that engine; the runner closes
 * what the run left open in the shared browser) and `close()` after the last engine.
 */
export function defineSuite(meta, { checks, run, close = async () => {} }) {
  const name = fileURLToPath(new URL('.', meta.url)).split('/').filter(Boolean).pop();
  const suite = { name, checks, run, close };
  if (process.argv[1] && pathToFileURL(resolve(process.argv[1])).href === meta.url) {
    setImmediate(async () => {
      const { runSuites } = await import('../browser.mjs');
      await runSuites([name, ...process.argv.slice(2)]);
    });
  }
  return suite;
}
