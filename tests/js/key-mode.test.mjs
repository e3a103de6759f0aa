// A Session says which kind it is: `keyMode` is 'sealed' (opened from the
// service's sealed bundle), 'client-held' (the client's own key became the session key)
// or 'sandbox' (no key); a freed session keeps it, and a SessionStore keeps it across a
// reload (a record saved before keyMode existed is a sealed session's). Through the Node
// entry, the raw classes and WalletClient against the strict emulator in both key modes.
// (The isolated signer's proxies carry it too: tests/isolate/run.mjs runs in Chromium.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ClientKey, Session, SessionStore, WalletClient, init } from '../../pkg/node.js';
import { sessionResponse, randomScalar, sealBundle } from '../support/fixtures.mjs';
import { memoryIndexedDB } from '../support/memory-indexeddb.mjs';
import { startEmulator, emulatorApi } from '../support/emulator.mjs';

await init();

test('Session.open, fromClientKey and sandbox: sealed, client-held, sandbox; kept after free()', () => {
  const key = ClientKey.generate();
  const sealed = Session.open(sessionResponse({ bundle: sealBundle(randomScalar(), key.publicKeyHex) }), key);
  const held = Session.fromClientKey(sessionResponse({ omitBundle: true }), ClientKey.generate());
  const sandbox = Session.sandbox(sessionResponse());
  assert.deepEqual([sealed.keyMode, held.keyMode, sandbox.keyMode], ['sealed', 'client-held', 'sandbox']);
  for (const s of [sealed, held, sandbox]) s.free();
  assert.deepEqual([sealed.keyMode, held.keyMode, sandbox.keyMode], ['sealed', 'client-held', 'sandbox']);
});

test('a SessionStore keeps keyMode across a reopen; an older record without it is sealed', async () => {
  const indexedDB = memoryIndexedDB();
  const store = await SessionStore.open({ indexedDB });
  const key = ClientKey.generate();
  const sessions = [
    Session.open(sessionResponse({ bundle: sealBundle(randomScalar(), key.publicKeyHex) }), key),
    Session.fromClientKey(sessionResponse({ omitBundle: true }), ClientKey.generate()),
    Session.sandbox(sessionResponse()),
  ];
  const saved = [];
  for (const s of sessions) saved.push(await store.save(s));
  assert.deepEqual(saved.map((s) => s.keyMode), ['sealed', 'client-held', 'sandbox']);
  const again = await SessionStore.open({ indexedDB });
  const loaded = await Promise.all(saved.map((s) => again.load(s.id)));
  assert.deepEqual(loaded.map((s) => s.keyMode), ['sealed', 'client-held', 'sandbox']);
});

test('WalletClient sessions say their kind: sealed and client-held logins and refreshes, sandbox', async () => {
  const emulator = await startEmulator(['--challenge-interval-ms', '0']);
  try {
    const api = emulatorApi(emulator.origin);
    const config = (await api.call('GET', '/emulator/config')).body;
    for (const keys of ['sealed', 'client-held']) {
      const client = new WalletClient({ transport: api.transport, keys, otpSignerPin: config.otpSignerPublicKey });
      const { accountId } = (await api.call('POST', '/emulator/accounts', {})).body;
      const email = await client.createEmailOtp(accountId);
      await client.challenge(email.id);
      const otp = (await api.call('GET', `/emulator/outbox?accountId=${encodeURIComponent(accountId)}`)).body.at(-1).otp;
      const session = await client.verifyEmailOtp(email.id, otp);
      assert.equal(session.keyMode, keys, `${keys}: the login's session`);
      const refreshed = await client.refresh(session);
      assert.equal(refreshed.keyMode, keys, `${keys}: the refreshed session`);
      refreshed.free();
      session.free();
    }
  } finally {
    emulator.proc.kill('SIGTERM');
  }
  // A sandbox client's sessions are sandbox sessions whatever the key mode.
  const sandboxEmulator = await startEmulator(['--mode', 'sandbox', '--challenge-interval-ms', '0']);
  try {
    const api = emulatorApi(sandboxEmulator.origin);
    const client = new WalletClient({ transport: api.transport, sandbox: true });
    const { accountId } = (await api.call('POST', '/emulator/accounts', {})).body;
    const email = await client.createEmailOtp(accountId);
    const session = await client.verifyEmailOtp(email.id, '000000'); // the sandbox's code
    assert.equal(session.keyMode, 'sandbox');
    session.free();
  } finally {
    sandboxEmulator.proc.kill('SIGTERM');
  }
});
