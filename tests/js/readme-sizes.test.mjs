// The contributor README states the budgets scripts/size.mjs enforces and no measured
// figure; the size figures the npm README states are the built package's, each within 1%
// of what size.mjs measures in pkg/. Needs `make build` first.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { BUDGETS, measure, sizeTables, total } from '../../scripts/size.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const pkgDir = join(root, 'pkg');
const read = (file) => readFileSync(join(root, file), 'utf8');

/** gzip totals of the two budgeted tables and of the wallet page with the enclave exports, as size.mjs measures them. */
function measured() {
  const [[, signingFiles], [, walletFiles], [withEnclaveTitle, withEnclaveFiles]] = sizeTables(pkgDir);
  assert.match(withEnclaveTitle, /^passkey wallet page with the enclave exports/);
  const gzip = (files) => total(files.map((f) => measure(pkgDir, f))).gzip;
  return { signing: gzip(signingFiles), wallet: gzip(walletFiles), withEnclave: gzip(withEnclaveFiles) };
}

const within = (stated, actual, what) => {
  const off = Math.abs(stated - actual) / actual;
  assert.ok(off <= 0.01, `${what}: the README says ${stated} B, pkg/ measures ${actual} B (${(off * 100).toFixed(1)}% off): update the README`);
};

test('the repository README states the budgets size.mjs enforces, and no measured figure', () => {
  const section = read('README.md').split('## Size')[1].split('\n## ')[0];
  const budget = (start) => {
    const line = section.split('\n').find((l) => l.startsWith(start));
    assert.ok(line, `README.md's Size table has a row starting ${start}`);
    const m = /\| (\d+) KB \|$/.exec(line.trim());
    assert.ok(m, `the row ${start} ends with "| N KB |"`);
    return Number(m[1]) * 1024;
  };
  assert.equal(budget('| signing-only page'), BUDGETS.signing, 'the signing-only page budget the README states is size.mjs\'s');
  assert.equal(budget('| passkey wallet page'), BUDGETS.wallet, 'the passkey wallet page budget the README states is size.mjs\'s');
  // Figures in prose go stale: `make size` prints them.
  assert.doesNotMatch(read('README.md'), /\d[\d,]* B\b/, 'README.md states a byte count: `make size` prints those');
});

test('the npm README states the measured totals of a passkey wallet page (without and with the enclave exports) and a signing-only page', () => {
  const sizes = measured();
  const text = read('npm/README.md').replace(/\s+/g, ' ');
  const wallet = /A passkey wallet page \([^)]*\) comes to ([\d.]+) KB gzip/.exec(text);
  const withEnclave = /which `init\(\{ enclave: true \}\)` loads instead \(([\d.]+) KB gzip for the same page\)/.exec(text);
  const signing = /loads the signing module: ([\d.]+) KB gzip/.exec(text);
  assert.ok(signing && wallet && withEnclave, 'the npm README states the three sizes in KB gzip');
  within(Number(signing[1]) * 1024, sizes.signing, 'signing-only page (npm README)');
  within(Number(wallet[1]) * 1024, sizes.wallet, 'passkey wallet page (npm README)');
  within(Number(withEnclave[1]) * 1024, sizes.withEnclave, 'passkey wallet page with init({ enclave: true }) (npm README)');
});

test('the npm README\'s "about N KB" of the store\'s and keeper\'s code and of the testing module are what pkg/ measures (within 5%)', () => {
  const text = read('npm/README.md').replace(/\s+/g, ' ');
  const about = (re, what) => {
    const m = re.exec(text);
    assert.ok(m, `the npm README states ${what} in KB gzip`);
    return Number(m[1]) * 1024;
  };
  const gzip = (files) => total(files.map((f) => measure(pkgDir, f))).gzip;
  const testing = sizeTables(pkgDir).find(([title]) => title.startsWith('testing module'))[1];
  const checks = [
    [about(/Its code \(about ([\d.]+) KB gzip\) is loaded by/, 'SessionStore\'s code'), gzip(['session-store-impl.js']), 'SessionStore\'s code'],
    [about(/loads a small module next to the entry \(about ([\d.]+) KB gzip\)/, 'SessionKeeper\'s module'), gzip(['session-keeper-impl.js']), 'SessionKeeper\'s module'],
    [about(/a separate entry and WebAssembly module, about ([\d.]+) KB gzip/, 'the testing module'), gzip(testing), 'the testing module'],
  ];
  for (const [stated, actual, what] of checks) {
    const off = Math.abs(stated - actual) / actual;
    assert.ok(off <= 0.05, `${what}: the npm README says about ${(stated / 1024).toFixed(1)} KB, pkg/ measures ${actual} B (${(off * 100).toFixed(0)}% off)`);
  }
});
