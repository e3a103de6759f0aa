// tests/csp/run.mjs's page for capabilities() under a real Content-Security-Policy (no
/* global document */
// init(): the wasm answer is the empty module's compile, which the policy allows or not).
// The answer goes to document.body.dataset.result as JSON, or what failed.
import { capabilities } from '/pkg/browser.js';

try {
  document.body.dataset.result = JSON.stringify(await capabilities());
} catch (err) {
  document.body.dataset.result = `${err?.code ?? err?.name}: ${err?.message ?? err}`;
}
