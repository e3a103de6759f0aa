// Interop with the real peers from npm:
//  (a) @turnkey/crypto seals random session keys to our ClientKey; our Session opens them
//      to the same public key (computed by @noble/curves);
//  (b) our stamps verify with independent verifiers (@noble/curves and node:crypto, and
//      @turnkey/crypto's own verifyStampSignature) and decode to the exact JSON;
//  (c) @turnkey/api-key-stamper, given the same private key, produces the same stamp.
// The upstream known-answer bundles need a private key injected and are covered natively.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { getPublicKey, verifyStampSignature, decryptCredentialBundle } from '@turnkey/crypto';
import { ApiKeyStamper } from '@turnkey/api-key-stamper';
import { uint8ArrayToHexString } from '@turnkey/encoding';
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

test('(c) @turnkey/api-key-stamper with the same key: same public key, both verify, byte-identical (RFC 6979)', async () => {
  for (let i = 0; i < 5; i++) {
    const scalar = randomScalar();
    const s = sessionFor(scalar);
    const publicKey = compressedPublicKeyHex(scalar);
    const privateKey = uint8ArrayToHexString(scalar);
    for (const [name, payload] of Object.entries(PAYLOADS)) {
      if (name === 'oneMiB' && i > 0) continue;
      const ours = s.stamp(payload);
      // purejs: @noble/curves v1, deterministic RFC 6979 without low-S normalisation.
      const pure = await new ApiKeyStamper({ apiPublicKey: publicKey, apiPrivateKey: privateKey, runtimeOverride: 'purejs' })
        .stamp(payload);
      assert.equal(pure.stampHeaderName, 'X-Stamp');
      assert.ok(checkStamp(pure.stampHeaderValue, payload, publicKey).ok, `${name}: peer stamp verifies`);
      assert.equal(JSON.parse(b64urlToString(pure.stampHeaderValue)).publicKey, JSON.parse(b64urlToString(ours)).publicKey);
      // The peer's purejs path hashes the UTF-8 bytes (sha256-uint8array), as we do.
      assert.equal(ours, pure.stampHeaderValue, `${name}: byte-identical to the peer`);
      // node runtime: OpenSSL, randomised k — compare by verification only.
      const viaNode = await new ApiKeyStamper({ apiPublicKey: publicKey, apiPrivateKey: privateKey, runtimeOverride: 'node' })
        .stamp(payload);
      assert.ok(checkStamp(viaNode.stampHeaderValue, payload, publicKey).ok, `${name}: node-runtime peer stamp verifies`);
      assert.ok(checkStamp(ours, payload, publicKey).ok, `${name}: ours verifies`);
    }
    s.free();
  }
});
