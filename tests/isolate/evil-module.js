/* global window */
// A stand-in for any of the kit's lazily loaded modules (the isolated signer's code, the
// session store's, WalletClient's, the keeper's) that an import map injected after the kit
// loaded would like to substitute (tests/isolate/run.mjs): if the kit ever loads it, it
// says so and hands out a signer of its own.
window.evilModuleLoaded = true;
export function initIsolated() {
  return { evil: true };
}
export function open() {
  return { evil: true };
}
export function start() {
  return { evil: true };
}
