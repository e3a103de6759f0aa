// The shipped modules keep enough small functions for V8 to inline their hot calls.
// V8 (Chromium, Node) scales its wasm inlining budget by the module's share of function
// bodies under 50 bytes (module-decoder.cc's kSmallFunctionThreshold; inlining-tree.h's
// BudgetScaleFactor: the lowest budget at 25% or less, the full one at 50% or more). The
// wallet module built with LTO and plain `wasm-opt -Oz` had 27% and every operation ran
// about 25% slower in Chromium: V8 inlined 2 of the 16 `__multi3` calls of the wide
// multiplication. scripts/build-pkg.sh keeps single-caller functions out of line
// (`--one-caller-inline-max-function-size 0`); the build script says why.
// A build change that brings the share below MIN_SHARE fails here, before a bench would
// show it. Needs `make build` first.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const pkg = fileURLToPath(new URL('../../pkg/', import.meta.url));

/** V8's "small function": a body of fewer than this many bytes. */
const SMALL_BODY = 50;
/** The signing module's share when it ran at full speed with plain -Oz (33.8%). */
const MIN_SHARE = 0.33;

/** Sizes of the function bodies in a wasm binary's code section. */
function bodySizes(bytes) {
  let p = 8;
  const leb = () => {
    let r = 0;
    let shift = 0;
    let b;
    do {
      b = bytes[p++];
      r += (b & 0x7f) * 2 ** shift;
      shift += 7;
    } while (b & 0x80);
    return r;
  };
  while (p < bytes.length) {
    const id = bytes[p++];
    const size = leb();
    const end = p + size;
    if (id === 10) {
      const sizes = [];
      for (let n = leb(); n > 0; n--) {
        const body = leb();
        sizes.push(body);
        p += body;
      }
      return sizes;
    }
    p = end;
  }
  throw new Error('no code section');
}

for (const name of ['embedded_wallet_kit_bg.wasm', 'embedded_wallet_kit_no_enclave_bg.wasm', 'embedded_wallet_kit_signing_bg.wasm']) {
  test(`${name}: at least ${MIN_SHARE * 100}% of its functions are under ${SMALL_BODY} bytes (V8's inlining budget)`, () => {
    const sizes = bodySizes(readFileSync(`${pkg}${name}`));
    assert.ok(sizes.length > 100, `${name}: ${sizes.length} functions (run make build)`);
    const share = sizes.filter((s) => s < SMALL_BODY).length / sizes.length;
    assert.ok(share >= MIN_SHARE, `${name}: ${(share * 100).toFixed(1)}% of ${sizes.length} functions are small; V8 would inline less (see scripts/build-pkg.sh)`);
  });
}
