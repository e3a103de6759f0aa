// Just enough IndexedDB for the session store, in memory, for the node --test suites
// (Node has none): values are structured-cloned, as a browser stores them.

export const domError = (name) => Object.assign(new Error(name), { name });

/**
 * Just enough IndexedDB for the store: named databases of keyPath object stores, requests
 * that answer on a later task, transactions that commit once no request is pending and
 * roll back on abort. `failPut` makes every put fail (as a full disk or DataCloneError would).
 * `serializeWrites`: readwrite transactions of a database run one after another, as in a
 * browser (what a lease taken "in one transaction" relies on, for several simulated tabs).
 */
export function memoryIndexedDB({ failPut = false, serializeWrites = false } = {}) {
  const databases = new Map();
  /** Database name → the promise that the last readwrite transaction finished. */
  const lastWrite = new Map();
  const later = (fn) => setTimeout(fn, 0);
  const request = (tx, fn) => {
    const r = { onsuccess: null, onerror: null, result: undefined, error: null };
    tx.pending++;
    const go = () => later(() => {
      tx.pending--;
      try {
        r.result = fn();
        r.onsuccess?.();
      } catch (err) {
        r.error = err;
        r.onerror?.();
        tx.abort();
      }
      later(() => tx.settle());
    });
    if (tx.blocked) tx.queue.push(go);
    else go();
    return r;
  };
  const factory = {
    databases,
    open(name) {
      const r = { onsuccess: null, onerror: null, onupgradeneeded: null, result: undefined };
      later(() => {
        let data = databases.get(name);
        const fresh = !data;
        if (fresh) databases.set(name, (data = new Map()));
        let closed = false;
        r.result = {
          objectStoreNames: { contains: (n) => data.has(n) },
          createObjectStore: (n, { keyPath }) => data.set(n, { keyPath, rows: new Map() }),
          close: () => {
            closed = true;
          },
          transaction(names, mode) {
            if (closed) throw domError('InvalidStateError');
            let snapshot = new Map(names.map((n) => [n, new Map(data.get(n).rows)]));
            const tx = {
              pending: 0, done: false, error: null, oncomplete: null, onabort: null, blocked: false, queue: [], finish: () => {},
              settle() {
                if (!tx.done && !tx.blocked && tx.pending === 0) {
                  tx.done = true;
                  tx.finish();
                  tx.oncomplete?.();
                }
              },
              abort() {
                if (tx.done) throw domError('InvalidStateError');
                tx.done = true;
                tx.finish();
                for (const [n, rows] of snapshot) data.get(n).rows = rows;
                later(() => tx.onabort?.());
              },
              objectStore(n) {
                const store = data.get(n);
                return {
                  get: (key) => request(tx, () => structuredClone(store.rows.get(key))),
                  getAll: () => request(tx, () => [...store.rows.values()].map((v) => structuredClone(v))),
                  put: (value) => request(tx, () => {
                    if (failPut) throw domError('QuotaExceededError');
                    store.rows.set(value[store.keyPath], structuredClone(value));
                  }),
                  delete: (key) => request(tx, () => void store.rows.delete(key)),
                  clear: () => request(tx, () => store.rows.clear()),
                };
              },
            };
            if (serializeWrites && mode === 'readwrite') {
              const before = lastWrite.get(name) ?? Promise.resolve();
              tx.blocked = true;
              lastWrite.set(name, new Promise((resolve) => {
                tx.finish = resolve;
              }));
              before.then(() => {
                tx.blocked = false;
                snapshot = new Map(names.map((n) => [n, new Map(data.get(n).rows)]));
                for (const go of tx.queue.splice(0)) go();
                later(() => tx.settle());
              });
              return tx;
            }
            later(() => tx.settle()); // a transaction nobody uses commits
            return tx;
          },
        };
        if (fresh) r.onupgradeneeded?.();
        r.onsuccess?.();
      });
      return r;
    },
  };
  return factory;
}
