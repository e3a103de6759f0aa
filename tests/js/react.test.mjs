// embedded-wallet-kit/react in Node: the framework-free WalletStore the hooks read
// (pkg/react-store.js) with a fake kit (init, WalletClient, SessionKeeper), StrictMode's
// setup/cleanup/setup on one store, single-flight login, the keeper's lifecycle; with the
// real kit, StoredSessions (never freed or deleted implicitly, logout deleting them, a
// keeper adopting another tab's refresh); the provider and hooks rendered on the server
// (react-dom/server: no effect, no init); and that the core entries never reach React
// (their import graph, statically and as loaded).
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { recordModuleLoads } from '../support/module-loads.mjs';
import { sessionResponse, randomScalar, sealBundle, checkStamp, iso } from '../support/fixtures.mjs';
import { memoryIndexedDB } from '../support/memory-indexeddb.mjs';
import { eventually } from '../support/eventually.mjs';

const loads = recordModuleLoads();
const { WalletStore } = await import('../../pkg/react-store.js');
const pkgDir = fileURLToPath(new URL('../../pkg/', import.meta.url));

function fakeSession(id, msLeft = 600_000) {
  return { id, expiresAt: new Date(Date.now() + msLeft), freed: false, free() { this.freed = true; } };
}

function fakeKit({ initFails = false } = {}) {
  const calls = { init: 0, clients: [], keepers: [], revoked: [] };
  class FakeKeeper {
    listeners = {};
    stopped = false;
    revokes = 0;
    constructor(session, options) {
      this.session = session;
      this.options = options;
    }
    static async start(client, session, options) {
      const keeper = new FakeKeeper(session, options);
      calls.keepers.push(keeper);
      return keeper;
    }
    on(type, fn) {
      (this.listeners[type] ??= new Set()).add(fn);
      return () => this.listeners[type].delete(fn);
    }
    emit(type, detail) {
      for (const fn of this.listeners[type] ?? []) fn(detail);
    }
    stop() {
      this.stopped = true;
    }
    async revoke() {
      this.revokes++;
      this.stopped = true;
      this.session.free();
      this.emit('revoked', { session: this.session });
    }
  }
  class FakeClient {
    constructor(options) {
      this.options = options;
      calls.clients.push(this);
    }
    async revokeSession(session) {
      calls.revoked.push(session.id);
      session.free();
    }
  }
  const kit = {
    init: async () => {
      calls.init++;
      if (initFails) throw Object.assign(new Error('no wasm here'), { code: 'NOT_INITIALIZED' });
    },
    WalletClient: FakeClient,
    SessionKeeper: FakeKeeper,
  };
  return { kit, calls };
}

const macrotask = () => sleep(5);

// First, before anything here imports React, so that a reach would be a new load.
describe('the core entries never reach React', () => {
  test('no package module but react.js imports react (static scan of pkg/**/*.js)', () => {
    const files = readdirSync(pkgDir, { recursive: true }).filter((f) => f.endsWith('.js'));
    assert.ok(files.includes('browser.js') && files.includes('react.js') && files.includes('react-store.js'));
    const importsReact = /(?:from\s*|import\s*\(\s*|import\s+)['"](?:react|react-dom)(?:\/[^'"]*)?['"]/;
    const offenders = files.filter((f) => importsReact.test(readFileSync(pkgDir + f, 'utf8')));
    assert.deepEqual(offenders, ['react.js']);
  });

  test('loading the Node and browser entries, init() and the lazy modules loads nothing of React', async () => {
    const before = loads().length;
    const node = await import('../../pkg/node.js');
    await import('../../pkg/browser.js');
    await node.init({ passkeys: true });
    const client = new node.WalletClient({ transport: () => ({ status: 200, body: '{}' }) });
    await client.createEmailOtp('InternalAccount:1').catch(() => {});
    const loaded = loads().slice(before);
    assert.ok(loaded.some((url) => url.endsWith('/pkg/node.js')), 'the recorder saw the entries load');
    assert.deepEqual(loaded.filter((url) => /\/node_modules\/(react|react-dom|scheduler)\//.test(url)), []);
  });
});

describe('useCapabilities(): what it shows (capabilitiesOrUnknown, pkg/react-store.js)', () => {
  const PARTS = ['passkeys', 'persistentKeys', 'wasm', 'isolatedSigner'];

  test("capabilities()' answer, as it is", async () => {
    const { capabilitiesOrUnknown } = await import('../../pkg/react-store.js');
    const answer = Object.freeze({ passkeys: { available: true }, persistentKeys: { available: true }, wasm: { available: true }, isolatedSigner: { available: false, reason: 'r' } });
    assert.equal(await capabilitiesOrUnknown(async () => answer), answer);
  });

  test('its module failed to load (a rejection, or a throw): every part unavailable, the error as the reason; never null', async () => {
    const { capabilitiesOrUnknown } = await import('../../pkg/react-store.js');
    const { KitError } = await import('../../pkg/node.js');
    const failure = new KitError('NOT_INITIALIZED', 'embedded-wallet-kit could not load its capabilities module (chunk refused)');
    for (const capabilities of [() => Promise.reject(failure), () => { throw failure; }]) {
      const caps = await capabilitiesOrUnknown(capabilities);
      assert.ok(caps !== null && Object.isFrozen(caps));
      assert.deepEqual(Object.keys(caps), PARTS);
      for (const part of PARTS) {
        assert.equal(caps[part].available, false, part);
        assert.match(caps[part].reason, /NOT_INITIALIZED: embedded-wallet-kit could not load its capabilities module \(chunk refused\)/, part);
      }
      assert.deepEqual({ ...caps.passkeys, available: undefined, reason: undefined }, {
        available: undefined,
        reason: undefined,
        platformAuthenticator: false,
        conditionalMediation: false,
        signals: { signalUnknownCredential: false, signalAllAcceptedCredentials: false, signalCurrentUserDetails: false },
        clientCapabilities: undefined,
      });
    }
  });
});

describe('WalletStore (what the hooks subscribe to)', () => {
  test('init() once and one WalletClient, however often started or attached; options passed through', async () => {
    const { kit, calls } = fakeKit();
    const transport = () => ({ status: 200 });
    const store = new WalletStore({ transport, sandbox: true, initOptions: { passkeys: true } }, kit);
    assert.equal(store.getSnapshot().status, 'idle');
    const seen = [];
    store.subscribe(() => seen.push(store.getSnapshot().status));
    const p = store.start();
    assert.equal(store.start(), p, 'start() returns one promise');
    const cleanup = store.attach();
    const client = await p;
    assert.equal(calls.init, 1);
    assert.equal(calls.clients.length, 1);
    assert.deepEqual(client.options, { transport, sandbox: true }, 'undefined options are left out');
    assert.deepEqual(seen, ['loading', 'ready']);
    assert.equal(store.getSnapshot().client, client);
    cleanup();
  });

  test('a failing init() is the error state, and start() rejects with it', async () => {
    const { kit } = fakeKit({ initFails: true });
    const store = new WalletStore({ transport: () => ({ status: 200 }) }, kit);
    await assert.rejects(store.start(), /no wasm here/);
    assert.equal(store.getSnapshot().status, 'error');
    assert.equal(store.getSnapshot().error.code, 'NOT_INITIALIZED');
  });

  test('StrictMode (setup, cleanup, setup at once) neither stops the keeper nor frees the session', async () => {
    const { kit, calls } = fakeKit();
    const store = new WalletStore({ transport: () => ({ status: 200 }), keeper: { leadMs: 5000 } }, kit);
    const first = store.attach();
    const session = fakeSession('Session:1');
    await store.setSession(session);
    assert.equal(calls.keepers.length, 1);
    assert.deepEqual(calls.keepers[0].options, { leadMs: 5000 });
    first(); // StrictMode's simulated unmount
    first(); // a cleanup called twice counts once
    const second = store.attach(); // and its immediate re-mount
    await macrotask();
    assert.equal(calls.keepers[0].stopped, false, 'the keeper was stopped by the simulated unmount');
    assert.equal(session.freed, false, 'the live session was freed by the simulated unmount');
    assert.equal(store.getSnapshot().sessionState, 'live');
    assert.equal(calls.init, 1);
    // A real unmount: the keeper stops and the session is freed, after the macrotask.
    second();
    assert.equal(session.freed, false);
    await macrotask();
    assert.equal(calls.keepers[0].stopped, true);
    assert.equal(session.freed, true);
    assert.equal(store.getSnapshot().session, null);
    assert.equal(store.getSnapshot().sessionState, 'none');
  });

  test('login() is single flight: concurrent calls run one flow and share its session', async () => {
    const { kit, calls } = fakeKit();
    const store = new WalletStore({ transport: () => ({ status: 200 }), keeper: true }, kit);
    let flows = 0;
    const flow = async (client) => {
      assert.equal(client, calls.clients[0]);
      flows++;
      await sleep(10);
      return fakeSession(`Session:${flows}`);
    };
    const a = store.login(flow);
    const b = store.login(flow);
    assert.equal(a, b);
    const s1 = await a;
    assert.equal(flows, 1);
    assert.equal(calls.keepers.length, 1, 'one keeper');
    assert.equal(calls.keepers[0].options, undefined, 'keeper: true uses the default options');
    assert.equal(store.session, s1);
    // A later login is a new flow: the previous session is freed and its keeper stopped.
    const s2 = await store.login(flow);
    assert.equal(flows, 2);
    assert.equal(s1.freed, true);
    assert.equal(calls.keepers[0].stopped, true);
    assert.equal(calls.keepers.length, 2);
    assert.equal(store.session, s2);
    assert.equal(s2.freed, false);
    // A failed flow rejects, installs nothing, and the next login runs again.
    await assert.rejects(store.login(async () => {
      throw new Error('wrong code');
    }), /wrong code/);
    assert.equal(store.session, s2);
    await store.login(flow);
    assert.equal(flows, 3);
  });

  test('the keeper drives the state: expiring → refreshing, refreshed → live with the new session, expired', async () => {
    const { kit, calls } = fakeKit();
    const store = new WalletStore({ transport: () => ({ status: 200 }), keeper: true }, kit);
    const events = [];
    store.onKeeperEvent((type, detail) => events.push([type, detail.session.id]));
    const s1 = fakeSession('Session:1');
    await store.setSession(s1);
    const keeper = calls.keepers[0];
    assert.equal(store.getSnapshot().keeper, keeper);
    keeper.emit('expiring', { session: s1, msLeft: 4000 });
    assert.equal(store.getSnapshot().sessionState, 'refreshing');
    const s2 = fakeSession('Session:2');
    keeper.session = s2;
    keeper.emit('refreshed', { session: s2, previous: s1 });
    assert.equal(store.getSnapshot().sessionState, 'live');
    assert.equal(store.getSnapshot().session, s2);
    assert.equal(store.session, s2);
    keeper.emit('expired', { session: s2 });
    assert.equal(store.getSnapshot().sessionState, 'expired');
    assert.equal(store.getSnapshot().session, null);
    assert.equal(store.getSnapshot().keeper, null);
    assert.deepEqual(events, [['expiring', 'Session:1'], ['refreshed', 'Session:2'], ['expired', 'Session:2']]);
    assert.ok(['expiring', 'refreshed', 'expired', 'revoked', 'error'].every((t) => keeper.listeners[t].size === 0),
      'still listening to a stopped keeper');
  });

  test('a session replaced while its keeper was starting: that keeper is stopped, one keeper runs', async () => {
    const { kit, calls } = fakeKit();
    const store = new WalletStore({ transport: () => ({ status: 200 }), keeper: true }, kit);
    await store.start();
    const s1 = fakeSession('Session:1');
    const s2 = fakeSession('Session:2');
    const p1 = store.setSession(s1);
    const p2 = store.setSession(s2);
    await Promise.all([p1, p2]);
    assert.equal(s1.freed, true);
    assert.equal(calls.keepers.length, 2);
    assert.equal(calls.keepers[0].stopped, true, 'the stale keeper still runs');
    assert.equal(calls.keepers[1].stopped, false);
    assert.equal(store.getSnapshot().keeper, calls.keepers[1]);
    await store.setSession(null);
    assert.equal(s2.freed, true);
    assert.equal(calls.keepers[1].stopped, true);
    assert.equal(store.getSnapshot().sessionState, 'none');
  });

  test('logout revokes through the keeper, or through the client without one', async () => {
    const kept = fakeKit();
    const store = new WalletStore({ transport: () => ({ status: 200 }), keeper: true }, kept.kit);
    const events = [];
    store.onKeeperEvent((type) => events.push(type));
    const s1 = fakeSession('Session:1');
    await store.setSession(s1);
    await store.logout();
    assert.equal(kept.calls.keepers[0].revokes, 1);
    assert.equal(kept.calls.keepers[0].listeners.revoked.size, 0, 'still listening to a revoked keeper');
    assert.deepEqual(events, ['revoked']);
    assert.equal(s1.freed, true);
    assert.equal(store.getSnapshot().sessionState, 'none');
    await store.logout(); // nothing to revoke

    const plain = fakeKit();
    const store2 = new WalletStore({ transport: () => ({ status: 200 }) }, plain.kit);
    const s2 = fakeSession('Session:2');
    await store2.setSession(s2);
    assert.equal(plain.calls.keepers.length, 0, 'no keeper unless opted in');
    await store2.logout();
    assert.deepEqual(plain.calls.revoked, ['Session:2']);
    assert.equal(store2.session, null);
  });
});

// The real kit (pkg/node.js, imported here, after the import-graph checks above) with
// StoredSessions from a SessionStore on an in-memory IndexedDB (tests/support). Each
// "tab" is its own SessionStore handle on one database (Node's BroadcastChannel between
// them) with its own WalletStore; the service is a fake transport answering refreshes and
// revokes (202, then the signed retry).
describe('WalletStore with a StoredSession (the real kit, a SessionStore on an in-memory IndexedDB)', () => {
  const MINUTE = 60_000;
  const json = (status, body) => ({ status, headers: {}, body: body === undefined ? '' : JSON.stringify(body) });
  // No timers, locks or wake-ups of the page: Node has no document, window or Web Locks.
  const KEEPER = { document: null, window: null, locks: null };

  async function realKit() {
    const kit = await import('../../pkg/node.js');
    await kit.init();
    return kit;
  }

  /** Refreshes (a 202 naming the new key, then the session sealed to it) and revokes (202, then 204). */
  function fakeService() {
    const pendings = new Map();
    const revoked = [];
    const refreshed = [];
    const transport = async (request) => {
      const retry = request.headers['Request-Id'];
      if (retry !== undefined) {
        const leg = pendings.get(retry);
        const stamp = request.headers['Service-Wallet-Signature'];
        if (leg.kind === 'revoke') {
          revoked.push({ path: request.path, stamp, payload: leg.payload });
          return json(204);
        }
        refreshed.push({ path: request.path, stamp, payload: leg.payload });
        return json(201, sessionResponse({ bundle: sealBundle(randomScalar(), leg.target), expiresAt: iso(10 * MINUTE) }));
      }
      const requestId = `Request:${crypto.randomUUID()}`;
      if (request.method === 'POST' && request.path.endsWith('/refresh')) {
        const target = JSON.parse(request.body).clientPublicKey;
        const payload = JSON.stringify({ parameters: { targetPublicKey: target }, nonce: requestId });
        pendings.set(requestId, { kind: 'refresh', target, payload });
        return json(202, { payloadToSign: payload, requestId, expiresAt: iso(MINUTE) });
      }
      assert.equal(request.method, 'DELETE', `${request.method} ${request.path}`);
      const payload = JSON.stringify({ revoke: request.path, nonce: requestId });
      pendings.set(requestId, { kind: 'revoke', payload });
      return json(202, { payloadToSign: payload, requestId, expiresAt: iso(MINUTE) });
    };
    return { transport, revoked, refreshed };
  }

  /** An in-memory Session from a login, sealed by the service's peer to a fresh ClientKey. */
  function plainSession({ Session, ClientKey }, msLeft = 10 * MINUTE) {
    const key = ClientKey.generate();
    return Session.open(sessionResponse({ bundle: sealBundle(randomScalar(), key.publicKeyHex), expiresAt: iso(msLeft) }), key);
  }

  /** A login flow that keeps its session in `sessions` (the SessionStore) and frees the in-memory one. */
  const storedLogin = (kit, sessions, msLeft) => async () => {
    const session = plainSession(kit, msLeft);
    try {
      return await sessions.save(session);
    } finally {
      session.free();
    }
  };

  async function stillStored(sessions, stored) {
    const loaded = await sessions.load(stored.id);
    assert.ok(loaded, `${stored.id} is no longer in the store`);
    assert.ok(checkStamp(await loaded.stamp('after'), 'after', stored.publicKeyHex).ok, 'the loaded session signs');
    assert.ok(checkStamp(await stored.stamp('same'), 'same', stored.publicKeyHex).ok, 'the installed object signs');
  }

  const closed = (e) => e?.code === 'SESSION_CLOSED';

  /** A SessionStore handle ("a tab") on `indexedDB`, closed after the test `t` whatever its outcome. */
  async function openTab(t, kit, indexedDB, name) {
    const sessions = await kit.SessionStore.open({ indexedDB, name });
    t.after(() => sessions.close());
    return sessions;
  }

  /** A WalletStore disposed after the test `t` (its keeper stopped). */
  /** Two tabs' stores of one origin: one IndexedDB, one store name. */
  async function twoTabs(t, kit) {
    const indexedDB = memoryIndexedDB({ serializeWrites: true });
    const name = `react-${crypto.randomUUID()}`;
    return [await openTab(t, kit, indexedDB, name), await openTab(t, kit, indexedDB, name)];
  }

  function walletStore(t, kit, options) {
    const store = new WalletStore(options, kit);
    t.after(() => store.dispose());
    return store;
  }

  for (const keeper of [false, true]) {
    test(`${keeper ? 'with' : 'without'} a keeper: login() with a flow returning a StoredSession, then unmount: it stays in the store and signs`, async (t) => {
      const kit = await realKit();
      const sessions = await openTab(t, kit, memoryIndexedDB(), `react-${crypto.randomUUID()}`);
      const service = fakeService();
      const store = walletStore(t, kit, { transport: service.transport, keeper: keeper && KEEPER });
      const detach = store.attach();
      const stored = await store.login(storedLogin(kit, sessions));
      assert.equal(typeof stored.free, 'undefined', 'a StoredSession (no free())');
      assert.equal(store.session, stored);
      assert.equal(store.getSnapshot().sessionState, 'live');
      assert.ok(store.session.expiresAt instanceof Date && store.session.expiresAt.getTime() > Date.now(), 'useSession reads expiresAt');
      const runningKeeper = store.getSnapshot().keeper;
      assert.equal(runningKeeper?.session ?? null, keeper ? stored : null);
      detach(); // the provider unmounts
      await macrotask();
      assert.equal(store.getSnapshot().session, null);
      assert.equal(store.getSnapshot().sessionState, 'none');
      if (keeper) assert.equal(runningKeeper.stopped, true);
      await stillStored(sessions, stored);
      assert.deepEqual(service.revoked, [], 'nothing revoked at the service');
    });
  }

  test('setSession(other) and setSession(null) leave a StoredSession in the store; a plain Session replaced is freed', async (t) => {
    const kit = await realKit();
    const sessions = await openTab(t, kit, memoryIndexedDB(), `react-${crypto.randomUUID()}`);
    const service = fakeService();
    const store = walletStore(t, kit, { transport: service.transport, keeper: KEEPER });
    const a = await storedLogin(kit, sessions)();
    await store.setSession(a);
    const keeperOfA = store.getSnapshot().keeper;
    const plain = plainSession(kit);
    await store.setSession(plain);
    assert.equal(keeperOfA.stopped, true);
    await stillStored(sessions, a);
    const b = await storedLogin(kit, sessions)();
    await store.setSession(b);
    assert.throws(() => plain.stamp('freed?'), closed, 'the plain Session replaced was not freed');
    await store.setSession(null);
    await stillStored(sessions, b);
    await stillStored(sessions, a);
    assert.deepEqual((await sessions.list()).map((s) => s.id).sort(), [a.id, b.id].sort());
    assert.deepEqual(service.revoked, []);
  });

  for (const keeper of [false, true]) {
    test(`${keeper ? 'with' : 'without'} a keeper: logout revokes a StoredSession at the service and deletes it from the store`, async (t) => {
      const kit = await realKit();
      const sessions = await openTab(t, kit, memoryIndexedDB(), `react-${crypto.randomUUID()}`);
      const service = fakeService();
      const store = walletStore(t, kit, { transport: service.transport, keeper: keeper && KEEPER });
      const events = [];
      store.onKeeperEvent((type) => events.push(type));
      const stored = await store.login(storedLogin(kit, sessions));
      await store.logout();
      assert.equal(service.revoked.length, 1, 'one revoke');
      assert.equal(service.revoked[0].path, `/auth/sessions/${stored.id}`);
      assert.ok(checkStamp(service.revoked[0].stamp, service.revoked[0].payload, stored.publicKeyHex).ok, 'signed by the session revoked');
      assert.equal(await sessions.load(stored.id), null, 'still in the store');
      await assert.rejects(stored.stamp('after logout'), closed);
      assert.equal(store.session, null);
      assert.equal(store.getSnapshot().sessionState, 'none');
      assert.deepEqual(events, keeper ? ['revoked'] : []);
    });
  }

  test('logout after another tab logged out (the StoredSession already deleted): resolves, nothing sent, state none', async (t) => {
    const kit = await realKit();
    const [here, there] = await twoTabs(t, kit);
    const service = fakeService();
    const store = walletStore(t, kit, { transport: service.transport });
    const stored = await store.login(storedLogin(kit, here));
    // The other tab's logout: revoked at the service and deleted from the shared store.
    await new kit.WalletClient({ transport: service.transport }).revokeSession(await there.load(stored.id));
    assert.equal(service.revoked.length, 1);
    await store.logout();
    assert.equal(service.revoked.length, 1, 'revoked again');
    assert.equal(store.session, null);
    assert.equal(store.getSnapshot().sessionState, 'none');
  });

  test('a keeper: another tab\'s logout ends the session here (revoked, fromStore); logout then resolves', async (t) => {
    const kit = await realKit();
    const [here, there] = await twoTabs(t, kit);
    const service = fakeService();
    const store = walletStore(t, kit, { transport: service.transport, keeper: KEEPER });
    const events = [];
    store.onKeeperEvent((type, detail) => events.push([type, detail.fromStore]));
    const stored = await store.login(storedLogin(kit, here));
    await there.delete(stored.id);
    await eventually(() => assert.deepEqual(events, [['revoked', true]]));
    assert.equal(store.session, null);
    assert.equal(store.getSnapshot().sessionState, 'none');
    assert.equal(store.getSnapshot().keeper, null);
    await store.logout();
  });

  test('two tabs keeping one StoredSession: one refreshes, the other adopts (elsewhere); both views show the new session', async (t) => {
    const kit = await realKit();
    const indexedDB = memoryIndexedDB({ serializeWrites: true });
    const name = `react-${crypto.randomUUID()}`;
    const service = fakeService();
    const tabs = [];
    for (let i = 0; i < 2; i++) {
      const sessions = await openTab(t, kit, indexedDB, name);
      // Due a second from now: the refresh starts 2 s before a 3 s expiry.
      const store = walletStore(t, kit, { transport: service.transport, keeper: { ...KEEPER, leadMs: 2000, maxWaitMs: 200 } });
      const events = [];
      store.onKeeperEvent((type, detail) => events.push({ type, id: detail.session.id, elsewhere: detail.elsewhere }));
      tabs.push({ sessions, store, events, detach: store.attach() });
    }
    const [a, b] = tabs;
    const first = await a.store.login(storedLogin(kit, a.sessions, 3000));
    await b.store.login(() => b.sessions.load(first.id));
    await eventually(() => {
      for (const tab of tabs) assert.ok(tab.events.some((e) => e.type === 'refreshed'), JSON.stringify(tab.events));
    }, 10_000);
    assert.equal(service.refreshed.length, 1, 'one refresh for both tabs');
    const refreshed = tabs.map((tab) => tab.events.find((e) => e.type === 'refreshed'));
    assert.deepEqual(refreshed.map((e) => e.elsewhere ?? false).sort(), [false, true], JSON.stringify(refreshed));
    const next = refreshed[0].id;
    assert.notEqual(next, first.id);
    for (const tab of tabs) {
      assert.ok(tab.events.every((e) => e.type !== 'error' && e.type !== 'expired'), JSON.stringify(tab.events));
      const { session, sessionState } = tab.store.getSnapshot();
      assert.equal(session.id, next, 'the snapshot shows the new session');
      assert.equal(tab.store.session.id, next);
      assert.equal(sessionState, 'live');
      assert.ok(session.expiresAt.getTime() > Date.now() + 5 * MINUTE, 'useSession reads the new expiresAt');
      assert.ok(checkStamp(await tab.store.session.stamp('new'), 'new', session.publicKeyHex).ok);
    }
    // One tab unmounts: the other keeps the session (still in the store, still kept).
    a.detach();
    await macrotask();
    await stillStored(b.sessions, b.store.session);
    assert.equal(b.store.getSnapshot().keeper.stopped, false);
    const last = b.store.session;
    b.detach();
    await macrotask();
    await stillStored(b.sessions, last);
  });
});

describe('the provider and hooks on the server (react-dom/server)', () => {
  test('render without effects: status idle, no session, nothing initialised', async () => {
    const { createElement } = await import('react');
    const { renderToString } = await import('react-dom/server');
    const { WalletProvider, useWallet, useSession } = await import('../../pkg/react.js');
    function Probe() {
      const wallet = useWallet();
      const session = useSession();
      return createElement('p', null, `${wallet.status}/${wallet.ready}/${wallet.client}/${session.state}/${session.msLeft}`);
    }
    const html = renderToString(createElement(WalletProvider, { transport: () => ({ status: 200 }) }, createElement(Probe)));
    assert.equal(html, '<p>idle/false/null/none/null</p>');
  });

  test('a hook outside <WalletProvider> throws KitError INVALID_INPUT naming the hook', async () => {
    const { createElement } = await import('react');
    const { renderToString } = await import('react-dom/server');
    const { useSession } = await import('../../pkg/react.js');
    const { KitError } = await import('../../pkg/node.js');
    function Orphan() {
      useSession();
      return null;
    }
    assert.throws(() => renderToString(createElement(Orphan)),
      (err) => err instanceof KitError && err.code === 'INVALID_INPUT' && /useSession\(\) must be called inside <WalletProvider>/.test(err.message));
  });

  test('pkg/react.js imports the kit by its package name: one instance with the app (Node entry here)', () => {
    // Node self-references pkg/ by its name; the test above saw node.js's KitError class.
    assert.match(readFileSync(`${pkgDir}react.js`, 'utf8'), /from\s*["']embedded-wallet-kit["']/);
  });
});
