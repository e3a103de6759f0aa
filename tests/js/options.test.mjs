// The option objects the kit accepts are read by one rule (npm/guard.js): each option
// once, as an own data property; nothing inherited (script that runs after the kit could
// have put it on Object.prototype), no getter run (refused: KitError INVALID_INPUT naming
// the option), no thenable resolved. Checked for the reader itself and through init (the
// Node entry), WalletClient, SessionStore.open, SessionKeeper.start and <WalletProvider>; init in the
// browser (the isolated signer's module_or_path) is tests/isolate/run.mjs's. Needs `make build`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { memoryIndexedDB } from '../support/memory-indexeddb.mjs';

const { readOptions } = await import('../../pkg/guard.js');
const { init, KitError, WalletClient, SessionStore, SessionKeeper } = await import('../../pkg/node.js');

const invalid = (name) => (err) => err instanceof KitError && err.code === 'INVALID_INPUT' && err.message.includes(`options.${name}`);

/** Runs `fn` with `name` set on Object.prototype (as later page script could), then removes it. */
async function inherited(name, value, fn) {
  Object.defineProperty(Object.prototype, name, { configurable: true, writable: true, value });
  try {
    return await fn();
  } finally {
    delete Object.prototype[name];
  }
}

/** An object whose `name` is a getter that counts its calls in `reads`. */
function withGetter(name, value, reads, base = {}) {
  return Object.defineProperty(base, name, { enumerable: true, get() { reads.count++; return value; } });
}

test('readOptions: own data properties into a null-prototype record; inherited ones undefined; getters and setters refused unread', async () => {
  const read = readOptions({ a: 1, b: undefined, c: 3 }, ['a', 'b', 'd'], 'X');
  assert.equal(Object.getPrototypeOf(read), null);
  assert.deepEqual(Object.entries(read), [['a', 1], ['b', undefined], ['d', undefined]]);
  await inherited('d', 'from the prototype', () => assert.equal(readOptions({}, ['d'], 'X').d, undefined));
  assert.equal(readOptions(Object.create({ a: 1 }), ['a'], 'X').a, undefined);
  const reads = { count: 0 };
  assert.throws(() => readOptions(withGetter('a', 1, reads), ['a'], 'X'), invalid('a'));
  assert.throws(() => readOptions(Object.defineProperty({}, 'a', { set() {} }), ['a'], 'X'), invalid('a'));
  // A descriptor is an ordinary object: an inherited `value` does not make an accessor data.
  const accessor = withGetter('a', 1, reads);
  await inherited('value', 'polluted', () => assert.throws(() => readOptions(accessor, ['a'], 'X'), invalid('a')));
  assert.equal(reads.count, 0);
  // A Proxy is asked once per option, for its own descriptor (never for a value by `get`).
  const asked = [];
  const proxy = new Proxy({ a: 1 }, {
    getOwnPropertyDescriptor(target, name) {
      asked.push(name);
      return Reflect.getOwnPropertyDescriptor(target, name);
    },
    get() {
      throw new Error('read through get');
    },
  });
  assert.equal(readOptions(proxy, ['a', 'b'], 'X').a, 1);
  assert.deepEqual(asked, ['a', 'b']);
  assert.deepEqual(Object.keys(readOptions(undefined, ['a'], 'X')), []);
  // A thenable value is a value: the reader hands it over as it is.
  const thenable = { then() {} };
  assert.equal(readOptions({ a: thenable }, ['a'], 'X').a, thenable);
});

test('init (Node entry): an inherited isolate is not read; a getter option is INVALID_INPUT, unread', async () => {
  // The browser-only isolated signer would refuse { isolate: 'worker' } here: {} is no such call.
  await inherited('isolate', 'worker', () => init({}));
  await inherited('passkeys', { module_or_path: '/elsewhere.wasm' }, () => init({}));
  const reads = { count: 0 };
  await assert.rejects(init(withGetter('isolate', 'worker', reads)), invalid('isolate'));
  await assert.rejects(init(withGetter('passkeys', true, reads)), invalid('passkeys'));
  assert.equal(reads.count, 0);
});

test('WalletClient: inherited options are not read; a getter option is INVALID_INPUT, unread', async () => {
  const transport = () => ({ status: 200, body: {} });
  await inherited('transport', transport, () => assert.throws(() => new WalletClient({}), invalid('transport')));
  await inherited('keys', 'client-held', () => assert.equal(new WalletClient({ transport }).keys, 'sealed'));
  const reads = { count: 0 };
  assert.throws(() => new WalletClient(withGetter('transport', transport, reads)), invalid('transport'));
  assert.throws(() => new WalletClient(withGetter('keys', 'sealed', reads, { transport })), invalid('keys'));
  assert.equal(reads.count, 0);
});

test('SessionStore.open: an inherited name is not used (the default database opens); a getter option is INVALID_INPUT, unread', async () => {
  const factory = memoryIndexedDB();
  await inherited('name', 'chosen-by-page', () => SessionStore.open({ indexedDB: factory }));
  assert.deepEqual([...factory.databases.keys()], ['embedded-wallet-kit']);
  const reads = { count: 0 };
  await assert.rejects(SessionStore.open(withGetter('indexedDB', factory, reads)), invalid('indexedDB'));
  await assert.rejects(SessionStore.open(withGetter('name', 'x', reads, { indexedDB: factory })), invalid('name'));
  assert.equal(reads.count, 0);
});

test('SessionKeeper.start: an inherited setTimeout (or any option) is not used; a getter option is INVALID_INPUT, unread', async () => {
  const client = { refresh: async () => { throw new Error('no refresh here'); }, revokeSession: async () => {} };
  const session = { expiresAt: new Date(Date.now() + 3_600_000), isExpired: () => false, publicKeyHex: '02', sandboxed: false };
  let borrowed = 0;
  const keeper = await inherited('setTimeout', () => {
    borrowed++;
    return 0;
  }, () => SessionKeeper.start(client, session, { document: null, window: null, locks: null }));
  keeper.stop();
  assert.equal(borrowed, 0, 'the keeper scheduled with an inherited setTimeout');
  const reads = { count: 0 };
  await assert.rejects(SessionKeeper.start(client, session, withGetter('leadMs', 1000, reads)), invalid('leadMs'));
  assert.equal(reads.count, 0);
});

test('<WalletProvider>: props inherited from Object.prototype are not read (no own transport: starting the client is INVALID_INPUT)', async () => {
  const { createElement } = await import('react');
  const { renderToString } = await import('react-dom/server');
  const { WalletProvider, useWalletReady } = await import('../../pkg/react.js');
  let started;
  function Probe() {
    try {
      useWalletReady();
    } catch (thrown) {
      started = thrown; // Suspense: the store's start(), which makes the WalletClient
    }
    return null;
  }
  await inherited('transport', () => ({ status: 200, body: {} }), async () => {
    renderToString(createElement(WalletProvider, null, createElement(Probe)));
    await assert.rejects(started, invalid('transport'));
  });
});
