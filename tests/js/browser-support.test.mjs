// The npm README's "Browser support" minimum versions rest on what the built package
// uses; this checks that basis against pkg/ (so a build that starts using something newer
// fails here until the table is revisited). The basis is the HTML comment next to the table
// in npm/README.md:
//
//   wasm:       the WebAssembly proposals the .wasm modules need: for each module, the
//               smallest feature set with which binaryen's validator (node_modules'
//               binaryen, the build's wasm-opt) accepts it, whatever its target_features
//               section says (so what the code uses decides, not what the build enabled);
//   ecmascript: the edition every shipped .js parses under (acorn, that ecmaVersion);
//   syntax:     the post-ES2020 syntax the .js uses (found in acorn's tree);
//   builtins:   the post-ES2020 built-ins, from a fixed list, the .js names.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'acorn';
import binaryen from 'binaryen';

const root = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');
const pkg = join(root, 'pkg');

/** The basis the README's table was written from. */
function readmeBasis() {
  const readme = readFileSync(join(root, 'npm', 'README.md'), 'utf8');
  const m = /<!-- browser-support-basis[^\n]*\n([\s\S]*?)-->/.exec(readme);
  assert.ok(m, 'npm/README.md has no <!-- browser-support-basis ... --> comment');
  const basis = {};
  for (const line of m[1].trim().split('\n')) {
    const [key, ...rest] = line.split(':');
    basis[key.trim()] = rest.join(':').trim().split(/\s+/).filter(Boolean).sort();
  }
  return basis;
}

const sorted = (set) => [...set].sort();

// binaryen's feature flags as proposal names; its sub-features fold into the proposal
// they came from (memory.copy/fill are bulk memory's; an overlong call_indirect table
// index is reference types').
const PROPOSAL = {
  NontrappingFPToInt: 'nontrapping-float-to-int', BulkMemory: 'bulk-memory', BulkMemoryOpt: 'bulk-memory',
  SignExt: 'sign-ext', ReferenceTypes: 'reference-types', CallIndirectOverlong: 'reference-types',
  Multivalue: 'multivalue', MutableGlobals: 'mutable-globals', SIMD128: 'simd',
};
/**
 * binaryen's sub-features: a child cannot be dropped while its parent is on (binaryen
 * asserts it), and a parent is dropped together with its children.
 */
const PARENT = { BulkMemoryOpt: 'BulkMemory', CallIndirectOverlong: 'ReferenceTypes' };
const childBits = (name) => Object.entries(PARENT).filter(([, p]) => p === name)
  .reduce((bits, [child]) => bits | binaryen.Features[child], 0);
// Newest first: later features build on earlier ones (GC on reference types, ...), so a
// feature is tried only once nothing still on depends on it.
const FEATURES = Object.entries(binaryen.Features)
  .filter(([name, bit]) => typeof bit === 'number' && bit !== 0 && name !== 'All')
  .sort(([, a], [, b]) => b - a);

/** Runs fn with stdout/stderr muted: binaryen's validator prints every error it finds. */
function quietly(fn) {
  const { write: out } = process.stdout;
  const { write: err } = process.stderr;
  process.stdout.write = () => true;
  process.stderr.write = () => true;
  try {
    return fn();
  } finally {
    process.stdout.write = out;
    process.stderr.write = err;
  }
}

/**
 * The proposals a module needs: read with every feature allowed (its target_features
 * section plays no part), then each feature dropped in turn while binaryen's validator
 * still accepts the module; what is left is what the code uses.
 */
function wasmProposals(bytes) {
  const { Features } = binaryen;
  const module = binaryen.readBinary(bytes);
  try {
    const validWith = (mask) => {
      module.setFeatures(mask);
      return quietly(() => module.validate()) === 1;
    };
    let mask = Features.All;
    assert.ok(validWith(mask), 'the module does not validate even with every feature');
    for (const [name, bit] of FEATURES) {
      if (PARENT[name] && (mask & Features[PARENT[name]])) continue;
      const without = mask & ~bit & ~childBits(name);
      if (validWith(without)) mask = without;
    }
    return new Set(FEATURES.filter(([, bit]) => mask & bit).map(([name]) => PROPOSAL[name] ?? name));
  } finally {
    module.dispose();
  }
}

test('the .wasm modules need exactly the WebAssembly proposals the README table is based on', () => {
  const { wasm } = readmeBasis();
  const modules = readdirSync(pkg).filter((f) => f.endsWith('.wasm'));
  assert.ok(modules.length >= 2, `pkg/ has ${modules.length} .wasm modules: run make build`);
  const union = new Set();
  for (const m of modules) {
    const used = wasmProposals(readFileSync(join(pkg, m)));
    for (const p of used) {
      assert.ok(wasm.includes(p), `${m} needs ${p}, which the README's table does not cover`);
      union.add(p);
    }
  }
  assert.deepEqual(sorted(union), wasm, 'the proposals the modules need differ from the README basis');
});

test('the check can tell: a module with one SIMD instruction needs exactly simd', () => {
  const simd = new Uint8Array([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, // magic, version
    0x01, 0x04, 0x01, 0x60, 0x00, 0x00, // type 0: () -> ()
    0x03, 0x02, 0x01, 0x00, // function 0 has type 0
    0x0a, 0x17, 0x01, 0x15, 0x00, 0xfd, 0x0c, ...new Array(16).fill(0), 0x1a, 0x0b, // v128.const 0; drop; end
  ]);
  assert.deepEqual(sorted(wasmProposals(simd)), ['simd']);
});

/** Post-ES2020 syntax in an acorn tree (the ES2020 baseline itself is older than the table). */
function syntaxUsed(tree) {
  const found = new Set();
  const visit = (node, fnDepth) => {
    if (!node || typeof node.type !== 'string') return;
    switch (node.type) {
      case 'PropertyDefinition':
        found.add(node.key.type === 'PrivateIdentifier' ? 'private-fields' : 'public-fields');
        break;
      case 'MethodDefinition':
        if (node.key.type === 'PrivateIdentifier') found.add('private-methods');
        break;
      case 'StaticBlock':
        found.add('static-blocks');
        break;
      case 'BinaryExpression':
        if (node.left.type === 'PrivateIdentifier') found.add('#x-in-obj');
        break;
      case 'AwaitExpression':
      case 'ForOfStatement':
        if (fnDepth === 0 && (node.type === 'AwaitExpression' || node.await)) found.add('top-level-await');
        break;
      case 'AssignmentExpression':
        if (['??=', '||=', '&&='].includes(node.operator)) found.add('logical-assignment');
        break;
      case 'Literal':
        if (typeof node.raw === 'string' && /^[\d.]/.test(node.raw) && node.raw.includes('_')) found.add('numeric-separators');
        if (node.regex?.flags.includes('d')) found.add('regexp-d-flag');
        break;
      default:
    }
    const depth = /Function/.test(node.type) ? fnDepth + 1 : fnDepth;
    for (const [key, value] of Object.entries(node)) {
      if (key === 'type') continue;
      if (Array.isArray(value)) value.forEach((c) => visit(c, depth));
      else if (value && typeof value === 'object') visit(value, depth);
    }
  };
  visit(tree, 0);
  return found;
}

// Built-ins newer than ES2020 (and web APIs of the same age) the table would have to cover.
const MEMBERS = {
  'Object.hasOwn': ['Object', 'hasOwn'], 'Promise.any': ['Promise', 'any'], 'Promise.withResolvers': ['Promise', 'withResolvers'],
  'Array.fromAsync': ['Array', 'fromAsync'], 'Object.groupBy': ['Object', 'groupBy'], 'Map.groupBy': ['Map', 'groupBy'],
  'AbortSignal.timeout': ['AbortSignal', 'timeout'], 'AbortSignal.any': ['AbortSignal', 'any'],
};
const METHODS = ['at', 'replaceAll', 'findLast', 'findLastIndex', 'toSorted', 'toReversed', 'toSpliced', 'randomUUID'];
const GLOBALS = ['structuredClone', 'WeakRef', 'FinalizationRegistry', 'AggregateError'];

function builtinsUsed(tree) {
  const found = new Set();
  const visit = (node) => {
    if (!node || typeof node.type !== 'string') return;
    if (node.type === 'MemberExpression' && !node.computed) {
      const name = node.property.name;
      for (const [label, [object, prop]] of Object.entries(MEMBERS)) {
        if (node.object.type === 'Identifier' && node.object.name === object && name === prop) found.add(label);
      }
      if (METHODS.includes(name)) found.add(`.${name}()`);
    }
    if (node.type === 'Identifier' && GLOBALS.includes(node.name)) found.add(node.name);
    for (const [key, value] of Object.entries(node)) {
      if (key === 'type') continue;
      if (Array.isArray(value)) value.forEach(visit);
      else if (value && typeof value === 'object') visit(value);
    }
  };
  visit(tree);
  return found;
}

test('the shipped JavaScript parses as the README\'s ECMAScript edition and uses exactly its syntax and built-ins', () => {
  const basis = readmeBasis();
  const edition = Number(basis.ecmascript[0]);
  assert.ok(edition >= 2015, `ecmascript: ${basis.ecmascript}`);
  const files = readdirSync(pkg).filter((f) => f.endsWith('.js'));
  assert.ok(files.length > 5, `pkg/ has ${files.length} .js files: run make build`);
  const syntax = new Set();
  const builtins = new Set();
  for (const f of files) {
    const source = readFileSync(join(pkg, f), 'utf8');
    let tree;
    try {
      tree = parse(source, { ecmaVersion: edition, sourceType: 'module' });
    } catch (err) {
      assert.fail(`pkg/${f} does not parse as ES${edition}: ${err.message}`);
    }
    for (const s of syntaxUsed(tree)) syntax.add(s);
    for (const b of builtinsUsed(tree)) builtins.add(b);
  }
  assert.deepEqual(sorted(syntax), basis.syntax, 'the post-ES2020 syntax the package uses differs from the README basis');
  assert.deepEqual(sorted(builtins), basis.builtins, 'the post-ES2020 built-ins the package names differ from the README basis');
  // The edition is the lowest that parses: one lower must fail somewhere, or the table
  // claims a newer engine than the code needs.
  const older = files.filter((f) => {
    try {
      parse(readFileSync(join(pkg, f), 'utf8'), { ecmaVersion: edition - 1, sourceType: 'module' });
      return false;
    } catch {
      return true;
    }
  });
  assert.ok(older.length > 0, `everything parses as ES${edition - 1}: lower the README's edition`);
});
