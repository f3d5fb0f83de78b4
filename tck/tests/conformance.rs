//! Every check x interface against the in-process reference agent must PASS.
//! One trial per check, named by its id: `cargo test --test conformance -- <id>` runs one.
//! Checks of agents that lack streaming run against the agent's conformant no-streaming
//! profile (the default agent declares streaming, where they are N/A); the `tls.*` checks
//! run against the agent served over TLS; the checks of authentication and the extended card
//! run against the agent in authenticated mode (with an OAuth scheme declared besides the
//! bearer one, so the card's OAuth URLs are judged too).

mod support;

use std::sync::Arc;

use a2a_reference_agent::{AgentConfig, Fault};
use a2a_tck::suite::check::{Binding, Capability, Gate, Profile, ProtocolVersion, Status};
use libtest_mimic::{Arguments, Failed, Trial};

/// Results that are N/A by the protocol itself (the interface has no such feature) or by the
/// reference agent's shape (`None`: the card result).
const NOT_APPLICABLE: &[(&str, Option<(Binding, ProtocolVersion)>)] = &[
    // 0.3 JSON-RPC lists push configs without paging parameters.
    (
        "push.config-list-pages",
        Some((Binding::Jsonrpc, ProtocolVersion::V0_3)),
    ),
    // The agent declares 0.3 beside 1.0 on its one JSON-RPC URL: no 1.0-only URL to probe
    // with a 0.3 request (its PASS is in `nothing_judged`, its WARN under card-omits-0-3).
    ("versioning.card-declares-every-version", None),
];

fn main() -> std::process::ExitCode {
    let args = Arguments::from_args();
    let runtime = Arc::new(tokio::runtime::Runtime::new().expect("a tokio runtime"));
    let agent = runtime
        .block_on(a2a_tck::run::builtin::start(&[]))
        .expect("the reference agent starts");
    let plain = runtime
        .block_on(a2a_tck::run::builtin::start_with(AgentConfig {
            no_streaming: true,
            ..AgentConfig::default()
        }))
        .expect("the no-streaming reference agent starts");
    // The tls.* checks run against the agent under TLS (on plain http they are N/A).
    let secure = runtime
        .block_on(a2a_tck::run::builtin::start_with(AgentConfig {
            tls: true,
            ..a2a_tck::run::builtin::profile()
        }))
        .expect("the reference agent starts under TLS");
    let (secured, credentials) = runtime
        .block_on(a2a_tck::run::builtin::start_full(&[
            Fault::AuthCardOauthScheme,
        ]))
        .expect("the authenticated reference agent starts");
    let trials = a2a_tck::suite::checks::all()
        .into_iter()
        .map(|check| {
            let lacks_streaming = check.requires.contains(&Gate::Lacks(Capability::Streaming));
            // The plain agent (default configuration) has no push notifications either.
            let lacks_push = check
                .requires
                .contains(&Gate::Lacks(Capability::PushNotifications));
            let profile = check.needs.profile;
            let authenticated = profile == Profile::Authenticated;
            let serving = if profile == Profile::Tls {
                &secure
            } else if lacks_streaming || lacks_push {
                &plain
            } else if authenticated {
                &secured
            } else {
                &agent
            };
            let credentials = authenticated.then(|| credentials.clone());
            let (target, card_url) = (serving.base_url(), serving.card_url());
            let ca_pem = serving.ca_pem().map(str::to_string);
            let runtime = runtime.clone();
            let id = check.id;
            Trial::test(id, move || {
                let report = if profile == Profile::Restart {
                    // On its own agent, on SQLite, restarted in the middle of the run.
                    runtime.block_on(support::run_durable(&[], id))
                } else {
                    runtime.block_on(support::run_as(
                        &target,
                        &card_url,
                        id,
                        credentials.clone(),
                        ca_pem.as_deref(),
                    ))
                };
                let mut results = support::results_of(&report, id);
                let judged = results.len();
                results.retain(|r| {
                    let exempt = NOT_APPLICABLE.iter().any(|(check, on)| {
                        let here = match on {
                            Some((binding, version)) => {
                                r.binding == Some(*binding) && r.version == Some(*version)
                            }
                            None => r.binding.is_none(),
                        };
                        *check == id && here && r.status == Status::NotApplicable
                    });
                    !exempt
                });
                // Every result exempt (a card result N/A by the agent's shape) is fine too.
                let all_exempt = judged > 0 && results.is_empty();
                if all_exempt || support::all_have(&results, Status::Pass) {
                    Ok(())
                } else {
                    Err(Failed::from(format!(
                        "expected PASS on every interface:\n{}",
                        support::explain(&results)
                    )))
                }
            })
            .with_kind(check.level.as_str())
        })
        .collect();
    let conclusion = libtest_mimic::run(&args, trials);
    runtime.block_on(agent.shutdown());
    runtime.block_on(plain.shutdown());
    runtime.block_on(secure.shutdown());
    runtime.block_on(secured.shutdown());
    conclusion.exit_code()
}
