//! `a2a-tck explore`: the command of an exploration (or a replay of its cases), its report
//! and its exit status.

use std::process::ExitCode;

use a2a_tck::facts::destination::Destination;
use a2a_tck::run::explore::{self, CaseFile, Exploration, ExploreOptions};
use a2a_tck::run::runner::{RunError, RunOptions};
use a2a_tck::{exchange::card, run::builtin};

use crate::cli::command_session::{interrupted_by, on_signals};
use crate::cli::flags::{ca_certs, credentials, filter, seconds, user_headers};
use crate::cli::ExploreArgs;
use crate::{runtime, usage};

/// Runs the exploration `args` ask for: 0 when no invariant broke, 1 when one did, 2 for a
/// usage error or an unusable card; 130 or 143 when a signal stopped it (the report is still
/// written).
pub(crate) fn run(args: ExploreArgs) -> ExitCode {
    let ExploreArgs {
        seed,
        sequences,
        steps,
        max_requests,
        time,
        replay,
        run: args,
    } = args;
    let not_here = [
        (args.junit.is_some(), "--junit"),
        (args.markdown.is_some(), "--markdown"),
        (args.html.is_some(), "--html"),
        (args.sarif.is_some(), "--sarif"),
        (args.expect.is_some(), "--expect"),
        (args.min_judged.is_some(), "--min-judged"),
        (!args.selection.select.is_empty(), "--select"),
        (args.jobs.is_some(), "--jobs"),
        (args.durability, "--durability"),
        (args.restart_cmd.is_some(), "--restart-cmd"),
        (!args.trusted_keys.is_empty(), "--trusted-key"),
        (args.spec_revision.is_some(), "--spec-revision"),
        (
            !args.other_headers.is_empty()
                || args.other_bearer.is_some()
                || args.other_bearer_env.is_some(),
            "--other-*",
        ),
        (
            !args.limited_headers.is_empty()
                || args.limited_bearer.is_some()
                || args.limited_bearer_env.is_some(),
            "--limited-*",
        ),
        (args.verbose, "--verbose"),
        (args.configurations.given(), "--configuration, --plan"),
    ];
    if let Some((_, flag)) = not_here.iter().find(|(given, _)| *given) {
        return usage(&format!(
            "{flag} applies to a run of the checks; `a2a-tck explore` writes its own report \
             (--report)"
        ));
    }
    let given_target = match (&args.target, &args.card_url) {
        (Some(target), Some(_)) if target == "builtin" => {
            return usage("--card-url reads another agent's card: give --target URL")
        }
        (Some(target), _) => target.clone(),
        (None, Some(card_url)) => match card::card_url_for(card_url) {
            Ok(_) => card_url.clone(),
            Err(e) => return usage(&format!("--card-url: {e}")),
        },
        (None, None) => "builtin".to_string(),
    };
    let builtin = given_target == "builtin";
    if !builtin && (!args.fault.is_empty() || args.tls) {
        return usage(
            "--fault and --tls apply to the built-in reference agent only (--target builtin)",
        );
    }
    let headers = match user_headers(&args.headers, "--header") {
        Ok(headers) => headers,
        Err(e) => return usage(&e),
    };
    let (request_timeout, stream_wait) = match (
        seconds(args.timeout, "--timeout"),
        seconds(args.stream_wait, "--stream-wait"),
    ) {
        (Ok(r), Ok(w)) => (r, w),
        (Err(e), _) | (_, Err(e)) => return usage(&e),
    };
    let report = match args.report.as_deref().map(Destination::parse).transpose() {
        Ok(report) => report,
        Err(e) => return usage(&format!("--report: {e}")),
    };
    if let Some(Err(e)) = report.as_ref().map(Destination::check) {
        return usage(&format!("--report: cannot be written: {e}"));
    }
    let cases = match &replay {
        None => None,
        Some(path) => match std::fs::read_to_string(path)
            .map_err(|e| e.to_string())
            .and_then(|text| CaseFile::read(&text))
        {
            Ok(cases) => Some(cases),
            Err(e) => return usage(&format!("--replay {}: {e}", path.display())),
        },
    };
    // A replay plays its cases' own seed; it is shown, not used.
    let seed = match (seed, &cases) {
        (Some(seed), _) => seed,
        (None, Some(cases)) => cases[0].seed,
        (None, None) => explore::random_seed(),
    };
    let to_stderr = report == Some(Destination::Stdout);
    if cases.is_none() && !args.quiet {
        crate::cli::write::say(
            &format!("exploring with seed {seed} (--seed {seed} sends the same sequences again)\n"),
            to_stderr,
        );
    }
    let runtime = match runtime() {
        Ok(runtime) => runtime,
        Err(code) => return code,
    };
    runtime.block_on(async move {
        let mut config = builtin::profile();
        config.faults.extend(args.fault.iter().copied());
        config.tls = args.tls;
        let credentials_of_builtin = builtin.then(|| builtin::authenticated(&mut config));
        let agent = if builtin {
            match builtin::start_with(config).await {
                Ok(agent) => Some(agent),
                Err(e) => {
                    return usage(&format!(
                        "failed to start the built-in reference agent: {e}"
                    ))
                }
            }
        } else {
            None
        };
        let target = agent
            .as_ref()
            .map_or_else(|| given_target.clone(), |a| a.base_url());
        let served = agent.as_ref().map(|a| a.served_card_url());
        let card_url = match crate::cli::card_url_of(args.card_url.as_ref(), served, &target) {
            Ok(url) => url,
            Err(e) => return usage(&e),
        };
        let mut run = RunOptions::new(&target, &card_url);
        run.builtin = builtin;
        run.filter = filter(&args.selection);
        run.assume_version = args
            .assume_version
            .map(a2a_tck::suite::check::ProtocolVersion::from);
        run.limits.request_timeout = request_timeout;
        run.limits.stream_wait = stream_wait;
        run.contract = args.contract.map(Into::into);
        if let Some(path) = &args.drive {
            match a2a_tck::facts::drive::Drive::read(path) {
                Ok(drive) => run.drive = Some(std::sync::Arc::new(drive)),
                Err(e) => return usage(&format!("--drive {e}")),
            }
        }
        if let Some(path) = &args.sut_behaviors {
            match a2a_tck::facts::behaviors::SutBehaviors::read(path) {
                Ok(file) => run.sut_behaviors = Some(std::sync::Arc::new(file)),
                Err(e) => return usage(&format!("--sut-behaviors {e}")),
            }
            run.undeclared = args.undeclared.into();
        }
        run.headers = headers;
        match ca_certs(&args.ca_certs) {
            Ok(pems) => run.ca_certs.extend(pems),
            Err(e) => return usage(&e),
        }
        if let Some(pem) = agent.as_ref().and_then(|a| a.ca_pem()) {
            run.ca_certs.push(pem.as_bytes().to_vec());
        }
        match credentials(&args) {
            Ok(principals) => run.headers.extend(principals.mine),
            Err(e) => return usage(&e),
        }
        if let Some(credentials) = credentials_of_builtin {
            run.use_credentials(credentials);
        }
        run.webhook = a2a_tck::exchange::webhook::WebhookOptions {
            url: args.webhook_url.clone(),
            listen: args.webhook_listen,
        };
        let signals = on_signals(run.stop.clone());
        let mut options = ExploreOptions::new(run, seed);
        options.sequences = sequences;
        options.steps = usize::from(steps);
        options.max_requests = max_requests;
        options.time = time;
        let outcome = match &cases {
            Some(cases) => explore::replay(&options, cases).await,
            None => explore::explore(&options).await,
        };
        if let Some(agent) = agent {
            agent.shutdown().await;
        }
        signals.abort();
        let exploration = match outcome {
            Ok(exploration) => exploration,
            Err(RunError::Interrupted) => {
                eprintln!("interrupted before the first sequence: no report");
                return ExitCode::from(interrupted_by().unwrap_or(130));
            }
            Err(RunError::Card { error, .. }) => return usage(&format!("the agent card: {error}")),
            Err(e) => return usage(&e.to_string()),
        };
        finish(&exploration, report.as_ref(), args.quiet)
    })
}

/// Prints the summary (on standard error when the report goes to standard output), writes
/// the report, and gives the exit status.
fn finish(exploration: &Exploration, report: Option<&Destination>, quiet: bool) -> ExitCode {
    let to_stderr = report == Some(&Destination::Stdout);
    let summary = if quiet {
        let cases = exploration.violations.len();
        let seed = exploration.seed;
        match cases {
            0 => format!("seed {seed}: no invariant broke\n"),
            n => format!("seed {seed}: {n} invariant(s) broke\n"),
        }
    } else {
        explore::summary(exploration)
    };
    crate::cli::write::say(&summary, to_stderr);
    if let Some(destination) = report {
        let written = serde_json::to_string_pretty(exploration)
            .map_err(|e| e.to_string())
            .and_then(|text| {
                (destination.write(format!("{text}\n").as_bytes())).map_err(|e| e.to_string())
            });
        match written {
            Ok(()) if !quiet && !to_stderr => {
                crate::cli::write::say(&format!("report: {}\n", destination.shown()), false)
            }
            Ok(()) => {}
            Err(e) => {
                eprintln!("error: failed to write {}: {e}", destination.shown());
                return ExitCode::from(2);
            }
        }
    }
    if let Some(code) = interrupted_by() {
        return ExitCode::from(code);
    }
    if exploration.broke() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
