// Imports the package by name, exactly as an app would; Vite resolves the browser entry
// and emits the .wasm as an asset. The driver (run.mjs) reads window.kitState and
// drives window.kit. The passkey module is a dynamic import: Vite emits it as its own
// chunk (plus its .wasm), fetched only by init({ passkeys: true }).
import { init, ClientKey, Session, KitError, passkey } from 'embedded-wallet-kit';

const state = { done: false, preInitCode: null, sameInitPromise: null, error: null, publicKeyHex: null };
window.kitState = state;

try {
  ClientKey.generate();
  state.preInitCode = 'no error before init';
} catch (err) {
  state.preInitCode = err instanceof KitError ? err.code : `${err?.name}: ${err?.message}`;
}

const p1 = init();
const p2 = init();
state.sameInitPromise = p1 === p2;

p1.then(
  () => {
    window.kit = { init, ClientKey, Session, KitError, passkey };
    const key = ClientKey.generate();
    state.publicKeyHex = key.publicKeyHex;
    key.free();
    document.getElementById('out').textContent = `ready\nclientPublicKey ${state.publicKeyHex}`;
    state.done = true;
  },
  (err) => {
    state.error = `${err?.code ?? err?.name}: ${err?.message}`;
    document.getElementById('out').textContent = `init failed: ${state.error}`;
    state.done = true;
  },
);
