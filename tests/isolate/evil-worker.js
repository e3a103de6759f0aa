/* global self */
// A stand-in for a signer script that later page script would like the kit to start
// instead of its own (tests/isolate/run.mjs, ?hijack): if the kit ever runs it, init fails.
self.onmessage = (event) => {
  event.ports[0]?.postMessage({ ready: false, error: { message: 'evil worker started' } });
};
