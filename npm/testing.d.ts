// Type declarations for `embedded-wallet-kit/testing`: a software WebAuthn authenticator
// for tests. Both of its files (the browser/bundler one and the Node one) have exactly
// these named exports.
//
// FOR TESTS ONLY. Its private keys live in ordinary JavaScript-reachable memory, it asks
// no user for presence or verification, and it forgets everything when dropped. Never
// use it to hold real users' credentials, and never ship it in a production bundle.

import type { InitInput, PasskeyAssertion, PasskeyAttestation, PasskeyAuthenticateOptions, PasskeyRegisterOptions } from './index.js';

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
export declare class SoftAuthenticator {
  /**
   * Drops the authenticator with all its credentials (their private keys are zeroized).
   * A later `register` / `authenticate` throws `INVALID_INPUT`; a second `free()` does
   * nothing. Where the runtime has `Symbol.dispose`, `using` does the same.
   */
  free(): void;
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
