//! `a2a-tck card FILE|URL`: the card checks on a card, without the agent, through the
//! command's session.

use std::process::ExitCode;

use a2a_tck::run::runner::{RunError, RunOptions};
use a2a_tck::suite::checks;

use crate::cli::command_session::CommandSession;
use crate::cli::flags::{ca_certs, credentials, filter, seconds, trusted_keys, user_headers};
use crate::cli::CardArgs;
use crate::{runtime, usage};

/// `a2a-tck card FILE|URL`: the card checks on a card, without the agent.
pub fn run(args: CardArgs) -> ExitCode {
    let CardArgs { source, run: args } = args;
    let source_kind = match a2a_tck::run::card_only::CardSource::parse(&source) {
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
    // The gate, and every report checked before the card is read.
    let mut session = match CommandSession::start(&args, &checks::ids()) {
        Ok(session) => session,
        Err(e) => return usage(&e),
    };
    let mut options = RunOptions::new(&source, &source);
    options.filter = filter(&args.selection);
    options.assume_version = args
        .assume_version
        .map(a2a_tck::suite::check::ProtocolVersion::from);
    options.limits.request_timeout = request_timeout;
    options.check_timeout = check_timeout;
    options.jobs = args
        .jobs
        .map_or(a2a_tck::run::runner::TARGET_JOBS, usize::from);
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
        session.run.begin();
        let outcome = a2a_tck::run::card_only::run(&catalog, &options, &source_kind).await;
        if let Err(RunError::Card { error, .. }) = &outcome {
            eprintln!("error: {error}");
        }
        match session.run.report(&catalog, &options, outcome) {
            Ok(report) => session.finish(report, &args),
            Err(e) => usage(&e.to_string()),
        }
    })
}
