// Compiled (not run) by scripts/pack-smoke.mjs against the installed tarball with
// `tsc --noEmit --strict`, next to usage.ts: every export of testing.d.ts
// (`embedded-wallet-kit/testing`) is used as documented, it interoperates with the main
// entry's types, and the expect-error lines prove the types reject misuse.
import { init, SoftAuthenticator, KitError } from 'embedded-wallet-kit/testing';
import {
  KitError as MainKitError, passkey,
  type KitErrorCode, type PasskeyAttestation, type PasskeyAssertion, type PasskeyRegistrationBody,
} from 'embedded-wallet-kit';

export async function softPasskeys(registrationChallenge: string, loginChallenge: string): Promise<PasskeyRegistrationBody> {
  await init();
  await init(new URL('https://example.invalid/embedded_wallet_kit_testing_bg.wasm'));
  await init({ module_or_path: '/embedded_wallet_kit_testing_bg.wasm' });
  const authenticator = new SoftAuthenticator('http://localhost:8787');
  const att: PasskeyAttestation = authenticator.register({
    challenge: registrationChallenge,
    rpId: 'localhost',
    rpName: 'Example',
    user: { id: 'InternalAccount:1', name: 'alice@example.com' },
    excludeCredentialIds: [],
    userVerification: 'required',
  });
  const assertion: PasskeyAssertion = authenticator.authenticate({ challenge: loginChallenge, credentialId: att.credentialId });
  // The software authenticator always returns the user handle.
  const handle: string = authenticator.authenticate({ challenge: loginChallenge, credentialId: att.credentialId }).userHandle;
  void [assertion, handle];
  try {
    authenticator.authenticate({ challenge: loginChallenge, credentialId: 'AAAA', rpId: 'localhost' });
  } catch (err) {
    // One class: the testing entry's KitError is the main entry's.
    const same: typeof MainKitError = KitError;
    if (err instanceof KitError) {
      const code: KitErrorCode = err.code;
      void [code, same];
    }
  }
  // @ts-expect-error: register is synchronous, it returns no promise
  void authenticator.register({ challenge: '', rpId: '', rpName: '', user: { id: '', name: '' } }).then;
  // @ts-expect-error: the origin is required
  void new SoftAuthenticator();
  // @ts-expect-error: rpName and user are required
  void authenticator.register({ challenge: registrationChallenge, rpId: 'localhost' });
  authenticator.free();
  return passkey.registrationBody('InternalAccount:1', 'Test key', registrationChallenge, att);
}
