// What the kit takes from the page, captured once, when this module is evaluated: it has
// no imports and is the first module of every entry's graph (the entries import it first,
// and the glues import it: bindings/common), so it runs
// before any other kit code and before init() is even called. Script that replaces
// these globals afterwards, even while init() is still downloading the .wasm, sees no
// key choice (getRandomValues), no key bytes (importKey), no ECDH result (deriveBits),
// no signing call (sign), and has no say in whether a session, a 202 or a quote has
// expired (Date.now, the clock of every expiry guard).

const webCrypto = globalThis.crypto;
const webSubtle = webCrypto?.subtle;
const bound = (target, name) => (typeof target?.[name] === 'function' ? target[name].bind(target) : undefined);

/** crypto.getRandomValues; undefined where there is none. */
export const getRandomValues = bound(webCrypto, 'getRandomValues');

/**
 * The WebCrypto functions the kit calls; undefined where crypto.subtle is missing (browsers
 * offer it only in secure contexts).
 */
export const subtle =
  typeof webSubtle?.sign === 'function'
    ? Object.freeze({
        importKey: bound(webSubtle, 'importKey'),
        deriveBits: bound(webSubtle, 'deriveBits'),
        sign: bound(webSubtle, 'sign'),
      })
    : undefined;

/** Date.now: milliseconds since the Unix epoch. (It reads no `this`.) */
export const now = Date.now;

// The one error class of embedded-wallet-kit, here so that a page loads one file less: the
// wasm modules construct it through the same import as the captures (bindings/common),
// so errors thrown from wasm and errors thrown by the JS entries share one class and
// `err instanceof KitError` holds for both.
/**
 * Every failure of the kit. `code` is a stable string (see the README's error table);
 * `message` is for humans and never contains key material.
 */
export class KitError extends Error {
  /** @type {'KitError'} */
  name;

  /**
   * @param {import('./index.js').KitErrorCode} code stable error code, e.g. "INVALID_BUNDLE"
   * @param {string} message human-readable explanation
   * @param {unknown} [cause] the underlying error (e.g. a DOMException), if any
   */
  constructor(code, message, cause) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'KitError';
    this.code = code;
  }
}
