// The browser entry's init() when reading its argument itself throws (a getter, a
// Proxy): still KitError NOT_INITIALIZED with the error as `cause`, and a later call
// retries. (Found by the type check: the failure path read `attempt` before it was
// assigned, so such an input rejected with a ReferenceError and init() never retried.)
// Runs in its own process, so the Node entry (which readies the module at import) is not loaded.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { init, KitError, ClientKey } from '../../pkg/browser.js';
import { WASM_PATH } from '../support/fixtures.mjs';

test('init() whose input throws when read rejects NOT_INITIALIZED, and a later init() retries', async () => {
  const boom = new Error('module_or_path getter failed');
  const input = {
    get module_or_path() {
      throw boom;
    },
  };
  await assert.rejects(init(input), (err) => {
    assert.ok(err instanceof KitError, `expected a KitError, got ${err?.constructor?.name}: ${err?.message}`);
    assert.equal(err.code, 'NOT_INITIALIZED');
    assert.equal(err.cause, boom);
    return true;
  });
  await init({ module_or_path: readFileSync(WASM_PATH) });
  assert.equal(ClientKey.generate().publicKeyHex.length, 130);
});
