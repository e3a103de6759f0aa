// The isolated signer, Worker side (started by isolated.js for `init({ isolate: 'worker' })`).
//
// Loads the full module (the main entry's) in this Worker's own realm and holds every ClientKey and
// Session it makes, by opaque handles. It answers requests only on the MessagePort the
// page transferred in its first message, and it sends back public keys, stamps, headers
// and (for openWalletExport, by design) the mnemonic: never key bytes.
import initSigning, { ClientKey, Session, encryptOtp, openWalletExport, inspectPayload } from './embedded_wallet_kit.js';
import { KitError } from './kit-error.js';

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

function answer(data) {
  const { id, op, args } = data;
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
  port = p;
  const source = event.data && event.data.module_or_path;
  try {
    await initSigning({ module_or_path: source ?? new URL('./embedded_wallet_kit_bg.wasm', import.meta.url) });
  } catch (err) {
    port.postMessage({ ready: false, error: errorInfo(err) });
    return;
  }
  port.onmessage = (e) => answer(e.data);
  port.postMessage({ ready: true });
};
