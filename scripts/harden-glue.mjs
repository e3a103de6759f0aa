#!/usr/bin/env node
// Hardens the wasm-bindgen glue of each module that holds keys (the full module's,
// pkg/embedded_wallet_kit.js, and the signing-only one's, pkg/embedded_wallet_kit_signing.js)
// after wasm-bindgen wrote it; run by scripts/build-pkg.sh on both. wasm-bindgen's classes keep a
// handle's wasm pointer in a writable `__wbg_ptr` and trust it on every call, and carry
// `__wrap` (any integer becomes a handle) and `__destroy_into_raw` (detaches a handle
// without zeroizing its key). Here:
//   - the pointer lives in a private class field, set only by the glue when wasm returns
//     a handle; every method and every ClientKey/Session argument reads it from there, so
//     an object that is not a handle the glue made (a prototype object carrying a copied
//     `__wbg_ptr`, a Session re-prototyped as a ClientKey) throws KitError INVALID_INPUT
//     before anything reaches wasm;
//   - `__wrap` and `__destroy_into_raw` are gone; `free()` is `close()` (zeroize now; the
//     memory is released by wasm-bindgen's FinalizationRegistry once the object is
//     unreachable); `__wbg_ptr` is a read-only, non-configurable accessor saying whether
//     the object is a live handle (code that tested it keeps working);
//   - `crypto.getRandomValues`, `crypto.subtle.importKey` and `Date.now` are the ones
//     js/platform.js captured when the kit's modules were evaluated: page script that
//     replaces them later (even while init() downloads the .wasm) neither chooses a new
//     key, nor receives the PKCS#8 bytes the session store imports, nor moves the clock
//     of the expiry guards.
// Each rewrite checks that the glue has the exact shape it expects (wasm-bindgen is
// pinned in Cargo.lock) and fails the build otherwise. The full module's other classes
// (the flow state machines behind WalletClient, which hold no key) keep wasm-bindgen's
// own shape: only ClientKey and Session handles guard secrets.
//
// Usage: node scripts/harden-glue.mjs pkg/embedded_wallet_kit.js [pkg/embedded_wallet_kit_signing.js ...]
import { readFileSync, writeFileSync } from 'node:fs';

const CLASSES = ['ClientKey', 'Session'];

function fail(message) {
  console.error(`[harden-glue] ${message}`);
  process.exit(1);
}

/** Replaces exactly `count` occurrences of `from` (a string) in `text`. */
function replaceExact(text, from, to, count, what) {
  const found = text.split(from).length - 1;
  if (found !== count) fail(`${what}: expected ${count} occurrence(s), found ${found}; wasm-bindgen's output changed`);
  return text.split(from).join(to);
}

/**
 * The glue without the bodies of the classes that are not handles (and their `X.__wrap(`
 * calls): what must hold no wasm-bindgen internal any more.
 */
function withoutOtherClasses(glue) {
  const others = [...glue.matchAll(/^export class (\w+) \{$/gm)].map((m) => m[1]).filter((c) => !CLASSES.includes(c));
  let rest = glue;
  for (const cls of others) {
    rest = rest.replace(new RegExp(`^export class ${cls} \\{$[\\s\\S]*?^\\}$`, 'm'), '');
    rest = rest.split(`${cls}.__wrap(`).join('');
  }
  return rest;
}

export function harden(source) {
  let glue = source;
  for (const cls of CLASSES) {
    const lower = cls.toLowerCase();
    const internals = `    static __wrap(ptr) {
        const obj = Object.create(${cls}.prototype);
        obj.__wbg_ptr = ptr;
        ${cls}Finalization.register(obj, obj.__wbg_ptr, obj);
        return obj;
    }
    __destroy_into_raw() {
        const ptr = this.__wbg_ptr;
        this.__wbg_ptr = 0;
        ${cls}Finalization.unregister(this);
        return ptr;
    }
    free() {
        const ptr = this.__destroy_into_raw();
        wasm.__wbg_${lower}_free(ptr, 0);
    }
`;
    const free = `    free() {
        this.close();
    }
`;
    glue = replaceExact(glue, internals, free, 1, `${cls}: __wrap/__destroy_into_raw/free`);
    if (!glue.includes(`${cls}.__wrap(`)) fail(`${cls}: no __wrap call; wasm-bindgen's output changed`);
    glue = glue.split(`${cls}.__wrap(`).join(`wrap${cls}(`);
  }

  // Pointer reads: `this.__wbg_ptr` in a class body, `arg.__wbg_ptr` after `_assertClass(arg, Class)`.
  // The argument check names the function it guards (`Session.open: key must be a
  // ClientKey ...`), as the isolated signer's does.
  let currentClass;
  let currentFunction;
  const asserted = new Map();
  glue = glue
    .split('\n')
    .map((line) => {
      const opened = /^export class (\w+) \{$/.exec(line);
      if (opened) currentClass = opened[1];
      else if (line === '}') currentClass = undefined;
      // Another class's body (a flow's) is not a handle's: left as wasm-bindgen wrote it.
      if (currentClass !== undefined && !CLASSES.includes(currentClass)) return line;
      const fn = /^export function (\w+)\(/.exec(line);
      const method = /^ {4}(static )?(\w+)\(.*\) \{$/.exec(line);
      if (fn) currentFunction = fn[1];
      else if (method && currentClass) currentFunction = `${currentClass}.${method[1] ? '' : 'prototype.'}${method[2]}`;
      const check = /^(\s*)_assertClass\((\w+), (ClientKey|Session)\);$/.exec(line);
      if (check) {
        asserted.set(check[2], check[3]);
        if (currentFunction === undefined) fail(`cannot tell which function checks \`${check[2]}\``);
        // Checked where wasm-bindgen checked the class: before any allocation.
        return `${check[1]}${check[3]}Handle.ptr(${check[2]}, ${JSON.stringify(currentFunction)});`;
      }
      return line.replace(/\b(\w+)\.__wbg_ptr\b/g, (match, name) => {
        const cls = name === 'this' ? currentClass : asserted.get(name);
        if (!CLASSES.includes(cls)) fail(`cannot tell the class of \`${match}\` in: ${line.trim()}`);
        return `${cls}Handle.ptr(${name})`;
      });
    })
    .join('\n');
  glue = replaceExact(glue, `function _assertClass(instance, klass) {
    if (!(instance instanceof klass)) {
        throw new Error(\`expected instance of \${klass.name}\`);
    }
}
`, '', 1, '_assertClass');
  const leftover = /__wbg_ptr|__wrap|__destroy_into_raw|_assertClass/.exec(withoutOtherClasses(glue));
  if (leftover) fail(`\`${leftover[0]}\` is still there: ${glue.slice(leftover.index - 80, leftover.index + 40)}`);

  // WebCrypto and the clock as captured when the kit's modules load (js/platform.js), not
  // as the page's globals are when init() runs or when a guard reads the time.
  glue = `import { getRandomValues as kitGetRandomValues, subtle as kitSubtle, now as kitNow } from './platform.js';\n${glue}`;
  glue = replaceExact(glue, 'globalThis.crypto.getRandomValues(', 'kitGetRandomValues(', 1, 'getRandomValues import');
  // Only the full module imports keys (the session store's bindings); the signing-only one does not.
  const importsKeys = glue.includes('crypto.subtle.importKey(');
  glue = replaceExact(glue, 'crypto.subtle.importKey(', 'kitSubtle.importKey(', importsKeys ? 1 : 0, 'importKey import');
  glue = replaceExact(glue, 'const ret = Date.now();', 'const ret = kitNow();', 1, 'Date.now import');
  const global = /globalThis\.crypto|crypto\.subtle\.|Date\.now\(/.exec(glue);
  if (global) fail(`\`${global[0]}\` is still read from the page: ${glue.slice(global.index - 80, global.index + 40)}`);

  // The handles. A base constructor that returns its argument lets a derived class add
  // its private field to an object made elsewhere (Object.create of the prototype).
  glue += `
// scripts/harden-glue.mjs: handle pointers in private fields.
const AdoptTarget = class {
    constructor(target) {
        return target;
    }
};
${CLASSES.map((cls) => `class ${cls}Handle extends AdoptTarget {
    #ptr;
    constructor(target, ptr) {
        super(target);
        this.#ptr = ptr;
    }
    static has(obj) {
        return (typeof obj === 'object' && obj !== null) && #ptr in obj;
    }
    static ptr(obj, where) {
        if (!${cls}Handle.has(obj)) {
            throw new KitError('INVALID_INPUT', where === undefined
                ? ${JSON.stringify(`not a ${cls} made by embedded-wallet-kit (${cls === 'ClientKey' ? 'use ClientKey.generate()' : 'use Session.open, Session.sandbox or Session.fromClientKey'})`)}
                : \`\${where}: ${cls === 'ClientKey' ? 'key must be a ClientKey (from ClientKey.generate())' : 'session must be a Session (from Session.open, Session.sandbox or Session.fromClientKey)'}\`);
        }
        return obj.#ptr;
    }
}
function wrap${cls}(ptr) {
    ptr = ptr >>> 0;
    const obj = Object.create(${cls}.prototype);
    new ${cls}Handle(obj, ptr);
    ${cls}Finalization.register(obj, ptr);
    return obj;
}
Object.defineProperty(${cls}.prototype, '__wbg_ptr', {
    get() {
        return ${cls}Handle.has(this);
    },
    enumerable: false,
    configurable: false,
});
`).join('')}`;
  return glue;
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop())) {
  const files = process.argv.slice(2);
  if (files.length === 0) fail('usage: node scripts/harden-glue.mjs <glue.js>...');
  for (const file of files) {
    writeFileSync(file, harden(readFileSync(file, 'utf8')));
    console.log(`[harden-glue] ${file}: handles in private fields, no __wrap/__destroy_into_raw, WebCrypto and Date.now from platform.js`);
  }
}
