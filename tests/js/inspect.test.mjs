// inspectPayload through the Node entry: what a payload to sign authorizes, read from
// the exact text the service returned (strict JSON; opaque text reported as such); and
// every signing path of the main entry refusing what it refuses.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { inspectPayload, KitError, ClientKey, Session } from '../../pkg/node.js';
import * as signingOnly from '../../pkg/signing-node.js';
import { sessionResponse, sealBundle, randomScalar, compressedPublicKeyHex, checkStamp, pending202, quote } from '../support/fixtures.mjs';

const refresh = JSON.stringify({
  organizationId: 'org-1',
  parameters: { apiKeyName: 'session', expirationSeconds: '900', targetPublicKey: `04${'ab'.repeat(64)}` },
  timestampMs: '1760357700000',
  type: 'ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION_V2',
});

test('a refresh activity names the key it would empower', () => {
  const p = inspectPayload(refresh);
  assert.deepEqual(p, {
    json: true,
    targetPublicKeys: [`04${'ab'.repeat(64)}`],
    activityType: 'ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION_V2',
    organizationId: 'org-1',
    timestampMs: '1760357700000',
  });
});

test('a quote payload shows amount, currency, source and destination', () => {
  const payload = '{"organizationId":"o","parameters":{"amount":"1250","currency":"USD","destinationAccountId":"InternalAccount:2",'
    + '"quoteId":"Quote:9","sourceAccountId":"InternalAccount:1","walletId":"w-1"},"timestampMs":"1","type":"ACTIVITY_TYPE_SIGN_TRANSACTION_V2"}';
  const p = inspectPayload(payload);
  assert.equal(p.activityType, 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2');
  assert.equal(p.amount, '1250');
  assert.equal(p.currency, 'USD');
  assert.equal(p.source, 'InternalAccount:1');
  assert.equal(p.destination, 'InternalAccount:2');
  assert.equal(p.quoteId, 'Quote:9');
  assert.equal(p.walletId, 'w-1');
  assert.deepEqual(p.targetPublicKeys, []);
  // Numbers keep their exact text (no float rounding of an amount).
  assert.equal(inspectPayload('{"parameters":{"amount":0.30000000000000004}}').amount, '0.30000000000000004');
});

test('opaque payloads (a token, base64) are reported as not JSON', () => {
  for (const opaque of ['eyJhbGciOiJFUzI1NiIsImtpZCI6InR1cm5rZXkifQ.e30.c2ln', 'AAEC', '', '[1]']) {
    assert.deepEqual(inspectPayload(opaque), { json: false, targetPublicKeys: [] }, opaque);
  }
});

test('ambiguous or malformed JSON is INVALID_INPUT naming what is wrong', () => {
  for (const [bad, words] of [
    ['{"parameters":{"targetPublicKey":"a","targetPublicKey":"b"}}', /duplicate member name/],
    ['{"type":"X"} {"type":"Y"}', /text after the JSON value/],
    ['{"type":"X",}', /member must start/],
    ['{"parameters":{"targetPublicKey":1}}', /targetPublicKey that is not a string/],
    ['{"a":"\\ud800"}', /unpaired surrogate/],
    [`${'{"a":'.repeat(1000)}1${'}'.repeat(1000)}`, /nested too deeply/],
  ]) {
    assert.throws(() => inspectPayload(bad), (err) => {
      assert.ok(err instanceof KitError);
      assert.equal(err.code, 'INVALID_INPUT');
      assert.match(err.message, words);
      return true;
    }, bad.slice(0, 40));
  }
  for (const notText of [undefined, null, 42, {}, ['{}']]) {
    assert.throws(() => inspectPayload(notText), (err) => err instanceof KitError && err.code === 'INVALID_INPUT');
  }
  // A lone surrogate in the JS string itself has no exact UTF-8 form to sign or read.
  assert.throws(() => inspectPayload('{"a":"\ud800"}'), (err) => err.code === 'INVALID_INPUT');
});

// Ours, then another key under a name Go's encoding/json also matches (the last one wins there).
const ours = `04${'ab'.repeat(64)}`;
const theirs = `04${'cd'.repeat(64)}`;
const ambiguous = [
  JSON.stringify({ parameters: { targetPublicKey: ours, TargetPublicKey: theirs } }),
  `{"parameters":{"targetPublicKey":"${ours}","TARGETPUBLICKEY":"${theirs}"}}`,
  '[{"a":{"Type":"x","type":"y"}}]',
  `{"targetPublicKey":"${ours}","\u212aey":1,"Key":2}`,
];

test('member names equal but for letter case are refused at any depth, saying so and where', () => {
  for (const bad of ambiguous) {
    assert.throws(() => inspectPayload(bad), (err) => {
      assert.ok(err instanceof KitError);
      assert.equal(err.code, 'INVALID_INPUT');
      assert.match(err.message, /^payloadToSign is ambiguous: member names equal but for letter case at byte \d+$/);
      return true;
    }, bad);
  }
});

test('a targetPublicKey in any letter case is listed, also inside an array', () => {
  assert.deepEqual(inspectPayload(`{"parameters":{"TargetPublicKey":"${theirs}"}}`).targetPublicKeys, [theirs]);
  assert.deepEqual(inspectPayload(`[{"targetpublickey":"${theirs}"}]`), { json: false, targetPublicKeys: [theirs] });
  // An array or an object is read as JSON after whitespace or a byte order mark too.
  for (const bad of ['[1,]', '\n {"a":1,}', '\ufeff{"a":1}']) {
    assert.throws(() => inspectPayload(bad), (err) => err.code === 'INVALID_INPUT', JSON.stringify(bad));
  }
});

test('every signing path of the main entry refuses what inspectPayload refuses; opaque text is still signed', () => {
  const scalar = randomScalar();
  const key = ClientKey.generate();
  const session = Session.open(sessionResponse({ bundle: sealBundle(scalar, key.publicKeyHex) }), key);
  const tek = ClientKey.generate();
  for (const payloadToSign of [...ambiguous, '{"a":1,"a":2}', '{"a":"\\ud800"}']) {
    const message = (() => {
      try {
        inspectPayload(payloadToSign);
      } catch (err) {
        return err.message;
      }
      return assert.fail(`inspectPayload took ${payloadToSign}`);
    })();
    for (const [path, sign, code] of [
      ['stamp', () => session.stamp(payloadToSign), 'INVALID_INPUT'],
      ['signRetry', () => session.signRetry(pending202({ payloadToSign })), 'INVALID_PENDING_SIGNATURE'],
      ['signQuote', () => session.signQuote(quote({ payloadToSign })), 'INVALID_INPUT'],
      ['ClientKey.signRetry', () => tek.signRetry(pending202({ payloadToSign })), 'INVALID_PENDING_SIGNATURE'],
    ]) {
      assert.throws(sign, (err) => err instanceof KitError && err.code === code && err.message === message, `${path}: ${payloadToSign}`);
    }
  }
  for (const opaque of ['', 'eyJhbGciOiJFUzI1NiJ9.e30.c2ln', `{"parameters":{"targetPublicKey":"${ours}"}}`]) {
    assert.ok(checkStamp(session.stamp(opaque), opaque, compressedPublicKeyHex(scalar)).ok, opaque);
  }
});

test('the signing-only entry signs payloads unread (it carries no JSON reader)', () => {
  const scalar = randomScalar();
  const key = signingOnly.ClientKey.generate();
  const session = signingOnly.Session.open(sessionResponse({ bundle: sealBundle(scalar, key.publicKeyHex) }), key);
  assert.ok(checkStamp(session.stamp(ambiguous[0]), ambiguous[0], compressedPublicKeyHex(scalar)).ok);
});
