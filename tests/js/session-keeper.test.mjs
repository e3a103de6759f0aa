// SessionKeeper (pkg/node.js) with a fake clock, fake timers and a fake service: refreshes
// in a row (both key modes, each refresh signed by the session it replaces), no refresh
// of an expired session, a 401 ends it, transient failures retried with backoff (and
// Retry-After), a clock jump (a sleeping laptop: no timer fired) caught up on
// visibilitychange and focus, revoke, stop. Then against the strict emulator with a short
// session TTL and the real clock: several refreshes in a row in both key modes.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { init, ClientKey, KitError, WalletClient, SessionKeeper } from '../../pkg/node.js';
import {
  sessionResponse, randomScalar, sealBundle, checkStamp,
} from '../support/fixtures.mjs';
import { startEmulator, emulatorApi } from '../support/emulator.mjs';

await init();

const MINUTE = 60_000;
const CRED = `AuthMethod:${crypto.randomUUID()}`;
const json = (status, body, headers = {}) => ({ status, headers, body: body === undefined ? '' : JSON.stringify(body) });
const bodyOf = (request) => (request.body === undefined ? undefined : JSON.parse(request.body));
const isoAt = (ms) => new Date(ms).toISOString();
/** Lets pending promise callbacks (transport answers, the keeper's reactions) run. */
const settle = async () => {
  for (let i = 0; i < 20; i += 1) await new Promise((resolve) => setImmediate(resolve));
};

/** A fake wall clock with timers: `advance` moves it, firing due timers in order. */
function fakeClock(start = Date.now()) {
  let time = start;
  let nextId = 1;
  const timers = new Map();
  const delays = [];
  return {
    now: () => time,
    setTimeout: (fn, ms) => {
      delays.push(ms);
      const id = nextId++;
      timers.set(id, { at: time + ms, fn });
      return id;
    },
    clearTimeout: (id) => timers.delete(id),
    pending: () => timers.size,
    delays,
    /** Moves the clock without firing anything: a laptop asleep, a frozen tab. */
    jump(ms) {
      time += ms;
    },
    async advance(ms) {
      const end = time + ms;
      for (;;) {
        await settle();
        const due = [...timers.entries()].filter(([, t]) => t.at <= end).sort((a, b) => a[1].at - b[1].at)[0];
        if (due === undefined) break;
        timers.delete(due[0]);
        time = Math.max(time, due[1].at);
        due[1].fn();
      }
      time = end;
      await settle();
    },
  };
}

/**
 * A fake service whose sessions live `ttlMs` on `clock`: logins and refreshes (a 202 naming
 * the new key, then the session sealed to it, or without a bundle in client-held mode),
 * revokes (202, then 204). `fail(request)` may answer instead; `delay` (a promise) holds
 * every answer until it settles.
 */
function fakeService(clock, { keys = 'sealed', ttlMs = 5 * MINUTE } = {}) {
  const sent = [];
  const refreshes = [];
  const state = { fail: undefined, delay: undefined };
  const pendings = new Map();
  const transport = async (request) => {
    sent.push(request);
    if (state.delay !== undefined) await state.delay;
    const failure = state.fail?.(request);
    if (failure !== undefined) return failure;
    const retry = request.headers['Request-Id'];
    if (retry !== undefined) {
      const leg = pendings.get(retry);
      if (leg.kind === 'revoke') return json(204);
      refreshes.push({ payload: leg.payload, stamp: request.headers['Service-Wallet-Signature'], path: request.path });
      return json(201, session(leg.target));
    }
    const requestId = `Request:${crypto.randomUUID()}`;
    if (request.path.endsWith('/refresh')) {
      const target = bodyOf(request).clientPublicKey;
      const payload = JSON.stringify({ parameters: { targetPublicKey: target }, nonce: requestId });
      pendings.set(requestId, { kind: 'refresh', target, payload });
      return json(202, { payloadToSign: payload, requestId, expiresAt: isoAt(Date.now() + MINUTE) });
    }
    pendings.set(requestId, { kind: 'revoke' });
    return json(202, { payloadToSign: JSON.stringify({ revoke: requestId }), requestId, expiresAt: isoAt(Date.now() + MINUTE) });
  };
  const session = (target) => (keys === 'client-held'
    ? sessionResponse({ omitBundle: true, expiresAt: isoAt(clock.now() + ttlMs) })
    : sessionResponse({ bundle: sealBundle(randomScalar(), target), expiresAt: isoAt(clock.now() + ttlMs) }));
  return { sent, refreshes, state, client: new WalletClient({ transport, keys }) };
}

/** A session opened through `client`'s login (a fake verify), expiring `ttlMs` from the clock. */
async function login(clock, keys, ttlMs = 5 * MINUTE) {
  const key = ClientKey.generate();
  const response = keys === 'client-held'
    ? sessionResponse({ omitBundle: true, type: 'OAUTH', expiresAt: isoAt(clock.now() + ttlMs) })
    : sessionResponse({ bundle: sealBundle(randomScalar(), key.publicKeyHex), expiresAt: isoAt(clock.now() + ttlMs) });
  const opener = new WalletClient({ keys, transport: () => json(200, response) });
  return keys === 'client-held' ? opener.verifyOauth(CRED, 'h.p.s', key) : opener.verifyEmailOtp(CRED, '123456', key);
}

/** Every event of `keeper`, in order, as [type, detail]. */
function record(keeper) {
  const events = [];
  for (const type of ['expiring', 'refreshed', 'expired', 'revoked', 'error']) keeper.on(type, (detail) => events.push([type, detail]));
  return events;
}

const freed = (session) => session.publicKeyHex === undefined;

describe('SessionKeeper with a fake clock and a fake service', () => {
  for (const keys of ['sealed', 'client-held']) {
    test(`${keys}: three refreshes in a row, each leadMs before expiresAt, signed by the session it replaces; the old one freed`, async () => {
      const clock = fakeClock();
      const service = fakeService(clock, { keys });
      const first = await login(clock, keys);
      const keeper = await SessionKeeper.start(service.client, first, { ...clock, document: null, window: null });
      const events = record(keeper);
      let current = first;
      for (let round = 1; round <= 3; round += 1) {
        await clock.advance(4 * MINUTE - 1000);
        assert.equal(service.refreshes.length, round - 1, `round ${round}: nothing before the lead time`);
        await clock.advance(1000);
        assert.equal(service.refreshes.length, round, `round ${round}: refreshed at expiresAt - 60 s`);
        const refresh = service.refreshes.at(-1);
        assert.equal(refresh.path, `/auth/sessions/${current.id}/refresh`);
        const expiring = events.filter(([type]) => type === 'expiring');
        assert.equal(expiring.length, round);
        assert.equal(expiring.at(-1)[1].msLeft, MINUTE);
        const [type, detail] = events.at(-1);
        assert.equal(type, 'refreshed');
        assert.equal(detail.previous, current);
        assert.equal(detail.session, keeper.session);
        assert.notEqual(keeper.session, current);
        assert.ok(freed(current), 'the replaced session is freed');
        assert.equal(keeper.session.expiresAt.getTime(), clock.now() + 5 * MINUTE);
        current = keeper.session;
      }
      assert.deepEqual(events.map(([type]) => type), ['expiring', 'refreshed', 'expiring', 'refreshed', 'expiring', 'refreshed']);
      assert.ok(clock.delays.every((ms) => ms <= 30_000), `no wait longer than maxWaitMs: ${clock.delays}`);
      keeper.stop();
      assert.equal(clock.pending(), 0);
      assert.equal(freed(current), false, 'stop() leaves the current session open');
      current.free();
    });
  }

  test('no refresh storm: a leadMs above the lifetime (60 s against 8 s sessions) refreshes at half the lifetime, at most once a second', async () => {
    const clock = fakeClock();
    const service = fakeService(clock, { ttlMs: 8_000 });
    const first = await login(clock, 'sealed', 8_000);
    const keeper = await SessionKeeper.start(service.client, first, { ...clock, document: null, window: null });
    await clock.advance(3_900);
    assert.equal(service.refreshes.length, 0, 'nothing before half the lifetime');
    await clock.advance(100);
    assert.equal(service.refreshes.length, 1, 'refreshed at half the lifetime');
    await clock.advance(16_000);
    assert.equal(service.refreshes.length, 5, `one refresh per 4 s: ${service.refreshes.length}`);
    assert.equal(keeper.stopped, false);
    assert.ok(keeper.session.expiresAt.getTime() - clock.now() > 0, 'the session kept is live');
    keeper.stop();
    keeper.session.free();
  });

  test('a session too short for the floor is refreshed no sooner than a second after the keeper took it', async () => {
    const clock = fakeClock();
    const service = fakeService(clock, { ttlMs: 1_500 });
    const first = await login(clock, 'sealed', 1_500);
    const keeper = await SessionKeeper.start(service.client, first, { ...clock, document: null, window: null, leadMs: 10_000 });
    await clock.advance(999);
    assert.equal(service.refreshes.length, 0, 'not younger than a second');
    await clock.advance(1);
    assert.equal(service.refreshes.length, 1);
    await clock.advance(3_000);
    assert.equal(service.refreshes.length, 4, 'at most one a second');
    keeper.stop();
    keeper.session.free();
  });

  test('the stamp of each refresh verifies under the public key of the session it replaced (checked in Node)', async () => {
    const clock = fakeClock();
    const service = fakeService(clock);
    const first = await login(clock, 'sealed');
    const keeper = await SessionKeeper.start(service.client, first, { ...clock, document: null, window: null });
    const keysBefore = [first.publicKeyHex];
    await clock.advance(4 * MINUTE);
    keysBefore.push(keeper.session.publicKeyHex);
    await clock.advance(4 * MINUTE);
    assert.equal(service.refreshes.length, 2);
    service.refreshes.forEach((r, i) => assert.ok(checkStamp(r.stamp, r.payload, keysBefore[i]).ok, `refresh ${i}`));
    keeper.stop();
  });

  test('an already expired session is never refreshed: expired, freed, stopped, nothing sent', async () => {
    const clock = fakeClock();
    const service = fakeService(clock);
    const session = await login(clock, 'sealed', 2 * MINUTE);
    clock.jump(2 * MINUTE);
    const keeper = await SessionKeeper.start(service.client, session, { ...clock, document: null, window: null });
    const events = record(keeper);
    await clock.advance(10 * MINUTE);
    assert.deepEqual(events.map(([type]) => type), ['expired']);
    assert.equal(events[0][1].session, session);
    assert.equal(service.sent.length, 0);
    assert.ok(keeper.stopped);
    assert.ok(freed(session));
    assert.equal(clock.pending(), 0);
  });

  test('a 401 on refresh is not retried: error (UNAUTHORIZED), then expired; stopped', async () => {
    const clock = fakeClock();
    const service = fakeService(clock);
    const session = await login(clock, 'sealed');
    const keeper = await SessionKeeper.start(service.client, session, { ...clock, document: null, window: null });
    const events = record(keeper);
    service.state.fail = () => json(401, { message: 'Session revoked' });
    await clock.advance(4 * MINUTE);
    assert.deepEqual(events.map(([type]) => type), ['expiring', 'error', 'expired']);
    const { error, retryInMs } = events[1][1];
    assert.ok(error instanceof KitError);
    assert.equal(error.code, 'UNAUTHORIZED');
    assert.equal(retryInMs, undefined);
    await clock.advance(10 * MINUTE);
    assert.equal(service.sent.length, 1, 'one request, never retried');
    assert.ok(keeper.stopped);
    assert.ok(freed(session));
  });

  test('transient failures are retried with backoff (doubling; Retry-After respected), then the refresh lands', async () => {
    const clock = fakeClock();
    const service = fakeService(clock);
    const session = await login(clock, 'sealed');
    const keeper = await SessionKeeper.start(service.client, session, { ...clock, document: null, window: null });
    const events = record(keeper);
    const answers = [json(503, { message: 'down' }), json(500, { message: 'down' }), json(429, { message: 'slow down' }, { 'Retry-After': '7' })];
    service.state.fail = () => answers.shift();
    await clock.advance(4 * MINUTE);
    await clock.advance(1000);
    await clock.advance(2000);
    const errors = events.filter(([type]) => type === 'error').map(([, d]) => [d.error.code, d.retryInMs]);
    assert.deepEqual(errors, [['SERVICE_ERROR', 1000], ['SERVICE_ERROR', 2000], ['RATE_LIMITED', 7000]]);
    await clock.advance(6999);
    assert.equal(service.refreshes.length, 0, 'not before Retry-After');
    await clock.advance(1);
    assert.equal(service.refreshes.length, 1);
    assert.equal(events.at(-1)[0], 'refreshed');
    assert.equal(events.filter(([type]) => type === 'expiring').length, 1, 'expiring once per session');
    keeper.stop();
  });

  test('a service down until expiry: retries stop at expiresAt with expired, never a refresh of the expired session', async () => {
    const clock = fakeClock();
    const service = fakeService(clock);
    const session = await login(clock, 'sealed');
    const keeper = await SessionKeeper.start(service.client, session, { ...clock, document: null, window: null, maxRetryMs: 20_000 });
    const events = record(keeper);
    service.state.fail = () => json(503, { message: 'down' });
    await clock.advance(10 * MINUTE);
    assert.equal(events.at(-1)[0], 'expired');
    const attempts = service.sent.length;
    // 1+2+4+8+16 s, then every 20 s inside the 60 s lead time.
    assert.ok(attempts >= 6 && attempts <= 8, `attempts: ${attempts}`);
    assert.ok(service.sent.every((r) => r.path === `/auth/sessions/${session.id}/refresh`));
    assert.ok(keeper.stopped);
    assert.equal(clock.pending(), 0);
  });

  test('a clock jump (no timer fired: the laptop slept) is caught up on visibilitychange, then on focus', async () => {
    const clock = fakeClock();
    const service = fakeService(clock);
    const doc = new EventTarget();
    const win = new EventTarget();
    const session = await login(clock, 'sealed');
    const keeper = await SessionKeeper.start(service.client, session, { ...clock, document: doc, window: win });
    const events = record(keeper);
    await clock.advance(1000);
    clock.jump(4 * MINUTE + 9_000); // 50 s left; the 30 s timer has not fired
    assert.equal(service.sent.length, 0);
    doc.dispatchEvent(new Event('visibilitychange'));
    await settle();
    assert.deepEqual(events.map(([type]) => type), ['expiring', 'refreshed']);
    assert.equal(events[0][1].msLeft, 50_000);
    // Past the new session's expiry in one jump: focus ends it without a refresh.
    const current = keeper.session;
    const sentBefore = service.sent.length;
    clock.jump(6 * MINUTE);
    win.dispatchEvent(new Event('focus'));
    await settle();
    assert.deepEqual(events.map(([type]) => type), ['expiring', 'refreshed', 'expired']);
    assert.equal(events.at(-1)[1].session, current);
    assert.equal(service.sent.length, sentBefore, 'the expired session was not refreshed');
    assert.ok(keeper.stopped);
    // Stopped: later wake-ups do nothing.
    doc.dispatchEvent(new Event('visibilitychange'));
    await settle();
    assert.equal(events.length, 3);
  });

  test('revoke(): revokes the current session at the service, frees it, emits revoked, stops', async () => {
    const clock = fakeClock();
    const service = fakeService(clock);
    const session = await login(clock, 'sealed');
    const keeper = await SessionKeeper.start(service.client, session, { ...clock, document: null, window: null });
    const events = record(keeper);
    await keeper.revoke();
    assert.deepEqual(events.map(([type]) => type), ['revoked']);
    assert.equal(events[0][1].session, session);
    assert.ok(freed(session));
    assert.ok(keeper.stopped);
    assert.equal(clock.pending(), 0);
    assert.equal(service.sent.length, 2, '202, then the signed retry');
    assert.equal(service.sent[0].path.includes(session.id), true);
  });

  test('stop() while a refresh is in flight: the refresh still lands (refreshed, the old session freed), then nothing more', async () => {
    const clock = fakeClock();
    const service = fakeService(clock);
    const session = await login(clock, 'sealed');
    const keeper = await SessionKeeper.start(service.client, session, { ...clock, document: null, window: null });
    const events = record(keeper);
    let release;
    const gate = new Promise((resolve) => { release = resolve; });
    service.state.delay = gate;
    await clock.advance(4 * MINUTE);
    assert.deepEqual(events.map(([type]) => type), ['expiring']);
    assert.equal(service.sent.length, 1, 'the refresh is waiting for the service');
    keeper.stop();
    release();
    await settle();
    assert.deepEqual(events.map(([type]) => type), ['expiring', 'refreshed']);
    assert.ok(freed(session));
    assert.notEqual(keeper.session, session);
    assert.ok(keeper.stopped);
    await clock.advance(10 * MINUTE);
    assert.equal(clock.pending(), 0);
    assert.equal(events.length, 2);
    keeper.session.free();
  });

  test('stop(): no more timers or wake-ups; on() returns a remover; bad arguments are INVALID_INPUT', async () => {
    const clock = fakeClock();
    const service = fakeService(clock);
    const doc = new EventTarget();
    const session = await login(clock, 'sealed');
    const keeper = await SessionKeeper.start(service.client, session, { ...clock, document: doc, window: null });
    let seen = 0;
    const off = keeper.on('expiring', () => { seen += 1; });
    off();
    await clock.advance(1000);
    keeper.stop();
    assert.equal(clock.pending(), 0);
    clock.jump(10 * MINUTE);
    doc.dispatchEvent(new Event('visibilitychange'));
    await settle();
    assert.equal(service.sent.length, 0);
    assert.equal(seen, 0);
    const bad = (promise, re) => assert.rejects(promise, (e) => e instanceof KitError && e.code === 'INVALID_INPUT' && re.test(e.message));
    await bad(SessionKeeper.start({}, session), /client must be a WalletClient/);
    await bad(SessionKeeper.start(service.client, {}), /session must be a Session/);
    await bad(SessionKeeper.start(service.client, session, { leadMs: -1 }), /leadMs/);
    await bad(SessionKeeper.start(service.client, session, { now: 5 }), /now must be a function/);
    await bad(SessionKeeper.start(service.client, session, { document: {} }), /document must be an EventTarget/);
    assert.throws(() => keeper.on('refreshing', () => {}), (e) => e.code === 'INVALID_INPUT' && /type must be one of/.test(e.message));
    assert.throws(() => new SessionKeeper(), (e) => e.code === 'INVALID_INPUT' && /SessionKeeper\.start/.test(e.message));
    assert.ok(keeper instanceof SessionKeeper);
    session.free();
  });
});

describe('SessionKeeper against the strict emulator (3 s sessions, the real clock)', () => {
  for (const keys of ['sealed', 'client-held']) {
    test(`${keys}: kept alive across three refreshes, then revoked; the service refuses the revoked session`, async () => {
      const emulator = await startEmulator(['--session-ttl-secs', '3']);
      try {
        const { call, transport, sent } = emulatorApi(emulator.origin);
        const { otpSignerPublicKey } = (await call('GET', '/emulator/config')).body;
        const client = new WalletClient({ transport, keys, otpSignerPin: otpSignerPublicKey });
        const account = (await call('POST', '/emulator/accounts', {})).body;
        const email = await client.createEmailOtp(account.accountId);
        // Client-held: the encrypted OTP login needs the challenge's target bundle.
        if (keys === 'client-held') await client.challenge(email.id);
        const otp = (await call('GET', `/emulator/outbox?accountId=${encodeURIComponent(account.accountId)}`)).body.at(-1).otp;
        const first = await client.verifyEmailOtp(email.id, otp);
        const keeper = await SessionKeeper.start(client, first, { leadMs: 2000, document: null, window: null });
        const events = record(keeper);
        const ids = [first.id];
        keeper.on('refreshed', ({ session }) => ids.push(session.id));
        const deadline = Date.now() + 15_000;
        while (ids.length < 4 && Date.now() < deadline) await sleep(100);
        assert.equal(ids.length, 4, `three refreshes: ${events.map(([t, d]) => (t === 'error' ? `error ${d.error.code}` : t))}`);
        assert.equal(new Set(ids).size, 4);
        assert.equal(events.some(([type]) => type === 'expired' || type === 'error'), false);
        assert.equal(keeper.session.isExpired(), false, 'alive after more than one TTL');
        // The latest session signs at the service; then revoke through the keeper.
        const live = keeper.session;
        await keeper.revoke();
        assert.ok(events.some(([type]) => type === 'revoked'));
        assert.ok(freed(live));
        const direct = await call('POST', `/auth/sessions/${live.id}/refresh`, { clientPublicKey: ClientKey.generate().publicKeyHex });
        assert.equal(direct.status, 401, 'the service refuses the revoked session');
        assert.ok(sent.filter((r) => r.path.endsWith('/refresh')).length >= 6, 'each refresh is a 202 and a signed retry');
      } finally {
        emulator.proc.kill('SIGTERM');
      }
    });
  }
});
