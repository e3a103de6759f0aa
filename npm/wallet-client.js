// The public WalletClient class, shared by both variants of the main entry. Its
// implementation (npm/wallet-client-impl.js: the async loop that drives the flows, which
// are in the module init() loaded) is loaded by the first flow call of any client, or up
// front by init({ passkeys: true }), so a page that never uses a WalletClient does not
// download it. This file checks the options (synchronously, as the constructor always
// did) and answers `keys` and `oidcNonce`; each flow method forwards to the implementation.
import { KitError } from './platform.js';
import { isReady, notInitialized, readOptions } from './guard.js';
import { passkey as kitPasskey } from './passkey.js';
import { keyArg, lazy } from './shared.js';

// Resolved now, so that an import map injected later cannot redirect it (npm/signer-platform.js).
import.meta.resolve?.('./wallet-client-impl.js');

const invalid = (message) => new KitError('INVALID_INPUT', message);

/** The session key modes: the sealed bundle, or the client's own key. */
const KEY_MODES = ['sealed', 'client-held'];

/**
 * The isolated signers' custodies (npm/signer.js makes one, for its kit's WalletClient):
 * where a client's keys are made, its sessions opened and checked. A client without one
 * keeps them in this thread's wasm.
 */
export const custodies = new WeakMap();

/** The implementation module, once loaded. */
let impl;

/**
 * Loads the implementation once (concurrent callers share one promise); after a failure
 * (KitError NOT_INITIALIZED, the loader's error as `cause`) a later call tries again.
 */
export const loadWalletClient = lazy(() => import('./wallet-client-impl.js').then((mod) => (impl = mod)), 'WalletClient module');

/**
 * Hands over the implementation module (the Node entry, which loads everything at import).
 *
 * @param {typeof import('./wallet-client-impl.js')} mod
 */
export function provideWalletClient(mod) {
  impl = mod;
}

/** @typedef {import('./index.js').WalletClient} DeclaredWalletClient */

/**
 * `options.processing`, checked: how a request the service is still processing is re-sent
 * (at most `maxResends` times, waits from `firstDelayMs` doubling up to `maxDelayMs`), and
 * when to stop waiting (`timeoutMs` after the first still-processing answer, or `signal` aborted).
 */
function processingPolicy(given) {
  if (given === undefined) return Object.freeze({ ...PROCESSING_DEFAULTS });
  if (given === null || typeof given !== 'object') throw invalid('WalletClient: options.processing must be an object');
  const read = readOptions(given, ['maxResends', 'firstDelayMs', 'maxDelayMs', 'timeoutMs', 'signal'], 'WalletClient: options.processing');
  const whole = (name, max) => {
    const value = read[name] ?? PROCESSING_DEFAULTS[name];
    if (value !== undefined && !(Number.isInteger(value) && value >= 0 && value <= max)) {
      throw invalid(`WalletClient: options.processing.${name} must be a whole number from 0 to ${max}`);
    }
    return value;
  };
  const { signal } = read;
  if (signal !== undefined && !(signal !== null && typeof signal === 'object' && typeof signal.aborted === 'boolean' && typeof signal.addEventListener === 'function')) {
    throw invalid('WalletClient: options.processing.signal must be an AbortSignal');
  }
  return Object.freeze({
    maxResends: whole('maxResends', 1_000),
    firstDelayMs: whole('firstDelayMs', 600_000),
    maxDelayMs: whole('maxDelayMs', 600_000),
    timeoutMs: whole('timeoutMs', 86_400_000),
    signal,
  });
}

/** The core's ProcessingPolicy defaults (src/flows/processing.rs); no timeout. */
const PROCESSING_DEFAULTS = Object.freeze({ maxResends: 10, firstDelayMs: 500, maxDelayMs: 8_000, timeoutMs: undefined });

/** @implements {DeclaredWalletClient} */
export class WalletClient {
  /** The checked options, handed to the implementation. */
  #settings;
  /** This client's implementation object (a WalletFlows), made on its first flow call. */
  #flows;

  /**
   * @param {{ transport: Function, sandbox?: boolean, passkey?: object,
   *   keys?: 'sealed' | 'client-held', otpSignerPin?: string,
   *   onPending?: Function, onSigned?: Function, processing?: object }} options
   *   transport: ({method, path, headers, body}) => {status, headers, body} (may be async)
   * @param {object} [custody] the isolated signer's (its kit's WalletClient passes it)
   */
  constructor(options, custody) {
    if (!custodies.has(custody)) {
      custody = undefined;
      if (!isReady()) throw notInitialized('new WalletClient()');
    }
    const {
      transport, sandbox = false, passkey = kitPasskey, keys = 'sealed', otpSignerPin, onPending, onSigned, processing,
    } = readOptions(options, ['transport', 'sandbox', 'passkey', 'keys', 'otpSignerPin', 'onPending', 'onSigned', 'processing'], 'WalletClient');
    if (typeof transport !== 'function') {
      throw invalid('WalletClient: options.transport must be a function ({ method, path, headers, body }) => { status, headers, body }');
    }
    if (passkey === null || typeof passkey !== 'object') throw invalid('WalletClient: options.passkey must be an object');
    if (!KEY_MODES.includes(/** @type {string} */ (keys))) {
      throw invalid(`WalletClient: options.keys must be ${KEY_MODES.map((m) => `'${m}'`).join(' or ')}`);
    }
    if (otpSignerPin !== undefined && (typeof otpSignerPin !== 'string' || otpSignerPin === '')) {
      throw invalid("WalletClient: options.otpSignerPin must be 'production', 'sandbox' or a signer public key in hex");
    }
    for (const [name, listener] of [['onPending', onPending], ['onSigned', onSigned]]) {
      if (listener !== undefined && typeof listener !== 'function') throw invalid(`WalletClient: options.${name} must be a function`);
    }
    const isSandbox = sandbox === true;
    this.#settings = Object.freeze({
      custody,
      onPending,
      onSigned,
      processing: processingPolicy(processing),
      transport,
      sandbox: isSandbox,
      passkey,
      clientHeld: keys === 'client-held',
      otpSignerPin: otpSignerPin ?? (isSandbox ? 'sandbox' : 'production'),
    });
  }

  /** The session key mode: `'sealed'` (the default) or `'client-held'`. */
  get keys() {
    return this.#settings.clientHeld ? 'client-held' : 'sealed';
  }

  /**
   * The OIDC `nonce` an OAUTH login with `key` must carry in this client's key mode: the
   * hash of the `clientPublicKey` string verifyOauth sends (`key.oidcNonce()` in sealed
   * mode; over the compressed form in client-held mode).
   */
  oidcNonce(key) {
    return (this.#settings.custody?.keyArg ?? keyArg)(key).oidcNonce({ compressed: this.#settings.clientHeld });
  }

  /**
   * This client's implementation object, or undefined while the module is not loaded.
   * Once it is, a flow method calls it with no `await` first: registerPasskey's ceremony
   * then starts in the caller's task (Safari ties WebAuthn to the user's click).
   */
  #loaded() {
    if (this.#flows === undefined && impl !== undefined) this.#flows = new impl.WalletFlows(this.#settings);
    return this.#flows;
  }

  /** Loads the implementation (the flows it drives are in the module init() loaded). */
  async #load() {
    await loadWalletClient();
    return this.#loaded();
  }

  async createEmailOtp(accountId, session) {
    return (this.#loaded() ?? await this.#load()).createEmailOtp(accountId, session);
  }

  async addCredential(session, body) {
    return (this.#loaded() ?? await this.#load()).addCredential(session, body);
  }

  async registerPasskey(options, session) {
    return (this.#loaded() ?? await this.#load()).registerPasskey(options, session);
  }

  async challenge(credentialId) {
    return (this.#loaded() ?? await this.#load()).challenge(credentialId);
  }

  async verifyEmailOtp(credentialId, otp, key, options) {
    return (this.#loaded() ?? await this.#load()).verifyEmailOtp(credentialId, otp, key, options);
  }

  async verifyOauth(credentialId, oidcToken, key) {
    return (this.#loaded() ?? await this.#load()).verifyOauth(credentialId, oidcToken, key);
  }

  async loginWithPasskey(credentialId, options = {}) {
    return (this.#loaded() ?? await this.#load()).loginWithPasskey(credentialId, options);
  }

  async refresh(session) {
    return (this.#loaded() ?? await this.#load()).refresh(session);
  }

  async revokeSession(session) {
    return (this.#loaded() ?? await this.#load()).revokeSession(session);
  }

  async revokeCredential(session, credentialId, options) {
    return (this.#loaded() ?? await this.#load()).revokeCredential(session, credentialId, options);
  }

  async exportWallet(session, accountId, key) {
    return (this.#loaded() ?? await this.#load()).exportWallet(session, accountId, key);
  }

  async updateAccount(session, accountId, patch) {
    return (this.#loaded() ?? await this.#load()).updateAccount(session, accountId, patch);
  }

  async updateCustomer(session, customerId, change) {
    return (this.#loaded() ?? await this.#load()).updateCustomer(session, customerId, change);
  }

  async executeQuote(session, quote, options = undefined) {
    return (this.#loaded() ?? await this.#load()).executeQuote(session, quote, options);
  }

  async request(request, session) {
    return (this.#loaded() ?? await this.#load()).request(request, session);
  }
}
