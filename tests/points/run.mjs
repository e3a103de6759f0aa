#!/usr/bin/env node
// The shipped module's point decompression, checked against independent peers in every
// engine (tests/support/engines.mjs): the encapsulated key of a session bundle is a
// compressed P-256 point that the wasm (p256 / primeorder / crypto-bigint at the release
// profile's opt-levels, which `make test-wasm` does not build) decompresses in
// Session.open. For the full entry (pkg/browser.js) and the signing-only one (pkg/signing.js):
// - bundles sealed by @turnkey/crypto to fresh ClientKeys open, to the key that was sealed;
// - encapsulated keys decided by @noble/curves: the on-curve ones (random points, both
//   prefixes) decode and fail only at the tag (DECRYPTION_FAILED); the off-curve ones
//   (random x with no square root, x = 0, x >= p) are INVALID_BUNDLE "not a point";
// each on fresh page loads (the engine's first tiers, while the warm-up still runs), then
// many times in one page (after tier-up). A mismatch prints the encapsulated key (public).
// Prints "N passed, N failed"; exits non-zero on failure.
//
// Usage: node tests/points/run.mjs [--engine chromium|firefox|webkit|all] [--scale N]
//   --scale multiplies every count (default 1: about 2,500 opens per engine and entry, and
//   9,000 more on WebKit's fresh page loads).
/* global window -- in page.evaluate callbacks, which run in the page */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { p256 } from '@noble/curves/nist.js';
import { bs58check, uint8ArrayToHexString } from '@turnkey/encoding';
import { serveStatic } from '../../scripts/serve.mjs';
import { enginesFromArgs, launchEngine } from '../support/engines.mjs';
import { createChecks } from '../support/checks.mjs';
import { compressedPublicKeyHex, randomScalar, sealBundle } from '../support/fixtures.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));
const pkgDir = fileURLToPath(new URL('../../pkg/', import.meta.url));
const scaleAt = process.argv.indexOf('--scale');
const SCALE = scaleAt >= 0 ? Number(process.argv[scaleAt + 1]) : 1;
if (!(SCALE >= 1)) throw new Error('--scale must be a number >= 1');
/**
 * Fresh page loads per engine and entry, and the opens and probes on each. WebKit gets
 * more: without decode_sec1's retries (src/public_key.rs) it refused a valid point on
 * about 1 in 100 to 1,500 of them (within the first 30 decodes), which 10 loads would
 * seldom show.
 */
const COLD_PAGES_BY_ENGINE = { chromium: 10, firefox: 10, webkit: 300 };
const COLD_BATCH = 10;
/** Rounds in one page after that, and the opens and probes per round. */
const WARM_ROUNDS = 4 * SCALE;
const WARM_BATCH = 250;

const { check: checkIn, assert, fail, finish } = createChecks();
const FIELD_P = 0xffffffff00000001000000000000000000000000ffffffffffffffffffffffffn;
const hex32 = (n) => n.toString(16).padStart(64, '0');
const onCurve = (enc) => {
  try {
    p256.Point.fromBytes(enc);
    return true;
  } catch {
    return false;
  }
};
/** base58check(enc ‖ 48 random bytes): a session bundle's length, sealed to nobody. */
const withGarbage = (enc) => bs58check.encode(new Uint8Array([...enc, ...randomBytes(48)]));
const compressed = (prefix, x) => Uint8Array.from([prefix, ...Buffer.from(hex32(x), 'hex')]);

/** Encapsulated keys half on the curve, half off it (as @noble/curves decides), plus the edges. */
function probeCases(n) {
  const cases = [];
  for (const x of [0n, FIELD_P, FIELD_P + 1n, (1n << 256n) - 1n]) {
    for (const prefix of [2, 3]) cases.push(compressed(prefix, x));
  }
  while (cases.length < n) {
    if (cases.length % 2 === 0) {
      cases.push(p256.getPublicKey(randomScalar(), true));
    } else {
      const enc = Uint8Array.from([2 + (randomBytes(1)[0] & 1), ...randomBytes(32)]);
      if (!onCurve(enc)) cases.push(enc);
    }
  }
  return cases.map((enc) => ({ enc: uint8ArrayToHexString(enc), valid: onCurve(enc), bundle: withGarbage(enc) }));
}

const json = (v) => JSON.stringify(v);

/** Opens `n` @turnkey/crypto bundles on the page; the mismatches (empty when all opened to the sealed key). */
async function sealedMismatches(page, n) {
  const pubs = await page.evaluate((count) => window.pt.keys(count), n);
  const sealed = pubs.map((pub) => {
    const scalar = randomScalar();
    const bundle = sealBundle(scalar, pub);
    return { bundle, expected: `ok: ${compressedPublicKeyHex(scalar)}`, enc: uint8ArrayToHexString(bs58check.decode(bundle).slice(0, 33)) };
  });
  const got = await page.evaluate((bundles) => window.pt.open(bundles), sealed.map((s) => s.bundle), { timeoutMs: 300_000 });
  return sealed.flatMap((s, i) => (got[i] === s.expected ? [] : [{ enc: s.enc, got: got[i] }]));
}

/** Probes `n` encapsulated keys on the page; the mismatches with @noble/curves' verdict. */
async function probeMismatches(page, n) {
  const cases = probeCases(n);
  const got = await page.evaluate((bundles) => window.pt.probe(bundles), cases.map((c) => c.bundle), { timeoutMs: 300_000 });
  return cases.flatMap((c, i) => {
    const ok = c.valid ? got[i].startsWith('DECRYPTION_FAILED:') : /^INVALID_BUNDLE: .*not a point on P-256/.test(got[i]);
    return ok ? [] : [{ enc: c.enc, onCurve: c.valid, got: got[i] }];
  });
}

async function load(page, origin, query) {
  await page.goto(`${origin}/${query}`);
  const deadline = Date.now() + 30_000;
  for (;;) {
    const state = await page.evaluate(() => ({ ready: window.pt?.ready === true, failed: window.pt?.failed ?? null }));
    if (state.ready) return;
    if (state.failed !== null || Date.now() > deadline) throw new Error(`the page did not start: ${json(state)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

if (!existsSync(join(pkgDir, 'browser.js'))) {
  console.log('not ok - pkg/ is missing: run `make build` first\n0 passed, 1 failed');
  process.exit(1);
}
const server = await serveStatic({ '/': here, '/pkg/': pkgDir });
const origin = `http://localhost:${server.port}`;
try {
  for (const engine of enginesFromArgs()) {
    let browser;
    try {
      browser = await launchEngine(engine, { chromium });
      for (const [entry, query] of [['browser.js', '?entry=full'], ['signing.js', '?entry=signing']]) {
        const label = `[${engine}] ${entry}`;
        const page = await browser.newPage();
        const COLD_PAGES = COLD_PAGES_BY_ENGINE[engine] * SCALE;
        try {
          const cold = { sealed: [], probed: [] };
          for (let i = 0; i < COLD_PAGES; i++) {
            await load(page, origin, `${query}&load=${i}`);
            cold.sealed.push(...await sealedMismatches(page, COLD_BATCH));
            cold.probed.push(...await probeMismatches(page, 2 * COLD_BATCH));
          }
          await checkIn(`${label}: ${COLD_PAGES} fresh page loads, ${COLD_PAGES * COLD_BATCH} bundles sealed by @turnkey/crypto open to the sealed key`, () =>
            assert(cold.sealed.length === 0, `${cold.sealed.length} did not: ${json(cold.sealed.slice(0, 5))}`));
          await checkIn(`${label}: ${COLD_PAGES} fresh page loads, ${COLD_PAGES * 2 * COLD_BATCH} encapsulated keys decode exactly when @noble/curves finds them on P-256`, () =>
            assert(cold.probed.length === 0, `${cold.probed.length} disagreed: ${json(cold.probed.slice(0, 5))}`));
          const warm = { sealed: [], probed: [] };
          for (let r = 0; r < WARM_ROUNDS; r++) {
            warm.sealed.push(...await sealedMismatches(page, WARM_BATCH));
            warm.probed.push(...await probeMismatches(page, WARM_BATCH));
          }
          await checkIn(`${label}: one page, ${WARM_ROUNDS * WARM_BATCH} more @turnkey/crypto bundles open to the sealed key`, () =>
            assert(warm.sealed.length === 0, `${warm.sealed.length} did not: ${json(warm.sealed.slice(0, 5))}`));
          await checkIn(`${label}: one page, ${WARM_ROUNDS * WARM_BATCH} more encapsulated keys decode exactly when @noble/curves finds them on P-256`, () =>
            assert(warm.probed.length === 0, `${warm.probed.length} disagreed: ${json(warm.probed.slice(0, 5))}`));
        } finally {
          await page.close();
        }
      }
    } catch (err) {
      fail(`[${engine}] points driver: ${err?.stack ?? err}`);
    } finally {
      await browser?.close();
    }
  }
} finally {
  await server.close();
}
finish();
