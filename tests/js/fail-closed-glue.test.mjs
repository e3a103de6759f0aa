// The glue functions the kit's lazily loaded modules call directly (npm/shared.js's, which
// npm/session-store-impl.js and npm/wallet-client-impl.js import; not a handle class's
// members) fail closed too: a real trap inside one (the module's memory grown to its
// maximum, so passing a 1 MiB argument cannot allocate and the module executes
// `unreachable`) is ENGINE_FAULT and marks the module dead, and then every one of them
// answers ENGINE_FAULT without calling into the module, as the handle classes do
// (tests/js/fail-closed.test.mjs). In its own file: the module stays dead for this
// process. Needs `make build`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { init, ClientKey, KitError } from '../../pkg/node.js';
import * as glue from '../../pkg/embedded_wallet_kit.js';
import * as shared from '../../pkg/shared.js';

const fault = (err) => err instanceof KitError && err.code === 'ENGINE_FAULT' && /reload the page/.test(err.message);

test('a trap in a store binding is ENGINE_FAULT; then every glue function the kit calls directly answers ENGINE_FAULT', async () => {
  await init();
  const key = ClientKey.generate();
  // Before the fault: they answer (or refuse with a KitError of their own).
  assert.equal(shared.storeRecordRequestId([], 'req-1').length, 1);
  assert.throws(() => shared.storeEncapsulatedKey({}), (err) => err instanceof KitError && err.code !== 'ENGINE_FAULT');
  const { memory } = glue.initSync({ module: new Uint8Array(0) });
  memory.grow(65536 - memory.buffer.byteLength / 65536);
  assert.throws(() => shared.storeRecordRequestId([], 'x'.repeat(1 << 20)), (err) => fault(err) && err.cause instanceof WebAssembly.RuntimeError);
  const answers = {};
  for (const [name, call] of Object.entries({
    storeRecordRequestId: () => shared.storeRecordRequestId([], 'req-2'),
    storeEncapsulatedKey: () => shared.storeEncapsulatedKey({}),
    encryptOtp: () => shared.encryptOtp('{}', '123456', key),
    storeExternalSession: () => shared.storeExternalSession({}, '02'),
    'ClientKey.generate': () => ClientKey.generate(),
  })) {
    try {
      call();
      answers[name] = 'returned';
    } catch (err) {
      answers[name] = fault(err) ? 'ENGINE_FAULT' : `${err.name}: ${err.code ?? err.message}`;
    }
  }
  assert.deepEqual(answers, {
    storeRecordRequestId: 'ENGINE_FAULT', storeEncapsulatedKey: 'ENGINE_FAULT', encryptOtp: 'ENGINE_FAULT',
    storeExternalSession: 'ENGINE_FAULT', 'ClientKey.generate': 'ENGINE_FAULT',
  });
});
