#!/usr/bin/env node
// The main entry ships one glue (wasm-bindgen's, for the wallet module built with the
// `enclave` feature) and two builds of the wallet module: with that feature and without
// (where encryptOtp and openWalletExport throw NOT_INITIALIZED). The glue can drive the
// build without it only if that build exports the same functions with the same types and
// imports nothing the glue does not provide. Run by scripts/build-pkg.sh; fails the build
// otherwise.
//
// Usage: node scripts/check-no-enclave.mjs <with.wasm> <without.wasm>
import { readFileSync } from 'node:fs';

/** `module.name (kind)` of each import and `name (kind)` of each export, with the type of each function. */
function surface(file) {
  const bytes = readFileSync(file);
  const module = new WebAssembly.Module(bytes);
  const types = exportTypes(bytes);
  const typed = (e, type) => {
    if (e.kind !== 'function') return `${e.name} (${e.kind})`;
    if (type === undefined) throw new Error(`${file}: no type read for the function ${e.name}`);
    return `${e.name} (function ${type})`;
  };
  return {
    imports: new Set(WebAssembly.Module.imports(module).map((e, i) => `${e.module}.${typed(e, types.imports[i])}`)),
    exports: new Set(WebAssembly.Module.exports(module).map((e) => typed(e, types.exports.get(e.name)))),
  };
}

/**
 * The types, as text, of the imports (in order; undefined for what is not a function) and of
 * the exported functions (by name): read from the type, import, function and export
 * sections. Throws on what it does not read, rather than compare less.
 */
function exportTypes(bytes) {
  let p = 8;
  const u32 = () => {
    let result = 0;
    let shift = 0;
    let byte;
    do {
      byte = bytes[p++];
      result |= (byte & 0x7f) << shift;
      shift += 7;
    } while (byte & 0x80);
    return result >>> 0;
  };
  const signatures = [];
  const functionTypes = [];
  const imports = [];
  const exports = new Map();
  while (p < bytes.length) {
    const id = bytes[p++];
    const size = u32();
    const end = p + size;
    if (id === 1) {
      const valueType = () => {
        const t = bytes[p++];
        // i32, i64, f32, f64, v128, funcref, externref: one byte each (a typed reference is not)
        if (![0x7f, 0x7e, 0x7d, 0x7c, 0x7b, 0x70, 0x6f].includes(t)) throw new Error(`value type 0x${t.toString(16)}: not read by this check`);
        return t.toString(16);
      };
      for (let n = u32(); n > 0; n--) {
        if (bytes[p++] !== 0x60) throw new Error('a type that is not a function type: not read by this check');
        const params = Array.from({ length: u32() }, valueType);
        const results = Array.from({ length: u32() }, valueType);
        signatures.push(`(${params.join(',')})->(${results.join(',')})`);
      }
    } else if (id === 2) {
      for (let n = u32(); n > 0; n--) {
        for (let part = 0; part < 2; part++) {
          const length = u32(); // module, then name
          p += length;
        }
        const kind = bytes[p++];
        if (kind === 0) {
          functionTypes.push(signatures[u32()]);
          imports.push(functionTypes.at(-1));
        } else if (kind === 1 || kind === 2) {
          if (kind === 1) p++; // element type
          const limits = bytes[p++];
          u32(); // minimum
          if (limits & 1) u32(); // maximum
          imports.push(undefined);
        } else if (kind === 3) {
          p += 2; // value type, mutability
          imports.push(undefined);
        } else throw new Error(`${kind}: an import kind this check does not read`);
      }
    } else if (id === 3) {
      for (let n = u32(); n > 0; n--) functionTypes.push(signatures[u32()]);
    } else if (id === 7) {
      for (let n = u32(); n > 0; n--) {
        const length = u32();
        const name = bytes.subarray(p, p + length).toString();
        p += length;
        const kind = bytes[p++];
        const index = u32();
        if (kind === 0) exports.set(name, functionTypes[index]);
      }
    }
    p = end;
  }
  return { imports, exports };
}

/** The members of `a` that `b` lacks. */
const minus = (a, b) => [...a].filter((x) => !b.has(x)).sort();

const [withEnclave, withoutEnclave] = process.argv.slice(2);
if (!withEnclave || !withoutEnclave) {
  console.error('usage: node scripts/check-no-enclave.mjs <with.wasm> <without.wasm>');
  process.exit(2);
}
const full = surface(withEnclave);
const lean = surface(withoutEnclave);
const problems = [];
const extraImports = minus(lean.imports, full.imports);
if (extraImports.length) problems.push(`imports the glue does not provide: ${extraImports.join(', ')}`);
const differ = [...minus(lean.exports, full.exports), ...minus(full.exports, lean.exports)];
if (differ.length) problems.push(`exports that differ from the glue's: ${differ.join(', ')}`);
if (problems.length) {
  console.error(`[build] ${withoutEnclave} (the wallet module without the enclave feature) cannot run under the glue of the build with it:\n  ${problems.join('\n  ')}`);
  process.exit(1);
}
console.log(`[build] the wallet module without the enclave feature runs under the glue of the build with it (${lean.exports.size} exports, same types)`);
