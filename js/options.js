// Reading the option objects the kit accepts: init()'s argument (every entry),
// WalletClient's, SessionStore.open's, SessionKeeper.start's and the React provider's
// props. Each option is read once, as an own data property, into a null-prototype record:
// nothing is looked up on a prototype (script that runs after the kit could have put a
// `module_or_path`, a `transport` or a `then` on Object.prototype), no getter runs (it
// could answer differently each time it is asked: refused, INVALID_INPUT naming the
// option), and no value is resolved as a thenable.
import { KitError } from './kit-error.js';

const describe = Object.getOwnPropertyDescriptor;
const hasOwn = Object.hasOwn;
const invalid = (message) => new KitError('INVALID_INPUT', message);

/**
 * The option `name` of the options object `value`: its own data property, or undefined.
 *
 * @param {unknown} value the options object the app passed (not undefined or null)
 * @param {string} name
 * @param {string} [where] what took it, for the message (`init`, `WalletClient`, ...)
 * @returns {any}
 */
export function readOption(value, name, where) {
  const d = describe(value, name);
  // `hasOwn`, not `in`: a descriptor is an ordinary object, and Object.prototype may have a `value`.
  if (d !== undefined && !hasOwn(d, 'value')) throw invalid(`${where ? `${where}: ` : ''}options.${name} is a getter or setter`);
  return d?.value;
}

/**
 * The options `names` that `value` holds as own data properties (undefined where it has
 * none); undefined, null and other primitives hold none (the caller says what it needed).
 *
 * @param {unknown} value the options object the app passed
 * @param {readonly string[]} names the options the caller reads
 * @param {string} [where] what took them, for messages
 * @returns {Record<string, any>}
 */
export function readOptions(value, names, where) {
  const out = Object.create(null);
  // An index loop: an array iterator is something later script can replace.
  for (let i = 0; value !== undefined && value !== null && i < names.length; i++) out[names[i]] = readOption(value, names[i], where);
  return out;
}

/** Every option init() takes; all but the first are the main entry's (js/signing-options.js). */
export const INIT_OPTIONS = ['module_or_path', 'passkeys', 'isolate', 'enclave'];

/**
 * init()'s argument read once: its options and the module's `source` (`module_or_path`,
 * or the argument itself when it is where to load the module from: a URL, a path, a
 * Request or Response, bytes, a WebAssembly.Module or a promise of one). It is options
 * when it is a plain object (`{}` too) or has one of the options as its own property.
 *
 * @param {unknown} input
 * @returns {{ source: unknown, passkeys?: unknown, isolate?: unknown, enclave?: unknown }}
 */
export function readInit(input) {
  if (input !== null && typeof input === 'object') {
    const proto = Object.getPrototypeOf(input);
    if (proto === Object.prototype || proto === null || INIT_OPTIONS.some((name) => hasOwn(input, name))) {
      const read = readOptions(input, INIT_OPTIONS, 'init');
      read.source = read.module_or_path;
      return /** @type {any} */ (read);
    }
  }
  return /** @type {any} */ ({ __proto__: null, source: input });
}

/**
 * Whether init() asks for the isolated signer (decided before any of its code loads).
 *
 * @param {{ isolate?: unknown }} read what readInit() read
 */
export function wantsIsolation(read) {
  const isolate = read.isolate;
  return isolate !== undefined && isolate !== null && isolate !== false;
}
