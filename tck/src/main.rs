//! The `a2a-tck` command line: a thin layer over the library.

use std::process::ExitCode;
use std::time::{Duration, SystemTime};

use a2a_tck::baseline::Baseline;
use a2a_tck::contract::Contract;
use a2a_tck::report::{Report, Verdict};
use a2a_tck::runner::{self, Filter, RunError, RunOptions};
use a2a_tck::{builtin, card, checks, failure, html, output, report};
use clap::Parser;

mod cli;
use cli::{CardArgs, Cli, Command, RunArgs, Selection};
mod cli_catalog;
mod cli_reports;
use cli_reports::{coverage, diff, progress_bar, write_baseline};

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
        Some(Command::Card(args)) => card_command(*args),
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
        options.jobs = match args.jobs {
            Some(jobs) => jobs,
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
        options.headers = headers;
        for path in &args.ca_certs {
            match std::fs::read(path) {
                Ok(pem) => options.ca_certs.push(pem),
                Err(e) => return usage(&format!("--ca-cert {}: {e}", path.display())),
            }
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
        (args.tls, "--tls"),
        (args.durability, "--durability"),
        (args.restart_cmd.is_some(), "--restart-cmd"),
        (args.contract.is_some(), "--contract"),
        (args.drive.is_some(), "--drive"),
        (!args.selection.bindings.is_empty(), "--binding"),
        (!args.selection.versions.is_empty(), "--version"),
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
    let baseline = match args.expect.as_deref().map(Baseline::load).transpose() {
        Ok(baseline) => baseline,
        Err(e) => return usage(&e),
    };
    let mut options = RunOptions::new(&source, &source);
    options.filter = filter(&args.selection);
    options.limits.request_timeout = request_timeout;
    options.check_timeout = check_timeout;
    options.jobs = args.jobs.unwrap_or(a2a_tck::runner::TARGET_JOBS);
    options.headers = headers;
    match credentials(&args) {
        Ok(principals) => options.headers.extend(principals.mine),
        Err(e) => return usage(&e),
    }
    for path in &args.ca_certs {
        match std::fs::read(path) {
            Ok(pem) => options.ca_certs.push(pem),
            Err(e) => return usage(&format!("--ca-cert {}: {e}", path.display())),
        }
    }
    for path in &args.trusted_keys {
        let keys = std::fs::read_to_string(path)
            .map_err(|e| e.to_string())
            .and_then(|text| a2a_tck::jws::trusted_keys(&text));
        match keys {
            Ok(keys) => options.trusted_keys.extend(keys),
            Err(e) => return usage(&format!("--trusted-key {}: {e}", path.display())),
        }
    }
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => return usage(&format!("failed to start the async runtime: {e}")),
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
    if let Some(path) = &args.sarif {
        let baseline_text = args
            .expect
            .as_deref()
            .and_then(|p| std::fs::read_to_string(p).ok());
        let log = a2a_tck::sarif::sarif(report, baseline_text.as_deref());
        if let Err(e) = report::write_atomic(path, log.as_bytes()) {
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
