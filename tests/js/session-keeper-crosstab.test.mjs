// SessionKeeper over a StoredSession, across tabs, in Node with fakes: each "tab" is its
// own SessionStore on one shared in-memory IndexedDB (readwrite transactions serialized, as
// in a browser) with Node's real BroadcastChannel between them, its own WalletClient over
// one fake service, and a fake clock. The refresh lock is a fake LockManager (Web Locks) or
// none (the lease in the session's record). Checked: two tabs due at once → one refresh,
// the other adopts (`refreshed` with elsewhere) and never signs with the replaced session;
// a tab waiting for the lock (or lease) adopts the other's result; the wait is bounded; an
// abandoned lease is taken over; a logout (keeper.revoke, store.clear) in one tab ends the
// keepers of the others (`revoked` with fromStore) and their signing is SESSION_CLOSED; with
// no BroadcastChannel, the same is seen on the next read of the store; a logout while
// another tab's refresh lands leaves neither session in the store nor the new
// one live at the service, and a deletion of only an older session of the chain (an older
// kit's logout) ends the keeper of its replacement. Also WalletClient
// with a StoredSession (async signing; revokeSession deletes it from the store).
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { init, ClientKey, KitError, WalletClient, SessionKeeper, SessionStore } from '../../pkg/node.js';
import { sessionResponse, randomScalar, sealBundle, checkStamp, pending202 } from '../support/fixtures.mjs';
import { memoryIndexedDB } from '../support/memory-indexeddb.mjs';
import { eventually } from '../support/eventually.mjs';

await init();

const MINUTE = 60_000;
const CRED = `AuthMethod:${crypto.randomUUID()}`;
const json = (status, body) => ({ status, headers: {}, body: body === undefined ? '' : JSON.stringify(body) });
const bodyOf = (request) => (request.body === undefined ? undefined : JSON.parse(request.body));
const isoAt = (ms) => new Date(ms).toISOString();
const kitError = (code) => (e) => e instanceof KitError && e.code === code;
/** Lets the store's IndexedDB steps (each a few timer ticks), WebCrypto and the channel run. */
const settle = () => sleep(100);

/** A fake wall clock whose timers fire as `advance` moves it (those due at one instant together). */
function fakeClock(start = Date.now()) {
  let time = start;
  let nextId = 1;
  const timers = new Map();
  return {
    now: () => time,
    setTimeout: (fn, ms) => {
      const id = nextId++;
      timers.set(id, { at: time + ms, fn });
      return id;
    },
    clearTimeout: (id) => timers.delete(id),
    async advance(ms) {
      const end = time + ms;
      for (;;) {
        await settle();
        const due = [...timers.entries()].filter(([, t]) => t.at <= end).sort((a, b) => a[1].at - b[1].at);
        if (due.length === 0) break;
        // Timers due at the same instant fire together (two tabs due at once), in order.
        const at = due[0][1].at;
        time = Math.max(time, at);
        for (const [id, timer] of due.filter(([, t]) => t.at === at)) {
          if (!timers.delete(id)) continue; // cleared by a timer fired just before
          timer.fn();
        }
      }
      time = end;
      await settle();
    },
  };
}

/** A LockManager with request(name, { signal }, callback): one holder per name, FIFO. */
function fakeLocks() {
  const tails = new Map();
  const requests = [];
  return {
    requests,
    async request(name, options, callback) {
      requests.push(name);
      const before = tails.get(name) ?? Promise.resolve();
      let release;
      const mine = new Promise((resolve) => {
        release = resolve;
      });
      tails.set(name, before.then(() => mine));
      await new Promise((resolve, reject) => {
        let settled = false;
        before.then(() => {
          if (!settled) {
            settled = true;
            resolve();
          }
        });
        options?.signal?.addEventListener('abort', () => {
          if (settled) return;
          settled = true;
          release();
          reject(options.signal.reason);
        });
      });
      try {
        return await callback({ name });
      } finally {
        release();
      }
    },
  };
}

/**
 * A fake service whose sessions live `ttlMs` on `clock`: refreshes (a 202 naming the new
 * key, then the session sealed to it) and any other signed request (202, then 204).
 * `hold` (a promise) delays every refresh's first answer until it settles; `holdOnce` only
 * the next one's; `holdRetryOnce` the next refresh's signed retry (its session already made);
 * `holdRevokeOnce` the next DELETE's (a revoke's) first answer (a 401 with `refuseHeldRevoke`).
 */
function fakeService(clock, { ttlMs = 5 * MINUTE } = {}) {
  const sent = [];
  const refreshes = [];
  const signed = [];
  const state = { hold: undefined };
  const pendings = new Map();
  const transport = async (request) => {
    sent.push(request);
    const retry = request.headers['Request-Id'];
    if (retry !== undefined) {
      const leg = pendings.get(retry);
      if (leg.kind === 'refresh' && state.holdRetryOnce !== undefined) {
        const hold = state.holdRetryOnce;
        state.holdRetryOnce = undefined;
        await hold;
      }
      signed.push({ ...leg, stamp: request.headers['Service-Wallet-Signature'], path: request.path });
      if (leg.kind === 'other') return json(204);
      refreshes.push(leg);
      return json(201, sessionResponse({ bundle: sealBundle(randomScalar(), leg.target), expiresAt: isoAt(clock.now() + ttlMs) }));
    }
    const requestId = `Request:${crypto.randomUUID()}`;
    if (request.path.endsWith('/refresh')) {
      if (state.hold !== undefined) await state.hold;
      if (state.holdOnce !== undefined) {
        const hold = state.holdOnce;
        state.holdOnce = undefined;
        await hold;
      }
      const target = bodyOf(request).clientPublicKey;
      const payload = JSON.stringify({ parameters: { targetPublicKey: target }, nonce: requestId });
      pendings.set(requestId, { kind: 'refresh', target, payload });
      return json(202, { payloadToSign: payload, requestId, expiresAt: isoAt(Date.now() + MINUTE) });
    }
    if (request.method === 'DELETE' && state.holdRevokeOnce !== undefined) {
      const hold = state.holdRevokeOnce;
      state.holdRevokeOnce = undefined;
      await hold;
      if (state.refuseHeldRevoke) return json(401, { code: 'UNAUTHORIZED', message: 'session replaced' });
    }
    const payload = JSON.stringify({ other: requestId });
    pendings.set(requestId, { kind: 'other', payload });
    return json(202, { payloadToSign: payload, requestId, expiresAt: isoAt(Date.now() + MINUTE) });
  };
  const refreshCalls = () => sent.filter((r) => r.path.endsWith('/refresh') && r.headers['Request-Id'] === undefined);
  return { sent, refreshes, signed, state, transport, refreshCalls };
}

/** A session from a fake login, expiring `ttlMs` from the clock. */
function login(clock, ttlMs = 5 * MINUTE) {
  const key = ClientKey.generate();
  const response = sessionResponse({ bundle: sealBundle(randomScalar(), key.publicKeyHex), expiresAt: isoAt(clock.now() + ttlMs) });
  return new WalletClient({ transport: () => json(200, response) }).verifyEmailOtp(CRED, '123456', key);
}

function record(keeper) {
  const events = [];
  for (const type of ['expiring', 'refreshed', 'expired', 'revoked', 'error']) keeper.on(type, (detail) => events.push([type, detail]));
  return events;
}

/**
 * `count` tabs keeping one stored session: tab 0 logs in and saves it, the others load it
 * from their own store. `locks`: a shared fake LockManager, or null (the lease).
 */
async function tabs(count, { locks, clock = fakeClock(), service = fakeService(clock), keeperOptions = {}, indexedDB } = {}) {
  const db = indexedDB ?? memoryIndexedDB({ serializeWrites: true });
  const name = `crosstab-${crypto.randomUUID()}`;
  const session = await login(clock);
  const stores = [];
  for (let i = 0; i < count; i++) stores.push(await SessionStore.open({ indexedDB: db, name }));
  const saved = await stores[0].save(session);
  session.free();
  const result = [];
  for (const [i, store] of stores.entries()) {
    const stored = i === 0 ? saved : await store.load(saved.id);
    const client = new WalletClient({ transport: service.transport });
    const keeper = await SessionKeeper.start(client, stored, {
      ...clock, document: null, window: null, locks, ...keeperOptions,
    });
    result.push({ store, client, keeper, first: stored, events: record(keeper) });
  }
  return { clock, service, db, name, tabs: result, firstId: saved.id, close: () => result.forEach((t) => { t.keeper.stop(); t.store.close(); }) };
}

const lockModes = [['Web Locks (fake LockManager)', () => fakeLocks()], ['no Web Locks: the lease in IndexedDB', () => null]];

describe('SessionKeeper with a StoredSession across tabs', () => {
  for (const [mode, makeLocks] of lockModes) {
    test(`${mode}: two tabs due at once → one refresh; the other adopts it and never signs with the replaced session`, async () => {
      const locks = makeLocks();
      const { clock, service, tabs: [a, b], firstId, name, close } = await tabs(2, { locks });
      await clock.advance(4 * MINUTE); // both reach the lead time together
      await clock.advance(1000);
      assert.equal(service.refreshCalls().length, 1, 'one refresh request for both tabs');
      assert.equal(service.refreshes.length, 1);
      assert.ok(checkStamp(service.signed[0].stamp, service.signed[0].payload, a.first.publicKeyHex).ok, 'signed by the session it replaced');
      const refreshedA = a.events.filter(([t]) => t === 'refreshed');
      const refreshedB = b.events.filter(([t]) => t === 'refreshed');
      assert.equal(refreshedA.length, 1, `tab A: ${a.events.map(([t]) => t)}`);
      assert.equal(refreshedB.length, 1, `tab B: ${b.events.map(([t]) => t)}`);
      const [refresher, adopter] = refreshedA[0][1].elsewhere ? [b, a] : [a, b];
      const [, mine] = refresher.events.find(([t]) => t === 'refreshed');
      const [, theirs] = adopter.events.find(([t]) => t === 'refreshed');
      assert.equal(mine.elsewhere, undefined, 'the tab that refreshed');
      assert.equal(theirs.elsewhere, true, 'the tab that adopted');
      assert.notEqual(mine.session.id, firstId);
      assert.equal(theirs.session.id, mine.session.id, 'both tabs keep the same new session');
      assert.equal(theirs.previous.id, firstId);
      assert.equal(a.keeper.session.id, b.keeper.session.id);
      for (const tab of [a, b]) {
        assert.ok(!tab.events.some(([t]) => t === 'error' || t === 'expired'), `${tab.events.map(([t]) => t)}`);
        // The replaced session is refused in both tabs; the new one signs.
        await assert.rejects(tab.first.stamp('old'), (e) => kitError('SESSION_CLOSED')(e) && /replaced by a refresh/.test(e.message));
        assert.ok(checkStamp(await tab.keeper.session.stamp('new'), 'new', tab.keeper.session.publicKeyHex).ok);
      }
      // One lock, named after the store and the session, that both tabs asked for.
      if (locks) assert.deepEqual(locks.requests, [`embedded-wallet-kit/session-refresh/${name}/${firstId}`, `embedded-wallet-kit/session-refresh/${name}/${firstId}`]);
      // Both keep going on the new session: the next refresh is one again.
      await clock.advance(4 * MINUTE);
      await eventually(() => assert.equal(a.keeper.session.id, b.keeper.session.id));
      assert.equal(service.refreshCalls().length, 2);
      assert.equal((await a.store.load(firstId)).id, a.keeper.session.id, 'the replaced id loads the session that replaced it (twice)');
      assert.deepEqual((await a.store.list()).map((s) => s.id), [a.keeper.session.id], 'one session in the store');
      close();
    });

    test(`${mode}: a tab whose refresh is held by the other tab's waits, then adopts its result (no refresh of its own)`, async () => {
      const locks = makeLocks();
      const clock = fakeClock();
      const service = fakeService(clock);
      let release;
      service.state.hold = new Promise((resolve) => {
        release = resolve;
      });
      // Tab B's refresh comes due 5 s after tab A's.
      const { tabs: [a, b], close } = await tabs(2, { locks, clock, service });
      b.keeper.stop();
      const lateB = await SessionKeeper.start(b.client, b.first, { ...clock, document: null, window: null, locks, leadMs: 55_000 });
      const eventsB = record(lateB);
      await clock.advance(4 * MINUTE); // A starts refreshing; the service holds it
      assert.equal(service.refreshCalls().length, 1);
      await clock.advance(6000); // B is due: it finds the lock (or lease) taken and waits
      assert.equal(service.refreshCalls().length, 1, 'B did not refresh');
      assert.deepEqual(eventsB.map(([t]) => t), ['expiring']);
      service.state.hold = undefined;
      release();
      await clock.advance(1000);
      assert.equal(service.refreshCalls().length, 1, 'still one refresh');
      assert.deepEqual(eventsB.map(([t]) => t), ['expiring', 'refreshed']);
      assert.equal(eventsB[1][1].elsewhere, true);
      assert.equal(lateB.session.id, a.keeper.session.id);
      lateB.stop();
      close();
    });

    test(`${mode}: the wait for another tab's refresh is bounded (lockWaitMs): a transient error, retried, then adoption`, async () => {
      const locks = makeLocks();
      const clock = fakeClock();
      const service = fakeService(clock);
      let release;
      service.state.hold = new Promise((resolve) => {
        release = resolve;
      });
      const { tabs: [a], close, db, name } = await tabs(1, { locks, clock, service });
      // A second tab on the same store, due 5 s later, waiting at most 2 s.
      const storeB = await SessionStore.open({ indexedDB: db, name });
      const clientB = new WalletClient({ transport: service.transport });
      const keeperB = await SessionKeeper.start(clientB, await storeB.load(a.first.id), {
        ...clock, document: null, window: null, locks, leadMs: 55_000, lockWaitMs: 2000, retryMs: 1000,
      });
      const eventsB = record(keeperB);
      await clock.advance(4 * MINUTE + 5000 + 2500);
      const errors = eventsB.filter(([t]) => t === 'error');
      assert.ok(errors.length >= 1, `B: ${eventsB.map(([t]) => t)}`);
      assert.ok(kitError('SERVICE_ERROR')(errors[0][1].error) && /lockWaitMs/.test(errors[0][1].error.message), String(errors[0][1].error));
      assert.equal(typeof errors[0][1].retryInMs, 'number', 'retried');
      assert.equal(service.refreshCalls().length, 1, 'B never refreshed itself');
      service.state.hold = undefined;
      release();
      await clock.advance(3000);
      assert.equal(service.refreshCalls().length, 1);
      assert.equal(keeperB.session.id, a.keeper.session.id, 'B adopted A\'s session');
      assert.equal(eventsB.filter(([t]) => t === 'refreshed').length, 1);
      keeperB.stop();
      storeB.close();
      close();
    });

    test(`${mode}: logout in one tab (keeper.revoke) ends the others: revoked (fromStore), signing SESSION_CLOSED, nothing sent`, async () => {
      const { service, tabs: [a, b, c], close } = await tabs(3, { locks: makeLocks() });
      await a.keeper.revoke();
      await settle();
      const revokes = service.sent.filter((r) => r.path === `/auth/sessions/${a.first.id}` && r.headers['Request-Id'] === undefined);
      assert.equal(revokes.length, 1, 'revoked once at the service');
      assert.deepEqual(a.events.map(([t, d]) => [t, d.fromStore]), [['revoked', undefined]]);
      for (const tab of [b, c]) {
        assert.deepEqual(tab.events.map(([t, d]) => [t, d.fromStore]), [['revoked', true]]);
        assert.equal(tab.keeper.stopped, true);
        await assert.rejects(tab.first.stamp('x'), (e) => kitError('SESSION_CLOSED')(e) && /deleted from the store/.test(e.message));
        const before = service.sent.length;
        await assert.rejects(tab.client.request({ method: 'POST', path: '/x', body: {} }, tab.keeper.session), kitError('SESSION_CLOSED'));
        assert.equal(service.sent.length, before, 'nothing sent');
      }
      assert.equal(await b.store.load(a.first.id), null);
      close();
    });
  }

  for (const how of ['store.clear()', 'store.delete(id)']) {
    test(`${how} in one tab (logout everywhere) ends every tab's keeper`, async () => {
      const { tabs: [a, b], firstId, close } = await tabs(2, { locks: fakeLocks() });
      if (how === 'store.clear()') await a.store.clear();
      else await a.store.delete(firstId);
      await settle();
      for (const tab of [a, b]) {
        assert.deepEqual(tab.events.map(([t, d]) => [t, d.fromStore]), [['revoked', true]]);
        assert.equal(tab.keeper.stopped, true);
        await assert.rejects(tab.first.stamp('x'), kitError('SESSION_CLOSED'));
      }
      close();
    });
  }

  // Logout while another tab refreshes: the replacement must not outlive the logout.
  const hold = () => {
    let release;
    const promise = new Promise((resolve) => {
      release = resolve;
    });
    return { promise, release };
  };
  const deletes = (service) => service.sent.filter((r) => r.method === 'DELETE' && r.headers['Request-Id'] === undefined).map((r) => r.path);

  for (const how of ['keeper.revoke()', 'client.revokeSession(stored)', 'client.revokeSession(stored), the service refusing the replaced session (401)']) {
    test(`logout in tab A (${how}) while tab B's refresh lands: both keepers end, the store is empty, the new session is revoked at the service`, async () => {
      const clock = fakeClock();
      const service = fakeService(clock);
      const refreshHeld = hold();
      const revokeHeld = hold();
      service.state.holdRetryOnce = refreshHeld.promise;
      const { tabs: [a, b], firstId, close } = await tabs(2, { locks: fakeLocks(), clock, service });
      // Only B is due at the lead time: A (leadMs 10 s) is not refreshing when it logs out.
      a.keeper.stop();
      const keeperA = await SessionKeeper.start(a.client, a.first, { ...clock, document: null, window: null, locks: fakeLocks(), leadMs: 10_000 });
      const eventsA = record(keeperA);
      await clock.advance(4 * MINUTE); // B refreshes; the service holds its signed retry
      assert.equal(service.refreshCalls().length, 1);
      service.state.holdRevokeOnce = revokeHeld.promise;
      service.state.refuseHeldRevoke = how.endsWith('(401)');
      const logout = how === 'keeper.revoke()' ? keeperA.revoke() : a.client.revokeSession(a.first);
      await eventually(() => assert.deepEqual(deletes(service), [`/auth/sessions/${firstId}`]));
      // B's refresh lands while A's revoke is at the service: X is replaced by Y in the store.
      refreshHeld.release();
      await eventually(() => assert.notEqual(b.keeper.session.id, firstId));
      const newId = b.keeper.session.id;
      revokeHeld.release();
      await logout;
      await settle();
      await eventually(() => assert.equal(b.keeper.stopped, true, `B: ${b.events.map(([t]) => t)}`));
      assert.deepEqual(b.events.map(([t, d]) => [t, d.fromStore]), [['expiring', undefined], ['refreshed', undefined], ['revoked', true]]);
      if (how === 'keeper.revoke()') assert.deepEqual(eventsA.map(([t, d]) => [t, d.fromStore]), [['revoked', undefined]]);
      else {
        // A's keeper, still running, adopted Y when B's refresh landed; the logout ends it.
        assert.deepEqual(eventsA.map(([t, d]) => [t, d.fromStore ?? d.elsewhere]), [['refreshed', true], ['revoked', true]]);
      }
      assert.equal(keeperA.stopped, true);
      assert.deepEqual(await a.store.list(), [], 'nothing left in the store (tab A)');
      assert.deepEqual(await b.store.list(), [], 'nothing left in the store (tab B)');
      assert.ok(deletes(service).includes(`/auth/sessions/${newId}`), `the replacement was revoked at the service: ${deletes(service)}`);
      await assert.rejects(b.keeper.session.stamp('x'), kitError('SESSION_CLOSED'));
      keeperA.stop();
      close();
    });
  }

  for (const how of ['StoredSession.delete()', 'store.delete(id)']) {
    test(`${how} of a session another tab already replaced deletes the replacement too (store level)`, async () => {
      const { clock, service, tabs: [a, b], firstId, close } = await tabs(2, { locks: fakeLocks() });
      a.keeper.stop();
      await clock.advance(4 * MINUTE); // B refreshes: X becomes a tombstone naming Y
      const newId = b.keeper.session.id;
      assert.notEqual(newId, firstId);
      assert.equal(service.refreshes.length, 1);
      // A, which has not adopted Y, logs out with its stale handle on X.
      if (how === 'StoredSession.delete()') await a.first.delete();
      else await a.store.delete(firstId);
      await settle();
      assert.deepEqual(await a.store.list(), []);
      assert.deepEqual(await b.store.list(), []);
      assert.equal(await b.store.load(newId), null);
      await assert.rejects(b.keeper.session.stamp('x'), (e) => kitError('SESSION_CLOSED')(e) && /deleted from the store/.test(e.message));
      const stale = await a.store.load(newId);
      assert.equal(stale, null);
      assert.deepEqual(b.events.map(([t, d]) => [t, d.fromStore]), [['expiring', undefined], ['refreshed', undefined], ['revoked', true]]);
      close();
    });
  }

  test('a deletion of only an older session of the chain (a tab of an older kit logging out) ends the keeper of its replacement and revokes it', async () => {
    const { clock, service, db, name, tabs: [a, b], firstId, close } = await tabs(2, { locks: fakeLocks() });
    a.keeper.stop();
    await clock.advance(4 * MINUTE); // B refreshes: X becomes a tombstone naming Y
    const newId = b.keeper.session.id;
    assert.notEqual(newId, firstId);
    // What a kit that deleted one record did: X's tombstone gone, Y left, `deleted: [X]` announced.
    [...db.databases.values()][0].get('sessions').rows.delete(firstId);
    const oldTab = new BroadcastChannel(`embedded-wallet-kit/session-store/${name}`);
    oldTab.postMessage({ deleted: [firstId] });
    oldTab.close();
    await eventually(() => assert.equal(b.keeper.stopped, true, `B: ${b.events.map(([t]) => t)}`));
    assert.deepEqual(b.events.map(([t, d]) => [t, d.fromStore]), [['expiring', undefined], ['refreshed', undefined], ['revoked', true]]);
    await eventually(async () => assert.deepEqual(await b.store.list(), []));
    assert.deepEqual(await a.store.list(), []);
    assert.ok(deletes(service).includes(`/auth/sessions/${newId}`), `Y revoked at the service: ${deletes(service)}`);
    await assert.rejects(b.keeper.session.stamp('x'), kitError('SESSION_CLOSED'));
    close();
  });

  for (const leg of ['202', 'signed retry']) {
    test(`a lease that outlived leaseMs under a slow refresh (held at its ${leg}): the other tab refreshes; the slow tab adopts its session`, async () => {
      const clock = fakeClock();
      const service = fakeService(clock);
      let release;
      service.state[leg === '202' ? 'holdOnce' : 'holdRetryOnce'] = new Promise((resolve) => {
        release = resolve;
      });
      const { tabs: [a], db, name, close } = await tabs(1, { locks: null, clock, service, keeperOptions: { leaseMs: 2000 } });
      const storeB = await SessionStore.open({ indexedDB: db, name });
      const keeperB = await SessionKeeper.start(new WalletClient({ transport: service.transport }), await storeB.load(a.first.id), {
        ...clock, document: null, window: null, locks: null, leadMs: 55_000, leaseMs: 2000,
      });
      const eventsB = record(keeperB);
      await clock.advance(4 * MINUTE); // A takes the lease and refreshes; the service holds it
      await clock.advance(6000); // A's lease expired at +2 s: B, due at +5 s, takes it over and refreshes
      assert.equal(service.refreshCalls().length, 2);
      assert.deepEqual(eventsB.map(([type, d]) => [type, d.elsewhere]), [['expiring', undefined], ['refreshed', undefined]]);
      release();
      await clock.advance(1000);
      await eventually(() => assert.equal(a.keeper.session.id, keeperB.session.id, "A adopted B's session"));
      assert.deepEqual(a.events.map(([type, d]) => [type, d.elsewhere]), [['expiring', undefined], ['refreshed', true]]);
      const revokes = service.sent.filter((r) => r.method === 'DELETE' && r.headers['Request-Id'] === undefined);
      if (leg === '202') {
        // A's session was replaced before it signed the 202: SESSION_CLOSED, no new session.
        assert.equal(service.refreshes.length, 1);
        assert.equal(revokes.length, 0);
      } else {
        // A got a session too, which nobody keeps: revoked at the service.
        assert.equal(service.refreshes.length, 2);
        assert.equal(revokes.length, 1, 'A revoked the session it got but could not keep');
        assert.notEqual(revokes[0].path, `/auth/sessions/${keeperB.session.id}`);
      }
      assert.deepEqual((await storeB.list()).map((st) => st.id), [keeperB.session.id]);
      keeperB.stop();
      storeB.close();
      close();
    });
  }

  test('an abandoned lease (its tab closed mid-refresh) is taken over once it expires (leaseMs)', async () => {
    const clock = fakeClock();
    const { service, tabs: [a], db, firstId, close } = await tabs(1, { locks: null, clock, keeperOptions: { leaseMs: 10_000 } });
    // Another tab took the lease and died: its record says so, for 10 s from now + 4 min.
    const [rows] = [[...db.databases.values()][0].get('sessions').rows];
    rows.get(firstId).lease = { owner: 'dead-tab', until: clock.now() + 4 * MINUTE + 10_000 };
    await clock.advance(4 * MINUTE + 5000);
    assert.equal(service.refreshCalls().length, 0, 'the lease is respected while it lasts');
    await clock.advance(6000);
    assert.equal(service.refreshCalls().length, 1, 'taken over after it expired');
    // The refresh is under way: its signing (WebCrypto, then the check) ends in real time.
    await eventually(() => assert.deepEqual(a.events.map(([t]) => t), ['expiring', 'refreshed']));
    close();
  });

  test('without BroadcastChannel: another tab\'s refresh and logout are seen on the next read of the store', async (t) => {
    const channel = globalThis.BroadcastChannel;
    globalThis.BroadcastChannel = undefined;
    t.after(() => {
      globalThis.BroadcastChannel = channel;
    });
    const { clock, service, tabs: [a, b], firstId, close } = await tabs(2, { locks: null });
    globalThis.BroadcastChannel = channel;
    // A refreshes 10 s before B is due (B: leadMs 50 s): B reads the store at its next check.
    b.keeper.stop();
    const keeperB = await SessionKeeper.start(b.client, b.first, { ...clock, document: null, window: null, locks: null, leadMs: 50_000, maxWaitMs: 5000 });
    const eventsB = record(keeperB);
    await clock.advance(4 * MINUTE);
    assert.equal(service.refreshCalls().length, 1);
    const newId = a.keeper.session.id;
    assert.notEqual(newId, firstId);
    // B has not read the store yet: its (replaced) session is refused on its own read.
    await assert.rejects(b.first.stamp('x'), (e) => kitError('SESSION_CLOSED')(e) && /replaced/.test(e.message));
    await clock.advance(5000);
    assert.deepEqual(eventsB.map(([type, d]) => [type, d.elsewhere]), [['refreshed', true]]);
    assert.equal(keeperB.session.id, newId);
    assert.equal(service.refreshCalls().length, 1);
    // Logout in A: B ends at its next check.
    await a.keeper.revoke();
    await clock.advance(5000);
    assert.deepEqual(eventsB.map(([type, d]) => [type, d.fromStore ?? d.elsewhere]), [['refreshed', true], ['revoked', true]]);
    await assert.rejects(keeperB.session.stamp('x'), (e) => kitError('SESSION_CLOSED')(e) && /deleted/.test(e.message));
    keeperB.stop();
    close();
  });
});

describe('WalletClient with a StoredSession', () => {
  test('signs a 202 asynchronously (the stamp verifies), refreshes to an in-memory Session, and revokeSession deletes it from the store', async () => {
    const clock = fakeClock();
    const service = fakeService(clock);
    const store = await SessionStore.open({ indexedDB: memoryIndexedDB(), name: 'client' });
    const session = await login(clock);
    const stored = await store.save(session);
    session.free();
    const client = new WalletClient({ transport: service.transport });
    const response = await client.request({ method: 'PATCH', path: '/internal-accounts/x', body: { a: 1 } }, stored);
    assert.equal(response.status, 204);
    assert.ok(checkStamp(service.signed[0].stamp, service.signed[0].payload, stored.publicKeyHex).ok);
    const fresh = await client.refresh(stored);
    assert.equal(typeof fresh.free, 'function', 'an in-memory Session');
    assert.ok(checkStamp(service.signed[1].stamp, service.signed[1].payload, stored.publicKeyHex).ok);
    fresh.free();
    await client.revokeSession(stored);
    assert.equal(await store.load(stored.id), null, 'deleted from the store');
    await assert.rejects(stored.signRetry(pending202()), kitError('SESSION_CLOSED'));
    const before = service.sent.length;
    await assert.rejects(client.request({ method: 'POST', path: '/x', body: {} }, stored), kitError('SESSION_CLOSED'));
    assert.equal(service.sent.length, before, 'nothing sent with a deleted session');
    await assert.rejects(client.request({ method: 'POST', path: '/x', body: {} }, { id: 'Session:x' }), kitError('INVALID_INPUT'));
    store.close();
  });
});
