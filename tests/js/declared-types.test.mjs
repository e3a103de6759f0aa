// The package's public types stay precise: no exported function, and no member of an
// exported class or object (its properties, and the parameters and results of its
// methods), is typed `any`, in the declarations the package ships (pkg/index.d.ts,
// pkg/signing.d.ts and pkg/testing.d.ts). A type name that no longer resolves becomes
// `any` there and fails here. (A binding whose `unchecked_*_type` is dropped becomes `any`
// in the glue's declarations, which tests/types/glue-agrees.ts compares with these.)
// tests/types/*.ts compile strictly against the same declarations (`make lint-js`), but
// an `any` compiles. Needs `make build`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const pkg = new URL('../../pkg/', import.meta.url);

const isAny = (type) => (type.flags & ts.TypeFlags.Any) !== 0;

/** `where` of every `any` among the exported values of `dtsPath` and their members. */
export function anyTypedMembers(dtsPath) {
  const program = ts.createProgram([dtsPath], { noEmit: true, types: [], skipLibCheck: true, lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'] });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(dtsPath);
  assert.ok(source, `cannot read ${dtsPath}`);
  const found = [];
  const typeOf = (symbol) => checker.getTypeOfSymbolAtLocation(symbol, symbol.valueDeclaration ?? symbol.declarations?.[0] ?? source);
  const signatures = (type, where) => {
    for (const signature of type.getCallSignatures()) {
      for (const parameter of signature.getParameters()) {
        if (isAny(typeOf(parameter))) found.push(`${where}(${parameter.getName()})`);
      }
      if (isAny(signature.getReturnType())) found.push(`${where}(): result`);
    }
  };
  const members = (type, where) => {
    for (const property of checker.getPropertiesOfType(type)) {
      const name = property.getName();
      if (name === 'prototype' || name.startsWith('__@')) continue;
      const propertyType = typeOf(property);
      if (isAny(propertyType)) found.push(`${where}.${name}`);
      else signatures(propertyType, `${where}.${name}`);
    }
  };
  const moduleSymbol = checker.getSymbolAtLocation(source);
  for (let symbol of checker.getExportsOfModule(moduleSymbol)) {
    const name = symbol.getName();
    if (symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
    if (!(symbol.flags & ts.SymbolFlags.Value)) continue;
    const type = typeOf(symbol);
    if (isAny(type)) {
      found.push(name);
      continue;
    }
    signatures(type, name);
    members(type, name);
    if (symbol.flags & ts.SymbolFlags.Class) members(checker.getDeclaredTypeOfSymbol(symbol), `${name}#`);
  }
  return found;
}

test('the scan finds an `any` member (a class property, a method parameter, a function result)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ewk-any-'));
  try {
    const dts = join(dir, 'fixture.d.ts');
    writeFileSync(dts, `import { Missing } from './missing.js';
export declare class Handle { readonly ok: string; readonly loose: any; sign(payload: any): string; static make(): Handle }
export declare function inspect(payload: string): any;
export declare function unresolved(payload: Missing): string;
export declare function precise(payload: string): { json: boolean };
`);
    assert.deepEqual(anyTypedMembers(dts).sort(), ['Handle#.loose', 'Handle#.sign(payload)', 'inspect(): result', 'unresolved(payload)']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

for (const entry of ['index.d.ts', 'signing.d.ts', 'testing.d.ts']) {
  test(`pkg/${entry}: no exported value or member of one is typed any`, () => {
    assert.deepEqual(anyTypedMembers(fileURLToPath(new URL(entry, pkg))), []);
  });
}
