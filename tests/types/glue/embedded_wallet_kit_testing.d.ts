// The testing module's wasm-bindgen glue (`./embedded_wallet_kit_testing.js`), hand-written
// for `make lint-js` as embedded_wallet_kit.d.ts is (see there): its one class is the one
// js/testing.d.ts declares.
export { SoftAuthenticator } from '../../../js/testing.js';

export default function __wbg_init(input?: { module_or_path?: unknown }): Promise<unknown>;
export function initSync(input: { module: unknown }): unknown;
