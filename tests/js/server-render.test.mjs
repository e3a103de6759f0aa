// The browser entry (pkg/browser.js) as a server-rendering pass meets it: plain Node, no
// `window`, no `document`, no `indexedDB`. Importing it must not throw (a framework
// evaluates the page's imports on the server); init() there must say what is wrong —
// the browser entry outside a browser — and what to do, not only "fetch failed".
// Runs in its own process (node --test isolates files), so the Node entry is not loaded.
import { test } from 'node:test';
import assert from 'node:assert/strict';

test('plain Node has no window, document or indexedDB (the server-rendering setting)', () => {
  assert.equal(typeof globalThis.window, 'undefined');
  assert.equal(typeof globalThis.document, 'undefined');
  assert.equal(typeof globalThis.indexedDB, 'undefined');
});

test('importing the browser entry does not throw, and every export is there', async () => {
  const kit = await import('../../pkg/browser.js');
  for (const name of ['init', 'ClientKey', 'Session', 'KitError', 'WalletClient', 'SessionStore', 'passkey']) {
    assert.ok(kit[name] !== undefined, `${name} is exported`);
  }
});

test('init() there rejects NOT_INITIALIZED, naming server rendering and the node entry; a later call says it again', async () => {
  const { init, KitError, ClientKey } = await import('../../pkg/browser.js');
  for (let attempt = 0; attempt < 2; attempt += 1) {
    await assert.rejects(init(), (err) => {
      assert.ok(err instanceof KitError, `expected KitError, got ${err?.constructor?.name}: ${err?.message}`);
      assert.equal(err.code, 'NOT_INITIALIZED');
      assert.match(err.message, /browser entry/, 'names the browser entry');
      assert.match(err.message, /outside a browser/, 'says it runs outside a browser');
      assert.match(err.message, /server rendering/, 'names server rendering');
      assert.match(err.message, /`node` entry/, 'names the node entry Node should resolve');
      assert.match(err.message, /init\(\) in the browser/, 'says where init() belongs');
      assert.ok(err.cause !== undefined, 'the loader error is kept as cause');
      return true;
    });
  }
  assert.throws(() => ClientKey.generate(), (err) => err instanceof KitError && err.code === 'NOT_INITIALIZED');
});

test('in a browser-like global (window defined) a failed load keeps the plain message', async () => {
  const { init } = await import('../../pkg/browser.js');
  globalThis.window = globalThis;
  try {
    await assert.rejects(init(new Uint8Array([0, 1, 2, 3])), (err) => {
      assert.equal(err.code, 'NOT_INITIALIZED');
      assert.match(err.message, /could not load its WebAssembly module/);
      assert.doesNotMatch(err.message, /server rendering/);
      return true;
    });
  } finally {
    delete globalThis.window;
  }
});
