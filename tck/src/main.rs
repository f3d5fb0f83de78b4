//! The `a2a-tck` command line: its entrance, which parses the arguments and hands each command
//! to its module in `cli/` (the runs share the command's session, `cli/command_session.rs`, on the
//! library's `run::session`).

use std::process::ExitCode;

use a2a_tck::reporting::report::Report;
use clap::Parser;

// `print!` and `println!` of this binary, in every module below: std's panic when standard
// output's reader has gone away (`a2a-tck list | head -1`); these stop printing instead, and the
// command still ends with its own exit status.
macro_rules! print {
    ($($arg:tt)*) => {
        $crate::stdout(format_args!($($arg)*))
    };
}
macro_rules! println {
    () => {
        $crate::stdout(format_args!("\n"))
    };
    ($($arg:tt)*) => {
        $crate::stdout(format_args!("{}\n", format_args!($($arg)*)))
    };
}

/// Whether standard output could no longer be written: nothing more is printed.
static STDOUT_CLOSED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Prints on standard output, unless a write there has failed (a closed pipe): the reader has
/// gone, so there is no one to tell.
fn stdout(args: std::fmt::Arguments) {
    use std::io::Write as _;
    use std::sync::atomic::Ordering;
    if STDOUT_CLOSED.load(Ordering::Relaxed) {
        return;
    }
    if std::io::stdout().lock().write_fmt(args).is_err() {
        STDOUT_CLOSED.store(true, Ordering::Relaxed);
    }
}

mod cli;
use cli::flags::filter;
use cli::reports::{coverage, diff, write_baseline};
use cli::{agent_run, card_command, client_command, Cli, Command};

fn main() -> ExitCode {
    if let Some(e) = old_version_filter(std::env::args_os().skip(1)) {
        return usage(&e);
    }
    let cli = Cli::parse();
    match cli.command {
        Some(Command::List(args)) => cli::catalog::list(&filter(&args.selection), args.client)
            .map_or_else(|e| usage(&e), |()| ExitCode::SUCCESS),
        Some(Command::Explain { id }) => {
            cli::catalog::explain(&id).map_or_else(|e| usage(&e), |()| ExitCode::SUCCESS)
        }
        Some(Command::Schema) => {
            print!("{}", Report::schema());
            ExitCode::SUCCESS
        }
        Some(Command::Coverage) => coverage(),
        Some(Command::Baseline { report, output }) => write_baseline(&report, output.as_deref()),
        Some(Command::Diff { old, new, json }) => diff(&old, &new, json),
        Some(Command::Run(args)) => agent_run::run(*args),
        Some(Command::Card(args)) => card_command::run(*args),
        Some(Command::Client(args)) => client_command::run(*args),
        Some(Command::Explore(args)) => cli::explore_command::run(*args),
        Some(Command::Schemas { write }) => wire_schemas(write.as_deref()),
        Some(Command::Survey(args)) => cli::survey::run(*args),
        Some(Command::Merge(args)) => cli::survey::merge(args),
        Some(Command::Site(args)) => cli::site::run(args),
        None => agent_run::run(cli.run),
    }
}

/// `--version` prints the kit's version; given a value (`--version 1.0`, `--version=0.3`), it is
/// the protocol filter of earlier releases, now `--protocol-version`: a usage error, never a
/// run that prints a version and exits 0 in a pipeline meant to test.
fn old_version_filter(args: impl Iterator<Item = std::ffi::OsString>) -> Option<String> {
    let args: Vec<String> = args.map(|a| a.to_string_lossy().into_owned()).collect();
    let valued = args.iter().enumerate().find_map(|(i, arg)| {
        if let Some(value) = arg.strip_prefix("--version=") {
            return Some(value.to_string());
        }
        let next = args.get(i + 1)?;
        (arg == "--version" && !next.starts_with('-')).then(|| next.clone())
    })?;
    Some(format!(
        "--version takes no value (it prints the kit's version); select protocol versions \
         with --protocol-version {valued}"
    ))
}

fn usage(message: &str) -> ExitCode {
    eprintln!("error: {message}");
    ExitCode::from(2)
}

/// The async runtime of a run; a usage error when it cannot start.
fn runtime() -> Result<tokio::runtime::Runtime, ExitCode> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| usage(&format!("failed to start the async runtime: {e}")))
}

/// `a2a-tck schemas`: prints or writes the wire schemas.
fn wire_schemas(dir: Option<&std::path::Path>) -> ExitCode {
    use a2a_tck::facts::model::ProtocolVersion;
    match dir {
        None => {
            for version in [ProtocolVersion::V1_0, ProtocolVersion::V0_3] {
                print!("{}", a2a_tck::exchange::shapes::schema_text(version));
            }
            ExitCode::SUCCESS
        }
        Some(dir) => match a2a_tck::exchange::shapes::write(dir) {
            Ok(paths) => {
                for path in paths {
                    println!("wrote {}", path.display());
                }
                ExitCode::SUCCESS
            }
            Err(e) => usage(&format!(
                "cannot write the schemas into {}: {e}",
                dir.display()
            )),
        },
    }
}
