// The one error class of embedded-wallet-kit.
//
// The wasm modules construct it through a wasm-bindgen snippet import in bindings/common
// (`#[wasm_bindgen(module = "/js/kit-error.js")]`, a link to this file), so wasm-bindgen
// copies this file to `snippets/ewk-common-<hash>/js/kit-error.js` in the package and the glue
// imports it from there. The package's `kit-error.js` re-exports that same module, so
// errors thrown from wasm and errors thrown by the JS entries share one class and
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
