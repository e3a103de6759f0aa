// tests/csp/run.mjs's page for capabilities() under a real Content-Security-Policy (no
/* global document */
// init(): the wasm answer is the empty module's compile, which the policy allows or not).
// The answer goes to document.body.dataset.result as JSON, or what failed; the first
// call's duration (ms) to document.body.dataset.ms.
/* global performance */
import { capabilities } from '/pkg/browser.js';

try {
  const started = performance.now();
  const caps = await capabilities();
  document.body.dataset.ms = String(Math.round(performance.now() - started));
  document.body.dataset.result = JSON.stringify(caps);
} catch (err) {
  document.body.dataset.result = `${err?.code ?? err?.name}: ${err?.message ?? err}`;
}
