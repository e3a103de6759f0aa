// The browser entry's warm-up (js/browser.js warmUpLater, bindings/signing warmUp): once
// init() has resolved, not inside it, the entry asks requestIdleCallback to run warmUp,
// which pays for what the first keygen would (p256's basepoint table: several ms the
// first time, a fraction of that afterwards). Exercised in Node with a requestIdleCallback
// that records what it is given, installed before the entry is imported. Needs `make build`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { WASM_PATH } from '../support/fixtures.mjs';

/** @type {{ callback: () => void, options: unknown }[]} */
const idle = [];
globalThis.requestIdleCallback = (callback, options) => {
  idle.push({ callback, options });
  return idle.length;
};
const kit = await import('../../pkg/browser.js');
// The same module instance as the entry's (one URL, one module record).
const glue = await import('../../pkg/embedded_wallet_kit.js');

const timed = (fn) => {
  const t0 = performance.now();
  fn();
  return performance.now() - t0;
};

test('init() resolves first; the warm-up waits for idle time, then builds what the first keygen needs', async () => {
  assert.equal(idle.length, 0, 'nothing scheduled before init()');
  await kit.init({ module_or_path: readFileSync(WASM_PATH) });
  assert.equal(idle.length, 1, 'one warm-up scheduled once init() resolved');
  assert.deepEqual(idle[0].options, { timeout: 50 }, 'it runs within 50 ms even on a busy page');

  const first = timed(idle[0].callback);
  // Later calls find the table built (they still generate a key and open a bundle): the
  // fastest of a few takes well under half the first call.
  const later = Math.min(...[0, 1, 2, 3, 4].map(() => timed(glue.warmUp)));
  assert.ok(later * 2 < first, `the first warm-up built the table (${first.toFixed(2)} ms, later ${later.toFixed(2)} ms)`);

  // And the kit works as before.
  const key = kit.ClientKey.generate();
  assert.match(key.publicKeyHex, /^04[0-9a-f]{128}$/);
  key.free();

  await kit.init();
  assert.equal(idle.length, 1, 'a second init() schedules nothing more');
});
