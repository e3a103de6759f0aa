#!/usr/bin/env node
// Passkeys end to end, through the built package (pkg/browser.js), in every engine
// (tests/support/engines.mjs): headless Chromium (Debian's, via playwright-core) with a
// DevTools-protocol virtual authenticator, and Firefox ESR (geckodriver) with the W3C
// WebDriver virtual authenticator — both ctap2, internal, resident key, user
// verification — run the same checks. WebKitGTK has no WebAuthn: there the unsupported
// path is checked (isSupported() false, ceremonies PASSKEY_UNSUPPORTED at once, before
// init() with no .wasm fetched). Registration and authentication run
// through the kit (npm/passkey.js and the module's option builders and credential readers) and are checked by an independent verifier,
// @simplewebauthn/server: every assertion passkey.authenticate returns is verified there,
// and tampered copies (signature, authenticatorData, clientDataJSON, challenge) must be
// refused. userHandle: present (UTF-8 of user.id) for a resident credential; omitted from
// the JSON for a non-discoverable one (an authenticator without resident keys) and when
// the browser returns an empty or null handle. The browser's credential handed over with
// views (DataView, offset Uint8Array) instead of ArrayBuffers must read the same. Then
// the error paths (timeout, abort, cancel, a superseded ceremony, wrong rpId, excluded and
// unknown credentials, bad input, an IP origin, navigator.credentials reached within the
// call), detection, and the one module init() fetches (a passkey
// call after it fetches no .wasm; one before it loads that module itself).
//
// The page is served from http://localhost:<port> (WebAuthn rejects IP origins).
// Every scenario gets a fresh page and authenticator (in Chromium a fresh context too).
//
// Usage: node tests/browser.mjs passkey [--engine chromium|firefox|webkit|all] (default all)
import { createHash, generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { verifyRegistrationResponse, verifyAuthenticationResponse } from '@simplewebauthn/server';
import { authenticationResponseJSON, coseP256PublicKey, flipByte, registrationResponseJSON } from '../support/webauthn.mjs';
import { serveStatic } from '../../scripts/serve.mjs';
import { FIREFOX_WAIT_FOR_USB_PREFS, collectPageErrors } from '../support/engines.mjs';
import { PKG_DIR as pkgDir, defineSuite, json, requirePkg, suiteChecks } from '../support/suite.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));
// The wallet module's build without the enclave exports: the main entry's plain init()
// fetches it and no other .wasm.
const FULL_WASM = '/pkg/embedded_wallet_kit_no_enclave_bg.wasm';
const isWasm = (p) => p.endsWith('.wasm');

const b64u = (bytes) => Buffer.from(bytes).toString('base64url');
const utf8b64u = (text) => b64u(Buffer.from(text, 'utf8'));
const clientData = (clientDataJson) => JSON.parse(Buffer.from(clientDataJson, 'base64url').toString('utf8'));
const sameKeys = (obj, keys) => json(Object.keys(obj).sort()) === json([...keys].sort());

/** Asserts that an attempt (window.attempt) failed with a KitError of `code`. */
function expectKitError(r, code, causeName) {
  assert(!r.ok, `expected KitError ${code}, but it resolved: ${json(r.value)}`);
  const e = r.error;
  assert(e.kit === true && e.error === true && e.name === 'KitError',
    `not the package's KitError: ${json(e)}`);
  assert(e.code === code, `expected ${code}, got ${e.code}: ${e.message} (cause ${e.causeName})`);
  assert(typeof e.message === 'string' && e.message.length > 0, 'empty message');
  if (causeName !== undefined) assert(e.causeName === causeName, `cause.name ${e.causeName}, expected ${causeName}`);
  return e;
}

requirePkg('browser.js', FULL_WASM.slice('/pkg/'.length));

const server = await serveStatic({ '/': here, '/pkg/': pkgDir });
const origin = `http://localhost:${server.port}`;
const RP_ID = 'localhost';
console.log(`# serving ${origin}`);

let browser;
let engine;
/** The WebDriver session the scenarios of one engine share (Firefox, WebKitGTK). */
let sharedSession;
/** Every check is named after the engine it ran in. */
const checks = suiteChecks(() => `[${engine}] `);
const { check, assert } = checks;
const fromB64 = (s) => Buffer.from(s, 'base64');

/**
 * A fresh page (in Chromium a fresh context too) with a virtual authenticator attached
 * (ctap2, internal, user verification), behind one interface:
 * `authenticator.credentials()` lists what it holds ({credentialId, isResidentCredential,
 * userHandle}, base64url), `authenticator.add(...)` injects a credential and
 * `authenticator.setUserVerified(bool)` sets what its UV answers. `presence: false`: the
 * ceremony waits for a user who never comes. `withAuthenticator: false`: none attached.
 * `host: '127.0.0.1'`: the page on an IP origin, which WebAuthn refuses as a relying party.
 */
async function scenario({ presence = true, residentKeys = true, withAuthenticator = true, host = 'localhost' } = {}) {
  const pageUrl = `http://${host}:${server.port}/`;
  const firstRequest = server.requests.length;
  const requests = () => server.requests.slice(firstRequest);
  const pageErrors = [];
  if (engine === 'chromium') {
    const context = await browser.newContext();
    const page = await context.newPage();
    page.on('pageerror', (err) => pageErrors.push(err.message));
    page.on('console', (msg) => {
      if (msg.type() === 'error') pageErrors.push(`console: ${msg.text()}`);
    });
    await page.goto(pageUrl);
    await page.waitForFunction(() => window.kitLoaded === true, null, { timeout: 10_000 });
    const cdp = await context.newCDPSession(page);
    await cdp.send('WebAuthn.enable', { enableUI: false });
    const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: {
        protocol: 'ctap2', transport: 'internal', hasResidentKey: residentKeys, hasUserVerification: true,
        isUserVerified: true, automaticPresenceSimulation: presence,
      },
    });
    const authenticator = {
      async credentials() {
        const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
        return credentials.map((c) => ({
          credentialId: b64u(fromB64(c.credentialId)),
          isResidentCredential: c.isResidentCredential,
          userHandle: c.userHandle === undefined ? undefined : b64u(fromB64(c.userHandle)),
        }));
      },
      setUserVerified: (isUserVerified) => cdp.send('WebAuthn.setUserVerified', { authenticatorId, isUserVerified }),
      add: ({ credentialId, isResidentCredential, privateKey, userHandle }) => cdp.send('WebAuthn.addCredential', {
        authenticatorId,
        credential: {
          credentialId: credentialId.toString('base64'), isResidentCredential, rpId: RP_ID,
          privateKey: privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64'),
          ...(userHandle ? { userHandle: userHandle.toString('base64') } : {}),
          signCount: 0,
        },
      }),
    };
    return { page, authenticator, pageErrors, requests, close: () => context.close() };
  }
  // Firefox and WebKitGTK: one WebDriver session per engine, its window loading the page
  // afresh for each scenario with a new authenticator (removed at the end). Firefox's W3C
  // authenticator cannot leave a ceremony waiting for the user (isUserConsenting: false
  // refuses at once): without presence, a session of its own gets no soft token and
  // waits for a USB token instead.
  let page;
  if (presence) {
    sharedSession ??= await browser.newPage();
    page = Object.create(sharedSession);
  } else {
    // geckodriver runs one session at a time.
    await sharedSession?.close();
    sharedSession = undefined;
    page = await browser.newPage({ firefoxPrefs: FIREFOX_WAIT_FOR_USB_PREFS });
  }
  let authenticatorId;
  const close = async () => {
    if (authenticatorId !== undefined) await page.removeVirtualAuthenticator(authenticatorId);
    if (presence) await page.goto('about:blank');
    else await page.close();
  };
  try {
    await page.goto(pageUrl);
    await page.waitForFunction(() => window.kitLoaded === true, null, { timeout: 10_000 });
    // The page records its own errors (index.html); collect them after every evaluate.
    collectPageErrors(page, pageErrors);
    if (!withAuthenticator) return { page, pageErrors, requests, close };
    authenticatorId = await page.addVirtualAuthenticator({
      protocol: 'ctap2', transport: 'internal', hasResidentKey: residentKeys, hasUserVerification: true,
      isUserVerified: true, isUserConsenting: presence,
    });
    const authenticator = {
      async credentials() {
        return (await page.getCredentials(authenticatorId)).map((c) => ({
          credentialId: c.credentialId, isResidentCredential: c.isResidentCredential, userHandle: c.userHandle ?? undefined,
        }));
      },
      setUserVerified: (isUserVerified) => page.setUserVerified(authenticatorId, isUserVerified),
      add: ({ credentialId, isResidentCredential, privateKey, userHandle }) => page.addCredential(authenticatorId, {
        credentialId: b64u(credentialId), isResidentCredential, rpId: RP_ID,
        privateKey: b64u(privateKey.export({ format: 'der', type: 'pkcs8' })),
        ...(userHandle ? { userHandle: b64u(userHandle) } : {}),
        signCount: 0,
      }),
    };
    return { page, authenticator, pageErrors, requests, close };
  } catch (e) {
    await close();
    throw e;
  }
}

const registrationOptions = (overrides = {}) => ({
  challenge: b64u(randomBytes(32)),
  rpId: RP_ID,
  rpName: 'embedded-wallet-kit e2e',
  user: { id: `user:Zoë-${randomUUID()}`, name: 'zoe@example.com', displayName: 'Zoë Example' },
  timeoutMs: 20_000,
  ...overrides,
});
/** A login challenge as the service issues it: 64 lowercase hex chars (a SHA-256 digest). */
const loginChallenge = () => createHash('sha256')
  .update(json({ clientPublicKey: `04${randomBytes(64).toString('hex')}`, nonce: randomUUID() }))
  .digest('hex');

const register = (page, options) => page.evaluate((o) => window.attempt(() => window.kit.passkey.register(o)), options);
/** Every assertion passkey.authenticate resolved to in this run (checked at the end: all verified). */
const producedAssertions = [];
/** The subset @simplewebauthn/server verified (by identity). */
const verifiedAssertions = new Set();
/**
 * passkey.authenticate in the page; a resolved value also carries `shape`, read in the
 * page before any serialisation: its own keys, whether `userHandle` is a key at all, and
 * its JSON.stringify.
 */
async function authenticate(page, options) {
  const r = await page.evaluate(async (o) => {
    const out = await window.attempt(() => window.kit.passkey.authenticate(o));
    if (out.ok) {
      const v = out.value;
      out.shape = { keys: Object.keys(v), hasUserHandle: 'userHandle' in v, json: JSON.stringify(v) };
    }
    return out;
  }, options);
  if (r.ok) producedAssertions.push(r.value);
  return r;
}

/**
 * @simplewebauthn/server's verdict on an assertion for the 64-hex login `challenge`
 * (expected in clientDataJSON as base64url of its UTF-8 bytes) and a stored `credential`
 * ({id, publicKey (COSE), counter}). Throws when a check before the signature fails;
 * `verified` is false when the signature does not verify. A genuine verification marks
 * the assertion as independently verified.
 */
async function verifyAssertion(assertion, {
  challenge, expectedChallenge = utf8b64u(challenge), credential, requireUserVerification = true,
}) {
  const v = await verifyAuthenticationResponse({
    response: authenticationResponseJSON(assertion),
    expectedChallenge,
    expectedOrigin: origin,
    expectedRPID: RP_ID,
    credential,
    requireUserVerification,
  });
  if (v.verified === true) verifiedAssertions.add(assertion);
  return v;
}

/** How @simplewebauthn/server refuses an assertion: 'signature' (verified: false) or 'threw: …'. */
async function refusal(assertion, expectations) {
  try {
    const v = await verifyAssertion(assertion, expectations);
    return v.verified === true ? 'ACCEPTED' : 'signature';
  } catch (e) {
    return `threw: ${e.message}`;
  }
}

/**
 * Runs `run` with navigator.credentials[method] ('get' or 'create') wrapped: the browser's
 * real credential comes back as a plain object whose members are rewritten by `mode`:
 * 'empty' / 'null' replace userHandle; 'dataview' / 'offset-view' hand every binary member
 * over as a DataView, or as a Uint8Array at an offset into a larger buffer.
 */
async function rewritten(page, method, mode, run) {
  await page.evaluate(({ method: m, mode: how }) => {
    const creds = navigator.credentials;
    const original = creds[m];
    window.restoreCredentials = () => { creds[m] = original; };
    const view = (buf) => {
      if (!(buf instanceof ArrayBuffer)) return buf;
      if (how === 'dataview') return new DataView(buf.slice(0));
      if (how === 'offset-view') {
        const larger = new Uint8Array(buf.byteLength + 8).fill(0xee);
        larger.set(new Uint8Array(buf), 4);
        return larger.subarray(4, 4 + buf.byteLength);
      }
      return buf;
    };
    creds[m] = async function wrapped(...args) {
      const c = await original.apply(this, args);
      const r = c.response;
      const response = {};
      for (const k of ['clientDataJSON', 'attestationObject', 'authenticatorData', 'signature', 'userHandle']) {
        if (k in r) response[k] = view(r[k]);
      }
      if (typeof r.getTransports === 'function') response.getTransports = () => r.getTransports();
      if (how === 'empty') response.userHandle = new ArrayBuffer(0);
      if (how === 'null') response.userHandle = null;
      return { id: c.id, rawId: view(c.rawId), type: c.type, response };
    };
  }, { method, mode });
  try {
    return await run();
  } finally {
    await page.evaluate(() => window.restoreCredentials());
  }
}

/** Byte offsets in authenticatorData: rpIdHash[0..32], flags[32], signCount[33..37] (big-endian). */
const AUTH_DATA = { rpIdHash: 0, flags: 32, signCountHigh: 33 };
const initPasskeys = (page) => page.evaluate(() => window.attempt(() => window.kit.init({ passkeys: true })));

const ATTESTATION_KEYS = ['credentialId', 'clientDataJson', 'attestationObject', 'transports'];
const ASSERTION_KEYS = ['credentialId', 'clientDataJson', 'authenticatorData', 'signature', 'userHandle'];

/** Every ceremony, error path and detection probe, where the browser has WebAuthn. */
async function webauthnSuite() {
  producedAssertions.length = 0;
  verifiedAssertions.clear();

  // ---- (e) detection, and what init() / init({ passkeys: true }) load -------------------
  {
    const s = await scenario();
    try {
      const before = await s.page.evaluate(() => {
        const { passkey } = window.kit;
        const out = {};
        for (const [name, fn] of [
          ['isSupported', () => passkey.isSupported()],
          ['registrationBody', () => passkey.registrationBody('InternalAccount:x', 'nick', 'AAAA', {})],
        ]) {
          try {
            out[name] = { ok: true, value: fn() };
          } catch (e) {
            out[name] = { ok: false, error: window.errorInfo(e) };
          }
        }
        try {
          passkey.cancel();
          out.cancel = 'no-op';
        } catch (e) {
          out.cancel = window.errorInfo(e);
        }
        out.frozen = Object.isFrozen(passkey);
        out.keys = Object.keys(passkey).sort();
        return out;
      });
      await check('passkey namespace: exactly the documented functions, frozen', () => {
        const expected = ['authenticate', 'cancel', 'clientCapabilities', 'conditionalMediationAvailable',
          'isSupported', 'platformAuthenticatorAvailable', 'register', 'registrationBody',
          'signalAllAcceptedCredentials', 'signalCurrentUserDetails', 'signalUnknownCredential'];
        assert(json(before.keys) === json(expected), json(before.keys));
        assert(before.frozen, 'not frozen');
      });
      await check('before init(): isSupported/registrationBody throw NOT_INITIALIZED; cancel() is a no-op', () => {
        for (const name of ['isSupported', 'registrationBody']) {
          const e = expectKitError(before[name], 'NOT_INITIALIZED');
          assert(e.message.includes('await init()'), `${name}: message does not say what to do: ${e.message}`);
        }
        assert(before.cancel === 'no-op', json(before.cancel));
      });

      const plain = await s.page.evaluate(() => window.attempt(() => window.kit.init()));
      await check('init() fetches exactly one .wasm, the wallet module', () => {
        assert(plain.ok, json(plain.error));
        const paths = s.requests().map((r) => r.path);
        assert(json(paths.filter(isWasm)) === json([FULL_WASM]), `.wasm fetched by init(): ${paths.join(', ')}`);
      });

      const [r1, r2] = await s.page.evaluate(() => {
        const p1 = window.attempt(() => window.kit.init({ passkeys: true }));
        const p2 = window.attempt(() => window.kit.init({ passkeys: true }));
        return Promise.all([p1, p2]);
      });
      const detect = await s.page.evaluate(async () => {
        const { passkey } = window.kit;
        return {
          supported: passkey.isSupported(),
          platform: await passkey.platformAuthenticatorAvailable(),
          conditional: await passkey.conditionalMediationAvailable(),
          capabilities: await passkey.clientCapabilities(),
        };
      });
      await check('init({ passkeys: true }) and the passkey probes fetch no other .wasm; isSupported() is true', () => {
        assert(r1.ok && r2.ok, json([r1, r2]));
        const wasm = s.requests().filter((r) => isWasm(r.path));
        assert(wasm.length === 1 && wasm[0].path === FULL_WASM, `wasm requests: ${json(wasm)}`);
        assert(wasm[0].status === 200 && wasm[0].type === 'application/wasm', json(wasm[0]));
        assert(detect.supported === true, `isSupported() = ${detect.supported}`);
      });
      await check('platformAuthenticatorAvailable() is true with the internal authenticator attached', () =>
        assert(detect.platform === true, json(detect.platform)));
      await check('conditionalMediationAvailable() is a boolean; clientCapabilities() an object', () => {
        assert(typeof detect.conditional === 'boolean', json(detect.conditional));
        assert(detect.capabilities !== null && typeof detect.capabilities === 'object' && !Array.isArray(detect.capabilities),
          json(detect.capabilities));
        assert(Object.values(detect.capabilities).every((v) => typeof v === 'boolean'), json(detect.capabilities));
      });
      await check('detection: no page errors, no 404s', () => {
        const missing = s.requests().filter((r) => r.status !== 200).map((r) => `${r.status} ${r.path}`);
        assert(s.pageErrors.length === 0 && missing.length === 0, [...s.pageErrors, ...missing].join('\n'));
      });
    } finally {
      await s.close();
    }
  }

  // ---- (a)–(c) registration, authentication, registration body; then (d) errors needing
  //      a registered credential -------------------------------------------------------
  {
    const s = await scenario();
    try {
      const init = await initPasskeys(s.page);
      assert(init.ok, `init({ passkeys: true }) failed: ${json(init.error)}`);

      const regOptions = registrationOptions();
      const reg = await register(s.page, regOptions);
      let registered;
      await check('(a) passkey.register resolves to exactly {credentialId, clientDataJson, attestationObject, transports}', () => {
        assert(reg.ok, `register failed: ${json(reg.error)}`);
        const att = reg.value;
        assert(sameKeys(att, ATTESTATION_KEYS), `keys: ${Object.keys(att).join(', ')}`);
        for (const k of ['credentialId', 'clientDataJson', 'attestationObject']) {
          assert(typeof att[k] === 'string' && /^[A-Za-z0-9_-]+$/.test(att[k]), `${k} is not unpadded base64url: ${att[k]}`);
        }
        assert(json(att.transports) === json(['internal']), `transports ${json(att.transports)}`);
      });
      await check('(a) clientDataJSON: type webauthn.create, challenge === the registration challenge string, origin', () => {
        const cd = clientData(reg.value.clientDataJson);
        assert(cd.type === 'webauthn.create', cd.type);
        assert(cd.challenge === regOptions.challenge, `${cd.challenge} !== ${regOptions.challenge}`);
        assert(cd.origin === origin, cd.origin);
      });
      await check('(a) @simplewebauthn/server verifies the registration (challenge, origin, rpId, UV)', async () => {
        const att = reg.value;
        const v = await verifyRegistrationResponse({
          response: registrationResponseJSON(att),
          expectedChallenge: regOptions.challenge,
          expectedOrigin: origin,
          expectedRPID: RP_ID,
          requireUserVerification: true,
        });
        assert(v.verified === true, json(v));
        const info = v.registrationInfo;
        assert(info.credential.id === att.credentialId, `credential id ${info.credential.id} !== ${att.credentialId}`);
        assert(info.fmt === 'none', `fmt ${info.fmt}`);
        assert(info.userVerified === true, 'not user-verified');
        assert(info.rpID === RP_ID && info.origin === origin, `${info.rpID} ${info.origin}`);
        registered = { credential: info.credential, credentialId: att.credentialId };
      });

      const stored = await s.authenticator.credentials();
      await check('(a) the authenticator holds it as a discoverable (resident) credential, user handle = UTF-8 of user.id', () => {
        assert(stored.length === 1, json(stored));
        const [c] = stored;
        assert(Buffer.from(c.credentialId, 'base64url').equals(Buffer.from(registered?.credentialId ?? '', 'base64url')),
          `${c.credentialId} is not the registered id`);
        assert(c.isResidentCredential === true, 'not resident');
        assert(Buffer.from(c.userHandle ?? '', 'base64url').toString('utf8') === regOptions.user.id, `user handle ${c.userHandle}`);
      });

      // (b) authentication, twice: the counter must go up each time.
      for (const round of [1, 2]) {
        const challenge = loginChallenge();
        const auth = registered
          ? await authenticate(s.page, { challenge, credentialId: registered.credentialId, rpId: RP_ID, timeoutMs: 20_000 })
          : { ok: false, error: { message: 'no registered credential' } };
        await check(`(b${round}) passkey.authenticate resolves to exactly {credentialId, clientDataJson, authenticatorData, signature, userHandle}`, () => {
          assert(auth.ok, `authenticate failed: ${json(auth.error)}`);
          const a = auth.value;
          assert(sameKeys(a, ASSERTION_KEYS), `keys: ${Object.keys(a).join(', ')}`);
          for (const k of ASSERTION_KEYS) {
            assert(typeof a[k] === 'string' && /^[A-Za-z0-9_-]+$/.test(a[k]), `${k} is not unpadded base64url: ${a[k]}`);
          }
          assert(a.credentialId === registered.credentialId, 'credentialId is not the registered one');
          assert(a.userHandle === utf8b64u(regOptions.user.id),
            `userHandle ${a.userHandle} !== base64url(utf8(user.id)) ${utf8b64u(regOptions.user.id)}`);
          assert(auth.shape.hasUserHandle && auth.shape.json.includes(`"userHandle":"${a.userHandle}"`), json(auth.shape));
        });
        await check(`(b${round}) clientDataJSON.challenge === base64url(utf8(the 64-hex login challenge)), not its hex decoding`, () => {
          const cd = clientData(auth.value.clientDataJson);
          assert(cd.type === 'webauthn.get', cd.type);
          assert(cd.challenge === utf8b64u(challenge), `${cd.challenge} !== ${utf8b64u(challenge)}`);
          assert(cd.challenge !== b64u(Buffer.from(challenge, 'hex')), 'the challenge was hex-decoded');
          assert(cd.origin === origin, cd.origin);
        });
        await check(`(b${round}) @simplewebauthn/server verifies the assertion against the registered key and counter`, async () => {
          const v = await verifyAssertion(auth.value, { challenge, credential: registered.credential });
          assert(v.verified === true, json(v));
          const { newCounter } = v.authenticationInfo;
          assert(newCounter > registered.credential.counter,
            `counter did not increase: ${registered.credential.counter} -> ${newCounter}`);
          assert(v.authenticationInfo.userVerified === true, 'not user-verified');
          assert(v.authenticationInfo.credentialID === registered.credentialId, v.authenticationInfo.credentialID);
        });
        // Tampered copies, checked against the same stored credential (counter not yet
        // advanced), so that only the tampering can make them fail. Where the tampering
        // leaves every other check satisfied, the refusal must come from the signature.
        const tampered = (changes) => ({ ...auth.value, ...changes });
        const refusals = auth.ok && registered ? {
          signature: await refusal(tampered({ signature: flipByte(auth.value.signature, -1) }),
            { challenge, credential: registered.credential }),
          signCount: await refusal(tampered({ authenticatorData: flipByte(auth.value.authenticatorData, AUTH_DATA.signCountHigh, 0x40) }),
            { challenge, credential: registered.credential }),
          rpIdHash: await refusal(tampered({ authenticatorData: flipByte(auth.value.authenticatorData, AUTH_DATA.rpIdHash) }),
            { challenge, credential: registered.credential }),
          // Same JSON meaning, other bytes: only the signature (over its hash) can notice.
          clientDataWhitespace: await refusal(tampered({
            clientDataJson: utf8b64u(Buffer.from(auth.value.clientDataJson, 'base64url').toString('utf8').replace(/^\{/, '{ ')),
          }), { challenge, credential: registered.credential }),
          // A flipped bit in the origin ("localhost" → "mocalhost").
          clientDataOrigin: await refusal(tampered({
            clientDataJson: flipByte(auth.value.clientDataJson,
              Buffer.from(auth.value.clientDataJson, 'base64url').indexOf('localhost')),
          }), { challenge, credential: registered.credential }),
          otherChallenge: await refusal(auth.value, { challenge: loginChallenge(), credential: registered.credential }),
          hexDecodedChallenge: await refusal(auth.value, {
            challenge, expectedChallenge: b64u(Buffer.from(challenge, 'hex')), credential: registered.credential,
          }),
        } : {};
        await check(`(b${round}) a flipped byte in the signature / in authenticatorData's signCount → the signature does not verify`, () => {
          assert(refusals.signature === 'signature', `signature: ${refusals.signature}`);
          assert(refusals.signCount === 'signature', `signCount: ${refusals.signCount}`);
        });
        await check(`(b${round}) a flipped byte in authenticatorData's rpIdHash → refused (unexpected RP ID)`, () =>
          assert(/^threw: .*RP ID/i.test(refusals.rpIdHash), `rpIdHash: ${refusals.rpIdHash}`));
        await check(`(b${round}) clientDataJSON re-spaced (same meaning) → the signature does not verify; a flipped origin byte → refused`, () => {
          assert(refusals.clientDataWhitespace === 'signature', `whitespace: ${refusals.clientDataWhitespace}`);
          assert(/^threw: .*origin "http:\/\/mocalhost/.test(refusals.clientDataOrigin), `origin: ${refusals.clientDataOrigin}`);
        });
        await check(`(b${round}) the genuine assertion under another login challenge, or the hex-decoded one → refused (challenge)`, () => {
          assert(/^threw: .*challenge/.test(refusals.otherChallenge), `other challenge: ${refusals.otherChallenge}`);
          assert(/^threw: .*challenge/.test(refusals.hexDecodedChallenge), `hex-decoded: ${refusals.hexDecodedChallenge}`);
        });
        if (auth.ok && registered) {
          const { authenticatorData } = auth.value;
          registered.credential = {
            ...registered.credential, counter: Buffer.from(authenticatorData, 'base64url').readUInt32BE(AUTH_DATA.signCountHigh),
          };
        }
      }

      // (b) passkey autofill: a conditional request. Chromium's virtual authenticator answers
      // it at once (a discoverable credential); a request left waiting is ended by the
      // page's signal after 5 s.
      {
        const challenge = loginChallenge();
        const conditional = registered
          ? await s.page.evaluate(async (o) => {
            const controller = new AbortController();
            setTimeout(() => controller.abort(), 5_000);
            // What the browser is asked, seen page-side.
            const creds = navigator.credentials;
            const get = creds.get;
            let mediation;
            creds.get = function observed(request) {
              mediation = request.mediation;
              return get.call(this, request);
            };
            try {
              return { ...await window.attempt(() => window.kit.passkey.authenticate({ ...o, mediation: 'conditional', signal: controller.signal })), mediation };
            } finally {
              creds.get = get;
            }
          }, { challenge, credentialId: registered.credentialId, rpId: RP_ID })
          : { ok: false, error: { message: 'no registered credential' } };
        console.log(`# ${engine}: conditional mediation: ${conditional.ok ? 'resolved' : json(conditional.error)} after ${Math.round(conditional.ms ?? 0)} ms`);
        // Firefox ESR's WebDriver authenticator never answers a conditional request: it
        // waits (no watchdog) until the page's signal ends it, as when the user takes another path.
        if (engine === 'firefox') {
          await check("(b) autofill (mediation 'conditional') in firefox: asked, it waits for the user; the page's signal ends it PASSKEY_CANCELLED", () => {
            assert(conditional.mediation === 'conditional', `the browser was asked with mediation ${conditional.mediation}`);
            expectKitError(conditional, 'PASSKEY_CANCELLED');
            assert(conditional.ms >= 4_500, `ended after ${Math.round(conditional.ms)} ms, before the page's signal`);
          });
        } else await check(`(b) autofill (mediation 'conditional') through ${engine}'s virtual authenticator resolves to an assertion @simplewebauthn/server verifies`, async () => {
          assert(conditional.ok, `conditional authenticate failed: ${json(conditional.error)}`);
          assert(conditional.mediation === 'conditional', `the browser was asked with mediation ${conditional.mediation}`);
          assert(conditional.value.credentialId === registered.credentialId, 'not the registered credential');
          const v = await verifyAssertion(conditional.value, { challenge, credential: registered.credential });
          assert(v.verified === true, json(v));
          registered.credential = { ...registered.credential, counter: v.authenticationInfo.newCounter };
        });
      }

      // (b) a browser whose userHandle is empty or null — Safari has returned empty ones
      // (w3c/webauthn#1892) — must give an assertion WITHOUT the key. The credential is the
      // authenticator's real one; only its userHandle member is replaced on the way out.
      for (const replacement of ['empty', 'null']) {
        const challenge = loginChallenge();
        const auth = registered
          ? await rewritten(s.page, 'get', replacement,
            () => authenticate(s.page, { challenge, credentialId: registered.credentialId, rpId: RP_ID, timeoutMs: 20_000 }))
          : { ok: false, error: { message: 'no registered credential' } };
        await check(`(b) the browser's userHandle is ${replacement}: the assertion has no userHandle key; @simplewebauthn/server verifies it`, async () => {
          assert(auth.ok, `authenticate failed: ${json(auth.error)}`);
          assert(!auth.shape.hasUserHandle, `userHandle is a key: ${auth.shape.json}`);
          assert(json(auth.shape.keys.sort()) === json(ASSERTION_KEYS.filter((k) => k !== 'userHandle').sort()), json(auth.shape.keys));
          assert(!auth.shape.json.includes('userHandle'), auth.shape.json);
          const v = await verifyAssertion(auth.value, { challenge, credential: registered.credential });
          assert(v.verified === true, json(v));
          registered.credential = { ...registered.credential, counter: v.authenticationInfo.newCounter };
        });
      }

      // (b) binary members handed over as views rather than ArrayBuffers, as polyfills
      // and extensions may: a DataView, and a Uint8Array at an offset into a larger buffer.
      for (const mode of ['dataview', 'offset-view']) {
        const challenge = loginChallenge();
        const auth = registered
          ? await rewritten(s.page, 'get', mode,
            () => authenticate(s.page, { challenge, credentialId: registered.credentialId, rpId: RP_ID, timeoutMs: 20_000 }))
          : { ok: false, error: { message: 'no registered credential' } };
        await check(`(b) every binary member of the browser's assertion a ${mode}: the same assertion; @simplewebauthn/server verifies it`, async () => {
          assert(auth.ok, `authenticate failed: ${json(auth.error)}`);
          assert(auth.value.credentialId === registered.credentialId, `credentialId ${auth.value.credentialId}`);
          assert(auth.value.userHandle === utf8b64u(regOptions.user.id), `userHandle ${auth.value.userHandle}`);
          const v = await verifyAssertion(auth.value, { challenge, credential: registered.credential });
          assert(v.verified === true, json(v));
          registered.credential = { ...registered.credential, counter: v.authenticationInfo.newCounter };
        });
        const viewOptions = registrationOptions();
        const viewReg = await rewritten(s.page, 'create', mode, () => register(s.page, viewOptions));
        await check(`(a) every binary member of the browser's attestation a ${mode}: @simplewebauthn/server verifies the registration`, async () => {
          assert(viewReg.ok, `register failed: ${json(viewReg.error)}`);
          assert(json(viewReg.value.transports) === json(['internal']), json(viewReg.value.transports));
          const v = await verifyRegistrationResponse({
            response: registrationResponseJSON(viewReg.value),
            expectedChallenge: viewOptions.challenge,
            expectedOrigin: origin,
            expectedRPID: RP_ID,
            requireUserVerification: true,
          });
          assert(v.verified === true, json(v));
          assert(v.registrationInfo.credential.id === viewReg.value.credentialId, v.registrationInfo.credential.id);
        });
      }

      // (c) the POST /auth/credentials body.
      // The body's JSON is taken in the page: WebDriver's serialisation (Firefox) does not
      // keep the key order, which is part of what is checked.
      const body = await s.page.evaluate(({ att, challenge }) => {
        const { passkey } = window.kit;
        const out = { body: JSON.stringify(passkey.registrationBody('InternalAccount:4f1c', 'My laptop', challenge, att)), errors: {} };
        const cases = {
          empty: ['InternalAccount:4f1c', '', challenge, att],
          tooLong: ['InternalAccount:4f1c', 'n'.repeat(101), challenge, att],
          badChallenge: ['InternalAccount:4f1c', 'ok', 'not base64url!', att],
          badAttestation: ['InternalAccount:4f1c', 'ok', challenge, { ...att, transports: 'internal' }],
        };
        for (const [name, args] of Object.entries(cases)) {
          try {
            out.errors[name] = { ok: true, value: passkey.registrationBody(...args) };
          } catch (e) {
            out.errors[name] = { ok: false, error: window.errorInfo(e) };
          }
        }
        out.hundred = passkey.registrationBody('InternalAccount:4f1c', 'é'.repeat(100), challenge, att).nickname.length;
        return out;
      }, { att: reg.value, challenge: regOptions.challenge });
      await check('(c) passkey.registrationBody builds exactly {accountId, nickname, challenge, attestation}', () => {
        const expected = {
          accountId: 'InternalAccount:4f1c',
          nickname: 'My laptop',
          challenge: regOptions.challenge,
          attestation: {
            credentialId: reg.value.credentialId,
            clientDataJson: reg.value.clientDataJson,
            attestationObject: reg.value.attestationObject,
            transports: reg.value.transports,
          },
        };
        assert(body.body === json(expected), `${body.body}\n  !== ${json(expected)}`);
        assert(body.hundred === 100, 'a 100-character nickname is accepted');
      });
      await check('(c) registrationBody: empty / 101-character nickname, bad challenge, bad attestation → INVALID_INPUT', () => {
        for (const name of ['empty', 'tooLong', 'badChallenge', 'badAttestation']) expectKitError(body.errors[name], 'INVALID_INPUT');
      });

      // (d) errors that need the registered credential or a live authenticator.
      const excluded = await register(s.page, registrationOptions({
        user: regOptions.user, excludeCredentialIds: [registered?.credentialId ?? 'AAAA'],
      }));
      await check('(d) register with the registered id in excludeCredentialIds → PASSKEY_ALREADY_REGISTERED', () =>
        expectKitError(excluded, 'PASSKEY_ALREADY_REGISTERED', 'InvalidStateError'));

      const unknown = await authenticate(s.page, {
        challenge: loginChallenge(), credentialId: b64u(randomBytes(32)), rpId: RP_ID, timeoutMs: 20_000,
      });
      await check('(d) authenticate with an unknown credentialId → PASSKEY_CANCELLED, cause NotAllowedError, at once', () => {
        expectKitError(unknown, 'PASSKEY_CANCELLED', 'NotAllowedError');
        assert(unknown.ms < 5_000, `took ${unknown.ms} ms`);
      });

      const wrongRp = await register(s.page, registrationOptions({ rpId: 'example.com' }));
      await check("(d) register with rpId 'example.com' on localhost → PASSKEY_INVALID_DOMAIN, cause SecurityError", () =>
        expectKitError(wrongRp, 'PASSKEY_INVALID_DOMAIN', 'SecurityError'));
      const wrongRpAuth = await authenticate(s.page, {
        challenge: loginChallenge(), credentialId: registered?.credentialId ?? 'AAAA', rpId: 'example.com',
      });
      await check("(d) authenticate with rpId 'example.com' on localhost → PASSKEY_INVALID_DOMAIN, cause SecurityError", () =>
        expectKitError(wrongRpAuth, 'PASSKEY_INVALID_DOMAIN', 'SecurityError'));

      const badInput = {
        challenge: await register(s.page, registrationOptions({ challenge: 'not base64url!' })),
        emptyChallenge: await register(s.page, registrationOptions({ challenge: '' })),
        userId: await register(s.page, registrationOptions({ user: { id: 'x'.repeat(65), name: 'n' } })),
        timeout: await register(s.page, registrationOptions({ timeoutMs: 0 })),
        options: await s.page.evaluate(() => window.attempt(() => window.kit.passkey.register('nope'))),
        authCredential: await authenticate(s.page, { challenge: loginChallenge(), credentialId: 'not base64url!' }),
        authChallenge: await authenticate(s.page, { credentialId: registered?.credentialId ?? 'AAAA' }),
      };
      await check('(d) bad options → INVALID_INPUT naming the field (challenge, user.id, timeoutMs, credentialId)', () => {
        const fields = {
          challenge: 'challenge', emptyChallenge: 'challenge', userId: 'user.id', timeout: 'timeoutMs',
          options: 'options', authCredential: 'credentialId', authChallenge: 'challenge',
        };
        for (const [name, field] of Object.entries(fields)) {
          const e = expectKitError(badInput[name], 'INVALID_INPUT');
          assert(e.message.includes(field), `${name}: message does not name ${field}: ${e.message}`);
        }
      });

      // User verification that fails (the authenticator's UV says no): the browser refuses
      // with NotAllowedError, at once, in both engines; the kit calls that a cancellation.
      await s.authenticator.setUserVerified(false);
      const unverified = await register(s.page, registrationOptions());
      const unverifiedAuth = await authenticate(s.page, {
        challenge: loginChallenge(), credentialId: registered?.credentialId ?? 'AAAA', rpId: RP_ID, timeoutMs: 20_000,
      });
      await s.authenticator.setUserVerified(true);
      await check('(d) user verification fails → PASSKEY_CANCELLED, cause NotAllowedError, at once (register and authenticate)', () => {
        for (const r of [unverified, unverifiedAuth]) {
          expectKitError(r, 'PASSKEY_CANCELLED', 'NotAllowedError');
          assert(r.ms < 5_000, `took ${Math.round(r.ms)} ms`);
        }
      });

      await check('(a–d) no page errors', () => assert(s.pageErrors.length === 0, s.pageErrors.join('\n')));
    } finally {
      await s.close();
    }
  }

  // ---- (u) userHandle omitted: non-discoverable credentials -----------------------------
  //      An authenticator without resident-key support stores no user handle, so its
  //      assertions carry none: the kit's JSON must leave the key out (docs/protocol.md, Passkeys).
  {
    const s = await scenario({ residentKeys: false });
    try {
      const init = await initPasskeys(s.page);
      assert(init.ok, `init({ passkeys: true }) failed: ${json(init.error)}`);

      const regOptions = registrationOptions({ residentKey: 'discouraged' });
      const reg = await register(s.page, regOptions);
      let registered;
      await check("(u) register with residentKey 'discouraged' on an authenticator without resident keys; @simplewebauthn/server verifies it", async () => {
        assert(reg.ok, `register failed: ${json(reg.error)}`);
        const v = await verifyRegistrationResponse({
          response: registrationResponseJSON(reg.value),
          expectedChallenge: regOptions.challenge,
          expectedOrigin: origin,
          expectedRPID: RP_ID,
          requireUserVerification: true,
        });
        assert(v.verified === true, json(v));
        registered = { credential: v.registrationInfo.credential, credentialId: reg.value.credentialId };
      });
      const stored = await s.authenticator.credentials();
      await check('(u) the authenticator holds it as a non-discoverable credential', () => {
        assert(stored.length === 1, json(stored));
        assert(stored[0].isResidentCredential === false, json(stored[0]));
      });

      // What the browser itself hands back as response.userHandle differs by engine:
      // Chromium's authenticator gives none (null) for a non-discoverable credential;
      // Firefox's soft token keeps the handle of non-resident credentials too and returns
      // it. The kit must carry exactly what the browser gave: no key for none, the same
      // bytes otherwise.
      const browserUserHandle = engine === 'firefox' ? utf8b64u(regOptions.user.id) : null;
      for (const round of [1, 2]) {
        const challenge = loginChallenge();
        await s.page.evaluate(() => {
          const creds = navigator.credentials;
          const original = creds.get;
          window.restoreCredentials = () => { creds.get = original; };
          creds.get = async function recorded(...args) {
            const c = await original.apply(this, args);
            const h = c.response.userHandle;
            window.browserUserHandle = h ? btoa(String.fromCharCode(...new Uint8Array(h)))
              .replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '') : h;
            return c;
          };
        });
        const auth = registered
          ? await authenticate(s.page, { challenge, credentialId: registered.credentialId, rpId: RP_ID, timeoutMs: 20_000 })
          : { ok: false, error: { message: 'no registered credential' } };
        const raw = await s.page.evaluate(() => {
          window.restoreCredentials();
          return window.browserUserHandle;
        });
        await check(`(u${round}) the browser's own userHandle for a non-discoverable credential is ${json(browserUserHandle)} in ${engine}`, () =>
          assert(raw === browserUserHandle, `response.userHandle ${json(raw)}`));
        await check(`(u${round}) the assertion carries exactly the browser's userHandle: ${browserUserHandle === null ? 'OMITTED (no key, not null, not "")' : 'the same bytes'}`, () => {
          assert(auth.ok, `authenticate failed: ${json(auth.error)}`);
          if (browserUserHandle === null) {
            assert(!auth.shape.hasUserHandle, `userHandle is a key: ${auth.shape.json}`);
            assert(json(auth.shape.keys.sort()) === json(ASSERTION_KEYS.filter((k) => k !== 'userHandle').sort()), json(auth.shape.keys));
            assert(!auth.shape.json.includes('userHandle'), auth.shape.json);
          } else {
            assert(auth.value.userHandle === browserUserHandle, `userHandle ${auth.value.userHandle}`);
            assert(sameKeys(auth.value, ASSERTION_KEYS), json(auth.shape.keys));
          }
          assert(auth.value.credentialId === registered.credentialId, auth.value.credentialId);
        });
        await check(`(u${round}) @simplewebauthn/server verifies it (key from the registration, counter); a flipped signature byte does not`, async () => {
          const tamperedSignature = await refusal({ ...auth.value, signature: flipByte(auth.value.signature, -1) },
            { challenge, credential: registered.credential });
          assert(tamperedSignature === 'signature', `tampered signature: ${tamperedSignature}`);
          const v = await verifyAssertion(auth.value, { challenge, credential: registered.credential });
          assert(v.verified === true, json(v));
          assert(v.authenticationInfo.newCounter > registered.credential.counter, json(v.authenticationInfo));
          registered.credential = { ...registered.credential, counter: v.authenticationInfo.newCounter };
        });
      }

      // A credential made outside the kit and the browser (injected through the driver: no user
      // handle, not resident), whose public key the test itself encodes for the verifier.
      const injectedId = randomBytes(16);
      const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
      await s.authenticator.add({ credentialId: injectedId, isResidentCredential: false, privateKey });
      const challenge = loginChallenge();
      const injected = await authenticate(s.page, { challenge, credentialId: b64u(injectedId), rpId: RP_ID, timeoutMs: 20_000 });
      await check('(u) an injected non-resident credential without a user handle: no userHandle key; @simplewebauthn/server verifies it', async () => {
        assert(injected.ok, `authenticate failed: ${json(injected.error)}`);
        assert(!injected.shape.hasUserHandle && !injected.shape.json.includes('userHandle'), injected.shape.json);
        const credential = { id: b64u(injectedId), publicKey: coseP256PublicKey(publicKey), counter: 0 };
        const v = await verifyAssertion(injected.value, { challenge, credential });
        assert(v.verified === true, json(v));
        const stranger = coseP256PublicKey(generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey);
        const other = await refusal(injected.value, { challenge, credential: { ...credential, publicKey: stranger } });
        assert(other === 'signature', `verified under another key: ${other}`);
      });
      await check('(u) no page errors', () => assert(s.pageErrors.length === 0, s.pageErrors.join('\n')));
    } finally {
      await s.close();
    }
  }

  // ---- (d) ceremonies that hang: presence simulation off ------------------------------
  {
    const s = await scenario({ presence: false });
    try {
      const init = await initPasskeys(s.page);
      assert(init.ok, `init({ passkeys: true }) failed: ${json(init.error)}`);

      const timedOut = await register(s.page, registrationOptions({ timeoutMs: 1_000 }));
      await check('(d) no user presence + timeoutMs 1000 → PASSKEY_TIMEOUT (within the watchdog grace)', () => {
        expectKitError(timedOut, 'PASSKEY_TIMEOUT');
        assert(timedOut.ms >= 1_000 && timedOut.ms < 4_000, `settled after ${Math.round(timedOut.ms)} ms`);
      });
      // A credential the authenticator holds (injected through the driver), so that the assertion
      // really waits for user presence instead of failing on an unknown id.
      const injectedId = randomBytes(16);
      const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
      await s.authenticator.add({
        credentialId: injectedId, isResidentCredential: true, privateKey, userHandle: Buffer.from('user:injected'),
      });
      const authTimedOut = await authenticate(s.page, {
        challenge: loginChallenge(), credentialId: b64u(injectedId), rpId: RP_ID, timeoutMs: 1_000,
      });
      await check('(d) authenticate: no user presence + timeoutMs 1000 → PASSKEY_TIMEOUT', () => {
        expectKitError(authTimedOut, 'PASSKEY_TIMEOUT');
        assert(authTimedOut.ms >= 1_000 && authTimedOut.ms < 4_000, `settled after ${Math.round(authTimedOut.ms)} ms`);
      });
      console.log(`# timeouts settled after ${Math.round(timedOut.ms)} ms (register), ${Math.round(authTimedOut.ms)} ms (authenticate); causes ${timedOut.error?.causeName}, ${authTimedOut.error?.causeName}`);
      // Chromium ends the ceremony itself at timeoutMs (NotAllowedError); Firefox waiting
      // for a token does not honour a 1 s timeout, and the kit's watchdog (timeoutMs + its
      // grace) aborts it (AbortError): either way PASSKEY_TIMEOUT, bounded.
      const timeoutCause = engine === 'firefox' ? 'AbortError' : 'NotAllowedError';
      await check(`(d) in ${engine} the timeout is ended by ${engine === 'firefox' ? "the kit's watchdog (AbortError)" : 'the browser (NotAllowedError)'}`, () => {
        assert(timedOut.error?.causeName === timeoutCause && authTimedOut.error?.causeName === timeoutCause,
          `causes ${timedOut.error?.causeName}, ${authTimedOut.error?.causeName}`);
      });

      const abortedRun = await s.page.evaluate((o) => {
        const { passkey } = window.kit;
        const controller = new AbortController();
        setTimeout(() => controller.abort(), 300);
        return window.attempt(() => passkey.register({ ...o, signal: controller.signal }));
      }, registrationOptions());
      await check('(d) no user presence + AbortController.abort() via signal → PASSKEY_CANCELLED', () => {
        expectKitError(abortedRun, 'PASSKEY_CANCELLED');
        assert(abortedRun.ms >= 250 && abortedRun.ms < 3_000, `settled after ${Math.round(abortedRun.ms)} ms`);
      });

      const cancelled = await s.page.evaluate((o) => {
        const { passkey } = window.kit;
        setTimeout(() => passkey.cancel(), 300);
        return window.attempt(() => passkey.register(o));
      }, registrationOptions());
      await check('(d) no user presence + passkey.cancel() → PASSKEY_CANCELLED', () => {
        expectKitError(cancelled, 'PASSKEY_CANCELLED');
        assert(cancelled.ms >= 250 && cancelled.ms < 3_000, `settled after ${Math.round(cancelled.ms)} ms`);
      });

      const superseded = await s.page.evaluate(async ({ first, second }) => {
        const { passkey } = window.kit;
        const p1 = window.attempt(() => passkey.register(first));
        await new Promise((r) => setTimeout(r, 300));
        const p2 = window.attempt(() => passkey.register(second));
        const r1 = await p1;
        // The second ceremony must be live (pending), not refused: give it time, then cancel it.
        const state = await Promise.race([p2.then(() => 'settled'), new Promise((r) => setTimeout(() => r('pending'), 500))]);
        passkey.cancel();
        return { r1, state, r2: await p2 };
      }, { first: registrationOptions(), second: registrationOptions() });
      await check('(d) a second register while one is pending → the first rejects PASSKEY_CANCELLED; the second runs', () => {
        expectKitError(superseded.r1, 'PASSKEY_CANCELLED');
        assert(superseded.state === 'pending', `the second ceremony settled at once: ${json(superseded.r2)}`);
        expectKitError(superseded.r2, 'PASSKEY_CANCELLED');
      });

      const authCancelled = await s.page.evaluate(({ credentialId }) => {
        const { passkey } = window.kit;
        setTimeout(() => passkey.cancel(), 300);
        return window.attempt(() => passkey.authenticate({ challenge: 'a'.repeat(64), credentialId }));
      }, { credentialId: b64u(injectedId) });
      await check('(d) no user presence + authenticate + passkey.cancel() → PASSKEY_CANCELLED', () => {
        expectKitError(authCancelled, 'PASSKEY_CANCELLED');
        assert(authCancelled.ms >= 250 && authCancelled.ms < 3_000, `settled after ${Math.round(authCancelled.ms)} ms`);
      });

      const preAborted = await s.page.evaluate((o) => {
        const { passkey } = window.kit;
        return Promise.all([
          window.attempt(() => passkey.register({ ...o, signal: AbortSignal.abort() })),
          window.attempt(() => passkey.authenticate({ challenge: 'b'.repeat(64), credentialId: 'AAAA', signal: AbortSignal.abort() })),
        ]);
      }, registrationOptions());
      await check('(d) an already aborted signal → PASSKEY_CANCELLED at once (register and authenticate)', () => {
        for (const r of preAborted) {
          expectKitError(r, 'PASSKEY_CANCELLED');
          assert(r.ms < 200, `took ${Math.round(r.ms)} ms`);
        }
      });

      // With the module loaded, register and authenticate reach navigator.credentials
      // within the call itself (no await, no microtask before it): what Safari's transient
      // activation needs.
      const withinCall = await s.page.evaluate(({ o, credentialId }) => {
        const { passkey } = window.kit;
        const creds = navigator.credentials;
        const originals = { create: creds.create, get: creds.get };
        const reached = {};
        let inside = false;
        for (const m of ['create', 'get']) {
          creds[m] = function recorded(...args) {
            reached[m] = inside;
            return originals[m].apply(this, args);
          };
        }
        const run = (fn) => {
          inside = true;
          try {
            return window.attempt(fn);
          } finally {
            inside = false;
          }
        };
        const register = run(() => passkey.register(o));
        passkey.cancel();
        const authenticate = run(() => passkey.authenticate({ challenge: 'c'.repeat(64), credentialId }));
        passkey.cancel();
        Object.assign(creds, originals);
        return Promise.all([register, authenticate]).then(([r, a]) => ({ reached, r, a }));
      }, { o: registrationOptions(), credentialId: b64u(injectedId) });
      await check('(d) after init, register and authenticate call navigator.credentials.create/get within the call', () => {
        assert(withinCall.reached.create === true, `create: ${json(withinCall.reached)}`);
        assert(withinCall.reached.get === true, `get: ${json(withinCall.reached)}`);
        expectKitError(withinCall.r, 'PASSKEY_CANCELLED');
        expectKitError(withinCall.a, 'PASSKEY_CANCELLED');
      });

      await check('(d) no page errors', () => assert(s.pageErrors.length === 0, s.pageErrors.join('\n')));
    } finally {
      await s.close();
    }
  }

  // ---- an IP origin: WebAuthn refuses it as a relying party ----------------------------
  {
    const s = await scenario({ host: '127.0.0.1' });
    try {
      const init = await initPasskeys(s.page);
      assert(init.ok, `init({ passkeys: true }) failed: ${json(init.error)}`);
      // One after the other: a second ceremony would cancel the first.
      const [reg, auth] = await s.page.evaluate(async ({ o, a }) => [
        await window.attempt(() => window.kit.passkey.register(o)),
        await window.attempt(() => window.kit.passkey.authenticate(a)),
      ], {
        o: registrationOptions({ timeoutMs: 5_000 }),
        a: { challenge: loginChallenge(), credentialId: b64u(randomBytes(16)), rpId: RP_ID, timeoutMs: 5_000 },
      });
      await check('on http://127.0.0.1: register and authenticate → PASSKEY_INVALID_DOMAIN, cause SecurityError', () => {
        expectKitError(reg, 'PASSKEY_INVALID_DOMAIN', 'SecurityError');
        expectKitError(auth, 'PASSKEY_INVALID_DOMAIN', 'SecurityError');
      });
      await check('IP origin: no page errors', () => assert(s.pageErrors.length === 0, s.pageErrors.join('\n')));
    } finally {
      await s.close();
    }
  }

  // ---- lazy loading: no init at all ---------------------------------------------------
  {
    const s = await scenario();
    try {
      const [lazy, cancelledWhileLoading] = await s.page.evaluate(async (o) => {
        const { passkey } = window.kit;
        // cancel() while the module is still loading cancels the waiting ceremony too.
        const doomed = window.attempt(() => passkey.register(o));
        passkey.cancel();
        const c = await doomed;
        return [await window.attempt(() => passkey.register(o)), c];
      }, registrationOptions());
      await check('without init: passkey.register loads the module on first use (once) and works', () => {
        assert(lazy.ok, json(lazy.error));
        assert(sameKeys(lazy.value, ATTESTATION_KEYS), Object.keys(lazy.value).join(', '));
        const paths = s.requests().map((r) => r.path);
        assert(json(paths.filter(isWasm)) === json([FULL_WASM]), paths.join(', '));
      });
      await check('without init: cancel() while the module loads cancels the waiting ceremony (PASSKEY_CANCELLED)', () =>
        expectKitError(cancelledWhileLoading, 'PASSKEY_CANCELLED'));
      const sync = await s.page.evaluate(() => window.kit.passkey.isSupported());
      await check('without init: after a lazy load, isSupported() works', () => assert(sync === true, json(sync)));
      await check('lazy: no page errors', () => assert(s.pageErrors.length === 0, s.pageErrors.join('\n')));
    } finally {
      await s.close();
    }
  }

  await check('every assertion passkey.authenticate returned was verified by @simplewebauthn/server', () => {
    const unverified = producedAssertions.filter((a) => !verifiedAssertions.has(a));
    assert(unverified.length === 0, `${unverified.length} of ${producedAssertions.length} never verified`);
    // (b1, b2, the empty and null userHandle, DataView and offset view, u1, u2, the injected credential)
    assert(producedAssertions.length === 9, `${producedAssertions.length} assertions, expected 9`);
  });
  console.log(`# ${producedAssertions.length} assertions, all verified by @simplewebauthn/server`);
}

/**
 * WebKitGTK has no WebAuthn (no PublicKeyCredential): the kit must say so and never hang.
 * isSupported() is false; both ceremonies reject PASSKEY_UNSUPPORTED at once, with init
 * and lazily; the detection probes resolve to their "no" values; the signing module is
 * unaffected.
 */
async function unsupportedSuite() {
  const s = await scenario({ withAuthenticator: false });
  try {
    const probe = await s.page.evaluate(() => ({
      publicKeyCredential: typeof window.PublicKeyCredential,
      secure: window.isSecureContext,
      credentials: typeof navigator.credentials,
    }));
    console.log(`# ${engine}: ${json(probe)}`);
    await check('the engine has no PublicKeyCredential, in a secure context (what the checks below rely on)', () => {
      assert(probe.publicKeyCredential === 'undefined', json(probe));
      assert(probe.secure === true, json(probe));
    });

    // Lazily (no init): the ceremonies refuse at once and the probes answer no, loading nothing.
    const lazy = await s.page.evaluate((o) => window.attempt(() => window.kit.passkey.register(o)), registrationOptions());
    const lazyAuth = await s.page.evaluate((o) => window.attempt(() => window.kit.passkey.authenticate(o)),
      { challenge: loginChallenge(), credentialId: b64u(randomBytes(16)), rpId: RP_ID });
    const lazyProbes = await s.page.evaluate(() => window.attempt(() => Promise.all([
      window.kit.passkey.platformAuthenticatorAvailable(), window.kit.passkey.conditionalMediationAvailable(), window.kit.passkey.clientCapabilities(),
    ])));
    await check('without init: passkey.register and authenticate → PASSKEY_UNSUPPORTED with the reason, at once, no .wasm fetched', () => {
      for (const r of [lazy, lazyAuth]) {
        const e = expectKitError(r, 'PASSKEY_UNSUPPORTED');
        assert(/no PublicKeyCredential/.test(e.message), e.message);
        assert(r.ms < 1_000, `took ${Math.round(r.ms)} ms`);
      }
      const wasm = s.requests().filter((r) => isWasm(r.path));
      assert(wasm.length === 0, `fetched before init(): ${json(wasm)}`);
    });
    await check('without init: the probes answer false, false, undefined, no .wasm fetched', () => {
      assert(lazyProbes.ok && json(lazyProbes.value) === json([false, false, null]), json(lazyProbes));
      const wasm = s.requests().filter((r) => isWasm(r.path));
      assert(wasm.length === 0, `fetched before init(): ${json(wasm)}`);
    });

    const init = await initPasskeys(s.page);
    await check('init({ passkeys: true }) resolves; the module was fetched once, no other .wasm', () => {
      assert(init.ok, json(init.error));
      const wasm = s.requests().filter((r) => isWasm(r.path));
      assert(wasm.length === 1 && wasm[0].path === FULL_WASM && wasm[0].status === 200, json(wasm));
    });
    const detected = await s.page.evaluate(async (o) => {
      const { passkey } = window.kit;
      return {
        supported: passkey.isSupported(),
        platform: await window.attempt(() => passkey.platformAuthenticatorAvailable()),
        conditional: await window.attempt(() => passkey.conditionalMediationAvailable()),
        capabilities: await window.attempt(() => passkey.clientCapabilities()),
        register: await window.attempt(() => passkey.register(o.reg)),
        authenticate: await window.attempt(() => passkey.authenticate(o.auth)),
        cancel: (() => {
          try {
            passkey.cancel();
            return 'no-op';
          } catch (e) {
            return window.errorInfo(e);
          }
        })(),
      };
    }, {
      reg: registrationOptions(),
      auth: { challenge: loginChallenge(), credentialId: b64u(randomBytes(16)), rpId: RP_ID, timeoutMs: 20_000 },
    });
    await check('passkey.isSupported() === false', () => assert(detected.supported === false, json(detected.supported)));
    await check('platformAuthenticatorAvailable() and conditionalMediationAvailable() resolve to false', () => {
      assert(detected.platform.ok && detected.platform.value === false, json(detected.platform));
      assert(detected.conditional.ok && detected.conditional.value === false, json(detected.conditional));
    });
    await check('clientCapabilities() resolves to undefined (nothing known)', () =>
      assert(detected.capabilities.ok && detected.capabilities.value === undefined, json(detected.capabilities)));
    await check('register and authenticate (timeoutMs 20000) → PASSKEY_UNSUPPORTED at once, nothing hangs', () => {
      for (const r of [detected.register, detected.authenticate]) {
        expectKitError(r, 'PASSKEY_UNSUPPORTED');
        assert(r.ms < 1_000, `took ${Math.round(r.ms)} ms`);
      }
    });
    await check('cancel() with nothing in flight is a no-op', () => assert(detected.cancel === 'no-op', json(detected.cancel)));
    const helpers = await s.page.evaluate(async (reg) => {
      const calls = [];
      const client = new window.kit.WalletClient({
        transport: async (request) => {
          calls.push(`${request.method} ${request.path}`);
          return { status: 500, body: '{}' };
        },
      });
      const { challenge, rpId, rpName, user, timeoutMs } = reg;
      return {
        login: await window.attempt(() => client.loginWithPasskey('AuthMethod:00000000-0000-4000-8000-000000000001')),
        register: await window.attempt(() => client.registerPasskey({ accountId: 'Account:1', nickname: 'laptop', challenge, rpId, rpName, user, timeoutMs })),
        calls,
      };
    }, registrationOptions());
    await check('WalletClient.loginWithPasskey and registerPasskey → PASSKEY_UNSUPPORTED at once, naming the reason and the email-code fallback; no request sent', () => {
      for (const r of [helpers.login, helpers.register]) {
        const e = expectKitError(r, 'PASSKEY_UNSUPPORTED');
        assert(/no PublicKeyCredential/.test(e.message) && /email code/.test(e.message) && /createEmailOtp/.test(e.message), e.message);
        assert(r.ms < 1_000, `took ${Math.round(r.ms)} ms`);
      }
      assert(helpers.calls.length === 0, `requests sent: ${json(helpers.calls)}`);
    });
    const badInput = await s.page.evaluate(() =>
      window.attempt(() => window.kit.passkey.register({ challenge: 'not base64url!', rpId: 'localhost' })));
    await check('bad options are still INVALID_INPUT, not PASSKEY_UNSUPPORTED', () =>
      expectKitError(badInput, 'INVALID_INPUT'));
    await check('no page errors, no 404s', () => {
      const missing = s.requests().filter((r) => r.status !== 200).map((r) => `${r.status} ${r.path}`);
      assert(s.pageErrors.length === 0 && missing.length === 0, [...s.pageErrors, ...missing].join('\n'));
    });
  } finally {
    await s.close();
  }
}

export default defineSuite(import.meta, {
  checks,
  async run(e, b) {
    [engine, browser] = [e, b];
    try {
      if (engine === 'webkit') await unsupportedSuite();
      else await webauthnSuite();
    } finally {
      await sharedSession?.close();
      sharedSession = undefined;
    }
  },
  close: () => server.close(),
});
