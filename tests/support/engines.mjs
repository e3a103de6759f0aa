// The three browser engines the browser suites run in, behind one small page interface:
//   chromium  Debian's Chromium through playwright-core (CDP)         — see chromium.mjs
//   firefox   Firefox ESR through geckodriver (classic W3C WebDriver)
//   webkit    WebKitGTK's MiniBrowser through WebKitWebDriver, on an Xvfb display this
//             module starts (WebKitGTK has no headless mode: without a display the
//             new-session request never returns)
// The W3C client is hand-rolled over fetch (a dozen endpoints; no driver library needed).
// Every process is started in its own process group and killed as a group on close or
// exit; every request has a deadline, so a wedged driver fails a run instead of hanging it.
/* global document, getComputedStyle -- in the functions the element helpers run in the page */
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { chromium as playwrightChromium } from 'playwright-core';
import { launchChromium } from './chromium.mjs';

export const ENGINES = ['chromium', 'firefox', 'webkit'];
const FIREFOX = '/usr/bin/firefox-esr';
const GECKODRIVER = process.env.GECKODRIVER ?? 'geckodriver';
const WEBKIT_DRIVER = '/usr/bin/WebKitWebDriver';
const MINIBROWSER = '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser';
/**
 * Without these the WebDriver virtual authenticator is ignored: Firefox waits for a USB
 * token and the ceremony ends in NotAllowedError.
 */
const FIREFOX_WEBAUTHN_PREFS = {
  'security.webauth.webauthn_enable_softtoken': true,
  'security.webauth.webauthn_enable_usbtoken': false,
};
/**
 * The other way round: no virtual authenticator, Firefox waits for a USB token that never
 * comes, a ceremony the user never completes (the W3C authenticator has no "presence not
 * simulated" mode: isUserConsenting: false refuses at once).
 */
export const FIREFOX_WAIT_FOR_USB_PREFS = {
  'security.webauth.webauthn_enable_softtoken': false,
  'security.webauth.webauthn_enable_usbtoken': true,
};
/** Quiet Firefox: no update checks, telemetry or remote settings on this closed network. */
const FIREFOX_QUIET_PREFS = {
  'app.update.enabled': false,
  'browser.shell.checkDefaultBrowser': false,
  'datareporting.policy.dataSubmissionEnabled': false,
  'toolkit.telemetry.enabled': false,
  'network.captive-portal-service.enabled': false,
  'network.connectivity-service.enabled': false,
  'browser.safebrowsing.update.enabled': false,
  'extensions.update.enabled': false,
};

/** Engines from argv (`--engine firefox`, repeatable, or `--engine all`), else all three. */
export function enginesFromArgs(argv = process.argv.slice(2)) {
  const picked = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = a === '--engine' ? argv[++i] : a.startsWith('--engine=') ? a.slice(9) : null;
    if (value === null) continue;
    for (const e of value.split(',')) {
      if (e === 'all') picked.push(...ENGINES);
      else if (ENGINES.includes(e)) picked.push(e);
      else throw new Error(`unknown engine ${e} (one of ${ENGINES.join(', ')}, all)`);
    }
  }
  return picked.length ? [...new Set(picked)] : [...ENGINES];
}

// ---- processes ----------------------------------------------------------------------

const live = new Set();
process.on('exit', () => {
  for (const child of live) signalGroup(child.pid, 'SIGKILL');
});

/** Signals a whole process group (the driver, the browser it started, their helpers). */
function signalGroup(pid, signal) {
  try {
    process.kill(-pid, signal);
  } catch {
    // the group is gone
  }
}

function groupAlive(pid) {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Spawns a process in its own group; its stderr is kept (last 8 kB) for error messages. */
function start(command, args, options = {}) {
  const child = spawn(command, args, { detached: true, stdio: ['ignore', 'ignore', 'pipe'], ...options });
  child.log = '';
  child.stderr?.on('data', (d) => { child.log = (child.log + d).slice(-8192); });
  // A missing binary: recorded (waitForDriver reports it) instead of crashing the run.
  child.on('error', (e) => { child.spawnError = e; });
  live.add(child);
  return child;
}

/**
 * Ends a process group: SIGTERM, SIGKILL after `graceMs`; throws if anything in it
 * survives, so that a suite leaving browsers behind fails instead of piling them up.
 */
async function stop(child, graceMs = 3_000) {
  if (!child?.pid) {
    if (child) live.delete(child);
    return;
  }
  const { pid } = child;
  const waitGone = async (ms) => {
    const deadline = Date.now() + ms;
    while (groupAlive(pid) && Date.now() < deadline) await sleep(50);
    return !groupAlive(pid);
  };
  signalGroup(pid, 'SIGTERM');
  if (!await waitGone(graceMs)) {
    signalGroup(pid, 'SIGKILL');
    if (!await waitGone(5_000)) throw new Error(`process group ${pid} (${child.spawnfile}) survived SIGKILL`);
  }
  live.delete(child);
}

async function freePort() {
  const srv = createServer();
  await new Promise((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address();
  await new Promise((r) => srv.close(r));
  return port;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Starts Xvfb on a free display (-displayfd: it writes the number it took). */
async function startXvfb(timeoutMs = 10_000) {
  const child = spawn('Xvfb', ['-displayfd', '3', '-screen', '0', '1280x1024x24', '-nolisten', 'tcp'],
    { detached: true, stdio: ['ignore', 'ignore', 'pipe', 'pipe'] });
  child.log = '';
  child.stderr.on('data', (d) => { child.log = (child.log + d).slice(-8192); });
  live.add(child);
  let display;
  try {
    display = await new Promise((resolve, reject) => {
      let out = '';
      const timer = setTimeout(() => reject(new Error(`Xvfb gave no display within ${timeoutMs} ms: ${child.log}`)), timeoutMs);
      child.stdio[3].on('data', (d) => {
        out += d;
        if (out.includes('\n')) {
          clearTimeout(timer);
          resolve(out.trim());
        }
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`Xvfb exited (${code}): ${child.log}`));
      });
    });
  } catch (e) {
    await stop(child);
    throw e;
  }
  return { child, display: `:${display}` };
}

// ---- a W3C WebDriver client ---------------------------------------------------------

/** A command's value; a failed one throws naming the command, the status and WebDriver's error. */
async function request(base, method, path, body, timeoutMs = 30_000) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await res.text();
  let parsed;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON: the text is the message
  }
  if (res.ok && parsed) return parsed.value;
  const value = parsed ? parsed.value : { message: text.slice(0, 500) };
  throw new Error(`${method} ${path}: ${res.status} ${value?.error ?? ''} ${value?.message ?? JSON.stringify(value)}`.trim());
}

async function waitForDriver(base, child, name, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.spawnError) throw new Error(`${name} did not start: ${child.spawnError.message} (run scripts/setup.sh)`);
    if (child.exitCode !== null) throw new Error(`${name} exited (${child.exitCode}): ${child.log}`);
    try {
      const status = await request(base, 'GET', '/status', undefined, 2_000);
      if (status?.ready !== false) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${name} did not answer /status within ${timeoutMs} ms: ${child.log}`);
    await sleep(100);
  }
}

/**
 * The in-page runner of `evaluate`, around `call` (which runs the function on `arg`):
 * resolves the async-script callback with { ok, json } or { ok: false, error } (a
 * rejection must not become a WebDriver "javascript error" that loses the message). The
 * result travels as a JSON string, because WebDriver's own serialisation reorders object
 * keys (Firefox sorts them) and turns undefined into null; undefined and non-finite
 * numbers are tagged so that they come back as they were, as with Playwright.
 */
const inPage = (call) => `
const TAG = '\u0000wd:';
const tag = (k, v) => v === undefined ? TAG + 'undefined'
  : typeof v === 'number' && !Number.isFinite(v) ? TAG + String(v) : v;
Promise.resolve()
  .then(() => ${call})
  .then((value) => done({ ok: true, json: JSON.stringify(value, tag) }),
        (e) => done({ ok: false, error: String(e) + (e && e.stack ? ' | ' + e.stack : '') }));
`;
/**
 * The function's source and its argument as script arguments, compiled by the page's own
 * eval (window.eval): geckodriver runs scripts in a sandbox with its own builtins, where
 * the page's Dates, Arrays and errors would fail `instanceof`; Playwright evaluates in the
 * page's realm too.
 */
const EVALUATE = `const [source, arg, done] = arguments;${inPage("window.eval('(' + source + ')')(arg)")}`;
/**
 * For pages whose Content-Security-Policy forbids eval (no 'unsafe-eval'): the function's
 * source is spliced into the WebDriver script itself, which the driver compiles outside
 * the page's policy (verified in Firefox ESR 153 and WebKitGTK 2.50: window.eval and, in
 * WebKitGTK, new Function inside the script are refused there and would also be reported
 * as the page's violations; the script itself is not). The price is Firefox's sandbox:
 * the page's objects are reachable, but the builtins are the sandbox's, so `instanceof
 * Date`/`Error` against the page's values is false there.
 */
const evaluateInDriver = (source) => `const [arg, done] = arguments;${inPage(`(${source})(arg)`)}`;
const TAG = '\u0000wd:';
/** The W3C key under which an element reference travels. */
const ELEMENT_KEY = 'element-6066-11e4-a52e-4f735466cecf';
const UNTAG = { undefined, NaN: NaN, Infinity: Infinity, '-Infinity': -Infinity };

function untag(v) {
  if (typeof v === 'string' && v.startsWith(TAG)) return UNTAG[v.slice(TAG.length)];
  if (Array.isArray(v)) return v.map(untag);
  if (v && typeof v === 'object') {
    for (const k of Object.keys(v)) v[k] = untag(v[k]);
  }
  return v;
}

/**
 * One browser session, with the subset of Playwright's Page the suites use (goto,
 * evaluate, waitForFunction) and the W3C virtual-authenticator commands.
 */
export class WebDriverPage {
  constructor(base, sessionId, engine) {
    this.base = base;
    this.sessionId = sessionId;
    this.engine = engine;
    this.withoutPageEval = false;
  }

  cmd(method, path, body, timeoutMs) {
    return request(this.base, method, `/session/${this.sessionId}${path}`, body, timeoutMs);
  }

  async goto(url, { timeoutMs = 30_000 } = {}) {
    await this.cmd('POST', '/url', { url }, timeoutMs + 5_000);
  }

  /**
   * Runs `fn(arg)` in the page (fn is sent as source: it must close over nothing). On a
   * page opened with `withoutPageEval` it is compiled by the driver (evaluateInDriver).
   */
  async evaluate(fn, arg = null, { timeoutMs = 60_000 } = {}) {
    const script = this.withoutPageEval
      ? { script: evaluateInDriver(String(fn)), args: [arg ?? null] }
      : { script: EVALUATE, args: [String(fn), arg ?? null] };
    const r = await this.cmd('POST', '/execute/async', script, timeoutMs + 5_000);
    if (!r?.ok) throw new Error(`evaluate in ${this.engine}: ${r?.error ?? JSON.stringify(r)}`);
    return untag(JSON.parse(r.json));
  }

  async waitForFunction(fn, arg = null, { timeout = 10_000 } = {}) {
    const deadline = Date.now() + timeout;
    for (;;) {
      let last;
      try {
        if (await this.evaluate(fn, arg, { timeoutMs: 5_000 })) return;
      } catch (e) {
        last = e;
      }
      if (Date.now() > deadline) throw new Error(`waitForFunction timed out after ${timeout} ms${last ? `: ${last.message}` : ''}`);
      await sleep(100);
    }
  }

  /** Reloads the current page (W3C Refresh). */
  async reload({ timeoutMs = 30_000 } = {}) {
    await this.cmd('POST', '/refresh', {}, timeoutMs + 5_000);
  }

  // ---- the few element helpers of Playwright's Page the suites use ----------------
  // Selectors are CSS; reads run in the page, clicks go through WebDriver's Element Click
  // (real pointer events, and the driver's "not interactable" errors), as Playwright's do.

  /** fn(element, arg) in the page for the first element matching `selector`. */
  $eval(selector, fn, arg = null) {
    return this.evaluate(`({ selector, arg }) => {
      const el = document.querySelector(selector);
      if (!el) throw new Error('no element matches ' + selector);
      return (${fn})(el, arg);
    }`, { selector, arg });
  }

  /** fn(elements, arg) in the page for every element matching `selector`. */
  $$eval(selector, fn, arg = null) {
    return this.evaluate(`({ selector, arg }) => (${fn})([...document.querySelectorAll(selector)], arg)`, { selector, arg });
  }

  textContent(selector) {
    return this.$eval(selector, (el) => el.textContent);
  }

  getAttribute(selector, name) {
    return this.$eval(selector, (el, n) => el.getAttribute(n), name);
  }

  isEnabled(selector) {
    return this.$eval(selector, (el) => !el.disabled);
  }

  isDisabled(selector) {
    return this.$eval(selector, (el) => el.disabled === true);
  }

  /** Visible as Playwright means it: a non-empty box and not visibility:hidden. */
  isVisible(selector) {
    return this.evaluate((selector) => {
      const el = document.querySelector(selector);
      if (!el) return false;
      const box = el.getBoundingClientRect();
      return box.width > 0 && box.height > 0 && getComputedStyle(el).visibility !== 'hidden';
    }, selector);
  }

  async click(selector) {
    const found = await this.cmd('POST', '/element', { using: 'css selector', value: selector });
    const id = found[ELEMENT_KEY];
    await this.cmd('POST', `/element/${id}/click`, {});
  }

  async waitForSelector(selector, { timeout = 10_000 } = {}) {
    await this.waitForFunction((s) => document.querySelector(s) !== null, selector, { timeout });
  }

  /**
   * Opens a second top-level browsing context of this session (same profile, like a new
   * page of a Playwright context), runs `fn(handle)` with it current, then closes it and
   * switches back; `handle` has goto/evaluate/waitForFunction (this page's methods).
   */
  async inNewWindow(fn) {
    const original = await this.cmd('GET', '/window');
    const { handle } = await this.cmd('POST', '/window/new', { type: 'tab' });
    await this.cmd('POST', '/window', { handle });
    try {
      return await fn(this);
    } finally {
      await this.cmd('DELETE', '/window').catch(() => {});
      await this.cmd('POST', '/window', { handle: original });
    }
  }

  /** W3C §11.3 Add Virtual Authenticator; returns its id. */
  addVirtualAuthenticator(options) {
    return this.cmd('POST', '/webauthn/authenticator', options);
  }

  removeVirtualAuthenticator(authenticatorId) {
    return this.cmd('DELETE', `/webauthn/authenticator/${authenticatorId}`);
  }

  /** Credential fields as the W3C spec has them (binary fields base64url). */
  addCredential(authenticatorId, credential) {
    return this.cmd('POST', `/webauthn/authenticator/${authenticatorId}/credential`, credential);
  }

  getCredentials(authenticatorId) {
    return this.cmd('GET', `/webauthn/authenticator/${authenticatorId}/credentials`);
  }

  setUserVerified(authenticatorId, isUserVerified) {
    return this.cmd('POST', `/webauthn/authenticator/${authenticatorId}/uv`, { isUserVerified });
  }
}

/**
 * WebDriver has no page-error events: a page that records its own (window.takePageErrors()
 * returns and clears them) gets them collected into `sink` after every evaluate.
 */
export function collectPageErrors(page, sink) {
  const evaluate = page.evaluate.bind(page);
  page.evaluate = async (fn, arg, options) => {
    try {
      return await evaluate(fn, arg, options);
    } finally {
      // eslint-disable-next-line no-undef -- runs in the page
      sink.push(...await evaluate(() => window.takePageErrors?.() ?? ['the page has no takePageErrors()']));
    }
  };
  return page;
}

/** A running WebDriver server (and its display, for WebKitGTK) with session creation. */
class WebDriverBrowser {
  constructor({ engine, base, driver, xvfb, capabilities }) {
    Object.assign(this, { engine, base, driver, xvfb, capabilities });
    this.sessions = new Set();
  }

  /**
   * A new session: a fresh browser process with a fresh profile. `firefoxPrefs` override
   * the launch's prefs for this session only. `withoutPageEval`: evaluate, waitForFunction,
   * $eval and $$eval never call the page's eval (for pages under a CSP without
   * 'unsafe-eval'; see evaluateInDriver for what differs in Firefox).
   */
  async newPage({ timeoutMs = 60_000, firefoxPrefs, withoutPageEval = false } = {}) {
    let capabilities = this.capabilities;
    if (firefoxPrefs) {
      const options = capabilities['moz:firefoxOptions'];
      capabilities = { ...capabilities, 'moz:firefoxOptions': { ...options, prefs: { ...options.prefs, ...firefoxPrefs } } };
    }
    let value;
    try {
      value = await request(this.base, 'POST', '/session', { capabilities: { alwaysMatch: capabilities } }, timeoutMs);
    } catch (e) {
      throw new Error(`${this.engine}: new session failed: ${e.message}\n${this.driver.log}`);
    }
    const page = new WebDriverPage(this.base, value.sessionId, this.engine);
    page.capabilities = value.capabilities;
    page.withoutPageEval = withoutPageEval;
    this.sessions.add(page);
    // The async-script deadline lives in the session; each request also has its own.
    await page.cmd('POST', '/timeouts', { script: 120_000, pageLoad: 30_000 });
    page.close = async () => {
      if (!this.sessions.delete(page)) return;
      await request(this.base, 'DELETE', `/session/${page.sessionId}`, undefined, 15_000).catch(() => {});
    };
    return page;
  }

  /** Whether the driver (and its display) still run; Playwright's Browser has the same. */
  isConnected() {
    return this.driver.exitCode === null && this.driver.signalCode === null
      && (!this.xvfb || (this.xvfb.child.exitCode === null && this.xvfb.child.signalCode === null));
  }

  /** Ends every session still open (geckodriver runs one at a time). */
  async closeSessions() {
    await Promise.allSettled([...this.sessions].map((p) => p.close()));
  }

  async close() {
    await this.closeSessions();
    try {
      await stop(this.driver);
    } finally {
      await stop(this.xvfb?.child);
    }
  }
}

/** Firefox ESR through geckodriver (the WebAuthn prefs on: its virtual authenticator works). */
async function launchFirefox() {
  const port = await freePort();
  const driver = start(GECKODRIVER, ['--port', String(port), '--host', '127.0.0.1', '--log', 'warn']);
  const base = `http://127.0.0.1:${port}`;
  try {
    await waitForDriver(base, driver, 'geckodriver');
  } catch (e) {
    await stop(driver);
    throw e;
  }
  return new WebDriverBrowser({
    engine: 'firefox', base, driver,
    capabilities: {
      browserName: 'firefox',
      'moz:firefoxOptions': {
        binary: FIREFOX, args: ['-headless'], prefs: { ...FIREFOX_QUIET_PREFS, ...FIREFOX_WEBAUTHN_PREFS },
      },
    },
  });
}

/** WebKitGTK's MiniBrowser through WebKitWebDriver, on its own Xvfb display. */
async function launchWebKit() {
  const xvfb = await startXvfb();
  const port = await freePort();
  const driver = start(WEBKIT_DRIVER, [`--port=${port}`], {
    env: { ...process.env, DISPLAY: xvfb.display, WEBKIT_DISABLE_COMPOSITING_MODE: '1' },
  });
  // MiniBrowser writes this line (through the driver's stderr) when its web process dies;
  // the command running then fails with "Could not parse script result", and the session
  // is gone ("session deleted because of page crash or hang").
  driver.webProcessCrashes = 0;
  driver.stderr?.on('data', (d) => { driver.webProcessCrashes += String(d).split('WebProcess CRASHED').length - 1; });
  const base = `http://127.0.0.1:${port}`;
  try {
    await waitForDriver(base, driver, 'WebKitWebDriver');
  } catch (e) {
    await stop(driver);
    await stop(xvfb.child);
    throw e;
  }
  return new WebDriverBrowser({
    engine: 'webkit', base, driver, xvfb,
    capabilities: {
      browserName: 'MiniBrowser',
      'webkitgtk:browserOptions': { binary: MINIBROWSER, args: ['--automation'] },
    },
  });
}

/**
 * Launches `engine`: for chromium the playwright-core Browser (CDP), for firefox and
 * webkit a WebDriverBrowser whose newPage() opens a session.
 */
export async function launchEngine(engine, { chromium = playwrightChromium } = {}) {
  switch (engine) {
    case 'chromium':
      return launchChromium(chromium);
    case 'firefox':
      return launchFirefox();
    case 'webkit':
      return launchWebKit();
    default:
      throw new Error(`unknown engine ${engine}`);
  }
}
