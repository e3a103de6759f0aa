// Reading the option objects the kit accepts (init, WalletClient, SessionStore,
// SessionKeeper, the React provider): each named option is read once, as an own data
// property, into a null-prototype record, with functions captured when the kit loads.
// Nothing is looked up on a prototype (script that runs after the kit could have put a
// `module_or_path` or a `then` on Object.prototype), no getter runs (it could answer
// differently each time it is asked), and no value is resolved as a thenable.
import { KitError } from './kit-error.js';

const describe = Object.getOwnPropertyDescriptor;
const hasOwn = Object.hasOwn;
const getPrototypeOf = Object.getPrototypeOf;
const ObjectPrototype = Object.prototype;

/**
 * The options `names` that `value` holds as own data properties, in a null-prototype
 * object (an absent option is absent there too); undefined and null are no options.
 * An option held by a getter or setter is refused: KitError INVALID_INPUT naming it.
 *
 * @param {unknown} value the options object the app passed
 * @param {readonly string[]} names the options the caller reads
 * @param {string} where what took them, for messages (`init`, `WalletClient`, ...)
 * @returns {Record<string, unknown>}
 */
export function readOptions(value, names, where) {
  const out = /** @type {Record<string, unknown>} */ (Object.create(null));
  if (value === undefined || value === null) return out;
  if (typeof value !== 'object' && typeof value !== 'function') {
    throw new KitError('INVALID_INPUT', `${where}: options must be an object`);
  }
  // An index loop: an array iterator is something later script can replace.
  for (let i = 0; i < names.length; i++) {
    const name = names[i];
    let d;
    try {
      d = describe(value, name);
    } catch (err) {
      throw new KitError('INVALID_INPUT', `${where}: options.${name} cannot be read`, err);
    }
    if (d === undefined) continue;
    // `hasOwn`, not `in`: a descriptor is an ordinary object, and Object.prototype may have a `value`.
    if (!hasOwn(d, 'value')) {
      throw new KitError('INVALID_INPUT', `${where}: options.${name} must be a data property (a getter or setter is not read)`);
    }
    out[name] = d.value;
  }
  return out;
}

/**
 * Whether `value` holds any of `names` as its own property (data or not: readOptions()
 * then refuses an accessor), or is a plain object (`{}` too, or null-prototype).
 *
 * @param {unknown} value
 * @param {readonly string[]} names
 */
export function looksLikeOptions(value, names) {
  if (value === null || typeof value !== 'object') return false;
  let proto;
  try {
    proto = getPrototypeOf(value);
  } catch {
    return false;
  }
  if (proto === ObjectPrototype || proto === null) return true;
  for (let i = 0; i < names.length; i++) {
    try {
      if (describe(value, names[i]) !== undefined) return true;
    } catch {
      return true; // readOptions() names what cannot be read
    }
  }
  return false;
}
