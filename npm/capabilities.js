// capabilities(): what this browser and this page let the kit do, asked once per page, and
// the WebAuthn signal methods (passkey.signal*). Loaded by the first call of either
// (npm/passkey.js), so init() does not download it. Neither prompts the user nor needs
// init(): an app can ask before choosing a login path, and before loading the wasm at all.
import { isReady, readOptions } from './guard.js';
import { KitError } from './platform.js';
import { webAuthnMissing } from './shared.js';

// Loaded by the isolatedSigner probe; resolved by npm/signer-platform.js when the kit loaded.
import.meta.resolve?.('./signer-boot.js');

/** The throwaway database the storage probe writes to, then deletes. */
const PROBE_DB = 'embedded-wallet-kit/capabilities-probe';
/** How long a browser's own passkey probe may take before it counts as "cannot tell". */
const PROBE_TIMEOUT_MS = 2000;
/** How long the kit's Worker may take to load its scripts and answer the probe. */
const WORKER_TIMEOUT_MS = 5000;
const SIGNALS = ['signalUnknownCredential', 'signalAllAcceptedCredentials', 'signalCurrentUserDetails'];

/** @typedef {import('./index.js').Capability} Capability */
/** @type {() => Capability} */
const yes = () => ({ available: true });
/** @type {(reason: string) => Capability} */
const no = (reason) => ({ available: false, reason });
const why = (err) => `${err?.name ?? 'Error'}: ${err?.message ?? String(err)}`;

/** `fn()`'s promise, or `fallback` when it throws, rejects or outlasts PROBE_TIMEOUT_MS. */
function settle(fn, fallback) {
  let timer;
  const late = new Promise((ok) => {
    timer = setTimeout(() => ok(fallback), PROBE_TIMEOUT_MS);
  });
  return Promise.race([Promise.resolve().then(fn), late])
    .then(undefined, () => fallback)
    .finally(() => clearTimeout(timer));
}

async function passkeys() {
  const missing = webAuthnMissing();
  const pkc = globalThis.PublicKeyCredential;
  const ask = (method, coerce, fallback) =>
    typeof pkc?.[method] === 'function' ? settle(() => pkc[method]().then(coerce), fallback) : Promise.resolve(fallback);
  const [platformAuthenticator, conditionalMediation, clientCapabilities] = await Promise.all([
    ask('isUserVerifyingPlatformAuthenticatorAvailable', (v) => v === true, false),
    ask('isConditionalMediationAvailable', (v) => v === true, false),
    ask('getClientCapabilities', (v) => (v !== null && typeof v === 'object' ? { ...v } : undefined), undefined),
  ]);
  const signals = /** @type {import('./index.js').PasskeyCapabilities['signals']} */ (Object.fromEntries(SIGNALS.map((m) => [m, missing === undefined && typeof pkc[m] === 'function'])));
  return {
    ...(missing === undefined ? yes() : no(missing)),
    platformAuthenticator,
    conditionalMediation,
    signals,
    clientCapabilities,
  };
}

const request = (r) =>
  new Promise((ok, fail) => {
    r.onsuccess = () => ok(r.result);
    r.onerror = () => fail(r.error);
  });

/**
 * Keeps a throwaway non-extractable ECDSA key in IndexedDB, as the session store does,
 * reads it back, then deletes the database: where a CryptoKey cannot be stored (iOS
 * Lockdown Mode, some private modes: DataCloneError), the put fails here.
 */
async function persistentKeys() {
  const factory = globalThis.indexedDB;
  const webSubtle = globalThis.crypto?.subtle;
  if (typeof factory?.open !== 'function') return no('IndexedDB is not available here');
  if (typeof webSubtle?.generateKey !== 'function') return no('WebCrypto (crypto.subtle) is not available here; browsers offer it only in secure contexts');
  let db;
  try {
    const { privateKey } = await webSubtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign']);
    const opening = factory.open(PROBE_DB, 1);
    opening.onupgradeneeded = () => opening.result.createObjectStore('keys');
    db = await request(opening);
    const store = () => db.transaction('keys', 'readwrite').objectStore('keys');
    await request(store().put(privateKey, 'probe'));
    const back = await request(store().get('probe'));
    if (!(back instanceof CryptoKey) || back.extractable) return no('IndexedDB did not give the stored key back as a non-extractable CryptoKey');
    return yes();
  } catch (err) {
    return no(`a non-extractable key cannot be kept in IndexedDB here (${why(err)}); sessions live in memory for the page's life`);
  } finally {
    db?.close();
    // (Blocked by another tab's probe, it completes when that one closes, at once.)
    await new Promise((ok) => {
      const deleting = factory.deleteDatabase(PROBE_DB);
      deleting.onsuccess = deleting.onerror = ok;
    }).catch(() => {});
  }
}

/**
 * The empty module (magic and version): instantiating it is what a CSP without
 * 'wasm-unsafe-eval' refuses (WebKit lets the compile alone through).
 */
const EMPTY_MODULE = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0]);

async function wasm() {
  if (isReady()) return yes(); // the kit's own module is instantiated: the page allowed it
  if (typeof globalThis.WebAssembly?.instantiate !== 'function') return no('WebAssembly is not available here');
  try {
    await WebAssembly.instantiate(EMPTY_MODULE);
    return yes();
  } catch (err) {
    return no(`the page may not compile WebAssembly (${why(err)}); its Content-Security-Policy needs 'wasm-unsafe-eval' in script-src`);
  }
}

/**
 * Starts the isolated signer's Worker as `init({ isolate: 'worker' })` does (npm/signer-boot.js,
 * over the globals the kit captured), sends it the probe it answers without loading the
 * wasm, and ends it: a Content-Security-Policy that forbids the Worker refuses it here.
 *
 * @param {import('./signer-platform.js')['platform']} platform
 */
async function isolatedSigner(platform) {
  if (!platform?.available) return no('Workers (or MessageChannel) are not available here');
  const cannot = (detail) => no(`the kit's Worker (signer-worker.js) did not start: ${detail}; a Content-Security-Policy must allow it (worker-src, else script-src) and a bundle must ship it`);
  /** @type {Worker | undefined} */
  let worker;
  /** @type {MessagePort | undefined} */
  let port;
  let timer;
  try {
    const { signerWorkerStarter } = await import('./signer-boot.js');
    return await new Promise((resolve) => {
      let theirs;
      [worker, port, theirs] = signerWorkerStarter(platform)();
      worker.onerror = (event) => resolve(cannot(event.message || 'its script or a module it imports did not load'));
      port.onmessage = (event) => resolve(event.data?.probe === true ? yes() : cannot('it answered something else'));
      timer = setTimeout(() => resolve(cannot(`no answer within ${WORKER_TIMEOUT_MS / 1000} s`)), WORKER_TIMEOUT_MS);
      worker.postMessage({ probe: true }, [theirs]);
    });
  } catch (err) {
    return cannot(why(err));
  } finally {
    clearTimeout(timer);
    worker?.terminate();
    port?.close();
  }
}

/**
 * @param {import('./signer-platform.js')['platform']} platform
 * @returns {Promise<import('./index.js').Capabilities>}
 */
async function probe(platform) {
  const [passkeyAnswer, keys, wasmAnswer, signer] = await Promise.all([passkeys(), persistentKeys(), wasm(), isolatedSigner(platform)]);
  return Object.freeze({ passkeys: passkeyAnswer, persistentKeys: keys, wasm: wasmAnswer, isolatedSigner: signer });
}

/** @type {Promise<import('./index.js').Capabilities> | undefined} */
let answer;

/**
 * The page's capabilities, probed on the first call (see index.d.ts).
 *
 * @param {import('./signer-platform.js')['platform']} platform what the kit captured at load (the entry's)
 */
export function capabilities(platform) {
  if (answer === undefined) answer = probe(platform);
  return answer;
}

const invalid = (message) => new KitError('INVALID_INPUT', message);
const BASE64URL = /^[A-Za-z0-9_-]+$/;
function credentialIdArg(value, what) {
  if (typeof value !== 'string' || !BASE64URL.test(value)) throw invalid(`${what} must be a base64url WebAuthn credential id`);
  return value;
}
function textArg(value, what) {
  if (typeof value !== 'string' || value === '') throw invalid(`${what} must be a non-empty string`);
  return value;
}
/** The user handle as WebAuthn got it from passkey.register (`user.id`, UTF-8), base64url. */
const userHandle = (userId) =>
  btoa(String.fromCharCode(...new TextEncoder().encode(textArg(userId, 'userId')))).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');

/** Each signal method's options → the argument PublicKeyCredential's method takes. */
const SIGNAL_ARGS = {
  signalUnknownCredential: ['credentialId'],
  signalAllAcceptedCredentials: ['userId', 'allAcceptedCredentialIds'],
  signalCurrentUserDetails: ['userId', 'name', 'displayName'],
};

function signalArg(method, options) {
  if (options === null || typeof options !== 'object') throw invalid(`passkey.${method}: options must be an object`);
  const read = readOptions(options, ['rpId', ...SIGNAL_ARGS[method]], `passkey.${method}`);
  const arg = { rpId: read.rpId === undefined ? globalThis.location?.hostname : textArg(read.rpId, 'rpId') };
  if (typeof arg.rpId !== 'string') throw invalid(`passkey.${method}: rpId is required outside a page`);
  if (method === 'signalUnknownCredential') arg.credentialId = credentialIdArg(read.credentialId, 'credentialId');
  else arg.userId = userHandle(read.userId);
  if (method === 'signalAllAcceptedCredentials') {
    if (!Array.isArray(read.allAcceptedCredentialIds)) throw invalid('allAcceptedCredentialIds must be an array of base64url credential ids');
    arg.allAcceptedCredentialIds = [...read.allAcceptedCredentialIds].map((id) => credentialIdArg(id, 'allAcceptedCredentialIds[]'));
  }
  if (method === 'signalCurrentUserDetails') {
    arg.name = textArg(read.name, 'name');
    arg.displayName = read.displayName === undefined ? arg.name : textArg(read.displayName, 'displayName');
  }
  return arg;
}

/**
 * One WebAuthn signal (passkey.signal*): `{ signaled: true }` once the browser took it, else
 * `{ signaled: false, reason }` (no WebAuthn, no such method, or the browser refused); a
 * signal is advice to the authenticator, so only bad options reject (INVALID_INPUT).
 */
export async function signal(method, options) {
  const arg = signalArg(method, options);
  const pkc = globalThis.PublicKeyCredential;
  const missing = webAuthnMissing();
  if (missing !== undefined) return { signaled: false, reason: missing };
  if (typeof pkc[method] !== 'function') return { signaled: false, reason: `this browser has no PublicKeyCredential.${method}` };
  try {
    await pkc[method](arg);
    return { signaled: true };
  } catch (err) {
    return { signaled: false, reason: `the browser refused ${method} (${why(err)})` };
  }
}
