// The security tests run in full or fail: a test marked todo or skip reports success
// under `node --test`, so a known bug parked that way would leave `make test` green.
// This scans the test sources for such markers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const TESTS = fileURLToPath(new URL('..', import.meta.url));
// An options member todo/skip/only, or a method call of that name on test, t, it or describe.
const MARKER = /\b(?:todo|skip|only)\s*:|\.(?:todo|skip|only)\s*\(/;
const SELF = fileURLToPath(import.meta.url);
const FRAMEWORK_BUILDS = join(TESTS, 'frameworks', 'out');

function sources(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    // Installed packages and the e2e apps' builds (Vite's dist/, tests/frameworks/out/) are not test sources.
    if (entry.isDirectory()) return entry.name === 'node_modules' || entry.name === 'dist' || path === FRAMEWORK_BUILDS ? [] : sources(path);
    return /\.(?:mjs|js)$/.test(entry.name) && path !== SELF ? [path] : [];
  });
}

test('no test under tests/ is marked todo, skip or only', () => {
  const found = [];
  for (const file of sources(TESTS)) {
    readFileSync(file, 'utf8').split('\n').forEach((line, i) => {
      const code = line.replace(/\/\/.*$/, '');
      if (MARKER.test(code)) found.push(`${file.slice(TESTS.length)}:${i + 1}: ${line.trim()}`);
    });
  }
  assert.deepEqual(found, [], 'tests marked todo/skip/only');
});

test('the marker pattern sees the forms it is meant to catch', () => {
  // Built from parts, so that this file's own text carries none of the markers it tests.
  const [asTodo, asSkip, asOnly] = ['todo', 'skip', 'only'];
  for (const form of [`test('x', { ${asTodo}: 'bug' }, fn)`, `t.${asSkip}("no memory")`, `test.${asSkip}(`, `{ ${asSkip}: 'later' }`, `describe.${asOnly}(`]) {
    assert.ok(MARKER.test(form), form);
  }
  for (const form of ['load and list skip them', 'const skipped = 1', 'todoList.push(x)']) assert.ok(!MARKER.test(form), form);
});
