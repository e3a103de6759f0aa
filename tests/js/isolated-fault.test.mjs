// The isolated signer's Worker (pkg/signer-worker.js) under its page side (pkg/signer.js):
// it instantiates only a module whose bytes have the SHA-256 the build wrote into it
// (SIGNER_MODULE_REJECTED otherwise), and it fails closed after a fault. The fault is a
// real one: the test grows the Worker's module memory to its maximum, so the allocation a
// 1 MiB payload needs fails and the module traps (`unreachable`, a
// WebAssembly.RuntimeError, not a KitError). Then the call rejects ENGINE_FAULT, the page
// terminates the Worker, and every proxy made on it, and the kit's own calls, answer
// ENGINE_FAULT. Node has no module Workers: the Worker's script runs in this thread (a
// fresh instance of it per start, `self` a stand-in), on a real MessageChannel, with the
// platform the page side captured (pkg/signer-platform.js) and a stand-in Worker object
// whose postMessage hands the first message to that script. (Everything else about the
// isolated signer, in three browsers: tests/isolate/run.mjs.) Needs `make build`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

const pkg = new URL('../../pkg/', import.meta.url);
const own = readFileSync(new URL('embedded_wallet_kit_bg.wasm', pkg));
const other = readFileSync(new URL('embedded_wallet_kit_no_enclave_bg.wasm', pkg));

globalThis.self = { onmessage: null, close() {} };
const { platform } = await import(new URL('signer-platform.js', pkg).href);
const signer = await import(new URL('signer.js', pkg).href);
const { KitError } = await import(new URL('kit-error.js', pkg).href);
const { WalletClient, custodies } = await import(new URL('wallet-client.js', pkg).href);

let starts = 0;
let terminated = 0;
/** The Worker side's port of the current start: terminating the stand-in Worker closes it. */
let workerPort;
const deps = {
  __proto__: null,
  KitError,
  WalletClient,
  custodies,
  platform: {
    ...platform,
    available: true,
    workerPost(message, transfer) {
      globalThis.self.onmessage({ data: message, ports: transfer });
    },
    workerTerminate() {
      terminated++;
      workerPort.close();
    },
    setWorkerOnError() {},
  },
  startSignerWorker() {
    const { port1, port2 } = new MessageChannel();
    workerPort = port2;
    return [{}, port1, port2];
  },
};

/** Starts the isolated signer on a fresh instance of the Worker's script, with the module `bytes`. */
async function start(bytes) {
  await import(new URL(`signer-worker.js?start=${++starts}`, pkg).href);
  // `source` as init() reads it; `module_or_path` as the kit before the reader read it.
  return signer.initIsolated(deps, { __proto__: null, isolate: 'worker', source: bytes, module_or_path: bytes }, () => {});
}

const code = (expected) => (err) => err instanceof KitError && err.code === expected;
const sandbox = () => ({
  id: 'Session:00000000-0000-4000-8000-000000000002', accountId: 'InternalAccount:1', type: 'OAUTH',
  expiresAt: new Date(Date.now() + 600_000).toISOString(),
});

test('the Worker refuses a module whose bytes are not the signer\'s (SIGNER_MODULE_REJECTED), its own with one byte more too', async () => {
  await assert.rejects(start(other), code('SIGNER_MODULE_REJECTED'));
  await assert.rejects(start(Buffer.concat([own, Buffer.from([0, 1, 0])])), code('SIGNER_MODULE_REJECTED'));
});

test('a trap in the Worker: ENGINE_FAULT, the Worker terminated, every proxy made on it and the kit\'s calls answer ENGINE_FAULT', async () => {
  const kit = await start(own);
  const key = await kit.ClientKey.generate();
  const session = await kit.Session.sandbox(sandbox());
  const live = await kit.Session.fromClientKey(sandbox(), await kit.ClientKey.generate());
  assert.equal(await session.stamp('before'), 'sandbox-valid-signature');
  const before = terminated;
  // The glue the Worker's script imported is this module instance: its memory, grown to the maximum.
  const { memory } = await (await import(new URL('embedded_wallet_kit.js', pkg).href)).default();
  memory.grow(65536 - memory.buffer.byteLength / 65536);
  await assert.rejects(live.stamp('x'.repeat(1 << 20)), (err) => code('ENGINE_FAULT')(err) && /reload the page/.test(err.message));
  assert.equal(terminated, before + 1, 'the page terminated the Worker');
  const answers = [];
  for (const call of [
    () => live.stamp('y'), () => session.stamp('y'), () => session.signQuote({ payloadToSign: 'q', expiresAt: sandbox().expiresAt }),
    () => key.signRetry('{}'), () => kit.Session.open({}, key), () => kit.ClientKey.generate(), () => kit.inspectPayload('{}'),
  ]) answers.push(await call().then(() => 'resolved', (err) => err.code));
  assert.deepEqual(answers, Array(7).fill('ENGINE_FAULT'));
  // The kit's WalletClient too, before anything is sent: a session of the dead Worker, and
  // a login that would make a key there.
  const sent = [];
  const client = new kit.WalletClient({ transport: (request) => sent.push(request) });
  assert.ok(client instanceof WalletClient);
  const flows = [() => client.refresh(live), () => client.revokeSession(session), () => client.verifyEmailOtp('AuthMethod:1', '123456')];
  const clientAnswers = [];
  for (const call of flows) clientAnswers.push(await call().then(() => 'resolved', (err) => err.code));
  assert.deepEqual(clientAnswers, Array(3).fill('ENGINE_FAULT'));
  assert.deepEqual(sent, []);
});
