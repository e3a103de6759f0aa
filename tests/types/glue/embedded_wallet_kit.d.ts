/* tslint:disable */
/* eslint-disable */
import type { PayloadInspection, EnclaveEnvelope, EnclaveOptions, WalletExportResponse, WalletExportOptions } from './index.js';

import type { SessionResponse, PendingSignature, Quote, SignedRetryHeaders, QuoteSignatureHeader } from './index.js';


/**
 * An ephemeral P-256 key pair in wasm memory; its private half never leaves it.
 */
export class ClientKey {
    private constructor();
    free(): void;
    [Symbol.dispose](): void;
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
     * The OIDC `nonce` of the `clientPublicKey` sent, in the form `options` names.
     */
    oidcNonce(options?: { compressed?: boolean }): string;
    /**
     * Both retry headers for a 202, stamped with this key (the TEK): the encrypted OTP
     * login's second leg, before any session exists. Does not consume the key.
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
 * The encrypted OTP login's verify (`flows::OtpLogin`), driven like a
 * `SignedRetryFlow` whose 202 the TEK signs (`ClientKey.signRetry`): `onResponse` gives
 * `{ sign }` once, then undefined on the 200, whose body the TEK opens
 * (`Session.fromClientKey`). A signing failure is thrown on: the code is spent, so an
 * expired 202 is `REQUEST_EXPIRED`, never a restart.
 */
export class OtpLoginFlow {
    free(): void;
    [Symbol.dispose](): void;
    /**
     * The first call, without signature headers.
     */
    firstRequest(): object;
    /**
     * For the credential `credentialId` (`EMAIL_OTP` or `SMS_OTP` `kind`) and the
     * `encryptedOtpBundle` string `encryptOtp` returned.
     */
    constructor(credential_id: string, kind: string, encrypted_otp_bundle: string);
    /**
     * Reads a response: undefined when done, `{ sign: pending }` for the TEK.
     */
    onResponse(response: any): object | undefined;
    /**
     * How a PROCESSING answer is answered: at most `max_resends` re-sends, waits from
     * `first_delay_ms` doubling up to `max_delay_ms`.
     */
    setProcessingPolicy(max_resends: number, first_delay_ms: number, max_delay_ms: number): void;
    /**
     * The TEK refused to sign: its error is thrown on (no restart).
     */
    signFailed(error: any): object;
    /**
     * The retry carrying the TEK's signature of the `{ sign }`.
     */
    signed(signature: string, request_id: string): object;
    /**
     * Always true: the TEK becomes the session key.
     */
    readonly clientHeld: boolean;
}

/**
 * A passkey login's challenge: what WebAuthn signs, then the verify request.
 */
export class PasskeyChallenge {
    free(): void;
    [Symbol.dispose](): void;
    /**
     * `{challenge, credentialId, rpId?}` for `passkey.authenticate`.
     */
    authenticationInput(rp_id?: string | null): object;
    /**
     * Reads the challenge response for the credential `credentialId` (AuthMethod).
     */
    constructor(credential_id: string, response: any);
    /**
     * The verify call for an assertion (object or JSON text), with the challenge's
     * Request-Id.
     */
    verify(assertion: any): SignedRetryFlow;
}

/**
 * One execution of one quote, with its Idempotency-Key made once.
 */
export class QuoteExecution {
    free(): void;
    [Symbol.dispose](): void;
    /**
     * Reads the quote (object or JSON text).
     */
    constructor(quote: any);
    /**
     * Checks the execute response (throws the typed error on failure).
     */
    onResponse(response: any): void;
    /**
     * The execute request with the session's signature of `toSign()`.
     */
    request(signature: string): object;
    /**
     * `{ payloadToSign, expiresAt }` for the session's `signQuote`.
     */
    toSign(): object;
    /**
     * The Idempotency-Key every attempt of this execution sends.
     */
    readonly idempotencyKey: string;
}

/**
 * An authenticated session whose P-256 signing key lives only in wasm memory.
 */
export class Session {
    private constructor();
    free(): void;
    [Symbol.dispose](): void;
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
     * Opens the session bundle of a verify/refresh response with `key`, which it consumes.
     */
    static open(response: SessionResponse | string, key: ClientKey): Session;
    /**
     * A sandbox session (API version 2025-10-13): never reads the bundle, and every
     * signature is the literal `sandbox-valid-signature`.
     */
    static sandbox(response: SessionResponse | string): Session;
    /**
     * The signature header for a quote's `payloadToSign` (its expiry checked).
     */
    signQuote(quote: Quote | string): QuoteSignatureHeader;
    /**
     * Both retry headers for a 202 (`PendingSignature`), each requestId signed once.
     */
    signRetry(pending202: PendingSignature | string): SignedRetryHeaders;
    /**
     * The API-key stamp over the exact bytes of `payloadToSign`: the session checked, no
     * requestId or expiry.
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
     * How the session key came here: `'sealed'`, `'client-held'` or `'sandbox'`.
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
 * One signed-retry operation: `firstRequest()`, then `onResponse(response)` until it
 * returns undefined (done) or throws. `{ send }` is the next request; `{ sign }` a 202
 * for the session's `signRetry`, whose headers go to `signed` (or its error to
 * `signFailed`) for the next request.
 */
export class SignedRetryFlow {
    free(): void;
    [Symbol.dispose](): void;
    /**
     * The first call, without signature headers.
     */
    firstRequest(): object;
    /**
     * Starts an operation for `{method, path, headers?, body?}`.
     */
    constructor(request: any);
    /**
     * Reads a response: undefined when done, `{ send: request }` or `{ sign: pending }`.
     */
    onResponse(response: any): object | undefined;
    /**
     * Reads the response to a request sent without a session: a 202 is an error then,
     * not something to sign; `{ resend }` when the service is still processing.
     */
    onUnsignedResponse(response: any): object | undefined;
    /**
     * How a PROCESSING answer is answered: at most `max_resends` re-sends, waits from
     * `first_delay_ms` doubling up to `max_delay_ms`.
     */
    setProcessingPolicy(max_resends: number, first_delay_ms: number, max_delay_ms: number): void;
    /**
     * After the session refused to sign: an expired 202 restarts the request once (the
     * first request again); any other error is thrown on unchanged.
     */
    signFailed(error: any): object;
    /**
     * The retry carrying the session's signature of the last `{ sign }`.
     */
    signed(signature: string, request_id: string): object;
    /**
     * Whether the session this flow's answer issues is client-held (open it with
     * `Session.fromClientKey`) rather than sealed (`Session.open`).
     */
    readonly clientHeld: boolean;
}

/**
 * The `encryptedOtpBundle`: `otpCode` sealed to the enclave key of `targetBundle` (its
 * signature checked under `options.pin`), binding `key`'s compressed public key.
 */
export function encryptOtp(targetBundle: EnclaveEnvelope | string, otpCode: string, key: ClientKey, options?: EnclaveOptions): string;

/**
 * What `payloadToSign` would authorize; JSON that readers could read two ways is
 * `INVALID_INPUT`.
 */
export function inspectPayload(payloadToSign: string): PayloadInspection;

/**
 * Opens a wallet export with `key` (consumed) after checking the envelope's signature
 * under `options.pin`: the mnemonic.
 */
export function openWalletExport(response: WalletExportResponse | EnclaveEnvelope | string, key: ClientKey, options?: WalletExportOptions): string;

/**
 * `{credentialId, clientDataJson, authenticatorData, signature, userHandle?}` from the
 * credential `navigator.credentials.get` resolved to, which must be the allowed one
 * (`allowedId`, its raw id bytes; `PASSKEY_FAILED` otherwise or when a member is missing).
 */
export function passkeyAssertion(credential: any, allowed_id: any): object;

/**
 * `{credentialId, clientDataJson, attestationObject, transports}` from the credential
 * `navigator.credentials.create` resolved to (`PASSKEY_FAILED` when a member is missing).
 */
export function passkeyAttestation(credential: any): object;

/**
 * The `publicKey` options of `navigator.credentials.create` for `passkey.register`'s
 * options (validated: `INVALID_INPUT` names the field at fault).
 */
export function passkeyCreationOptions(options: any): object;

/**
 * The `POST /auth/credentials` PASSKEY body `{accountId, nickname, challenge, attestation}`.
 */
export function passkeyRegistrationBody(account_id: any, nickname: any, challenge: any, attestation: any): object;

/**
 * The KitError for a rejection of `navigator.credentials.create` (`register`) or `.get`,
 * by the DOMException's name and what the shim did: its watchdog fired, the ceremony was
 * cancelled (`passkey.cancel()`, the caller's signal, a newer ceremony), the rejection
 * came at or after the requested timeout. The rejection is its cause.
 */
export function passkeyRejection(register: boolean, error: any, watchdog_fired: boolean, cancelled: boolean, past_deadline: boolean): any;

/**
 * The `publicKey` options of `navigator.credentials.get` for `passkey.authenticate`'s
 * options (validated: `INVALID_INPUT` names the field at fault).
 */
export function passkeyRequestOptions(options: any): object;

/**
 * `selfTest()`: the core's start-up self-test (`embedded_wallet_kit::self_test`), which
 * every entry (and the isolated signer's Worker) runs before its `init()` resolves;
 * throws KitError `ENGINE_FAULT` on an engine that computes the kit's arithmetic wrong.
 * Here, beside the warm-up, so that both modules that hold keys export it.
 */
export function selfTest(): void;

/**
 * The guards of `signQuote`; returns the payload to sign.
 */
export function storeAuthorizeQuote(session: Session, quote: any): string;

/**
 * The guards of `signRetry` (the requestId is then spent); returns
 * `{ payloadToSign, requestId }`.
 */
export function storeAuthorizeRetry(session: Session, pending: any): { payloadToSign: string; requestId: string };

/**
 * Checks the session may stamp now; returns the exact payload to sign.
 */
export function storeAuthorizeStamp(session: Session, payload: any): string;

/**
 * The uncompressed encapsulated key of a verify/refresh response's bundle.
 */
export function storeEncapsulatedKey(response: any): Uint8Array;

/**
 * A session restored from a store record (`id`, `accountId`, `type`, `expiresAt`)
 * whose key is in WebCrypto; `publicKeyHex` is that key's public half.
 */
export function storeExternalSession(record: any, public_key_hex: string): Session;

/**
 * The client key as a non-extractable WebCrypto ECDH key (kept across an OAUTH redirect).
 */
export function storeImportClientKey(key: ClientKey): Promise<any>;

/**
 * The session key as a non-extractable WebCrypto ECDSA signing key.
 */
export function storeImportSessionKey(session: Session): Promise<any>;

/**
 * Opens a verify/refresh response with the ECDH result `dh` of a WebCrypto-kept client
 * key (public half `publicKeyHex`) and the bundle's encapsulated key.
 */
export function storeOpenWithDh(response: any, dh: Uint8Array | number[], public_key_hex: string): Session;

/**
 * Records `request_id` in a stored record's `signed` list by the core's rule (canonical
 * ids; kept for the session's life; at the cap only ids signed an hour ago or more go)
 * and returns the new list; `REQUEST_ALREADY_SIGNED` or `RATE_LIMITED` otherwise.
 */
export function storeRecordRequestId(signed: any, request_id: string): Array<any>;

/**
 * The requestIds a session already signed, for the record `save()` writes: a session
 * signs no id twice, whether it signed it before or after being stored.
 */
export function storeSignedRequestIds(session: Session): Array<any>;

/**
 * The stamp from WebCrypto's signature (64-byte `r ‖ s`) of an authorized payload, once
 * it verifies under the session's public key (`ENGINE_FAULT` when it does not).
 */
export function storeStampFromP1363(session: Session, payload: string, signature: Uint8Array | number[]): string;

/**
 * A wallet operation by name (the core's [`Operation`]), as the flow that sends it. A
 * session and a key are given by their public parts: the session's id and issuing
 * credential, the key's two public hex forms. `clientHeld`: the client's key mode
 * (the flow's `clientHeld` says whether this operation's session is client-held).
 */
export function walletFlow(name: string, id: string, text: string | null | undefined, session_id: string | null | undefined, session_credential_id: string | null | undefined, key_public_hex: string | null | undefined, key_compressed_hex: string | null | undefined, client_held: boolean): SignedRetryFlow;

/**
 * One round (the first also builds the table): whether it went through. The throwaway
 * keys are zeroized when dropped, and the scrub clears the stack.
 */
export function warmUp(): boolean;

export type InitInput = RequestInfo | URL | Response | BufferSource | WebAssembly.Module;

export interface InitOutput {
    readonly memory: WebAssembly.Memory;
    readonly __getrandom_v03_custom: (a: number, b: number) => number;
    readonly __wbg_clientkey_free: (a: number, b: number) => void;
    readonly __wbg_otploginflow_free: (a: number, b: number) => void;
    readonly __wbg_passkeychallenge_free: (a: number, b: number) => void;
    readonly __wbg_quoteexecution_free: (a: number, b: number) => void;
    readonly __wbg_session_free: (a: number, b: number) => void;
    readonly __wbg_signedretryflow_free: (a: number, b: number) => void;
    readonly clientkey_close: (a: number) => void;
    readonly clientkey_compressedPublicKeyHex: (a: number) => [number, number, number, number];
    readonly clientkey_consumed: (a: number) => [number, number, number];
    readonly clientkey_generate: () => [number, number, number];
    readonly clientkey_oidcNonce: (a: number, b: any) => [number, number, number, number];
    readonly clientkey_publicKeyHex: (a: number) => [number, number, number, number];
    readonly clientkey_signRetry: (a: number, b: any) => [number, number, number];
    readonly encryptOtp: (a: any, b: any, c: number, d: any) => [number, number, number, number];
    readonly inspectPayload: (a: any) => [number, number, number];
    readonly openWalletExport: (a: any, b: number, c: any) => [number, number, number];
    readonly otploginflow_clientHeld: (a: number) => number;
    readonly otploginflow_firstRequest: (a: number) => any;
    readonly otploginflow_new: (a: number, b: number, c: number, d: number, e: number, f: number) => [number, number, number];
    readonly otploginflow_onResponse: (a: number, b: any) => [number, number, number];
    readonly otploginflow_setProcessingPolicy: (a: number, b: number, c: number, d: number) => void;
    readonly otploginflow_signFailed: (a: number, b: any) => [number, number, number];
    readonly otploginflow_signed: (a: number, b: number, c: number, d: number, e: number) => [number, number, number];
    readonly passkeyAssertion: (a: any, b: any) => [number, number, number];
    readonly passkeyAttestation: (a: any) => [number, number, number];
    readonly passkeyCreationOptions: (a: any) => [number, number, number];
    readonly passkeyRegistrationBody: (a: any, b: any, c: any, d: any) => [number, number, number];
    readonly passkeyRejection: (a: number, b: any, c: number, d: number, e: number) => any;
    readonly passkeyRequestOptions: (a: any) => [number, number, number];
    readonly passkeychallenge_authenticationInput: (a: number, b: number, c: number) => any;
    readonly passkeychallenge_new: (a: number, b: number, c: any) => [number, number, number];
    readonly passkeychallenge_verify: (a: number, b: any) => [number, number, number];
    readonly quoteexecution_idempotencyKey: (a: number) => [number, number];
    readonly quoteexecution_new: (a: any) => [number, number, number];
    readonly quoteexecution_onResponse: (a: number, b: any) => [number, number];
    readonly quoteexecution_request: (a: number, b: number, c: number) => any;
    readonly quoteexecution_toSign: (a: number) => any;
    readonly selfTest: () => [number, number];
    readonly session_accountId: (a: number) => [number, number, number, number];
    readonly session_close: (a: number) => void;
    readonly session_expiresAt: (a: number) => [number, number, number];
    readonly session_fromClientKey: (a: any, b: number) => [number, number, number];
    readonly session_id: (a: number) => [number, number, number, number];
    readonly session_isExpired: (a: number, b: any) => [number, number, number];
    readonly session_keyMode: (a: number) => [number, number, number, number];
    readonly session_open: (a: any, b: number) => [number, number, number];
    readonly session_publicKeyHex: (a: number) => [number, number, number, number];
    readonly session_sandbox: (a: any) => [number, number, number];
    readonly session_sandboxed: (a: number) => [number, number, number];
    readonly session_signQuote: (a: number, b: any) => [number, number, number];
    readonly session_signRetry: (a: number, b: any) => [number, number, number];
    readonly session_stamp: (a: number, b: any) => [number, number, number, number];
    readonly session_type: (a: number) => [number, number, number, number];
    readonly signedretryflow_clientHeld: (a: number) => number;
    readonly signedretryflow_firstRequest: (a: number) => any;
    readonly signedretryflow_new: (a: any) => [number, number, number];
    readonly signedretryflow_onResponse: (a: number, b: any) => [number, number, number];
    readonly signedretryflow_onUnsignedResponse: (a: number, b: any) => [number, number, number];
    readonly signedretryflow_setProcessingPolicy: (a: number, b: number, c: number, d: number) => void;
    readonly signedretryflow_signFailed: (a: number, b: any) => [number, number, number];
    readonly signedretryflow_signed: (a: number, b: number, c: number, d: number, e: number) => [number, number, number];
    readonly storeAuthorizeQuote: (a: number, b: any) => [number, number, number, number];
    readonly storeAuthorizeRetry: (a: number, b: any) => [number, number, number];
    readonly storeAuthorizeStamp: (a: number, b: any) => [number, number, number, number];
    readonly storeEncapsulatedKey: (a: any) => [number, number, number, number];
    readonly storeExternalSession: (a: any, b: number, c: number) => [number, number, number];
    readonly storeImportClientKey: (a: number) => [number, number, number];
    readonly storeImportSessionKey: (a: number) => [number, number, number];
    readonly storeOpenWithDh: (a: any, b: number, c: number, d: number, e: number) => [number, number, number];
    readonly storeRecordRequestId: (a: any, b: number, c: number) => [number, number, number];
    readonly storeSignedRequestIds: (a: number) => [number, number, number];
    readonly storeStampFromP1363: (a: number, b: number, c: number, d: number, e: number) => [number, number, number, number];
    readonly walletFlow: (a: number, b: number, c: number, d: number, e: number, f: number, g: number, h: number, i: number, j: number, k: number, l: number, m: number, n: number, o: number) => [number, number, number];
    readonly warmUp: () => number;
    readonly __wbindgen_malloc: (a: number, b: number) => number;
    readonly __wbindgen_realloc: (a: number, b: number, c: number, d: number) => number;
    readonly __wbindgen_free: (a: number, b: number, c: number) => void;
    readonly __wbindgen_exn_store: (a: number) => void;
    readonly __externref_table_alloc: () => number;
    readonly __wbindgen_externrefs: WebAssembly.Table;
    readonly __externref_table_dealloc: (a: number) => void;
    readonly __wbindgen_start: () => void;
}

export type SyncInitInput = BufferSource | WebAssembly.Module;

/**
 * Instantiates the given `module`, which can either be bytes or
 * a precompiled `WebAssembly.Module`.
 *
 * @param {{ module: SyncInitInput }} module - Passing `SyncInitInput` directly is deprecated.
 *
 * @returns {InitOutput}
 */
export function initSync(module: { module: SyncInitInput } | SyncInitInput): InitOutput;

/**
 * If `module_or_path` is {RequestInfo} or {URL}, makes a request and
 * for everything else, calls `WebAssembly.instantiate` directly.
 *
 * @param {{ module_or_path: InitInput | Promise<InitInput> }} module_or_path - Passing `InitInput` directly is deprecated.
 *
 * @returns {Promise<InitOutput>}
 */
export default function __wbg_init (module_or_path?: { module_or_path: InitInput | Promise<InitInput> } | InitInput | Promise<InitInput>): Promise<InitOutput>;
