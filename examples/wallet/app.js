// The demo page: loads the package's browser entry directly (no bundler).
import { init, ClientKey, Session, KitError } from './pkg/browser.js';

const $ = (id) => document.getElementById(id);
const show = (id, text) => { $(id).textContent = text; };

function fail(err) {
  const text = err instanceof KitError ? `KitError ${err.code}: ${err.message}` : String(err);
  $('status').className = 'err';
  show('status', text);
}

const inAnHour = () => new Date(Date.now() + 3600_000).toISOString();
const uuid = () => crypto.randomUUID();

$('generate').addEventListener('click', () => {
  try {
    const key = ClientKey.generate();
    show('publicKeyHex', key.publicKeyHex);
    show('compressedPublicKeyHex', key.compressedPublicKeyHex);
    show('oidcNonce', key.oidcNonce());
    key.free();
  } catch (err) {
    fail(err);
  }
});

$('sign').addEventListener('click', () => {
  try {
    const now = new Date().toISOString();
    const session = Session.sandbox({
      id: `Session:${uuid()}`,
      accountId: `InternalAccount:${uuid()}`,
      type: 'EMAIL_OTP',
      nickname: 'demo@example.com',
      createdAt: now,
      updatedAt: now,
      expiresAt: inAnHour(),
      encryptedSessionSigningKey: 'sandbox-stub',
    });
    const payloadToSign = $('payload').value;
    show('stamp', session.stamp(payloadToSign));
    const headers = session.signRetry({
      payloadToSign,
      requestId: `Request:${uuid()}`,
      expiresAt: new Date(Date.now() + 300_000).toISOString(),
    });
    show('retry', JSON.stringify(headers, null, 2));
    session.free();
  } catch (err) {
    fail(err);
  }
});

init().then(() => {
  show('status', 'ready: the WebAssembly module is loaded.');
  $('generate').disabled = false;
  $('sign').disabled = false;
  window.demoReady = true;
}, fail);
