//! Every check x interface against the in-process reference agent must PASS.
//! One trial per check, named by its id: `cargo test --test conformance -- <id>` runs one.
//! Checks of agents that lack streaming run against the agent's conformant no-streaming
//! profile (the default agent declares streaming, where they are N/A).

mod support;

use std::sync::Arc;

use a2a_reference_agent::AgentConfig;
use a2a_tck::check::{Binding, Capability, Gate, ProtocolVersion, Status};
use libtest_mimic::{Arguments, Failed, Trial};

/// Results that are N/A by the protocol itself: the interface has no such feature.
const NOT_APPLICABLE: &[(&str, Binding, ProtocolVersion)] = &[
    // 0.3 JSON-RPC lists push configs without paging parameters.
    (
        "push.config-list-pages",
        Binding::Jsonrpc,
        ProtocolVersion::V0_3,
    ),
];

fn main() -> std::process::ExitCode {
    let args = Arguments::from_args();
    let runtime = Arc::new(tokio::runtime::Runtime::new().expect("a tokio runtime"));
    let agent = runtime
        .block_on(a2a_tck::builtin::start(&[]))
        .expect("the reference agent starts");
    let plain = runtime
        .block_on(a2a_tck::builtin::start_with(AgentConfig {
            no_streaming: true,
            ..AgentConfig::default()
        }))
        .expect("the no-streaming reference agent starts");
    let trials = a2a_tck::checks::all()
        .into_iter()
        .map(|check| {
            let lacks_streaming = check.requires.contains(&Gate::Lacks(Capability::Streaming));
            // The plain agent (default configuration) has no push notifications either.
            let lacks_push = check
                .requires
                .contains(&Gate::Lacks(Capability::PushNotifications));
            let serving = if lacks_streaming || lacks_push {
                &plain
            } else {
                &agent
            };
            let (target, card_url) = (serving.base_url(), serving.card_url());
            let runtime = runtime.clone();
            let id = check.id;
            Trial::test(id, move || {
                let report = runtime.block_on(support::run(&target, &card_url, id));
                let mut results = support::results_of(&report, id);
                results.retain(|r| {
                    let exempt = NOT_APPLICABLE.iter().any(|(check, binding, version)| {
                        *check == id
                            && r.binding == Some(*binding)
                            && r.version == Some(*version)
                            && r.status == Status::NotApplicable
                    });
                    !exempt
                });
                if support::all_have(&results, Status::Pass) {
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
    conclusion.exit_code()
}
