// The one lazy-load helper (npm/shared.js's lazy(), as shipped in pkg/) and the import-graph
// check `make lint-js` runs (scripts/check-imports.mjs): lazy() loads once, shares one
// promise, rejects KitError NOT_INITIALIZED naming what it loads and tries again on the
// next call; the check passes npm/ as it is and fails a module graph with a circle (static
// or through import()), an import() it cannot read or one not resolved at load, and a
// lazily loaded module that imports a facade. Needs `make build` first.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const { lazy } = await import('../../pkg/shared.js');
const { KitError } = await import('../../pkg/kit-error.js');

const root = fileURLToPath(new URL('../..', import.meta.url));
const check = (dir) => spawnSync(process.execPath, [join(root, 'scripts/check-imports.mjs'), ...(dir ? [dir] : [])], { cwd: root, encoding: 'utf8' });

test('lazy(): one load for concurrent and later callers', async () => {
  let calls = 0;
  const mod = { x: 1 };
  const load = lazy(async () => {
    calls += 1;
    return mod;
  }, 'test module');
  const [a, b] = await Promise.all([load(), load()]);
  assert.equal(a, mod);
  assert.equal(b, mod);
  assert.equal(await load(), mod);
  assert.equal(calls, 1);
});

test('lazy(): a failure rejects NOT_INITIALIZED naming the module, with the cause; the next call loads again', async () => {
  let calls = 0;
  const cause = new Error('fetch failed for ./x-impl.js');
  const load = lazy(async () => {
    calls += 1;
    if (calls === 1) throw cause;
    return 'loaded';
  }, 'test module');
  const first = load();
  assert.equal(load(), first, 'callers during the failing load share its promise');
  await assert.rejects(first, (err) => {
    assert.ok(err instanceof KitError);
    assert.equal(err.code, 'NOT_INITIALIZED');
    assert.equal(err.message, 'embedded-wallet-kit could not load its test module: fetch failed for ./x-impl.js');
    assert.equal(err.cause, cause);
    return true;
  });
  assert.equal(await load(), 'loaded');
  assert.equal(calls, 2);
});

test('the shipped modules have no import circle (scripts/check-imports.mjs passes npm/)', () => {
  const run = check();
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stdout, /no circle/);
});

test('scripts/check-imports.mjs fails a circle, a computed or unresolved import() and a lazily loaded module importing a facade', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ewk-import-graph-'));
  try {
    let n = 0;
    /** Writes `files` to a directory of their own and expects the check to fail on it with `pattern`. */
    const fails = (files, pattern) => {
      const sub = join(dir, String(n++));
      mkdirSync(sub);
      for (const [name, text] of Object.entries(files)) writeFileSync(join(sub, name), text);
      const run = check(sub);
      assert.equal(run.status, 1, `expected a failure for ${JSON.stringify(files)}: ${run.stdout}`);
      assert.match(run.stderr, pattern);
    };
    // Two facades that each lazily load their implementation, as npm/ does.
    const facade = (name) => `import.meta.resolve?.('./${name}-impl.js');\nexport const load = () => import('./${name}-impl.js');\n`;
    fails({ 'a.js': "import './b.js';\n", 'b.js': "export * from './a.js';\n" }, /import circle: a\.js:1 --> b\.js:1 --> a\.js/);
    fails({ 'f.js': facade('f'), 'f-impl.js': "import { load } from './f.js';\nexport { load };\n" },
      /import circle: (f\.js:2 --import\(\)--> f-impl\.js:1 --> f\.js|f-impl\.js:1 --> f\.js:2 --import\(\)--> f-impl\.js)$/m);
    fails({ 'f.js': "export const load = (x) => import(x);\n" }, /f\.js:1: import\(\) of a computed specifier/);
    fails({ 'f.js': "export const load = () => import('./f-impl.js');\n", 'f-impl.js': '' }, /f\.js:1: import\('\.\/f-impl\.js'\) has no top-level import\.meta\.resolve/);
    fails({ 'f.js': facade('f'), 'g.js': facade('g'), 'f-impl.js': "import './g.js';\n", 'g-impl.js': '' },
      /f-impl\.js:1: imports g\.js, which lazily loads g-impl\.js/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
