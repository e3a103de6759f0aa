// The cold-start steps, run in a fresh page (bench/in-browser.mjs's cold.html imports this
// module and exposes it as globalThis.cold). They live in the page, not in the driver's
// scripts, because Firefox runs WebDriver scripts in a sandbox with its own global: its
// import() would load a second copy of the kit, and what one script keeps the next would
// not see. Nothing here is imported before a step starts its clock.
let kit;
let key;

/**
 * import() + init() of a signing-only page (the `embedded-wallet-kit/signing` entry, the
 * signing module), then the first keygen; keeps the key for openAndStamp.
 */
export async function importInitKeygen() {
  const t0 = performance.now();
  kit = await import('/pkg/signing.js');
  const t1 = performance.now();
  await kit.init();
  const t2 = performance.now();
  // The first keygen comes once the page has been idle (a page calls it from an event, not
  // in init()'s continuation): the kit uses that idle time to build its basepoint table.
  await new Promise((resolve) => (globalThis.requestIdleCallback ?? setTimeout)(() => setTimeout(resolve, 0)));
  const t3 = performance.now();
  key = kit.ClientKey.generate();
  const publicKeyHex = key.publicKeyHex;
  const t4 = performance.now();
  return { importInit: t2 - t0, init: t2 - t1, keygen: t4 - t3, publicKeyHex };
}

/** The first Session.open (of a bundle sealed to that key) and the first stamp. */
export async function openAndStamp([response, payload]) {
  const t0 = performance.now();
  const session = kit.Session.open(response, key);
  const t1 = performance.now();
  const stamp = session.stamp(payload);
  const t2 = performance.now();
  const publicKeyHex = session.publicKeyHex;
  session.free();
  key.free();
  return { open: t1 - t0, stamp: t2 - t1, stampValue: stamp, publicKeyHex };
}

/** The peer: import() of its bundle, then its first keygen. */
export async function peer() {
  const t0 = performance.now();
  const m = await import('/peer.js');
  const t1 = performance.now();
  if (m.generateP256KeyPair().publicKeyUncompressed.length !== 130) throw new Error('peer keygen');
  return [t1 - t0, performance.now() - t1];
}

/** Where the signing entry's init() goes: fetching its module's bytes, then init() on those bytes. */
export async function initSplit(wasmUrl) {
  const m = await import('/pkg/signing.js');
  const t0 = performance.now();
  const bytes = await (await fetch(wasmUrl)).arrayBuffer();
  const t1 = performance.now();
  await m.init({ module_or_path: bytes });
  return [t1 - t0, performance.now() - t1];
}

/** What a passkey wallet page loads: the main entry's init({ passkeys: true }) and a SessionStore. */
export async function walletPage() {
  const m = await import('/pkg/browser.js');
  await m.init({ passkeys: true });
  const store = await m.SessionStore.open({ name: 'bench-page' });
  store.close();
}
