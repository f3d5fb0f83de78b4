//! The `a2a-tck` command line: a thin layer over the library.

use std::process::ExitCode;
use std::time::{Duration, SystemTime};

use a2a_tck::behaviors::SutBehaviors;
use a2a_tck::contract::Contract;
use a2a_tck::gate::Gate;
use a2a_tck::report::Report;
use a2a_tck::runner::{self, Filter, RunError, RunOptions};
use a2a_tck::{builtin, card, checks, failure, output};
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
use cli::reports::{coverage, diff, progress_bar, write_baseline};
use cli::signals::Signals;
use cli::{CardArgs, Cli, ClientArgs, Command, RunArgs, Selection};

fn main() -> ExitCode {
    if let Some(e) = old_version_filter(std::env::args_os().skip(1)) {
        return usage(&e);
    }
    let cli = Cli::parse();
    match cli.command {
        Some(Command::List(args)) if args.client => {
            cli::catalog::list_client();
            ExitCode::SUCCESS
        }
        Some(Command::List(args)) => cli::catalog::list(&filter(&args.selection))
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
        Some(Command::Run(args)) => run(*args),
        Some(Command::Card(args)) => card_command(*args),
        Some(Command::Client(args)) => client_command(*args),
        Some(Command::Explore(args)) => cli::explore_command::run(*args),
        Some(Command::Schemas { write }) => wire_schemas(write.as_deref()),
        Some(Command::Survey(args)) => cli::survey::run(*args),
        Some(Command::Merge(args)) => cli::survey::merge(args),
        Some(Command::Site(args)) => cli::site::run(args),
        None => run(cli.run),
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

fn filter(selection: &Selection) -> Filter {
    Filter {
        level: selection.level.into(),
        select: selection.select.clone(),
        bindings: selection.bindings.iter().map(|b| (*b).into()).collect(),
        versions: selection.versions.iter().map(|v| (*v).into()).collect(),
    }
}

/// The bearer credentials of the run's principal (`--bearer`/`--bearer-env`), the second
/// principal (`--other-bearer`/`--other-bearer-env`) and the limited one
/// (`--limited-bearer`/`--limited-bearer-env`), as headers.
fn credentials(args: &RunArgs) -> Result<Principals, String> {
    let token = |value: &Option<String>, env: &Option<String>, flag: &str| match (value, env) {
        (Some(token), _) => Ok(Some(token.clone())),
        (None, Some(var)) => std::env::var(var).map(Some).map_err(|_| {
            format!("{flag} {var}: the environment variable is not set (or not UTF-8)")
        }),
        (None, None) => Ok(None),
    };
    let header = |token: Option<String>| -> Result<Vec<(String, String)>, String> {
        let Some(token) = token else {
            return Ok(Vec::new());
        };
        let value = format!("Bearer {}", token.trim());
        reqwest::header::HeaderValue::from_str(&value)
            .map_err(|_| "a bearer token holds characters a header cannot carry".to_string())?;
        Ok(vec![("Authorization".to_string(), value)])
    };
    Ok(Principals {
        mine: header(token(&args.bearer, &args.bearer_env, "--bearer-env")?)?,
        other: header(token(
            &args.other_bearer,
            &args.other_bearer_env,
            "--other-bearer-env",
        )?)?,
        limited: header(token(
            &args.limited_bearer,
            &args.limited_bearer_env,
            "--limited-bearer-env",
        )?)?,
    })
}

/// The headers of each principal the run holds credentials of.
struct Principals {
    mine: Vec<(String, String)>,
    other: Vec<(String, String)>,
    limited: Vec<(String, String)>,
}

/// The headers of `--header`, `--other-header` or `--limited-header` (`flag`), parsed; the error names the flag
/// and never the value.
fn user_headers(texts: &[String], flag: &str) -> Result<Vec<(String, String)>, String> {
    texts
        .iter()
        .map(|text| a2a_tck::wire::parse_user_header(text).map_err(|e| format!("{flag}: {e}")))
        .collect()
}

fn seconds(value: f64, flag: &str) -> Result<Duration, String> {
    Duration::try_from_secs_f64(value)
        .ok()
        .filter(|d| !d.is_zero())
        .ok_or_else(|| format!("{flag} must be a positive number of seconds"))
}

fn run(args: RunArgs) -> ExitCode {
    // Without --target, --card-url names the agent to test: the one its card describes.
    let given_target =
        match (&args.target, &args.card_url) {
            (Some(target), Some(_)) if target == "builtin" => return usage(
                "--card-url reads another agent's card, and --target builtin tests the built-in \
                 agent, which serves its own: give --target URL, or leave --target out to test \
                 the agent the card describes",
            ),
            (Some(target), _) => target.clone(),
            (None, Some(card_url)) => match card::card_url_for(card_url) {
                Ok(_) => card_url.clone(),
                Err(e) => return usage(&format!("--card-url: {e}")),
            },
            (None, None) => "builtin".to_string(),
        };
    let builtin = given_target == "builtin";
    if !builtin && !args.fault.is_empty() {
        return usage("--fault applies to the built-in reference agent only (--target builtin)");
    }
    if !builtin && args.tls {
        return usage("--tls applies to the built-in reference agent only (--target builtin)");
    }
    if let Some(e) = a2a_tck::durability::misused(builtin, args.durability, &args.restart_cmd) {
        return usage(e);
    }
    let (headers, other_headers, limited_headers) = match (
        user_headers(&args.headers, "--header"),
        user_headers(&args.other_headers, "--other-header"),
        user_headers(&args.limited_headers, "--limited-header"),
    ) {
        (Ok(mine), Ok(other), Ok(limited)) => (mine, other, limited),
        (Err(e), _, _) | (_, Err(e), _) | (_, _, Err(e)) => return usage(&e),
    };
    let ready_timeout = match seconds(args.ready_timeout, "--ready-timeout") {
        Ok(d) => d,
        Err(e) => return usage(&e),
    };
    let (request_timeout, check_timeout, stream_wait) = match (
        seconds(args.timeout, "--timeout"),
        seconds(args.check_timeout, "--check-timeout"),
        seconds(args.stream_wait, "--stream-wait"),
    ) {
        (Ok(r), Ok(c), Ok(w)) => (r, c, w),
        (Err(e), _, _) | (_, Err(e), _) | (_, _, Err(e)) => return usage(&e),
    };
    let gate = match gate_of(&args, &checks::ids()) {
        Ok(gate) => gate,
        Err(e) => return usage(&e),
    };
    let sut_behaviors = match args
        .sut_behaviors
        .as_deref()
        .map(SutBehaviors::read)
        .transpose()
    {
        Ok(file) => file.map(std::sync::Arc::new),
        Err(e) => return usage(&format!("--sut-behaviors {e}")),
    };
    // Every report is checked before the first request: an unwritable path costs no run.
    let reports = match cli::write::wanted(&args).and_then(|w| cli::write::check(&w).map(|()| w)) {
        Ok(reports) => reports,
        Err(e) => return usage(&e),
    };
    if let Some(Err(e)) = args.acts_report.as_deref().map(cli::write::check_acts) {
        return usage(&e);
    }
    // The agent's other configurations (--configuration, --plan), read before any request.
    let configurations = match cli::configurations::wanted(&args.configurations) {
        Ok(configurations) => configurations,
        Err(e) => return usage(&e),
    };
    let runtime = match runtime() {
        Ok(runtime) => runtime,
        Err(code) => return code,
    };
    runtime.block_on(async move {
        // The builtin profile, authenticated: the kit holds both principals' tokens.
        let mut config = builtin::profile();
        config.faults.extend(args.fault.iter().copied());
        config.tls = args.tls;
        let credentials_of_builtin = builtin.then(|| builtin::authenticated(&mut config));
        // The built-in agent: on a SQLite file, restarted in-process, under --durability.
        let started = match (builtin, args.durability) {
            (false, _) => Ok((None, None)),
            (true, true) => a2a_tck::durability::BuiltinDurable::start(config)
                .await
                .map(|agent| (Some(agent), None)),
            (true, false) => builtin::start_with(config)
                .await
                .map(|agent| (None, Some(agent))),
        };
        let (durable_agent, agent) = match started {
            Ok(agents) => agents,
            Err(e) => {
                return usage(&format!(
                    "failed to start the built-in reference agent: {e}"
                ))
            }
        };
        let target = agent
            .as_ref()
            .map(|a| a.base_url())
            .or_else(|| durable_agent.as_ref().map(|a| a.base_url()))
            .unwrap_or_else(|| given_target.clone());
        let served = (agent.as_ref().map(|a| a.served_card_url()))
            .or_else(|| durable_agent.as_ref().map(|a| a.served_card_url()));
        let card_url = match cli::card_url_of(args.card_url.as_ref(), served, &target) {
            Ok(url) => url,
            Err(e) => return usage(&e),
        };
        let mut options = RunOptions::new(&target, &card_url);
        options.builtin = builtin;
        options.filter = filter(&args.selection);
        options.assume_version = args
            .assume_version
            .map(a2a_tck::check::ProtocolVersion::from);
        options.spec_revision = args.spec_revision.unwrap_or_default();
        options.limits.request_timeout = request_timeout;
        options.limits.stream_wait = stream_wait;
        options.check_timeout = check_timeout;
        options.jobs = match args.jobs {
            Some(jobs) => usize::from(jobs),
            None if builtin => options.jobs,
            None => a2a_tck::runner::TARGET_JOBS,
        };
        options.contract = args.contract.map(Contract::from);
        if let Some(path) = &args.drive {
            match a2a_tck::drive::Drive::read(path) {
                Ok(drive) => options.drive = Some(std::sync::Arc::new(drive)),
                Err(e) => return usage(&format!("--drive {e}")),
            }
        }
        options.sut_behaviors = sut_behaviors;
        options.undeclared = args.undeclared.into();
        options.headers = headers;
        match ca_certs(&args.ca_certs) {
            Ok(pems) => options.ca_certs.extend(pems),
            Err(e) => return usage(&e),
        }
        // The built-in agent under --tls: trust the CA it made.
        let ca_pem = (agent.as_ref().and_then(|a| a.ca_pem()))
            .or_else(|| durable_agent.as_ref().and_then(|a| a.ca_pem()));
        if let Some(pem) = ca_pem {
            options.ca_certs.push(pem.as_bytes().to_vec());
        }
        options.durability = match (&durable_agent, &args.restart_cmd) {
            (Some(agent), _) => Some(agent.durability(ready_timeout)),
            (None, Some(command)) => Some(a2a_tck::durability::Durability::command(
                command,
                ready_timeout,
            )),
            (None, None) => None,
        };
        options.other_headers = other_headers;
        options.limited_headers = limited_headers;
        match credentials(&args) {
            Ok(principals) => {
                options.headers.extend(principals.mine);
                options.other_headers.extend(principals.other);
                options.limited_headers.extend(principals.limited);
            }
            Err(e) => return usage(&e),
        }
        if let Some(credentials) = credentials_of_builtin {
            options.use_credentials(credentials);
        }
        options.webhook = a2a_tck::webhook::WebhookOptions {
            url: args.webhook_url.clone(),
            listen: args.webhook_listen,
        };
        match trusted_keys(&args.trusted_keys) {
            Ok(keys) => options.trusted_keys.extend(keys),
            Err(e) => return usage(&e),
        }
        // SIGINT/SIGTERM from here on: no new check, a grace for those in flight, then the
        // reports of what was judged; a second signal ends the kit at once.
        let signals = tokio::spawn(interrupts(Signals::listen(), options.stop.clone()));
        let bar = (!args.quiet).then(progress_bar).flatten();
        options.progress = bar.as_ref().map(|(_, progress)| progress.clone());
        let catalog = checks::all();
        let started_at = SystemTime::now();
        let outcome = runner::run(&catalog, &options).await;
        if let Some((bar, _)) = bar {
            bar.finish_and_clear();
        }
        if let Some(agent) = agent {
            agent.shutdown().await;
        }
        if let Some(agent) = durable_agent {
            agent.shutdown().await;
        }
        let mut report = match outcome {
            Ok(report) => report,
            // Nothing could be tested, but the reports still say why, with the card exchange.
            Err(RunError::Card { error, evidence }) => {
                eprintln!("error: {error}");
                let message = error.to_string();
                failure::card_unusable(&catalog, &options, started_at, message, evidence)
            }
            Err(RunError::Interrupted) => failure::interrupted(&catalog, &options, started_at),
            Err(e) => return usage(&e.to_string()),
        };
        // What the other configurations judged of what this run left unjudged: one report.
        report =
            cli::configurations::test_and_merge(&catalog, report, &configurations, &options, &args)
                .await;
        report.cap_evidence();
        // A signal after the last check still makes an interrupted run (exit 130/143).
        if interrupted_by().is_some() {
            report.mark_interrupted();
        }
        let code = finish(report, &gate, &args, &reports);
        signals.abort();
        code
    })
}

/// The async runtime of a run; a usage error when it cannot start.
fn runtime() -> Result<tokio::runtime::Runtime, ExitCode> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| usage(&format!("failed to start the async runtime: {e}")))
}

/// The PEM files of `--ca-cert`, each holding at least one certificate.
fn ca_certs(paths: &[std::path::PathBuf]) -> Result<Vec<Vec<u8>>, String> {
    paths
        .iter()
        .map(|path| {
            let pem = std::fs::read(path).map_err(|e| e.to_string());
            pem.and_then(|pem| a2a_tck::wire::ca_certificates(&pem).map(|_| pem))
                .map_err(|e| format!("--ca-cert {}: {e}", path.display()))
        })
        .collect()
}

/// The keys of every `--trusted-key` file (a JWK or a JWK set each).
fn trusted_keys(paths: &[std::path::PathBuf]) -> Result<Vec<serde_json::Value>, String> {
    let mut keys = Vec::new();
    for path in paths {
        let text = std::fs::read_to_string(path);
        let read = text.map_err(|e| e.to_string());
        match read.and_then(|text| a2a_tck::jws::trusted_keys(&text)) {
            Ok(found) => keys.extend(found),
            Err(e) => return Err(format!("--trusted-key {}: {e}", path.display())),
        }
    }
    Ok(keys)
}

/// `a2a-tck card FILE|URL`: the card checks on a card, without the agent.
fn card_command(args: CardArgs) -> ExitCode {
    let CardArgs { source, run: args } = args;
    let source_kind = match a2a_tck::card_only::CardSource::parse(&source) {
        Ok(kind) => kind,
        Err(e) => return usage(&e),
    };
    let agent_only = [
        (args.target.is_some(), "--target"),
        (args.card_url.is_some(), "--card-url"),
        (!args.fault.is_empty(), "--fault"),
        (
            args.spec_revision.is_some(),
            "--spec-revision (the card checks judge no sentence the revisions word differently)",
        ),
        (args.tls, "--tls"),
        (args.durability, "--durability"),
        (args.restart_cmd.is_some(), "--restart-cmd"),
        (args.contract.is_some(), "--contract"),
        (args.drive.is_some(), "--drive"),
        (args.sut_behaviors.is_some(), "--sut-behaviors"),
        (args.acts_report.is_some(), "--acts-report"),
        (!args.selection.bindings.is_empty(), "--binding"),
        (!args.selection.versions.is_empty(), "--protocol-version"),
        (args.webhook_url.is_some(), "--webhook-url"),
        (args.webhook_listen.is_some(), "--webhook-listen"),
        (
            !args.other_headers.is_empty() || args.other_bearer.is_some(),
            "--other-*",
        ),
        (
            !args.limited_headers.is_empty() || args.limited_bearer.is_some(),
            "--limited-*",
        ),
        (args.configurations.given(), "--configuration, --plan"),
    ];
    if let Some((_, flag)) = agent_only.iter().find(|(given, _)| *given) {
        return usage(&format!(
            "{flag} applies to a run against an agent; `a2a-tck card` reads the card it is given"
        ));
    }
    let headers = match user_headers(&args.headers, "--header") {
        Ok(headers) => headers,
        Err(e) => return usage(&e),
    };
    let (request_timeout, check_timeout) = match (
        seconds(args.timeout, "--timeout"),
        seconds(args.check_timeout, "--check-timeout"),
    ) {
        (Ok(r), Ok(c)) => (r, c),
        (Err(e), _) | (_, Err(e)) => return usage(&e),
    };
    let gate = match gate_of(&args, &checks::ids()) {
        Ok(gate) => gate,
        Err(e) => return usage(&e),
    };
    // Every report is checked before the card is read.
    let reports = match cli::write::wanted(&args).and_then(|w| cli::write::check(&w).map(|()| w)) {
        Ok(reports) => reports,
        Err(e) => return usage(&e),
    };
    let mut options = RunOptions::new(&source, &source);
    options.filter = filter(&args.selection);
    options.assume_version = args
        .assume_version
        .map(a2a_tck::check::ProtocolVersion::from);
    options.limits.request_timeout = request_timeout;
    options.check_timeout = check_timeout;
    options.jobs = args.jobs.map_or(a2a_tck::runner::TARGET_JOBS, usize::from);
    options.headers = headers;
    match credentials(&args) {
        Ok(principals) => options.headers.extend(principals.mine),
        Err(e) => return usage(&e),
    }
    match ca_certs(&args.ca_certs) {
        Ok(pems) => options.ca_certs.extend(pems),
        Err(e) => return usage(&e),
    }
    match trusted_keys(&args.trusted_keys) {
        Ok(keys) => options.trusted_keys.extend(keys),
        Err(e) => return usage(&e),
    }
    let runtime = match runtime() {
        Ok(runtime) => runtime,
        Err(code) => return code,
    };
    runtime.block_on(async move {
        let catalog = checks::all();
        let started_at = SystemTime::now();
        let mut report = match a2a_tck::card_only::run(&catalog, &options, &source_kind).await {
            Ok(report) => report,
            Err(RunError::Card { error, evidence }) => {
                eprintln!("error: {error}");
                let message = error.to_string();
                failure::card_unusable(&catalog, &options, started_at, message, evidence)
            }
            Err(e) => return usage(&e.to_string()),
        };
        report.cap_evidence();
        finish(report, &gate, &args, &reports)
    })
}

/// The exit status of the signal that stopped the run (130 for SIGINT, 143 for SIGTERM), if
/// one did.
static INTERRUPTED_BY: std::sync::atomic::AtomicU8 = std::sync::atomic::AtomicU8::new(0);

fn interrupted_by() -> Option<u8> {
    Some(INTERRUPTED_BY.load(std::sync::atomic::Ordering::SeqCst)).filter(|code| *code != 0)
}

/// Waits for SIGINT or SIGTERM: the first stops the run, the second ends the kit at once with
/// the first one's status.
async fn interrupts(mut signals: Signals, stop: a2a_tck::stop::Stop) {
    let mut first = true;
    loop {
        let Some((name, code)) = signals.next().await else {
            return;
        };
        let code = match INTERRUPTED_BY.compare_exchange(
            0,
            code,
            std::sync::atomic::Ordering::SeqCst,
            std::sync::atomic::Ordering::SeqCst,
        ) {
            Ok(_) => code,
            Err(earlier) => earlier,
        };
        if !first {
            eprintln!("{name} again: stopping at once, without reports");
            std::process::exit(i32::from(code));
        }
        first = false;
        eprintln!(
            "{name}: no new check starts; those running get {} s, then the reports are \
             written (send it again to stop at once)",
            a2a_tck::stop::GRACE.as_secs()
        );
        stop.stop();
    }
}

/// Listens for SIGINT and SIGTERM from now on (inside the runtime): the first stops `stop`,
/// the second ends the kit at once.
fn on_signals(stop: a2a_tck::stop::Stop) -> tokio::task::JoinHandle<()> {
    tokio::spawn(interrupts(Signals::listen(), stop))
}

/// The gate of a run (`--expect`, `--allow-unreviewed`, `--min-judged`), its baseline checked
/// against `known_ids`; the notes it has before the run are told on standard error.
fn gate_of(args: &RunArgs, known_ids: &[&str]) -> Result<Gate, String> {
    let gate = Gate::load(
        args.expect.as_deref(),
        args.min_judged,
        args.allow_unreviewed,
        known_ids,
    )?;
    for note in gate.notes() {
        eprintln!("note: {note}");
    }
    Ok(gate)
}

/// Applies the gate, writes every report asked for, prints the summary (on standard error
/// when a report goes to standard output), and gives the exit status: the signal's when one
/// stopped the run, 2 when a report could not be written, else the gate's.
fn finish(
    mut report: Report,
    gate: &Gate,
    args: &RunArgs,
    reports: &[cli::write::Wanted],
) -> ExitCode {
    for note in gate.apply(&mut report) {
        eprintln!("note: {note}");
    }
    let report = &report;
    // SARIF locates the results a baseline expects in the baseline file.
    let mut failed = cli::write::write(report, reports, gate.baseline_text());
    let to_stderr = cli::write::to_stdout(reports);
    // Each result names its configuration (none: the default one).
    let acts_lines =
        match cli::write::write_acts(report, args, &a2a_tck::acts_report::own_configuration) {
            Ok(lines) => lines,
            Err(e) => {
                failed.push(e);
                Vec::new()
            }
        };
    let mut summary = if args.quiet {
        let mut text = format!(
            "verdict: {} ({})\n",
            report.verdict_words(),
            report.verdict_reason
        );
        if let Some(floor) = &report.floor {
            let result = if floor.passed { "PASS" } else { "FAIL" };
            text.push_str(&format!("floor: {result} ({})\n", floor.reason));
        }
        if let Some(gate) = &report.baseline {
            let result = if gate.passed { "PASS" } else { "FAIL" };
            text.push_str(&format!("gate: {result} ({})\n", gate.reason));
        }
        text
    } else {
        let options = output::SummaryOptions {
            verbose: args.verbose,
        };
        output::summary_with(report, options)
    };
    if !args.quiet {
        let written: Vec<(&str, std::path::PathBuf)> = (reports.iter())
            .filter(|w| !failed.iter().any(|f| f.contains(w.flag)))
            .filter_map(|w| match &w.destination {
                a2a_tck::destination::Destination::Path(path) => Some((w.label(), path.clone())),
                a2a_tck::destination::Destination::Stdout => None,
            })
            .collect();
        let written: Vec<(&str, &std::path::Path)> =
            (written.iter()).map(|(k, p)| (*k, p.as_path())).collect();
        if let Some(line) = output::written_line(&written) {
            summary.push_str(&line);
            summary.push('\n');
        }
    }
    for line in &acts_lines {
        summary.push_str(line);
        summary.push('\n');
    }
    cli::write::say(&summary, to_stderr);
    for line in &failed {
        eprintln!("error: {line}");
    }
    if let Some(code) = interrupted_by() {
        return ExitCode::from(code);
    }
    if !failed.is_empty() {
        return ExitCode::from(a2a_tck::gate::EXIT_KIT);
    }
    ExitCode::from(gate.exit_status(report))
}

/// The first flag of an agent run that `a2a-tck client` was given and would not use: it
/// refuses it rather than ignore it. A flag with a default counts as given when its value is
/// not the default.
fn unused_by_client(args: &RunArgs) -> Option<&'static str> {
    let unused = [
        (args.assume_version.is_some(), "--assume-version"),
        (args.timeout != 10.0, "--timeout"),
        (args.check_timeout != 30.0, "--check-timeout"),
        (args.stream_wait != 5.0, "--stream-wait"),
        (args.jobs.is_some(), "--jobs"),
        (args.contract.is_some(), "--contract"),
        (args.drive.is_some(), "--drive"),
        (!args.headers.is_empty(), "--header"),
        (args.bearer.is_some(), "--bearer"),
        (args.bearer_env.is_some(), "--bearer-env"),
        (args.other_bearer.is_some(), "--other-bearer"),
        (args.other_bearer_env.is_some(), "--other-bearer-env"),
        (!args.other_headers.is_empty(), "--other-header"),
        (args.limited_bearer.is_some(), "--limited-bearer"),
        (args.limited_bearer_env.is_some(), "--limited-bearer-env"),
        (!args.limited_headers.is_empty(), "--limited-header"),
        (!args.trusted_keys.is_empty(), "--trusted-key"),
        (!args.ca_certs.is_empty(), "--ca-cert"),
        (args.tls, "--tls"),
        (args.webhook_url.is_some(), "--webhook-url"),
        (args.webhook_listen.is_some(), "--webhook-listen"),
        (args.restart_cmd.is_some(), "--restart-cmd"),
        (args.ready_timeout != 30.0, "--ready-timeout"),
        (args.durability, "--durability"),
    ];
    unused
        .iter()
        .find(|(given, _)| *given)
        .map(|(_, flag)| *flag)
}

/// `a2a-tck client`: the client under test through every play; the same reports and exit
/// status as a run on an agent.
fn client_command(args: ClientArgs) -> ExitCode {
    use a2a_tck::adapter::Client;
    use a2a_tck::reference_client::ClientFault;
    if args.list_client_faults {
        for fault in ClientFault::ALL {
            stdout(format_args!("{:<32} {}\n", fault.name(), fault.describe()));
        }
        return ExitCode::SUCCESS;
    }
    if args.run.sut_behaviors.is_some() || args.run.acts_report.is_some() {
        return usage(
            "--sut-behaviors and --acts-report apply to a run against an agent, not to \
             a2a-tck client",
        );
    }
    let agent_flags = args.run.target.is_some() || args.run.card_url.is_some();
    if agent_flags || !args.run.fault.is_empty() || args.run.configurations.given() {
        return usage(
            "a2a-tck client judges a client, not an agent: give the client with --cmd \
             (or none, for the reference client, with --client-fault to break it)",
        );
    }
    if let Some(flag) = unused_by_client(&args.run) {
        return usage(&format!(
            "{flag} applies to a run against an agent; `a2a-tck client` does not use it \
             (its plays serve their own agents)"
        ));
    }
    let scenario_timeout = match seconds(args.scenario_timeout, "--scenario-timeout") {
        Ok(d) => d,
        Err(e) => return usage(&e),
    };
    let ids: Vec<&str> = (a2a_tck::plays::table().checks.iter())
        .map(|c| c.id.as_str())
        .collect();
    let gate = match gate_of(&args.run, &ids) {
        Ok(gate) => gate,
        Err(e) => return usage(&e),
    };
    let reports =
        match cli::write::wanted(&args.run).and_then(|w| cli::write::check(&w).map(|()| w)) {
            Ok(reports) => reports,
            Err(e) => return usage(&e),
        };
    let runtime = match runtime() {
        Ok(runtime) => runtime,
        Err(code) => return code,
    };
    let options = a2a_tck::client_runner::ClientOptions {
        client: match &args.command {
            Some(command) => Client::Command(command.clone()),
            None => Client::Reference(args.client_faults.clone()),
        },
        scenario_timeout,
        filter: filter(&args.run.selection),
    };
    let mut report = runtime.block_on(a2a_tck::client_runner::run(&options));
    report.cap_evidence();
    finish(report, &gate, &args.run, &reports)
}

/// `a2a-tck schemas`: prints or writes the wire schemas.
fn wire_schemas(dir: Option<&std::path::Path>) -> ExitCode {
    use a2a_tck::model::ProtocolVersion;
    match dir {
        None => {
            for version in [ProtocolVersion::V1_0, ProtocolVersion::V0_3] {
                print!("{}", a2a_tck::shapes::schema_text(version));
            }
            ExitCode::SUCCESS
        }
        Some(dir) => match a2a_tck::shapes::write(dir) {
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
