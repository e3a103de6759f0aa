// The UTF-16 check on strings the kit signs (bindings/common exact_string): one call to
// String.prototype.isWellFormed where the engine has it, the per-unit check (one
// charCodeAt call per UTF-16 unit) where it does not, or where it answers with something
// other than a boolean. A lone surrogate is INVALID_INPUT on every path, and a
// well-formed payload is signed as it is. Needs `make build`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as kit from '../../pkg/node.js';
import { sessionResponse, randomScalar, compressedPublicKeyHex, sealBundle, checkStamp } from '../support/fixtures.mjs';

const { ClientKey, Session } = kit;
const LONE = [['a lone high surrogate', 'x\uD800'], ['a lone low surrogate', 'a\uDC00b'], ['a reversed pair', '\uDC00\uD800']];
// Non-ASCII first: the glue's own string copy (passStringToWasm0) reads charCodeAt only up to
// the first non-ASCII unit, so the per-unit check is what a count of charCodeAt calls shows.
const GOOD = `€${'p'.repeat(1000)} 😀`;
const GLUE_READS = 50;

function openSession() {
  const key = ClientKey.generate();
  const scalar = randomScalar();
  const session = Session.open(sessionResponse({ bundle: sealBundle(scalar, key.publicKeyHex) }), key);
  return { session, pub: compressedPublicKeyHex(scalar) };
}

/** Runs `body` with String.prototype[name] replaced by `replacement` (or deleted), counting calls. */
function withPatched(name, replacement, body) {
  const original = Object.getOwnPropertyDescriptor(String.prototype, name);
  const calls = { count: 0 };
  if (replacement === undefined) {
    delete String.prototype[name];
  } else {
    Object.defineProperty(String.prototype, name, {
      ...original,
      value(...args) {
        calls.count += 1;
        return replacement.apply(this, args);
      },
    });
  }
  try {
    return body(calls);
  } finally {
    Object.defineProperty(String.prototype, name, original);
  }
}

/** Counts charCodeAt calls (the per-unit check) during `body`. */
const countingCharCodeAt = (body) => withPatched('charCodeAt', String.prototype.charCodeAt, body);

/** Lone surrogates refused; returns the stamp of GOOD (verified by the caller, outside the counts). */
function checkPath(session) {
  for (const [name, payload] of LONE) {
    assert.throws(() => session.stamp(payload), (err) => err.code === 'INVALID_INPUT', `stamp: ${name}`);
    assert.throws(() => kit.inspectPayload(`€{"a":"${payload}"}`), (err) => err.code === 'INVALID_INPUT', `inspectPayload: ${name}`);
  }
  return session.stamp(GOOD);
}

function verifies(stamp, pub) {
  const c = checkStamp(stamp, GOOD, pub);
  assert.ok(c.ok, `a well-formed payload's stamp verifies: ${JSON.stringify(c).slice(0, 200)}`);
}

test('isWellFormed present: one call per string, no per-unit calls', () => {
  assert.equal(typeof String.prototype.isWellFormed, 'function', 'this Node has isWellFormed');
  const { session, pub } = openSession();
  const stamp = withPatched('isWellFormed', String.prototype.isWellFormed, (wellFormed) => {
    const signed = countingCharCodeAt((charCodeAt) => {
      const out = checkPath(session);
      assert.ok(charCodeAt.count < GLUE_READS, `the per-unit check did not run (${charCodeAt.count} charCodeAt calls)`);
      return out;
    });
    assert.ok(wellFormed.count >= LONE.length * 2 + 1, `isWellFormed was called (${wellFormed.count})`);
    return signed;
  });
  verifies(stamp, pub);
  session.free();
});

test('isWellFormed missing: the per-unit check still refuses lone surrogates', () => {
  const { session, pub } = openSession();
  const stamp = withPatched('isWellFormed', undefined, () => {
    assert.equal(String.prototype.isWellFormed, undefined);
    return countingCharCodeAt((charCodeAt) => {
      const stamp = checkPath(session);
      assert.ok(charCodeAt.count >= GOOD.length, `the per-unit check ran (${charCodeAt.count} calls)`);
      return stamp;
    });
  });
  verifies(stamp, pub);
  session.free();
});

test('isWellFormed answering with a non-boolean: the per-unit check decides', () => {
  const { session, pub } = openSession();
  verifies(withPatched('isWellFormed', () => 'yes', () => checkPath(session)), pub);
  session.free();
});
