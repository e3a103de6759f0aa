// The one error class of embedded-wallet-kit, defined in npm/platform.js (the module the
// wasm glues import it from); this file re-exports it for code that imports it by this name.
export { KitError } from './platform.js';
