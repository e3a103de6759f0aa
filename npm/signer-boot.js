// Starts the isolated signer's Worker: loaded with npm/signer.js on the first
// `init({ isolate: 'worker' })` (npm/signer-platform.js), never by a page that does not
// isolate. It may load after page script replaced `Worker`, `URL` or `MessageChannel`, so
// it calls only what npm/signer-platform.js captured when the kit loaded, which hands it
// over: no static import (see npm/signer.js).

/**
 * The Worker's starter over the platform npm/signer-platform.js captured.
 *
 * @param {import('./signer-platform.js')['platform']} platform
 * @returns {() => [Worker, MessagePort, MessagePort]}
 */
export function signerWorkerStarter(platform) {
  const { apply, describe, define, setPrototypeOf, global, KitError, hrefOf, NativeURL, Worker: NativeWorker, MessageChannel, port1, port2, toPrimitive } = platform;

  /**
   * What `URL` is while the Worker line below runs: a native URL whose string form is read
   * through the captured `href` getter. `new Worker()` turns its argument into a string
   * with ToString, which would look up `toString`/`Symbol.toPrimitive` on URL.prototype
   * and Object.prototype, where later script could point the signer at its own script; an
   * own Symbol.toPrimitive answers first. (A native URL, not a copy of its string: a
   * bundler's own Worker bootstrap, Turbopack's, sets its hash before starting the Worker.)
   *
   * @param {string} path
   * @param {string} base
   */
  function pinnedURL(path, base) {
    const url = new NativeURL(path, base);
    const text = () => apply(hrefOf, url, []);
    define(url, toPrimitive, { value: text });
    define(url, 'toString', { value: text });
    return url;
  }
  // URL's static functions through it (Parcel's Worker helper calls URL.createObjectURL for
  // a Worker script on another origin).
  setPrototypeOf(pinnedURL, NativeURL);

  /**
   * Runs `make` with the global `Worker` and `URL` set to the captured Worker and
   * pinnedURL, then puts back what was there. The Worker line must name the globals
   * literally, `new Worker(new URL('./signer-worker.js', import.meta.url), ...)`, for
   * bundlers (webpack, Next.js, Vite, Parcel) to find the Worker and emit its script; page
   * script that replaced them after the kit loaded is thus not called. (A bundler whose
   * own helper builds the Worker's URL, Turbopack's or Parcel's, runs that helper in
   * between: its code is as exposed to page script as any other page code.)
   *
   * @template T
   * @param {() => T} make
   * @returns {T}
   */
  function withCapturedGlobals(make) {
    // No array iteration, no method calls: page script may have replaced those too.
    const savedWorker = describe(global, 'Worker');
    const savedURL = describe(global, 'URL');
    const put = (/** @type {string} */ name, /** @type {PropertyDescriptor | undefined} */ d) => {
      if (d) define(global, name, d);
      else delete global[name];
    };
    try {
      if (!define(global, 'Worker', { configurable: true, writable: true, value: NativeWorker })
        || !define(global, 'URL', { configurable: true, writable: true, value: pinnedURL })) {
        throw new KitError('NOT_INITIALIZED', 'the global Worker or URL was made unreplaceable: the kit cannot start its own Worker');
      }
      return make();
    } finally {
      put('Worker', savedWorker);
      put('URL', savedURL);
    }
  }

  /** Starts the signer Worker and a fresh channel: `[worker, pagePort, workerPort]`. */
  return function startSignerWorker() {
    const channel = new MessageChannel();
    const worker = withCapturedGlobals(() => new Worker(new URL('./signer-worker.js', import.meta.url), { type: 'module' }));
    return [worker, apply(port1, channel, []), apply(port2, channel, [])];
  };
}
