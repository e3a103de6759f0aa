// The isolated signer's platform, captured when the kit loads (imported by npm/browser.js):
// the code, npm/signer.js and npm/signer-boot.js (which starts the Worker), loads on the
// first `init({ isolate: 'worker' })`, so a page that never isolates fetches none of it.
//
// Script that runs after the kit loaded could redirect or watch the signer's channel by
// replacing `Worker`, `URL`, `MessageChannel` or their prototypes' methods before `init()`
// is called; so the platform functions the channel uses are captured here, when the kit
// loads, not when that code loads. Script that runs BEFORE the kit can replace them
// first: no in-page design protects against that (see the README's threat model).
import { KitError } from './platform.js';
import { lazy } from './shared.js';
import { WalletClient, custodies } from './wallet-client.js';

// What the kit loads later is resolved while it loads (here, and in npm/session-store.js
// and npm/wallet-client.js): an import map that script injects later
// cannot redirect a specifier the page has already resolved (Chromium and WebKit merge such
// maps; Firefox refuses them; tests/isolate/run.mjs checks it). The engines that merge such
// maps have import.meta.resolve. scripts/check-imports.mjs fails an import() without it.
import.meta.resolve?.('./signer.js');
import.meta.resolve?.('./signer-boot.js');

const g = globalThis;
/** @type {(fn: any, receiver: unknown, args: ArrayLike<unknown>) => any} a captured function may be missing; callers check */
const apply = Reflect.apply;
const describe = Object.getOwnPropertyDescriptor;
const create = Object.create;
const freeze = Object.freeze;
const define = Reflect.defineProperty;
const NativePromise = g.Promise;
const { then: promiseThen, catch: promiseCatch, finally: promiseFinally } = NativePromise.prototype;

/**
 * The promises the isolated signer hands out. Later script can replace
 * `Promise.prototype.then`/`constructor` or `Promise[Symbol.species]`, which an `await` or a
 * `.then()` on an ordinary promise would call with the value (a stamp, the mnemonic); this
 * subclass's methods and species are fixed at load, so awaiting one reaches none of them.
 */
class KitPromise extends NativePromise {
  static get [Symbol.species]() {
    return KitPromise;
  }
}
for (const [name, value] of /** @type {[string, unknown][]} */ ([['then', promiseThen], ['catch', promiseCatch], ['finally', promiseFinally], ['constructor', KitPromise]])) {
  define(KitPromise.prototype, name, { value });
}
freeze(KitPromise.prototype);
freeze(KitPromise);

/**
 * Calls `onFulfilled`/`onRejected` when the promise `p` settles, without looking up
 * anything later script can replace (its `then`, its `constructor`'s species).
 */
function settle(p, onFulfilled, onRejected) {
  if (!(p instanceof KitPromise)) define(p, 'constructor', { value: KitPromise, configurable: true });
  apply(promiseThen, p, [onFulfilled, onRejected]);
}

/**
 * The prototype of what the isolated signer resolves with: an ordinary object whose `then`
 * is found here, undefined, so resolving with it never asks Object.prototype (where later
 * script could have put a `then` that sees it).
 */
const Result = freeze(create(Object.prototype, { then: { value: undefined } }));
const NativeURL = g.URL;
const Worker = g.Worker;
const MessageChannel = g.MessageChannel;
const hrefOf = /** @type {PropertyDescriptor} */ (describe(NativeURL.prototype, 'href')).get;
const getter = (proto, name) => (proto ? describe(proto, name)?.get : undefined);
const setter = (proto, name) => (proto ? describe(proto, name)?.set : undefined);
const PortProto = g.MessagePort?.prototype;
const WorkerProto = Worker?.prototype;

/** The captured functions, called as `apply(fn, receiver, args)`. */
export const platform = freeze({
  apply,
  create,
  freeze,
  setPrototypeOf: Object.setPrototypeOf,
  KitPromise,
  settle,
  Result,
  isArray: Array.isArray,
  entries: Object.entries,
  describe,
  toPrimitive: Symbol.toPrimitive,
  get: Reflect.get,
  stringify: JSON.stringify,
  isFinite: Number.isFinite,
  trunc: Math.trunc,
  FinalizationRegistry: g.FinalizationRegistry,
  register: g.FinalizationRegistry?.prototype.register,
  fetch: g.fetch,
  arrayBuffer: g.Response?.prototype.arrayBuffer,
  hrefOf,
  NativeURL,
  // What a relative module_or_path resolves against: the document's base URL as it is
  // when the kit loads (a <base href> that later script injects moves nothing).
  baseURL: g.document?.baseURI,
  // A brand check (it throws for anything else, whatever its prototype or
  // Symbol.hasInstance say): whether module_or_path is a Request.
  requestUrl: getter(g.Request?.prototype, 'url'),
  Date: g.Date,
  dateTime: g.Date.prototype.getTime,
  dateNow: g.Date.now,
  WeakMap: g.WeakMap,
  weakGet: g.WeakMap.prototype.get,
  weakSet: g.WeakMap.prototype.set,
  portPost: PortProto?.postMessage,
  portClose: PortProto?.close,
  setPortOnMessage: setter(PortProto, 'onmessage'),
  workerPost: WorkerProto?.postMessage,
  workerTerminate: WorkerProto?.terminate,
  setWorkerOnError: setter(WorkerProto, 'onerror'),
  eventData: getter(g.MessageEvent?.prototype, 'data'),
  ErrorEvent: g.ErrorEvent,
  errorMessage: getter(g.ErrorEvent?.prototype, 'message'),
  available: typeof Worker === 'function' && typeof MessageChannel === 'function',
  // What npm/signer-boot.js starts the Worker and its channel with (it sets the global
  // Worker and URL to these for the one line that starts it).
  global: g,
  define,
  KitError,
  Worker,
  MessageChannel,
  port1: getter(MessageChannel?.prototype, 'port1'),
  port2: getter(MessageChannel?.prototype, 'port2'),
});

/**
 * npm/signer.js and the Worker's starter, npm/signer-boot.js, loaded once (again after a
 * failure): what the first hands its initIsolated(). They import nothing themselves: this
 * file hands them what they use (`deps`), which a later import map scoped to their URLs
 * could otherwise redirect (npm/signer.js). A KitPromise throughout (lazy() calls only its
 * own `then`), resolved with a null-prototype record: resolving looks up `then`, which
 * later script could add to a prototype. `deps` is made once and never leaves this module
 * and signer.js: signer.js takes its first caller's and refuses any other (page script
 * may import it and call first).
 *
 * @type {() => Promise<{ signer: typeof import('./signer.js'), deps: any }>}
 */
const loadSigner = lazy(() => new KitPromise((resolve, reject) => {
  settle(import('./signer.js'), (signer) => settle(import('./signer-boot.js'), (boot) => resolve({
    __proto__: null,
    signer,
    deps: { __proto__: null, KitError, platform, startSignerWorker: boot.signerWorkerStarter(platform), WalletClient, custodies },
  }), reject), reject);
}), 'isolated signer');

/**
 * `init({ isolate: 'worker', ... })`: loads npm/signer.js and npm/signer-boot.js once
 * (loadSigner) and lets the first start the Worker; resolves to the isolated API (see
 * there). A page that never isolates never fetches them.
 */
export function initIsolated(options, loadPasskeys) {
  const loaded = loadSigner();
  return new KitPromise((resolve, reject) => settle(
      loaded,
      (m) => {
        try {
          resolve(m.signer.initIsolated(m.deps, options, loadPasskeys));
        } catch (err) {
          reject(err);
        }
      },
      reject,
    ));
}
