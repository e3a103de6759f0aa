// The built package's entries export exactly the runtime names their declarations
// declare, in both directions: for every subpath of pkg/package.json's "exports", the
// values (classes, functions, constants; not interfaces or type aliases) that its "types"
// file exports, read with the TypeScript compiler, equal the named exports of each of its
// JS files ("node", "browser", "default", ...). And for the classes the wasm bindings
// (and npm/) define, the members each declares, instance and static, equal the runtime
// class's: a method added to or dropped from a Rust binding without its declaration
// fails here. The same for the stand-ins of the wasm-bindgen glue that `make lint-js`
// type-checks npm/ against (tests/types/glue/<module>.d.ts, wasm-bindgen's declarations as
// generated, which scripts/check-glue-types.mjs compares): each declares exactly what the
// generated pkg/<module>.js exports. The declarations that ship are npm/'s, as written.
// Needs `make build`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const pkg = new URL('../../pkg/', import.meta.url);
const manifest = JSON.parse(readFileSync(new URL('package.json', pkg), 'utf8'));

/** The names of the values a declaration file exports (a class merged with an interface counts once). */
export function declaredValueNames(dtsPath) {
  const program = ts.createProgram([dtsPath], { noEmit: true, types: [], skipLibCheck: true });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(dtsPath);
  assert.ok(source, `cannot read ${dtsPath}`);
  const moduleSymbol = checker.getSymbolAtLocation(source);
  assert.ok(moduleSymbol, `${dtsPath} is not a module`);
  return checker
    .getExportsOfModule(moduleSymbol)
    .filter((symbol) => {
      const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
      return (target.flags & ts.SymbolFlags.Value) !== 0;
    })
    .map((symbol) => symbol.getName())
    .sort();
}

/** The declared members of the exported class `name`: `{ instance, statics }`, sorted. */
function declaredClassMembers(dtsPath, name) {
  const program = ts.createProgram([dtsPath], { noEmit: true, types: [], skipLibCheck: true });
  const checker = program.getTypeChecker();
  const moduleSymbol = checker.getSymbolAtLocation(program.getSourceFile(dtsPath));
  let symbol = checker.getExportsOfModule(moduleSymbol).find((s) => s.getName() === name);
  assert.ok(symbol, `${dtsPath} does not export ${name}`);
  if (symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
  const declaration = symbol.valueDeclaration;
  assert.ok(declaration && ts.isClassDeclaration(declaration), `${name} is not a declared class`);
  // (not a symbol-keyed member such as wasm-bindgen's `[Symbol.dispose]`, named `__@…`)
  const names = (type) => checker.getPropertiesOfType(type).map((p) => p.getName()).filter((n) => !n.startsWith('__@'));
  return {
    instance: names(checker.getDeclaredTypeOfSymbol(symbol)).sort(),
    statics: names(checker.getTypeOfSymbolAtLocation(symbol, declaration)).filter((n) => n !== 'prototype').sort(),
  };
}

/** A runtime class's own members, without the language's and wasm-bindgen's internals (`__*`). */
function runtimeClassMembers(cls) {
  const visible = (n) => !n.startsWith('__');
  return {
    instance: Object.getOwnPropertyNames(cls.prototype).filter((n) => n !== 'constructor' && visible(n)).sort(),
    statics: Object.getOwnPropertyNames(cls).filter((n) => !['length', 'name', 'prototype'].includes(n) && visible(n)).sort(),
  };
}

/**
 * The classes whose instance members live on the exported class's prototype. (KitError's
 * are own fields; SessionStore's are on the implementation's subclass, which
 * npm/session-store-impl.js declares `@implements` and `make lint-js` checks; their
 * statics are compared here.)
 */
const MEMBERS_ON_PROTOTYPE = new Set(['ClientKey', 'Session', 'WalletClient', 'SoftAuthenticator']);

const entries = Object.entries(manifest.exports).filter(([, target]) => typeof target === 'object' && target.types);

test('package.json declares types for the main entry, the signing entry, the testing entry and the React bindings', () => {
  assert.deepEqual(entries.map(([subpath]) => subpath).sort(), ['.', './react', './signing', './testing']);
});

for (const [subpath, conditions] of entries) {
  const dts = fileURLToPath(new URL(conditions.types, pkg));
  const files = [...new Set(Object.entries(conditions).filter(([c]) => c !== 'types').map(([, file]) => file))];
  for (const file of files) {
    test(`${subpath}: ${file} exports exactly the values ${conditions.types} declares`, async () => {
      const declared = declaredValueNames(dts);
      assert.ok(declared.length > 0, `${conditions.types} declares no values`);
      const runtime = Object.keys(await import(new URL(file, pkg).href)).sort();
      const notExported = declared.filter((name) => !runtime.includes(name));
      const notDeclared = runtime.filter((name) => !declared.includes(name));
      assert.deepEqual(
        { notExported, notDeclared },
        { notExported: [], notDeclared: [] },
        `${file} and ${conditions.types} disagree`,
      );
    });

    test(`${subpath}: the classes of ${file} have the members ${conditions.types} declares`, async () => {
      const mod = await import(new URL(file, pkg).href);
      // A capitalised function may be a React component (./react declares no class).
      const classes = declaredValueNames(dts).filter((name) => /^[A-Z]/.test(name) && typeof mod[name] === 'function'
        && /^class\b/.test(Function.prototype.toString.call(mod[name])));
      assert.ok(classes.length > 0 || subpath === './react');
      for (const name of classes) {
        const declared = declaredClassMembers(dts, name);
        const runtime = runtimeClassMembers(mod[name]);
        assert.deepEqual(runtime.statics, declared.statics, `${file}: static members of ${name}`);
        if (MEMBERS_ON_PROTOTYPE.has(name)) {
          assert.deepEqual(runtime.instance, declared.instance, `${file}: instance members of ${name}`);
        }
      }
    });
  }
}

test('the declarations that ship are npm/*.d.ts as written, and only those (no generated or edited one)', () => {
  const js = new URL('../../npm/', import.meta.url);
  const written = readdirSync(js).filter((f) => f.endsWith('.d.ts')).sort();
  assert.deepEqual(readdirSync(pkg).filter((f) => f.endsWith('.d.ts')).sort(), written);
  for (const f of written) assert.equal(readFileSync(new URL(f, pkg), 'utf8'), readFileSync(new URL(f, js), 'utf8'), f);
});

const glueStandIns = new URL('../types/glue/', import.meta.url);
const glueModules = readdirSync(glueStandIns)
  .filter((f) => f.startsWith('embedded_wallet_kit') && f.endsWith('.d.ts'))
  .map((f) => f.slice(0, -'.d.ts'.length));

test('every wasm module of the package has a stand-in in tests/types/glue/', () => {
  // The wallet module's build without the enclave exports has no glue of its own: the other
  // build's drives it (scripts/check-no-enclave.mjs).
  const built = readdirSync(pkg)
    .filter((f) => /^embedded_wallet_kit.*_bg\.wasm$/.test(f) && f !== 'embedded_wallet_kit_no_enclave_bg.wasm')
    .map((f) => f.slice(0, -'_bg.wasm'.length));
  assert.ok(readdirSync(pkg).includes('embedded_wallet_kit_no_enclave_bg.wasm'), 'the build a plain init() loads ships');
  assert.deepEqual(glueModules.sort(), built.sort());
});

for (const glue of glueModules) {
  test(`tests/types/glue/${glue}.d.ts declares exactly what pkg/${glue}.js exports, with the same class members`, async () => {
    const dts = fileURLToPath(new URL(`${glue}.d.ts`, glueStandIns));
    const mod = await import(new URL(`${glue}.js`, pkg).href);
    const declared = declaredValueNames(dts);
    assert.deepEqual(declared, Object.keys(mod).sort(), `${glue}: declared values vs runtime exports`);
    for (const name of declared.filter((n) => /^[A-Z]/.test(n))) {
      const want = declaredClassMembers(dts, name);
      const have = runtimeClassMembers(mod[name]);
      assert.deepEqual(have, want, `${glue}: members of ${name}`);
    }
  });
}
