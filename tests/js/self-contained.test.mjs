// Every reference in the repository resolves inside it: no source, test, script or README
// points at the design notes, the spec or issue numbers kept elsewhere, which a reader of
// the repository cannot open (docs/protocol.md is the wire contract in the tree). The
// CHANGELOG keeps its history as written, and bench/results.md is generated.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

const root = fileURLToPath(new URL('../..', import.meta.url));
const OUTSIDE = /DESIGN(\.md)? ?§|DESIGN\.md|\bspec ?§|protocol-notes|custody-notes|\.\.\/shared\/|\b[Ii]ssues? #?\d+/;
const KEPT = new Set(['CHANGELOG.md', 'bench/results.md', 'tests/js/self-contained.test.mjs']);

test('no file refers to a document or issue outside the repository', () => {
  const files = execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8' }).split('\0').filter(Boolean);
  const found = [];
  for (const file of files) {
    if (KEPT.has(file) || /\.(png|wasm|gz|tgz|ico|lock)$/.test(file)) continue;
    let text;
    try {
      text = readFileSync(join(root, file), 'utf8');
    } catch {
      continue; // a submodule or a path that is not a file
    }
    text.split('\n').forEach((line, i) => {
      if (OUTSIDE.test(line)) found.push(`${file}:${i + 1}: ${line.trim().slice(0, 120)}`);
    });
  }
  assert.deepEqual(found, [], `references that leave the repository:\n${found.join('\n')}`);
});
