//! `a2a-tck client`: the client under test through every play, through the command's
//! session: the same reports and exit status as a run on an agent.

use std::process::ExitCode;

use crate::cli::command_session::CommandSession;
use crate::cli::flags::{filter, seconds};
use crate::cli::{ClientArgs, RunArgs};
use crate::{runtime, usage};

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
pub fn run(args: ClientArgs) -> ExitCode {
    use a2a_tck::client::adapter::Client;
    use a2a_tck::client::reference_client::ClientFault;
    if args.list_client_faults {
        for fault in ClientFault::ALL {
            crate::stdout(format_args!(
                "{:<32} {}\n",
                fault.name(),
                fault.description()
            ));
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
    let ids: Vec<&str> = (a2a_tck::client::client_checks::all().iter())
        .map(|c| c.id)
        .collect();
    let mut session = match CommandSession::start(&args.run, &ids) {
        Ok(session) => session,
        Err(e) => return usage(&e),
    };
    let runtime = match runtime() {
        Ok(runtime) => runtime,
        Err(code) => return code,
    };
    let options = a2a_tck::client::client_runner::ClientOptions {
        client: match &args.command {
            Some(command) => Client::Command(command.clone()),
            None => Client::Reference(args.client_faults.clone()),
        },
        scenario_timeout,
        filter: filter(&args.run.selection),
    };
    session.run.begin();
    let report = runtime.block_on(a2a_tck::client::client_runner::run(&options));
    session.finish(report, &args.run)
}
