//! The router: the API at `/` (Basic auth) and at `/backend/` (auth added server-side),
//! the `/emulator/` helpers (`api::control`), static files, and starting the server.

use std::net::SocketAddr;
use std::path::{Component, Path as FsPath, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

use axum::extract::{Request, State as AxumState};
use axum::http::{header, HeaderValue, Method, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{delete, get, patch, post};
use axum::Router;
use base64::Engine as _;
use tokio::net::TcpListener;

use crate::api::control::{
    config, create_account, oidc_configuration, oidc_jwks, oidc_token, outbox, permissions,
    registration_challenge, set_permissions,
};
use crate::api::{self, App, Shared};
use crate::config::Config;
use crate::crypto::{generate_secret, generate_signing_key, Issuer};
use crate::error::ApiError;
use crate::state::{Book, State};

/// The API routes, with paths exactly as in the spec.
fn api_routes() -> Router<Shared> {
    Router::new()
        .route(
            "/auth/credentials",
            post(api::create_credential).get(api::list_credentials),
        )
        .route("/auth/credentials/{id}", delete(api::revoke_credential))
        .route("/auth/credentials/{id}/challenge", post(api::challenge))
        .route("/auth/credentials/{id}/verify", post(api::verify))
        .route("/auth/sessions", get(api::list_sessions))
        .route("/auth/sessions/{id}/refresh", post(api::refresh))
        .route("/auth/sessions/{id}", delete(api::revoke_session))
        .route("/quotes", post(api::create_quote))
        .route("/quotes/{id}", get(api::get_quote))
        .route("/quotes/{id}/execute", post(api::execute_quote))
        .route("/transactions", get(api::list_transactions))
        .route("/transactions/{id}", get(api::get_transaction))
        .route("/customers/{id}", patch(api::update_customer))
        .route("/internal-accounts", get(api::list_accounts))
        .route("/internal-accounts/{id}", patch(api::patch_account))
        .route("/internal-accounts/{id}/export", post(api::export))
        .route("/sandbox/internal-accounts/{id}/fund", post(api::fund))
        .method_not_allowed_fallback(method_not_allowed)
}

/// Emulator-only helpers (no auth: they exist for the demo page and tests).
fn emulator_routes() -> Router<Shared> {
    Router::new()
        .route("/accounts", post(create_account))
        .route("/outbox", get(outbox))
        .route("/config", get(config))
        .route("/registration-challenge", post(registration_challenge))
        .route("/permissions", get(permissions).post(set_permissions))
        .route(
            "/processing",
            get(api::processing::get_plan).post(api::processing::set_plan),
        )
        .route("/oidc/token", get(oidc_token))
        .route("/oidc/jwks", get(oidc_jwks))
        .route(
            "/oidc/.well-known/openid-configuration",
            get(oidc_configuration),
        )
        .method_not_allowed_fallback(method_not_allowed)
}

/// Builds the whole application for a server bound to `port`.
pub fn router(config: Config, port: u16) -> Router {
    let base_url = format!("http://localhost:{port}");
    let mut state = State {
        transact_forbidden: config.forbid_transact,
        processing: Book {
            plan: config.processing.clone(),
            ..Book::default()
        },
        ..State::default()
    };
    let (_, merchant_account_id) =
        state.create_customer_account("merchant@emulator.invalid", "INTERNAL_FIAT");
    let quiet = config.quiet;
    let app = Arc::new(App {
        issuer: Issuer::new(format!("{base_url}/emulator/oidc")),
        export_signer: generate_signing_key(),
        otp_enclave: generate_secret(),
        otp_signer: generate_signing_key(),
        merchant_account_id,
        base_url,
        config,
        state: Mutex::new(state),
        settle_router: OnceLock::new(),
    });
    let tracked = || {
        api_routes().layer(middleware::from_fn_with_state(
            app.clone(),
            api::processing::track,
        ))
    };
    // Held in the App it serves: the emulator lives as long as the process.
    let _ = app.settle_router.set(tracked().with_state(app.clone()));
    let mut router = Router::new()
        .merge(tracked().route_layer(middleware::from_fn_with_state(app.clone(), require_basic)))
        .nest("/backend", tracked())
        .nest("/emulator", emulator_routes())
        .route("/", get(index))
        .route("/pkg/{*path}", get(pkg_file))
        .fallback(fallback)
        .with_state(app);
    if !quiet {
        router = router.layer(middleware::from_fn(log_requests));
    }
    router
}

/// HTTP Basic auth on the API at the root.
async fn require_basic(
    AxumState(app): AxumState<Shared>,
    request: Request,
    next: Next,
) -> Response {
    let header = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok());
    let failure = match header {
        None => Some("Missing Authorization header (HTTP Basic: api token id and secret)"),
        Some(value) => match value.strip_prefix("Basic ") {
            None => Some("Authorization is not HTTP Basic"),
            Some(encoded) => {
                let decoded = base64::engine::general_purpose::STANDARD
                    .decode(encoded.trim())
                    .ok()
                    .and_then(|b| String::from_utf8(b).ok());
                let expected = format!("{}:{}", app.config.api_token, app.config.api_secret);
                match decoded {
                    None => Some("Authorization Basic value is not base64 of token:secret"),
                    Some(d) if d == expected => None,
                    Some(_) => Some("Invalid API token or secret"),
                }
            }
        },
    };
    match failure {
        None => next.run(request).await,
        Some(reason) => ApiError::unauthorized(reason).into_response(),
    }
}

/// One line per request on stderr.
async fn log_requests(request: Request, next: Next) -> Response {
    let (method, path) = (request.method().clone(), request.uri().path().to_owned());
    let started = Instant::now();
    let response = next.run(request).await;
    eprintln!(
        "{method} {path} -> {} ({} ms)",
        response.status().as_u16(),
        started.elapsed().as_millis()
    );
    response
}

async fn method_not_allowed(request: Request) -> Response {
    ApiError::new(
        StatusCode::METHOD_NOT_ALLOWED,
        "METHOD_NOT_ALLOWED",
        format!(
            "{} is not allowed on {}",
            request.method(),
            request.uri().path()
        ),
    )
    .into_response()
}

/// Paths that belong to the API (404s there are JSON).
fn is_api_path(path: &str) -> bool {
    const PREFIXES: [&str; 8] = [
        "/auth",
        "/quotes",
        "/transactions",
        "/internal-accounts",
        "/sandbox",
        "/backend",
        "/emulator",
        "/platform",
    ];
    PREFIXES
        .iter()
        .any(|p| path == *p || path.starts_with(&format!("{p}/")))
}

async fn fallback(AxumState(app): AxumState<Shared>, request: Request) -> Response {
    let path = request.uri().path().to_owned();
    if (request.method() == Method::GET || request.method() == Method::HEAD) && !is_api_path(&path)
    {
        return serve_file(
            &app.config,
            &app.config.static_dir,
            path.trim_start_matches('/'),
        )
        .await;
    }
    ApiError::not_found(format!("no route for {} {path}", request.method())).into_response()
}

async fn index(AxumState(app): AxumState<Shared>) -> Response {
    serve_file(&app.config, &app.config.static_dir, "index.html").await
}

async fn pkg_file(
    AxumState(app): AxumState<Shared>,
    axum::extract::Path(path): axum::extract::Path<String>,
) -> Response {
    serve_file(&app.config, &app.config.pkg_dir, &path).await
}

fn mime(path: &FsPath) -> &'static str {
    match path.extension().and_then(|e| e.to_str()).unwrap_or("") {
        "html" | "htm" => "text/html; charset=utf-8",
        "js" | "mjs" | "cjs" => "text/javascript; charset=utf-8",
        "wasm" => "application/wasm",
        "css" => "text/css; charset=utf-8",
        "json" | "map" => "application/json",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "ico" => "image/x-icon",
        "txt" | "md" | "ts" => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

/// With `--strict-csp`, the Content-Security-Policy of every static and `/pkg/` file: the
/// strict policy the kit's README recommends, so the demo shows it is enough (tests/csp
/// checks that in Chromium, Firefox ESR and WebKitGTK). `'wasm-unsafe-eval'` lets the kit
/// compile its WebAssembly (no `'unsafe-eval'`); `worker-src 'self'` the isolated signer's
/// Worker; no inline script or style anywhere. (A Worker's policy is its script's response
/// header, so `/pkg/` files carry it too.)
pub const CONTENT_SECURITY_POLICY: &str =
    "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; \
     worker-src 'self'; connect-src 'self'; style-src 'self'; img-src 'self' data:; \
     object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/// A file under `root`, refusing any path that could leave it.
async fn serve_file(config: &Config, root: &FsPath, relative: &str) -> Response {
    let relative = PathBuf::from(relative);
    let safe = relative
        .components()
        .all(|c| matches!(c, Component::Normal(_)));
    if !safe || relative.as_os_str().is_empty() {
        return not_found_page(relative.display());
    }
    let mut path = root.join(&relative);
    if path.is_dir() {
        path = path.join("index.html");
    }
    match tokio::fs::read(&path).await {
        Ok(bytes) => {
            let mut response = bytes.into_response();
            let headers = response.headers_mut();
            headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(mime(&path)));
            headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
            if config.strict_csp {
                headers.insert(
                    header::CONTENT_SECURITY_POLICY,
                    HeaderValue::from_static(CONTENT_SECURITY_POLICY),
                );
            }
            response
        }
        Err(_) => not_found_page(relative.display()),
    }
}

fn not_found_page(what: impl std::fmt::Display) -> Response {
    ApiError::not_found(format!("no file {what} (see --static-dir and --pkg-dir)")).into_response()
}

// ---------------------------------------------------------------------------------------
// Starting

/// Binds `--host:--port` (port 0 picks a free one).
pub async fn bind(config: &Config) -> std::io::Result<TcpListener> {
    TcpListener::bind((config.host.as_str(), config.port)).await
}

/// Serves on a bound listener until `shutdown` resolves.
pub async fn serve(
    listener: TcpListener,
    config: Config,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let port = listener.local_addr()?.port();
    let app = router(config, port);
    axum::serve(listener, app)
        .with_graceful_shutdown(shutdown)
        .await
}

/// Starts an emulator on a background thread (its own runtime) and returns its address
/// once it accepts connections. For tests and embedding; the server lives as long as
/// the process.
pub fn spawn(config: Config) -> std::io::Result<SocketAddr> {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::Builder::new()
        .name("emulator".into())
        .spawn(move || {
            let runtime = match tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
            {
                Ok(r) => r,
                Err(e) => {
                    let _ = tx.send(Err(e));
                    return;
                }
            };
            runtime.block_on(async move {
                let listener = match bind(&config).await {
                    Ok(l) => l,
                    Err(e) => {
                        let _ = tx.send(Err(e));
                        return;
                    }
                };
                let addr = listener.local_addr();
                let _ = tx.send(addr);
                let _ = serve(listener, config, std::future::pending()).await;
            });
        })?;
    rx.recv()
        .map_err(|_| std::io::Error::other("the emulator thread stopped before binding"))?
}
