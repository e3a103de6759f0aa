// How the two Node entries (node.js, signing-node.js) start their module: instantiated from
// the bytes the entry read at import, marked ready, then the start-up self-test. Browser
// pages never load this file.
import { runSelfTest } from './guard.js';

/**
 * Instantiates `bytes` with the glue's `initSync` and readies `module`; returns what the
 * entry's `init()` answers: resolved, or rejected (and marked handled) with ENGINE_FAULT
 * when the self-test found a faulty engine, after which every call answers ENGINE_FAULT.
 *
 * @param {(input: { module: any }) => WebAssembly.Exports} initSync
 * @param {Uint8Array} bytes
 * @param {() => void} selfTest
 * @param {{ markReady(): void, holds(memory: WebAssembly.Memory): void, poison(): void, isReady(): boolean, isPoisoned(): boolean }} module
 * @returns {Promise<void>}
 */
export function startModule(initSync, bytes, selfTest, module) {
  module.holds(/** @type {WebAssembly.Memory} */ (initSync({ module: bytes }).memory));
  module.markReady();
  try {
    runSelfTest(selfTest, module);
    return Promise.resolve();
  } catch (err) {
    const failed = Promise.reject(err);
    failed.catch(() => {});
    return failed;
  }
}
