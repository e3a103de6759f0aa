// The wallet module's wasm-bindgen glue (`./embedded_wallet_kit_wallet.js`: passkey.* and
// the flow drivers behind WalletClient), hand-written for `make lint-js`: scripts/build-pkg.sh
// generates the glue into pkg/ (with --no-typescript: js/passkey.js and
// js/wallet-client*.js wrap every export, and index.d.ts documents the wrappers), and
// tsconfig.json maps this file beside js/ with rootDirs. After `make build`,
// tests/js/declared-exports.test.mjs checks that it declares exactly the generated glue's
// exports. Typed as wasm-bindgen types the Rust signatures (bindings/wallet/src):
// `JsValue` and `Object` are `any`.

export default function __wbg_init(input?: { module_or_path?: unknown }): Promise<unknown>;
export function initSync(input: { module: unknown }): unknown;

export function passkeyRegister(options: any): Promise<any>;
export function passkeyAuthenticate(options: any): Promise<any>;
export function passkeyIsSupported(): boolean;
export function passkeyPlatformAuthenticatorAvailable(): Promise<any>;
export function passkeyConditionalMediationAvailable(): Promise<any>;
export function passkeyClientCapabilities(): Promise<any>;
export function passkeyCancel(): void;
export function passkeyRegistrationBody(accountId: any, nickname: any, challenge: any, attestation: any): any;

export class SignedRetryFlow {
  constructor(request: any);
  readonly clientHeld: boolean;
  firstRequest(): any;
  onResponse(response: any): any | undefined;
  signed(signature: string, requestId: string): any;
  signFailed(error: any): any;
  onUnsignedResponse(response: any): void;
  free(): void;
}

export class QuoteExecution {
  constructor(quote: any);
  readonly idempotencyKey: string;
  toSign(): any;
  request(signature: string): any;
  onResponse(response: any): void;
  free(): void;
}

export function walletFlow(
  name: string,
  id: string,
  text?: string | null,
  sessionId?: string | null,
  sessionCredentialId?: string | null,
  keyPublicHex?: string | null,
  keyCompressedHex?: string | null,
  clientHeld?: boolean,
): SignedRetryFlow;

export class OtpLoginFlow {
  constructor(credentialId: string, kind: string, encryptedOtpBundle: string);
  readonly clientHeld: boolean;
  firstRequest(): any;
  onResponse(response: any): any | undefined;
  signed(signature: string, requestId: string): any;
  signFailed(error: any): any;
  free(): void;
}

export class PasskeyChallenge {
  constructor(credentialId: string, response: any);
  authenticationInput(rpId?: string | null): any;
  verify(assertion: any): SignedRetryFlow;
  free(): void;
}
