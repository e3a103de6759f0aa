// capabilities().isolatedSigner when the kit's Worker starts but never answers its probe
// (a Worker whose scripts hang, or a bundle whose Worker is not the kit's): after 5 s it
// is `available: false` with the reason, the Worker is ended and the page's port closed.
// Through the browser entry (pkg/browser.js) in Node, with a stand-in Worker and
// MessageChannel installed before the kit loads (it captures them then). Its own process
// under node --test; tests/csp covers a Worker the page's CSP forbids, in every engine.
import { test } from 'node:test';
import assert from 'node:assert/strict';

const started = [];
const ended = [];
const closed = [];
class SilentWorker {
  constructor(url, options) {
    started.push({ url: String(url), options });
  }
  postMessage() {}
  terminate() {
    ended.push(this);
  }
}
class StandInPort {
  constructor() {
    this.onmessage = null;
  }
  postMessage() {}
  close() {
    closed.push(this);
  }
}
class StandInChannel {
  #one = new StandInPort();
  #two = new StandInPort();
  get port1() {
    return this.#one;
  }
  get port2() {
    return this.#two;
  }
}
globalThis.Worker = SilentWorker;
globalThis.MessageChannel = StandInChannel;
const { capabilities } = await import('../../pkg/browser.js');

test('a Worker that never answers: isolatedSigner unavailable after 5 s, with the reason; the Worker ended, the port closed', async () => {
  const t0 = performance.now();
  const { isolatedSigner } = await capabilities();
  const ms = performance.now() - t0;
  assert.equal(isolatedSigner.available, false);
  assert.match(isolatedSigner.reason, /signer-worker\.js/);
  assert.match(isolatedSigner.reason, /no answer within 5 s/);
  assert.ok(ms >= 4_900, `answered after ${Math.round(ms)} ms, before the 5 s timeout`);
  assert.equal(started.length, 1, 'one Worker started');
  assert.match(started[0].url, /\/signer-worker\.js$/);
  assert.deepEqual(started[0].options, { type: 'module' });
  assert.equal(ended.length, 1, 'the Worker was ended');
  assert.equal(closed.length, 1, "the page's port was closed");
  assert.equal(await capabilities().then((c) => c.isolatedSigner), isolatedSigner, 'cached: asked once');
  assert.equal(started.length, 1, 'no second Worker');
});
