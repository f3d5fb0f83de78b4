//! The kit as a library, from a program: run it against an agent (a base URL given as the
//! first argument, or the built-in reference agent) and exit non-zero unless it is conformant.
//!
//!     cargo run --example gate -- http://127.0.0.1:8080

use std::process::ExitCode;

use a2a_tck::api::{self, Level, Options, Verdict};

fn main() -> ExitCode {
    let options = match std::env::args().nth(1) {
        Some(url) => Options::url(url),
        None => Options::builtin(),
    };
    match api::run_blocking(&options.level(Level::May)) {
        Ok(report) => {
            print!("{}", api::summary(&report));
            if report.verdict == Verdict::Conformant {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            }
        }
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::from(2)
        }
    }
}
