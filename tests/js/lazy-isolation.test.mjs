// A page that does not ask for the isolated signer loads none of its code: the browser
// entry's static import graph (what a browser fetches for `import 'embedded-wallet-kit'`)
// holds no signer-boot.js, signer.js or signer-worker.js, only what must be captured
// when the kit loads (signer-platform.js); `init({ isolate: 'worker' })` reaches the rest
// through a dynamic import. The graph is read by esbuild (its metafile tells static
// imports from `import()`), from pkg/ as built, as scripts/size.mjs reads what each page
// loads. If the isolated signer's code
// cannot be fetched, init rejects NOT_INITIALIZED naming it, and same-thread init() works.
// Needs `make build` first.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { importGraph as graphOf } from '../../scripts/size.mjs';

const pkgDir = fileURLToPath(new URL('../../pkg', import.meta.url));

const importGraph = (entry) => {
  const { statics, dynamic } = graphOf(pkgDir, entry);
  return { statics: new Set(statics), dynamic };
};

const ISOLATED = ['signer-boot.js', 'signer.js', 'signer-worker.js'];

test('the browser entry imports none of the isolated signer statically: a page that does not isolate never fetches it', () => {
  const { statics, dynamic } = importGraph('browser.js');
  for (const file of ISOLATED) assert.ok(!statics.has(file), `${file} is in browser.js's static import graph: ${[...statics].join(', ')}`);
  // Both with import() from signer-platform.js (the Worker itself loads by URL); they import
  // nothing themselves, so an import map scoped to their URLs has nothing to redirect.
  for (const file of ['signer.js', 'signer-boot.js']) {
    assert.ok(dynamic.has(file), `init({ isolate }) loads ${file} with import(): ${[...dynamic].join(', ')}`);
    assert.deepEqual([...importGraph(file).statics], [file], `${file} imports nothing`);
  }
});

test("init({ isolate: 'worker' }) rejects NOT_INITIALIZED, naming the isolated signer, when its code cannot be fetched", async () => {
  // A copy of pkg/ missing signer-boot.js (loaded after signer.js): the failed fetch of
  // a page whose network dropped.
  const dir = mkdtempSync(join(tmpdir(), 'ewk-lazy-isolation-'));
  try {
    cpSync(pkgDir, dir, { recursive: true });
    rmSync(join(dir, 'signer-boot.js'));
    const kit = await import(pathToFileURL(join(dir, 'browser.js')).href);
    // Twice: a failure is not kept by the kit (the host's module map may keep it: Node's does).
    for (const call of ['first', 'second']) {
      await assert.rejects(kit.init({ isolate: 'worker' }), (err) => {
        assert.ok(err instanceof kit.KitError, `${call} call: a KitError, not ${err?.constructor?.name}: ${err?.message}`);
        assert.equal(err.code, 'NOT_INITIALIZED');
        assert.match(err.message, /^embedded-wallet-kit could not load its isolated signer: .*signer-boot\.js/);
        assert.ok(err.cause, 'the import error is its cause');
        return true;
      });
    }
    // The page's own init() still works: the isolated signer's code is not part of it.
    assert.equal(await kit.init({ module_or_path: readFileSync(join(dir, 'embedded_wallet_kit_bg.wasm')) }), undefined);
    assert.match((await kit.ClientKey.generate()).publicKeyHex, /^04[0-9a-f]{128}$/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
