#!/usr/bin/env node
// A/B of two or more builds of the package in one headless Chromium: keygen (with its
// publicKeyHex), stamp and open through one entry, in interleaved rounds (each round runs
// every build once, so drift and load hit them alike); prints each op's median per-call
// time in µs. For a change's effect; `make bench` is the comparison with the peer.
//
// Usage: node bench/ab.mjs [--rounds N] [--main] PKG_DIR PKG_DIR...
//   --main: the main entry (browser.js); default the signing entry (signing.js).
// e.g. keep a copy of pkg/ (cp -a pkg /tmp/pkg-before), change and `make build`, then
//   node bench/ab.mjs --rounds 30 /tmp/pkg-before pkg
/* global window -- in page.evaluate callbacks */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';
import { launchChromium } from '../tests/support/chromium.mjs';
import { serveStatic } from '../scripts/serve.mjs';
import { randomScalar, sealBundle } from '../tests/support/fixtures.mjs';

const { values, positionals: dirs } = parseArgs({
  allowPositionals: true,
  options: { rounds: { type: 'string', default: '15' }, main: { type: 'boolean', default: false } },
});
const rounds = Number(values.rounds);
if (!(rounds >= 1) || dirs.length < 1) {
  console.error('usage: node bench/ab.mjs [--rounds N] [--main] PKG_DIR PKG_DIR...');
  process.exit(2);
}
const entry = values.main ? 'browser.js' : 'signing.js';
const KEYS = 100; // opens per round and build: each needs its own ClientKey and bundle
const mounts = Object.fromEntries(dirs.map((d, i) => [`/b${i}/`, resolve(d)]));
const server = await serveStatic({ ...mounts, '/': fileURLToPath(new URL('.', import.meta.url)) });
const browser = await launchChromium(chromium, []);
try {
  const pages = [];
  for (let i = 0; i < dirs.length; i++) {
    const page = await browser.newPage();
    // Any page of the origin will do: the build is imported into it.
    await page.goto(`http://localhost:${server.port}/results.md`);
    await page.evaluate(async (src) => {
      window.kit = await import(src);
      await window.kit.init();
    }, `/b${i}/${entry}`);
    pages.push(page);
  }
  const times = dirs.map(() => ({ keygen: [], stamp: [], open: [] }));
  for (let r = 0; r < rounds; r++) {
    for (const [i, page] of pages.entries()) {
      const pubs = await page.evaluate((n) => {
        window.keys = Array.from({ length: n }, () => window.kit.ClientKey.generate());
        return window.keys.map((k) => k.publicKeyHex);
      }, KEYS);
      const bundles = pubs.map((pub) => sealBundle(randomScalar(), pub));
      const t = await page.evaluate((sealed) => {
        const { ClientKey, Session } = window.kit;
        const now = Date.now();
        const response = {
          id: 'Session:00000000-0000-4000-8000-000000000000',
          accountId: 'InternalAccount:00000000-0000-4000-8000-000000000001',
          type: 'EMAIL_OTP',
          createdAt: new Date(now).toISOString(),
          updatedAt: new Date(now).toISOString(),
          expiresAt: new Date(now + 3_600_000).toISOString(),
        };
        /** µs per call of `n` calls of `f`. */
        const time = (n, f) => {
          const t0 = performance.now();
          for (let j = 0; j < n; j++) f(j);
          return ((performance.now() - t0) / n) * 1000;
        };
        const out = { keygen: [], stamp: [], open: [] };
        for (let b = 0; b < 5; b++) {
          out.keygen.push(time(40, () => {
            const k = ClientKey.generate();
            if (k.publicKeyHex.length !== 130) throw new Error('publicKeyHex');
            k.free();
          }));
        }
        const session = Session.fromClientKey(response, ClientKey.generate());
        const payload = JSON.stringify({ type: 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2', body: 'x'.repeat(280) });
        for (let b = 0; b < 5; b++) out.stamp.push(time(40, () => session.stamp(payload)));
        session.free();
        const per = sealed.length / 5;
        for (let b = 0; b < 5; b++) {
          out.open.push(time(per, (j) => {
            Session.open({ ...response, encryptedSessionSigningKey: sealed[b * per + j] }, window.keys[b * per + j]).free();
          }));
        }
        return out;
      }, bundles);
      for (const op of Object.keys(t)) times[i][op].push(...t[op]);
    }
  }
  const median = (a) => [...a].sort((x, y) => x - y)[a.length >> 1];
  for (const [i, dir] of dirs.entries()) {
    const row = Object.entries(times[i]).map(([op, v]) => `${op} ${median(v).toFixed(0)} µs`);
    console.log(`${dir} (${entry}): ${row.join(', ')}`);
  }
} finally {
  await browser.close();
  await server.close();
}
