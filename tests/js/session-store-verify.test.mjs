// Every signature WebCrypto makes for a StoredSession is verified before its stamp is
// released, by the wasm core's own verifier (p256's VerifyingKey, independent of the
// browser's or Node's crypto library that signed): a wrong one (here crypto.subtle.sign
// wrapped, before the kit loads and captures it, to flip one bit of its answer on demand)
// is ENGINE_FAULT saying to reload, nothing is released, and the session drops its key:
// every later use is ENGINE_FAULT without signing again. In its own file: the wrapped
// WebCrypto must be in place before the kit loads. Needs `make build`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sessionResponse, pending202, quote, randomScalar, sealBundle, compressedPublicKeyHex, checkStamp } from '../support/fixtures.mjs';
import { memoryIndexedDB } from '../support/memory-indexeddb.mjs';

const realSign = crypto.subtle.sign.bind(crypto.subtle);
const signing = { calls: 0, faulty: false };
crypto.subtle.sign = async (...args) => {
  signing.calls++;
  const signature = new Uint8Array(await realSign(...args));
  if (signing.faulty) signature[40] ^= 1; // one bit of s
  return signature.buffer;
};
const { ClientKey, Session, SessionStore, KitError } = await import('../../pkg/node.js');

const fault = (err) => err instanceof KitError && err.code === 'ENGINE_FAULT' && /reload the page/.test(err.message) && !/[0-9a-f]{64}/.test(err.message);

test('a wrong WebCrypto signature is never released: ENGINE_FAULT, and the stored session drops its key', async () => {
  const key = ClientKey.generate();
  const scalar = randomScalar();
  const response = sessionResponse({ bundle: sealBundle(scalar, key.publicKeyHex) });
  const session = Session.open(response, key);
  const store = await SessionStore.open({ indexedDB: memoryIndexedDB() });
  const saved = await store.save(session);
  session.free();
  assert.ok(checkStamp(await saved.stamp('good'), 'good', compressedPublicKeyHex(scalar)).ok);

  signing.faulty = true;
  const before = signing.calls;
  await assert.rejects(saved.stamp('faulty'), fault);
  assert.equal(signing.calls, before + 1, 'WebCrypto signed once');
  // The key is gone from this object: nothing is signed again, every use is ENGINE_FAULT.
  signing.faulty = false;
  await assert.rejects(saved.stamp('again'), fault);
  await assert.rejects(saved.signRetry(pending202()), fault);
  await assert.rejects(saved.signQuote(quote()), fault);
  assert.equal(signing.calls, before + 1, 'no signature after the fault');
  // Another handle of the same stored session (a reload) signs again, and is checked again.
  const loaded = await store.load(response.id);
  assert.ok(checkStamp(await loaded.stamp('reloaded'), 'reloaded', compressedPublicKeyHex(scalar)).ok);
  signing.faulty = true;
  await assert.rejects(loaded.signRetry(pending202()), fault);
});
