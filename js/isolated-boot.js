// The isolated signer's bootstrap, loaded with the kit (the rest, js/isolated.js, loads on
// the first `init({ isolate: 'worker' })`).
//
// Script that runs after the kit loaded could redirect or watch the signer's channel by
// replacing `Worker`, `URL`, `MessageChannel` or their prototypes' methods before `init()`
// is called; so the platform functions the channel uses are captured here, when the kit
// loads, and the Worker is started from here. Script that runs BEFORE the kit can replace
// them first: no in-page design protects against that (see the README's threat model).
import { KitError } from './kit-error.js';

const g = globalThis;
const apply = Reflect.apply;
const describe = Object.getOwnPropertyDescriptor;
const create = Object.create;
const NativeURL = g.URL;
const Worker = g.Worker;
const MessageChannel = g.MessageChannel;
const hrefOf = describe(NativeURL.prototype, 'href').get;
const getter = (proto, name) => (proto ? describe(proto, name)?.get : undefined);
const setter = (proto, name) => (proto ? describe(proto, name)?.set : undefined);
const PortProto = g.MessagePort?.prototype;
const WorkerProto = Worker?.prototype;

/** The captured functions, called as `apply(fn, receiver, args)`. */
export const platform = Object.freeze({
  apply,
  create,
  NativeURL,
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
});
const port1 = getter(MessageChannel?.prototype, 'port1');
const port2 = getter(MessageChannel?.prototype, 'port2');

/**
 * The `URL` that the Worker line below sees (it must read literally
 * `new Worker(new URL('./signer-worker.js', import.meta.url), ...)` for bundlers to find
 * the worker). `new Worker()` turns its argument into a string with ToString, which would
 * look up `toString`/`Symbol.toPrimitive` on URL.prototype and Object.prototype, where
 * later script could point the signer at its own script: this returns an object whose
 * string form is fixed when it is made.
 */
function URL(path, base) {
  const href = apply(hrefOf, new NativeURL(path, base), []);
  const pinned = create(null);
  const text = () => href;
  pinned[Symbol.toPrimitive] = text;
  pinned.toString = text;
  pinned.href = href;
  return pinned;
}

/** Starts the signer Worker and a fresh channel: `[worker, pagePort, workerPort]`. */
export function startSignerWorker() {
  const channel = new MessageChannel();
  const worker = new Worker(new URL('./signer-worker.js', import.meta.url), { type: 'module' });
  return [worker, apply(port1, channel, []), apply(port2, channel, [])];
}

/** Whether `init(input)` asks for the isolated signer. */
export function wantsIsolation(input) {
  return input !== null && typeof input === 'object' && 'isolate' in input && input.isolate !== undefined && input.isolate !== false;
}

/** @type {Promise<{ initIsolated: Function }> | undefined} */
let loading;

/**
 * `init({ isolate: 'worker', ... })`: loads js/isolated.js once and lets it start the
 * Worker; resolves to the isolated API (see there).
 */
export function initIsolated(options, loadPasskeys) {
  if (loading === undefined) {
    loading = import('./isolated.js').catch((err) => {
      loading = undefined;
      throw new KitError('NOT_INITIALIZED', `embedded-wallet-kit could not load its isolated signer: ${err && err.message ? err.message : String(err)}`, err);
    });
  }
  return loading.then((m) => m.initIsolated(options, loadPasskeys));
}
