// What the npm README's code blocks take from the app around them: names a snippet uses
// without defining (the user's data, their UI functions, objects an earlier snippet made),
// typed as the app would have them. A snippet that defines one of these names shadows it.
import type { ReactElement } from 'react';
import type {
  AuthMethod,
  ClientKey,
  PasskeyRegisterOptions,
  PendingSignature,
  Quote,
  Session,
  SessionResponse,
  SessionStore,
  Transport,
  WalletClient,
  WalletExportResponse,
} from 'embedded-wallet-kit';

declare global {
  // Objects an earlier snippet made.
  const client: WalletClient;
  const session: Session;
  const store: SessionStore;
  const transport: Transport;
  const exportKey: ClientKey;
  const cred: AuthMethod;
  // What the app's backend handed over.
  const verifyResponse: SessionResponse;
  const exportResponse: WalletExportResponse;
  const pending202: PendingSignature;
  const quote: Quote & { id: string };
  const challengeResponse: { otpEncryptionTargetBundle: string };
  const accountId: string;
  const customerId: string;
  const sessionId: string;
  const credentialId: string;
  const oauthCredId: string;
  const idToken: string;
  const challenge: string;
  const loginChallenge: string;
  const excludeCredentialIds: string[];
  const rpId: string;
  const rpName: string;
  const user: PasskeyRegisterOptions['user'];
  const nickname: string;
  const email: string;
  const otp: string;
  const code: string;
  const patch: object;
  const body: object;
  const method: string;
  const path: string;
  // A server's environment (the backend snippets run in Node; no @types/node here).
  const process: { env: Record<string, string | undefined> };
  // The app's UI.
  function showSession(session: unknown, note?: string): void;
  function showPending(operation: string): void;
  function tellBackend(operation: string, requestId: string): void;
  function showBanner(text: string): void;
  function showLoggedOut(text: string): void;
  function askToLogInAgain(): void;
  function Spinner(): ReactElement;
}
