// How the two Node entries (node.js, signing-node.js) start their module: on demand, at the
// first init() or call, never at import, so a server bundle (Next.js, an edge or Node
// route, a server component) can import the kit without reading a file or running wasm.
// The .wasm is read from beside the entry; when a bundler moved the entry away from its
// files (rewriting `import.meta.url`), the package's own file, resolved from the app's
// directory; else NOT_INITIALIZED says to keep the package external. Browser pages never
// load this file.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { KitError } from './platform.js';
import { engineFault, runSelfTest } from './guard.js';

/**
 * The bytes of the package's `name`: at `url` (beside the entry), else resolved from the
 * working directory as `embedded-wallet-kit/<name>` (the package exports it).
 *
 * @param {() => URL} url
 * @param {string} name
 */
function readWasm(url, name) {
  let first;
  try {
    // A native file: URL (a bundler's stand-in for URL reads as a string, or throws).
    return readFileSync(new URL(String(url())));
  } catch (err) {
    first = err;
  }
  try {
    return readFileSync(createRequire(`${process.cwd()}/index.js`).resolve(`embedded-wallet-kit/${name}`));
  } catch {
    throw new KitError(
      'NOT_INITIALIZED',
      `embedded-wallet-kit could not read its WebAssembly module ${name}: a bundler moved the kit's Node entry away `
        + 'from its files, and the package is not in node_modules of the working directory either. Keep the package '
        + "external to the server bundle (Next.js: serverExternalPackages: ['embedded-wallet-kit'] in next.config).",
      first,
    );
  }
}

/**
 * Registers the start of `module` (instantiated with the glue's `initSync` from the
 * package's `name`, marked ready, then the start-up self-test; `onStarted` after
 * instantiation) to run at its first check; returns what the entry's `init()` answers:
 * resolved once started, else rejected with why (NOT_INITIALIZED when the file could not
 * be read, a later call tries again; ENGINE_FAULT for good when the self-test failed).
 *
 * @param {{ startOnDemand(fn: () => void): void, markReady(): void, holds(memory: WebAssembly.Memory): void, poison(): void, isReady(): boolean, isPoisoned(): boolean }} module
 * @param {(input: { module: any }) => { memory: WebAssembly.Memory }} initSync
 * @param {() => void} selfTest
 * @param {() => URL} url the .wasm beside the entry (a function: nothing runs at import)
 * @param {string} name its file name in the package
 * @param {() => void} [onStarted]
 * @returns {() => Promise<void>}
 */
export function startOnDemand(module, initSync, selfTest, url, name, onStarted) {
  module.startOnDemand(() => {
    module.holds(initSync({ module: readWasm(url, name) }).memory);
    module.markReady();
    onStarted?.();
    runSelfTest(selfTest, module);
  });
  return () => {
    try {
      if (module.isReady() && !module.isPoisoned()) return Promise.resolve();
      throw engineFault();
    } catch (err) {
      return Promise.reject(err);
    }
  };
}
