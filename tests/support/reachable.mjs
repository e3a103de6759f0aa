// What page script can reach from an entry's exports: every value and accessor up to a
// few levels below them (own properties, prototypes' members), without calling getters.
// Used to check that no export leads to the wasm exports, the memory or a store binding.

/** `[path, value]` for everything reachable from `root` through own data properties. */
export function reachable(root, depth = 3) {
  const out = [];
  const seen = new Set();
  const visit = (value, path, level) => {
    if ((typeof value !== 'object' && typeof value !== 'function') || value === null || seen.has(value)) return;
    seen.add(value);
    out.push([path, value]);
    if (level === 0) return;
    for (const key of Reflect.ownKeys(value)) {
      const d = Reflect.getOwnPropertyDescriptor(value, key);
      const name = `${path}.${String(key)}`;
      if (d === undefined) continue;
      if ('value' in d) visit(d.value, name, level - 1);
      else out.push([name, d.get ?? d.set]);
    }
  };
  for (const [key, value] of Object.entries(root)) visit(value, key, depth);
  return out;
}

/** Paths of reachable values that hand out the wasm module or take/yield key material. */
export function custodyLeaks(root) {
  const names = /^(?:__wrap|__destroy_into_raw|__importKey|__openWithDh|__external|store[A-Z]\w*|initSync|memory|__wbindgen\w*)$/;
  return reachable(root)
    .filter(([path, value]) => value instanceof WebAssembly.Memory || value instanceof WebAssembly.Instance
      || value instanceof WebAssembly.Module || names.test(path.split('.').pop()))
    .map(([path]) => path);
}
