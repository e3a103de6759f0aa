/* tslint:disable */
/* eslint-disable */
import type { PasskeyAssertion, PasskeyAttestation, PasskeyAuthenticateOptions, PasskeyRegisterOptions } from './index.js';


/**
 * An in-memory WebAuthn authenticator bound to one page origin, **for tests only** (its
 * keys sit in ordinary memory). It answers `register` / `authenticate` with real ES256
 * (P-256) credentials, in exactly the shapes `passkey.register` / `passkey.authenticate`
 * resolve to, so a passkey flow can run in Node, in `wasm-pack test`, or in a headless
 * browser without a virtual authenticator. Its output verifies with a standard WebAuthn
 * relying-party verifier (e.g. `@simplewebauthn/server`) against this origin and the rpId.
 *
 * What it produces: "none" attestation (`fmt: "none"`, empty `attStmt`, zero AAGUID);
 * authenticator data with the rpId hash, flags UP, plus UV unless `userVerification` is
 * `'discouraged'`, plus AT on registration; a signature counter that starts at 0 and goes
 * up by one with every assertion of that credential; `transports: ['internal']`;
 * `userHandle` = base64url of the UTF-8 bytes of `user.id`; clientDataJSON
 * `{type, challenge, origin, crossOrigin: false}` with the challenge bytes exactly as the
 * browser path computes them (registration: the base64url challenge decoded; login: the
 * UTF-8 bytes of the challenge string).
 *
 * Options are validated exactly as by the `passkey` API (`INVALID_INPUT` naming the bad
 * option). `signal` is ignored and `timeoutMs` has no effect: nothing here waits.
 *
 * Errors are `KitError`s, with the codes a browser ceremony would give:
 * - `PASSKEY_INVALID_DOMAIN`: the rpId is neither the origin's host nor a suffix of it;
 * - `PASSKEY_ALREADY_REGISTERED`: this authenticator holds one of `excludeCredentialIds`
 *   (for the same rpId);
 * - `PASSKEY_CANCELLED`: `authenticate` for a credential this authenticator does not hold
 *   (what browsers report when no authenticator has it);
 * - `INVALID_INPUT`: bad options, a bad origin, or use after `free()`;
 * - `NOT_INITIALIZED`: constructed before `init()` resolved (browser entry).
 */
export class SoftAuthenticator {
    free(): void;
    [Symbol.dispose](): void;
    /**
     * Signs an assertion with one credential it created, as `passkey.authenticate(options)`.
     * `rpId` defaults to the origin's host. Synchronous. `userHandle` is always present.
     */
    authenticate(options: PasskeyAuthenticateOptions): PasskeyAssertion & { userHandle: string };
    /**
     * An authenticator for pages of `origin`: `http://` or `https://`, a host and an
     * optional port, no path (e.g. `'http://localhost:8787'`). Anything else →
     * `INVALID_INPUT`. This origin goes into every clientDataJSON, so verify against it.
     */
    constructor(origin: string);
    /**
     * Creates a credential, as `passkey.register(options)` with "none" attestation. Synchronous.
     */
    register(options: PasskeyRegisterOptions): PasskeyAttestation;
}

export type InitInput = RequestInfo | URL | Response | BufferSource | WebAssembly.Module;

export interface InitOutput {
    readonly memory: WebAssembly.Memory;
    readonly __getrandom_v03_custom: (a: number, b: number) => number;
    readonly __wbg_softauthenticator_free: (a: number, b: number) => void;
    readonly softauthenticator_authenticate: (a: number, b: any) => [number, number, number];
    readonly softauthenticator_new: (a: number, b: number) => [number, number, number];
    readonly softauthenticator_register: (a: number, b: any) => [number, number, number];
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
