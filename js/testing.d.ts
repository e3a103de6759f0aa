// Type declarations for `embedded-wallet-kit/testing`: a software WebAuthn authenticator
// for tests. Both of its files (the browser/bundler one and the Node one) have exactly
// these named exports.
//
// FOR TESTS ONLY. Its private keys live in ordinary JavaScript-reachable memory, it asks
// no user for presence or verification, and it forgets everything when dropped. Never
// use it to hold real users' credentials, and never ship it in a production bundle.

import type { InitInput } from './index.js';

/** The same class as the main entry's `KitError`: `instanceof` holds across both entries. */
export { KitError } from './index.js';

/**
 * Loads the testing module (a WebAssembly module of its own, separate from the ones
 * `init()` of the main entry loads). Idempotent: every call returns the same promise.
 *
 * - Browsers and bundlers: fetches `embedded_wallet_kit_testing_bg.wasm` next to the
 *   entry (bundlers emit it as an asset), or what `input` says: a URL or path, a
 *   `Response`, the bytes, a `WebAssembly.Module`, or `{ module_or_path }`.
 * - Node: the module is instantiated at import, so this resolves at once.
 *
 * Until it resolves, `new SoftAuthenticator()` throws `KitError` `NOT_INITIALIZED`.
 * Rejects with `NOT_INITIALIZED` if the module cannot be loaded; a later call retries.
 * Independent of the main entry's `init()`: neither loads the other's module.
 */
export declare function init(input?: InitInput | { module_or_path?: InitInput }): Promise<void>;

// SoftAuthenticator: the testing module's export, declared (and documented) by wasm-bindgen
// from its Rust definition (bindings/testing/src) in the .d.ts next to its glue.
import { SoftAuthenticator } from './embedded_wallet_kit_testing.js';
export { SoftAuthenticator };
