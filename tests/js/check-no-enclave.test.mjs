// scripts/check-no-enclave.mjs, which fails the build unless the full glue can drive the
// build without the enclave exports: it passes the two builds in pkg/, and fails pairs of
// small hand-assembled modules that differ in an export's presence or type, or where the
// second imports more. Needs `make build` first (for the pkg/ pair).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const script = fileURLToPath(new URL('../../scripts/check-no-enclave.mjs', import.meta.url));
const pkg = fileURLToPath(new URL('../../pkg/', import.meta.url));

const leb = (n) => {
  const out = [];
  do {
    let byte = n & 0x7f;
    n >>>= 7;
    if (n) byte |= 0x80;
    out.push(byte);
  } while (n);
  return out;
};
const name = (text) => [...leb(text.length), ...Buffer.from(text)];
const section = (id, entries) => [id, ...leb(entries.flat().length + leb(entries.length).length), ...leb(entries.length), ...entries.flat()];

/**
 * A module whose functions take `params` i32s and return one i32 (0): `imports` are
 * [module, name, params], `exports` [name, params] (each its own function).
 */
function assemble({ imports = [], exports = [] }) {
  const arities = [...new Set([...imports.map((i) => i[2]), ...exports.map((e) => e[1])])];
  const type = (params) => arities.indexOf(params);
  const bytes = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00];
  bytes.push(...section(1, arities.map((params) => [0x60, ...leb(params), ...Array(params).fill(0x7f), 1, 0x7f])));
  if (imports.length) bytes.push(...section(2, imports.map(([module, field, params]) => [...name(module), ...name(field), 0x00, ...leb(type(params))])));
  bytes.push(...section(3, exports.map(([, params]) => leb(type(params)))));
  bytes.push(...section(7, exports.map(([field], i) => [...name(field), 0x00, ...leb(imports.length + i)])));
  bytes.push(...section(10, exports.map(() => [4, 0x00, 0x41, 0x00, 0x0b])));
  return Uint8Array.from(bytes);
}

function check(a, b) {
  const dir = mkdtempSync(join(tmpdir(), 'ewk-check-'));
  try {
    const paths = [a, b].map((bytes, i) => {
      const path = join(dir, `${i}.wasm`);
      writeFileSync(path, bytes);
      return path;
    });
    return spawnSync(process.execPath, [script, ...paths], { encoding: 'utf8' });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const full = { imports: [['wbg', 'log', 1]], exports: [['encryptOtp', 2], ['stamp', 1]] };

test('the two builds in pkg/ pass; the signing module in place of the second does not', () => {
  const run = (second) => spawnSync(process.execPath, [script, join(pkg, 'embedded_wallet_kit_bg.wasm'), join(pkg, second)], { encoding: 'utf8' });
  assert.equal(run('embedded_wallet_kit_no_enclave_bg.wasm').status, 0);
  const signing = run('embedded_wallet_kit_signing_bg.wasm');
  assert.equal(signing.status, 1, signing.stderr);
  assert.match(signing.stderr, /exports that differ from the glue's/);
});

test('the same surface passes; fewer imports too', () => {
  const same = check(assemble(full), assemble(full));
  assert.equal(same.status, 0, same.stderr);
  const fewer = check(assemble(full), assemble({ ...full, imports: [] }));
  assert.equal(fewer.status, 0, fewer.stderr);
});

test('an export of another type, a missing export, an import the glue lacks or one of another type fail', () => {
  const cases = [
    [{ ...full, exports: [['encryptOtp', 3], ['stamp', 1]] }, /exports that differ.*encryptOtp \(function \(7f,7f,7f\)->\(7f\)\)/s],
    [{ ...full, exports: [['stamp', 1]] }, /exports that differ.*encryptOtp/s],
    [{ ...full, imports: [['wbg', 'log', 1], ['wbg', 'extra', 1]] }, /imports the glue does not provide: wbg\.extra/],
    [{ ...full, imports: [['wbg', 'log', 2]] }, /imports the glue does not provide: wbg\.log \(function \(7f,7f\)->\(7f\)\)/],
  ];
  for (const [lean, message] of cases) {
    const run = check(assemble(full), assemble(lean));
    assert.equal(run.status, 1, `${JSON.stringify(lean)}: ${run.stdout}`);
    assert.match(run.stderr, message);
  }
});
