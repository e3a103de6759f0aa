// The isolated signer is browser-only: the Node entry refuses init({ isolate: 'worker' })
// with a KitError instead of starting anything, and keeps working in-process.
// (The isolated signer itself is tested in headless Chromium: tests/isolate/run.mjs.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { init, ClientKey, KitError } from '../../pkg/node.js';

test("init({ isolate: 'worker' }) in Node rejects INVALID_INPUT, saying it is browser-only", async () => {
  await assert.rejects(init({ isolate: 'worker' }), (err) => {
    assert.ok(err instanceof KitError);
    assert.equal(err.code, 'INVALID_INPUT');
    assert.match(err.message, /browser-only/);
    return true;
  });
  await assert.rejects(init({ isolate: 'worker', passkeys: true }), (err) => err instanceof KitError && err.code === 'INVALID_INPUT');
});

test('init({ isolate: false }) and init() still resolve; the in-process API works', async () => {
  assert.equal(await init({ isolate: false }), undefined);
  assert.equal(await init(), undefined);
  assert.match(ClientKey.generate().publicKeyHex, /^04[0-9a-f]{128}$/);
});

test('init({ isolate: null }) is the in-process init, as isolate: false or undefined', async () => {
  assert.equal(await init({ isolate: null }), undefined);
  assert.equal(await init({ isolate: null, passkeys: true }), undefined);
});
