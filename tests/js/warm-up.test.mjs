// The warm-up (npm/guard.js, bindings/signing warmUp): once init() has resolved, not
// inside it, each entry asks requestIdleCallback to run warmUp's rounds, which pay for what
// the first keygen, open and stamp would (the kit's basepoint table, and code the engine has
// not optimised yet; `make bench` measures the first calls, never timed here). Exercised
// in Node with a requestIdleCallback that records what it is given, installed before the
// entries are imported. Needs `make build`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { SIGNING_WASM_PATH, WASM_PATH } from '../support/fixtures.mjs';

/** @type {{ callback: (deadline?: { timeRemaining(): number }) => void, options: unknown }[]} */
const idle = [];
globalThis.requestIdleCallback = (callback, options) => {
  idle.push({ callback, options });
  return idle.length;
};
const { warmUpLater, WARM_UP_ROUNDS } = await import('../../pkg/guard.js');
const kit = await import('../../pkg/browser.js');
const signing = await import('../../pkg/signing.js');

/** A deadline with `ms` left, as requestIdleCallback hands one. */
const deadline = (ms) => ({ timeRemaining: () => ms });

test('the rounds fill each idle period and go on in the next until all have run', () => {
  idle.length = 0;
  let rounds = 0;
  warmUpLater(() => {
    rounds += 1;
    return true;
  });
  assert.equal(rounds, 0, 'nothing runs before the page is idle');
  assert.equal(idle.length, 1);
  assert.deepEqual(idle[0].options, { timeout: 50 }, 'it runs within 50 ms even on a busy page');
  idle[0].callback(deadline(2)); // a short idle period: one round
  assert.equal(rounds, 1);
  assert.equal(idle.length, 2, 'the rest is scheduled for the next idle period');
  idle[1].callback(deadline(1000)); // a long one: the rest
  assert.equal(rounds, WARM_UP_ROUNDS);
  assert.equal(idle.length, 2, 'nothing more once every round has run');
  assert.ok(WARM_UP_ROUNDS > 1, 'one round does not get the code optimised');
});

test('a round that fails or throws ends the warm-up, silently', () => {
  for (const failing of [() => false, () => { throw new Error('no'); }]) {
    idle.length = 0;
    let rounds = 0;
    warmUpLater(() => {
      rounds += 1;
      return failing();
    });
    assert.doesNotThrow(() => idle[0].callback(deadline(1000)));
    assert.equal(rounds, 1);
    assert.equal(idle.length, 1, 'nothing rescheduled');
  }
});

test('without requestIdleCallback, one round per timer', async () => {
  const saved = globalThis.requestIdleCallback;
  delete globalThis.requestIdleCallback;
  try {
    let rounds = 0;
    warmUpLater(() => {
      rounds += 1;
      return true;
    });
    assert.equal(rounds, 0);
    for (let i = 1; i <= WARM_UP_ROUNDS + 2; i++) {
      await new Promise((resolve) => setTimeout(resolve, 0));
      assert.equal(rounds, Math.min(i, WARM_UP_ROUNDS));
    }
  } finally {
    globalThis.requestIdleCallback = saved;
  }
});

const glues = {
  main: await import('../../pkg/embedded_wallet_kit.js'),
  signing: await import('../../pkg/embedded_wallet_kit_signing.js'),
};

for (const [name, entry, wasm, glue] of [
  ['the main entry', kit, WASM_PATH, glues.main],
  ['the signing entry', signing, SIGNING_WASM_PATH, glues.signing],
]) {
  test(`${name}: init() resolves first, then the warm-up waits for idle time and runs its rounds`, async () => {
    idle.length = 0;
    await entry.init({ module_or_path: readFileSync(wasm) });
    assert.equal(idle.length, 1, 'one warm-up scheduled once init() resolved');
    // The real warmUp: every round opens and stamps without touching what the page holds.
    idle[0].callback(deadline(1000));
    assert.equal(idle.length, 1, 'every round ran in one long idle period');
    assert.equal(glue.warmUp(), true, 'a round goes through: it opens and stamps');

    const key = entry.ClientKey.generate();
    assert.match(key.publicKeyHex, /^04[0-9a-f]{128}$/);
    key.free();

    await entry.init();
    assert.equal(idle.length, 1, 'a second init() schedules nothing more');
  });
}
