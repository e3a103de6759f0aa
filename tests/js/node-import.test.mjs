// Importing the Node entries (pkg/node.js, pkg/signing-node.js) reads no file and runs no
// wasm: a server bundle (Next.js server components, Node and edge routes) imports the kit
// while it builds and prerenders, where the bundler may have moved the entry away from its
// .wasm. The module starts at the first init() or call; when the .wasm beside the entry
// cannot be read, the package's own file is found from the working directory, else
// NOT_INITIALIZED names `serverExternalPackages`. Each case in its own process.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PKG_DIR } from '../support/fixtures.mjs';

/** Runs `code` (an ES module) with `cwd`; returns what it printed as JSON. */
function runModule(code, cwd) {
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', code], { cwd, encoding: 'utf8' });
  return JSON.parse(out.trim().split('\n').at(-1));
}

// Counts every way to read a file or compile wasm, from before the entry is imported.
const COUNTING = `
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
const seen = [];
for (const name of ['readFileSync', 'readFile', 'openSync', 'open']) {
  const original = fs[name];
  fs[name] = function (...args) { seen.push(name + ' ' + String(args[0])); return original.apply(this, args); };
}
syncBuiltinESMExports();
for (const name of ['Module', 'Instance']) {
  const Original = WebAssembly[name];
  WebAssembly[name] = new Proxy(Original, { construct(t, args) { seen.push('new WebAssembly.' + name); return Reflect.construct(t, args); } });
}
// (Node's own fetch compiles its HTTP parser when the kit reads globalThis.fetch: not the kit's.)
for (const name of ['compile', 'instantiate']) {
  const original = WebAssembly[name];
  WebAssembly[name] = function (...args) {
    if (!new Error().stack.includes('node:internal')) seen.push('WebAssembly.' + name);
    return original.apply(this, args);
  };
}
`;

for (const [entry, call] of [['node.js', 'kit.ClientKey.generate().publicKeyHex'], ['signing-node.js', 'kit.ClientKey.generate().publicKeyHex']]) {
  test(`importing pkg/${entry} reads no file and compiles no wasm; the first call starts the module`, () => {
    const r = runModule(`${COUNTING}
const kit = await import(${JSON.stringify(join(PKG_DIR, entry))});
const atImport = seen.splice(0);
const key = ${call};
console.log(JSON.stringify({ atImport, atCall: seen.splice(0), key }));`);
    assert.deepEqual(r.atImport, [], `at import: ${r.atImport.join(', ')}`);
    assert.ok(r.atCall.some((s) => s.startsWith('readFileSync ') && s.endsWith('.wasm')), `the call read no .wasm: ${r.atCall.join(', ')}`);
    assert.ok(r.atCall.includes('new WebAssembly.Instance'), `the call instantiated nothing: ${r.atCall.join(', ')}`);
    assert.match(r.key, /^04[0-9a-f]{128}$/);
  });
}

test('pkg/node.js: init() starts the module once; a second init() and calls read nothing more', () => {
  const r = runModule(`${COUNTING}
const kit = await import(${JSON.stringify(join(PKG_DIR, 'node.js'))});
await kit.init();
const first = seen.splice(0);
await kit.init();
kit.ClientKey.generate();
console.log(JSON.stringify({ first, later: seen.splice(0).filter((s) => !s.startsWith('WebAssembly')) }));`);
  assert.equal(r.first.filter((s) => s.startsWith('readFileSync ') && s.endsWith('.wasm')).length, 1, r.first.join(', '));
  assert.deepEqual(r.later, []);
});

/**
 * The kit's JS files as a bundler leaves them: copied to `dir`, away from the .wasm
 * (import.meta.url then points where no .wasm is).
 */
function bundledCopy(dir) {
  mkdirSync(dir, { recursive: true });
  for (const f of readdirSync(PKG_DIR).filter((f) => f.endsWith('.js'))) cpSync(join(PKG_DIR, f), join(dir, f));
}

for (const [entry, wasm] of [['node.js', 'embedded_wallet_kit_bg.wasm'], ['signing-node.js', 'embedded_wallet_kit_signing_bg.wasm']]) {
  test(`pkg/${entry} moved away from its .wasm: found in node_modules of the working directory, else NOT_INITIALIZED naming serverExternalPackages`, (t) => {
    const tmp = mkdtempSync(join(tmpdir(), 'ewk-node-import-'));
    t.after(() => rmSync(tmp, { recursive: true, force: true }));
    const bundle = join(tmp, 'bundle');
    bundledCopy(bundle);
    const app = join(tmp, 'app');
    mkdirSync(join(app, 'node_modules'), { recursive: true });
    const code = `
const kit = await import(${JSON.stringify(join(bundle, entry))});
const out = {};
try { kit.ClientKey.generate(); out.call = 'ok'; } catch (err) { out.call = { code: err.code, message: err.message, cause: String(err.cause?.code) }; }
out.init = await kit.init().then(() => 'resolved', (err) => ({ code: err.code, message: err.message }));
console.log(JSON.stringify(out));`;
    const lost = runModule(code, app);
    for (const r of [lost.call, lost.init]) {
      assert.equal(r.code, 'NOT_INITIALIZED', JSON.stringify(lost));
      assert.match(r.message, /serverExternalPackages: \['embedded-wallet-kit'\]/);
      assert.ok(r.message.includes(wasm), r.message);
    }
    assert.equal(lost.call.cause, 'ENOENT', 'the read error is the cause');

    symlinkSync(fileURLToPath(new URL('../../pkg', import.meta.url)), join(app, 'node_modules', 'embedded-wallet-kit'));
    const found = runModule(code, app);
    assert.deepEqual(found, { call: 'ok', init: 'resolved' });
  });
}
