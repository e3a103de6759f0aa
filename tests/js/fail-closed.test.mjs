// The same-thread module fails closed: an exception out of a wasm call that is
// not a KitError (here a real trap: the module's memory grown to its maximum, so the
// allocation a 1 MiB payload needs fails and the module executes `unreachable`) is
// ENGINE_FAULT, and from then on every call on any of the module's objects, and the
// kit's own calls into it, answer ENGINE_FAULT; `free()` still returns. Also: the module
// passed its start-up self-test (init() resolved), and the self-test export is what the
// entries run. In its own file: the module stays dead for this process. Needs `make build`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  init, ClientKey, Session, KitError, WalletClient, inspectPayload,
} from '../../pkg/node.js';
import * as glue from '../../pkg/embedded_wallet_kit.js';

const code = (expected) => (err) => err instanceof KitError && err.code === expected;
const response = () => ({
  id: 'Session:00000000-0000-4000-8000-000000000003', accountId: 'InternalAccount:1', type: 'OAUTH',
  expiresAt: new Date(Date.now() + 600_000).toISOString(),
});

test('init() resolved: the module passed its start-up self-test, which the entries run', async () => {
  await init();
  assert.equal(glue.selfTest(), undefined, 'selfTest() answers nothing on a correct engine');
});

test('a trap: ENGINE_FAULT, then every object and call of the module answers ENGINE_FAULT', async () => {
  const key = ClientKey.generate();
  const session = Session.fromClientKey(response(), ClientKey.generate());
  const other = Session.fromClientKey({ ...response(), id: 'Session:00000000-0000-4000-8000-000000000004' }, ClientKey.generate());
  assert.match(session.stamp('before'), /^[A-Za-z0-9_-]+$/);
  const { memory } = glue.initSync({ module: new Uint8Array(0) });
  memory.grow(65536 - memory.buffer.byteLength / 65536);
  assert.throws(() => session.stamp('x'.repeat(1 << 20)), (err) => code('ENGINE_FAULT')(err) && /reload the page/.test(err.message)
    && err.cause instanceof WebAssembly.RuntimeError);
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
