#![no_main]
//! Passkey options in (as JSON the way the JS layer reads them) and credentials out,
//! through validation and the software authenticator.
use embedded_wallet_kit::passkey::{AuthenticationInput, RegistrationInput, SoftAuthenticator};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fn s(v: &Value, k: &str) -> Option<String> {
    v.get(k).and_then(Value::as_str).map(str::to_owned)
}

fuzz_target!(|text: &str| {
    let Ok(v) = serde_json::from_str::<Value>(text) else { return };
    let user = v.get("user").cloned().unwrap_or(Value::Null);
    let registration = RegistrationInput {
        challenge: s(&v, "challenge"),
        rp_id: s(&v, "rpId"),
        rp_name: s(&v, "rpName"),
        user_id: s(&user, "id"),
        user_name: s(&user, "name"),
        user_display_name: s(&user, "displayName"),
        exclude_credential_ids: v
            .get("excludeCredentialIds")
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(|x| x.as_str().map(str::to_owned)).collect())
            .unwrap_or_default(),
        resident_key: s(&v, "residentKey"),
        user_verification: s(&v, "userVerification"),
        attachment: s(&v, "attachment"),
        timeout_ms: v.get("timeoutMs").and_then(Value::as_f64),
    };
    let authentication = AuthenticationInput {
        challenge: s(&v, "challenge"),
        credential_id: s(&v, "credentialId"),
        rp_id: s(&v, "rpId"),
        user_verification: s(&v, "userVerification"),
        timeout_ms: v.get("timeoutMs").and_then(Value::as_f64),
    };
    let mut authenticator = SoftAuthenticator::new("http://localhost:8787").expect("valid origin");
    if let Ok(reg) = registration.validate() {
        if let Ok(att) = authenticator.register(&reg) {
            let login = AuthenticationInput { credential_id: Some(att.credential_id), ..authentication.clone() };
            if let Ok(auth) = login.validate() {
                let _ = authenticator.authenticate(&auth);
            }
        }
    }
    if let Ok(auth) = authentication.validate() {
        let _ = authenticator.authenticate(&auth);
    }
    if let Some(origin) = s(&v, "origin") {
        let _ = SoftAuthenticator::new(&origin);
    }
});
