// WalletClient's implementation: the wallet's flows against the service, loaded by the
// first flow call of a WalletClient or by init({ passkeys: true }) (npm/wallet-client.js,
// the public class the entries import, checks the options and holds one instance of this
// per client), so init() alone does not download it. The flow logic (which request, the
// 202 → sign → retry loop, 401/429 typing, the restart of an expired request, the refresh
// key check) is the Rust core's, in the lazily loaded module it shares with the passkey
// ceremonies (pages that only sign never download it); keys and sessions stay in the
// signing module, which signs what a flow hands out. This file is the async loop around
// both: build a request → await the integrator's transport → hand the response to the
// flow → have the session sign a 202 → repeat. The transport is the integrator's (it adds
// the API credentials on its backend), so the API secret never enters the page. The key
// mode (`keys`: the spec's sealed bundle, or client-held keys) is chosen once per client;
// the core picks each operation's clientPublicKey form.
import { ClientKey as RawClientKey, Session as RawSession, encryptOtp, isSession, keyArg, storedSessions, webAuthnMissing } from './shared.js';
import { KitError, now } from './platform.js';
import { readOptions } from './guard.js';
import { loadPasskeys, passkey as kitPasskey } from './passkey.js';

/**
 * Where a client's keys are made and its sessions opened and checked: this thread's wasm,
 * unless the client is an isolated kit's (npm/signer.js: the same members, over its
 * Worker, asynchronous). The flows in this file see only public keys and session ids.
 */
const SAME_THREAD = {
  generate: () => RawClientKey.generate(),
  open: (body, key) => RawSession.open(body, key),
  fromClientKey: (body, key) => RawSession.fromClientKey(body, key),
  sandbox: (body) => RawSession.sandbox(body),
  encryptOtp,
  isSession,
  keyArg,
  flows: () => loadPasskeys(),
};

/** The credential that issued each session this module opened, so a refresh carries it over. */
const issuedBy = new WeakMap();
/** The WalletClient method each flow serves, for `onPending`. */
const operationOf = new WeakMap();
/**
 * What the flows read of a transport's answer: `{ status, headers, body }`, the body as
 * text, a parsed object or nothing. A fetch `Response` returned as it is gives its text; a
 * body of another kind (a stream, bytes, a Response already read) would read as an empty
 * object, so it is SERVICE_ERROR naming it.
 */
async function readResponse(response, where) {
  let { status, headers, body } = response;
  if (response instanceof Response) body = await response.text().catch(() => response);
  const proto = body !== null && typeof body === 'object' && Object.getPrototypeOf(body);
  if (body == null || typeof body === 'string' || Array.isArray(body) || proto === Object.prototype || proto === null) return { status, headers, body };
  throw new KitError('SERVICE_ERROR', `the transport's response body for ${where} is a ${proto ? proto.constructor?.name : typeof body}: give its text, a parsed object or an unread Response`);
}

/** Calls the app's listener, if any; its failure is the app's, not the operation's. */
function tell(listener, event) {
  try {
    listener?.(event);
  } catch {
    // ignored
  }
}

/** Errors raised because the transport failed (it threw, or returned no object). */
const transportFailures = new WeakSet();

const invalid = (message) => new KitError('INVALID_INPUT', message);
/** PASSKEY_UNSUPPORTED from a passkey helper: the reason, and the way on (capabilities() tells beforehand). */
const passkeysUnsupported = (reason, cause) =>
  new KitError('PASSKEY_UNSUPPORTED', `${reason}; log in with an email code instead (createEmailOtp, then verifyEmailOtp)`, cause);

function text(value, name) {
  if (typeof value !== 'string' || value === '') throw invalid(`${name} must be a non-empty string`);
  return value;
}

/** Whether `session` is a SessionStore's StoredSession (it signs asynchronously). */
const isStored = (session) => storedSessions.has(session);

// isSession: an object made from the prototype passes instanceof with no wasm behind it.
function sessionArg(session, custody) {
  if (!custody.isSession(session) && !isStored(session)) throw invalid('session must be a Session or a StoredSession');
  return session;
}

/**
 * A session that can still sign, checked before any request: a freed one (or a stored one
 * deleted or replaced in the store) is SESSION_CLOSED, an expired one SESSION_EXPIRED (the
 * same codes its signing would throw, but before the transport is called: nothing is sent
 * that could not be signed). For a Session this is synchronous and returns undefined; for
 * a StoredSession a promise (its store may have to be read), to be awaited.
 */
function liveSession(session, custody) {
  sessionArg(session, custody);
  if (isStored(session)) {
    expiryCheck(session);
    return storedSessions.get(session).checkLive();
  }
  // A freed session has neither a key nor the sandbox's magic signer any more.
  if (session.publicKeyHex === undefined && !session.sandboxed) {
    throw new KitError('SESSION_CLOSED', 'this session was freed; its key is gone (nothing was sent)');
  }
  expiryCheck(session);
  return undefined;
}

function expiryCheck(session) {
  if (session.isExpired()) {
    throw new KitError('SESSION_EXPIRED', "the session's expiresAt has passed; log in again (nothing was sent)");
  }
}

/** liveSession, awaited only for a StoredSession (a Session's checks stay in the caller's task). */
async function ready(session, custody) {
  const pending = liveSession(session, custody);
  if (pending !== undefined) await pending;
}

/** The public parts of a key, as the flows take them. */
function keyParts(key) {
  return [key.publicKeyHex, key.compressedPublicKeyHex];
}

/** A JSON body: its text as given, or an object serialised once (retries repeat these bytes). */
function jsonText(value, name) {
  if (typeof value === 'string') return value;
  if (value !== null && typeof value === 'object') return JSON.stringify(value);
  throw invalid(`${name} must be an object or its JSON text`);
}

/** A response body for the caller: parsed when it is JSON text, undefined when empty. */
function bodyOf(response) {
  const { body } = response;
  if (typeof body !== 'string') return body ?? undefined;
  if (body === '') return undefined;
  try {
    return JSON.parse(body);
  } catch {
    return body;
  }
}

/** Runs `fn` with a fresh ClientKey (of `custody`) unless one was given; frees a key it made. */
async function withKey(custody, key, fn) {
  if (key !== undefined) return fn(custody.keyArg(key));
  const own = await custody.generate();
  try {
    return await fn(own);
  } finally {
    own.free()?.catch(() => {}); // a no-op once a session consumed it
  }
}

/**
 * One WalletClient's flows: the public class (npm/wallet-client.js) makes one, with its
 * checked options, on its first flow call and forwards each flow method to it.
 */
export class WalletFlows {
  #transport;
  #sandbox;
  #passkey;
  #clientHeld;
  #otpSignerPin;
  #onPending;
  #onSigned;
  #processing;
  /** credential id → the otpEncryptionTargetBundle of its last challenge (client-held mode). */
  #otpTargets = new Map();
  /** Where this client's keys and sessions live (SAME_THREAD, or an isolated kit's). */
  #custody;

  /**
   * @param {{ transport: Function, sandbox: boolean, passkey: object, clientHeld: boolean,
   *   otpSignerPin: string, onPending?: Function, onSigned?: Function, processing: any, custody?: any }} settings
   *   the options as npm/wallet-client.js checked them
   */
  constructor({ custody = SAME_THREAD, transport, sandbox, passkey, clientHeld, otpSignerPin, onPending, onSigned, processing }) {
    this.#custody = custody;
    this.#onPending = onPending;
    this.#onSigned = onSigned;
    this.#processing = processing;
    this.#transport = transport;
    this.#sandbox = sandbox;
    this.#passkey = passkey;
    this.#clientHeld = clientHeld;
    this.#otpSignerPin = otpSignerPin;
  }

  /** Remembers the target bundle a challenge (or create) answer carries, per credential. */
  #rememberOtpTarget(body, credentialId) {
    const target = body?.otpEncryptionTargetBundle;
    const id = credentialId ?? body?.id;
    if (this.#clientHeld && target !== undefined && target !== null && typeof id === 'string') {
      this.#otpTargets.set(id, target);
    }
    return body;
  }

  async #send(request) {
    const where = `${request.method} ${request.path}`;
    let response;
    try {
      response = await this.#transport(request);
    } catch (err) {
      if (err instanceof KitError) throw err;
      const failure = new KitError('SERVICE_ERROR', `the transport failed on ${where} (its error is the cause)`, err);
      transportFailures.add(failure);
      throw failure;
    }
    if (response === null || typeof response !== 'object') {
      const failure = new KitError('SERVICE_ERROR', `the transport returned no response object for ${where}`);
      transportFailures.add(failure);
      throw failure;
    }
    return readResponse(response, where);
  }

  /** The flow module (loaded once, shared with the passkey ceremonies). */
  #flows() {
    return this.#custody.flows();
  }

  /**
   * Drives a flow to its end; without a session a 202 is an error. Resolves to the last
   * response. A PROCESSING answer is answered by the identical request after the flow's
   * wait (`onPending` told), until the terminal answer or the bound (STILL_PROCESSING).
   */
  async #run(flow, session) {
    try {
      const { maxResends, firstDelayMs, maxDelayMs } = this.#processing;
      flow.setProcessingPolicy(maxResends, firstDelayMs, maxDelayMs);
      let request = flow.firstRequest();
      let waitingSince;
      for (;;) {
        const response = await this.#send(request);
        const step = session === undefined ? flow.onUnsignedResponse(response) : flow.onResponse(response);
        if (step === undefined || step === null) return response;
        if (step.resend !== undefined) {
          if (waitingSince === undefined) waitingSince = now();
          await this.#pending(operationOf.get(flow) ?? 'request', step.resend, waitingSince);
          request = step.resend.request;
          continue;
        }
        if (step.send !== undefined) {
          request = step.send;
          continue;
        }
        // A 202, parsed and checked by the flow: the session signs it (guards: expiry,
        // single-use request ids); an expired one restarts the request once.
        let headers;
        try {
          headers = await session.signRetry(step.sign);
        } catch (err) {
          request = flow.signFailed(err);
          continue;
        }
        const requestId = headers['Request-Id'];
        request = flow.signed(headers['Service-Wallet-Signature'], requestId);
        tell(this.#onSigned, { operation: operationOf.get(flow) ?? 'request', requestId });
      }
    } finally {
      flow.free();
    }
  }

  /**
   * Before a re-send: STILL_PROCESSING once the caller's bound is reached (its timeout, or
   * its signal aborted), else `onPending` is told and the flow's wait is waited.
   */
  async #pending(operation, resend, since) {
    const { timeoutMs, signal } = this.#processing;
    const { attempt, delayMs, requestId } = resend;
    const stop = (why) => {
      const error = new KitError(
        'STILL_PROCESSING',
        `the service is still processing ${resend.request.method} ${resend.request.path} (${why}); it may still complete: look the result up later (GET /auth/credentials, GET /auth/sessions) rather than starting it again`,
      );
      if (requestId !== undefined) Object.assign(error, { requestId });
      return error;
    };
    if (signal?.aborted) throw stop('the wait was aborted');
    if (timeoutMs !== undefined && now() + delayMs - since > timeoutMs) throw stop(`no answer within ${timeoutMs} ms`);
    tell(this.#onPending, { operation, attempt, delayMs, ...(requestId !== undefined && { requestId }) });
    await new Promise((resolve, reject) => {
      const aborted = () => {
        clearTimeout(timer);
        reject(stop('the wait was aborted'));
      };
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', aborted);
        resolve(undefined);
      }, delayMs);
      signal?.addEventListener('abort', aborted, { once: true });
    });
  }

  /**
   * The session of a verify or refresh response (the flow has checked its status):
   * client-held when the flow sent the compressed key (the key becomes the session key;
   * a response carrying a bundle is INVALID_SESSION), else the bundle sealed to `key`.
   */
  async #open(response, key, credentialId, clientHeld) {
    const body = bodyOf(response);
    const custody = this.#custody;
    let session;
    if (this.#sandbox) session = await custody.sandbox(body);
    else if (clientHeld) session = await custody.fromClientKey(body, key);
    else session = await custody.open(body, key);
    if (credentialId !== undefined) issuedBy.set(session, credentialId);
    return session;
  }

  /** A wallet operation's flow; a session and a key are passed by their public parts. */
  async #flow(name, id, text, session, key) {
    const { walletFlow } = await this.#flows();
    const [keyPublic, keyCompressed] = key === undefined ? [] : keyParts(key);
    const flow = walletFlow(
      name, id, text, session?.id, session === undefined ? undefined : issuedBy.get(session), keyPublic, keyCompressed, this.#clientHeld,
    );
    operationOf.set(flow, name);
    return flow;
  }

  async #ceremony(name, options) {
    const fn = this.#passkey[name];
    if (typeof fn !== 'function') throw invalid(`WalletClient: options.passkey.${name} must be a function`);
    try {
      return await fn.call(this.#passkey, options);
    } catch (err) {
      if (err instanceof KitError) throw err.code === 'PASSKEY_UNSUPPORTED' ? passkeysUnsupported(err.message, err.cause) : err;
      throw new KitError('PASSKEY_FAILED', `passkey.${name} failed (its error is the cause)`, err);
    }
  }

  async createEmailOtp(accountId, session) {
    if (session !== undefined) await ready(session, this.#custody);
    const flow = await this.#flow('createEmailOtp', text(accountId, 'accountId'));
    return this.#rememberOtpTarget(bodyOf(await this.#run(flow, session)));
  }

  async addCredential(session, body) {
    await ready(session, this.#custody);
    return bodyOf(await this.#run(await this.#flow('addCredential', '', jsonText(body, 'body')), session));
  }

  async registerPasskey(options, session) {
    if (options === null || typeof options !== 'object') throw invalid('registerPasskey: options must be an object');
    const { accountId, nickname, ...ceremony } = options;
    text(accountId, 'accountId');
    text(nickname, 'nickname');
    // Not awaited: the ceremony must start in the caller's task (Safari ties WebAuthn to
    // the click); a StoredSession's store check is awaited after it, below.
    if (session !== undefined) liveSession(session, this.#custody)?.catch(() => {});
    const attestation = await this.#ceremony('register', ceremony);
    // From the flow module itself: with an injected `passkey` driver nothing may have
    // loaded it yet (the kit's passkey.registrationBody would then be NOT_INITIALIZED).
    const { passkeyRegistrationBody } = await this.#flows();
    const body = passkeyRegistrationBody(accountId, nickname, ceremony.challenge, attestation);
    // Checked again: the ceremony may have outlasted the session.
    if (session !== undefined) await ready(session, this.#custody);
    return bodyOf(await this.#run(await this.#flow('addCredential', '', JSON.stringify(body)), session));
  }

  async challenge(credentialId) {
    const body = bodyOf(await this.#run(await this.#flow('challenge', text(credentialId, 'credentialId'))));
    return this.#rememberOtpTarget(body, credentialId);
  }

  /**
   * Client-held: the encrypted OTP login with a target bundle (given, or remembered from
   * this credential's last `challenge()`/`createEmailOtp()`), whose TEK (`key`) signs the
   * 202 and becomes the session key; without one, INVALID_INPUT before anything is sent
   * (the live service has no plaintext `otp` in that mode). Sealed: the plaintext verify,
   * whose session comes sealed to `key`.
   */
  async verifyEmailOtp(credentialId, otp, key, options) {
    text(credentialId, 'credentialId');
    text(otp, 'otp');
    if (options !== undefined && (options === null || typeof options !== 'object')) {
      throw invalid('verifyEmailOtp: options must be an object');
    }
    const given = options?.otpEncryptionTargetBundle;
    if (given !== undefined && !this.#clientHeld) {
      throw invalid("verifyEmailOtp: otpEncryptionTargetBundle needs keys: 'client-held' (the encrypted OTP login makes the key the session key)");
    }
    const target = given ?? (this.#clientHeld ? this.#otpTargets.get(credentialId) : undefined);
    if (this.#clientHeld && target === undefined) {
      throw invalid("verifyEmailOtp: keys: 'client-held' seals the code to the credential's otpEncryptionTargetBundle: call challenge() first (or pass options.otpEncryptionTargetBundle); nothing was sent");
    }
    return withKey(this.#custody, key, async (k) => {
      if (target === undefined) {
        const flow = await this.#flow('verifyEmailOtp', credentialId, otp, undefined, k);
        const clientHeld = flow.clientHeld;
        return this.#open(await this.#run(flow), k, credentialId, clientHeld);
      }
      const { OtpLoginFlow } = await this.#flows();
      const sealed = await this.#custody.encryptOtp(target, otp, k, { pin: this.#otpSignerPin });
      // The TEK signs the 202 (ClientKey.signRetry); an expired one is REQUEST_EXPIRED.
      const login = new OtpLoginFlow(credentialId, 'EMAIL_OTP', sealed);
      operationOf.set(login, 'verifyEmailOtp');
      const session = await this.#open(await this.#run(login, k), k, credentialId, true);
      if (given === undefined) this.#otpTargets.delete(credentialId);
      return session;
    });
  }

  async verifyOauth(credentialId, oidcToken, key) {
    text(credentialId, 'credentialId');
    text(oidcToken, 'oidcToken');
    // The token's nonce is WalletClient.oidcNonce(key): only the caller's key can match it.
    const k = this.#custody.keyArg(key);
    const flow = await this.#flow('verifyOauth', credentialId, oidcToken, undefined, k);
    const clientHeld = flow.clientHeld;
    return this.#open(await this.#run(flow), k, credentialId, clientHeld);
  }

  /** @param {import('./index.js').LoginWithPasskeyOptions} [options] */
  async loginWithPasskey(credentialId, options = {}) {
    text(credentialId, 'credentialId');
    if (options === null || typeof options !== 'object') throw invalid('loginWithPasskey: options must be an object');
    const { rpId, key, ...ceremony } = options;
    if (rpId !== undefined) text(rpId, 'rpId');
    // Without WebAuthn, before the service hands out a challenge.
    const missing = this.#passkey === kitPasskey ? webAuthnMissing() : undefined;
    if (missing !== undefined) throw passkeysUnsupported(missing);
    return withKey(this.#custody, key, async (k) => {
      const { PasskeyChallenge } = await this.#flows();
      // The challenge binds the key (in the client's form): it decides the session's kind.
      const flow = await this.#flow('challenge', credentialId, undefined, undefined, k);
      const clientHeld = flow.clientHeld;
      const challenged = await this.#run(flow);
      const challenge = new PasskeyChallenge(credentialId, challenged);
      try {
        const assertion = await this.#ceremony('authenticate', { ...ceremony, ...challenge.authenticationInput(rpId) });
        const verify = challenge.verify(assertion);
        operationOf.set(verify, 'loginWithPasskey');
        return this.#open(await this.#run(verify), k, credentialId, clientHeld);
      } finally {
        challenge.free();
      }
    });
  }

  async refresh(session) {
    await ready(session, this.#custody);
    return withKey(this.#custody, undefined, async (k) => {
      const flow = await this.#flow('refresh', '', undefined, session, k);
      const clientHeld = flow.clientHeld;
      return this.#open(await this.#run(flow, session), k, issuedBy.get(session), clientHeld);
    });
  }

  /**
   * Revokes `session` at the service; frees it whatever the answer (or failure). A
   * StoredSession is deleted from its store instead, which ends it in every tab.
   */
  async revokeSession(session) {
    sessionArg(session, this.#custody);
    if (isStored(session)) {
      // Another tab may have refreshed it (before or during this call): the session at
      // the end of its chain of refreshes is the live one, so that is the one revoked;
      // the chain is deleted only while it still ends there, else the newer end is revoked.
      const internals = storedSessions.get(session);
      let revoked = false;
      let deleted = false;
      let failure;
      let tried;
      try {
        for (let round = 0; round < 8 && !deleted; round++) {
          const status = await internals.status();
          if (status.state === 'deleted') {
            if (tried === undefined) await ready(session, this.#custody); // SESSION_CLOSED, as before any step
            break;
          }
          const endId = status.state === 'live' ? session.id : status.id;
          // A failure on the newest session ends it; one on a session replaced meanwhile
          // (refused by the store, or by the service) goes on with its successor.
          if (failure !== undefined && endId === tried) break;
          const target = endId === session.id ? session : await internals.load(endId);
          if (target === null) break; // the newest session expired (or was deleted) meanwhile
          tried = endId;
          try {
            await ready(target, this.#custody);
            await this.#run(await this.#flow('revokeSession', '', undefined, target), target);
            revoked = true;
            failure = undefined;
          } catch (err) {
            revoked = false;
            failure = err;
            continue;
          }
          deleted = await internals.deleteChainEndingAt(endId);
        }
      } catch (err) {
        revoked = false;
        failure = err;
      } finally {
        // Revoked, or to be abandoned: no tab may sign with it. A failed delete is this
        // call's error only when the revoke itself succeeded (else the revoke's error wins).
        if (!deleted) {
          const deleting = session.delete();
          if (revoked) await deleting;
          else await deleting.catch(() => {});
        }
      }
      if (failure !== undefined) throw failure;
      return;
    }
    try {
      liveSession(session, this.#custody);
      await this.#run(await this.#flow('revokeSession', '', undefined, session), session);
    } finally {
      session.free(); // revoked, or to be abandoned: its key is zeroized either way
    }
  }

  /** @param {import('./index.js').RevokeCredentialOptions} [options] */
  async revokeCredential(session, credentialId, options = {}) {
    if (options === null || typeof options !== 'object') throw invalid('revokeCredential: options must be an object');
    const { passkeyCredentialId, rpId } = readOptions(options, ['passkeyCredentialId', 'rpId'], 'revokeCredential');
    if (passkeyCredentialId !== undefined && !/^[\w-]+$/.test(text(passkeyCredentialId, 'passkeyCredentialId'))) {
      throw invalid('revokeCredential: passkeyCredentialId must be a base64url WebAuthn credential id');
    }
    if (rpId !== undefined) text(rpId, 'rpId');
    await ready(session, this.#custody);
    const flow = await this.#flow('revokeCredential', text(credentialId, 'credentialId'), undefined, session);
    await this.#run(flow, session);
    // The authenticator still offers a revoked passkey until it is told (WebAuthn L3).
    if (passkeyCredentialId === undefined) return { signaled: false, reason: 'no passkeyCredentialId given' };
    return kitPasskey.signalUnknownCredential({ credentialId: passkeyCredentialId, rpId });
  }

  async exportWallet(session, accountId, key) {
    await ready(session, this.#custody);
    // The export's clientPublicKey is the uncompressed form in both key modes.
    const flow = await this.#flow('exportWallet', text(accountId, 'accountId'), undefined, undefined, this.#custody.keyArg(key));
    return bodyOf(await this.#run(flow, session));
  }

  async updateAccount(session, accountId, patch) {
    await ready(session, this.#custody);
    const flow = await this.#flow('updateAccount', text(accountId, 'accountId'), jsonText(patch, 'patch'));
    return bodyOf(await this.#run(flow, session));
  }

  /** `{ email }` or `{ phoneNumber }`, exactly one, a non-empty string (the service checks the form). */
  async updateCustomer(session, customerId, change) {
    await ready(session, this.#custody);
    const fields = change !== null && typeof change === 'object' ? Object.keys(change) : [];
    if (fields.length !== 1 || !['email', 'phoneNumber'].includes(fields[0])) {
      throw invalid('updateCustomer: change must be { email } or { phoneNumber }');
    }
    text(change[fields[0]], fields[0]);
    const flow = await this.#flow('updateCustomer', text(customerId, 'customerId'), JSON.stringify(change));
    return bodyOf(await this.#run(flow, session));
  }

  async executeQuote(session, quote, { attempts = 3 } = {}) {
    await ready(session, this.#custody);
    if (!Number.isInteger(attempts) || attempts < 1 || attempts > 10) throw invalid('attempts must be an integer from 1 to 10');
    const { QuoteExecution } = await this.#flows();
    const execution = new QuoteExecution(quote);
    try {
      for (let attempt = 1; ; attempt++) {
        // Signed at each attempt (QUOTE_EXPIRED, SESSION_EXPIRED are checked then), with
        // the one Idempotency-Key: a retry after a lost response cannot pay twice.
        const headers = await session.signQuote(execution.toSign());
        const signature = headers['Service-Wallet-Signature'];
        const request = execution.request(signature);
        let response;
        try {
          response = await this.#send(request);
        } catch (err) {
          if (attempt < attempts && transportFailures.has(err)) continue;
          throw err;
        }
        execution.onResponse(response);
        return bodyOf(response);
      }
    } finally {
      execution.free();
    }
  }

  async request(request, session) {
    if (session !== undefined) await ready(session, this.#custody);
    const { SignedRetryFlow } = await this.#flows();
    return this.#run(new SignedRetryFlow(request), session);
  }
}
