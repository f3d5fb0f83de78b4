//! The `a2a-tck` command line: a thin layer over the library.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, SystemTime};

use a2a_reference_agent::Fault;
use a2a_tck::baseline::Baseline;
use a2a_tck::check::{Binding, Level, ProtocolVersion};
use a2a_tck::contract::Contract;
use a2a_tck::report::{Report, Verdict};
use a2a_tck::runner::{self, Filter, RunError, RunOptions};
use a2a_tck::{builtin, card, checks, failure, html, output, report};
use clap::{Args, Parser, Subcommand, ValueEnum};

mod cli_catalog;
mod cli_reports;
use cli_reports::{coverage, diff, progress_bar, write_baseline};

/// Conformance test kit for the Agent2Agent (A2A) protocol.
///
/// Reads the agent card, runs every applicable check on each declared interface, prints a
/// summary, and writes the reports asked for. Exit status: 0 when the agent is conformant
/// (or, with --expect, when the baseline's gate passes), 1 when a MUST check failed, a check
/// could not be judged or a baseline entry is stale, 2 for a usage error or an unusable agent
/// card (which still writes every report asked for, with verdict `error`).
#[derive(Debug, Parser)]
#[command(
    name = "a2a-tck",
    version,
    disable_version_flag = true,
    args_conflicts_with_subcommands = true
)]
struct Cli {
    /// Print the kit's version (`--version` selects protocol versions to test).
    #[arg(short = 'V', long = "kit-version", action = clap::ArgAction::Version)]
    kit_version: (),
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    run: RunArgs,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run the checks (the default).
    Run(Box<RunArgs>),
    /// List the checks: id, level, spec section, where it runs, requirement.
    List(ListArgs),
    /// Show one check: its requirement, level, spec sentences, reading and official TCK ids.
    Explain {
        /// The check id (see `a2a-tck list`).
        id: String,
    },
    /// Print the JSON Schema of the report format.
    Schema,
    /// Print the requirements registry's coverage: per level, the entries covered by checks,
    /// planned and untestable, and how many server-side MUST entries are covered.
    Coverage,
    /// Write a starting baseline from a report: every result that is not PASS or N/A, each
    /// with the reason "TODO: review". Review it, then run with --expect FILE.
    Baseline {
        /// A JSON report written with --report.
        report: PathBuf,
        /// Write it here (.toml or .yaml/.yml); default: TOML on stdout.
        #[arg(short, long, value_name = "FILE")]
        output: Option<PathBuf>,
    },
    /// Compare two JSON reports: regressions, fixes, new and removed results. Exits 1 on a
    /// regression.
    Diff {
        old: PathBuf,
        new: PathBuf,
        /// Print the comparison as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Print the A2A wire schemas (1.0, then 0.3) the kit validates received messages
    /// against, or write them into a directory (`--write schemas`).
    Schemas {
        /// Write `a2a-1.0.wire.schema.json` and `a2a-0.3.wire.schema.json` into DIR.
        #[arg(long, value_name = "DIR")]
        write: Option<PathBuf>,
    },
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum LevelArg {
    /// MUST checks only.
    Must,
    /// MUST and SHOULD checks.
    Should,
    /// Every check.
    May,
}

impl From<LevelArg> for Level {
    fn from(level: LevelArg) -> Level {
        match level {
            LevelArg::Must => Level::Must,
            LevelArg::Should => Level::Should,
            LevelArg::May => Level::May,
        }
    }
}

#[derive(Debug, Args)]
struct Selection {
    /// The weakest level selected: `must` selects MUST checks only, `may` all.
    #[arg(long, value_enum, default_value = "may")]
    level: LevelArg,
    /// Run only checks whose id matches this glob (repeatable), e.g. 'tasks.*'.
    #[arg(long = "select", value_name = "GLOB")]
    select: Vec<String>,
    /// Test only these bindings of the card's interfaces (comma-separated or repeated):
    /// jsonrpc, rest, grpc. Default: every binding the card declares.
    #[arg(
        long = "binding",
        value_name = "BINDING",
        value_enum,
        value_delimiter = ','
    )]
    bindings: Vec<BindingArg>,
    /// Test only these protocol versions of the card's interfaces (comma-separated or
    /// repeated): 0.3, 1.0. Default: every version the card declares.
    #[arg(
        long = "version",
        value_name = "VERSION",
        value_enum,
        value_delimiter = ','
    )]
    versions: Vec<VersionArg>,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum VersionArg {
    #[value(name = "0.3")]
    V0_3,
    #[value(name = "1.0")]
    V1_0,
}

impl From<VersionArg> for ProtocolVersion {
    fn from(version: VersionArg) -> ProtocolVersion {
        match version {
            VersionArg::V0_3 => ProtocolVersion::V0_3,
            VersionArg::V1_0 => ProtocolVersion::V1_0,
        }
    }
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum ContractArg {
    Official,
    Kit,
    None,
}

impl From<ContractArg> for Contract {
    fn from(value: ContractArg) -> Self {
        match value {
            ContractArg::Official => Contract::Official,
            ContractArg::Kit => Contract::Kit,
            ContractArg::None => Contract::None,
        }
    }
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum BindingArg {
    Jsonrpc,
    Rest,
    Grpc,
}

impl From<BindingArg> for Binding {
    fn from(binding: BindingArg) -> Binding {
        match binding {
            BindingArg::Jsonrpc => Binding::Jsonrpc,
            BindingArg::Rest => Binding::Rest,
            BindingArg::Grpc => Binding::Grpc,
        }
    }
}

#[derive(Debug, Args)]
struct RunArgs {
    /// The agent to test: its base URL, or `builtin` for the built-in reference agent.
    #[arg(long, value_name = "URL", default_value = "builtin")]
    target: String,
    /// Where to read the agent card (default: the target's origin + /.well-known/agent-card.json).
    #[arg(long, value_name = "URL")]
    card_url: Option<String>,
    /// Write the JSON report here.
    #[arg(long, value_name = "PATH")]
    report: Option<PathBuf>,
    /// Write a JUnit XML report here.
    #[arg(long, value_name = "PATH")]
    junit: Option<PathBuf>,
    /// Write a Markdown summary here (e.g. "$GITHUB_STEP_SUMMARY").
    #[arg(long, value_name = "PATH")]
    markdown: Option<PathBuf>,
    /// A reviewed baseline of expected results (.toml or .yaml): the results it expects do
    /// not fail the run, its stale entries do; the exit status follows its gate.
    #[arg(long, value_name = "FILE")]
    expect: Option<PathBuf>,
    /// Write a self-contained HTML report here (one file, no network needed to view it).
    #[arg(long, value_name = "PATH")]
    html: Option<PathBuf>,
    #[command(flatten)]
    selection: Selection,
    /// Deadline of one HTTP exchange, in seconds.
    #[arg(long, value_name = "SECS", default_value_t = 10.0)]
    timeout: f64,
    /// Deadline of one check, all its exchanges included, in seconds.
    #[arg(long, value_name = "SECS", default_value_t = 30.0)]
    check_timeout: f64,
    /// How long a stream may stay silent before the kit stops waiting for its next event, in
    /// seconds (a stream that should have closed is judged after this wait).
    #[arg(long, value_name = "SECS", default_value_t = 5.0)]
    stream_wait: f64,
    /// How many checks run at once.
    #[arg(long, value_name = "N", default_value_t = 16)]
    jobs: usize,
    /// The scenario contract the agent honours: `official` (the official TCK's messageId
    /// prefixes), `kit` (those and the kit's own), `none` (no scenario: the checks that need
    /// one are not run, and listed). Default: detected by a probe.
    #[arg(long, value_name = "CONTRACT")]
    contract: Option<ContractArg>,
    /// Send this header on every request, e.g. credentials: 'Authorization: Bearer <token>'
    /// (repeatable). Values never appear in reports.
    #[arg(long = "header", value_name = "NAME: VALUE", value_parser = parse_header)]
    headers: Vec<(String, String)>,
    /// Send `Authorization: Bearer TOKEN` on every request (redacted in every output).
    #[arg(long, value_name = "TOKEN")]
    bearer: Option<String>,
    /// Like --bearer, the token read from this environment variable (kept off the command
    /// line and out of shell history).
    #[arg(long, value_name = "VAR", conflicts_with = "bearer")]
    bearer_env: Option<String>,
    /// A second principal's bearer token, used only by the checks that one principal cannot
    /// see another's tasks (redacted).
    #[arg(long, value_name = "TOKEN")]
    other_bearer: Option<String>,
    /// Like --other-bearer, the token read from this environment variable.
    #[arg(long, value_name = "VAR", conflicts_with = "other_bearer")]
    other_bearer_env: Option<String>,
    /// A second principal's header, for agents whose credentials are not bearer tokens:
    /// 'X-API-Key: <key>' (repeatable; redacted).
    #[arg(long = "other-header", value_name = "NAME: VALUE", value_parser = parse_header)]
    other_headers: Vec<(String, String)>,
    /// A public key trusted for the card's signatures: a file holding a JWK or a JWK Set
    /// (repeatable); used besides the key set the signature's `jku` names.
    #[arg(long = "trusted-key", value_name = "FILE")]
    trusted_keys: Vec<std::path::PathBuf>,
    /// Break a named rule in the built-in reference agent (repeatable; builtin target only).
    #[arg(long, value_name = "NAME")]
    fault: Vec<Fault>,
    /// Trust this CA certificate (PEM file) besides the system's, for an https target with a
    /// private CA (repeatable).
    #[arg(long = "ca-cert", value_name = "FILE")]
    ca_certs: Vec<std::path::PathBuf>,
    /// Serve the built-in reference agent over TLS (a private CA made at start, which the kit
    /// then trusts), so the tls.* checks run (builtin target only).
    #[arg(long)]
    tls: bool,
    /// The URL the agent must call for push notifications when it cannot reach the kit on
    /// 127.0.0.1 (it runs in a container or on another host), e.g.
    /// http://host.docker.internal:8099/hooks; the kit's receiver then listens on 0.0.0.0 at
    /// the URL's port (or at --webhook-listen). Default: an ephemeral port on 127.0.0.1.
    #[arg(long, value_name = "URL")]
    webhook_url: Option<String>,
    /// The address the kit's webhook receiver binds, e.g. 0.0.0.0:8099 (default: 127.0.0.1
    /// on an ephemeral port, or 0.0.0.0 on the port of --webhook-url).
    #[arg(long, value_name = "ADDR")]
    webhook_listen: Option<std::net::SocketAddr>,
    /// Print only the verdict line.
    #[arg(long, short)]
    quiet: bool,
    // --- durability (restart the target in the middle of the run) ---
    /// A shell command that restarts the target (run with `sh -c` in the middle of the run; it
    /// must exit 0 once the old process has stopped). Runs the durability.* checks.
    #[arg(long, value_name = "CMD")]
    restart_cmd: Option<String>,
    /// How long the restart and the agent answering its card again may take, in seconds.
    #[arg(long, value_name = "SECS", default_value_t = 30.0)]
    ready_timeout: f64,
    /// Run the durability.* checks against the built-in agent: it keeps its tasks in a SQLite
    /// file in a temporary directory and is restarted in-process in the middle of the run.
    #[arg(long)]
    durability: bool,
}

#[derive(Debug, Args)]
struct ListArgs {
    #[command(flatten)]
    selection: Selection,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Some(Command::List(args)) => cli_catalog::list(&filter(&args.selection))
            .map_or_else(|e| usage(&e), |()| ExitCode::SUCCESS),
        Some(Command::Explain { id }) => {
            cli_catalog::explain(&id).map_or_else(|e| usage(&e), |()| ExitCode::SUCCESS)
        }
        Some(Command::Schema) => {
            print!("{}", Report::schema());
            ExitCode::SUCCESS
        }
        Some(Command::Coverage) => coverage(),
        Some(Command::Baseline { report, output }) => write_baseline(&report, output.as_deref()),
        Some(Command::Diff { old, new, json }) => diff(&old, &new, json),
        Some(Command::Run(args)) => run(*args),
        Some(Command::Schemas { write }) => wire_schemas(write.as_deref()),
        None => run(cli.run),
    }
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

/// The bearer credentials of `--bearer`/`--bearer-env` and `--other-bearer`/
/// `--other-bearer-env`, as headers.
#[allow(clippy::type_complexity)]
fn credentials(args: &RunArgs) -> Result<(Vec<(String, String)>, Vec<(String, String)>), String> {
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
    Ok((
        header(token(&args.bearer, &args.bearer_env, "--bearer-env")?)?,
        header(token(
            &args.other_bearer,
            &args.other_bearer_env,
            "--other-bearer-env",
        )?)?,
    ))
}

fn parse_header(text: &str) -> Result<(String, String), String> {
    let (name, value) = text
        .split_once(':')
        .ok_or_else(|| format!("expected 'Name: value', got {text:?}"))?;
    let (name, value) = (name.trim(), value.trim());
    reqwest::header::HeaderName::from_bytes(name.as_bytes())
        .map_err(|e| format!("bad header name {name:?}: {e}"))?;
    reqwest::header::HeaderValue::from_str(value)
        .map_err(|e| format!("bad value for header {name}: {e}"))?;
    Ok((name.to_string(), value.to_string()))
}

fn seconds(value: f64, flag: &str) -> Result<Duration, String> {
    Duration::try_from_secs_f64(value)
        .ok()
        .filter(|d| !d.is_zero())
        .ok_or_else(|| format!("{flag} must be a positive number of seconds"))
}

fn run(args: RunArgs) -> ExitCode {
    let builtin = args.target == "builtin";
    if !builtin && !args.fault.is_empty() {
        return usage("--fault applies to the built-in reference agent only (--target builtin)");
    }
    if !builtin && args.tls {
        return usage("--tls applies to the built-in reference agent only (--target builtin)");
    }
    if let Some(e) = a2a_tck::durability::misused(builtin, args.durability, &args.restart_cmd) {
        return usage(e);
    }
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
    let baseline = match args.expect.as_deref().map(Baseline::load).transpose() {
        Ok(baseline) => baseline,
        Err(e) => return usage(&e),
    };
    if let Some(unreviewed) = baseline
        .as_ref()
        .map(Baseline::unreviewed)
        .filter(|n| *n > 0)
    {
        eprintln!("note: {unreviewed} baseline entries still give a TODO as their reason");
    }
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => return usage(&format!("failed to start the async runtime: {e}")),
    };
    runtime.block_on(async move {
        // The builtin profile, authenticated: the kit holds both principals' tokens.
        let mut config = builtin::profile();
        config.faults.extend(args.fault.iter().copied());
        config.tls = args.tls && !args.durability;
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
            .unwrap_or_else(|| args.target.clone());
        let served = (agent.as_ref().map(|a| a.served_card_url()))
            .or_else(|| durable_agent.as_ref().map(|a| a.served_card_url()));
        let card_url = match (&args.card_url, served) {
            (Some(url), _) => url.clone(),
            // A fault may move the card off the well-known path: read it where it is.
            (None, Some(served)) => served,
            (None, None) => match card::card_url_for(&target) {
                Ok(url) => url,
                Err(e) => return usage(&e.to_string()),
            },
        };
        let mut options = RunOptions::new(&target, &card_url);
        options.builtin = builtin;
        options.filter = filter(&args.selection);
        options.limits.request_timeout = request_timeout;
        options.limits.stream_wait = stream_wait;
        options.check_timeout = check_timeout;
        options.jobs = args.jobs;
        options.contract = args.contract.map(Contract::from);
        options.headers = args.headers.clone();
        for path in &args.ca_certs {
            match std::fs::read(path) {
                Ok(pem) => options.ca_certs.push(pem),
                Err(e) => return usage(&format!("--ca-cert {}: {e}", path.display())),
            }
        }
        // The built-in agent under --tls: trust the CA it made.
        if let Some(pem) = agent.as_ref().and_then(|a| a.ca_pem()) {
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
        options.other_headers = args.other_headers.clone();
        match credentials(&args) {
            Ok((mine, other)) => {
                options.headers.extend(mine);
                options.other_headers.extend(other);
            }
            Err(e) => return usage(&e),
        }
        if let Some(credentials) = credentials_of_builtin {
            credentials.apply(&mut options);
        }
        options.webhook = a2a_tck::webhook::WebhookOptions {
            url: args.webhook_url.clone(),
            listen: args.webhook_listen,
        };
        for path in &args.trusted_keys {
            let keys = std::fs::read_to_string(path)
                .map_err(|e| e.to_string())
                .and_then(|text| a2a_tck::jws::trusted_keys(&text));
            match keys {
                Ok(keys) => options.trusted_keys.extend(keys),
                Err(e) => return usage(&format!("--trusted-key {}: {e}", path.display())),
            }
        }
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
            Err(e) => return usage(&e.to_string()),
        };
        report.cap_evidence();
        if let (Some(baseline), Some(path)) = (&baseline, &args.expect) {
            match baseline.gate(&report, &path.display().to_string()) {
                Ok(gate) => report.baseline = Some(gate),
                Err(e) => return usage(&e),
            }
        }
        finish(&report, &args)
    })
}

fn finish(report: &Report, args: &RunArgs) -> ExitCode {
    if args.quiet {
        println!(
            "verdict: {} ({})",
            report.verdict.as_str(),
            report.verdict_reason
        );
        if let Some(gate) = &report.baseline {
            let result = if gate.passed { "PASS" } else { "FAIL" };
            println!("gate: {result} ({})", gate.reason);
        }
    } else {
        print!("{}", output::summary(report));
    }
    if let Some(path) = &args.report {
        if let Err(e) = report.write(path) {
            return usage(&format!("failed to write {}: {e}", path.display()));
        }
    }
    if let Some(path) = &args.markdown {
        if let Err(e) = report::write_atomic(path, output::markdown(report).as_bytes()) {
            return usage(&format!("failed to write {}: {e}", path.display()));
        }
    }
    if let Some(path) = &args.junit {
        let written = output::junit(report)
            .map_err(|e| e.to_string())
            .and_then(|xml| report::write_atomic(path, xml.as_bytes()).map_err(|e| e.to_string()));
        if let Err(e) = written {
            return usage(&format!("failed to write {}: {e}", path.display()));
        }
    }
    if let Some(path) = &args.html {
        if let Err(e) = report::write_atomic(path, html::page(report).as_bytes()) {
            return usage(&format!("failed to write {}: {e}", path.display()));
        }
    }
    if let Some(gate) = &report.baseline {
        return if gate.passed {
            ExitCode::SUCCESS
        } else {
            ExitCode::from(1)
        };
    }
    match report.verdict {
        Verdict::Conformant => ExitCode::SUCCESS,
        Verdict::NonConformant | Verdict::Inconclusive => ExitCode::from(1),
        Verdict::Error => ExitCode::from(2),
    }
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
