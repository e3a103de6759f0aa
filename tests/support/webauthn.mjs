// The kit's passkey JSON as @simplewebauthn/server (the independent verifier) takes it:
// RegistrationResponseJSON / AuthenticationResponseJSON. The kit spells the field
// `clientDataJson` (the API's spelling); the verifier needs `clientDataJSON`, and `id` and
// `rawId` must both be the credential id. One mapping for every test that verifies.

/** `passkey.register` / `SoftAuthenticator.register` output → RegistrationResponseJSON. */
export function registrationResponseJSON(att) {
  return {
    id: att.credentialId,
    rawId: att.credentialId,
    type: 'public-key',
    response: {
      clientDataJSON: att.clientDataJson,
      attestationObject: att.attestationObject,
      transports: att.transports,
    },
    clientExtensionResults: {},
  };
}

/** `passkey.authenticate` / `SoftAuthenticator.authenticate` output → AuthenticationResponseJSON. */
export function authenticationResponseJSON(assertion) {
  return {
    id: assertion.credentialId,
    rawId: assertion.credentialId,
    type: 'public-key',
    response: {
      clientDataJSON: assertion.clientDataJson,
      authenticatorData: assertion.authenticatorData,
      signature: assertion.signature,
      userHandle: assertion.userHandle,
    },
    clientExtensionResults: {},
  };
}
