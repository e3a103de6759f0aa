// The timed loops of `make bench`, shared by Node and the browser pages: the same code
// measures the kit through both entries — the main one (`kit.*`: pkg/node.js or
// pkg/browser.js, the wallet module) and `embedded-wallet-kit/signing` (`signing.*`:
// pkg/signing-node.js or pkg/signing.js, the signing module) — the
// peer (@turnkey/crypto + @turnkey/api-key-stamper, bench/peer-entry.mjs) and WebCrypto's
// native P-256 (the floor). Nothing here imports a Node or browser module: run.mjs and the
// bench page pass the entries and the peer in.
//
// Every measurement: `warmup` untimed-but-executed iterations, then `iters` timed ones in
// batches: performance.now() is coarsened by the engines (Chromium cross-origin isolated: 5
// µs; Firefox and WebKit: up to 1 ms), so each sample times `batch` consecutive calls, as
// many as make a sample ≥ TICKS_PER_SAMPLE ticks of the clock, and is reported per call.
// Where the clock is fine enough, batch = 1: each call timed alone. Inputs that an operation
// consumes (client keys, bundles, 202s with a fresh requestId) are made before the timed
// region; the per-call checks and frees run after each batch, untimed.

/**
 * The order in which the operations run, in each environment: per task the main entry,
 * the signing entry, then the peer and the floor, so that each kit op runs next to its
 * peer op (the ratios compare neighbours).
 */
export const ORDER = [
  'kit.keygen', 'signing.keygen', 'peer.keygen', 'floor.keygen',
  'kit.open', 'signing.open', 'peer.open', 'peer.decryptOnly', 'floor.ecdh',
  'kit.stamp', 'signing.stamp', 'kit.storedStamp', 'peer.stamp', 'peer.stampPurejs', 'floor.sign',
  'kit.signRetry', 'signing.signRetry', 'peer.signRetry',
];

/** A ~300-byte activity body, as a wallet would stamp it. */
export const PAYLOAD = JSON.stringify({
  type: 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2',
  timestampMs: '1763812800000',
  organizationId: '5f0c1e9a-3b7d-4c2e-9a61-2d8f4b7e0c13',
  parameters: {
    signWith: '0x4d3C5A6b2F1e9D8c7B6a5F4E3d2C1b0A9f8E7d6C',
    type: 'TRANSACTION_TYPE_ETHEREUM',
    unsignedTransaction: '02f86c0182012a8402faf0808504a817c80082520894b0b1b2b3b4b5b6b7b8b9bab',
  },
});

const HOUR = 3_600_000;
/** Below the kit's MAX_SIGNED_REQUEST_IDS (1024) per session and hour. */
const RETRIES_PER_SESSION = 1000;
const uuid = () => crypto.randomUUID();

/** Summary of samples in milliseconds: median, p95 (nearest rank), mean, min, max. */
export function stats(samples) {
  const s = Float64Array.from(samples).sort();
  const n = s.length;
  const median = n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
  const p95 = s[Math.min(n - 1, Math.ceil(0.95 * n) - 1)];
  const mean = s.reduce((a, b) => a + b, 0) / n;
  return { n, median, p95, mean, min: s[0], max: s[n - 1] };
}

/** The smallest step of performance.now() seen (ms): the clock's resolution here. */
export function clockResolution() {
  let best = Infinity;
  for (let k = 0; k < 20; k++) {
    const t0 = performance.now();
    let t1 = t0;
    while (t1 === t0) t1 = performance.now();
    best = Math.min(best, t1 - t0);
  }
  return best;
}

/** Quantisation error per sample ≤ 1 / TICKS_PER_SAMPLE of it. */
export const TICKS_PER_SAMPLE = 20;

/**
 * Calls per sample for an operation of about `perCallMs` on a clock of `resolutionMs`:
 * 1 on a ≤ 10 µs clock, else enough calls for TICKS_PER_SAMPLE ticks, leaving at least
 * 10 samples out of `iters` calls.
 */
export function batchSize(perCallMs, resolutionMs, iters) {
  if (resolutionMs <= 0.01) return 1;
  const wanted = Math.ceil((TICKS_PER_SAMPLE * resolutionMs) / Math.max(perCallMs, 1e-6));
  return Math.max(1, Math.min(wanted, Math.floor(iters / 10)));
}

/**
 * Runs `fn(i)` for i in [0, warmup + iters); times the last `iters` calls in batches
 * (batchSize, from the warm-up's pace). `fn` may return a promise (awaited inside the timed
 * region) or a value; `after(i, out)` runs untimed after each batch (checks, freeing wasm
 * objects).
 */
async function timeLoop({ warmup, iters, resolution }, fn, after) {
  const w0 = performance.now();
  for (let i = 0; i < warmup; i++) {
    let out = fn(i);
    if (out instanceof Promise) out = await out;
    if (after) after(i, out);
  }
  const batch = batchSize((performance.now() - w0) / Math.max(warmup, 1), resolution, iters);
  const samples = [];
  const outs = new Array(batch);
  for (let i = warmup; i + batch <= warmup + iters; i += batch) {
    const t0 = performance.now();
    for (let j = 0; j < batch; j++) {
      let out = fn(i + j);
      if (out instanceof Promise) out = await out;
      outs[j] = out;
    }
    samples.push((performance.now() - t0) / batch);
    if (after) for (let j = 0; j < batch; j++) after(i + j, outs[j]);
  }
  // drift: median of the second half over that of the first (≈ 1 when the warm-up was enough).
  const half = samples.length >> 1;
  return { ...stats(samples), batch, drift: stats(samples.slice(half)).median / stats(samples.slice(0, half)).median };
}

/** A verify/refresh response as the service sends it, carrying `bundle`. */
export function sessionResponse(bundle) {
  const now = new Date().toISOString();
  return {
    id: `Session:${uuid()}`,
    accountId: `InternalAccount:${uuid()}`,
    type: 'EMAIL_OTP',
    nickname: 'alice@example.com',
    createdAt: now,
    updatedAt: now,
    expiresAt: new Date(Date.now() + HOUR).toISOString(),
    encryptedSessionSigningKey: bundle,
  };
}

/** `n` distinct 202 PendingSignature bodies over ~300-byte payloads. */
function pendings(n) {
  const expiresAt = new Date(Date.now() + HOUR).toISOString();
  return Array.from({ length: n }, () => ({
    type: 'EMAIL_OTP',
    payloadToSign: PAYLOAD.replace('1763812800000', String(Date.now())).replace('5f0c1e9a', uuid().slice(0, 8)),
    requestId: `Request:${uuid()}`,
    expiresAt,
  }));
}

const hexToBytes = (hex) => Uint8Array.from(hex.match(/../g), (b) => parseInt(b, 16));

/**
 * What a peer user writes for signRetry: the same checks as the kit (shape, expiry, one
 * signature per requestId) around ApiKeyStamper.stamp, returning the two retry headers.
 */
async function peerSignRetry(stamper, signed, p) {
  if (typeof p?.payloadToSign !== 'string' || typeof p.requestId !== 'string') throw new Error('INVALID_PENDING_SIGNATURE');
  if (Date.parse(p.expiresAt) <= Date.now()) throw new Error('REQUEST_EXPIRED');
  if (signed.has(p.requestId)) throw new Error('REQUEST_ALREADY_SIGNED');
  const { stampHeaderValue } = await stamper.stamp(p.payloadToSign);
  signed.add(p.requestId);
  return { 'Service-Wallet-Signature': stampHeaderValue, 'Request-Id': p.requestId };
}

/**
 * keygen, open, stamp and signRetry through one entry (`entry`: its ClientKey and
 * Session), as `${prefix}.keygen` ...; `keysFor(op)` hands the ClientKeys, made by that
 * entry, to which the op's bundles were sealed. Both entries run this very code.
 */
function entryOps(prefix, entry, keysFor, { cfg, n }) {
  return {
    [`${prefix}.keygen`]: () =>
      timeLoop(cfg, () => {
        const k = entry.ClientKey.generate();
        return [k, k.publicKeyHex];
      }, (_, [k, pub]) => {
        if (pub.length !== 130) throw new Error(`${prefix} publicKeyHex ${pub}`);
        k.free();
      }),
    // input: { bundles: string[n] } sealed to prepareKitKeys' keys, in order.
    [`${prefix}.open`]: ({ bundles }) => {
      const responses = bundles.map(sessionResponse);
      const keys = keysFor(`${prefix}.open`);
      return timeLoop(cfg, (i) => entry.Session.open(responses[i], keys[i]), (_, s) => {
        if (s.publicKeyHex.length !== 66) throw new Error(`${prefix} open: no public key`);
        s.free();
      });
    },
    // input: { bundles: [bundle] } sealed to its key. Returns one stamp to verify.
    [`${prefix}.stamp`]: async ({ bundles: [bundle] }) => {
      const s = entry.Session.open(sessionResponse(bundle), keysFor(`${prefix}.stamp`)[0]);
      const r = await timeLoop(cfg, () => s.stamp(PAYLOAD));
      r.sample = { stamp: s.stamp(PAYLOAD), payload: PAYLOAD, publicKeyHex: s.publicKeyHex };
      s.free();
      return r;
    },
    // A session signs at most MAX_SIGNED_REQUEST_IDS requestIds an hour (RATE_LIMITED
    // after): a new session every RETRIES_PER_SESSION calls, each on its own key.
    [`${prefix}.signRetry`]: async ({ bundles }) => {
      const keys = keysFor(`${prefix}.signRetry`);
      const sessions = bundles.map((b, j) => entry.Session.open(sessionResponse(b), keys[j]));
      const at = (i) => sessions[Math.floor(i / RETRIES_PER_SESSION)];
      const p = pendings(n + 1);
      const r = await timeLoop(cfg, (i) => at(i).signRetry(p[i]), (i, h) => {
        if (h['Request-Id'] !== p[i].requestId) throw new Error(`${prefix} signRetry: wrong Request-Id`);
      });
      const h = at(n).signRetry(p[n]);
      r.sample = { stamp: h['Service-Wallet-Signature'], payload: p[n].payloadToSign, publicKeyHex: at(n).publicKeyHex };
      for (const s of sessions) s.free();
      return r;
    },
  };
}

/**
 * One benchmark context per environment. `kit` is the package's main entry and `signing`
 * its signing entry (both after init() and its warm-up), `peer` the namespace of
 * bench/peer-entry.mjs. The caller:
 *   1. `prepareKitKeys()` → per op, uncompressed public keys of fresh ClientKeys (kept
 *      here), each made by the op's own entry: Session.open refuses the other entry's keys;
 *   2. seals a session key to each (with @turnkey/crypto, in Node);
 *   3. `run(op, input)` for each op of ORDER.
 */
export function createHarness({ kit, signing, peer, warmup, iters }) {
  const resolution = clockResolution();
  const cfg = { warmup, iters, resolution };
  const n = warmup + iters;
  // The kit's ClientKeys by operation (prepareKitKeys), each sealed to by the caller.
  let kitKeys = {};
  const keysFor = (op) => kitKeys[op];
  const subtle = crypto.subtle;
  const enc = new TextEncoder();

  async function floorSignKey() {
    const kp = await subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify']);
    // Re-import the private key as an app would import a stored key (non-extractable).
    const jwk = await subtle.exportKey('jwk', kp.privateKey);
    return subtle.importKey('jwk', jwk, { name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign']);
  }

  const ops = {
    // ---- kit: the main entry, then the signing entry (the same loops) ----------------
    ...entryOps('kit', kit, keysFor, { cfg, n }),
    ...entryOps('signing', signing, keysFor, { cfg, n }),
    // The same stamp through SessionStore (main entry only): the key kept non-extractable
    // in WebCrypto, the signature from subtle.sign (randomized, async), guards and DER
    // stamp in wasm. Needs IndexedDB (browsers): null elsewhere.
    'kit.storedStamp': async ({ bundles: [bundle] }) => {
      if (globalThis.indexedDB === undefined) return null;
      const store = await kit.SessionStore.open({ name: `bench-${Date.now()}` });
      const s = kit.Session.open(sessionResponse(bundle), keysFor('kit.storedStamp')[0]);
      const stored = await store.save(s);
      s.free();
      const r = await timeLoop(cfg, () => stored.stamp(PAYLOAD));
      r.sample = { stamp: await stored.stamp(PAYLOAD), payload: PAYLOAD, publicKeyHex: stored.publicKeyHex };
      await store.clear();
      store.close();
      return r;
    },

    // ---- peer -----------------------------------------------------------------------
    'peer.keygen': () =>
      timeLoop(cfg, () => peer.generateP256KeyPair().publicKeyUncompressed, (_, pub) => {
        if (pub.length !== 130) throw new Error(`peer publicKeyUncompressed ${pub}`);
      }),
    // input: { bundles: [{ bundle, privateKey }] } sealed to peer key pairs.
    // The same work as Session.open: the session key, its public key (the stamper's
    // apiPublicKey) and a stamper ready to sign.
    'peer.open': ({ bundles }) =>
      timeLoop(cfg, (i) => {
        const priv = peer.decryptCredentialBundle(bundles[i].bundle, bundles[i].privateKey);
        const pub = peer.uint8ArrayToHexString(peer.getPublicKey(priv, true));
        return new peer.ApiKeyStamper({ apiPublicKey: pub, apiPrivateKey: priv });
      }, (_, st) => {
        if (st.apiPrivateKey.length !== 64) throw new Error('peer open: no key');
      }),
    // decryptCredentialBundle alone (no public key), for reference.
    'peer.decryptOnly': ({ bundles }) =>
      timeLoop(cfg, (i) => peer.decryptCredentialBundle(bundles[i].bundle, bundles[i].privateKey)),
    // ApiKeyStamper with the runtime it picks itself (Chromium: WebCrypto; Node: node:crypto).
    'peer.stamp': () => {
      const kp = peer.generateP256KeyPair();
      const stamper = new peer.ApiKeyStamper({ apiPublicKey: kp.publicKey, apiPrivateKey: kp.privateKey });
      return timeLoop(cfg, () => stamper.stamp(PAYLOAD));
    },
    // ApiKeyStamper forced to its pure-JS path (@noble/curves), for reference.
    'peer.stampPurejs': () => {
      const kp = peer.generateP256KeyPair();
      const stamper = new peer.ApiKeyStamper({ apiPublicKey: kp.publicKey, apiPrivateKey: kp.privateKey, runtimeOverride: 'purejs' });
      return timeLoop(cfg, () => stamper.stamp(PAYLOAD));
    },
    'peer.signRetry': () => {
      const kp = peer.generateP256KeyPair();
      const stamper = new peer.ApiKeyStamper({ apiPublicKey: kp.publicKey, apiPrivateKey: kp.privateKey });
      const signed = new Set();
      const p = pendings(n);
      return timeLoop(cfg, (i) => peerSignRetry(stamper, signed, p[i]));
    },

    // ---- WebCrypto (the floor) ------------------------------------------------------
    // generateKey + exporting the public key (what a key generation must hand out).
    'floor.keygen': () =>
      timeLoop(cfg, async () => {
        const kp = await subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign']);
        return new Uint8Array(await subtle.exportKey('raw', kp.publicKey));
      }),
    // ECDH alone (importKey of the peer point + deriveBits): the native part of an open.
    // input: { points: hex[n] } uncompressed public keys.
    'floor.ecdh': async ({ points }) => {
      const alg = { name: 'ECDH', namedCurve: 'P-256' };
      const mine = await subtle.generateKey(alg, false, ['deriveBits']);
      const raw = points.map(hexToBytes);
      return timeLoop(cfg, async (i) => {
        const pub = await subtle.importKey('raw', raw[i], alg, false, []);
        return subtle.deriveBits({ name: 'ECDH', public: pub }, mine.privateKey, 256);
      });
    },
    // ECDSA P-256 over SHA-256 with an imported key: the bare native signature (no DER,
    // no stamp JSON, no base64url).
    'floor.sign': async () => {
      const key = await floorSignKey();
      return timeLoop(cfg, () => subtle.sign({ name: 'ECDSA', hash: 'SHA-256' }, key, enc.encode(PAYLOAD)));
    },
  };

  return {
    payloadBytes: enc.encode(PAYLOAD).length,
    resolution,
    /** Generates the kit's ClientKeys: { op: uncompressed public keys }, a bundle for each. */
    prepareKitKeys() {
      for (const k of Object.values(kitKeys).flat()) k.free();
      const keys = (entry, count) => Array.from({ length: count }, () => entry.ClientKey.generate());
      const retryKeys = Math.ceil((n + 1) / RETRIES_PER_SESSION);
      kitKeys = {
        'kit.open': keys(kit, n), 'kit.stamp': keys(kit, 1), 'kit.storedStamp': keys(kit, 1), 'kit.signRetry': keys(kit, retryKeys),
        'signing.open': keys(signing, n), 'signing.stamp': keys(signing, 1), 'signing.signRetry': keys(signing, retryKeys),
      };
      return Object.fromEntries(Object.entries(kitKeys).map(([op, ks]) => [op, ks.map((k) => k.publicKeyHex)]));
    },
    ops: Object.keys(ops),
    /** Runs one measurement; returns stats (+ `sample` for the stamps, to verify). */
    run: (op, input = {}) => ops[op](input),
  };
}
