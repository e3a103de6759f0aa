// Shared by the entries: reading init()'s argument.
import { KitError } from './kit-error.js';

/** The main entry's options, which the signing entry does not have. */
const MAIN_ONLY = ['passkeys', 'isolate', 'enclave'];

/**
 * Whether `input` is init()'s options object rather than where to load the module from (a
 * URL, a path, a Request or Response, bytes, a WebAssembly.Module or a promise of one):
 * a plain object (`{}` too), or any object with one of the options.
 *
 * @param {unknown} input
 * @returns {input is { module_or_path?: unknown, passkeys?: unknown, isolate?: unknown, enclave?: unknown }}
 */
export function isOptions(input) {
  if (input === null || typeof input !== 'object') return false;
  const proto = Object.getPrototypeOf(input);
  return proto === Object.prototype || proto === null || 'module_or_path' in input || MAIN_ONLY.some((option) => option in input);
}

/**
 * What wasm-bindgen's loader is handed: always a fresh `{ module_or_path }` (it reads
 * anything else as the deprecated positional form).
 *
 * @param {unknown} input init()'s argument
 * @param {() => URL} ownModule the entry's own .wasm (written there as a literal
 *   `new URL('./…_bg.wasm', import.meta.url)`, for bundlers)
 */
export function wasmSource(input, ownModule) {
  const source = isOptions(input) ? input.module_or_path : input;
  return { module_or_path: source === undefined || source === null ? ownModule() : source };
}

/**
 * The signing entry's answer to the main entry's options (`passkeys`, `isolate`, `enclave`): a
 * rejection naming the option when one is set, undefined otherwise (`false` and `null`
 * are unset).
 *
 * @param {unknown} input
 * @returns {Promise<never> | undefined}
 */
export function refuseMainOptions(input) {
  if (!isOptions(input)) return undefined;
  for (const option of MAIN_ONLY) {
    const value = /** @type {Record<string, unknown>} */ (input)[option];
    if (value !== undefined && value !== null && value !== false) {
      return Promise.reject(new KitError('INVALID_INPUT', `init: the signing entry has no ${option} option: import 'embedded-wallet-kit' for it`));
    }
  }
  return undefined;
}
