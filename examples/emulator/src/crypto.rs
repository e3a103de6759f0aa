//! The service-side cryptography: session keys sealed with the kit's `service::seal`, the
//! sandbox stub bundle, the built-in OIDC issuer (ES256 JWTs), WebAuthn attestation and
//! assertion checks, and the signed wallet-export envelope.

use embedded_wallet_kit::encoding::{base64url_decode, base64url_encode};
use embedded_wallet_kit::parse_public_key_hex;
use embedded_wallet_kit::service::{self, Bundle};
use embedded_wallet_kit::service::{
    base58check_decode, base58check_encode, compressed_hex, hex_decode, hex_encode,
    uncompressed_hex,
};
use p256::ecdsa::signature::{Signer as _, Verifier as _};
use p256::ecdsa::{DerSignature, Signature, SigningKey, VerifyingKey};
use p256::elliptic_curve::sec1::ToSec1Point;
use p256::elliptic_curve::Generate;
use p256::{PublicKey, SecretKey};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use crate::util::{canonical_json, random_bytes};

/// A fresh random P-256 key.
pub fn generate_secret() -> SecretKey {
    SecretKey::try_generate_from_rng(&mut getrandom::SysRng).expect("OS randomness")
}

/// A fresh random ECDSA signing key.
pub fn generate_signing_key() -> SigningKey {
    SigningKey::from(generate_secret().to_nonzero_scalar())
}

/// Strict mode: a new session key, its scalar sealed to `recipient`. Returns the bundle
/// and the session's compressed public key (hex), which later stamps must carry.
pub fn seal_session_key(recipient: &PublicKey) -> Result<(String, String), String> {
    let session = generate_secret();
    let sealed = service::seal(recipient, &session.to_bytes()).map_err(|e| e.to_string())?;
    Ok((sealed, compressed_hex(&session.public_key())))
}

/// Sandbox mode: the stub bundle, base58check(0x02 ‖ 32 random ‖ 48 random). It has the
/// right length and prefix but seals nothing.
pub fn stub_bundle() -> String {
    let mut payload = vec![0x02];
    payload.extend_from_slice(&random_bytes::<32>());
    payload.extend_from_slice(&random_bytes::<48>());
    base58check_encode(&payload)
}

// ---------------------------------------------------------------------------------------
// OIDC

/// The `aud` the built-in issuer puts in its tokens and verify expects.
pub const OIDC_AUDIENCE: &str = "embedded-wallet-kit-demo";
/// Maximum age of `iat`.
pub const OIDC_MAX_AGE_SECS: i64 = 60;
/// Allowed clock skew for an `iat` in the future.
pub const OIDC_SKEW_SECS: i64 = 5;
/// Issuers the sandbox recognises on OAUTH create (besides the built-in one).
pub const SANDBOX_ISSUERS: [&str; 3] = [
    "https://accounts.google.com",
    "accounts.google.com",
    "https://appleid.apple.com",
];

/// The built-in test issuer: one ES256 key generated at startup.
pub struct Issuer {
    key: SigningKey,
    /// `iss` of its tokens.
    pub iss: String,
    kid: String,
}

/// The decoded parts of a JWT.
pub struct Jwt {
    pub header: Value,
    pub claims: Value,
    pub signing_input: String,
    pub signature: Vec<u8>,
}

/// Splits and decodes a JWT without checking its signature.
pub fn decode_jwt(token: &str) -> Result<Jwt, String> {
    let parts: Vec<&str> = token.split('.').collect();
    if parts.len() != 3 {
        return Err("token is not a JWT (three dot-separated parts)".into());
    }
    let part = |i: usize, what: &str| -> Result<Value, String> {
        let bytes = base64url_decode(parts[i]).ok_or(format!("JWT {what} is not base64url"))?;
        let value: Value =
            serde_json::from_slice(&bytes).map_err(|_| format!("JWT {what} is not JSON"))?;
        if value.is_object() {
            Ok(value)
        } else {
            Err(format!("JWT {what} is not a JSON object"))
        }
    };
    let header = part(0, "header")?;
    let claims = part(1, "payload")?;
    let signature = base64url_decode(parts[2]).ok_or("JWT signature is not base64url")?;
    Ok(Jwt {
        header,
        claims,
        signing_input: format!("{}.{}", parts[0], parts[1]),
        signature,
    })
}

impl Issuer {
    /// A new issuer at `iss`.
    pub fn new(iss: String) -> Self {
        let key = generate_signing_key();
        let point = key.verifying_key().as_affine().to_sec1_point(true);
        let kid = crate::util::uuid_v4()[..8].to_owned() + &hex_encode(&point.as_bytes()[1..5]);
        Self { key, iss, kid }
    }

    /// Signs `claims` as an ES256 JWT.
    pub fn mint(&self, claims: &Value) -> String {
        let header = json!({"alg": "ES256", "kid": self.kid, "typ": "JWT"});
        let input = format!(
            "{}.{}",
            base64url_encode(canonical_json(&header).as_bytes()),
            base64url_encode(canonical_json(claims).as_bytes())
        );
        let signature: Signature = self.key.sign(input.as_bytes());
        format!("{input}.{}", base64url_encode(&signature.to_bytes()))
    }

    /// The JWKS document.
    pub fn jwks(&self) -> Value {
        let point = self.key.verifying_key().as_affine().to_sec1_point(false);
        let bytes = point.as_bytes();
        json!({"keys": [{
            "kty": "EC", "crv": "P-256", "alg": "ES256", "use": "sig", "kid": self.kid,
            "x": base64url_encode(&bytes[1..33]), "y": base64url_encode(&bytes[33..65]),
        }]})
    }

    /// Verifies signature, `iss`, `aud`, `iat` (at most 60 s old), `exp` and `sub`, and,
    /// when given, `nonce`. Returns the claims, or what failed.
    pub fn verify(&self, token: &str, now_ms: i64, nonce: Option<&str>) -> Result<Value, String> {
        let jwt = decode_jwt(token)?;
        if jwt.header.get("alg").and_then(Value::as_str) != Some("ES256") {
            return Err("JWT alg is not ES256".into());
        }
        if let Some(kid) = jwt.header.get("kid").and_then(Value::as_str) {
            if kid != self.kid {
                return Err("JWT kid is not a key of the issuer's key set".into());
            }
        }
        let signature =
            Signature::from_slice(&jwt.signature).map_err(|_| "JWT signature is not 64 bytes")?;
        self.key
            .verifying_key()
            .verify(jwt.signing_input.as_bytes(), &signature)
            .map_err(|_| "JWT signature does not verify with the issuer's key")?;
        let claims = jwt.claims;
        if claims.get("iss").and_then(Value::as_str) != Some(self.iss.as_str()) {
            return Err(format!("iss is not {}", self.iss));
        }
        let aud_ok = match claims.get("aud") {
            Some(Value::String(a)) => a == OIDC_AUDIENCE,
            Some(Value::Array(list)) => list.iter().any(|a| a == OIDC_AUDIENCE),
            _ => false,
        };
        if !aud_ok {
            return Err(format!("aud is not {OIDC_AUDIENCE}"));
        }
        let now = now_ms.div_euclid(1000);
        let iat = claims
            .get("iat")
            .and_then(Value::as_i64)
            .ok_or("iat is missing")?;
        if iat > now + OIDC_SKEW_SECS {
            return Err("iat is in the future".into());
        }
        if now - iat > OIDC_MAX_AGE_SECS {
            return Err(format!(
                "iat is {} s old; at most {OIDC_MAX_AGE_SECS} s allowed",
                now - iat
            ));
        }
        let exp = claims
            .get("exp")
            .and_then(Value::as_i64)
            .ok_or("exp is missing")?;
        if exp <= now {
            return Err("token has expired (exp)".into());
        }
        match claims.get("sub").and_then(Value::as_str) {
            Some(sub) if !sub.is_empty() => {}
            _ => return Err("sub is missing".into()),
        }
        if let Some(expected) = nonce {
            match claims.get("nonce").and_then(Value::as_str) {
                None => return Err("nonce is missing".into()),
                Some(n) if n != expected => {
                    return Err("nonce is not the SHA-256 hex of clientPublicKey".into())
                }
                Some(_) => {}
            }
        }
        Ok(claims)
    }
}

// ---------------------------------------------------------------------------------------
// WebAuthn

/// Authenticator-data flags.
const FLAG_UP: u8 = 0x01;
const FLAG_AT: u8 = 0x40;

/// What the relying party checks besides the per-ceremony values.
pub struct RelyingParty<'a> {
    pub rp_id: &'a str,
    pub origin_allowed: &'a dyn Fn(&str) -> bool,
}

/// A credential accepted at registration.
#[derive(Debug)]
pub struct RegisteredPasskey {
    pub credential_id: Vec<u8>,
    pub public_key: Option<VerifyingKey>,
    pub counter: u32,
}

fn b64(field: &str, text: &str) -> Result<Vec<u8>, String> {
    base64url_decode(text).ok_or_else(|| format!("{field} is not base64url"))
}

/// Checks clientDataJSON: type, challenge and origin.
fn check_client_data(
    bytes: &[u8],
    kind: &str,
    challenge: &str,
    rp: &RelyingParty,
) -> Result<(), String> {
    let client: Value =
        serde_json::from_slice(bytes).map_err(|_| "clientDataJson is not JSON".to_owned())?;
    let field = |name: &str| client.get(name).and_then(Value::as_str).unwrap_or_default();
    if field("type") != kind {
        return Err(format!("clientDataJSON.type is not {kind}"));
    }
    if field("challenge") != challenge {
        return Err("clientDataJSON.challenge does not match the issued challenge".into());
    }
    if !(rp.origin_allowed)(field("origin")) {
        return Err(format!(
            "clientDataJSON.origin {:?} is not an allowed origin",
            field("origin")
        ));
    }
    Ok(())
}

fn check_rp_and_flags(auth_data: &[u8], rp: &RelyingParty) -> Result<(u8, u32), String> {
    if auth_data.len() < 37 {
        return Err("authenticator data is shorter than 37 bytes".into());
    }
    if auth_data[..32] != Sha256::digest(rp.rp_id.as_bytes())[..] {
        return Err(format!("rpIdHash is not SHA-256 of {:?}", rp.rp_id));
    }
    let flags = auth_data[32];
    if flags & FLAG_UP == 0 {
        return Err("user-present flag is not set".into());
    }
    let counter = u32::from_be_bytes(auth_data[33..37].try_into().expect("4 bytes"));
    Ok((flags, counter))
}

/// Verifies a "none" registration: clientDataJSON (webauthn.create, the registration
/// challenge, origin), attestation object, rpIdHash, UP and AT flags, the credential id
/// and an ES256 P-256 COSE key. `strict = false` only checks structure and keeps what it
/// can parse (sandbox).
pub fn verify_registration(
    credential_id_b64: &str,
    client_data_b64: &str,
    attestation_object_b64: &str,
    challenge: &str,
    rp: &RelyingParty,
    strict: bool,
) -> Result<RegisteredPasskey, String> {
    let credential_id = b64("attestation.credentialId", credential_id_b64)?;
    if credential_id.is_empty() || credential_id.len() > 1023 {
        return Err("attestation.credentialId is not a credential id (1 to 1023 bytes)".into());
    }
    let client_data = b64("attestation.clientDataJson", client_data_b64)?;
    let object = b64("attestation.attestationObject", attestation_object_b64)?;
    if !strict {
        let parsed = parse_attestation(&object)
            .ok()
            .and_then(|a| parse_attested_data(&a.auth_data).ok());
        return Ok(RegisteredPasskey {
            credential_id,
            public_key: parsed.map(|p| p.1),
            counter: 0,
        });
    }
    check_client_data(&client_data, "webauthn.create", challenge, rp)?;
    let attestation = parse_attestation(&object)?;
    if attestation.fmt != "none" {
        return Err(format!(
            "attestation format {:?} is not supported (only \"none\")",
            attestation.fmt
        ));
    }
    if !attestation.att_stmt_empty {
        return Err("attStmt of a \"none\" attestation must be empty".into());
    }
    let (flags, counter) = check_rp_and_flags(&attestation.auth_data, rp)?;
    if flags & FLAG_AT == 0 {
        return Err("attested-credential-data flag is not set".into());
    }
    let (attested_id, public_key) = parse_attested_data(&attestation.auth_data)?;
    if attested_id != credential_id {
        return Err("credential id in authenticator data is not attestation.credentialId".into());
    }
    Ok(RegisteredPasskey {
        credential_id,
        public_key: Some(public_key),
        counter,
    })
}

/// Verifies an assertion against the stored key and counter; returns the new counter.
pub fn verify_assertion(
    client_data_b64: &str,
    authenticator_data_b64: &str,
    signature_b64: &str,
    challenge: &str,
    public_key: &VerifyingKey,
    stored_counter: u32,
    rp: &RelyingParty,
) -> Result<u32, String> {
    let client_data = b64("assertion.clientDataJson", client_data_b64)?;
    let auth_data = b64("assertion.authenticatorData", authenticator_data_b64)?;
    let signature = b64("assertion.signature", signature_b64)?;
    // The login challenge is given to WebAuthn as the UTF-8 bytes of the hex string.
    check_client_data(
        &client_data,
        "webauthn.get",
        &base64url_encode(challenge.as_bytes()),
        rp,
    )?;
    let (_, counter) = check_rp_and_flags(&auth_data, rp)?;
    let signature = Signature::from_der(&signature)
        .map_err(|_| "assertion.signature is not a DER ECDSA signature".to_owned())?;
    let signed = [auth_data.as_slice(), &Sha256::digest(&client_data)].concat();
    public_key
        .verify(&signed, &signature)
        .map_err(|_| "signature does not verify with the registered credential key".to_owned())?;
    if (counter != 0 || stored_counter != 0) && counter <= stored_counter {
        return Err(format!(
            "signature counter {counter} did not increase (stored {stored_counter}): possible cloned authenticator"
        ));
    }
    Ok(counter)
}

struct AttestationObject {
    fmt: String,
    att_stmt_empty: bool,
    auth_data: Vec<u8>,
}

fn cbor<E: core::fmt::Display>(what: &'static str) -> impl Fn(E) -> String {
    move |e| format!("{what} is not valid CBOR ({e})")
}

fn parse_attestation(object: &[u8]) -> Result<AttestationObject, String> {
    let err = cbor("attestationObject");
    let mut d = minicbor::Decoder::new(object);
    let entries = d
        .map()
        .map_err(&err)?
        .ok_or("attestationObject must be a definite-length map")?;
    let (mut fmt, mut att_stmt_empty, mut auth_data) = (None, false, None);
    for _ in 0..entries {
        match d.str().map_err(&err)? {
            "fmt" => fmt = Some(d.str().map_err(&err)?.to_owned()),
            "attStmt" => {
                let start = d.position();
                att_stmt_empty = matches!(d.map(), Ok(Some(0)));
                d.set_position(start);
                d.skip().map_err(&err)?;
            }
            "authData" => auth_data = Some(d.bytes().map_err(&err)?.to_vec()),
            _ => d.skip().map_err(&err)?,
        }
    }
    Ok(AttestationObject {
        fmt: fmt.ok_or("attestationObject has no fmt")?,
        att_stmt_empty,
        auth_data: auth_data.ok_or("attestationObject has no authData")?,
    })
}

/// The attested credential id and COSE key (EC2, ES256, P-256) in authenticator data.
fn parse_attested_data(auth_data: &[u8]) -> Result<(Vec<u8>, VerifyingKey), String> {
    if auth_data.len() < 55 {
        return Err("authenticator data has no attested credential data".into());
    }
    let id_len = u16::from_be_bytes([auth_data[53], auth_data[54]]) as usize;
    let id = auth_data
        .get(55..55 + id_len)
        .ok_or("authenticator data is shorter than its credential id")?
        .to_vec();
    let err = cbor("credentialPublicKey");
    let mut d = minicbor::Decoder::new(&auth_data[55 + id_len..]);
    let entries = d
        .map()
        .map_err(&err)?
        .ok_or("credentialPublicKey must be a definite-length map")?;
    let (mut kty, mut alg, mut crv, mut x, mut y) = (None, None, None, None, None);
    for _ in 0..entries {
        match d.i64().map_err(&err)? {
            1 => kty = Some(d.i64().map_err(&err)?),
            3 => alg = Some(d.i64().map_err(&err)?),
            -1 => crv = Some(d.i64().map_err(&err)?),
            -2 => x = Some(d.bytes().map_err(&err)?.to_vec()),
            -3 => y = Some(d.bytes().map_err(&err)?.to_vec()),
            _ => d.skip().map_err(&err)?,
        }
    }
    if kty != Some(2) || alg != Some(-7) || crv != Some(1) {
        return Err("credential public key is not an EC2 P-256 ES256 (-7) COSE key".into());
    }
    let (x, y) = (x.unwrap_or_default(), y.unwrap_or_default());
    if x.len() != 32 || y.len() != 32 {
        return Err("credential public key coordinates are not 32 bytes".into());
    }
    let sec1 = [&[4u8][..], &x, &y].concat();
    let key = VerifyingKey::from_sec1_bytes(&sec1)
        .map_err(|_| "credential public key is not a point on P-256".to_owned())?;
    Ok((id, key))
}

// ---------------------------------------------------------------------------------------
// Wallet export

/// The fixed test mnemonic every emulated wallet exports (BIP-39 test vector).
pub const TEST_MNEMONIC: &str =
    "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about";

/// HPKE-seals `plaintext` to `recipient` with the session-bundle parameters; returns the
/// encapsulated key uncompressed (65 bytes) and the ciphertext with its tag.
pub fn hpke_seal_uncompressed(
    recipient: &PublicKey,
    plaintext: &[u8],
) -> Result<(Vec<u8>, Vec<u8>), String> {
    let sealed = service::seal(recipient, plaintext).map_err(|e| e.to_string())?;
    let payload = base58check_decode(&sealed).map_err(|e| format!("{e:?}"))?;
    let enc = PublicKey::from_sec1_bytes(&payload[..service::ENC_LEN])
        .map_err(|_| "sealed bundle has an invalid encapsulated key".to_owned())?;
    Ok((
        enc.to_sec1_point(false).as_bytes().to_vec(),
        payload[service::ENC_LEN..].to_vec(),
    ))
}

/// The `encryptedWalletCredentials` envelope: compact JSON
/// `{version, data, dataSignature, enclaveQuorumPublic}` where `data` is hex of the JSON
/// `{encappedPublic, ciphertext, organizationId}` and the signature is DER ECDSA-P256-SHA256
/// over the hex-decoded data. Without a signer (sandbox) both signature fields are empty.
pub fn export_envelope(
    recipient: &PublicKey,
    organization_id: &str,
    signer: Option<&SigningKey>,
) -> Result<String, String> {
    let (enc, ciphertext) = hpke_seal_uncompressed(recipient, TEST_MNEMONIC.as_bytes())?;
    let inner = canonical_json(&json!({
        "ciphertext": hex_encode(&ciphertext),
        "encappedPublic": hex_encode(&enc),
        "organizationId": organization_id,
    }));
    Ok(signed_envelope(&inner, signer))
}

/// A signed enclave envelope `{version, data, dataSignature, enclaveQuorumPublic}` over
/// `inner` (JSON text); without a signer (sandbox) both signature fields are empty.
fn signed_envelope(inner: &str, signer: Option<&SigningKey>) -> String {
    let (signature, quorum) = match signer {
        Some(key) => {
            let sig: DerSignature = key.sign(inner.as_bytes());
            (
                hex_encode(sig.as_bytes()),
                uncompressed_hex(&PublicKey::from(key.verifying_key())),
            )
        }
        None => (String::new(), String::new()),
    };
    // Key order as the service writes it.
    format!(
        r#"{{"version":"v1.0.0","data":"{}","dataSignature":"{signature}","enclaveQuorumPublic":"{quorum}"}}"#,
        hex_encode(inner.as_bytes())
    )
}

// ---------------------------------------------------------------------------------------
// Encrypted OTP (newer deployments)

/// The `otpEncryptionTargetBundle`: an envelope signed by `signer` (the emulator's
/// stand-in for the TLS-fetcher enclave key) whose data names the enclave's HPKE key.
pub fn otp_target_bundle(
    enclave: &PublicKey,
    organization_id: &str,
    signer: &SigningKey,
) -> String {
    let inner = canonical_json(&json!({
        "organizationId": organization_id,
        "targetPublic": uncompressed_hex(enclave),
    }));
    signed_envelope(&inner, Some(signer))
}

/// What the enclave reads from an `encryptedOtpBundle`.
pub struct OtpAttempt {
    pub otp_code: String,
    /// The TEK's public key (its text checked by `open_otp_bundle`).
    pub public_key: PublicKey,
}

/// Opens an `encryptedOtpBundle` (`{"encappedPublic":"04…","ciphertext":"…"}`) with the
/// enclave key and reads its plaintext `{"otp_code":…,"public_key":…}`. `production_forms`
/// (strict mode) takes only the forms the production enclave takes: `encappedPublic` the
/// 65-byte uncompressed point and `public_key` the TEK's compressed hex (66 hex, 02/03);
/// without it (sandbox) either encoding of either key is read.
pub fn open_otp_bundle(
    enclave: &SecretKey,
    sealed: &str,
    production_forms: bool,
) -> Result<OtpAttempt, String> {
    let outer: Value = serde_json::from_str(sealed)
        .map_err(|_| "encryptedOtpBundle is not JSON text (send it as a string member)")?;
    let hex_field = |name: &str| {
        outer[name]
            .as_str()
            .and_then(hex_decode)
            .ok_or_else(|| format!("encryptedOtpBundle.{name} is not hex"))
    };
    let enc_bytes = hex_field("encappedPublic")?;
    if production_forms && enc_bytes.len() != 65 {
        return Err(
            "encryptedOtpBundle.encappedPublic must be the 65-byte uncompressed point".into(),
        );
    }
    let enc = PublicKey::from_sec1_bytes(&enc_bytes)
        .map_err(|_| "encryptedOtpBundle.encappedPublic is not a P-256 point")?;
    let mut payload = enc.to_sec1_point(true).as_bytes().to_vec();
    payload.extend_from_slice(&hex_field("ciphertext")?);
    let plaintext = Bundle::from_payload(&payload)
        .and_then(|b| b.open(enclave))
        .map_err(|e| format!("encryptedOtpBundle does not open: {}", e.message()))?;
    let inner: Value =
        serde_json::from_slice(&plaintext).map_err(|_| "the sealed OTP is not JSON".to_owned())?;
    let fields = inner
        .as_object()
        .filter(|m| m.len() == 2)
        .ok_or("the sealed OTP must be an object of exactly otp_code and public_key".to_owned())?;
    let text = |name: &str| {
        fields
            .get(name)
            .and_then(Value::as_str)
            .ok_or_else(|| format!("the sealed OTP has no string {name}"))
    };
    let key_text = text("public_key")?;
    if production_forms && !crate::util::matches_compressed_key_pattern(key_text) {
        return Err(
            "the sealed public_key must be the TEK's compressed key (66 hex, 02/03)".into(),
        );
    }
    let public_key =
        parse_public_key_hex(key_text, "public_key").map_err(|e| e.message().to_owned())?;
    Ok(OtpAttempt {
        otp_code: text("otp_code")?.to_owned(),
        public_key,
    })
}

/// The second leg's `payloadToSign`: a verification token shaped like a JWT (header
/// `{"alg":"ES256","kid":"turnkey"}`, claims `sub`, `iat`, `exp`, `public_key`), signed by
/// the enclave signer. The client signs it as opaque text.
pub fn verification_token(
    signer: &SigningKey,
    sub: &str,
    tek_hex: &str,
    now_ms: i64,
    ttl_ms: i64,
) -> String {
    let header = base64url_encode(br#"{"alg":"ES256","kid":"turnkey"}"#);
    let claims = base64url_encode(
        canonical_json(&json!({
            "exp": (now_ms + ttl_ms) / 1000,
            "iat": now_ms / 1000,
            "public_key": tek_hex,
            "sub": sub,
        }))
        .as_bytes(),
    );
    let signing_input = format!("{header}.{claims}");
    let signature: Signature = signer.sign(signing_input.as_bytes());
    format!(
        "{signing_input}.{}",
        base64url_encode(&signature.to_bytes())
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use embedded_wallet_kit::passkey::{AuthenticationInput, RegistrationInput, SoftAuthenticator};

    #[test]
    fn stub_bundle_has_the_session_shape_but_does_not_open() {
        let stub = stub_bundle();
        let payload = base58check_decode(&stub).unwrap();
        assert_eq!(payload.len(), 81);
        assert_eq!(payload[0], 0x02);
        let secret = generate_secret();
        if let Ok(b) = Bundle::decode(&stub) {
            assert!(b.open(&secret).is_err());
        }
    }

    #[test]
    fn sealed_session_key_opens_to_the_announced_key() {
        let client = generate_secret();
        let (sealed, public) = seal_session_key(&client.public_key()).unwrap();
        let scalar = Bundle::decode(&sealed).unwrap().open(&client).unwrap();
        let session = SecretKey::from_slice(&scalar).unwrap();
        assert_eq!(compressed_hex(&session.public_key()), public);
    }

    #[test]
    fn issuer_tokens_verify_and_each_check_can_fail() {
        let issuer = Issuer::new("http://localhost:1/emulator/oidc".into());
        let now = crate::util::now_ms();
        let claims = |iat: i64, nonce: &str| {
            json!({"iss": issuer.iss, "aud": OIDC_AUDIENCE, "iat": iat, "exp": iat + 600,
                   "sub": "u1", "email": "a@example.com", "nonce": nonce})
        };
        let t = now / 1000;
        let token = issuer.mint(&claims(t, "n"));
        assert!(issuer.verify(&token, now, Some("n")).is_ok());
        assert!(issuer.verify(&token, now, None).is_ok());
        assert!(issuer
            .verify(&token, now, Some("m"))
            .unwrap_err()
            .contains("nonce"));
        let old = issuer.mint(&claims(t - 61, "n"));
        assert!(issuer.verify(&old, now, None).unwrap_err().contains("iat"));
        let other = Issuer::new(issuer.iss.clone());
        let forged = other.mint(&claims(t, "n"));
        // Another key (and kid): refused.
        assert!(issuer.verify(&forged, now, None).is_err());
        let mut parts: Vec<String> = token.split('.').map(str::to_owned).collect();
        let mut tampered = claims(t, "n");
        tampered["sub"] = json!("u2");
        parts[1] = base64url_encode(canonical_json(&tampered).as_bytes());
        assert!(issuer
            .verify(&parts.join("."), now, None)
            .unwrap_err()
            .contains("signature"));
        let mut wrong_aud = claims(t, "n");
        wrong_aud["aud"] = json!("someone-else");
        assert!(issuer
            .verify(&issuer.mint(&wrong_aud), now, None)
            .unwrap_err()
            .contains("aud"));
        assert!(decode_jwt("a.b").is_err());
    }

    #[test]
    fn soft_authenticator_registration_and_assertions_verify() {
        let origin_ok = |o: &str| o == "http://localhost:8787";
        let rp = RelyingParty {
            rp_id: "localhost",
            origin_allowed: &origin_ok,
        };
        let mut authenticator = SoftAuthenticator::new("http://localhost:8787").unwrap();
        let challenge = base64url_encode(&[7u8; 32]);
        let reg = RegistrationInput {
            challenge: Some(challenge.clone()),
            rp_id: Some("localhost".into()),
            rp_name: Some("Demo".into()),
            user_id: Some("InternalAccount:1".into()),
            user_name: Some("a@example.com".into()),
            ..Default::default()
        }
        .validate()
        .unwrap();
        let a = authenticator.register(&reg).unwrap();
        let registered = verify_registration(
            &a.credential_id,
            &a.client_data_json,
            &a.attestation_object,
            &challenge,
            &rp,
            true,
        )
        .unwrap();
        let key = registered.public_key.unwrap();
        assert!(verify_registration(
            &a.credential_id,
            &a.client_data_json,
            &a.attestation_object,
            "other",
            &rp,
            true
        )
        .unwrap_err()
        .contains("challenge"));
        let other_rp = RelyingParty {
            rp_id: "example.com",
            origin_allowed: &origin_ok,
        };
        assert!(verify_registration(
            &a.credential_id,
            &a.client_data_json,
            &a.attestation_object,
            &challenge,
            &other_rp,
            true
        )
        .unwrap_err()
        .contains("rpIdHash"));

        let login = crate::util::canonical_json(&json!({"x": 1}));
        let login = embedded_wallet_kit::service::sha256_hex(login.as_bytes());
        let auth = AuthenticationInput {
            challenge: Some(login.clone()),
            credential_id: Some(a.credential_id.clone()),
            rp_id: Some("localhost".into()),
            ..Default::default()
        }
        .validate()
        .unwrap();
        let first = authenticator.authenticate(&auth).unwrap();
        let second = authenticator.authenticate(&auth).unwrap();
        let check = |s: &embedded_wallet_kit::passkey::Assertion, stored: u32| {
            verify_assertion(
                &s.client_data_json,
                &s.authenticator_data,
                &s.signature,
                &login,
                &key,
                stored,
                &rp,
            )
        };
        assert_eq!(check(&second, 0).unwrap(), 2);
        assert!(check(&first, 2).unwrap_err().contains("counter"));
        // An equal counter is a replay too.
        assert!(check(&second, 2).unwrap_err().contains("counter"));
        let mut bad = second.clone();
        bad.signature = first.signature.clone();
        assert!(check(&bad, 0).unwrap_err().contains("signature"));
    }

    #[test]
    fn export_envelope_is_signed_and_opens() {
        let recipient = generate_secret();
        let signer = generate_signing_key();
        let text = export_envelope(&recipient.public_key(), "org-1", Some(&signer)).unwrap();
        let env: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(env["version"], "v1.0.0");
        let data = hex_decode(env["data"].as_str().unwrap()).unwrap();
        let sig = Signature::from_der(&hex_decode(env["dataSignature"].as_str().unwrap()).unwrap())
            .unwrap();
        let quorum = hex_decode(env["enclaveQuorumPublic"].as_str().unwrap()).unwrap();
        VerifyingKey::from_sec1_bytes(&quorum)
            .unwrap()
            .verify(&data, &sig)
            .unwrap();
        let inner: Value = serde_json::from_slice(&data).unwrap();
        assert_eq!(inner["organizationId"], "org-1");
        let enc = hex_decode(inner["encappedPublic"].as_str().unwrap()).unwrap();
        assert_eq!(enc.len(), 65);
        let enc = PublicKey::from_sec1_bytes(&enc).unwrap();
        let payload = [
            enc.to_sec1_point(true).as_bytes(),
            &hex_decode(inner["ciphertext"].as_str().unwrap()).unwrap()[..],
        ]
        .concat();
        let plain = Bundle::from_payload(&payload)
            .unwrap()
            .open(&recipient)
            .unwrap();
        assert_eq!(std::str::from_utf8(&plain).unwrap(), TEST_MNEMONIC);

        let sandbox: Value =
            serde_json::from_str(&export_envelope(&recipient.public_key(), "o", None).unwrap())
                .unwrap();
        assert_eq!(sandbox["dataSignature"], "");
        assert_eq!(sandbox["enclaveQuorumPublic"], "");
    }
}
