// The Node side of tests/points/run.mjs: encapsulated keys decided by @noble/curves and
// bundles sealed by @turnkey/crypto. run.mjs runs it in a worker thread (peerWorker), so
// that the next probes are made while the page loads and the bundles sealed while the page
// probes: it was about a third of each fresh load, waited for in turn.
import { randomBytes } from 'node:crypto';
import { parentPort } from 'node:worker_threads';
import { p256 } from '@noble/curves/nist.js';
import { bs58check, uint8ArrayToHexString } from '@turnkey/encoding';
import { compressedPublicKeyHex, randomScalar, sealBundle } from '../support/fixtures.mjs';

const FIELD_P = 0xffffffff00000001000000000000000000000000ffffffffffffffffffffffffn;
const hex32 = (n) => n.toString(16).padStart(64, '0');
const onCurve = (enc) => {
  try {
    p256.Point.fromBytes(enc);
    return true;
  } catch {
    return false;
  }
};
/** base58check(enc ‖ 48 random bytes): a session bundle's length, sealed to nobody. */
const withGarbage = (enc) => bs58check.encode(new Uint8Array([...enc, ...randomBytes(48)]));
const compressed = (prefix, x) => Uint8Array.from([prefix, ...Buffer.from(hex32(x), 'hex')]);

/** `n` encapsulated keys half on the curve, half off it (as @noble/curves decides), plus the edges. */
export function probeCases(n) {
  const cases = [];
  for (const x of [0n, FIELD_P, FIELD_P + 1n, (1n << 256n) - 1n]) {
    for (const prefix of [2, 3]) cases.push(compressed(prefix, x));
  }
  while (cases.length < n) {
    if (cases.length % 2 === 0) {
      cases.push(p256.getPublicKey(randomScalar(), true));
    } else {
      const enc = Uint8Array.from([2 + (randomBytes(1)[0] & 1), ...randomBytes(32)]);
      if (!onCurve(enc)) cases.push(enc);
    }
  }
  return cases.map((enc) => ({ enc: uint8ArrayToHexString(enc), valid: onCurve(enc), bundle: withGarbage(enc) }));
}

/** A session key sealed to each of `pubs` by @turnkey/crypto, with what opening it must give. */
export function sealTo(pubs) {
  return pubs.map((pub) => {
    const scalar = randomScalar();
    const bundle = sealBundle(scalar, pub);
    return { bundle, expected: `ok: ${compressedPublicKeyHex(scalar)}`, enc: uint8ArrayToHexString(bs58check.decode(bundle).slice(0, 33)) };
  });
}

// In the worker: { id, name, arg } in, { id, value } or { id, error } out.
const exported = { probeCases, sealTo };
parentPort?.on('message', ({ id, name, arg }) => {
  try {
    parentPort.postMessage({ id, value: exported[name](arg) });
  } catch (err) {
    parentPort.postMessage({ id, error: String(err?.stack ?? err) });
  }
});
