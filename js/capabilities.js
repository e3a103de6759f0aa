// capabilities(): what this browser and this page let the kit do, asked once per page
// (the entries load this module on the first call, so init() does not download it). It
// never prompts the user and needs no init(): an app can ask before choosing a login path,
// and before loading the wasm at all.
import { isReady } from './guard.js';
import { webAuthnMissing } from './passkey.js';

/** The throwaway database the storage probe writes to, then deletes. */
const PROBE_DB = 'embedded-wallet-kit/capabilities-probe';
/** How long a browser's own passkey probe may take before it counts as "cannot tell". */
const PROBE_TIMEOUT_MS = 2000;
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

/** The empty module (magic and version): compiling it is what a CSP without 'wasm-unsafe-eval' refuses. */
const EMPTY_MODULE = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0]);

async function wasm() {
  if (isReady()) return yes(); // the kit's own module is instantiated: the page allowed it
  if (typeof globalThis.WebAssembly?.compile !== 'function') return no('WebAssembly is not available here');
  try {
    await WebAssembly.compile(EMPTY_MODULE);
    return yes();
  } catch (err) {
    return no(`the page may not compile WebAssembly (${why(err)}); its Content-Security-Policy needs 'wasm-unsafe-eval' in script-src`);
  }
}

function isolatedSigner() {
  if (typeof globalThis.Worker !== 'function' || typeof globalThis.MessageChannel !== 'function') return no('Workers (or MessageChannel) are not available here');
  // A module Worker reads `type` from its options; a browser without them never does. The
  // URL does not parse, so no Worker starts.
  let moduleWorkers = false;
  try {
    new Worker('http://[', {
      get type() {
        moduleWorkers = true;
        return /** @type {WorkerType} */ ('module');
      },
    });
  } catch {
    // Expected: the URL.
  }
  return moduleWorkers ? yes() : no('this browser has no module Workers');
}

/** @returns {Promise<import('./index.js').Capabilities>} */
async function probe() {
  const [passkeyAnswer, keys, wasmAnswer] = await Promise.all([passkeys(), persistentKeys(), wasm()]);
  return Object.freeze({ passkeys: passkeyAnswer, persistentKeys: keys, wasm: wasmAnswer, isolatedSigner: isolatedSigner() });
}

/** @type {Promise<import('./index.js').Capabilities> | undefined} */
let answer;

/** The page's capabilities, probed on the first call (see index.d.ts). */
export function capabilities() {
  answer ??= probe();
  return answer;
}
