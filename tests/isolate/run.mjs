#!/usr/bin/env node
// The isolated signer, `init({ isolate: 'worker' })`, end to end through the built package
// (pkg/browser.js) in every engine (tests/support/engines.mjs): headless Chromium
// (Debian's, via playwright-core), Firefox ESR (geckodriver) and WebKitGTK
// (WebKitWebDriver on Xvfb), the same checks in each:
//
// - stamps, signed retries and quote signatures made in the Worker verify here, in Node
//   (@noble/curves and node:crypto, tests/support/fixtures.mjs), under the session key
//   (sealed by the service's peer, @turnkey/crypto), as same-thread ones for that key do;
// - the same KitError codes and messages as same-thread mode, call by call (expired,
//   freed, consumed, bad input, ...), and the same isExpired answers;
// - custody: page script that imports the wasm-bindgen glue from the kit's URL and scans
//   every wasm memory it can reach FINDS the live session scalar in same-thread mode and
//   does NOT find it in isolated mode; an observer installed before the kit sees no key
//   byte cross the channel;
// - page script that replaces Worker, URL, MessageChannel or the channel's methods (after
//   init, or between the kit's load and init) intercepts nothing and cannot substitute
//   its own Worker script;
// - module pinning: the Worker runs only the kit's module, whatever page script that runs
//   after the kit loaded does (an inherited module_or_path: a cross-origin or blob: URL, a
//   getter returning a WebAssembly.Module; Object.prototype.then with a URL object; an
//   injected <base href>), and an app's module_or_path only when its bytes are the
//   package's (SIGNER_MODULE_REJECTED otherwise);
// - encryptOtp and openWalletExport in the Worker (checked with the peer);
// - the kit's WalletClient against the strict emulator (which serves this page), in both
//   key modes: EMAIL_OTP login, a quote, a refresh, a signed retry, a revoke; every stamp
//   verifies here (@noble/curves, node:crypto) under a session key the Worker holds;
// - the extra latency per stamp (median of 200), printed.
//
// Usage: node tests/browser.mjs isolate [--engine chromium|firefox|webkit|all] (default all)
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateKeyPairSync, sign } from 'node:crypto';
import { p256 } from '@noble/curves/nist.js';
import { hpkeDecrypt, hpkeEncrypt, generateP256KeyPair, uncompressRawPublicKey } from '@turnkey/crypto';
import { uint8ArrayFromHexString as fromHex, uint8ArrayToHexString as toHex } from '@turnkey/encoding';
import { serveStatic } from '../../scripts/serve.mjs';
import { collectPageErrors } from '../support/engines.mjs';
import { sessionResponse, pending202, quote, randomScalar, sealBundle, compressedPublicKeyHex, iso, HOUR } from '../support/fixtures.mjs';
import { emulatorInPage, verifySignedRequests } from '../support/emulator.mjs';
import { PKG_DIR as pkgDir, attemptIn, defineSuite, expectOk, expectStamp, hex, json, requirePkg, servePageAndEmulator, suiteChecks } from '../support/suite.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));
const MNEMONIC = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';

let engine;
/** Every check is named after the engine it ran in. */
const checks = suiteChecks(() => `[${engine}] `);
const { check, assert } = checks;

requirePkg('signer-worker.js');

const uncompressedHex = (scalar) => hex(p256.getPublicKey(scalar, false));

/** A throwaway enclave signer and a signed envelope over `data`, as the service writes it. */
function signer() {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const jwk = publicKey.export({ format: 'jwk' });
  return { privateKey, hex: `04${Buffer.from(jwk.x, 'base64url').toString('hex')}${Buffer.from(jwk.y, 'base64url').toString('hex')}` };
}
function envelope(data, by) {
  const bytes = Buffer.from(JSON.stringify(data), 'utf8');
  return JSON.stringify({
    version: 'v1.0.0', data: bytes.toString('hex'),
    dataSignature: sign('sha256', bytes, by.privateKey).toString('hex'), enclaveQuorumPublic: by.hex,
  });
}
function exportFor(publicKeyHex, by) {
  const sealed = hpkeEncrypt({ plainTextBuf: new TextEncoder().encode(MNEMONIC), targetKeyBuf: fromHex(publicKeyHex) });
  return envelope({ encappedPublic: toHex(uncompressRawPublicKey(sealed.slice(0, 33))), ciphertext: toHex(sealed.slice(33)), organizationId: 'org-1' }, by);
}

// What page script would have the signer's Worker instantiate instead of the kit's module
// (the attack routes of the checks "module pinning"), served at /evil/ and from another
// origin (127.0.0.1, with CORS): a valid module the Worker's glue drives, but not the
// signer's, observably (the wallet module's build without the enclave exports:
// openWalletExport is not in it), at signer.wasm and at pkg/embedded_wallet_kit_bg.wasm
// (where a relative path lands under an injected <base href="/evil/">); and the signer's
// own module with one custom section appended (the same code, other bytes) at tampered.wasm.
const evilDir = mkdtempSync(join(tmpdir(), 'ewk-isolate-evil-'));
mkdirSync(join(evilDir, 'pkg'));
copyFileSync(join(pkgDir, 'embedded_wallet_kit_no_enclave_bg.wasm'), join(evilDir, 'signer.wasm'));
copyFileSync(join(pkgDir, 'embedded_wallet_kit_no_enclave_bg.wasm'), join(evilDir, 'pkg', 'embedded_wallet_kit_bg.wasm'));
const customSection = Buffer.concat([Buffer.from([0, 10, 4]), Buffer.from('evil'), Buffer.from('12345')]);
writeFileSync(join(evilDir, 'tampered.wasm'), Buffer.concat([readFileSync(join(pkgDir, 'embedded_wallet_kit_bg.wasm')), customSection]));

// The strict emulator serves this page too: the isolated kit's WalletClient runs the
// wallet's flows against it.
const { server, origin, emulator } = await servePageAndEmulator(here, { '/evil/': evilDir });
const evilServer = await serveStatic({ '/': evilDir }, { host: ['127.0.0.1'], headers: { 'access-control-allow-origin': '*' } });
const evilOrigin = `http://127.0.0.1:${evilServer.port}`;

let browser;
/** The whole suite in `engine`; `browser` is its launch (tests/support/engines.mjs). */
async function suite() {
  const firstRequest = server.requests.length;
  /** Requests the server answered in this engine's run. */
  const requests = () => server.requests.slice(firstRequest);
  // Chromium: pages of one context. Firefox and WebKitGTK: one WebDriver session (one
  // profile, as the context) whose window loads each page in turn (they never overlap);
  // closing a page navigates away, which ends its Worker.
  const context = engine === 'chromium' ? await browser.newContext() : null;
  const pageErrors = [];
  const session = context ? null : collectPageErrors(await browser.newPage(), pageErrors);
  const open = async (query, base = origin) => {
    let page;
    if (context) {
      page = await context.newPage();
      page.on('pageerror', (err) => pageErrors.push(err.message));
    } else {
      page = Object.create(session);
      page.close = () => session.goto('about:blank');
    }
    try {
      await page.goto(`${base}/${query}`);
      await page.waitForFunction(() => window.kitLoaded === true, null, { timeout: 20_000 });
      const initError = await page.evaluate(() => window.initError);
      assert(initError === undefined, `init failed on ${query}: ${json(initError)}`);
    } catch (e) {
      await page.close();
      throw e;
    }
    return page;
  };

  // ---- both modes in one page: equivalence -------------------------------------------
  const both = await open('?mode=both');

  await check('init({ isolate: "worker" }) resolves to the isolated API; the Worker is the package\'s signer-worker.js', async () => {
    const out = expectOk(await attemptIn(both, async () => ({
      keys: Object.keys(window.ikit).sort(),
      frozen: Object.isFrozen(window.ikit) && Object.isFrozen(window.ikit.Session) && Object.isFrozen(window.ikit.Session.prototype),
      again: (await window.kit.init({ isolate: 'worker' })) === window.ikit,
      plain: await window.kit.init(),
    })), 'init');
    assert(json(out.keys) === json(['ClientKey', 'Session', 'WalletClient', 'encryptOtp', 'inspectPayload', 'openWalletExport', 'terminate']), json(out.keys));
    assert(out.frozen && out.again && out.plain === undefined, json(out));
    const workers = requests().filter((r) => r.path === '/pkg/signer-worker.js');
    assert(workers.length === 1 && workers[0].status === 200, json(workers));
  });

  const scalar = randomScalar();
  const scalarPub = compressedPublicKeyHex(scalar);
  const payloads = ['', 'x', '{"type":"ACTIVITY_TYPE_X","timestampMs":"1700000000000"}', 'Zoë ✓ 🎉 \u0000', 'p'.repeat(20_000)];
  await check('stamps, signRetry and signQuote made in the Worker verify in Node under the session\'s public key, as same-thread ones for the same key do; the same fields and header names', async () => {
    const pubs = expectOk(await attemptIn(both, async () => {
      window.sameKey = window.kit.ClientKey.generate();
      window.isoKey = await window.ikit.ClientKey.generate();
      return [window.sameKey.publicKeyHex, window.isoKey.publicKeyHex];
    }), 'generate');
    const base = sessionResponse({ expiresAt: iso(HOUR) });
    const responses = pubs.map((pub) => ({ ...base, encryptedSessionSigningKey: sealBundle(scalar, pub) }));
    const pending = pending202();
    const q = quote();
    const out = expectOk(await attemptIn(both, async ({ responses, payloads, pending, q }) => {
      window.sameS = window.kit.Session.open(responses[0], window.sameKey);
      window.isoS = await window.ikit.Session.open(JSON.stringify(responses[1]), window.isoKey);
      const run = async (s) => ({
        fields: [s.id, s.accountId, s.type, s.expiresAt.toISOString(), s.publicKeyHex, s.sandboxed, s.isExpired(), s.keyMode],
        stamps: await Promise.all(payloads.map((p) => s.stamp(p))),
        retry: await s.signRetry(pending),
        quote: await s.signQuote(q),
      });
      return { same: await run(window.sameS), iso: await run(window.isoS), consumed: [window.sameKey.consumed, window.isoKey.consumed] };
    }, { responses, payloads, pending, q }), 'open and sign');
    // Compared by verification, not bytes: two signatures of one payload by one key may
    // differ (hedged nonces); each mode's must verify under the same session key.
    assert(json(out.same.fields) === json(out.iso.fields), `isolated ${json(out.iso.fields)} != same-thread ${json(out.same.fields)}`);
    for (const mode of ['same', 'iso']) {
      payloads.forEach((p, i) => expectStamp(out[mode].stamps[i], p, scalarPub));
      assert(json(Object.keys(out[mode].retry)) === json(['Service-Wallet-Signature', 'Request-Id']) && out[mode].retry['Request-Id'] === pending.requestId,
        `${mode}: ${json(out[mode].retry)}`);
      expectStamp(out[mode].retry['Service-Wallet-Signature'], pending.payloadToSign, scalarPub);
      assert(json(Object.keys(out[mode].quote)) === json(['Service-Wallet-Signature']), `${mode}: ${json(out[mode].quote)}`);
      expectStamp(out[mode].quote['Service-Wallet-Signature'], q.payloadToSign, scalarPub);
    }
    assert(json(out.iso.fields) === json([base.id, base.accountId, 'EMAIL_OTP', new Date(base.expiresAt).toISOString(), scalarPub, false, false, 'sealed']),
      json(out.iso.fields));
    assert(json(out.consumed) === '[true,true]', `consumed ${json(out.consumed)}`);
  });

  await check('the same errors (code and message) as same-thread mode, call by call; the same consumed/closed states', async () => {
    const by = signer();
    const fx = {
      live: sessionResponse({ omitBundle: true, expiresAt: iso(HOUR) }),
      expired: sessionResponse({ omitBundle: true, expiresAt: iso(-1000) }),
      wrongKey: sessionResponse({ bundle: sealBundle(randomScalar(), uncompressedHex(randomScalar())) }),
      badBundle: sessionResponse({ bundle: '0OIl' }),
      badChecksum: sessionResponse({ bundle: sealBundle(randomScalar(), uncompressedHex(randomScalar())).replace(/.$/, (c) => (c === '2' ? '3' : '2')) }),
      sandbox: sessionResponse({ type: 'OAUTH' }),
      pending: pending202(),
      pendingExpired: pending202({ expiresAt: iso(-1000) }),
      quote: quote(),
      quoteExpired: quote({ expiresAt: iso(-1000) }),
      noPayloadQuote: quote({ omitPayload: true }),
      otpBundle: envelope({ organizationId: 'org', targetPublic: generateP256KeyPair().publicKeyUncompressed }, by),
      pin: by.hex,
    };
    const scenario = async ({ mode, fx }) => {
      const api = mode === 'isolated' ? window.ikit : window.kit;
      const out = [];
      const run = async (name, fn, keep = false) => {
        const r = await window.attempt(fn);
        out.push([name, r.ok ? { ok: true, value: keep ? r.value : typeof r.value } : { ok: false, error: r.error }]);
      };
      await run('new Session', () => new api.Session());
      await run('new ClientKey', () => new api.ClientKey());
      const k = await api.ClientKey.generate();
      await run('open: not a key', () => api.Session.open(fx.live, k.publicKeyHex));
      await run('open: no key', () => api.Session.open(fx.live));
      await run('open: other key', () => api.Session.open(fx.wrongKey, k));
      await run('open: bad bundle', () => api.Session.open(fx.badBundle, k));
      await run('open: bad checksum', () => api.Session.open(fx.badChecksum, k));
      await run('open: no bundle', () => api.Session.open(fx.live, k));
      await run('open: not JSON', () => api.Session.open('{', k));
      await run('consumed after failed opens', () => k.consumed, true);
      await run('encryptOtp', async () => (await api.encryptOtp(fx.otpBundle, '123456', k, { pin: fx.pin })).length > 0, true);
      await run('encryptOtp: bad code', () => api.encryptOtp(fx.otpBundle, 12, k, { pin: fx.pin }));
      await run('encryptOtp: other pin', () => api.encryptOtp(fx.otpBundle, '123456', k));
      await run('encryptOtp: not a key', () => api.encryptOtp(fx.otpBundle, '123456', {}, { pin: fx.pin }));
      await run('key signRetry: bad 202', () => k.signRetry({ payloadToSign: 'x' }));
      await run('key signRetry: expired 202', () => k.signRetry(fx.pendingExpired));
      const s = await api.Session.fromClientKey(fx.live, k);
      await run('fromClientKey key', () => s.publicKeyHex === k.compressedPublicKeyHex && k.consumed && s.keyMode === 'client-held', true);
      await run('open: consumed key', () => api.Session.open(fx.wrongKey, k));
      await run('fromClientKey: consumed key', () => api.Session.fromClientKey(fx.live, k));
      await run('key signRetry: consumed', () => k.signRetry(fx.pending));
      await run('encryptOtp: consumed', () => api.encryptOtp(fx.otpBundle, '123456', k, { pin: fx.pin }));
      await run('openWalletExport: consumed', () => api.openWalletExport('{}', k));
      await run('stamp(42)', () => s.stamp(42));
      await run('stamp(lone surrogate)', () => s.stamp('a\ud800'));
      await run('signRetry: bad 202', () => s.signRetry({ payloadToSign: 'x' }));
      await run('signRetry: not JSON', () => s.signRetry('{'));
      await run('signRetry: expired', () => s.signRetry(fx.pendingExpired));
      await run('signRetry', () => s.signRetry(fx.pending));
      await run('signRetry: again', () => s.signRetry(fx.pending));
      await run('signQuote: expired', () => s.signQuote(fx.quoteExpired));
      await run('signQuote: no payload', () => s.signQuote(fx.noPayloadQuote));
      await run('signQuote', () => s.signQuote(fx.quote));
      const expires = s.expiresAt.getTime();
      for (const [label, now] of [['undefined', undefined], ['null', null], ['expires - 1', expires - 1], ['expires - 0.5', expires - 0.5],
        ['expires', expires], ['expires + 0.5', expires + 0.5], ['Date(expires)', new Date(expires)], ['-1', -1], ['1e300', 1e300],
        ['-1e300', -1e300], ['NaN', NaN], ['Infinity', Infinity], ['Date(NaN)', new Date(NaN)], ['string', 'tomorrow'],
        ['object', { getTime: () => 0 }], ['bigint', 5n]]) {
        await run(`isExpired(${label})`, () => s.isExpired(now), true);
      }
      await run('free', () => s.free());
      await run('after free', () => [s.publicKeyHex, s.id === fx.live.id, s.sandboxed, s.type, s.keyMode], true);
      await run('stamp after free', () => s.stamp('x'));
      await run('signRetry after free', () => s.signRetry(fx.pending));
      await run('signQuote after free', () => s.signQuote(fx.quote));
      await run('free twice', () => s.close());
      const k2 = await api.ClientKey.generate();
      const expired = await api.Session.fromClientKey(fx.expired, k2);
      await run('expired: isExpired', () => expired.isExpired(), true);
      await run('expired: stamp', () => expired.stamp('x'));
      await run('expired: signRetry', () => expired.signRetry(fx.pending));
      await run('expired: signQuote', () => expired.signQuote(fx.quote));
      const k3 = await api.ClientKey.generate();
      await run('free key', () => k3.free());
      await run('freed key', () => [k3.consumed, /^04[0-9a-f]{128}$/.test(k3.publicKeyHex), k3.oidcNonce().length], true);
      await run('open: freed key', () => api.Session.open(fx.wrongKey, k3));
      await run('key signRetry: freed', () => k3.signRetry(fx.pending));
      const sb = await api.Session.sandbox(fx.sandbox);
      await run('sandbox', async () => [sb.sandboxed, sb.publicKeyHex, sb.type, sb.keyMode === 'sandbox', await sb.stamp('x'), await sb.signQuote(fx.quote)], true);
      await run('sandbox: not JSON', () => api.Session.sandbox('{'));
      await run('sandbox: no id', () => api.Session.sandbox({ ...fx.sandbox, id: 7 }));
      await run('sandbox: free', () => sb.free());
      await run('sandbox: after free', () => [sb.sandboxed, sb.publicKeyHex, sb.type, sb.keyMode], true);
      // oidcNonce: the nonce over the hex that is sent (uncompressed, or compressed with
      // { compressed: true }), checked against SHA-256 here; bad options, the same errors.
      const k4 = await api.ClientKey.generate();
      const sha256Hex = async (text) => Array.from(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text))), (b) => b.toString(16).padStart(2, '0')).join('');
      const [plainNonce, compressedNonce] = [await sha256Hex(k4.publicKeyHex), await sha256Hex(k4.compressedPublicKeyHex)];
      await run('oidcNonce forms', () => [
        k4.oidcNonce() === plainNonce, k4.oidcNonce(undefined) === plainNonce, k4.oidcNonce(null) === plainNonce, k4.oidcNonce({}) === plainNonce,
        k4.oidcNonce({ compressed: false }) === plainNonce, k4.oidcNonce({ compressed: undefined }) === plainNonce,
        k4.oidcNonce({ compressed: true }) === compressedNonce, k4.oidcNonce({ [Symbol('x')]: 1 }) === plainNonce,
        k4.oidcNonce(Object.defineProperty({}, 'compressed', { value: true })) === compressedNonce,
      ], true);
      const revoked = Proxy.revocable({}, {});
      revoked.revoke();
      for (const [label, options] of [['string', 'compressed'], ['true', true], ['1', 1], ['array', []], ['function', () => {}],
        ['unknown member', { compress: true }], ['extra member', { compressed: true, x: 1 }], ['compressed: 1', { compressed: 1 }],
        ['compressed: "true"', { compressed: 'true' }], ['compressed: null', { compressed: null }],
        ['compressed: Boolean', { compressed: Object(true) }],
        ['throwing Proxy', new Proxy({}, { ownKeys() { throw new Error('trap'); } })], ['revoked Proxy', revoked.proxy],
        ['throwing getter', { get compressed() { throw new Error('getter'); } }]]) {
        await run(`oidcNonce(${label})`, () => k4.oidcNonce(options) === compressedNonce, true);
      }
      await k4.free();
      await run('oidcNonce: freed key', () => [k4.oidcNonce() === plainNonce, k4.oidcNonce({ compressed: true }) === compressedNonce], true);
      await run('oidcNonce: freed key, bad options', () => k4.oidcNonce({ compressed: 'yes' }), true);
      await run('inspectPayload', () => api.inspectPayload('{"type":"ACTIVITY_TYPE_X","parameters":{"amount":12}}'), true);
      await run('inspectPayload: duplicate member', () => api.inspectPayload('{"a":1,"a":2}'));
      await run('inspectPayload: opaque', () => api.inspectPayload('dG9rZW4='), true);
      return out;
    };
    const same = expectOk(await attemptIn(both, scenario, { mode: 'same', fx }), 'same-thread scenario');
    const isolated = expectOk(await attemptIn(both, scenario, { mode: 'isolated', fx }), 'isolated scenario');
    assert(same.length === isolated.length && same.length > 60, `${same.length} vs ${isolated.length} steps`);
    for (let i = 0; i < same.length; i++) {
      assert(json(same[i]) === json(isolated[i]), `step ${same[i][0]}: same-thread ${json(same[i][1])} != isolated ${json(isolated[i][1])}`);
    }
    // The parity must be about something: the expected codes.
    const codes = Object.fromEntries(isolated.map(([name, r]) => [name, r.ok ? 'ok' : r.error.code]));
    const kitErrors = isolated.filter(([, r]) => !r.ok);
    assert(kitErrors.every(([, r]) => r.error.kit === true && r.error.name === 'KitError'), json(kitErrors));
    const expected = {
      'new Session': 'INVALID_INPUT', 'new ClientKey': 'INVALID_INPUT', 'open: not a key': 'INVALID_INPUT', 'open: no key': 'INVALID_INPUT',
      'open: other key': 'DECRYPTION_FAILED', 'open: bad bundle': 'INVALID_BUNDLE', 'open: bad checksum': 'BUNDLE_CHECKSUM',
      'encryptOtp': 'ok', 'encryptOtp: bad code': 'INVALID_INPUT', 'encryptOtp: other pin': 'DECRYPTION_FAILED',
      'encryptOtp: not a key': 'INVALID_INPUT', 'key signRetry: bad 202': 'INVALID_PENDING_SIGNATURE',
      'key signRetry: expired 202': 'REQUEST_EXPIRED', 'open: consumed key': 'KEY_CONSUMED', 'fromClientKey: consumed key': 'KEY_CONSUMED',
      'key signRetry: consumed': 'KEY_CONSUMED', 'encryptOtp: consumed': 'KEY_CONSUMED', 'stamp(42)': 'INVALID_INPUT',
      'stamp(lone surrogate)': 'INVALID_INPUT', 'signRetry: bad 202': 'INVALID_PENDING_SIGNATURE', 'signRetry: expired': 'REQUEST_EXPIRED',
      'signRetry': 'ok', 'signRetry: again': 'REQUEST_ALREADY_SIGNED', 'signQuote: expired': 'QUOTE_EXPIRED',
      'signQuote: no payload': 'INVALID_INPUT', 'isExpired(NaN)': 'INVALID_INPUT', 'isExpired(Date(NaN))': 'INVALID_INPUT',
      'isExpired(string)': 'INVALID_INPUT', 'isExpired(object)': 'INVALID_INPUT', 'stamp after free': 'SESSION_CLOSED',
      'signRetry after free': 'SESSION_CLOSED', 'signQuote after free': 'SESSION_CLOSED', 'expired: stamp': 'SESSION_EXPIRED',
      'expired: signRetry': 'SESSION_EXPIRED', 'expired: signQuote': 'SESSION_EXPIRED', 'open: freed key': 'KEY_CONSUMED',
      'key signRetry: freed': 'KEY_CONSUMED', 'inspectPayload: duplicate member': 'INVALID_INPUT',
      'oidcNonce(string)': 'INVALID_INPUT', 'oidcNonce(true)': 'INVALID_INPUT', 'oidcNonce(1)': 'INVALID_INPUT', 'oidcNonce(array)': 'INVALID_INPUT',
      'oidcNonce(function)': 'INVALID_INPUT', 'oidcNonce(unknown member)': 'INVALID_INPUT', 'oidcNonce(extra member)': 'INVALID_INPUT',
      'oidcNonce(compressed: 1)': 'INVALID_INPUT', 'oidcNonce(compressed: "true")': 'INVALID_INPUT', 'oidcNonce(compressed: null)': 'INVALID_INPUT',
      'oidcNonce(compressed: Boolean)': 'INVALID_INPUT', 'oidcNonce(throwing Proxy)': 'INVALID_INPUT', 'oidcNonce(revoked Proxy)': 'INVALID_INPUT',
      'oidcNonce(throwing getter)': 'INVALID_INPUT', 'oidcNonce: freed key, bad options': 'INVALID_INPUT',
    };
    for (const [name, code] of Object.entries(expected)) assert(codes[name] === code, `${name}: expected ${code}, got ${codes[name]}`);
    const value = (name) => isolated.find(([n]) => n === name)[1].value;
    assert(json(value('after free')) === json([null, true, false, 'EMAIL_OTP', 'client-held']), `after free ${json(value('after free'))}`);
    assert(value('isExpired(expires - 1)') === false && value('isExpired(expires)') === true && value('isExpired(expires - 0.5)') === false
      && value('isExpired(expires + 0.5)') === true,
      'isExpired boundary');
    assert(value('fromClientKey key') === true && value('expired: isExpired') === true, 'fromClientKey / expiry');
    assert(json(value('sandbox: after free')) === json([false, null, 'OAUTH', 'sandbox']), `sandbox after free ${json(value('sandbox: after free'))}`);
    assert(json(value('oidcNonce forms')) === json(Array(9).fill(true)) && json(value('oidcNonce: freed key')) === '[true,true]', 'oidcNonce forms');
    for (const [name, r] of isolated.filter(([n, r]) => n.startsWith('oidcNonce') && !r.ok)) {
      assert(/compressed|oidcNonce options/.test(r.error.message), `${name}: ${r.error.message}`);
    }
  });

  await check('an isolated Session or ClientKey is refused by the same-thread API, WalletClient and SessionStore; an argument a Worker cannot receive is INVALID_INPUT', async () => {
    const out = expectOk(await attemptIn(both, async () => {
      const key = await window.ikit.ClientKey.generate();
      const s = await window.ikit.Session.sandbox({ id: 'Session:00000000-0000-4000-8000-000000000001', accountId: 'InternalAccount:1', type: 'EMAIL_OTP', expiresAt: new Date(Date.now() + 60e3).toISOString() });
      const client = new window.kit.WalletClient({ transport: () => ({ status: 200, body: {} }) });
      const codes = [];
      for (const fn of [
        () => window.kit.Session.open({}, key), () => window.ikit.Session.open({}, window.kit.ClientKey.generate()),
        () => client.revokeSession(s), () => client.refresh(s),
        async () => (await window.kit.SessionStore.open({ name: 'isolate-e2e' })).save(s),
        // What cannot be copied to a Worker (a function inside the response).
        () => window.ikit.Session.open({ id: 'Session:x', toJSON: () => ({}) }, key),
      ]) codes.push((await window.attempt(fn)).error?.code);
      return codes;
    }), 'mixing');
    assert(json(out) === json(['INVALID_INPUT', 'INVALID_INPUT', 'INVALID_INPUT', 'INVALID_INPUT', 'INVALID_INPUT', 'INVALID_INPUT']), json(out));
  });

  await check('openWalletExport in the Worker: the mnemonic comes out; the key is consumed (same as same-thread)', async () => {
    const by = signer();
    const pubs = expectOk(await attemptIn(both, async () => {
      window.exportKeys = [window.kit.ClientKey.generate(), await window.ikit.ClientKey.generate()];
      return window.exportKeys.map((k) => k.publicKeyHex);
    }), 'generate');
    const out = expectOk(await attemptIn(both, async ({ envelopes, pin }) => {
      const [a, b] = window.exportKeys;
      return {
        mnemonics: [window.kit.openWalletExport(envelopes[0], a, { pin }), await window.ikit.openWalletExport({ encryptedWalletCredentials: JSON.parse(envelopes[1]) }, b, { pin })],
        consumed: [a.consumed, b.consumed],
        again: (await window.attempt(() => window.ikit.openWalletExport(envelopes[1], b, { pin }))).error?.code,
      };
    }, { envelopes: pubs.map((p) => exportFor(p, by)), pin: by.hex }), 'openWalletExport');
    assert(json(out) === json({ mnemonics: [MNEMONIC, MNEMONIC], consumed: [true, true], again: 'KEY_CONSUMED' }), json(out));
  });

  await check('encryptOtp in the Worker: the enclave (the peer) opens it to the code and the key\'s public key; ClientKey.signRetry verifies', async () => {
    const target = generateP256KeyPair();
    const by = signer();
    const bundle = envelope({ organizationId: 'org', targetPublic: target.publicKeyUncompressed }, by);
    const pending = pending202();
    const out = expectOk(await attemptIn(both, async ({ bundle, pin, pending }) => {
      const key = await window.ikit.ClientKey.generate();
      return {
        sealed: await window.ikit.encryptOtp(bundle, '482913', key, { pin }),
        retry: await key.signRetry(pending),
        publicKeyHex: key.publicKeyHex,
        compressed: key.compressedPublicKeyHex,
        consumed: key.consumed,
      };
    }, { bundle, pin: by.hex, pending }), 'encryptOtp');
    const sealed = JSON.parse(out.sealed);
    const plain = JSON.parse(new TextDecoder().decode(hpkeDecrypt({
      ciphertextBuf: fromHex(sealed.ciphertext), encappedKeyBuf: fromHex(sealed.encappedPublic), receiverPriv: target.privateKey,
    })));
    assert(plain.otp_code === '482913' && plain.public_key === out.compressed && /^0[23][0-9a-f]{64}$/.test(plain.public_key), json(plain));
    expectStamp(out.retry['Service-Wallet-Signature'], pending.payloadToSign, out.compressed);
    assert(out.consumed === false, 'encryptOtp and signRetry do not consume the key');
  });

  await check('replacing Worker, URL, MessageChannel, postMessage and the message getters AFTER init intercepts nothing', async () => {
    const pending = pending202();
    const out = expectOk(await attemptIn(both, async ({ pending, live }) => {
      const restore = window.hijack();
      try {
        const key = await window.ikit.ClientKey.generate();
        const s = await window.ikit.Session.fromClientKey(live, key);
        return { pub: s.publicKeyHex, stamp: await s.stamp('after hijack'), retry: await s.signRetry(pending), hits: [...window.hijacked] };
      } finally {
        restore();
      }
    }, { pending, live: sessionResponse({ omitBundle: true }) }), 'hijacked');
    assert(out.hits.length === 0, `intercepted: ${json(out.hits)}`);
    expectStamp(out.stamp, 'after hijack', out.pub);
    expectStamp(out.retry['Service-Wallet-Signature'], pending.payloadToSign, out.pub);
  });

  await check('latency: median per stamp over 200 stamps, same-thread vs isolated (printed)', async () => {
    const out = expectOk(await attemptIn(both, async () => {
      const payload = JSON.stringify({ type: 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2', timestampMs: String(Date.now()), parameters: { amount: '1000', currency: 'USDC' } });
      const measure = async (fn) => {
        for (let i = 0; i < 20; i++) await fn(); // warm-up
        const times = [];
        const start = performance.now();
        for (let i = 0; i < 200; i++) {
          const t = performance.now();
          await fn();
          times.push(performance.now() - t);
        }
        const mean = (performance.now() - start) / 200; // finer than one timing (performance.now() is coarse here)
        times.sort((a, b) => a - b);
        return { median: times[100], p90: times[180], mean };
      };
      return { same: await measure(() => window.sameS.stamp(payload)), isolated: await measure(() => window.isoS.stamp(payload)) };
    }), 'latency');
    const f = (x) => x.toFixed(3);
    const line = (x) => `median ${f(x.median)} ms, p90 ${f(x.p90)}, mean ${f(x.mean)}`;
    console.log(`# latency per stamp (200 sequential, ${engine}): same-thread ${line(out.same)}; isolated ${line(out.isolated)}; extra: median ${f(out.isolated.median - out.same.median)} ms, mean ${f(out.isolated.mean - out.same.mean)} ms`);
    // The mean, not the median: Firefox and WebKitGTK clamp performance.now() to 1 ms.
    assert(out.isolated.mean > 0 && out.same.mean > 0, json(out));
  });

  await check('terminate(): every isolated key and session acts freed; init({ isolate }) starts a new Worker', async () => {
    const out = expectOk(await attemptIn(both, async () => {
      const before = window.isoS;
      const key = await window.ikit.ClientKey.generate();
      await window.ikit.terminate();
      const codes = [];
      for (const fn of [() => before.stamp('x'), () => window.ikit.Session.open({}, key), () => key.signRetry('{}'), () => window.ikit.ClientKey.generate()]) {
        codes.push((await window.attempt(fn)).error?.code);
      }
      const fields = [before.publicKeyHex, key.consumed];
      const kit2 = await window.kit.init({ isolate: 'worker' });
      const k2 = await kit2.ClientKey.generate();
      return { codes, fields, same: kit2 === window.ikit, fresh: k2.consumed === false };
    }), 'terminate');
    assert(json(out.codes) === json(['SESSION_CLOSED', 'KEY_CONSUMED', 'KEY_CONSUMED', 'NOT_INITIALIZED']), json(out.codes));
    assert(json(out.fields) === json([null, true]) && out.fresh, json(out));
    assert(requests().filter((r) => r.path === '/pkg/signer-worker.js').length === 2, 'a second Worker');
  });

  await check('init({ isolate }) with a bad value is INVALID_INPUT', async () => {
    const out = expectOk(await attemptIn(both, async () => [
      (await window.attempt(() => window.kit.init({ isolate: 'iframe' }))).error?.code,
      (await window.attempt(() => window.kit.init({ isolate: true }))).error?.code,
    ]), 'bad isolate');
    assert(json(out) === json(['INVALID_INPUT', 'INVALID_INPUT']), json(out));
  });
  await check('init({ isolate: null }) is same-thread init, as isolate: false or undefined', async () => {
    const out = expectOk(await attemptIn(both, async () => [
      await window.kit.init({ isolate: null }), await window.kit.init({ isolate: null, passkeys: false }), window.kit.ClientKey.generate().consumed,
    ]), 'isolate: null');
    assert(json(out) === json([null, null, false]), json(out));
  });
  await both.close();

  // ---- custody: what page script finds in the wasm memory it can reach ----------------
  /** Opens a real session on `page` with `scalar` sealed to a key made there; returns the stamp check. */
  const openReal = async (page, api, secret) => {
    const pub = expectOk(await attemptIn(page, async (api) => {
      window.key = await (api === 'isolated' ? window.ikit : window.kit).ClientKey.generate();
      return window.key.publicKeyHex;
    }, api), 'generate');
    const response = sessionResponse({ bundle: sealBundle(secret, pub) });
    const stamp = expectOk(await attemptIn(page, async ({ api, response }) => {
      window.session = await (api === 'isolated' ? window.ikit : window.kit).Session.open(response, window.key);
      return window.session.stamp('custody');
    }, { api, response }), 'open');
    expectStamp(stamp, 'custody', compressedPublicKeyHex(secret));
  };

  await check('same-thread: page script that imports the glue from the kit\'s URL FINDS the live session scalar in wasm memory', async () => {
    const seen = server.requests.length;
    const page = await open('?mode=same');
    const loaded = server.requests.slice(seen).map((r) => r.path);
    assert(loaded.includes('/pkg/signer-platform.js') && !['signer-boot.js', 'signer.js', 'signer-worker.js'].some((f) => loaded.includes(`/pkg/${f}`)),
      `init() loads only what the isolated signer captures when the kit loads, none of its code: ${json(loaded)}`);
    const secret = randomScalar();
    await openReal(page, 'same', secret);
    const found = expectOk(await attemptIn(page, (s) => window.probe(s), [hex(secret), hex(randomScalar())]), 'probe');
    assert(json(found) === '[true,false]', `probe ${json(found)} (expected: the live scalar found, a random one not)`);
    await page.close();
  });

  await check('isolated with passkeys: true: the page loads the wallet module (without the enclave exports) for the passkey API only (its ClientKey stays NOT_INITIALIZED); passkeys: { module_or_path } is INVALID_INPUT', async () => {
    const seen = server.requests.length;
    const page = await open('?mode=isolated');
    const out = expectOk(await attemptIn(page, async () => {
      const stale = (await window.attempt(() => window.kit.init({ isolate: 'worker', passkeys: { module_or_path: '/elsewhere.wasm' } }))).error?.code;
      const same = (await window.kit.init({ isolate: 'worker', passkeys: true })) === window.ikit;
      const supported = typeof window.kit.passkey.isSupported();
      const pageKey = (await window.attempt(() => window.kit.ClientKey.generate())).error?.code;
      const isoKey = (await window.ikit.ClientKey.generate()).consumed;
      return { stale, same, supported, pageKey, isoKey };
    }), 'passkeys');
    assert(json(out) === json({ stale: 'INVALID_INPUT', same: true, supported: 'boolean', pageKey: 'NOT_INITIALIZED', isoKey: false }), json(out));
    const wasm = server.requests.slice(seen).filter((r) => r.path.endsWith('.wasm')).map((r) => r.path);
    // The Worker's build (with the enclave exports), then the page's, for passkeys only.
    assert(json([...wasm].sort()) === json(['/pkg/embedded_wallet_kit_bg.wasm', '/pkg/embedded_wallet_kit_no_enclave_bg.wasm']), `.wasm fetched: ${json(wasm)}`);
    await page.close();
  });

  await check('isolated: the same probe finds NO copy of the live session scalar (nor after the page inits the same-thread module too)', async () => {
    const page = await open('?mode=isolated');
    const secret = randomScalar();
    await openReal(page, 'isolated', secret);
    const found = expectOk(await attemptIn(page, async (s) => {
      const first = await window.probe(s);
      await window.kit.init(); // the page's own module instance, initialised as in same-thread mode
      const stamp = await window.session.stamp('still live');
      return { first, second: await window.probe(s), stamp };
    }, [hex(secret)]), 'probe');
    assert(json(found.first) === '[false]' && json(found.second) === '[false]', `probe ${json(found)}`);
    expectStamp(found.stamp, 'still live', compressedPublicKeyHex(secret)); // the session was live during the probe
    await page.close();
  });

  await check('isolated: an observer installed BEFORE the kit sees every message on the channel, and no key byte among them', async () => {
    const page = await open('?mode=isolated&spy');
    const secret = randomScalar();
    await openReal(page, 'isolated', secret);
    const exportBy = signer();
    const pub = await page.evaluate(async () => {
      window.exportKey = await window.ikit.ClientKey.generate();
      return window.exportKey.publicKeyHex;
    });
    expectOk(await attemptIn(page, async ({ env, pin }) => {
      await window.session.signQuote({ payloadToSign: 'q', expiresAt: new Date(Date.now() + 60e3).toISOString() });
      return window.ikit.openWalletExport(env, window.exportKey, { pin });
    }, { env: exportFor(pub, exportBy), pin: exportBy.hex }), 'more traffic');
    const dump = await page.evaluate(() => window.spiedDump());
    const text = json(dump);
    assert(dump.length > 10 && text.includes('"ready":true') && text.includes('"op":"stamp"') && text.includes(MNEMONIC),
      `the observer saw too little: ${text.slice(0, 300)}`);
    const reversed = Uint8Array.from(secret).reverse();
    for (const bytes of [secret, reversed]) {
      for (const form of [hex(bytes), Buffer.from(bytes).toString('base64'), Buffer.from(bytes).toString('base64url')]) {
        assert(!text.includes(form), 'a session scalar crossed the channel');
      }
    }
    await page.close();
  });

  await check('page script that imports the isolated signer\'s file and sets it up first with a platform of its own: the kit\'s init({ isolate }) fails closed and never uses that platform', async () => {
    const page = await open('?mode=none');
    const out = expectOk(await attemptIn(page, async () => {
      const signer = await import(new URL('signer.js', window.pkgBase).href);
      const { platform } = await import(new URL('signer-platform.js', window.pkgBase).href);
      const { KitError } = await import(new URL('kit-error.js', window.pkgBase).href);
      const { WalletClient, custodies } = await import(new URL('wallet-client.js', window.pkgBase).href);
      let starts = 0;
      const startSignerWorker = () => {
        starts += 1;
        throw new Error('evil starter');
      };
      await window.attempt(() => signer.initIsolated({ __proto__: null, KitError, platform, startSignerWorker, WalletClient, custodies }, { isolate: 'worker' }, () => {}));
      const byAttacker = starts;
      const kitInit = await window.attempt(() => window.kit.init({ isolate: 'worker' }));
      return { byAttacker, byKit: starts - byAttacker, kitOk: kitInit.ok, kitCode: kitInit.error?.code, kitMessage: kitInit.error?.message };
    }), 'first caller');
    assert(out.byAttacker === 1 && out.byKit === 0 && out.kitOk === false, json(out));
    assert(out.kitCode === 'NOT_INITIALIZED' && /set up by other code first/.test(out.kitMessage), json(out));
    await page.close();
  });

  await check('page script that sets the isolated signer up first with a platform that throws partway: the kit\'s init({ isolate }) still fails closed', async () => {
    const page = await open('?mode=none');
    const out = expectOk(await attemptIn(page, async () => {
      const signer = await import(new URL('signer.js', window.pkgBase).href);
      const { platform } = await import(new URL('signer-platform.js', window.pkgBase).href);
      const { KitError } = await import(new URL('kit-error.js', window.pkgBase).href);
      const handedOver = [];
      const setPrototypeOf = (obj) => {
        handedOver.push(obj);
        throw new Error('evil platform');
      };
      const evil = { __proto__: null, KitError, platform: { ...platform, setPrototypeOf }, startSignerWorker: () => {} };
      const byAttacker = await window.attempt(() => signer.initIsolated(evil, { isolate: 'worker' }, () => {}));
      const kitInit = await window.attempt(() => window.kit.init({ isolate: 'worker' }));
      return { attackerOk: byAttacker.ok, handedOver: handedOver.length, kitOk: kitInit.ok, kitCode: kitInit.error?.code, kitMessage: kitInit.error?.message };
    }), 'first caller, throwing');
    assert(out.attackerOk === false && out.handedOver === 1, json(out));
    assert(out.kitOk === false && out.kitCode === 'NOT_INITIALIZED' && /set up by other code first/.test(out.kitMessage), json(out));
    await page.close();
  });

  await check('an import map injected after the kit loaded redirects none of its lazily loaded modules (isolated signer, store, WalletClient, keeper), nor what the isolated signer\'s files would import', async () => {
    const seen = server.requests.length;
    const page = await open('?mode=none');
    const out = expectOk(await attemptIn(page, async () => {
      const evil = new URL('/evil-module.js', location.href).href;
      const pkg = new URL(window.pkgBase, location.href).href;
      const lazy = ['signer.js', 'signer-boot.js', 'session-store-impl.js', 'wallet-client-impl.js', 'session-keeper-impl.js'];
      // The Worker's script and the glue it imports too (a page's import maps do not reach
      // a Worker; the page resolved the glue when the kit loaded).
      const exact = Object.fromEntries([...lazy, 'signer-worker.js', 'embedded_wallet_kit.js'].map((f) => [new URL(f, pkg).href, evil]));
      // What the isolated signer's files would import, redirected for them alone (a scope
      // keyed by their own URL, which no module had resolved anything from).
      const theirImports = Object.fromEntries(['kit-error.js', 'signer-platform.js', 'signer-boot.js', 'guard.js', 'platform.js']
        .map((f) => [new URL(f, pkg).href, evil]));
      const ownScopes = Object.fromEntries(['signer.js', 'signer-boot.js'].map((f) => [new URL(f, pkg).href, theirImports]));
      const map = document.createElement('script');
      map.type = 'importmap';
      // Exact URLs, the package's directory as a prefix, and scopes.
      // A bare specifier no module resolved before: whether the engine took the map at all.
      const control = { 'ewk-control': new URL('/control-module.js', location.href).href };
      map.textContent = JSON.stringify({ imports: { ...exact, [pkg]: '/evil/', ...control }, scopes: { [pkg]: exact, ...ownScopes } });
      document.head.append(map);
      const mapTaken = await import('ewk-control').then((m) => m.mapped === true, () => false);
      const ikit = await window.kit.init({ isolate: 'worker' });
      const isolatedKey = (await ikit.ClientKey.generate()).publicKeyHex.length;
      await window.kit.init();
      const store = await window.kit.SessionStore.open();
      const client = new window.kit.WalletClient({ sandbox: true, transport: () => ({ status: 200, body: {} }) });
      const keeper = (await window.attempt(() => window.kit.SessionKeeper.start(client, null))).error?.code;
      const flow = (await window.attempt(() => client.revokeSession(null))).error?.code;
      return { mapTaken, isolatedKey, evilIsolated: ikit.evil === true, evilStore: store.evil === true, keeper, flow, evilLoaded: window.evilModuleLoaded === true };
    }), 'lazy loads');
    // Chromium and WebKitGTK merge a map added later; Firefox refuses it.
    const mapTaken = engine !== 'firefox';
    assert(json(out) === json({ mapTaken, isolatedKey: 130, evilIsolated: false, evilStore: false, keeper: 'INVALID_INPUT', flow: 'INVALID_INPUT', evilLoaded: false }), json(out));
    const paths = server.requests.slice(seen).map((r) => r.path);
    assert(!paths.some((p) => p.includes('evil')), `requested: ${json(paths.filter((p) => p.includes('evil')))}`);
    for (const f of ['signer.js', 'signer-boot.js', 'session-store-impl.js', 'wallet-client-impl.js', 'session-keeper-impl.js']) {
      assert(paths.includes(`/pkg/${f}`), `the kit's own ${f} was not loaded: ${json(paths)}`);
    }
    await page.close();
  });

  await check('isolated: Worker, URL, MessageChannel and the channel\'s methods replaced after the kit loaded, BEFORE init: the kit still starts its own Worker and nothing is intercepted', async () => {
    const page = await open('?mode=isolated&hijack');
    const hits = await page.evaluate(() => window.hijacked);
    assert(json(hits) === '[]', `intercepted: ${json(hits)}`);
    assert(!requests().some((r) => r.path === '/evil-worker.js'), 'the substitute Worker script was loaded');
    const secret = randomScalar();
    await openReal(page, 'isolated', secret);
    await page.close();
  });

  await check('isolated: script that runs after init and patches Object.prototype.then, Promise (global, prototype, species) and common builtins sees no reply: no stamp, header or mnemonic; the results stay right', async () => {
    const page = await open('?mode=isolated');
    const by = signer();
    const exportPub = await page.evaluate(async () => {
      window.watchedExportKey = await window.ikit.ClientKey.generate();
      return window.watchedExportKey.publicKeyHex;
    });
    const fx = { live: sessionResponse({ omitBundle: true }), pending: pending202(), keyPending: pending202(), q: quote(), env: exportFor(exportPub, by), pin: by.hex };
    const out = expectOk(await attemptIn(page, async (fx) => {
      // After one turn: the harness's own await on this function has read its promise's
      // constructor before anything is patched.
      await 0;
      const seen = [];
      const { defineProperty, getOwnPropertyDescriptor } = Object;
      const { apply } = Reflect;
      const stringify = JSON.stringify;
      let busy = false;
      const note = (what, x) => {
        if (busy) return;
        busy = true;
        let text;
        try {
          text = stringify(x);
        } catch {
          text = '(unserialisable)';
        }
        seen[seen.length] = `${what}: ${text}`;
        busy = false;
      };
      const saved = [];
      const put = (obj, name, descriptor) => {
        saved[saved.length] = [obj, name, getOwnPropertyDescriptor(obj, name)];
        defineProperty(obj, name, { configurable: true, ...descriptor });
      };
      const construct = Reflect.construct;
      const wrap = (obj, name, label) => {
        const original = obj[name];
        put(obj, name, {
          writable: true,
          value: function () {
            note(label, { receiver: this, first: arguments[0] });
            return new.target ? construct(original, arguments, new.target) : apply(original, this, arguments);
          },
        });
      };
      const NP = Promise;
      const nativeThen = NP.prototype.then;
      // A watcher would see what a promise resolves with through any of these.
      put(Object.prototype, 'then', { get() { note('Object.prototype.then', this); return undefined; } });
      put(NP.prototype, 'then', {
        writable: true,
        value: function then(onFulfilled, onRejected) {
          return apply(nativeThen, this, [(v) => (note('Promise.prototype.then', v), typeof onFulfilled === 'function' ? onFulfilled(v) : v), onRejected]);
        },
      });
      class Spy extends NP {
        constructor(executor) {
          super((resolve, reject) => executor((v) => (note('species', v), resolve(v)), reject));
        }
      }
      put(NP.prototype, 'constructor', { writable: true, value: Spy });
      put(NP, Symbol.species, { get: () => Spy });
      put(globalThis, 'Promise', { writable: true, value: Spy });
      // Patched with index loops: this code must not itself use what it patches.
      const targets = [
        Array.prototype, ['push', 'pop', 'map', 'forEach', 'includes', 'indexOf', 'slice', 'join', 'concat', 'filter', Symbol.iterator], 'Array.prototype',
        Array, ['isArray', 'from', 'of'], 'Array',
        Object, ['setPrototypeOf', 'getPrototypeOf', 'create', 'freeze', 'keys', 'entries', 'assign', 'defineProperty', 'hasOwn', 'getOwnPropertyDescriptor'], 'Object',
        Object.prototype, ['hasOwnProperty', 'toString', 'valueOf'], 'Object.prototype',
        Reflect, ['apply', 'get', 'set', 'ownKeys', 'defineProperty', 'getOwnPropertyDescriptor', 'construct'], 'Reflect',
        JSON, ['parse', 'stringify'], 'JSON',
        Map.prototype, ['get', 'set', 'has', 'delete'], 'Map.prototype',
        WeakMap.prototype, ['get', 'set', 'has'], 'WeakMap.prototype',
        FinalizationRegistry.prototype, ['register', 'unregister'], 'FinalizationRegistry.prototype',
        Function.prototype, ['call', 'apply', 'bind'], 'Function.prototype',
        Number, ['isFinite'], 'Number', Math, ['trunc'], 'Math', Date, ['now'], 'Date',
        String.prototype, ['toString', 'slice', 'indexOf'], 'String.prototype',
        globalThis, ['Symbol', 'WeakMap', 'FinalizationRegistry', 'Date', 'Error'], 'globalThis',
      ];
      for (let i = 0; i < targets.length; i += 3) {
        const names = targets[i + 1];
        for (let j = 0; j < names.length; j++) wrap(targets[i], names[j], `${targets[i + 2]}.${String(names[j])}`);
      }
      const results = {};
      try {
        const key = await window.ikit.ClientKey.generate();
        const s = await window.ikit.Session.fromClientKey(fx.live, key);
        results.pub = s.publicKeyHex;
        results.stamp = await s.stamp('watched?');
        results.retry = await s.signRetry(fx.pending);
        results.quote = await s.signQuote(fx.q);
        const key2 = await window.ikit.ClientKey.generate();
        results.key2 = key2.compressedPublicKeyHex;
        results.keyRetry = await key2.signRetry(fx.keyPending);
        results.mnemonic = await window.ikit.openWalletExport(fx.env, window.watchedExportKey, { pin: fx.pin });
        results.inspected = await window.ikit.inspectPayload('{"type":"ACTIVITY_TYPE_X"}');
        await s.free();
        try {
          await s.stamp('after free');
        } catch (e) {
          results.afterFree = e.code;
        }
        // The watcher works: an ordinary promise resolved with an ordinary object reaches it.
        results.seenByKitCalls = seen.length;
        new NP((resolve) => resolve({ control: 'seen' }));
      } finally {
        for (let i = saved.length - 1; i >= 0; i--) {
          const entry = saved[i];
          if (entry[2] === undefined) delete entry[0][entry[1]];
          else defineProperty(entry[0], entry[1], entry[2]);
        }
      }
      return { seen, results };
    }, fx), 'watched');
    const { seen, results } = out;
    assert(!json(seen).includes(MNEMONIC), 'a watcher saw the mnemonic');
    // WebKit alone lets the watcher see an iteration over a one-element array holding
    // nothing ([undefined]) during the kit's calls: no value of any reply. Anything else
    // seen, in any engine, fails.
    const byKit = seen.slice(0, results.seenByKitCalls);
    const valueFree = (e) => e === 'Array.prototype.Symbol(Symbol.iterator): {"receiver":[null]}';
    const carried = engine === 'webkit' ? byKit.filter((e) => !valueFree(e)) : byKit;
    if (carried.length !== byKit.length) console.log(`# webkit: ${byKit.length - carried.length} value-free array iterations seen during the kit's calls`);
    assert(carried.length === 0, `a watcher saw ${carried.length} things, e.g. ${json(carried.slice(0, 6))}`);
    // Only the control's own lookups come after the kit's calls (engines differ in what a
    // plain promise touches: Firefox and WebKit also read the species); its then is one.
    assert(seen.includes('Object.prototype.then: {"control":"seen"}'), `the watcher did not work: ${json(seen)}`);
    expectStamp(results.stamp, 'watched?', results.pub);
    expectStamp(results.retry['Service-Wallet-Signature'], fx.pending.payloadToSign, results.pub);
    expectStamp(results.quote['Service-Wallet-Signature'], fx.q.payloadToSign, results.pub);
    expectStamp(results.keyRetry['Service-Wallet-Signature'], fx.keyPending.payloadToSign, results.key2);
    assert(results.mnemonic === MNEMONIC && results.afterFree === 'SESSION_CLOSED', json(results));
    assert(typeof results.inspected === 'object' && json(results.inspected).includes('ACTIVITY_TYPE_X'), json(results.inspected));
    await page.close();
  });

  await check('both entries in one page: the signing entry\'s init() fetches only the signing-only .wasm and readies only its own exports; the main entry\'s init() then fetches the full one (without the enclave exports)', async () => {
    const seen = server.requests.length;
    const wasm = () => server.requests.slice(seen).filter((r) => r.path.endsWith('.wasm')).map((r) => r.path);
    const page = await open('?mode=none');
    const first = expectOk(await attemptIn(page, async () => {
      window.skit = await import(new URL('signing.js', window.pkgBase).href);
      await window.skit.init();
      window.sKey = window.skit.ClientKey.generate();
      return { key: window.sKey.publicKeyHex.length, main: (await window.attempt(() => window.kit.ClientKey.generate())).error?.code };
    }), 'signing entry');
    assert(json(first) === json({ key: 130, main: 'NOT_INITIALIZED' }), json(first));
    assert(json(wasm()) === json(['/pkg/embedded_wallet_kit_signing_bg.wasm']), `.wasm fetched: ${json(wasm())}`);
    const second = expectOk(await attemptIn(page, async () => {
      await window.kit.init();
      const mainKey = window.kit.ClientKey.generate();
      return {
        main: mainKey.publicKeyHex.length,
        signingStillReady: window.skit.ClientKey.generate().consumed,
        crossed: (await window.attempt(() => window.kit.Session.open({}, window.sKey))).error?.message.includes('key must be a ClientKey'),
      };
    }), 'main entry');
    assert(json(second) === json({ main: 130, signingStillReady: false, crossed: true }), json(second));
    assert(json(wasm()) === json(['/pkg/embedded_wallet_kit_signing_bg.wasm', '/pkg/embedded_wallet_kit_no_enclave_bg.wasm']), `.wasm fetched: ${json(wasm())}`);
    await page.close();
  });

  await check('a .wasm that does not load: init({ isolate }) rejects NOT_INITIALIZED and a later call retries', async () => {
    const page = await open('?mode=none');
    const out = expectOk(await attemptIn(page, async () => {
      const bad = await window.attempt(() => window.kit.init({ isolate: 'worker', module_or_path: '/pkg/missing.wasm' }));
      const kit = await window.kit.init({ isolate: 'worker' });
      const s = await kit.Session.sandbox({ id: 'Session:00000000-0000-4000-8000-000000000002', accountId: 'InternalAccount:1', type: 'OAUTH',
        expiresAt: new Date(Date.now() + 60e3).toISOString() });
      return { bad: bad.error, stamp: await s.stamp('x') };
    }), 'retry');
    assert(out.bad?.code === 'NOT_INITIALIZED' && /isolated signer/.test(out.bad.message), json(out.bad));
    assert(out.stamp === 'sandbox-valid-signature', json(out));
    await page.close();
  });

  // ---- module pinning: the Worker runs only the kit's own module ------------------------
  const ownWasm = `${origin}/pkg/embedded_wallet_kit_bg.wasm`;
  const evilWasm = `${evilOrigin}/signer.wasm`;
  /** The paths of requests under /evil/ (this origin) and on the other origin since `seen`. */
  const evilRequests = (seen, evilSeen) => [
    ...server.requests.slice(seen).filter((r) => r.path.startsWith('/evil/')).map((r) => r.path),
    ...evilServer.requests.slice(evilSeen).map((r) => `${evilOrigin}${r.path}`),
  ];

  await check('module pinning: an inherited module_or_path (Object.prototype) set after the kit loaded, as a cross-origin URL, a page blob: URL or a getter returning a WebAssembly.Module, is never read: the Worker runs the kit\'s module', async () => {
    const [seen, evilSeen] = [server.requests.length, evilServer.requests.length];
    const page = await open('?mode=none');
    const out = expectOk(await attemptIn(page, async ({ evilWasm }) => {
      // The page script's own copy of its module (the one request the other origin should see).
      const bytes = await (await fetch(evilWasm)).arrayBuffer();
      const blob = URL.createObjectURL(new Blob([bytes], { type: 'application/wasm' }));
      const compiled = await WebAssembly.compile(bytes);
      let getterReads = 0;
      const out = {};
      for (const [name, descriptor] of [
        ['cross-origin URL', { value: evilWasm }],
        ['blob: URL', { value: blob }],
        ['getter returning a WebAssembly.Module', { get() { getterReads++; return compiled; } }],
      ]) {
        Object.defineProperty(Object.prototype, 'module_or_path', { configurable: true, ...descriptor });
        let r;
        try {
          r = await window.attempt(async () => {
            const ikit = await window.kit.init({ isolate: 'worker' });
            const own = await window.signerIsKits(ikit);
            await ikit.terminate();
            return own;
          });
        } finally {
          delete Object.prototype.module_or_path;
        }
        out[name] = r.ok ? r.value : r.error.code;
      }
      out.getterReads = getterReads;
      return out;
    }, { evilWasm }), 'inherited module_or_path');
    assert(json(out) === json({ 'cross-origin URL': true, 'blob: URL': true, 'getter returning a WebAssembly.Module': true, getterReads: 0 }), json(out));
    const evil = evilRequests(seen, evilSeen);
    assert(json(evil) === json([`${evilOrigin}/signer.wasm`]), `requested by the kit: ${json(evil)} (only the page's own fetch expected)`);
    await page.close();
  });

  await check('module pinning: Object.prototype.then set after the kit loaded, with the app passing a URL object: the URL is not resolved as a thenable; the Worker runs the kit\'s module', async () => {
    const [seen, evilSeen] = [server.requests.length, evilServer.requests.length];
    const page = await open('?mode=none');
    const out = expectOk(await attemptIn(page, async ({ evilWasm, ownWasm }) => {
      let thenReads = 0;
      // A `then` for URL objects only (any other object stays no thenable).
      Object.defineProperty(Object.prototype, 'then', {
        configurable: true,
        get() {
          if (!(this instanceof URL)) return undefined;
          thenReads++;
          return (resolve) => resolve(evilWasm);
        },
      });
      let r;
      try {
        r = await window.attempt(async () => {
          const ikit = await window.kit.init({ isolate: 'worker', module_or_path: new URL(ownWasm) });
          return window.signerIsKits(ikit);
        });
      } finally {
        delete Object.prototype.then;
      }
      return { own: r.ok ? r.value : r.error.code, thenReads };
    }, { evilWasm, ownWasm }), 'thenable');
    assert(json(out) === json({ own: true, thenReads: 0 }), json(out));
    assert(evilRequests(seen, evilSeen).length === 0, `requested: ${json(evilRequests(seen, evilSeen))}`);
    await page.close();
  });

  await check('module pinning: a <base href> injected after the kit loaded moves no relative module_or_path: it resolves against the document\'s URL as it was when the kit loaded', async () => {
    const [seen, evilSeen] = [server.requests.length, evilServer.requests.length];
    const page = await open('?mode=none');
    const out = expectOk(await attemptIn(page, async () => {
      const base = document.createElement('base');
      base.href = '/evil/';
      document.head.prepend(base);
      let r;
      try {
        r = await window.attempt(async () => {
          const ikit = await window.kit.init({ isolate: 'worker', module_or_path: 'pkg/embedded_wallet_kit_bg.wasm' });
          return window.signerIsKits(ikit);
        });
      } finally {
        base.remove();
      }
      return r.ok ? r.value : r.error.code;
    }), 'base href');
    assert(out === true, json(out));
    assert(evilRequests(seen, evilSeen).length === 0, `requested: ${json(evilRequests(seen, evilSeen))}`);
    assert(server.requests.slice(seen).some((r) => r.path === '/pkg/embedded_wallet_kit_bg.wasm'), 'the kit\'s module was not fetched');
    await page.close();
  });

  await check('module pinning: an app-supplied module_or_path is used only when its bytes are the kit\'s signer module (SHA-256 fixed at build): other or tampered modules (URL, bytes, Response, Request) and any WebAssembly.Module are SIGNER_MODULE_REJECTED; a thenable or a getter is INVALID_INPUT', async () => {
    const page = await open('?mode=none');
    const out = expectOk(await attemptIn(page, async ({ ownWasm }) => {
      const real = await (await fetch(ownWasm)).arrayBuffer();
      const tampered = await (await fetch('/evil/tampered.wasm')).arrayBuffer();
      const other = await (await fetch('/evil/signer.wasm')).arrayBuffer();
      const out = {};
      // `options` is what init() gets with isolate: 'worker' (not spread in: that would run a getter).
      const run = async (name, options) => {
        const r = await window.attempt(async () => {
          const ikit = await window.kit.init(Object.assign(options, { isolate: 'worker' }));
          const own = await window.signerIsKits(ikit);
          await ikit.terminate();
          return own;
        });
        out[name] = r.ok ? r.value : r.error.code;
        if (!r.ok && r.error.code === 'INVALID_INPUT' && !/module_or_path|isolate/.test(r.error.message)) out[name] += `: ${r.error.message}`;
      };
      await run('tampered URL', { module_or_path: '/evil/tampered.wasm' });
      await run('other module URL', { module_or_path: '/evil/signer.wasm' });
      await run('other module bytes', { module_or_path: other });
      await run('tampered bytes (Uint8Array)', { module_or_path: new Uint8Array(tampered) });
      await run('tampered Response', { module_or_path: new Response(tampered, { headers: { 'content-type': 'application/wasm' } }) });
      await run('tampered Request', { module_or_path: new Request('/evil/tampered.wasm') });
      await run('the kit\'s own module, compiled', { module_or_path: await WebAssembly.compile(real) });
      await run('a thenable', { module_or_path: { then: (resolve) => resolve(ownWasm) } });
      await run('a promise', { module_or_path: Promise.resolve(ownWasm) });
      let getterReads = 0;
      await run('an own getter', Object.defineProperty({}, 'module_or_path', { enumerable: true, get() { getterReads++; return ownWasm; } }));
      const isolateGetter = await window.attempt(() => window.kit.init(Object.defineProperty({}, 'isolate', { enumerable: true, get() { getterReads++; return 'worker'; } })));
      out['an isolate getter'] = isolateGetter.error?.code;
      out.getterReads = getterReads;
      await run('the kit\'s bytes', { module_or_path: real });
      await run('a Response of the kit\'s bytes', { module_or_path: new Response(real, { headers: { 'content-type': 'application/wasm' } }) });
      await run('the kit\'s URL object', { module_or_path: new URL(ownWasm) });
      return out;
    }, { ownWasm }), 'app-supplied');
    const R = 'SIGNER_MODULE_REJECTED';
    assert(json(out) === json({
      'tampered URL': R, 'other module URL': R, 'other module bytes': R, 'tampered bytes (Uint8Array)': R, 'tampered Response': R, 'tampered Request': R,
      'the kit\'s own module, compiled': R, 'a thenable': 'INVALID_INPUT', 'a promise': 'INVALID_INPUT', 'an own getter': 'INVALID_INPUT',
      'an isolate getter': 'INVALID_INPUT', getterReads: 0, 'the kit\'s bytes': true, 'a Response of the kit\'s bytes': true, 'the kit\'s URL object': true,
    }), json(out));
    await page.close();
  });

  await check('isolated WalletClient (kit.WalletClient) against the strict emulator, both key modes: EMAIL_OTP login, quote, refresh, signed retry, revoke; sessions are the Worker\'s; every stamp verifies in Node', async () => {
    const page = await open('?mode=isolated', emulator.origin);
    const out = expectOk(await attemptIn(page, async (emulatorInPage) => {
      const { ikit, kit } = window;
      const { call, transport, loginByEmail, fundedQuote } = (0, eval)(`(${emulatorInPage})`)();
      const code = async (fn) => (await window.attempt(fn)).error?.code;
      const config = await call('/emulator', 'GET', '/config');
      const runs = [];
      for (const keys of ['sealed', 'client-held']) {
        const sent = [];
        const pending = [];
        const client = new ikit.WalletClient({
          transport: transport(sent), keys, otpSignerPin: config.otpSignerPublicKey, processing: { firstDelayMs: 5, maxDelayMs: 20 }, onPending: (e) => pending.push(e.operation),
        });
        await call('/emulator', 'POST', '/processing', { count: 0 });
        // The client-held login asks for its otpEncryptionTargetBundle: the encrypted OTP login.
        const { account, credential, session } = await loginByEmail(client, { challenge: keys === 'client-held' });
        const quote = await fundedQuote(account.accountId, 'isolated WalletClient');
        const transaction = await client.executeQuote(session, quote);
        // From here the emulator answers each signed request PROCESSING once first.
        await call('/emulator', 'POST', '/processing', { count: 1 });
        const refreshed = await client.refresh(session);
        const updated = await client.updateAccount(refreshed, account.accountId, { privacyEnabled: true }); // a signed retry
        const keysSeen = [session.publicKeyHex, refreshed.publicKeyHex];
        await client.revokeSession(session);
        await client.revokeSession(refreshed);
        await call('/emulator', 'POST', '/processing', { count: 0 });
        runs.push({
          pending,
          keys,
          clientKeys: client.keys,
          isWalletClient: client instanceof kit.WalletClient,
          isolatedSessions: session instanceof ikit.Session && refreshed instanceof ikit.Session,
          sessionIds: [session.id, refreshed.id],
          keysSeen,
          quotePayload: quote.payloadToSign,
          transaction: transaction.status,
          updated: updated.privacyEnabled === true || updated.privateEnabled === true,
          freed: [session.publicKeyHex, refreshed.publicKeyHex],
          afterRevoke: await code(() => client.refresh(refreshed)),
          notASession: await code(() => client.refresh({})),
          noKey: await code(() => client.verifyOauth(credential.id, 'token', {})),
          sent,
        });
      }
      return {
        runs,
        kitKeys: Object.keys(ikit).sort(),
        frozen: Object.isFrozen(ikit.WalletClient) && Object.isFrozen(ikit.WalletClient.prototype) && ikit.WalletClient.name === 'WalletClient',
        ownMembers: Object.getOwnPropertyNames(ikit.WalletClient.prototype).sort(),
        // The package's class still needs the same-thread init() (not called on this page).
        plain: await code(() => new kit.WalletClient({ transport: () => ({}) })),
      };
    }, String(emulatorInPage)), 'isolated WalletClient');
    await page.close();
    assert(json(out.kitKeys) === json(['ClientKey', 'Session', 'WalletClient', 'encryptOtp', 'inspectPayload', 'openWalletExport', 'terminate']), json(out.kitKeys));
    assert(out.frozen && json(out.ownMembers) === json(['constructor']) && out.plain === 'NOT_INITIALIZED', json(out));
    for (const run of out.runs) {
      const where = `[${run.keys}] `;
      assert(run.clientKeys === run.keys && run.isWalletClient && run.isolatedSessions && run.updated && run.transaction === 'COMPLETED', where + json({ ...run, sent: undefined }));
      assert(run.keysSeen.every((k) => /^0[23][0-9a-f]{64}$/.test(k)) && run.keysSeen[0] !== run.keysSeen[1], where + json(run.keysSeen));
      assert(run.freed.every((k) => k === undefined) && run.afterRevoke === 'SESSION_CLOSED' && run.notASession === 'INVALID_INPUT' && run.noKey === 'INVALID_INPUT', where + json({ ...run, sent: undefined }));
      // Every signed request's stamp verifies under one of the sessions' keys.
      const { signed, ops } = verifySignedRequests(run.sent, { quotePayload: run.quotePayload, keys: run.keysSeen, where });
      assert(signed.length >= 5 && signed.every((r) => r.status >= 200 && r.status < 300), where + json(signed.map((r) => [r.method, r.path, r.status, r.response.slice(0, 200)])));
      // The client-held login's 202 is signed by the key that became the session key.
      const loginRetry = signed.find((r) => /\/verify$/.test(r.path));
      assert(run.keys === 'sealed' ? loginRetry === undefined : loginRetry !== undefined, where + json(ops));
      // PROCESSING: each signed request after the quote was answered so once, told to
      // onPending and re-sent identical (the same signature: never re-stamped).
      assert(json(run.pending) === json(['refresh', 'updateAccount', 'revokeSession', 'revokeSession']), where + json(run.pending));
      const resent = signed.filter((r, i) => i > 0 && signed[i - 1].headers['Service-Wallet-Signature'] === r.headers['Service-Wallet-Signature']);
      assert(resent.length === 4 && resent.every((r) => signed[signed.indexOf(r) - 1].response.includes('PROCESSING')), where + json(ops));
      console.log(`#   ${where}${signed.length} stamps verified: ${ops.join(', ')}`);
    }
  });

  await check('no page errors', async () => {
    assert(pageErrors.length === 0, `page errors: ${pageErrors.join('; ')}`);
  });
  await context?.close();
  await session?.close();
}

export default defineSuite(import.meta, {
  checks,
  async run(e, b) {
    [engine, browser] = [e, b];
    await suite();
  },
  async close() {
    await server.close();
    await evilServer.close();
    emulator.proc.kill();
    rmSync(evilDir, { recursive: true, force: true });
  },
});
