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
