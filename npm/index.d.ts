// Type declarations for embedded-wallet-kit. Both entries (the browser/bundler entry and
// the Node entry) have exactly these named exports.

/**
 * Stable error codes. Match on `err.code`, never on `err.message`. What each one means:
 * the "Errors" table of the package README. (The codes are declared once, in the Rust
 * core's `ErrorCode`; a test checks that this union and the README's table list exactly
 * those codes.)
 */
export type KitErrorCode =
  | 'INVALID_PUBLIC_KEY'
  | 'INVALID_BUNDLE'
  | 'BUNDLE_CHECKSUM'
  | 'DECRYPTION_FAILED'
  | 'KEY_CONSUMED'
  | 'INVALID_SESSION'
  | 'SESSION_EXPIRED'
  | 'SESSION_CLOSED'
  | 'INVALID_PENDING_SIGNATURE'
  | 'REQUEST_EXPIRED'
  | 'REQUEST_ALREADY_SIGNED'
  | 'STILL_PROCESSING'
  | 'QUOTE_EXPIRED'
  | 'INVALID_TIMESTAMP'
  | 'PASSKEY_UNSUPPORTED'
  | 'PASSKEY_CANCELLED'
  | 'PASSKEY_TIMEOUT'
  | 'PASSKEY_INVALID_DOMAIN'
  | 'PASSKEY_ALREADY_REGISTERED'
  | 'PASSKEY_FAILED'
  | 'UNAUTHORIZED'
  | 'FORBIDDEN'
  | 'RATE_LIMITED'
  | 'SERVICE_ERROR'
  | 'INVALID_INPUT'
  | 'RANDOMNESS_UNAVAILABLE'
  | 'ENGINE_FAULT'
  | 'NOT_INITIALIZED'
  | 'STORE_UNAVAILABLE'
  | 'SIGNER_MODULE_REJECTED';

/** Every failure of the kit is a `KitError`. Messages never contain key material. */
export declare class KitError extends Error {
  /**
   * @param code stable error code
   * @param message human-readable explanation
   * @param cause the underlying error (for example a DOMException from WebAuthn), if any
   */
  constructor(code: KitErrorCode, message: string, cause?: unknown);
  readonly name: 'KitError';
  /** Stable error code; see {@link KitErrorCode}. */
  readonly code: KitErrorCode;
  /** The wrapped underlying error, when the failure came from a browser API. */
  readonly cause?: unknown;
  // What a service error adds (`UNAUTHORIZED`, `FORBIDDEN`, `RATE_LIMITED`, `SERVICE_ERROR`):
  /** The HTTP status the service answered. */
  readonly status?: number;
  /** The service's own `code` (e.g. `EMAIL_OTP_CREDENTIAL_ALREADY_EXISTS`). */
  readonly serviceCode?: string;
  /** The service's `reason` (e.g. `Request id already used`), for 401s and 403s in particular. */
  readonly reason?: string;
  /** `Retry-After` of a 429, in milliseconds: wait this long before trying again. */
  readonly retryAfterMs?: number;
  /**
   * `STILL_PROCESSING`: the `Request-Id` of the signed request the service is still
   * processing (the id its webhook names, and the one to look the operation up by).
   */
  readonly requestId?: string;
}

/**
 * What {@link init} accepts: nothing (load the `.wasm` shipped next to the entry),
 * `{ module_or_path }`, or any of these directly: a URL or path, a `Request`/`Response`,
 * the module bytes, a compiled `WebAssembly.Module`, or a promise of one of those.
 */
export type InitInput =
  | URL
  | string
  | Request
  | Response
  | ArrayBuffer
  | ArrayBufferView
  | WebAssembly.Module
  | Promise<URL | string | Request | Response | ArrayBuffer | ArrayBufferView | WebAssembly.Module>;

/** The options form of {@link init}. */
export interface InitOptions {
  /** Where the module's `.wasm` is (default: next to the entry). */
  module_or_path?: InitInput;
  /**
   * Also load WalletClient's implementation (JS; otherwise its first flow call loads it).
   * The passkey API is in the module `init()` loads either way. The former
   * `{ module_or_path }` form (the wallet module's location) rejects `INVALID_INPUT`.
   */
  passkeys?: boolean;
  /** `false` (the default): sign in this thread. `'worker'` is the other overload of {@link init}. */
  isolate?: false | null;
  /**
   * Load the module's build with the enclave exports of newer deployments
   * ({@link encryptOtp}, {@link openWalletExport}, and so WalletClient's encrypted OTP
   * login), a larger download than the build without them. Without it they throw
   * `NOT_INITIALIZED` saying so. Rejects `INVALID_INPUT` when an earlier `init()` or passkey
   * call without this option loaded the build without them. With `module_or_path`, the
   * module given is the one loaded, whichever build it is.
   */
  enclave?: boolean | null;
}

/**
 * Loads the WebAssembly module: one module with everything this entry exports (keys,
 * sessions, passkeys, the flows behind {@link WalletClient}, the session store,
 * {@link inspectPayload}; the enclave exports with `{ enclave: true }`); no other `.wasm`
 * is fetched afterwards.
 * Call it once before anything else; it is idempotent (every call returns the same
 * promise). In the browser it fetches the `.wasm` next to the entry, which bundlers such
 * as Vite and webpack emit as an asset. In Node the module is read and instantiated
 * synchronously at the first `init()` or call (importing runs nothing), and this
 * resolves once that is done. Pages that only sign can load the smaller
 * signing module instead: `embedded-wallet-kit/signing`.
 *
 * Once it resolved, {@link passkey} calls reach WebAuthn with no download in between
 * (Safari lets WebAuthn run only close to the user's click). `init({ passkeys: true })`
 * also loads WalletClient's implementation; its calls share a second promise.
 *
 * Rejects with `KitError` `NOT_INITIALIZED` if the module cannot be loaded; a later call
 * retries.
 *
 * `init({ isolate: 'worker' })` runs the module's signing in a dedicated Worker instead and
 * resolves to {@link IsolatedKit}: the same API, asynchronous, with keys that page script
 * cannot read. Browser only: the Node entry rejects it with `INVALID_INPUT`.
 */
export declare function init(options: IsolatedInitOptions): Promise<IsolatedKit>;
export declare function init(input?: InitInput | InitOptions): Promise<void>;

/** A WebAuthn authenticator transport, as the browser reports it. */
export type PasskeyTransport = 'usb' | 'nfc' | 'ble' | 'smart-card' | 'hybrid' | 'internal' | (string & {});

/** The WebAuthn requirement levels (resident key, user verification). */
export type PasskeyRequirement = 'required' | 'preferred' | 'discouraged';

/** A WebAuthn hint: a roaming security key, this device, or a phone (hybrid). */
export type PasskeyHint = 'security-key' | 'client-device' | 'hybrid';

/** Options of {@link PasskeyApi.register}. */
export interface PasskeyRegisterOptions {
  /**
   * The registration challenge from the integrator backend, **base64url** (e.g. 32 random
   * bytes). It is decoded to bytes for WebAuthn, so `clientDataJSON.challenge` equals this
   * string. Not base64url → `INVALID_INPUT`.
   */
  challenge: string;
  /** Relying-party id: the page's registrable domain (or the host itself). */
  rpId: string;
  /** Relying-party name shown by some authenticators. */
  rpName: string;
  user: {
    /** A string whose UTF-8 bytes (1 to 64) become the WebAuthn user handle. */
    id: string;
    name: string;
    displayName?: string;
  };
  /** base64url ids of credentials the account already has (an authenticator holding one → `PASSKEY_ALREADY_REGISTERED`). */
  excludeCredentialIds?: string[];
  /** Default `'preferred'`. */
  residentKey?: PasskeyRequirement;
  /** Default `'required'`. */
  userVerification?: PasskeyRequirement;
  /** Restrict to platform (Touch ID, Windows Hello, …) or roaming authenticators. */
  attachment?: 'platform' | 'cross-platform';
  /** 1 to 600000; default 60000. Past it the ceremony rejects `PASSKEY_TIMEOUT`. */
  timeoutMs?: number;
  /**
   * Which authenticator UI the browser offers first (WebAuthn L3 `hints`, in order of
   * preference); browsers without them ignore them. Anything else is `INVALID_INPUT`
   * naming it.
   */
  hints?: PasskeyHint[];
  /** Aborting it rejects the ceremony with `PASSKEY_CANCELLED` (at once if already aborted). */
  signal?: AbortSignal;
}

/** Options of {@link PasskeyApi.authenticate}. */
export interface PasskeyAuthenticateOptions {
  /**
   * The login challenge string from `POST /auth/credentials/{id}/challenge` (64 hex chars).
   * WebAuthn gets its **UTF-8 bytes** (not the hex decoding), so `clientDataJSON.challenge`
   * is base64url of those bytes.
   */
  challenge: string;
  /** base64url id of the one credential allowed (`allowCredentials` is exactly it). */
  credentialId: string;
  /** Default: the page's host. */
  rpId?: string;
  /** Default `'required'`. */
  userVerification?: PasskeyRequirement;
  /** 1 to 600000; default 60000. */
  timeoutMs?: number;
  /**
   * Which authenticator UI the browser offers first (WebAuthn L3 `hints`, in order of
   * preference); browsers without them ignore them. Anything else is `INVALID_INPUT`
   * naming it.
   */
  hints?: PasskeyHint[];
  /**
   * `'conditional'`: passkey autofill. The passkey is offered in the autofill of an
   * `<input autocomplete="username webauthn">` instead of a modal; the request waits for
   * the user with no timeout, until `signal` aborts it or {@link PasskeyApi.cancel} (when
   * the user takes another path: `PASSKEY_CANCELLED`). Start it on page load (no click
   * needed); see {@link Capabilities} `passkeys.conditionalMediation`. Anything else is
   * `INVALID_INPUT`.
   */
  mediation?: 'conditional';
  signal?: AbortSignal;
}

/** What {@link PasskeyApi.register} resolves to. Binary fields are base64url without padding. */
export interface PasskeyAttestation {
  credentialId: string;
  /** Spelled with a lowercase "json", as the service expects. */
  clientDataJson: string;
  attestationObject: string;
  transports: PasskeyTransport[];
}

/**
 * What {@link PasskeyApi.authenticate} resolves to. Binary fields are base64url without
 * padding; `userHandle` is omitted (not null) when the authenticator returns none.
 */
export interface PasskeyAssertion {
  credentialId: string;
  clientDataJson: string;
  authenticatorData: string;
  signature: string;
  userHandle?: string;
}

/** The `POST /auth/credentials` body for a PASSKEY credential. */
export interface PasskeyRegistrationBody {
  accountId: string;
  nickname: string;
  challenge: string;
  attestation: PasskeyAttestation;
}

/**
 * The passkey API. Its code is in the module {@link init} loads (call `init()` at page
 * load, so that a ceremony in a click handler reaches WebAuthn with no download first);
 * an asynchronous call before that loads the module itself (in a browser without WebAuthn
 * nothing is loaded: a ceremony rejects `PASSKEY_UNSUPPORTED` at once, its options
 * unchecked, and a probe answers false / undefined), and the synchronous functions throw
 * `NOT_INITIALIZED` until it is loaded.
 * Node has no WebAuthn: there too ceremonies reject `PASSKEY_UNSUPPORTED` and probes
 * answer false.
 *
 * One ceremony at a time: starting one aborts the one in flight (it rejects
 * `PASSKEY_CANCELLED`). Failures are `KitError`s with the browser's error as `cause`:
 * `PASSKEY_CANCELLED` (user cancelled, aborted, or — for `authenticate` — the credential is
 * not on this device), `PASSKEY_TIMEOUT`, `PASSKEY_INVALID_DOMAIN`,
 * `PASSKEY_ALREADY_REGISTERED`, `PASSKEY_UNSUPPORTED`, `PASSKEY_FAILED`, `INVALID_INPUT`
 * (naming the bad option), `NOT_INITIALIZED` (the module could not be loaded).
 */
export interface PasskeyApi {
  /** Creates a passkey (ES256, then RS256; attestation "none"). */
  register(options: PasskeyRegisterOptions): Promise<PasskeyAttestation>;
  /** Signs the login challenge with one passkey. */
  authenticate(options: PasskeyAuthenticateOptions): Promise<PasskeyAssertion>;
  /** Whether WebAuthn is available here. Throws `NOT_INITIALIZED` before the module is loaded. */
  isSupported(): boolean;
  /** Whether a user-verifying platform authenticator is available; false where the browser cannot tell. */
  platformAuthenticatorAvailable(): Promise<boolean>;
  /** Whether passkey autofill (conditional mediation) is available; false where the browser cannot tell. */
  conditionalMediationAvailable(): Promise<boolean>;
  /** `PublicKeyCredential.getClientCapabilities()`; `undefined` where the browser lacks it. A missing key means unknown. */
  clientCapabilities(): Promise<Record<string, boolean> | undefined>;
  /** Aborts the ceremony in flight (it rejects `PASSKEY_CANCELLED`); a no-op when there is none. */
  cancel(): void;
  /**
   * Tells the authenticator that a credential is gone (`PublicKeyCredential.signalUnknownCredential`,
   * WebAuthn L3), so it stops offering it: after a revoke the app learnt of another way
   * ({@link WalletClient.revokeCredential} does it itself). Resolves `{ signaled: false, reason }`
   * where the browser lacks the method (Firefox ESR, WebKitGTK) or refuses; rejects only
   * `INVALID_INPUT` (naming the bad option). Needs no `init()`. `rpId` defaults to the page's host.
   */
  signalUnknownCredential(options: { credentialId: string; rpId?: string }): Promise<SignalResult>;
  /** `signalAllAcceptedCredentials`: the account's passkeys are exactly these; `userId` as given to {@link PasskeyApi.register} (`user.id`). */
  signalAllAcceptedCredentials(options: { userId: string; allAcceptedCredentialIds: string[]; rpId?: string }): Promise<SignalResult>;
  /** `signalCurrentUserDetails`: the user's name and display name (default: `name`) changed. */
  signalCurrentUserDetails(options: { userId: string; name: string; displayName?: string; rpId?: string }): Promise<SignalResult>;
  /**
   * Builds the `POST /auth/credentials` PASSKEY body. Throws `INVALID_INPUT` for an empty
   * accountId, a nickname outside 1–100 characters, a challenge that is not base64url, or
   * an attestation not shaped like {@link PasskeyAttestation}. Throws `NOT_INITIALIZED`
   * before the module is loaded.
   */
  registrationBody(
    accountId: string,
    nickname: string,
    challenge: string,
    attestation: PasskeyAttestation,
  ): PasskeyRegistrationBody;
}

/** What a WebAuthn signal did: `reason` says why it was not made. */
export interface SignalResult {
  signaled: boolean;
  reason?: string;
}

/** Options of {@link WalletClient.revokeCredential}. */
export interface RevokeCredentialOptions {
  /**
   * For a PASSKEY credential: its WebAuthn credential id (base64url, the AuthMethod's
   * `credentialId`): once revoked, the authenticator is told to forget it
   * ({@link PasskeyApi.signalUnknownCredential}).
   */
  passkeyCredentialId?: string;
  /** The relying party of that passkey; default: the page's host. */
  rpId?: string;
}

/** The passkey API; see {@link PasskeyApi}. */
export declare const passkey: PasskeyApi;

/** One answer of {@link capabilities}: `reason` (for logs and the UI) says why not. */
export interface Capability {
  available: boolean;
  /** Why it is not available; absent when it is. */
  reason?: string;
}

/** The passkey part of {@link capabilities}: `available` is WebAuthn being there at all. */
export interface PasskeyCapabilities extends Capability {
  /** A user-verifying platform authenticator (`isUserVerifyingPlatformAuthenticatorAvailable`); false where the browser cannot tell. */
  platformAuthenticator: boolean;
  /** Passkey autofill (`isConditionalMediationAvailable`); false where the browser cannot tell. */
  conditionalMediation: boolean;
  /** Which of WebAuthn Level 3's signal methods `PublicKeyCredential` has. */
  signals: {
    signalUnknownCredential: boolean;
    signalAllAcceptedCredentials: boolean;
    signalCurrentUserDetails: boolean;
  };
  /** `PublicKeyCredential.getClientCapabilities()`; `undefined` where the browser lacks it. A missing key means unknown. */
  clientCapabilities: Record<string, boolean> | undefined;
}

/** What {@link capabilities} resolves to. */
export interface Capabilities {
  passkeys: PasskeyCapabilities;
  /**
   * Whether a non-extractable key can be kept in IndexedDB (what {@link SessionStore} does
   * to keep sessions across reloads): tried once, for real, with a throwaway key that is
   * deleted at once. Not available in iOS Lockdown Mode and some private modes
   * (`DataCloneError`), without IndexedDB, or outside a secure context.
   */
  persistentKeys: Capability;
  /** Whether the page may compile WebAssembly (its CSP): true once `init()` instantiated the kit's module, else an empty module is instantiated. */
  wasm: Capability;
  /**
   * Whether the isolated signer (`init({ isolate: 'worker' })`) can start here: the kit's
   * own Worker (signer-worker.js, same origin, as `init()` starts it) is started, answers a
   * probe without loading the wasm, and is ended. Unavailable, with the reason, where the
   * page's CSP forbids it (`worker-src`, else `script-src`), its scripts do not load, it
   * gives no answer within 5 s, or there are no Workers. Cost: one Worker start, in
   * parallel with the other probes: about 8 KB gzip of scripts (signer-boot.js,
   * signer-worker.js, the wallet module's glue; then in the HTTP cache for `init()`), no
   * wasm; measured from a fresh page: Chromium 35–60 ms, Firefox ESR 40–100 ms, WebKitGTK
   * about 15 ms.
   */
  isolatedSigner: Capability;
}

/**
 * What this browser and this page let the kit do, each part with a `reason` when not.
 * Probed once per page (later calls resolve to the same object); never prompts the user;
 * needs no `init()` (its code, a small module, is loaded by the first call). Never rejects
 * except `NOT_INITIALIZED` when that module cannot be loaded.
 */
export declare function capabilities(): Promise<Capabilities>;

// The handle classes (npm/guard.js) and the wallet module's functions the entries export.
// tests/types/glue-agrees.ts checks them against wasm-bindgen's declarations of the glue.

/**
 * An ephemeral P-256 key pair generated inside WebAssembly memory. Its public half is the
 * `clientPublicKey` of one verify, challenge or refresh call; its private half never
 * leaves wasm memory and is consumed by {@link Session.open}.
 */
export declare class ClientKey {
  private constructor();
  /**
   * Zeroizes the private key and releases the wasm memory behind the object at once (during
   * a call that uses the key, from a getter of its argument: as soon as that call returns,
   * which then throws `KEY_CONSUMED`). The public key stays readable; `consumed` is true and
   * a later `Session.open` with it throws `KEY_CONSUMED`. A second `free()` does nothing.
   * Where the runtime has `Symbol.dispose`, `using` does the same.
   */
  free(): void;
  /**
   * Zeroizes the private key now; a later `Session.open` with it throws `KEY_CONSUMED`.
   * The object stays usable for its public key: {@link free} also releases its memory.
   */
  close(): void;
  /**
   * Generates a fresh key from the platform's secure random source.
   */
  static generate(): ClientKey;
  /**
   * The OIDC `nonce` for an OAUTH login: lowercase hex SHA-256 of the ASCII bytes of the
   * `clientPublicKey` string sent (the hex string, not the decoded key): {@link publicKeyHex},
   * or with `{ compressed: true }` {@link compressedPublicKeyHex} (the client-held session
   * key flow, which sends the compressed form). Throws `INVALID_INPUT` for any other
   * argument (not an object, unknown members, a non-boolean `compressed`).
   */
  oidcNonce(options?: { compressed?: boolean }): string;
  /**
   * Both retry headers for a 202, stamped with this key: the second leg of the encrypted
   * OTP login, which the TEK signs before any session exists. Does not consume the key.
   * Signs each requestId once (compared case-insensitively); the ids it signed stay
   * signed in the session {@link Session.fromClientKey} makes of it.
   * Throws `INVALID_PENDING_SIGNATURE`, `REQUEST_EXPIRED`, `REQUEST_ALREADY_SIGNED`, `KEY_CONSUMED`.
   */
  signRetry(pending202: PendingSignature | string): SignedRetryHeaders;
  /**
   * Compressed SEC1 public key, 66 lowercase hex chars (`02`/`03` prefix).
   */
  readonly compressedPublicKeyHex: string;
  /**
   * Whether the key was already used to open a session, or freed.
   */
  readonly consumed: boolean;
  /**
   * Uncompressed SEC1 public key, 130 lowercase hex chars, `^04[0-9a-f]{128}$`: send this as `clientPublicKey`.
   */
  readonly publicKeyHex: string;
}

/**
 * An authenticated session whose P-256 signing key lives only in wasm memory.
 */
export declare class Session {
  private constructor();
  /**
   * Zeroizes the session key and releases the wasm memory behind the object at once (during
   * a call that uses the session, from a getter of its argument: as soon as that call
   * returns, which then throws `SESSION_CLOSED`). `id`, `accountId`, `type`, `expiresAt`,
   * `sandboxed` and `isExpired` still answer; any signing call throws `SESSION_CLOSED`. A
   * second `free()` does nothing. Where the runtime has `Symbol.dispose`, `using` does the same.
   */
  free(): void;
  /**
   * Zeroizes the session key now; any later signing call throws `SESSION_CLOSED`. The
   * object stays usable for its public facts: {@link free} also releases its memory.
   */
  close(): void;
  /**
   * Newer deployments: the client key itself becomes the session key (a compressed
   * `clientPublicKey` was sent). A response carrying a bundle is `INVALID_SESSION`.
   */
  static fromClientKey(response: SessionResponse | string, key: ClientKey): Session;
  /**
   * Whether `expiresAt` has passed at `now` (a Date or epoch milliseconds; default: the
   * current time). Throws `INVALID_INPUT` for an invalid Date.
   */
  isExpired(now?: Date | number): boolean;
  /**
   * Opens the session bundle of a verify/refresh response with the ClientKey whose
   * public key was sent as `clientPublicKey`. Consumes the key: a second use throws
   * `KEY_CONSUMED`. Throws `INVALID_BUNDLE`, `BUNDLE_CHECKSUM`, `DECRYPTION_FAILED`,
   * `INVALID_SESSION`, `INVALID_TIMESTAMP`.
   */
  static open(response: SessionResponse | string, key: ClientKey): Session;
  /**
   * A sandbox session (API version 2025-10-13): never reads the bundle, and every
   * signature is the literal `sandbox-valid-signature`.
   */
  static sandbox(response: SessionResponse | string): Session;
  /**
   * Signs a quote's `payloadToSign` for `POST /quotes/{id}/execute`. Throws
   * `INVALID_INPUT` (no `payloadToSign`; in the main entry, JSON that `inspectPayload`
   * refuses), `QUOTE_EXPIRED`, `SESSION_EXPIRED`, `SESSION_CLOSED`.
   */
  signQuote(quote: Quote | string): QuoteSignatureHeader;
  /**
   * Signs a 202 PendingSignature. Returns exactly the two retry headers. Throws
   * `INVALID_PENDING_SIGNATURE`, `REQUEST_EXPIRED`, `REQUEST_ALREADY_SIGNED`,
   * `SESSION_EXPIRED`, `SESSION_CLOSED`.
   */
  signRetry(pending202: PendingSignature | string): SignedRetryHeaders;
  /**
   * The API-key stamp over the exact UTF-8 bytes of `payloadToSign`: the value of the
   * `Service-Wallet-Signature` header. Checks only the session, no requestId or expiry
   * of a 202 or quote: give those to `signRetry` and `signQuote`. Throws
   * `SESSION_EXPIRED`, `SESSION_CLOSED`; in the main entry `INVALID_INPUT` for JSON
   * that `inspectPayload` refuses.
   */
  stamp(payloadToSign: string): string;
  /**
   * `InternalAccount:<uuid>`
   */
  readonly accountId: string;
  /**
   * When the session key stops being usable.
   */
  readonly expiresAt: Date;
  /**
   * `Session:<uuid>`
   */
  readonly id: string;
  /**
   * How the session key came here: `'sealed'` (opened from the service's sealed
   * bundle, {@link Session.open}), `'client-held'` (the client's own key,
   * {@link Session.fromClientKey}) or `'sandbox'` ({@link Session.sandbox}, no key).
   * Kept after {@link free}.
   */
  readonly keyMode: 'sealed' | 'client-held' | 'sandbox';
  /**
   * Compressed SEC1 public key of the session key, 66 lowercase hex chars; `undefined`
   * for a sandbox session (it has no key) and after {@link free}.
   */
  readonly publicKeyHex: string | undefined;
  /**
   * Whether this is a {@link Session.sandbox} session.
   */
  readonly sandboxed: boolean;
  /**
   * `EMAIL_OTP`, `OAUTH` or `PASSKEY`.
   */
  readonly type: string;
}

/**
 * Reads what `payloadToSign` would authorize, so a wallet UI can show it before signing.
 * A payload starting with `{` or `[` must be strict JSON naming each member once in any
 * letter case: else `INVALID_INPUT` says what is wrong and at which byte, and this
 * module signs it nowhere (readers differ on which of two members counts). Other text
 * is opaque: `{ json: false, targetPublicKeys: [] }`.
 */
export declare function inspectPayload(payloadToSign: string): PayloadInspection;

/**
 * The encrypted OTP login. Verifies the `otpEncryptionTargetBundle` of a `/challenge`
 * response (object or JSON text; the documented single-quoted form is tolerated) under
 * `options.pin`, and HPKE-seals `{"otp_code":…,"public_key":…}` to its enclave key,
 * binding `key`'s public key (the TEK) in its compressed form, `key.compressedPublicKeyHex`
 * (production refuses the uncompressed one). Returns the `encryptedOtpBundle` string to send
 * in `{type, encryptedOtpBundle}`. `key` is not consumed: it stamps the 202
 * ({@link ClientKey.signRetry}) and then becomes the session key
 * ({@link Session.fromClientKey}). The code never appears in error messages.
 * Throws `INVALID_INPUT` (code, options), `INVALID_BUNDLE`, `INVALID_PUBLIC_KEY`,
 * `DECRYPTION_FAILED` (signature does not verify, or another signer than the pin),
 * `KEY_CONSUMED`. In the browser it needs `init({ enclave: true })` (`NOT_INITIALIZED`
 * otherwise).
 */
export declare function encryptOtp(targetBundle: EnclaveEnvelope | string, otpCode: string, key: ClientKey, options?: EnclaveOptions): string;

/**
 * Opens a wallet export (the 200 response, or its `encryptedWalletCredentials` envelope;
 * object or JSON text) with the ClientKey whose `publicKeyHex` was sent, after checking
 * the envelope's signature under `options.pin`. Returns the BIP-39 mnemonic and consumes
 * the key. The mnemonic is handed out once, as a JS string, which JavaScript cannot
 * zeroize: keep it no longer than needed. The kit's own copy in wasm memory is zeroized.
 * Throws `INVALID_INPUT` (options), `INVALID_BUNDLE`, `INVALID_PUBLIC_KEY`,
 * `DECRYPTION_FAILED`, `KEY_CONSUMED`. In the browser it needs `init({ enclave: true })`
 * (`NOT_INITIALIZED` otherwise).
 */
export declare function openWalletExport(response: WalletExportResponse | EnclaveEnvelope | string, key: ClientKey, options?: WalletExportOptions): string;

/** A session-issuing response (verify or refresh), as an object or as raw JSON text. */
export interface SessionResponse {
  /** `Session:<uuid>` */
  id: string;
  /** `InternalAccount:<uuid>` */
  accountId: string;
  type: 'EMAIL_OTP' | 'OAUTH' | 'PASSKEY' | string;
  nickname?: string;
  createdAt?: string;
  updatedAt?: string;
  /** RFC 3339 date-time. */
  expiresAt: string;
  credentialId?: string;
  /** base58check HPKE bundle sealed to the ClientKey (absent in sandbox / client-held-key flows). */
  encryptedSessionSigningKey?: string;
  [field: string]: unknown;
}

/** The 202 body of a signed-retry first call. */
export interface PendingSignature {
  /** Signed byte for byte as received. */
  payloadToSign: string;
  /** `Request:<uuid>`, single use. */
  requestId: string;
  /** RFC 3339 date-time; the retry must happen before it. */
  expiresAt: string;
  [field: string]: unknown;
}

/** A quote; only `payloadToSign` and `expiresAt` are read. */
export interface Quote {
  id?: string;
  payloadToSign: string;
  expiresAt: string;
  [field: string]: unknown;
}

/** Headers to add to the retry of a signed-retry operation (same method, path and body). */
export interface SignedRetryHeaders {
  'Service-Wallet-Signature': string;
  'Request-Id': string;
}

/** Header to send with `POST /quotes/{id}/execute` from an embedded wallet. */
export interface QuoteSignatureHeader {
  'Service-Wallet-Signature': string;
}

/**
 * What a `payloadToSign` authorizes, from {@link inspectPayload}. A payload the kit
 * refuses to sign has none: `inspectPayload` throws `INVALID_INPUT` saying why and where.
 */
export interface PayloadInspection {
  /** Whether the payload is a JSON object (an activity); `false` for opaque text (a token, base64) and a JSON array. */
  json: boolean;
  /** The activity `type`, e.g. `ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION_V2`. */
  activityType?: string;
  organizationId?: string;
  timestampMs?: string;
  /** Every `targetPublicKey`, in any letter case, at any depth: the keys the activity would empower. */
  targetPublicKeys: string[];
  /** `parameters.amount`, as written (a number's text or a string). */
  amount?: string;
  /** `parameters.currency`. */
  currency?: string;
  /** `parameters.sourceAccountId`. */
  source?: string;
  /** `parameters.destinationAccountId` (or `parameters.destination`). */
  destination?: string;
  /** `parameters.quoteId`. */
  quoteId?: string;
  /** `parameters.walletId`. */
  walletId?: string;
}

// ---- WalletClient ----------------------------------------------------------------------

/** A request a {@link WalletClient} asks its transport to send. */
export interface TransportRequest {
  /** `GET`, `POST`, `PATCH` or `DELETE`. */
  method: string;
  /** Path (and query) relative to the API base URL, e.g. `/auth/credentials`. */
  path: string;
  /** Headers to send besides the transport's own (signature, Request-Id, Idempotency-Key). */
  headers: Record<string, string>;
  /** The JSON body text, to send byte for byte; absent when there is none. */
  body?: string;
}

/** What a transport resolves to: the service's answer. */
export interface TransportResponse {
  /** The HTTP status (an integer 100–599; anything else is `SERVICE_ERROR`). */
  status: number;
  /** A fetch `Headers` or a plain object; only `Retry-After` is read. */
  headers?: Headers | Record<string, string>;
  /** The body as JSON text or as a parsed object (a body that is not JSON is not read). */
  body?: string | object | null;
}

/**
 * Sends one request to the service, normally through the integrator backend, which adds
 * the API credentials: the API secret never enters the browser. It may be async, and may
 * return the fetch `Response` itself (its status, headers and text are read). When it
 * throws or returns something that is not a response object, or a body of another kind
 * (a stream, bytes), the operation rejects with `SERVICE_ERROR` (the thrown error as
 * `cause`); a `KitError` it throws passes through.
 */
export type Transport = (request: TransportRequest) => TransportResponse | Response | Promise<TransportResponse | Response>;

/** What {@link WalletClientOptions.onPending} is told before a re-send. */
export interface PendingEvent {
  /** The WalletClient method under way, e.g. `'refresh'`, `'revokeSession'`, `'verifyEmailOtp'`. */
  operation: string;
  /** 1 for the first re-send. */
  attempt: number;
  /** How long the kit waits before this re-send. */
  delayMs: number;
  /** The signed request's `Request-Id`, when it has one (match the service's webhook with it). */
  requestId?: string;
}

/** What {@link WalletClientOptions.onSigned} is told when a signed request is first sent. */
export interface SignedEvent {
  /** The WalletClient method under way, e.g. `'refresh'`, `'updateCustomer'`, `'request'`. */
  operation: string;
  /**
   * The request's `Request-Id`: the `requestId` of the service's
   * `WALLET_OPERATION.COMPLETED`/`.FAILED` webhook for this operation.
   */
  requestId: string;
}

/** Options of {@link WalletClient}. */
export interface WalletClientOptions {
  transport: Transport;
  /**
   * The API 2025-10-13 sandbox: sessions are opened with {@link Session.sandbox} (its
   * bundles are stubs). Default false.
   */
  sandbox?: boolean;
  /**
   * The session key mode, for every flow of this client:
   * - `'sealed'` (default): the spec's flow. `clientPublicKey` is the uncompressed key and
   *   the session key comes back sealed to it ({@link Session.open}).
   * - `'client-held'`: newer deployments. The PASSKEY challenge, OAUTH verify and refresh
   *   send the *compressed* key and the key itself becomes the session key
   *   ({@link Session.fromClientKey}; a response carrying a bundle is `INVALID_SESSION`).
   *   EMAIL_OTP uses the encrypted OTP login when the credential's challenge carried an
   *   `otpEncryptionTargetBundle`. The OAUTH nonce is over the compressed key: get it
   *   from {@link WalletClient.oidcNonce}. Export still sends the uncompressed key.
   *
   * Anything else is `INVALID_INPUT`.
   */
  keys?: 'sealed' | 'client-held';
  /**
   * Who must have signed an `otpEncryptionTargetBundle` (the encrypted OTP login):
   * `'production'` (default), `'sandbox'` (default with `sandbox: true`), or a signer
   * public key in hex (e.g. the emulator's `otpSignerPublicKey`).
   */
  otpSignerPin?: SignerPin;
  /**
   * Called before each re-send of a request the service answered
   * `200 {"status":"PROCESSING"}` to (its busy-hour answer): show a pending state.
   * A listener that throws is ignored.
   */
  onPending?: (event: PendingEvent) => void;
  /**
   * Called as each signed request (a signed retry: every operation on a session, and the
   * client-held OTP login) is first sent, with its `Request-Id`, so the app's backend can
   * match the service's webhook. Re-sends after `PROCESSING` are the same request and are
   * not told again; a request the service let expire is re-signed with a new id, which is
   * told. `executeQuote` is keyed by its `Idempotency-Key` instead and is not told.
   * A listener that throws is ignored.
   */
  onSigned?: (event: SignedEvent) => void;
  /**
   * How a request the service is still processing is re-sent: the identical request
   * (never re-stamped), at most `maxResends` times (default 10), after waits from
   * `firstDelayMs` (default 500) doubling up to `maxDelayMs` (default 8 000), each drawn
   * between its half and its whole. The call then fails with `STILL_PROCESSING` (its
   * `requestId` set): neither success nor failure, the operation may still complete.
   * `timeoutMs` (from the first PROCESSING) and `signal` end the waiting sooner, the same way.
   */
  processing?: {
    maxResends?: number;
    firstDelayMs?: number;
    maxDelayMs?: number;
    timeoutMs?: number;
    signal?: AbortSignal;
  };
  /**
   * The passkey ceremonies to use (default: the kit's {@link passkey}); e.g. a
   * `SoftAuthenticator` from `embedded-wallet-kit/testing` in tests.
   */
  passkey?: {
    register?(options: PasskeyRegisterOptions): PasskeyAttestation | Promise<PasskeyAttestation>;
    authenticate?(options: PasskeyAuthenticateOptions): PasskeyAssertion | Promise<PasskeyAssertion>;
  };
}

/** A credential (AuthMethod). */
export interface AuthMethod {
  /** `AuthMethod:<uuid>` */
  id: string;
  accountId: string;
  type: 'EMAIL_OTP' | 'OAUTH' | 'PASSKEY' | string;
  nickname?: string;
  /** PASSKEY: the WebAuthn credential id (base64url). */
  credentialId?: string;
  [field: string]: unknown;
}

/** Options of {@link WalletClient.registerPasskey}: {@link PasskeyRegisterOptions} plus the credential's account and name. */
export interface RegisterPasskeyOptions extends PasskeyRegisterOptions {
  /** `InternalAccount:<uuid>` */
  accountId: string;
  /** 1 to 100 characters. */
  nickname: string;
}

/** Options of {@link WalletClient.verifyEmailOtp}. */
export interface VerifyEmailOtpOptions {
  /**
   * Client-held mode only: the `otpEncryptionTargetBundle` to seal the code to (default:
   * the one remembered from this credential's last {@link WalletClient.challenge} or
   * {@link WalletClient.createEmailOtp} answer). In sealed mode it is `INVALID_INPUT`.
   */
  otpEncryptionTargetBundle?: EnclaveEnvelope | string;
}

/** Options of {@link WalletClient.loginWithPasskey}. */
export interface LoginWithPasskeyOptions extends Omit<PasskeyAuthenticateOptions, 'challenge' | 'credentialId'> {
  /** The key to bind the session to (default: a fresh one, freed afterwards). */
  key?: ClientKey;
}

/**
 * The wallet's flows against the service, driven by the kit's core: requests are built,
 * 202s signed and retried (same method, path and body bytes; repeated 202s signed in
 * turn; a 202 that expired before it could be signed restarts the request once), and
 * answers typed. Every failure is a {@link KitError}: `UNAUTHORIZED` (401, with
 * `reason`), `FORBIDDEN` (403, with `reason`), `RATE_LIMITED` (429, with `retryAfterMs`), `SERVICE_ERROR` (any other
 * answer, a failed transport, a malformed response), `INVALID_INPUT` (bad arguments,
 * named), and the signing codes (`SESSION_EXPIRED`, `REQUEST_EXPIRED`, `QUOTE_EXPIRED`, …).
 * `new WalletClient()` throws `NOT_INITIALIZED` before {@link init} resolved.
 *
 * Methods that take a `key` and open a session consume it; where `key` is optional a
 * fresh one is made and freed.
 *
 * Methods that take a `session` check it first: a freed one is `SESSION_CLOSED`, an
 * expired one `SESSION_EXPIRED`, and then nothing is sent (the transport is not called).
 * A {@link StoredSession} is taken wherever a {@link Session} is: it signs asynchronously
 * (WebCrypto), and one deleted from its store or replaced by a refresh (in this or
 * another tab) is `SESSION_CLOSED`.
 */
export declare class WalletClient {
  constructor(options: WalletClientOptions);
  /** The key mode chosen at construction ({@link WalletClientOptions.keys}). */
  readonly keys: 'sealed' | 'client-held';
  /**
   * The OIDC `nonce` to put in the token for an OAUTH login with `key` in this client's
   * key mode: hex SHA-256 of the `clientPublicKey` string {@link verifyOauth} will send
   * (the same as `key.oidcNonce()` in sealed mode; over `key.compressedPublicKeyHex` in
   * client-held mode).
   */
  oidcNonce(key: ClientKey): string;
  /**
   * `POST /auth/credentials` for an EMAIL_OTP credential (the OTP email is sent). On an
   * account that already has a credential, pass a session of it: the call is then a
   * signed retry (without one, the service's 202 is `SERVICE_ERROR`).
   */
  createEmailOtp(accountId: string, session?: Session | StoredSession): Promise<AuthMethod>;
  /** Adds a credential (any `POST /auth/credentials` body) as a signed retry. */
  addCredential(session: Session | StoredSession, body: object | string): Promise<AuthMethod>;
  /**
   * Registers a passkey: WebAuthn create, then `POST /auth/credentials` — a signed retry
   * with `session` when the account already has a credential.
   */
  registerPasskey(options: RegisterPasskeyOptions, session?: Session | StoredSession): Promise<AuthMethod>;
  /**
   * `POST /auth/credentials/{id}/challenge` for EMAIL_OTP re-authentication: a new OTP is
   * emailed. In client-held mode its `otpEncryptionTargetBundle`, when present, is
   * remembered for this credential's next {@link verifyEmailOtp}.
   */
  challenge(credentialId: string): Promise<AuthMethod>;
  /**
   * Verifies an OTP → a new session (bound to `key`, or to a fresh key). In client-held
   * mode with a target bundle (see {@link VerifyEmailOtpOptions}) this is the encrypted
   * OTP login: the code is sealed to the enclave (`encryptOtp`, pinned by
   * `otpSignerPin`), the 202 is signed by `key` (the TEK) and `key` becomes the session
   * key; the code is spent on the first leg, so an expired 202 is `REQUEST_EXPIRED`
   * (request a new code). Client-held without a target bundle is `INVALID_INPUT` ("call
   * challenge() first"), nothing sent: the plaintext code is never the fallback. Sealed
   * mode: the plaintext verify (sealed session).
   */
  verifyEmailOtp(credentialId: string, otp: string, key?: ClientKey, options?: VerifyEmailOtpOptions): Promise<Session>;
  /** Verifies a fresh OIDC token whose `nonce` is {@link oidcNonce}`(key)` → a new session. */
  verifyOauth(credentialId: string, oidcToken: string, key: ClientKey): Promise<Session>;
  /**
   * Passkey login: challenge bound to the key's `clientPublicKey`, WebAuthn assertion
   * (`passkey.authenticate`), verify with the challenge's Request-Id → a new session.
   * Without WebAuthn (in-app webviews; see {@link capabilities}) it rejects
   * `PASSKEY_UNSUPPORTED` before any request, its message giving the reason and pointing
   * to the email-code login; so does {@link WalletClient.registerPasskey}.
   */
  loginWithPasskey(credentialId: string, options?: LoginWithPasskeyOptions): Promise<Session>;
  /**
   * Refresh: a fresh key, signed by `session` (refused with `INVALID_PENDING_SIGNATURE`
   * unless the payload names that key) → the new session. `session` stays open: free it
   * when done. A {@link StoredSession} is refreshed the same way (the new session is in
   * memory: save it, or let a {@link SessionKeeper} do it for every tab).
   */
  refresh(session: Session | StoredSession): Promise<Session>;
  /**
   * Revokes `session` at the service. The session is freed (its key zeroized) whatever
   * happens: revoked, refused, the transport failed, or it was already expired (then
   * `SESSION_EXPIRED` and nothing is sent). A session that was not revoked at the
   * service lives there until its `expiresAt`. A {@link StoredSession} is deleted from its
   * store instead, whatever happens: a logout in every tab of the origin.
   */
  revokeSession(session: Session | StoredSession): Promise<void>;
  /**
   * Revokes a credential. Refused locally (`INVALID_INPUT`) when `session` was issued by
   * that credential: the service requires a session of another one. With
   * `options.passkeyCredentialId`, then signals the authenticator to forget that passkey
   * where the browser can; resolves to what the signal did (`signaled: false` with a
   * reason without the option or the browser method).
   */
  revokeCredential(session: Session | StoredSession, credentialId: string, options?: RevokeCredentialOptions): Promise<SignalResult>;
  /**
   * `POST /internal-accounts/{id}/export` as a signed retry; the envelope is sealed to
   * `key` (its uncompressed `publicKeyHex`, in both key modes). Open it with
   * `openWalletExport(response, key, { pin })`.
   */
  exportWallet(session: Session | StoredSession, accountId: string, key: ClientKey): Promise<Record<string, unknown>>;
  /** `PATCH /internal-accounts/{id}` as a signed retry → the account. */
  updateAccount(session: Session | StoredSession, accountId: string, patch: object | string): Promise<Record<string, unknown>>;
  /**
   * `PATCH /customers/{customerId}` as a signed retry → the customer: the email or phone
   * number (E.164) an OTP credential is tied to, exactly one. Anything else is
   * `INVALID_INPUT`, nothing sent.
   */
  updateCustomer(session: Session | StoredSession, customerId: string, change: { email: string } | { phoneNumber: string }): Promise<Record<string, unknown>>;
  /**
   * Executes a quote from an embedded wallet: signed with `session`, one Idempotency-Key
   * for every attempt; when the transport fails the request is sent again (up to
   * `attempts`, default 3). Resolves to the service's answer (the transaction).
   */
  executeQuote(session: Session | StoredSession, quote: Quote & { id: string }, options?: { attempts?: number }): Promise<Record<string, unknown>>;
  /**
   * Any request, as a signed retry when `session` is given (a 202 without one is
   * `SERVICE_ERROR`). Resolves to the transport's last response; non-2xx answers reject.
   */
  request(request: { method: string; path: string; headers?: Record<string, string>; body?: object | string }, session?: Session | StoredSession): Promise<TransportResponse>;
}

// ---- SessionStore ----------------------------------------------------------------------

/** Options of {@link SessionStore.open}. */
export interface SessionStoreOptions {
  /** IndexedDB database name (default `'embedded-wallet-kit'`); one store per name. */
  name?: string;
  /** The IndexedDB factory to use (default `globalThis.indexedDB`; Node has none). */
  indexedDB?: IDBFactory;
}

/** What {@link SessionStore.saveClientKey} returns: the public parts of the stored key. */
export interface StoredClientKey {
  /** Send as `clientPublicKey` (uncompressed, 130 hex); also names the key in {@link SessionStore.openSession}. */
  publicKeyHex: string;
  compressedPublicKeyHex: string;
  /** The OIDC `nonce` to put in the IdP request (see {@link ClientKey.oidcNonce}). */
  oidcNonce: string;
}

/**
 * A session kept in a {@link SessionStore}. Its key is a non-extractable WebCrypto key
 * (page script can sign with it but never read it); the checks and the stamp format are
 * those of {@link Session}. Signing is asynchronous. Unlike the in-wasm signer, WebCrypto's
 * ECDSA is randomized: stamps verify the same way but are not byte-for-byte repeatable.
 * Not constructible: get one from {@link SessionStore.save}, `load` or `list`.
 */
export interface StoredSession {
  /** `Session:<uuid>` */
  readonly id: string;
  readonly accountId: string;
  readonly type: string;
  readonly expiresAt: Date;
  /** Compressed SEC1 public key hex (66 chars); `undefined` for a sandbox session. */
  readonly publicKeyHex: string | undefined;
  readonly sandboxed: boolean;
  /** As {@link Session.keyMode}. */
  readonly keyMode: 'sealed' | 'client-held' | 'sandbox';
  /**
   * False when this browser refused to keep its key in IndexedDB (`DataCloneError`: iOS
   * Lockdown Mode, some private modes; see {@link capabilities}): the session then lives in
   * this page's memory until it is closed (`load`/`list` of this store find it, other
   * pages and a reload do not), and the login goes on; the app may ask the user to stay
   * on the page, or log in again after a reload.
   */
  readonly persisted: boolean;
  /** As {@link Session.isExpired}. */
  isExpired(now?: Date | number): boolean;
  /**
   * As {@link Session.stamp}; also `SESSION_CLOSED` once deleted from the store (in
   * another page: once its BroadcastChannel message arrived), `STORE_UNAVAILABLE`.
   */
  stamp(payloadToSign: string): Promise<string>;
  /**
   * As {@link Session.signRetry}. Signed request ids are kept in the store, so a
   * `requestId` signed before a reload (or in another tab) is `REQUEST_ALREADY_SIGNED`.
   */
  signRetry(pending202: PendingSignature | string): Promise<SignedRetryHeaders>;
  /** As {@link Session.signQuote}. */
  signQuote(quote: Quote | string): Promise<QuoteSignatureHeader>;
  /** Deletes it, and any sessions that replaced it (refreshes in any tab), from the store; this object then throws `SESSION_CLOSED`. */
  delete(): Promise<void>;
}

/**
 * Sessions kept across page loads in IndexedDB, each key a non-extractable WebCrypto key,
 * plus a client key kept across an OAUTH redirect. Browser only (Node has no IndexedDB
 * unless one is passed in). Failures: `STORE_UNAVAILABLE` (IndexedDB or WebCrypto missing
 * or failing), `INVALID_INPUT`, and the {@link Session} codes.
 */
export declare class SessionStore {
  private constructor();
  /**
   * Opens (or creates) the store and deletes expired sessions and client keys kept for
   * more than an hour. The first call loads the store's code (a small JS module next to
   * the entry; `init()` does not load it). Rejects `NOT_INITIALIZED` before `init()` or if
   * that module cannot be loaded, `STORE_UNAVAILABLE` without IndexedDB or `crypto.subtle`.
   */
  static open(options?: SessionStoreOptions): Promise<SessionStore>;
  /**
   * Keeps `session` (its key imported into WebCrypto as non-extractable; a sandbox
   * session is kept without a key). The in-memory `session` stays usable; `free()` it
   * if only the stored one is needed. Rejects `SESSION_CLOSED`, `SESSION_EXPIRED`.
   */
  save(session: Session): Promise<StoredSession>;
  /**
   * The stored session with this id or, when refreshes (in any tab) replaced it, the
   * session that replaced it last; `null` if there is none (deleted: a logout) or it has
   * expired. An app that remembers one id finds its session after any number of refreshes.
   */
  load(id: string): Promise<StoredSession | null>;
  /** Every stored session that has not expired. */
  list(): Promise<StoredSession[]>;
  /** Deletes one session and any sessions that replaced it (refreshes in any tab); nothing happens if there is none. */
  delete(id: string): Promise<void>;
  /** Deletes every session and stored client key. */
  clear(): Promise<void>;
  /** Closes the database connection; later calls reject `STORE_UNAVAILABLE`. */
  close(): void;
  /**
   * Saves `key` as a non-extractable WebCrypto key for the OAUTH redirect (for up to
   * an hour); `key` itself is not consumed. Rejects `KEY_CONSUMED` for a used key.
   */
  saveClientKey(key: ClientKey): Promise<StoredClientKey>;
  /**
   * Opens a verify response with a stored client key (the only one stored, or the one whose
   * `publicKeyHex` is given) and deletes that key: a second open is `KEY_CONSUMED`. A failed
   * open keeps it. Returns an ordinary in-memory {@link Session} (save it to keep it).
   */
  openSession(response: SessionResponse | string, options?: { publicKeyHex?: string }): Promise<Session>;
}

// ---------------------------------------------------------------------------------------
// Newer deployments: encrypted OTP and wallet export

/**
 * Who must have signed an enclave envelope. `"production"` (the default): the published
 * production signer key, for `encryptOtp` the TLS-fetcher key and for `openWalletExport`
 * the signer key. `"sandbox"`: no signature check (sandboxes send empty signature fields).
 * Any other string: that signer public key, in hex (either SEC1 encoding), e.g. a test
 * deployment's or the emulator's `otpSignerPublicKey` / `exportSignerPublicKey`.
 */
export type SignerPin = 'production' | 'sandbox' | (string & {});

export interface EnclaveOptions {
  /** Default `"production"`. */
  pin?: SignerPin;
  /** `true` is the same as `pin: "sandbox"`; contradicting `pin` is `INVALID_INPUT`. */
  sandbox?: boolean;
}

export interface WalletExportOptions extends EnclaveOptions {
  /** When given, the bundle's `organizationId` must equal it (the one in the export 202's payload). */
  organizationId?: string;
}

/** The signed envelope of `otpEncryptionTargetBundle` and `encryptedWalletCredentials`. */
export interface EnclaveEnvelope {
  version: 'v1.0.0' | string;
  /** Hex of UTF-8 JSON. */
  data: string;
  /** Hex DER ECDSA-P256-SHA256 over the hex-decoded data; empty in sandbox. */
  dataSignature: string;
  /** Hex signer public key; empty in sandbox. */
  enclaveQuorumPublic: string;
  [field: string]: unknown;
}

// ---- SessionKeeper ---------------------------------------------------------------------

/** Options of {@link SessionKeeper}. Durations are milliseconds. */
export interface SessionKeeperOptions {
  /**
   * Refresh this long before `expiresAt` (default 60 000), but never earlier than half the
   * session's lifetime (from when the keeper took it), nor within a second of taking it:
   * a lead longer than short sessions live does not make every new session due at once.
   */
  leadMs?: number;
  /**
   * The longest single timer wait (default 30 000): each wait only means "read the clock
   * again", so a sleeping laptop or a throttled tab is caught up at the next fire.
   */
  maxWaitMs?: number;
  /** The first retry's delay after a transient failure (default 1 000), doubled each time. */
  retryMs?: number;
  /** The longest retry delay (default 30 000). */
  maxRetryMs?: number;
  /** The wall clock in epoch milliseconds (default: the `Date.now` the kit captured at load). */
  now?: () => number;
  setTimeout?: (callback: () => void, ms: number) => unknown;
  clearTimeout?: (handle: any) => void;
  /** Re-read the clock on its `visibilitychange` (default `globalThis.document`; `null`: none). */
  document?: EventTarget | null;
  /** Re-read the clock on its `focus`, `pageshow`, `online` (default `globalThis.window`; `null`: none). */
  window?: EventTarget | null;
  /**
   * A {@link StoredSession}'s refresh lock across tabs (default `navigator.locks`, Web
   * Locks, where there is one). `null`, or none: a lease in the session's IndexedDB record
   * instead, taken in one transaction.
   */
  locks?: { request(name: string, options: { signal?: AbortSignal }, callback: (lock: unknown) => Promise<unknown>): Promise<unknown> } | null;
  /**
   * The longest wait for another tab's refresh of a {@link StoredSession} (default 20 000);
   * past it, `error` (`SERVICE_ERROR`, retried with backoff).
   */
  lockWaitMs?: number;
  /** How long a lease (no Web Locks) holds before another tab may take it over (default 30 000). */
  leaseMs?: number;
}

/** The events of a {@link SessionKeeper} and what each listener receives. */
export interface SessionKeeperEvents<S extends Session | StoredSession = Session> {
  /** The session entered the lead time; a refresh starts now. Once per session. */
  expiring: { session: S; msLeft: number };
  /**
   * `session` replaced `previous`, which is freed once the listeners return (a replaced
   * {@link StoredSession} is `SESSION_CLOSED` in every tab). `elsewhere`: another tab of
   * the origin refreshed it, and this keeper adopted its new session from the store.
   */
  refreshed: { session: S; previous: S; elsewhere?: true };
  /** The session expired (or the service answered 401): log in again. It is freed; the keeper stopped. */
  expired: { session: S };
  /**
   * {@link SessionKeeper.revoke} revoked it at the service (it is freed); the keeper
   * stopped. `fromStore`: the {@link StoredSession} was deleted from its store (a logout in
   * this or another tab: `revoke()`, `revokeSession`, `store.delete`, `store.clear`); the
   * keeper stopped, and signing with it is `SESSION_CLOSED`.
   */
  revoked: { session: S; fromStore?: true };
  /**
   * A refresh or revoke failed. With `retryInMs` a transient failure (`SERVICE_ERROR`,
   * `RATE_LIMITED`, `REQUEST_EXPIRED`) retried after that delay; without it the keeper
   * stopped (`UNAUTHORIZED` is followed by `expired`).
   */
  error: { error: unknown; session: S; retryInMs?: number };
}

/**
 * Keeps one session alive (opt-in): refreshes it through `client.refresh` `leadMs` before
 * its `expiresAt`, in either key mode, frees the session it replaced, and reports what
 * happened through {@link SessionKeeper.on}. Never refreshes an expired session (`expired`:
 * only a new login helps); a 401 is not retried; other transient failures are retried
 * with backoff until expiry. The wall clock is re-read on every timer fire and on
 * `visibilitychange`, `focus`, `pageshow` and `online`. Sign with {@link SessionKeeper.session}
 * at each use: after a refresh the previous session is freed.
 *
 * With a {@link StoredSession}, the tabs of the origin that keep it share it: one of them
 * refreshes it (under a Web Lock, or a lease in IndexedDB where Web Locks are missing) and
 * the store replaces it; the others adopt the new session (`refreshed` with `elsewhere`)
 * instead of refreshing, and a tab that waited for the lock adopts the result. A logout
 * (the session deleted from the store) in any tab ends every keeper of it (`revoked` with
 * `fromStore`). Without BroadcastChannel both are seen at the next check (within `maxWaitMs`).
 */
export declare class SessionKeeper<S extends Session | StoredSession = Session> {
  private constructor();
  /**
   * Starts keeping `session` alive. The first call loads the keeper's code (a small JS
   * module next to the entry; `init()` does not load it). The first look at the clock is
   * on a timer, so listeners added when this resolves see an `expiring` or `expired`
   * already due. Rejects `INVALID_INPUT` (bad client, session or option),
   * `NOT_INITIALIZED` if that module cannot be loaded.
   */
  static start<S extends Session | StoredSession>(client: WalletClient, session: S, options?: SessionKeeperOptions): Promise<SessionKeeper<S>>;
  /** The session to sign with now. */
  readonly session: S;
  /** Whether it stopped: {@link stop}, {@link revoke}, expiry, a 401, or a failure it does not retry. */
  readonly stopped: boolean;
  /** Adds a listener; returns a function that removes it. */
  on<K extends keyof SessionKeeperEvents<S>>(type: K, listener: (detail: SessionKeeperEvents<S>[K]) => void): () => void;
  /**
   * Stops its timers and wake-up listeners; {@link session} stays open (yours to free). A
   * refresh already in flight still lands (`refreshed`: the previous session is freed, and
   * {@link session} is the new one).
   */
  stop(): void;
  /**
   * Stops, waits for a refresh in flight, and revokes the current session at the service
   * ({@link WalletClient.revokeSession}: freed whatever the answer). Emits `revoked`, or
   * `error` and rejects.
   */
  revoke(): Promise<void>;
}

/** The 200 of `POST /internal-accounts/{id}/export`. */
export interface WalletExportResponse {
  id?: string;
  encryptedWalletCredentials: string | EnclaveEnvelope;
  [field: string]: unknown;
}

// ---------------------------------------------------------------------------------------
// Isolated signer: init({ isolate: 'worker' })

/** Options of `init({ isolate: 'worker' })`. */
export interface IsolatedInitOptions {
  /** Run the signing in a dedicated Worker. Any other truthy value is `INVALID_INPUT`. */
  isolate: 'worker';
  /** Where the module's `.wasm` is (default: next to the entry); the Worker loads it (and the page too, with `passkeys: true`). */
  module_or_path?: InitInput;
  /** As in {@link InitOptions}; the page instantiates the module too (from `module_or_path`), for the passkey API only (its keys live in the authenticator). */
  passkeys?: boolean;
}

/**
 * The isolated signer: what `init({ isolate: 'worker' })` resolves to (every call the same
 * object, until {@link IsolatedKit.terminate}). The module's signing runs in a dedicated
 * Worker that generates and keeps every key; the page holds proxies that name them by
 * handles valid only on a private channel, and gets back public keys, stamps and headers,
 * never key bytes. Script in the page, even script loaded after the kit, can ask a live
 * session for signatures but cannot read a key: the wasm memory it can reach holds none.
 * See the README's threat model for what this does not protect against.
 *
 * The same API as the same-thread exports, with these differences: the calls that reach a
 * key (`generate`, `open`, `sandbox`, `fromClientKey`, `stamp`, `signRetry`, `signQuote`,
 * `encryptOtp`, `openWalletExport`, `free`) and `inspectPayload` return promises; the
 * public fields and `isExpired` stay synchronous. The same `KitError` codes and messages.
 * An argument that cannot be copied to a Worker (a function, a Proxy) is `INVALID_INPUT`.
 * Isolated objects and same-thread ones do not mix (`INVALID_INPUT`): the package's
 * {@link WalletClient} and {@link SessionStore} take only same-thread sessions, the kit's
 * `WalletClient` only its own.
 */
export interface IsolatedKit {
  readonly ClientKey: IsolatedClientKeyClass;
  readonly Session: IsolatedSessionClass;
  /**
   * {@link WalletClient} over this kit: `new kit.WalletClient({ transport, ... })` (the
   * same options) makes its keys and opens its sessions in the Worker (in both key
   * modes); the flows run in the page, which sees public keys and session ids only, and
   * instantiates the module for them (from `module_or_path`) on the first flow call,
   * holding no key in it. The same flows, errors and PROCESSING behaviour;
   * `instanceof WalletClient` holds. It takes this kit's keys and sessions (and
   * {@link StoredSession}s); sessions it opens are {@link IsolatedSession}s.
   */
  readonly WalletClient: IsolatedWalletClientClass;
  /** {@link encryptOtp}, in the Worker. */
  encryptOtp(targetBundle: EnclaveEnvelope | string, otpCode: string, key: IsolatedClientKey, options?: EnclaveOptions): Promise<string>;
  /** {@link openWalletExport}, in the Worker; the mnemonic comes out to the page, by design. */
  openWalletExport(
    response: WalletExportResponse | EnclaveEnvelope | string,
    key: IsolatedClientKey,
    options?: WalletExportOptions,
  ): Promise<string>;
  /** {@link inspectPayload}, in the Worker. */
  inspectPayload(payloadToSign: string): Promise<PayloadInspection>;
  /**
   * Zeroizes every key and session in the Worker and stops it: every isolated object then
   * acts freed (`SESSION_CLOSED`, `KEY_CONSUMED`), factories reject `NOT_INITIALIZED`, and
   * a later `init({ isolate: 'worker' })` starts a new Worker.
   */
  terminate(): Promise<void>;
}

/** `kit.WalletClient`: {@link WalletClient}'s constructor, over the isolated kit. */
export interface IsolatedWalletClientClass {
  new (options: WalletClientOptions): IsolatedWalletClient;
  readonly prototype: IsolatedWalletClient;
}

/** A session an isolated {@link IsolatedWalletClient} takes. */
export type IsolatedClientSession = IsolatedSession | StoredSession;

/** {@link WalletClient}, its keys and sessions kept in the isolated signer's Worker. */
export interface IsolatedWalletClient {
  readonly keys: 'sealed' | 'client-held';
  oidcNonce(key: IsolatedClientKey): string;
  createEmailOtp(accountId: string, session?: IsolatedClientSession): Promise<AuthMethod>;
  addCredential(session: IsolatedClientSession, body: object | string): Promise<AuthMethod>;
  registerPasskey(options: RegisterPasskeyOptions, session?: IsolatedClientSession): Promise<AuthMethod>;
  challenge(credentialId: string): Promise<AuthMethod>;
  verifyEmailOtp(credentialId: string, otp: string, key?: IsolatedClientKey, options?: VerifyEmailOtpOptions): Promise<IsolatedSession>;
  verifyOauth(credentialId: string, oidcToken: string, key: IsolatedClientKey): Promise<IsolatedSession>;
  loginWithPasskey(credentialId: string, options?: Omit<LoginWithPasskeyOptions, 'key'> & { key?: IsolatedClientKey }): Promise<IsolatedSession>;
  refresh(session: IsolatedClientSession): Promise<IsolatedSession>;
  revokeSession(session: IsolatedClientSession): Promise<void>;
  revokeCredential(session: IsolatedClientSession, credentialId: string): Promise<void>;
  exportWallet(session: IsolatedClientSession, accountId: string, key: IsolatedClientKey): Promise<Record<string, unknown>>;
  updateAccount(session: IsolatedClientSession, accountId: string, patch: object | string): Promise<Record<string, unknown>>;
  executeQuote(session: IsolatedClientSession, quote: Quote & { id: string }, options?: { attempts?: number }): Promise<Record<string, unknown>>;
  request(request: { method: string; path: string; headers?: Record<string, string>; body?: object | string }, session?: IsolatedClientSession): Promise<TransportResponse>;
}

/** `kit.ClientKey`: not constructible (`INVALID_INPUT`); `instanceof` works. */
export interface IsolatedClientKeyClass extends Function {
  readonly prototype: IsolatedClientKey;
  /** {@link ClientKey.generate}, in the Worker. */
  generate(): Promise<IsolatedClientKey>;
}

/** {@link ClientKey}, kept in the Worker. */
export interface IsolatedClientKey {
  readonly publicKeyHex: string;
  readonly compressedPublicKeyHex: string;
  /** {@link ClientKey.oidcNonce}: the same nonces and the same INVALID_INPUT for bad options. */
  oidcNonce(options?: { compressed?: boolean }): string;
  /** Whether the key was used to open a session, consumed by `openWalletExport`, or freed. */
  readonly consumed: boolean;
  /** {@link ClientKey.signRetry}, in the Worker. */
  signRetry(pending202: PendingSignature | string): Promise<SignedRetryHeaders>;
  /** Zeroizes the private key in the Worker; later uses reject `KEY_CONSUMED` (no need to await). */
  free(): Promise<void>;
  /** Same as {@link IsolatedClientKey.free}. */
  close(): Promise<void>;
}

/** `kit.Session`: not constructible (`INVALID_INPUT`); `instanceof` works. */
export interface IsolatedSessionClass extends Function {
  readonly prototype: IsolatedSession;
  /** {@link Session.open}, in the Worker; consumes the key. */
  open(response: SessionResponse | string, key: IsolatedClientKey): Promise<IsolatedSession>;
  /** {@link Session.sandbox}. */
  sandbox(response: SessionResponse | string): Promise<IsolatedSession>;
  /** {@link Session.fromClientKey}, in the Worker; consumes the key. */
  fromClientKey(response: SessionResponse | string, key: IsolatedClientKey): Promise<IsolatedSession>;
}

/** {@link Session}, kept in the Worker. */
export interface IsolatedSession {
  readonly id: string;
  readonly accountId: string;
  readonly type: string;
  readonly expiresAt: Date;
  /** `undefined` for a sandbox session and after `free()` (at once, before the Worker answers). */
  readonly publicKeyHex: string | undefined;
  readonly sandboxed: boolean;
  /** {@link Session.keyMode}: kept after `free()`. */
  readonly keyMode: 'sealed' | 'client-held' | 'sandbox';
  /** {@link Session.isExpired}: synchronous (it needs no key); the same answers and errors. */
  isExpired(now?: Date | number): boolean;
  /** {@link Session.stamp}, in the Worker: the same bytes for the same key and payload. */
  stamp(payloadToSign: string): Promise<string>;
  /** {@link Session.signRetry}, in the Worker. */
  signRetry(pending202: PendingSignature | string): Promise<SignedRetryHeaders>;
  /** {@link Session.signQuote}, in the Worker. */
  signQuote(quote: Quote | string): Promise<QuoteSignatureHeader>;
  /**
   * Zeroizes the session key in the Worker; resolves once it is gone. Calls made after
   * `free()` reject `SESSION_CLOSED` even without awaiting it (the channel is ordered).
   */
  free(): Promise<void>;
  /** Same as {@link IsolatedSession.free}. */
  close(): Promise<void>;
}
