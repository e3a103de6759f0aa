//! Routing: Basic auth, `/backend`, error bodies, limits, static files, the binary.

mod common;

use embedded_wallet_kit::system_now;
use std::io::{BufRead as _, BufReader};
use std::process::{Command, Stdio};

use common::{assert_id, basic, register_body, start, start_with};
use embedded_wallet_kit::passkey::SoftAuthenticator;
use emulator::Mode;
use serde_json::json;

#[test]
fn basic_auth_backend_and_error_bodies() {
    let emu = start(Mode::Strict);
    let (account, _) = emu.new_account();
    let path = format!("/auth/credentials?accountId={account}");

    let r = emu.raw("GET", &path, &[], "");
    r.expect(401);
    let body = r.json();
    assert_eq!(body["code"], "UNAUTHORIZED");
    assert!(body["message"].is_string());
    assert!(r.reason().contains("Authorization"), "{}", r.body);
    let wrong = format!(
        "Basic {}",
        base64::Engine::encode(
            &base64::engine::general_purpose::STANDARD,
            "emulator-token:wrong"
        )
    );
    let r = emu.raw("GET", &path, &[("Authorization", &wrong)], "");
    assert_eq!(
        (r.status, r.reason().as_str()),
        (401, "Invalid API token or secret")
    );
    let r = emu.raw("GET", &path, &[("Authorization", "Bearer x")], "");
    assert_eq!(r.status, 401);
    emu.raw("GET", &path, &[("Authorization", &basic())], "")
        .expect(200);

    // /backend adds the credentials server-side: same handlers, same state.
    let r = emu.raw("GET", &format!("/backend{path}"), &[], "");
    r.expect(200);
    assert_eq!(r.json(), json!({"data": []}));
    let r = emu.raw(
        "POST",
        "/backend/auth/credentials",
        &[],
        &json!({"type": "EMAIL_OTP", "accountId": account}).to_string(),
    );
    r.expect(201);
    assert_id(r.json()["id"].as_str().unwrap(), "AuthMethod");
    assert_eq!(emu.get(&path).json()["data"].as_array().unwrap().len(), 1);
    // A signed retry may start on /backend and finish at the root: same API path.
    let (session_account, _) = emu.new_account();
    let (mut session, _) = emu.email_login(&session_account);
    let patch = format!("/internal-accounts/{session_account}");
    let first = emu.raw(
        "PATCH",
        &format!("/backend{patch}"),
        &[],
        r#"{"privacyEnabled":true}"#,
    );
    first.expect(202);
    let pending = embedded_wallet_kit::PendingSignature::from_json(&first.body).unwrap();
    let h = session.sign_retry(&pending, system_now()).unwrap();
    emu.retry_with(
        "PATCH",
        &patch,
        &h.signature,
        &h.request_id,
        r#"{"privacyEnabled":true}"#,
    )
    .expect(200);

    // Error bodies.
    let r = emu.get("/auth/nothing-here");
    r.expect(404);
    assert_eq!(r.json()["code"], "NOT_FOUND");
    let r = emu.raw("GET", "/backend/nope", &[], "");
    r.expect(404);
    assert_eq!(r.json()["code"], "NOT_FOUND");
    let r = emu.api("PUT", "/quotes", &[], "{}");
    r.expect(405);
    assert_eq!(r.json()["code"], "METHOD_NOT_ALLOWED");
    let r = emu.api("POST", "/auth/credentials", &[], "{not json");
    r.expect(400);
    assert_eq!(r.json()["code"], "INVALID_INPUT");
    emu.api("POST", "/auth/credentials", &[], "[]").expect(400);
    emu.get("/auth/credentials").expect(400);
    let r = emu.post(
        "/auth/credentials",
        &json!({"type": "EMAIL_OTP", "accountId": "InternalAccount:00000000-0000-4000-8000-000000000000"}),
    );
    r.expect(404);
    assert_eq!(r.json()["code"], "NOT_FOUND");
    emu.post(
        "/auth/credentials",
        &json!({"type": "SMS_OTP", "accountId": account}),
    )
    .expect(400);
    emu.api(
        "POST",
        "/auth/credentials/AuthMethod:00000000-0000-4000-8000-000000000000/challenge",
        &[],
        "",
    )
    .expect(404);

    // Internal accounts: {data} only; limit 1..100.
    let list = emu.get("/internal-accounts");
    list.expect(200);
    let list = list.json();
    assert_eq!(list.as_object().unwrap().len(), 1, "{list}");
    let accounts = list["data"].as_array().unwrap();
    assert!(accounts.len() >= 3);
    for a in accounts {
        assert_id(a["id"].as_str().unwrap(), "InternalAccount");
        assert_id(a["customerId"].as_str().unwrap(), "Customer");
        assert_eq!(a["balance"]["currency"]["code"], "USD");
    }
    assert_eq!(
        emu.get("/internal-accounts?limit=1").json()["data"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    let r = emu.get("/internal-accounts?limit=0");
    r.expect(400);
    assert_eq!(r.json()["code"], "INVALID_INPUT");
    emu.get("/internal-accounts?limit=101").expect(400);
    emu.get("/internal-accounts?limit=x").expect(400);
    let wallets = emu.get("/internal-accounts?type=EMBEDDED_WALLET").json();
    assert!(wallets["data"]
        .as_array()
        .unwrap()
        .iter()
        .all(|a| a["type"] == "EMBEDDED_WALLET"));
}

/// 400 bodies name the field that was wrong, nested fields as `parent.field`, and the
/// two `clientPublicKey` patterns (uncompressed only, or either form).
#[test]
fn invalid_fields_are_named_in_400_bodies() {
    let emu = start(Mode::Sandbox);
    let invalid = |r: &common::Resp| {
        r.expect(400);
        let body = r.json();
        assert_eq!(body["code"], "INVALID_INPUT", "{}", r.body);
        (
            body["message"].as_str().unwrap_or_default().to_owned(),
            body["reason"].as_str().unwrap_or_default().to_owned(),
        )
    };

    let (account, _) = emu.new_account();
    let r = emu.post(
        "/auth/credentials",
        &json!({"type": "EMAIL_OTP", "accountId": account}),
    );
    r.expect(201);
    let cred = r.json()["id"].as_str().unwrap().to_owned();
    let r = emu.post(
        &format!("/auth/credentials/{cred}/verify"),
        &json!({"type": "EMAIL_OTP", "otp": "000000", "clientPublicKey": "02ab"}),
    );
    assert_eq!(
        invalid(&r),
        (
            "clientPublicKey must be an uncompressed P-256 key in hex: ^04[0-9a-fA-F]{128}$"
                .to_owned(),
            "clientPublicKey pattern".to_owned()
        )
    );
    let r = emu.post(
        "/auth/sessions/Session:none/refresh",
        &json!({"clientPublicKey": "05ab"}),
    );
    assert_eq!(
        invalid(&r),
        (
            "clientPublicKey must be a P-256 key in hex: ^(0[23][0-9a-fA-F]{64}|04[0-9a-fA-F]{128})$"
                .to_owned(),
            "clientPublicKey pattern".to_owned()
        )
    );
    let mut point = "04".to_owned();
    point.push_str(&"00".repeat(64));
    let r = emu.post(
        &format!("/auth/credentials/{cred}/verify"),
        &json!({"type": "EMAIL_OTP", "otp": "000000", "clientPublicKey": point}),
    );
    assert_eq!(
        invalid(&r),
        (
            "clientPublicKey is not a point on P-256".to_owned(),
            "clientPublicKey point".to_owned()
        )
    );

    let (account, _) = emu.new_account();
    let mut authenticator = SoftAuthenticator::new("http://localhost:3000").unwrap();
    let mut body = register_body(&mut authenticator, &account, "Key");
    let attestation = body["attestation"].as_object_mut().unwrap();
    attestation.remove("clientDataJson");
    let r = emu.post("/auth/credentials", &body);
    assert_eq!(invalid(&r).0, "attestation.clientDataJson is required");
    body["attestation"]["clientDataJson"] = json!(7);
    let r = emu.post("/auth/credentials", &body);
    assert_eq!(invalid(&r).0, "attestation.clientDataJson must be a string");

    let body = register_body(&mut authenticator, &account, "Key");
    let r = emu.post("/auth/credentials", &body);
    r.expect(201);
    let passkey = r.json()["id"].as_str().unwrap().to_owned();
    let r = emu.api(
        "POST",
        &format!("/auth/credentials/{passkey}/verify"),
        &[("Request-Id", "Request:none")],
        &json!({"type": "PASSKEY", "assertion": {
            "credentialId": "x", "clientDataJson": "x", "authenticatorData": "x",
        }})
        .to_string(),
    );
    assert_eq!(invalid(&r).0, "assertion.signature is required");

    let r = emu.post(
        "/quotes",
        &json!({
            "source": {"sourceType": "ACCOUNT", "accountId": ""},
            "destination": {"destinationType": "ACCOUNT", "accountId": account},
            "lockedCurrencySide": "SENDING",
            "lockedCurrencyAmount": 1,
        }),
    );
    assert_eq!(invalid(&r).0, "source.accountId is empty");
}

#[test]
fn static_files_and_pkg_with_mime_types() {
    let root = std::env::temp_dir().join(format!("emulator-static-{}", std::process::id()));
    let (site, pkg) = (root.join("site"), root.join("pkg"));
    std::fs::create_dir_all(site.join("sub")).unwrap();
    std::fs::create_dir_all(&pkg).unwrap();
    std::fs::write(site.join("index.html"), "<h1>wallet</h1>").unwrap();
    std::fs::write(site.join("app.js"), "export {}").unwrap();
    std::fs::write(site.join("sub/style.css"), "body{}").unwrap();
    std::fs::write(pkg.join("kit_bg.wasm"), b"\0asm\x01\0\0\0").unwrap();
    std::fs::write(pkg.join("kit.js"), "export {}").unwrap();
    std::fs::write(root.join("secret.txt"), "no").unwrap();
    let (s, p) = (site.clone(), pkg.clone());
    let emu = start_with(Mode::Strict, move |c| {
        c.static_dir = s;
        c.pkg_dir = p;
        c.strict_csp = true;
    });

    let r = emu.raw("GET", "/", &[], "");
    r.expect(200);
    assert_eq!(r.body, "<h1>wallet</h1>");
    assert!(r.header("content-type").unwrap().starts_with("text/html"));
    let ct = |path: &str| {
        let r = emu.raw("GET", path, &[], "");
        r.expect(200);
        r.header("content-type").unwrap().to_owned()
    };
    assert!(ct("/app.js").starts_with("text/javascript"));
    assert!(ct("/sub/style.css").starts_with("text/css"));
    assert_eq!(ct("/pkg/kit_bg.wasm"), "application/wasm");
    assert!(ct("/pkg/kit.js").starts_with("text/javascript"));
    // Every file (the page, its script, the kit's module and .wasm) carries the strict CSP.
    for path in ["/", "/app.js", "/pkg/kit.js", "/pkg/kit_bg.wasm"] {
        let r = emu.raw("GET", path, &[], "");
        let csp = r.header("content-security-policy").unwrap_or_default();
        assert!(
            csp.contains("script-src 'self' 'wasm-unsafe-eval';") && !csp.contains("'unsafe-eval'"),
            "{path}: {csp}"
        );
        for directive in [
            "worker-src 'self'",
            "object-src 'none'",
            "base-uri 'none'",
            "style-src 'self'",
        ] {
            assert!(
                csp.contains(directive),
                "{path}: {directive} missing in {csp}"
            );
        }
    }
    for missing in [
        "/nope.js",
        "/../secret.txt",
        "/pkg/../site/index.html",
        "/%2e%2e/secret.txt",
    ] {
        let r = emu.raw("GET", missing, &[], "");
        assert_eq!(r.status, 404, "{missing}: {}", r.body);
        assert!(!r.body.contains("no\n") && r.body != "no");
    }
    // Without --strict-csp, no policy (WebDriver harnesses evaluate through eval).
    let (s, p) = (site.clone(), pkg.clone());
    let plain = start_with(Mode::Strict, move |c| {
        c.static_dir = s;
        c.pkg_dir = p;
    });
    let r = plain.raw("GET", "/", &[], "");
    r.expect(200);
    assert_eq!(r.header("content-security-policy"), None);
    // API paths never fall through to files.
    std::fs::write(site.join("quotes"), "file").unwrap();
    assert_eq!(emu.raw("GET", "/quotes", &[], "").status, 401);
    std::fs::remove_dir_all(&root).unwrap();
}

#[test]
fn the_binary_prints_its_address_and_serves() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_emulator"))
        .args(["--port", "0", "--mode", "sandbox", "--quiet"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let port: u16 = line
        .trim()
        .strip_prefix("emulator listening on http://localhost:")
        .and_then(|rest| rest.strip_suffix(" (mode: sandbox)"))
        .unwrap_or_else(|| panic!("unexpected ready line {line:?}"))
        .parse()
        .unwrap();
    assert_ne!(port, 0);
    let emu = common::Emu {
        port,
        origin: format!("http://localhost:{port}"),
    };
    assert_eq!(emu.config()["mode"], "sandbox");
    child.kill().unwrap();
    child.wait().unwrap();

    let out = Command::new(env!("CARGO_BIN_EXE_emulator"))
        .args(["--mode", "production"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--mode"));
    let help = Command::new(env!("CARGO_BIN_EXE_emulator"))
        .arg("--help")
        .output()
        .unwrap();
    assert!(help.status.success());
    assert!(String::from_utf8_lossy(&help.stdout).contains("--challenge-interval-ms"));
}
