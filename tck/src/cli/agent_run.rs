//! The agent run (`a2a-tck`, `a2a-tck run`): its flags read and checked, the built-in agent
//! started when it is the target, every check run, the agent's other configurations tested,
//! and the run's end, all through the command's session.

use std::process::ExitCode;

use a2a_tck::facts::behaviors::SutBehaviors;
use a2a_tck::run::runner::{self, RunError, RunOptions};
use a2a_tck::run::session::BuiltinAgent;
use a2a_tck::suite::contract::Contract;
use a2a_tck::{exchange::card, run::builtin, suite::checks};

use crate::cli::command_session::CommandSession;
use crate::cli::flags::{ca_certs, credentials, filter, seconds, trusted_keys, user_headers};
use crate::cli::reports::progress_bar;
use crate::cli::RunArgs;
use crate::{runtime, usage};

/// Runs the checks on the agent `args` name; the exit status is the session's.
pub fn run(args: RunArgs) -> ExitCode {
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
    if let Some(e) = a2a_tck::run::durability::misused(builtin, args.durability, &args.restart_cmd)
    {
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
    // The gate, and every report checked before the first request.
    let mut session = match CommandSession::start(&args, &checks::ids()) {
        Ok(session) => session,
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
    // The agent's other configurations (--configuration, --plan), read before any request.
    let configurations = match crate::cli::configurations::wanted(&args.configurations) {
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
        let agent = match builtin {
            false => None,
            true => match BuiltinAgent::start(config, args.durability).await {
                Ok(agent) => Some(agent),
                Err(e) => {
                    return usage(&format!(
                        "failed to start the built-in reference agent: {e}"
                    ))
                }
            },
        };
        let target =
            (agent.as_ref().map(BuiltinAgent::base_url)).unwrap_or_else(|| given_target.clone());
        let served = agent.as_ref().map(BuiltinAgent::served_card_url);
        let card_url = match crate::cli::card_url_of(args.card_url.as_ref(), served, &target) {
            Ok(url) => url,
            Err(e) => return usage(&e),
        };
        let mut options = RunOptions::new(&target, &card_url);
        options.builtin = builtin;
        options.filter = filter(&args.selection);
        options.assume_version = args
            .assume_version
            .map(a2a_tck::suite::check::ProtocolVersion::from);
        options.spec_revision = args.spec_revision.unwrap_or_default();
        options.limits.request_timeout = request_timeout;
        options.limits.stream_wait = stream_wait;
        options.check_timeout = check_timeout;
        options.jobs = match args.jobs {
            Some(jobs) => usize::from(jobs),
            None if builtin => options.jobs,
            None => a2a_tck::run::runner::TARGET_JOBS,
        };
        options.contract = args.contract.map(Contract::from);
        if let Some(path) = &args.drive {
            match a2a_tck::facts::drive::Drive::read(path) {
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
        if let Some(pem) = agent.as_ref().and_then(BuiltinAgent::ca_pem) {
            options.ca_certs.push(pem.as_bytes().to_vec());
        }
        options.durability = match (&agent, &args.restart_cmd) {
            (Some(agent), _) => agent.durability(ready_timeout),
            (None, Some(command)) => Some(a2a_tck::run::durability::Durability::command(
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
        options.webhook = a2a_tck::exchange::webhook::WebhookOptions {
            url: args.webhook_url.clone(),
            listen: args.webhook_listen,
        };
        match trusted_keys(&args.trusted_keys) {
            Ok(keys) => options.trusted_keys.extend(keys),
            Err(e) => return usage(&e),
        }
        // SIGINT/SIGTERM from here on: no new check, a grace for those in flight, then the
        // reports of what was judged; a second signal ends the kit at once.
        session.listen(options.stop.clone());
        let bar = (!args.quiet).then(progress_bar).flatten();
        options.progress = bar.as_ref().map(|(_, progress)| progress.clone());
        let catalog = checks::all();
        session.run.begin();
        let outcome = runner::run(&catalog, &options).await;
        if let Some((bar, _)) = bar {
            bar.finish_and_clear();
        }
        if let Some(agent) = agent {
            agent.shutdown().await;
        }
        // Nothing could be tested, but the reports still say why, with the card exchange.
        if let Err(RunError::Card { error, .. }) = &outcome {
            eprintln!("error: {error}");
        }
        let mut report = match session.run.report(&catalog, &options, outcome) {
            Ok(report) => report,
            Err(e) => return usage(&e.to_string()),
        };
        // What the other configurations judged of what this run left unjudged: one report.
        report = crate::cli::configurations::test_and_merge(
            &catalog,
            report,
            &configurations,
            &options,
            &args,
        )
        .await;
        // A signal after the last check still makes an interrupted run (exit 130/143).
        session.finish(report, &args)
    })
}
