// tests/csp/run.mjs's page for the isolated signer under the emulator's strict CSP: the
/* global document, crypto */
// Worker starts (worker-src 'self'), compiles the wasm there ('wasm-unsafe-eval' in the
// Worker script's own policy), generates a key and signs a 202. The verdict goes to
// document.body.dataset.result: 'ok', or what failed.
import { init } from '/pkg/browser.js';

try {
  const kit = await init({ isolate: 'worker' });
  const key = await kit.ClientKey.generate();
  const headers = await key.signRetry({
    payloadToSign: JSON.stringify({ csp: 'isolated' }),
    requestId: `Request:${crypto.randomUUID()}`,
    expiresAt: new Date(Date.now() + 60_000).toISOString(),
  });
  const signed = typeof headers['Service-Wallet-Signature'] === 'string' && /^04[0-9a-f]{128}$/.test(key.publicKeyHex);
  await key.free();
  await kit.terminate();
  document.body.dataset.result = signed ? 'ok' : `unexpected headers: ${Object.keys(headers)}`;
} catch (err) {
  document.body.dataset.result = `${err?.code ?? err?.name}: ${err?.message ?? err}`;
}
