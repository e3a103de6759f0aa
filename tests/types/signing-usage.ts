// embedded-wallet-kit/signing from a consumer's point of view (compiled strictly by
// `make lint-js`, and against the packed tarball by scripts/pack-smoke.mjs).
import { init, ClientKey, Session, KitError } from 'embedded-wallet-kit/signing';
import type { SessionResponse, SignedRetryHeaders, QuoteSignatureHeader, Quote, PendingSignature } from 'embedded-wallet-kit/signing';

export async function signOnly(response: SessionResponse, quote: Quote, pending: PendingSignature): Promise<string> {
  await init();
  await init({ module_or_path: '/embedded_wallet_kit_signing_bg.wasm' });
  const key: ClientKey = ClientKey.generate();
  const nonce: string = key.oidcNonce({ compressed: true });
  const session: Session = Session.open(response, key);
  const stamp: string = session.stamp('{}');
  const retry: SignedRetryHeaders = session.signRetry(pending);
  const header: QuoteSignatureHeader = session.signQuote(quote);
  const expired: boolean = session.isExpired();
  session.close();
  try {
    Session.sandbox(response);
  } catch (err) {
    if (err instanceof KitError && err.code === 'NOT_INITIALIZED') return nonce;
  }
  void [retry, header, expired];
  return stamp;
}
