// The browser entry's warm-up (js/browser.js warmUpLater, bindings/signing warmUp): once
// init() has resolved, not inside it, the entry asks requestIdleCallback to run warmUp,
// which pays for what the first keygen and open would (p256's basepoint table: several
// ms the first time; `make bench` measures it). Exercised in Node with a requestIdleCallback
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

test('init() resolves first; the warm-up waits for idle time, then runs the warm-up', async () => {
  assert.equal(idle.length, 0, 'nothing scheduled before init()');
  await kit.init({ module_or_path: readFileSync(WASM_PATH) });
  assert.equal(idle.length, 1, 'one warm-up scheduled once init() resolved');
  assert.deepEqual(idle[0].options, { timeout: 50 }, 'it runs within 50 ms even on a busy page');

  // It runs (idempotently) without touching what the page holds; how much it saves is
  // measured by `make bench` (the first keygen/open/stamp after init()), never timed here.
  idle[0].callback();
  glue.warmUp();

  // And the kit works as before.
  const key = kit.ClientKey.generate();
  assert.match(key.publicKeyHex, /^04[0-9a-f]{128}$/);
  key.free();

  await kit.init();
  assert.equal(idle.length, 1, 'a second init() schedules nothing more');
});
