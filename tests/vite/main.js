// Imports the package by name, exactly as an app would; Vite resolves the browser entry
// and emits the .wasm as an asset. The driver (run.mjs) reads window.kitState and
// drives window.kit. init() loads the one module (passkeys included); WalletClient's
// implementation (wallet-client-impl.js) is a dynamic import: Vite emits it as its own
// chunk, fetched only by init({ passkeys: true }) or the first flow call.
//
// Opened as `/?isolate=worker`, the page starts the isolated signer instead
// (init({ isolate: 'worker' })): Vite bundles the kit's signer Worker with its default
// worker config, and the page's own realm never loads the signing .wasm.
import { init, ClientKey, Session, KitError, passkey, WalletClient } from 'embedded-wallet-kit';

const isolated = new URLSearchParams(location.search).get('isolate') === 'worker';
const state = { done: false, isolated, preInitCode: null, sameInitPromise: null, error: null, publicKeyHex: null };
window.kitState = state;

function notInitializedCode() {
  try {
    ClientKey.generate();
    return 'no error before init';
  } catch (err) {
    return err instanceof KitError ? err.code : `${err?.name}: ${err?.message}`;
  }
}

state.preInitCode = notInitializedCode();

const options = isolated ? { isolate: 'worker' } : undefined;
const p1 = init(options);
const p2 = init(options);
state.sameInitPromise = p1 === p2;

async function start() {
  try {
    const resolved = await p1; // the isolated API, or undefined in same-thread mode
    if (isolated) {
      window.kit = { init, KitError, isolated: resolved };
      // Documented: every init({ isolate }) call resolves to the same object.
      state.sameIsolatedKit = resolved === (await p2);
      // The same-thread API stays uninitialized: only the Worker loaded the signing module.
      state.sameThreadCodeAfterInit = notInitializedCode();
      const key = await resolved.ClientKey.generate();
      state.publicKeyHex = key.publicKeyHex;
      await key.free();
    } else {
      window.kit = { init, ClientKey, Session, KitError, passkey, WalletClient };
      const key = ClientKey.generate();
      state.publicKeyHex = key.publicKeyHex;
      key.free();
    }
    document.getElementById('out').textContent = `ready${isolated ? ' (isolated)' : ''}\nclientPublicKey ${state.publicKeyHex}`;
  } catch (err) {
    state.error = `${err?.code ?? err?.name}: ${err?.message}`;
    document.getElementById('out').textContent = `init failed: ${state.error}`;
  }
  state.done = true;
}
start();
