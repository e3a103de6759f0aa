// Compiled (not run) by scripts/pack-smoke.mjs against the installed tarball with
// `tsc --noEmit --strict`: every export of index.d.ts is used as documented, and the
// expect-error lines below prove the types reject misuse.
import {
  init, ClientKey, Session, KitError,
  type KitErrorCode, type SignedRetryHeaders, type QuoteSignatureHeader, type SessionResponse,
  type PendingSignature, type Quote, type InitInput,
} from 'embedded-wallet-kit';

export async function demo(response: SessionResponse, pending: PendingSignature, quote: Quote, wasm: InitInput): Promise<void> {
  await init();
  await init(wasm);
  await init({ module_or_path: new URL('https://example.invalid/kit.wasm') });
  const key: ClientKey = ClientKey.generate();
  const pub: string = key.publicKeyHex;
  const comp: string = key.compressedPublicKeyHex;
  const nonce: string = key.oidcNonce();
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
  void [pub, comp, nonce, s2, sb, sc, expires, expired, stamp, sig, rid, q, ids];
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
