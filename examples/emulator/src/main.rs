//! `emulator`: the command-line entry point (see `--help`).

use std::io::Write as _;
use std::process::ExitCode;

#[tokio::main]
async fn main() -> ExitCode {
    let config = match emulator::parse_args(std::env::args().skip(1)) {
        Ok(Some(config)) => config,
        Ok(None) => {
            print!("{}", emulator::USAGE);
            return ExitCode::SUCCESS;
        }
        Err(message) => {
            eprintln!("emulator: {message}");
            return ExitCode::from(2);
        }
    };
    let listener = match emulator::bind(&config).await {
        Ok(listener) => listener,
        Err(e) => {
            eprintln!(
                "emulator: cannot listen on {}:{}: {e}",
                config.host, config.port
            );
            return ExitCode::FAILURE;
        }
    };
    let port = match listener.local_addr() {
        Ok(addr) => addr.port(),
        Err(e) => {
            eprintln!("emulator: {e}");
            return ExitCode::FAILURE;
        }
    };
    for (what, dir) in [
        ("--static-dir", &config.static_dir),
        ("--pkg-dir", &config.pkg_dir),
    ] {
        if !dir.is_dir() {
            eprintln!("emulator: warning: {what} {} does not exist", dir.display());
        }
    }
    println!(
        "emulator listening on http://localhost:{port} (mode: {})",
        config.mode.as_str()
    );
    let _ = std::io::stdout().flush();
    let shutdown = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    match emulator::serve(listener, config, shutdown).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("emulator: {e}");
            ExitCode::FAILURE
        }
    }
}
