// The isolated signer, Worker side (started by signer.js for `init({ isolate: 'worker' })`).
//
// Loads the wallet module (the main entry's) in this Worker's own realm and holds every ClientKey and
// Session it makes, by opaque handles. It answers requests only on the MessagePort the
// page transferred in its first message, and it sends back public keys, stamps, headers
// and (for openWalletExport, by design) the mnemonic: never key bytes.
//
// It instantiates only the kit's own module: whatever the page sends (nothing, a URL or
// bytes), the bytes are checked against the SHA-256 the build defined (below) before they
// are compiled; anything else is refused (SIGNER_MODULE_REJECTED). After a fault (an
// exception out of a wasm call that is not a KitError: a trap, an engine error) the
// instance is not trusted again: the reply says so, every later request answers
// ENGINE_FAULT, and the page terminates this Worker.
import initSigning, {
  ClientKey, Session, encryptOtp, openWalletExport, inspectPayload, selfTest,
} from './embedded_wallet_kit.js';
import { KitError } from './platform.js';

// The SHA-256 (hex) of the package's embedded_wallet_kit_bg.wasm, which the build defines
// (esbuild's `define`, scripts/build-pkg.sh); unbuilt it is undefined and matches nothing,
// so every module is refused.
const SIGNER_MODULE_SHA256 = /** @type {any} */ (import.meta).SIGNER_MODULE_SHA256;
// The Worker's own .wasm, resolved when this script loads (a literal, for bundlers), and
// what checks and loads the bytes, captured before any message is read.
const OWN_MODULE = new URL('./embedded_wallet_kit_bg.wasm', import.meta.url).href;
const subtle = crypto.subtle;
const digest = subtle.digest;
const workerFetch = fetch;
const isView = ArrayBuffer.isView;

/** handle -> { kind: 'key' | 'session', raw }: the only references to the wasm objects. */
const objects = new Map();
let nextHandle = 1;
/** @type {MessagePort} set from the page's first message, before any request is answered */
let port = /** @type {any} */ (null);

function add(kind, raw) {
  const handle = nextHandle++;
  objects.set(handle, { kind, raw });
  return handle;
}

// An unknown handle was released or belongs to no one: the same errors as a freed object.
function key(handle) {
  const o = objects.get(handle);
  if (o === undefined || o.kind !== 'key') {
    throw new KitError(
      'KEY_CONSUMED',
      'this ClientKey was already used to open a session; generate a new one for each verify, challenge or refresh',
    );
  }
  return o.raw;
}
function session(handle) {
  const o = objects.get(handle);
  if (o === undefined || o.kind !== 'session') throw new KitError('SESSION_CLOSED', 'this session was freed; its key is gone');
  return o.raw;
}

function sessionInfo(raw) {
  return {
    handle: add('session', raw),
    id: raw.id,
    accountId: raw.accountId,
    type: raw.type,
    expiresAtMs: raw.expiresAt.getTime(),
    publicKeyHex: raw.publicKeyHex,
    sandboxed: raw.sandboxed,
    keyMode: raw.keyMode,
  };
}

/**
 * Zeroizes the key and drops the Worker's only reference: the hardened glue's `free()` is
 * `close()`, and its FinalizationRegistry releases the wasm allocation once `raw` is
 * unreachable.
 */
function release(handle) {
  const o = objects.get(handle);
  if (o === undefined) return;
  objects.delete(handle);
  o.raw.close();
}

// Each op: (args) => value. `keyArg` names the argument that is a key handle, whose
// `consumed` state goes back with the reply (success or failure) so the page's
// `key.consumed` stays exact.
const ops = {
  generate() {
    const raw = ClientKey.generate();
    return {
      handle: add('key', raw),
      publicKeyHex: raw.publicKeyHex,
      compressedPublicKeyHex: raw.compressedPublicKeyHex,
      oidcNonce: raw.oidcNonce(),
      compressedOidcNonce: raw.oidcNonce({ compressed: true }),
    };
  },
  keySignRetry: [0, (h, pending) => key(h).signRetry(pending)],
  open: [1, (response, h) => sessionInfo(Session.open(response, key(h)))],
  fromClientKey: [1, (response, h) => sessionInfo(Session.fromClientKey(response, key(h)))],
  sandbox: (response) => sessionInfo(Session.sandbox(response)),
  stamp: (h, payload) => session(h).stamp(payload),
  signRetry: (h, pending) => session(h).signRetry(pending),
  signQuote: (h, quote) => session(h).signQuote(quote),
  encryptOtp: [2, (bundle, otp, h, options) => encryptOtp(bundle, otp, key(h), options)],
  openWalletExport: [1, (response, h, options) => openWalletExport(response, key(h), options)],
  inspectPayload: (payload) => inspectPayload(payload),
  close(h) {
    objects.get(h)?.raw.close();
  },
  release,
  terminate() {
    for (const handle of [...objects.keys()]) release(handle);
  },
};

function errorInfo(err) {
  return err instanceof KitError
    ? { kit: true, code: err.code, message: err.message }
    : { kit: false, name: err && err.name, message: err && err.message ? String(err.message) : String(err) };
}

/** Set by the first fault: the module instance is not called again. */
let dead = false;
const FAULT = { kit: true, code: 'ENGINE_FAULT', message: 'the signing engine faulted (a WebAssembly trap or engine error); reload the page' };

/** The module's bytes from what the page sent, checked against SIGNER_MODULE_SHA256. */
async function checkedModule(source) {
  let bytes;
  if (source === undefined || source === null || typeof source === 'string') {
    const url = source ?? OWN_MODULE;
    const response = await workerFetch(url);
    if (!response.ok) throw new Error(`${url} answered HTTP ${response.status}`);
    bytes = await response.arrayBuffer();
  } else if (source instanceof ArrayBuffer) {
    bytes = source;
  } else if (isView(source)) {
    // (a copy the page cannot reach: it was cloned into this realm)
    bytes = new Uint8Array(source.buffer, source.byteOffset, source.byteLength).slice().buffer;
  } else {
    // A WebAssembly.Module (its bytes cannot be checked), or anything else.
    throw new KitError('SIGNER_MODULE_REJECTED', 'the isolated signer takes its module as a URL or bytes, whose SHA-256 it checks, never as a WebAssembly.Module');
  }
  const hash = new Uint8Array(await digest.call(subtle, 'SHA-256', bytes));
  let hex = '';
  for (let i = 0; i < hash.length; i++) hex += (hash[i] < 16 ? '0' : '') + hash[i].toString(16);
  if (hex !== SIGNER_MODULE_SHA256) {
    throw new KitError(
      'SIGNER_MODULE_REJECTED',
      "the isolated signer refused its WebAssembly module: its SHA-256 is not that of the kit's own module (fixed when the package was built)",
    );
  }
  return bytes;
}

function answer(data) {
  const { id, op, args } = data;
  if (dead) {
    port.postMessage({ id, ok: false, fault: true, error: FAULT });
    return;
  }
  const entry = Object.hasOwn(ops, op) ? ops[op] : undefined;
  if (entry === undefined) {
    port.postMessage({ id, ok: false, error: { kit: true, code: 'INVALID_INPUT', message: `unknown request ${String(op)}` } });
    return;
  }
  const [keyArg, fn] = typeof entry === 'function' ? [-1, entry] : entry;
  const list = Array.isArray(args) ? args : [];
  /** @type {{ id: unknown, ok: boolean, value?: unknown, error?: object, consumed?: boolean }} */
  let reply;
  try {
    reply = { id, ok: true, value: fn(...list) };
  } catch (err) {
    if (!(err instanceof KitError)) {
      // Fail closed: drop every object (the instance that holds them is not called again)
      // and tell the page, which terminates this Worker.
      dead = true;
      objects.clear();
      port.postMessage({ id, ok: false, fault: true, error: FAULT });
      return;
    }
    reply = { id, ok: false, error: errorInfo(err) };
  }
  if (keyArg >= 0) {
    const o = objects.get(list[keyArg]);
    if (o !== undefined && o.kind === 'key') reply.consumed = o.raw.consumed;
  }
  port.postMessage(reply);
  if (op === 'terminate') self.close();
}

// The page's first message carries the private port (and where the .wasm is); nothing
// else ever posted to this Worker's global scope is read.
self.onmessage = async (event) => {
  self.onmessage = null;
  const [p] = event.ports;
  if (p === undefined) return;
  // capabilities()' probe (npm/capabilities.js): the answer proves this Worker started; the
  // wasm is not loaded, and the page ends this Worker.
  if (event.data && event.data.probe === true) {
    p.postMessage({ probe: true });
    return;
  }
  port = p;
  const source = event.data && event.data.module_or_path;
  try {
    await initSigning({ module_or_path: await checkedModule(source) });
    // The start-up self-test: a faulty engine fails init() with ENGINE_FAULT.
    try {
      selfTest();
    } catch (fault) {
      dead = true;
      throw fault instanceof KitError ? fault : new KitError('ENGINE_FAULT', FAULT.message);
    }
  } catch (err) {
    port.postMessage({ ready: false, error: errorInfo(err) });
    return;
  }
  port.onmessage = (e) => answer(e.data);
  port.postMessage({ ready: true });
};
