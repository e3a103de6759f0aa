// The one Node built-in the shim uses (js/node.js, js/testing-node.js), declared here so
// that `make lint-js` needs no @types/node.
declare module 'node:fs' {
  export function readFileSync(path: URL | string): Uint8Array;
}
