// Browser (and bundler) entry of embedded-wallet-kit.
//
// `init()` fetches and instantiates the wallet module once (ClientKey, Session,
// passkey.*, the flow drivers behind WalletClient, the session store's bindings,
// inspectPayload), in one of its two builds: without the enclave exports of newer
// deployments (encryptOtp, openWalletExport) by default, with them for
// `init({ enclave: true })` (one glue drives both: scripts/check-no-enclave.mjs). Every
// export of the build loaded is usable after it resolves, and no other .wasm is ever
// fetched by this entry. Pages that only sign can load the smaller
// signing module instead, through the `embedded-wallet-kit/signing` entry (npm/signing.js);
// each page loads exactly one module. The module URL is written as a literal
// `new URL('./embedded_wallet_kit_bg.wasm', import.meta.url)` so that Vite, webpack and
// other bundlers copy the .wasm next to the bundle and rewrite the URL (both builds' URLs).
//
// WalletClient's implementation (npm/wallet-client-impl.js), SessionStore's and
// SessionKeeper's are JS loaded on first use; `init({ passkeys: true })` preloads
// WalletClient's.
//
// npm/platform.js is imported first: it captures WebCrypto and Date.now before any other
// kit code runs (the glue and the session store use those captures).
import { KitError } from './platform.js';
import { ClientKey as KitClientKey, Session as KitSession, encryptOtp as rawEncryptOtp, openWalletExport as rawOpenWalletExport, lazy } from './shared.js';
import __wbg_init, { inspectPayload as rawInspectPayload, warmUp, selfTest } from './embedded_wallet_kit.js';
import { warmUpLater, readInit, wantsIsolation, guardFunction, isReady, mainModule, markReady, runSelfTest } from './guard.js';
import { passkey, loadPasskeys, moduleLoaded, provideCapabilities, provideModuleLoader } from './passkey.js';
import { WalletClient, loadWalletClient } from './wallet-client.js';
import { initIsolated, platform } from './signer-platform.js';

export { KitError, passkey };
export { WalletClient };
export { SessionStore, SessionKeeper } from './session-store.js';

// capabilities() and passkey.signal* (npm/capabilities.js, loaded by the first call of
// either): resolved now, so that an import map injected later cannot redirect it
// (npm/signer-platform.js).
import.meta.resolve?.('./capabilities.js');
const loadCapabilities = lazy(() => import('./capabilities.js'), 'capabilities module');
provideCapabilities(loadCapabilities);
/** What this browser and page let the kit do; see index.d.ts. */
export const capabilities = () => loadCapabilities().then((m) => m.capabilities(platform));

// The handle classes (npm/guard.js), declared as the glue's generated types: tsc checks
// that the classes have every member those declare, with the types they declare.
/** @type {typeof import('./embedded_wallet_kit.js').ClientKey} */
export const ClientKey = KitClientKey;
/** @type {typeof import('./embedded_wallet_kit.js').Session} */
export const Session = KitSession;
/** @type {typeof rawInspectPayload} */
export const inspectPayload = guardFunction(rawInspectPayload, 'inspectPayload');

// Newer deployments: encrypted OTP and wallet export.
/** @type {typeof rawEncryptOtp} */
export const encryptOtp = guardFunction(rawEncryptOtp, 'encryptOtp');
/** @type {typeof rawOpenWalletExport} */
export const openWalletExport = guardFunction(rawOpenWalletExport, 'openWalletExport');

/** @type {Promise<void> | undefined} the module's instantiation (init(), or a passkey call first) */
let loading;
/** Whether `loading` was asked for the build with the enclave exports. */
let loadingEnclave = false;
/** @type {Promise<void> | undefined} */
let initPromise;
/** @type {Promise<void> | undefined} init({ passkeys: true }) */
let withPasskeys;

/**
 * Whether this runs outside a browser: neither a page (`window`) nor a worker (a server
 * rendering pass, plain Node). Importing the browser entry there is harmless (nothing runs
 * at import); init() is what cannot work there.
 */
function outsideBrowser() {
  return !('window' in globalThis) && !('WorkerGlobalScope' in globalThis);
}

/** init()'s failure message: outside a browser it says why and what to do instead. */
function loadFailure(err) {
  const detail = err && err.message ? err.message : String(err);
  // Bundlers that leave `new URL(…, import.meta.url)` alone (esbuild, Rollup) do not copy the files.
  if (!outsideBrowser()) {
    return `embedded-wallet-kit could not load its WebAssembly module (${detail}): with esbuild or Rollup, `
      + "copy the package's .wasm and .js files next to the bundle, or pass init({ module_or_path })";
  }
  return 'embedded-wallet-kit: init() of the browser entry ran outside a browser (no window: server rendering, '
    + `or plain Node), so it could not load its WebAssembly module (${detail}). `
    + "Node resolves the package's `node` entry when it imports 'embedded-wallet-kit' itself (a server bundle that "
    + 'picked the browser entry should keep the package external); in a server-rendered app, call init() in the browser '
    + 'only (in an effect or a mount hook), not while rendering on the server.';
}

/**
 * Instantiates the module once (concurrent callers share the promise; after a failure a
 * later call tries again). Marks nothing ready but the passkey API: init() readies the
 * rest; the isolated signer's page side, which keeps its keys in a Worker, needs the
 * module for passkeys only.
 */
function loadModule(source, enclave = false) {
  if (loading === undefined) {
    // Each URL a literal, for bundlers.
    const ownModule = enclave
      ? () => new URL('./embedded_wallet_kit_bg.wasm', import.meta.url)
      : () => new URL('./embedded_wallet_kit_no_enclave_bg.wasm', import.meta.url);
    // Started in a callback, so that the failure handler sees `attempt` assigned (to reset
    // it for a retry) whatever the loader throws.
    const attempt = Promise.resolve()
      // Always a fresh { module_or_path }: wasm-bindgen reads anything else as its deprecated positional form.
      .then(() => __wbg_init({ module_or_path: source ?? ownModule() }))
      .then(
        (wasm) => {
          mainModule.holds(/** @type {WebAssembly.Memory} */ (wasm.memory));
          // Before anything uses it: a faulty engine fails init() (ENGINE_FAULT), for good.
          runSelfTest(selfTest, mainModule);
          moduleLoaded();
        },
        (err) => {
          if (loading === attempt) loading = undefined;
          throw new KitError('NOT_INITIALIZED', loadFailure(err), err);
        },
      );
    loading = attempt;
    loadingEnclave = enclave;
  }
  return loading;
}
provideModuleLoader(loadModule);

function loadSigning(source, enclave) {
  if (initPromise === undefined) {
    if (isReady()) {
      initPromise = Promise.resolve();
    } else {
      const attempt = loadModule(source, enclave).then(
        () => {
          markReady();
          warmUpLater(guardFunction(warmUp, 'warmUp'));
        },
        (err) => {
          if (initPromise === attempt) initPromise = undefined;
          throw err;
        },
      );
      initPromise = attempt;
    }
  }
  return initPromise;
}

/** init({ passkeys: { module_or_path } }) named the wallet module, which is gone (0.x: one module). */
function stalePasskeysOption() {
  return new KitError(
    'INVALID_INPUT',
    'init: passkeys takes true or false: the passkey API is part of the module init() loads (say where that is with module_or_path)',
  );
}

/**
 * Loads the WebAssembly module. Idempotent: every call returns the same promise, so
 * concurrent callers share one fetch. If loading fails the promise rejects with
 * KitError NOT_INITIALIZED (the underlying error is its `cause`) and a later call
 * tries again.
 *
 * The module holds the passkey API too: `passkey.register`/`authenticate` in a click
 * handler reach WebAuthn without waiting for a download once init() resolved.
 * `init({ passkeys: true })` also loads WalletClient's implementation (JS); those calls
 * share a second promise. `passkeys: { module_or_path }` (where a separate passkey module
 * was once loaded from) rejects INVALID_INPUT.
 *
 * `init({ enclave: true })` loads the module's build with the enclave exports
 * (`encryptOtp`, `openWalletExport`) instead of the one without; it rejects INVALID_INPUT
 * when an earlier call without the option loaded the build without them.
 *
 * `input`: where to load the module from: nothing (the .wasm next to this file),
 * `{ module_or_path?, passkeys?, isolate?, enclave? }`, a URL or path, a Response, bytes or a
 * WebAssembly.Module. Typed as index.d.ts declares it (tests/types/entries.ts checks).
 *
 * @overload
 * @param {import('./index.js').IsolatedInitOptions} options
 * @returns {Promise<import('./index.js').IsolatedKit>}
 */
/**
 * @overload
 * @param {import('./index.js').InitInput | import('./index.js').InitOptions} [input]
 * @returns {Promise<void>}
 */
/**
 * @param {unknown} [input]
 */
export function init(input) {
  // Read once (npm/guard.js): own data properties only, no getter, no thenable.
  let read;
  try {
    read = readInit(input);
  } catch (err) {
    return Promise.reject(err);
  }
  const { passkeys, enclave } = read;
  if (passkeys !== null && typeof passkeys === 'object') return Promise.reject(stalePasskeysOption());
  if (enclave !== undefined && enclave !== null && typeof enclave !== 'boolean') {
    return Promise.reject(new KitError('INVALID_INPUT', 'init: enclave takes true or false'));
  }
  // The isolated signer (npm/signer-platform.js, which loads its code on the first such
  // call): signing runs in a Worker, which loads the build with the enclave exports; the
  // page instantiates the module for passkeys only.
  if (wantsIsolation(read)) return initIsolated(read, loadPasskeys);
  if (enclave === true && loading !== undefined && !loadingEnclave) {
    return Promise.reject(new KitError('INVALID_INPUT', 'init({ enclave: true }): an earlier init() or passkey call loaded the module without the enclave exports; pass enclave: true to the first call'));
  }
  const signing = loadSigning(read.source, enclave === true);
  if (passkeys === undefined || passkeys === null || passkeys === false) return signing;
  if (withPasskeys === undefined) {
    const attempt = Promise.all([signing, loadWalletClient()]).then(
      () => undefined,
      (err) => {
        if (withPasskeys === attempt) withPasskeys = undefined;
        throw err;
      },
    );
    withPasskeys = attempt;
  }
  return withPasskeys;
}
