/* tslint:disable */
/* eslint-disable */
import type { PasskeyAssertion, PasskeyAttestation, PasskeyAuthenticateOptions, PasskeyRegisterOptions } from './index.js';


/**
 * An in-memory WebAuthn authenticator bound to one page origin, for tests only: real
 * ES256 credentials in the shapes `passkey.register` / `passkey.authenticate` resolve to.
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
     * An authenticator for pages of `origin` (`http(s)://host[:port]`).
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
