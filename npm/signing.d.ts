// Type declarations for `embedded-wallet-kit/signing`: the signing-only entry, for pages
// that only sign. Both of its files (the browser/bundler one and the Node one) have
// exactly these named exports. Its module holds ClientKey and Session and nothing else
// (no passkeys, WalletClient, session store, inspectPayload or enclave exports: those are
// the main entry's, whose module holds these two classes as well). A page loads one of
// the two entries' modules; the classes of one are not those of the other.

import type { InitInput } from './index.js';

/** The same class as the main entry's `KitError`: `instanceof` holds across the entries. */
export { KitError } from './index.js';

/** The interfaces ClientKey's and Session's methods take and return (declared in the main entry's types). */
export type {
  InitInput,
  KitErrorCode,
  SessionResponse,
  PendingSignature,
  Quote,
  SignedRetryHeaders,
  QuoteSignatureHeader,
} from './index.js';

/**
 * Loads the signing-only WebAssembly module. Call it once before anything else; it is
 * idempotent (every call returns the same promise).
 *
 * - Browsers and bundlers: fetches `embedded_wallet_kit_signing_bg.wasm` next to the
 *   entry (bundlers emit it as an asset), or what `input` says: a URL or path, a
 *   `Response`, the bytes, a `WebAssembly.Module`, or `{ module_or_path }`.
 * - Node: the module is read and instantiated synchronously at the first `init()` or
 *   call (importing runs nothing).
 *
 * Until it resolves, ClientKey's and Session's functions throw `KitError`
 * `NOT_INITIALIZED`. Rejects with `NOT_INITIALIZED` if the module cannot be loaded (a
 * later call retries), and with `INVALID_INPUT` for the main entry's `passkeys` and
 * `isolate` options. Independent of the main entry's `init()`: neither readies the other.
 */
export declare function init(input?: InitInput | { module_or_path?: InitInput }): Promise<void>;

/**
 * The signing module's handle classes: declared as the main entry's (the same members
 * and documentation), though at run time each entry has classes of its own.
 */
export { ClientKey, Session } from './index.js';
