// Compiled (not run) by scripts/pack-smoke.mjs against the installed tarball with
// `tsc --noEmit --strict`: every export of index.d.ts is used as documented, and the
// expect-error lines below prove the types reject misuse.
import {
  init, ClientKey, Session, KitError, passkey, SessionStore,
  type StoredSession, type StoredClientKey, type SessionStoreOptions,
  type KitErrorCode, type SignedRetryHeaders, type QuoteSignatureHeader, type SessionResponse,
  type PendingSignature, type Quote, type InitInput, type InitOptions,
  type PasskeyRegisterOptions, type PasskeyAuthenticateOptions, type PasskeyAttestation,
  type PasskeyAssertion, type PasskeyRegistrationBody, type PasskeyApi,
} from 'embedded-wallet-kit';

export async function demo(response: SessionResponse, pending: PendingSignature, quote: Quote, wasm: InitInput): Promise<void> {
  await init();
  await init(wasm);
  await init({ module_or_path: new URL('https://example.invalid/kit.wasm') });
  await init({ enclave: true, passkeys: true });
  const key: ClientKey = ClientKey.generate();
  const pub: string = key.publicKeyHex;
  const comp: string = key.compressedPublicKeyHex;
  const nonce: string = key.oidcNonce();
  const compressedNonce: string = key.oidcNonce({ compressed: true });
  // @ts-expect-error: the form is chosen with an options object
  void key.oidcNonce('compressed');
  const s: Session = Session.open(response, key);
  const s2: Session = Session.open(JSON.stringify(response), ClientKey.generate());
  const sb: Session = Session.sandbox(response);
  const sc: Session = Session.fromClientKey(response, ClientKey.generate());
  const expires: Date = s.expiresAt;
  const expired: boolean = s.isExpired() || s.isExpired(new Date());
  const stamp: string = s.stamp('payload');
  const retry: SignedRetryHeaders = s.signRetry(pending);
  const sig: string = retry['Service-Wallet-Signature'];
  const rid: string = retry['Request-Id'];
  const q: QuoteSignatureHeader = s.signQuote(quote);
  const ids: string[] = [s.id, s.accountId, s.type, s.publicKeyHex ?? 'sandbox'];
  // @ts-expect-error: publicKeyHex is undefined for sandbox sessions
  const pk: string = sb.publicKeyHex;
  const flags: boolean[] = [sb.sandboxed, key.consumed, s.isExpired(Date.now())];
  void [pk, flags];
  void [pub, comp, nonce, compressedNonce, s2, sb, sc, expires, expired, stamp, sig, rid, q, ids];
  // @ts-expect-error: no such header on a quote signature
  void q['Request-Id'];
  // @ts-expect-error: the constructor is private; use ClientKey.generate()
  void new ClientKey();
  // @ts-expect-error: stamp takes a string
  s.stamp(42);
  try {
    s.free();
    key.free();
  } catch (err) {
    if (err instanceof KitError) {
      const code: KitErrorCode = err.code;
      const msg: string = err.message;
      const cause: unknown = err.cause;
      void [code, msg, cause];
      // @ts-expect-error: not a KitErrorCode
      const bad: KitErrorCode = 'NOPE';
      void bad;
    }
  }
  const e = new KitError('INVALID_INPUT', 'x', new Error('cause'));
  void e;
}

export async function passkeys(registrationChallenge: string, loginChallenge: string): Promise<PasskeyRegistrationBody> {
  await init({ passkeys: true });
  const opts: InitOptions = { module_or_path: '/kit.wasm', passkeys: true };
  await init(opts);
  // @ts-expect-error the passkey API is in the one module init() loads: no location of its own
  const stale: InitOptions = { passkeys: { module_or_path: '/kit-passkey.wasm' } };
  void stale;
  const api: PasskeyApi = passkey;
  const supported: boolean = api.isSupported();
  const platform: boolean = await passkey.platformAuthenticatorAvailable();
  const conditional: boolean = await passkey.conditionalMediationAvailable();
  const caps: Record<string, boolean> | undefined = await passkey.clientCapabilities();
  void [supported, platform, conditional, caps];
  const controller = new AbortController();
  const regOptions: PasskeyRegisterOptions = {
    challenge: registrationChallenge,
    rpId: 'example.com',
    rpName: 'Example',
    user: { id: 'InternalAccount:1', name: 'alice@example.com', displayName: 'Alice' },
    excludeCredentialIds: ['AAAA'],
    residentKey: 'preferred',
    userVerification: 'required',
    attachment: 'platform',
    timeoutMs: 60_000,
    signal: controller.signal,
  };
  const att: PasskeyAttestation = await passkey.register(regOptions);
  const transports: string[] = att.transports;
  const authOptions: PasskeyAuthenticateOptions = { challenge: loginChallenge, credentialId: att.credentialId };
  const assertion: PasskeyAssertion = await passkey.authenticate({ ...authOptions, rpId: 'example.com', timeoutMs: 5_000 });
  const handle: string | undefined = assertion.userHandle;
  const parts: string[] = [assertion.clientDataJson, assertion.authenticatorData, assertion.signature, att.attestationObject];
  void [transports, handle, parts];
  passkey.cancel();
  // @ts-expect-error: the kit spells it clientDataJson
  void att.clientDataJSON;
  // @ts-expect-error: userHandle may be absent
  const sure: string = assertion.userHandle;
  void sure;
  // @ts-expect-error: residentKey is required | preferred | discouraged
  void passkey.register({ ...regOptions, residentKey: 'always' });
  // @ts-expect-error: credentialId is required
  void passkey.authenticate({ challenge: loginChallenge });
  return passkey.registrationBody('InternalAccount:1', 'My laptop', registrationChallenge, att);
}

// WalletClient: a transport in, typed flows out.
import {
  WalletClient, type Transport, type TransportResponse, type AuthMethod, type WalletClientOptions,
} from 'embedded-wallet-kit';

export async function walletClient(quote: Quote & { id: string }): Promise<void> {
  const transport: Transport = async ({ method, path, headers, body }) => {
    const res = await fetch(`/backend${path}`, { method, headers, body });
    return { status: res.status, headers: res.headers, body: await res.text() };
  };
  const options: WalletClientOptions = { transport, sandbox: false };
  const client = new WalletClient(options);
  const cred: AuthMethod = await client.createEmailOtp('InternalAccount:1');
  const session: Session = await client.verifyEmailOtp(cred.id, '123456');
  const key = ClientKey.generate();
  const oauth: Session = await client.verifyOauth(cred.id, 'a.b.c', key);
  const login: Session = await client.loginWithPasskey(cred.id, { rpId: 'localhost', timeoutMs: 30_000 });
  const next: Session = await client.refresh(session);
  const tx: Record<string, unknown> = await client.executeQuote(next, quote, { attempts: 2 });
  const raw: TransportResponse = await client.request({ method: 'GET', path: '/quotes' });
  const customer: Record<string, unknown> = await client.updateCustomer(next, 'Customer:1', { email: 'a@example.com' });
  await client.updateCustomer(next, 'Customer:1', { phoneNumber: '+15555550100' });
  // @ts-expect-error one contact field, email or phoneNumber
  await client.updateCustomer(next, 'Customer:1', { nickname: 'x' });
  void customer;
  await client.revokeCredential(next, cred.id);
  await client.revokeSession(next);
  try {
    await client.challenge(cred.id);
  } catch (err) {
    if (err instanceof KitError && err.code === 'RATE_LIMITED') {
      const wait: number | undefined = err.retryAfterMs;
      const reason: string | undefined = err.reason;
      void wait;
      void reason;
    }
  }
  // Client-held keys: the nonce of the form sent, the encrypted OTP login.
  const held = new WalletClient({ transport, keys: 'client-held', otpSignerPin: '04ab' });
  const mode: 'sealed' | 'client-held' = held.keys;
  const heldKey = ClientKey.generate();
  const nonce: string = held.oidcNonce(heldKey);
  const encrypted: Session = await held.verifyEmailOtp(cred.id, '123456', heldKey, { otpEncryptionTargetBundle: '{}' });
  void [mode, nonce, encrypted];
  // @ts-expect-error only the two key modes
  new WalletClient({ transport, keys: 'compressed' });
  // @ts-expect-error the nonce is computed at once, not a promise
  const asyncNonce: Promise<string> = held.oidcNonce(heldKey);
  void asyncNonce;
  // @ts-expect-error the transport is required
  new WalletClient({});
  // @ts-expect-error verifyOauth needs the key whose nonce the token carries
  await client.verifyOauth(cred.id, 'a.b.c');
  void [oauth, login, tx, raw];
}

export async function stored(response: SessionResponse, pending: PendingSignature, quote: Quote): Promise<Session> {
  const options: SessionStoreOptions = { name: 'wallet', indexedDB: globalThis.indexedDB };
  const store: SessionStore = await SessionStore.open(options);
  await SessionStore.open();
  const saved: StoredSession = await store.save(Session.sandbox(response));
  const again: StoredSession | null = await store.load(saved.id);
  const all: StoredSession[] = await store.list();
  const stamp: string = await saved.stamp('payload');
  const retry: SignedRetryHeaders = await saved.signRetry(pending);
  const q: QuoteSignatureHeader = await saved.signQuote(JSON.stringify(quote));
  const fields: [string, string, string, Date, string | undefined, boolean, boolean] = [
    saved.id, saved.accountId, saved.type, saved.expiresAt, saved.publicKeyHex, saved.sandboxed, saved.isExpired(Date.now()),
  ];
  void [again, all, stamp, retry, q, fields];
  // @ts-expect-error: a stored session signs asynchronously
  const sync: string = saved.stamp('payload');
  void sync;
  // @ts-expect-error: the constructor is private; use SessionStore.open()
  void new SessionStore();
  await saved.delete();
  await store.delete('Session:1');
  const stored: StoredClientKey = await store.saveClientKey(ClientKey.generate());
  const nonce: string = stored.oidcNonce;
  void nonce;
  const s: Session = await store.openSession(response, { publicKeyHex: stored.publicKeyHex });
  await store.clear();
  store.close();
  const code: KitErrorCode = 'STORE_UNAVAILABLE';
  void code;
  return s;
}

// Newer deployments: encrypted OTP and wallet export.
import {
  encryptOtp, openWalletExport,
  type SignerPin, type EnclaveOptions, type WalletExportOptions, type EnclaveEnvelope,
  type WalletExportResponse,
} from 'embedded-wallet-kit';

export function newer(target: EnclaveEnvelope | string, exported: WalletExportResponse, pending: PendingSignature): string {
  const tek = ClientKey.generate();
  const pin: SignerPin = 'sandbox';
  const otpOptions: EnclaveOptions = { pin };
  const sealed: string = encryptOtp(target, '123456', tek, otpOptions);
  const headers: SignedRetryHeaders = tek.signRetry(pending);
  void [sealed, headers];
  const exportOptions: WalletExportOptions = { pin: '04ab', organizationId: 'org' };
  const mnemonic: string = openWalletExport(exported, ClientKey.generate(), exportOptions);
  // @ts-expect-error: sandbox is a boolean
  void encryptOtp(target, '1', tek, { sandbox: 'yes' });
  return mnemonic;
}

// ---- the isolated signer: init({ isolate: 'worker' }) -----------------------------------
import {
  type IsolatedKit, type IsolatedInitOptions, type IsolatedClientKey, type IsolatedSession,
  type PayloadInspection,
} from 'embedded-wallet-kit';

export async function isolatedDemo(response: SessionResponse, pending: PendingSignature, quote: Quote): Promise<string> {
  const options: IsolatedInitOptions = { isolate: 'worker', passkeys: true };
  const kit: IsolatedKit = await init(options);
  const same: void = await init({ isolate: false });
  void same;
  // @ts-expect-error: the isolated init resolves to the kit, not void; the plain one to void
  const notKit: IsolatedKit = await init();
  void notKit;
  // @ts-expect-error: 'worker' is the only isolation
  const iframe: IsolatedInitOptions = { isolate: 'iframe' };
  void iframe;
  const key: IsolatedClientKey = await kit.ClientKey.generate();
  const pub: string = key.publicKeyHex;
  const nonce: string = key.oidcNonce();
  const heldNonce: string = key.oidcNonce({ compressed: true });
  void heldNonce;
  // @ts-expect-error: as same-thread, the form is chosen with an options object
  void key.oidcNonce('compressed');
  const nullIsolate: void = await init({ isolate: null });
  void nullIsolate;
  const consumed: boolean = key.consumed;
  const s: IsolatedSession = await kit.Session.open(response, key);
  const sb: IsolatedSession = await kit.Session.sandbox(JSON.stringify(response));
  const fk: IsolatedSession = await kit.Session.fromClientKey(response, await kit.ClientKey.generate());
  const stamp: string = await s.stamp('payload');
  const retry: SignedRetryHeaders = await s.signRetry(pending);
  const q: QuoteSignatureHeader = await s.signQuote(quote);
  const keyRetry: SignedRetryHeaders = await key.signRetry(JSON.stringify(pending));
  const expired: boolean = s.isExpired() || s.isExpired(new Date()) || s.isExpired(Date.now());
  const fields: [string, string, string, Date, string | undefined, boolean] = [s.id, s.accountId, s.type, s.expiresAt, s.publicKeyHex, s.sandboxed];
  const inspected: PayloadInspection = await kit.inspectPayload('{}');
  const otp: string = await kit.encryptOtp('{}', '123456', key, { pin: 'sandbox' });
  const mnemonic: string = await kit.openWalletExport('{}', key, { organizationId: 'org' });
  const isSession: boolean = (s as unknown) instanceof kit.Session && (key as unknown) instanceof kit.ClientKey;
  // @ts-expect-error: signing is asynchronous in isolated mode
  const syncStamp: string = s.stamp('payload');
  // @ts-expect-error: a same-thread ClientKey is not an isolated one
  void kit.Session.open(response, ClientKey.generate());
  // @ts-expect-error: an isolated ClientKey is not a same-thread one
  void Session.open(response, key);
  // @ts-expect-error: an isolated session is not a same-thread Session
  const asSession: Session = s;
  // @ts-expect-error: not constructible
  void new kit.Session();
  await s.free();
  await key.close();
  await kit.terminate();
  void [pub, nonce, consumed, sb, fk, stamp, retry, q, keyRetry, expired, fields, inspected, otp, isSession, syncStamp, asSession];
  return mnemonic;
}

// Sessions across tabs: WalletClient and SessionKeeper take a StoredSession too.
import { SessionKeeper, type SessionKeeperOptions } from 'embedded-wallet-kit';

export async function crossTab(store: SessionStore, saved: StoredSession, transport: Transport): Promise<StoredSession> {
  const client = new WalletClient({ transport });
  await client.request({ method: 'PATCH', path: '/internal-accounts/x', body: {} }, saved);
  const fresh: Session = await client.refresh(saved);
  fresh.free();
  const options: SessionKeeperOptions = { leadMs: 30_000, locks: null, lockWaitMs: 10_000, leaseMs: 15_000 };
  const keeper: SessionKeeper<StoredSession> = await SessionKeeper.start(client, saved, options);
  keeper.on('refreshed', ({ session, previous, elsewhere }) => {
    const now: StoredSession = session;
    const fromOtherTab: true | undefined = elsewhere;
    void [now, previous, fromOtherTab];
  });
  keeper.on('revoked', ({ fromStore }) => {
    const loggedOutInSomeTab: true | undefined = fromStore;
    void loggedOutInSomeTab;
  });
  const inMemory: SessionKeeper = await SessionKeeper.start(client, fresh);
  // @ts-expect-error: a keeper of a Session hands out a Session, not a StoredSession
  const wrong: StoredSession = inMemory.session;
  void wrong;
  await client.revokeSession(keeper.session);
  await store.clear();
  return keeper.session;
}

// capabilities(): one call, each part with a reason when not available.
export async function capabilityUsage(): Promise<string[]> {
  const { capabilities } = await import('embedded-wallet-kit');
  const caps: import('embedded-wallet-kit').Capabilities = await capabilities();
  const parts: import('embedded-wallet-kit').Capability[] = [caps.passkeys, caps.persistentKeys, caps.wasm, caps.isolatedSigner];
  const autofill: boolean = caps.passkeys.conditionalMediation && caps.passkeys.platformAuthenticator;
  const signal: boolean = caps.passkeys.signals.signalUnknownCredential;
  const client: Record<string, boolean> | undefined = caps.passkeys.clientCapabilities;
  // @ts-expect-error no such signal method
  caps.passkeys.signals.signalFoo = true;
  void [autofill, signal, client];
  return parts.filter((p) => !p.available).map((p) => p.reason ?? '');
}
