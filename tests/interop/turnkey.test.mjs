// Interop with the real peers from npm:
//  (a) @turnkey/crypto seals random session keys to our ClientKey; our Session opens them
//      to the same public key (computed by @noble/curves);
//  (b) our stamps verify with independent verifiers (@noble/curves and node:crypto, and
//      @turnkey/crypto's own verifyStampSignature) and decode to the exact JSON;
//  (c) our stamps are hedged (two of one payload differ) and verify, with @noble/curves and
//      WebCrypto, as @turnkey/api-key-stamper's stamps with the same private key do.
// The upstream known-answer bundles need a private key injected and are covered natively.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { getPublicKey, verifyStampSignature, decryptCredentialBundle } from '@turnkey/crypto';
import { ApiKeyStamper } from '@turnkey/api-key-stamper';
import { webcrypto } from 'node:crypto';
import { p256 } from '@noble/curves/nist.js';
import { uint8ArrayToHexString, uint8ArrayFromHexString } from '@turnkey/encoding';
import { init, ClientKey, Session } from '../../pkg/node.js';
import { sessionResponse, randomScalar, compressedPublicKeyHex, sealBundle, checkStamp, b64urlToString } from '../support/fixtures.mjs';

await init();

/** Opens a session on a known scalar, sealed by @turnkey/crypto to a fresh ClientKey. */
function sessionFor(scalar) {
  const key = ClientKey.generate();
  const bundle = sealBundle(scalar, key.publicKeyHex);
  return Session.open(sessionResponse({ bundle }), key);
}

const PAYLOADS = {
  empty: '',
  ascii: '{"organizationId":"org","parameters":{"amount":"100"},"timestampMs":"1763812800000","type":"ACTIVITY_TYPE_X"}',
  emoji: 'pay 💸 to 🧑‍🚀 — ok? ✓ 日本語',
  crlf: 'line one\r\nline two\r\n',
  nul: 'before\u0000after\u0000',
  whitespace: '  \t leading and trailing whitespace \n ',
  lone: 'combining é vs é (not normalised)',
  oneMiB: 'x'.repeat(1024 * 1024 - 3) + 'end',
};

test('(a) @turnkey/crypto-sealed bundles open to the same key, 20 random keys', () => {
  for (let i = 0; i < 20; i++) {
    const scalar = randomScalar();
    const key = ClientKey.generate();
    const bundle = sealBundle(scalar, key.publicKeyHex);
    // The bundle is 33 + 48 bytes under base58check, as the service sends it.
    const s = Session.open(sessionResponse({ bundle }), key);
    assert.equal(s.publicKeyHex, compressedPublicKeyHex(scalar), `key ${i}`);
    s.free();
  }
});

test('(a) our sealer is the peer format: @turnkey/crypto decryptCredentialBundle opens it too', () => {
  // Guards the fixture itself: the same bundle opens with the peer's own decryptor.
  const scalar = randomScalar();
  const recipient = randomScalar();
  const recipientPub = uint8ArrayToHexString(getPublicKey(recipient, false));
  const bundle = sealBundle(scalar, recipientPub);
  assert.equal(decryptCredentialBundle(bundle, uint8ArrayToHexString(recipient)), uint8ArrayToHexString(scalar));
});

test('(b) stamps verify independently for awkward payloads, with the exact JSON', () => {
  const scalar = randomScalar();
  const s = sessionFor(scalar);
  const expectedPub = compressedPublicKeyHex(scalar);
  for (const [name, payload] of Object.entries(PAYLOADS)) {
    const stamp = s.stamp(payload);
    const c = checkStamp(stamp, payload, expectedPub);
    assert.ok(c.ok, `${name}: ${JSON.stringify({ ...c, json: undefined })}`);
    assert.deepEqual(c.keys, ['publicKey', 'scheme', 'signature'], name);
    assert.equal(b64urlToString(stamp), JSON.stringify(c.json), `${name}: compact JSON`);
    assert.ok(!stamp.includes('='), `${name}: no padding`);
    // One byte off must not verify (the signature covers the exact bytes).
    const tweaked = payload.length ? payload.slice(0, -1) : ' ';
    assert.equal(checkStamp(stamp, tweaked, expectedPub).ok, false, `${name}: tweaked payload must fail`);
  }
  s.free();
});

test('(b) @turnkey/crypto verifyStampSignature accepts our signatures', async () => {
  const scalar = randomScalar();
  const s = sessionFor(scalar);
  for (const [name, payload] of Object.entries(PAYLOADS)) {
    if (name === 'oneMiB') continue;
    const json = JSON.parse(b64urlToString(s.stamp(payload)));
    assert.equal(await verifyStampSignature(json.publicKey, json.signature, payload), true, name);
  }
  s.free();
});

/** Verifies a stamp with WebCrypto (node:crypto's webcrypto): P1363 r ‖ s, SHA-256. */
async function webCryptoVerifies(stamp, payload) {
  const json = JSON.parse(b64urlToString(stamp));
  const point = p256.Point.fromBytes(uint8ArrayFromHexString(json.publicKey)).toBytes(false);
  const key = await webcrypto.subtle.importKey('raw', point, { name: 'ECDSA', namedCurve: 'P-256' }, false, ['verify']);
  const p1363 = p256.Signature.fromBytes(uint8ArrayFromHexString(json.signature), 'der').toBytes('compact');
  return webcrypto.subtle.verify({ name: 'ECDSA', hash: 'SHA-256' }, key, p1363, new TextEncoder().encode(payload));
}

test('(c) two stamps of one payload differ (hedged nonces); both verify with @noble/curves and WebCrypto, as the peer @turnkey/api-key-stamper\'s do', async () => {
  for (let i = 0; i < 5; i++) {
    const scalar = randomScalar();
    const s = sessionFor(scalar);
    const publicKey = compressedPublicKeyHex(scalar);
    const privateKey = uint8ArrayToHexString(scalar);
    for (const [name, payload] of Object.entries(PAYLOADS)) {
      if (name === 'oneMiB' && i > 0) continue;
      const ours = [s.stamp(payload), s.stamp(payload)];
      assert.notEqual(ours[0], ours[1], `${name}: two stamps of one payload differ`);
      // purejs: @noble/curves v1, deterministic RFC 6979 without low-S normalisation.
      const pure = await new ApiKeyStamper({ apiPublicKey: publicKey, apiPrivateKey: privateKey, runtimeOverride: 'purejs' })
        .stamp(payload);
      assert.equal(pure.stampHeaderName, 'X-Stamp');
      // node runtime: OpenSSL, randomised k.
      const viaNode = await new ApiKeyStamper({ apiPublicKey: publicKey, apiPrivateKey: privateKey, runtimeOverride: 'node' })
        .stamp(payload);
      for (const [who, stamp] of [['ours', ours[0]], ['ours again', ours[1]], ['peer', pure.stampHeaderValue], ['node-runtime peer', viaNode.stampHeaderValue]]) {
        // checkStamp: @noble/curves and node:crypto's verify.
        const c = checkStamp(stamp, payload, publicKey);
        assert.ok(c.nobleOk && c.ok, `${name}: ${who}'s stamp verifies (${c.error ?? 'node:crypto'})`);
        assert.equal(await webCryptoVerifies(stamp, payload), true, `${name}: ${who}'s stamp verifies with WebCrypto`);
        assert.equal(JSON.parse(b64urlToString(stamp)).publicKey, publicKey, `${name}: ${who}'s public key`);
      }
      assert.equal(await webCryptoVerifies(ours[0], `${payload} `), false, `${name}: another payload must not verify`);
    }
    s.free();
  }
});
