// Compiled (not run) by `make lint-js` (tests/types/tsconfig.json): the JS entries, as
// TypeScript infers them from npm/*.js and their JSDoc, against the declarations the
// package ships. Every entry must export every declared value with a type assignable to
// the declared one, and no value that is not declared; a drift between npm/ and
// index.d.ts / testing.d.ts fails here. (tests/js/declared-exports.test.mjs checks the
// built package's runtime names the same way.)
import * as browser from '../../npm/browser.js';
import * as node from '../../npm/node.js';
import * as testingBrowser from '../../npm/testing.js';
import * as testingNode from '../../npm/testing-node.js';
import type * as declared from 'embedded-wallet-kit';
import type * as declaredTesting from 'embedded-wallet-kit/testing';

/** `true` when `Names` is empty, else the names themselves (so the error shows them). */
type NoneOf<Names> = [Names] extends [never] ? true : Names;
/** The value exports of `M` that `Declared` does not declare. */
type Undeclared<M, Declared> = Exclude<keyof M, keyof Declared>;

/**
 * `SessionStore` is checked apart: the exported class is the base (npm/session-store.js)
 * of the implementation's `Store`, which declares the instance methods with
 * `@implements` (npm/session-store-impl.js); what the export itself must match is `open`.
 * `SessionKeeper` likewise (also npm/session-store.js; npm/session-keeper-impl.js's `Keeper`): `start`.
 */
type Entry = Omit<typeof declared, 'SessionStore' | 'SessionKeeper'>;

export const browserEntry: Entry = browser;
export const nodeEntry: Entry = node;
export const browserStoreOpen: typeof declared.SessionStore.open = browser.SessionStore.open;
export const nodeStoreOpen: typeof declared.SessionStore.open = node.SessionStore.open;
export const browserKeeperStart: typeof declared.SessionKeeper.start = browser.SessionKeeper.start;
export const nodeKeeperStart: typeof declared.SessionKeeper.start = node.SessionKeeper.start;
export const testingBrowserEntry: typeof declaredTesting = testingBrowser;
export const testingNodeEntry: typeof declaredTesting = testingNode;

export const browserExportsNothingElse: NoneOf<Undeclared<typeof browser, typeof declared>> = true;
export const nodeExportsNothingElse: NoneOf<Undeclared<typeof node, typeof declared>> = true;
export const testingBrowserExportsNothingElse: NoneOf<Undeclared<typeof testingBrowser, typeof declaredTesting>> = true;
export const testingNodeExportsNothingElse: NoneOf<Undeclared<typeof testingNode, typeof declaredTesting>> = true;
