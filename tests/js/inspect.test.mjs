// inspectPayload through the Node entry: what a payload to sign authorizes, read from
// the exact text the service returned (strict JSON; opaque text reported as such).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { inspectPayload, KitError } from '../../pkg/node.js';

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
