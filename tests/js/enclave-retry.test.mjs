// The browser entry (pkg/browser.js) when a plain init()'s download fails: the failure
// is not kept, so a later init({ enclave: true }) is not refused as a swap of a loaded
// module; it fetches the build with the enclave exports, which then work. Its own process
// under node --test (the entry's state is per process).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serveFileFetches } from '../support/file-fetch.mjs';

let dropped = 0;
const fetched = serveFileFetches({ fails: (name) => name === 'embedded_wallet_kit_no_enclave_bg.wasm' && dropped++ === 0 });
const { init, ClientKey, KitError, openWalletExport } = await import('../../pkg/browser.js');

test('a plain init() whose download failed, then init({ enclave: true }): the build with the enclave exports loads and they work', async () => {
  await assert.rejects(init(), (err) => err instanceof KitError && err.code === 'NOT_INITIALIZED' && /could not load its WebAssembly module/.test(err.message));
  await init({ enclave: true });
  assert.deepEqual(fetched, ['embedded_wallet_kit_no_enclave_bg.wasm', 'embedded_wallet_kit_bg.wasm']);
  // The export's own checks run (not the other build's NOT_INITIALIZED).
  assert.throws(() => openWalletExport('{}', ClientKey.generate()), (err) => err instanceof KitError && err.code === 'INVALID_BUNDLE');
});
