//! Command-line configuration.

use std::path::PathBuf;
use std::time::Duration;

use crate::state::Plan;

/// Which behaviour the emulator follows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Spec §4.9, §5.3 and §7: magic values, stub session bundles, magic signature.
    Sandbox,
    /// Real cryptography: sealed session keys, verified stamps, WebAuthn and OIDC.
    Strict,
}

impl Mode {
    /// `sandbox` or `strict`.
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Sandbox => "sandbox",
            Mode::Strict => "strict",
        }
    }
}

/// Everything the emulator can be told.
#[derive(Clone, Debug)]
pub struct Config {
    /// `--mode`.
    pub mode: Mode,
    /// `--host`: the address to bind.
    pub host: String,
    /// `--port`; 0 picks a free port.
    pub port: u16,
    /// `--static-dir`: served at `/`.
    pub static_dir: PathBuf,
    /// `--pkg-dir`: served at `/pkg/`.
    pub pkg_dir: PathBuf,
    /// `--rp-id`: the WebAuthn relying-party id passkeys must be scoped to.
    pub rp_id: String,
    /// `--session-ttl-secs`: lifetime of a session.
    pub session_ttl: Duration,
    /// `--challenge-interval-ms`: minimum time between two challenges of one credential.
    pub challenge_interval: Duration,
    /// `--origin` (repeatable): WebAuthn origins allowed besides `http://localhost[:port]`.
    pub origins: Vec<String>,
    /// `--api-token`: the Basic-auth user name.
    pub api_token: String,
    /// `--api-secret`: the Basic-auth password.
    pub api_secret: String,
    /// Signed-retry window and passkey-challenge lifetime (spec: typically 5 minutes).
    pub request_ttl: Duration,
    /// Quote lifetime (spec: typically 1 to 5 minutes).
    pub quote_ttl: Duration,
    /// How long an emailed OTP stays valid.
    pub otp_ttl: Duration,
    /// `--quiet`: no request log on stderr.
    pub quiet: bool,
    /// `--forbid-transact`: the platform's API token lacks the TRANSACT permission, so
    /// `POST /quotes` and `POST /quotes/{id}/execute` answer 403 (switchable at run time
    /// with `POST /emulator/permissions`).
    pub forbid_transact: bool,
    /// `--strict-csp`: static and `/pkg/` files carry a strict Content-Security-Policy
    /// (`server::CONTENT_SECURITY_POLICY`). Off by default: WebDriver harnesses that
    /// evaluate script through `eval` in the page are blocked by it in Firefox and WebKit.
    pub strict_csp: bool,
    /// `--processing N`, `--processing-settle-ms MS`: signed retries answer
    /// `200 {"status":"PROCESSING"}` N times before they run (`api::processing`).
    pub processing: Plan,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            mode: Mode::Strict,
            host: "127.0.0.1".into(),
            port: 8787,
            static_dir: default_dir("examples/wallet", "../wallet"),
            pkg_dir: default_dir("pkg", "../../pkg"),
            rp_id: "localhost".into(),
            session_ttl: Duration::from_secs(900),
            challenge_interval: Duration::from_millis(1000),
            origins: Vec::new(),
            api_token: "emulator-token".into(),
            api_secret: "emulator-secret".into(),
            request_ttl: Duration::from_secs(300),
            quote_ttl: Duration::from_secs(120),
            // Production's default OTP lifetime.
            otp_ttl: Duration::from_secs(300),
            quiet: false,
            forbid_transact: false,
            strict_csp: false,
            processing: Plan::default(),
        }
    }
}

/// The default directories are relative to the repository root; when the emulator is
/// started elsewhere, fall back to the same directory found from this crate's source.
fn default_dir(from_root: &str, from_crate: &str) -> PathBuf {
    let relative = PathBuf::from(from_root);
    if relative.is_dir() {
        return relative;
    }
    let beside = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(from_crate);
    if beside.is_dir() {
        beside
    } else {
        relative
    }
}

/// The `--help` text.
pub const USAGE: &str = "\
emulator: a local emulator of the embedded-wallet payments API

USAGE: emulator [OPTIONS]

  --mode sandbox|strict        sandbox: spec magic values; strict: real crypto (default strict)
  --port N                     port to listen on; 0 picks a free one (default 8787)
  --host ADDR                  address to bind (default 127.0.0.1)
  --static-dir DIR             served at / (default examples/wallet)
  --pkg-dir DIR                served at /pkg/ (default pkg)
  --rp-id ID                   WebAuthn relying-party id (default localhost)
  --session-ttl-secs N         session lifetime (default 900)
  --challenge-interval-ms N    minimum interval between challenges of a credential (default 1000)
  --origin ORIGIN              extra allowed WebAuthn origin, repeatable
                               (any http://localhost:<port> is always allowed)
  --api-token TOKEN            Basic-auth token id (default emulator-token)
  --api-secret SECRET          Basic-auth secret (default emulator-secret)
  --forbid-transact            the API token lacks the TRANSACT permission: quotes and
                               their execution answer 403 (POST /emulator/permissions
                               switches it at run time)
  --strict-csp                 serve files with a strict Content-Security-Policy
                               (script-src 'self' 'wasm-unsafe-eval'; no inline; make demo)
  --processing N               every signed retry (and encrypted-OTP verify) answers
                               200 PROCESSING N times before it runs, as the
                               live service does when busy (default 0; per operation at
                               run time: POST /emulator/processing)
  --processing-settle-ms MS    an operation left processing runs on its own after MS
                               (default 10000)
  --quiet                      no request log on stderr
  -h, --help                   this text
";

/// Parses the arguments (without the program name). `Err` carries a message for the
/// user; `Ok(None)` means `--help` was asked for.
pub fn parse_args<I, S>(args: I) -> Result<Option<Config>, String>
where
    I: IntoIterator<Item = S>,
    S: Into<String>,
{
    let mut config = Config::default();
    let mut args = args.into_iter().map(Into::into);
    while let Some(arg) = args.next() {
        if arg == "-h" || arg == "--help" {
            return Ok(None);
        }
        if arg == "--quiet" {
            config.quiet = true;
            continue;
        }
        if arg == "--forbid-transact" {
            config.forbid_transact = true;
            continue;
        }
        if arg == "--strict-csp" {
            config.strict_csp = true;
            continue;
        }
        let (flag, inline) = match arg.split_once('=') {
            Some((flag, value)) if flag.starts_with("--") => (flag.to_owned(), Some(value.into())),
            _ => (arg.clone(), None),
        };
        if !flag.starts_with("--") {
            return Err(format!("unexpected argument {arg:?} (see --help)"));
        }
        let value = match inline {
            Some(value) => value,
            None => args
                .next()
                .ok_or_else(|| format!("{flag} needs a value (see --help)"))?,
        };
        let number = |what: &str| -> Result<u64, String> {
            value
                .parse::<u64>()
                .map_err(|_| format!("{what} must be a whole number, not {value:?}"))
        };
        match flag.as_str() {
            "--mode" => {
                config.mode = match value.as_str() {
                    "sandbox" => Mode::Sandbox,
                    "strict" => Mode::Strict,
                    _ => return Err(format!("--mode must be sandbox or strict, not {value:?}")),
                }
            }
            "--port" => {
                config.port = u16::try_from(number("--port")?)
                    .map_err(|_| format!("--port must be 0 to 65535, not {value}"))?
            }
            "--host" => config.host = value,
            "--static-dir" => config.static_dir = PathBuf::from(value),
            "--pkg-dir" => config.pkg_dir = PathBuf::from(value),
            "--rp-id" => {
                if value.is_empty() || value.contains(['/', ':']) {
                    return Err("--rp-id must be a bare domain such as localhost".into());
                }
                config.rp_id = value.to_ascii_lowercase()
            }
            "--session-ttl-secs" => {
                let secs = number("--session-ttl-secs")?;
                if secs == 0 {
                    return Err("--session-ttl-secs must be at least 1".into());
                }
                config.session_ttl = Duration::from_secs(secs)
            }
            "--challenge-interval-ms" => {
                config.challenge_interval =
                    Duration::from_millis(number("--challenge-interval-ms")?)
            }
            "--origin" => {
                let origin = value.trim_end_matches('/').to_owned();
                if !(origin.starts_with("http://") || origin.starts_with("https://")) {
                    return Err(format!(
                        "--origin must be scheme://host[:port], not {value:?}"
                    ));
                }
                config.origins.push(origin)
            }
            "--processing" => {
                let count = u32::try_from(number("--processing")?)
                    .map_err(|_| format!("--processing is too large: {value}"))?;
                config.processing = Plan::all(count, config.processing.settle_after)
            }
            "--processing-settle-ms" => {
                config.processing.settle_after =
                    Duration::from_millis(number("--processing-settle-ms")?)
            }
            "--api-token" => config.api_token = value,
            "--api-secret" => config.api_secret = value,
            _ => return Err(format!("unknown option {flag} (see --help)")),
        }
    }
    Ok(Some(config))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_and_flags() {
        let c = parse_args(Vec::<String>::new()).unwrap().unwrap();
        assert_eq!(c.mode, Mode::Strict);
        assert_eq!(c.port, 8787);
        assert_eq!(c.host, "127.0.0.1");
        assert_eq!(c.session_ttl, Duration::from_secs(900));
        assert!(!c.forbid_transact);
        assert!(!c.strict_csp);
        let c = parse_args([
            "--mode",
            "sandbox",
            "--port=0",
            "--session-ttl-secs",
            "5",
            "--origin",
            "https://wallet.example.com/",
            "--challenge-interval-ms=0",
            "--forbid-transact",
            "--strict-csp",
            "--processing-settle-ms=50",
            "--processing",
            "2",
        ])
        .unwrap()
        .unwrap();
        assert!(c.strict_csp);
        assert_eq!(c.mode, Mode::Sandbox);
        assert_eq!(c.port, 0);
        assert_eq!(c.session_ttl, Duration::from_secs(5));
        assert_eq!(c.challenge_interval, Duration::ZERO);
        assert_eq!(c.origins, ["https://wallet.example.com"]);
        assert!(c.forbid_transact);
        assert_eq!(c.processing.counts.get("session.refresh"), Some(&2));
        assert_eq!(c.processing.settle_after, Duration::from_millis(50));
        assert!(parse_args(["--help"]).unwrap().is_none());
        for bad in [
            &["--mode", "prod"][..],
            &["--port", "70000"],
            &["--port"],
            &["--nope", "1"],
            &["stray"],
            &["--session-ttl-secs", "0"],
            &["--processing", "-1"],
        ] {
            assert!(parse_args(bad.iter().copied()).is_err(), "{bad:?}");
        }
    }
}
