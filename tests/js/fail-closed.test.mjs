// The same-thread module fails closed: an exception out of a wasm call that is
// not a KitError (here a real trap: the module's memory grown to its maximum, so the
// allocation a 1 MiB payload needs fails and the module executes `unreachable`) is
// ENGINE_FAULT, and from then on every call on any of the module's objects, and the
// kit's own calls into it, answer ENGINE_FAULT; `free()` still returns; and the key of the
// session whose call trapped (its borrow left held, so no drop zeroizes it) is nowhere in
// the module's memory. Also: the module passed its start-up self-test (init() resolved),
// and the self-test export is what the entries run. In its own file: the module stays dead
// for this process. Needs `make build`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import v8 from 'node:v8';
import { sealBundle, sessionResponse, randomScalar } from '../support/fixtures.mjs';

// V8 caps wasm memories at 16 MiB in this process (set before the kit instantiates its
// module): the trap below needs the memory at its maximum, and 4 GiB would take the
// kit's wipe of it (and the scan) tens of seconds.
v8.setFlagsFromString('--wasm-max-mem-pages=256');
const { init, ClientKey, Session, KitError, WalletClient, inspectPayload } = await import('../../pkg/node.js');
const glue = await import('../../pkg/embedded_wallet_kit.js');

const code = (expected) => (err) => err instanceof KitError && err.code === expected;
const response = () => ({
  id: 'Session:00000000-0000-4000-8000-000000000003', accountId: 'InternalAccount:1', type: 'OAUTH',
  expiresAt: new Date(Date.now() + 600_000).toISOString(),
});

test('init() resolved: the module passed its start-up self-test, which the entries run', async () => {
  await init();
  assert.equal(glue.selfTest(), undefined, 'selfTest() answers nothing on a correct engine');
});

/** How many times `bytes` lies in `memory`. */
function copiesIn(memory, bytes) {
  const all = new Uint8Array(memory.buffer);
  let n = 0;
  for (let at = all.indexOf(bytes[0]); at !== -1; at = all.indexOf(bytes[0], at + 1)) {
    if (bytes.every((b, i) => all[at + i] === b)) n++;
  }
  return n;
}

test('a trap: ENGINE_FAULT, then every object and call of the module answers ENGINE_FAULT', async () => {
  const key = ClientKey.generate();
  // The session that traps holds a scalar the test chose, sealed to a ClientKey by the peer.
  const scalar = randomScalar();
  const opener = ClientKey.generate();
  const session = Session.open(sessionResponse({ bundle: sealBundle(scalar, opener.publicKeyHex) }), opener);
  const other = Session.fromClientKey({ ...response(), id: 'Session:00000000-0000-4000-8000-000000000004' }, ClientKey.generate());
  assert.match(session.stamp('before'), /^[A-Za-z0-9_-]+$/);
  const { memory } = glue.initSync({ module: new Uint8Array(0) });
  // p256 keeps a scalar as little-endian limbs; big-endian too, in case a copy is bytes.
  const littleEndian = scalar.toReversed();
  const copies = () => copiesIn(memory, scalar) + copiesIn(memory, littleEndian);
  assert.equal(copies(), 1, 'the live session\'s key lies in the module\'s memory, once (the scan finds it)');
  for (;;) {
    try {
      memory.grow(1);
    } catch {
      break;
    }
  }
  // The payload cannot be copied in: the module traps inside stamp(), the session borrowed.
  assert.throws(() => session.stamp('x'.repeat(1 << 20)), (err) => code('ENGINE_FAULT')(err) && /reload the page/.test(err.message)
    && err.cause instanceof WebAssembly.RuntimeError);
  assert.equal(session.free(), undefined);
  assert.equal(copies(), 0, 'no copy of the trapped session\'s key is left in the module\'s memory');
  const answers = [];
  for (const call of [
    () => session.stamp('y'), () => other.stamp('y'), () => other.publicKeyHex, () => key.signRetry({}),
    () => ClientKey.generate(), () => Session.open({}, key), () => inspectPayload('{}'),
  ]) {
    try {
      call();
      answers.push('returned');
    } catch (err) {
      answers.push(err.code);
    }
  }
  assert.deepEqual(answers, Array(7).fill('ENGINE_FAULT'));
  // The kit's own flows call into the same module.
  const client = new WalletClient({ transport: () => ({ status: 500 }) });
  await assert.rejects(client.refresh(other), code('ENGINE_FAULT'));
  // free() returns (its zeroizing is tried), and so does close().
  assert.equal(other.free(), undefined);
  assert.equal(key.free(), undefined);
});
