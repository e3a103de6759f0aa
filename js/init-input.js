// Shared by the entries: reading init()'s argument (js/options.js's rules: own data
// properties, read once, no getter, no thenable).
import { KitError } from './kit-error.js';
import { looksLikeOptions, readOptions } from './options.js';

/** Every option init() takes; the last three are the main entry's (the signing entry has none). */
const INIT_OPTIONS = ['module_or_path', 'passkeys', 'isolate', 'enclave'];
const MAIN_ONLY = INIT_OPTIONS.slice(1);

/**
 * Whether `input` is init()'s options object rather than where to load the module from (a
 * URL, a path, a Request or Response, bytes, a WebAssembly.Module or a promise of one):
 * a plain object (`{}` too), or any object with one of the options as its own property.
 *
 * @param {unknown} input
 * @returns {boolean}
 */
export function isOptions(input) {
  return looksLikeOptions(input, INIT_OPTIONS);
}

/**
 * init()'s argument read once: its options (own data properties) and the module's
 * `source` (`module_or_path`, or the argument itself in the positional form). Throws
 * KitError INVALID_INPUT naming an option held by a getter.
 *
 * @param {unknown} input
 * @returns {{ source: unknown, passkeys?: unknown, isolate?: unknown, enclave?: unknown }}
 */
export function readInit(input) {
  if (!isOptions(input)) {
    const read = /** @type {{ source: unknown }} */ (Object.create(null));
    read.source = input;
    return read;
  }
  const read = readOptions(input, INIT_OPTIONS, 'init');
  read.source = read.module_or_path;
  return /** @type {{ source: unknown }} */ (read);
}

/**
 * What wasm-bindgen's loader is handed: always a fresh `{ module_or_path }` (it reads
 * anything else as the deprecated positional form).
 *
 * @param {unknown} source the module's source as readInit() read it
 * @param {() => URL} ownModule the entry's own .wasm (written there as a literal
 *   `new URL('./…_bg.wasm', import.meta.url)`, for bundlers)
 */
export function wasmSource(source, ownModule) {
  return { module_or_path: source === undefined || source === null ? ownModule() : source };
}

/**
 * The signing entry's answer to the main entry's options (`passkeys`, `isolate`, `enclave`): a
 * rejection naming the option when one is set, undefined otherwise (`false` and `null`
 * are unset).
 *
 * @param {{ passkeys?: unknown, isolate?: unknown, enclave?: unknown }} read what readInit() read
 * @returns {Promise<never> | undefined}
 */
export function refuseMainOptions(read) {
  for (let i = 0; i < MAIN_ONLY.length; i++) {
    const option = MAIN_ONLY[i];
    const value = /** @type {Record<string, unknown>} */ (read)[option];
    if (value !== undefined && value !== null && value !== false) {
      return Promise.reject(new KitError('INVALID_INPUT', `init: the signing entry has no ${option} option: import 'embedded-wallet-kit' for it`));
    }
  }
  return undefined;
}
