/* tslint:disable */
/* eslint-disable */
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
 * `selfTest()`: the core's start-up self-test (`embedded_wallet_kit::self_test`), which
 * every entry (and the isolated signer's Worker) runs before its `init()` resolves;
 * throws KitError `ENGINE_FAULT` on an engine that computes the kit's arithmetic wrong.
 * Here, beside the warm-up, so that both modules that hold keys export it.
 */
export function selfTest(): void;

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
    readonly __wbg_session_free: (a: number, b: number) => void;
    readonly clientkey_close: (a: number) => void;
    readonly clientkey_compressedPublicKeyHex: (a: number) => [number, number, number, number];
    readonly clientkey_consumed: (a: number) => [number, number, number];
    readonly clientkey_generate: () => [number, number, number];
    readonly clientkey_oidcNonce: (a: number, b: any) => [number, number, number, number];
    readonly clientkey_publicKeyHex: (a: number) => [number, number, number, number];
    readonly clientkey_signRetry: (a: number, b: any) => [number, number, number];
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
