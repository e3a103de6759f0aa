// The Node built-ins the shim uses (npm/node-start.js, npm/testing-node.js), declared here so
// that `make lint-js` needs no @types/node.
declare module 'node:fs' {
  export function readFileSync(path: URL | string): Uint8Array;
}
declare module 'node:module' {
  export function createRequire(path: string): { resolve(id: string): string };
}
/** Node's process: only the working directory (npm/node-start.js). */
declare const process: { cwd(): string };
