// Lets the browser entry's init() run under Node, which cannot fetch file: URLs: serves
// them from disk (as application/wasm) and records the name of each file fetched.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * Installs the shim over globalThis.fetch; returns the list it appends fetched file names
 * to. `fails(name)`: whether that fetch rejects (a dropped network), as a TypeError would.
 *
 * @param {{ fails?: (name: string) => boolean }} [options]
 */
export function serveFileFetches({ fails = () => false } = {}) {
  const realFetch = globalThis.fetch;
  const fetched = [];
  globalThis.fetch = async (input, options) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (url.protocol !== 'file:') return realFetch(input, options);
    const name = url.pathname.split('/').pop();
    fetched.push(name);
    if (fails(name)) throw new TypeError(`Failed to fetch ${name}`);
    return new Response(readFileSync(fileURLToPath(url)), { headers: { 'Content-Type': 'application/wasm' } });
  };
  return fetched;
}
