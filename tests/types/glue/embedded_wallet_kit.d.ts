// The signing module's wasm-bindgen glue, as js/*.js import it (`./embedded_wallet_kit.js`):
// scripts/build-pkg.sh generates the glue into pkg/ (with --no-typescript), so `make
// lint-js` type-checks the shim against this hand-written stand-in (tsconfig.json maps it
// beside js/ with rootDirs). The public classes and functions are the ones js/index.d.ts
// declares (the entries re-export them, guarded); the store's bindings are internal.
// After `make build`, tests/js/declared-exports.test.mjs checks that each stand-in
// declares exactly the exports (and class members) of the generated glue.
import type { ClientKey, Session } from '../../../js/index.js';

export { ClientKey, Session, inspectPayload, encryptOtp, openWalletExport } from '../../../js/index.js';

export default function __wbg_init(input?: { module_or_path?: unknown }): Promise<unknown>;
export function initSync(input: { module: unknown }): unknown;

// Builds p256's basepoint table; js/browser.js calls it in idle time after init().
export function warmUp(): void;

// The store's bindings (src/wasm/store.rs), typed as wasm-bindgen types them: a `&JsValue`
// is `any`, `Vec<u8>` a `Uint8Array`, `Array` an `any[]`.
export function storeImportClientKey(key: ClientKey): Promise<any>;
export function storeImportSessionKey(session: Session): Promise<any>;
export function storeExternalSession(record: any, publicKeyHex: string): Session;
export function storeAuthorizeStamp(session: Session, payload: any): string;
export function storeAuthorizeRetry(session: Session, pending: any): any;
export function storeAuthorizeQuote(session: Session, quote: any): string;
export function storeStampFromP1363(session: Session, signature: Uint8Array): string;
export function storeEncapsulatedKey(response: any): Uint8Array;
export function storeOpenWithDh(response: any, dh: Uint8Array, publicKeyHex: string): Session;
export function storeSignedRequestIds(session: Session): any[];
export function storeRecordRequestId(signed: any, requestId: string): any[];
