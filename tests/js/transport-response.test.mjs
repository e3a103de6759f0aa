// What a WalletClient makes of its transport's answer: a fetch `Response` returned as it is
// is read (status, headers, text), and a body of a kind the flows cannot read (a stream,
// bytes, a Blob) is SERVICE_ERROR naming it — never a silent empty object.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { init, KitError, WalletClient } from '../../pkg/node.js';

await init();

const ACCOUNT = `InternalAccount:${randomUUID()}`;
const CRED = `AuthMethod:${randomUUID()}`;
const method = { id: CRED, type: 'EMAIL_OTP', accountId: ACCOUNT };

test('a transport may return the fetch Response itself', async () => {
  const client = new WalletClient({
    transport: async () => new Response(JSON.stringify(method), { status: 201, headers: { 'content-type': 'application/json' } }),
  });
  const cred = await client.createEmailOtp(ACCOUNT);
  assert.equal(cred.id, CRED);
  assert.equal(cred.accountId, ACCOUNT);
});

test("a Response's headers are read (Retry-After of a 429)", async () => {
  const client = new WalletClient({
    transport: async () => new Response('{"code":"RATE_LIMITED","message":"slow down"}', { status: 429, headers: { 'retry-after': '7' } }),
  });
  await assert.rejects(client.createEmailOtp(ACCOUNT), (err) => err instanceof KitError && err.code === 'RATE_LIMITED' && err.retryAfterMs === 7000);
});

test('a body the flows cannot read is SERVICE_ERROR naming it', async () => {
  const stream = new Response(JSON.stringify(method)).body;
  const cases = [
    [{ status: 201, body: stream }, /response body .* is a ReadableStream/],
    [{ status: 201, body: new TextEncoder().encode(JSON.stringify(method)) }, /is a Uint8Array/],
    [{ status: 201, body: new Blob([JSON.stringify(method)]) }, /is a Blob/],
    [{ status: 201, body: 42 }, /is a number/],
  ];
  for (const [response, message] of cases) {
    const client = new WalletClient({ transport: async () => response });
    await assert.rejects(client.createEmailOtp(ACCOUNT), (err) => err instanceof KitError && err.code === 'SERVICE_ERROR' && message.test(err.message) && err.message.includes('/auth/credentials'));
  }
  const used = new Response(JSON.stringify(method), { status: 201 });
  await used.text();
  const client = new WalletClient({ transport: async () => used });
  await assert.rejects(client.createEmailOtp(ACCOUNT), (err) => err instanceof KitError && err.code === 'SERVICE_ERROR' && /is a Response: .*unread Response/.test(err.message));
});
