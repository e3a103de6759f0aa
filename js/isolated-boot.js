// Starts the isolated signer's Worker: loaded with js/isolated.js on the first
// `init({ isolate: 'worker' })` (js/isolated-platform.js), never by a page that does not
// isolate. It may load after page script replaced `Worker`, `URL` or `MessageChannel`, so
// it calls only what js/isolated-platform.js captured when the kit loaded, which hands it
// over: no static import (see js/isolated.js).

/**
 * The Worker's starter over the platform js/isolated-platform.js captured.
 *
 * @param {import('./isolated-platform.js')['platform']} platform
 * @returns {() => [Worker, MessagePort, MessagePort]}
 */
export function signerWorkerStarter(platform) {
  const { apply, create, hrefOf, NativeURL, Worker, MessageChannel, port1, port2, toPrimitive } = platform;

  /**
   * The `URL` that the Worker line below sees (it must read literally
   * `new Worker(new URL('./signer-worker.js', import.meta.url), ...)` for bundlers to find
   * the worker). `new Worker()` turns its argument into a string with ToString, which would
   * look up `toString`/`Symbol.toPrimitive` on URL.prototype and Object.prototype, where
   * later script could point the signer at its own script: this returns an object whose
   * string form is fixed when it is made.
   *
   * @param {string} path
   * @param {string} base
   */
  function pinnedURL(path, base) {
    const href = apply(hrefOf, new NativeURL(path, base), []);
    const pinned = create(null);
    const text = () => href;
    pinned[toPrimitive] = text;
    pinned.toString = text;
    pinned.href = href;
    return pinned;
  }
  // Called with `new` (the Worker line must read `new URL(...)`): it returns its own object.
  const URL = /** @type {typeof globalThis.URL} */ (/** @type {unknown} */ (pinnedURL));

  /** Starts the signer Worker and a fresh channel: `[worker, pagePort, workerPort]`. */
  return function startSignerWorker() {
    const channel = new MessageChannel();
    const worker = new Worker(new URL('./signer-worker.js', import.meta.url), { type: 'module' });
    return [worker, apply(port1, channel, []), apply(port2, channel, [])];
  };
}
