//! Every check is shown to fail: each check id is paired with a fault of the reference
//! agent that breaks its sentence, and the check must then FAIL (MUST) or WARN (SHOULD/MAY).
//! The trial `every-check-has-a-negative-case` lists checks without one; that list is empty.
//! The trial `every-fault-has-a-negative-case` lists faults no case exercises, apart from
//! those in `cases::KIT_SIDE_PENDING`; that list is empty too.

#[path = "negative/auth.rs"]
mod auth;
#[path = "negative/bindings.rs"]
mod bindings;
#[path = "negative/capabilities.rs"]
mod capabilities;
#[path = "negative/card.rs"]
mod card;
#[path = "negative/card_signature.rs"]
mod card_signature;
#[path = "negative/cases.rs"]
mod cases;
#[path = "negative/context.rs"]
mod context;
#[path = "negative/data_model.rs"]
mod data_model;
#[path = "negative/durability.rs"]
mod durability;
#[path = "negative/extended_card.rs"]
mod extended_card;
#[path = "negative/extensions.rs"]
mod extensions;
#[path = "negative/grpc.rs"]
mod grpc;
#[path = "negative/jsonrpc.rs"]
mod jsonrpc;
#[path = "negative/lifecycle.rs"]
mod lifecycle;
#[path = "negative/push.rs"]
mod push;
#[path = "negative/rest.rs"]
mod rest;
#[path = "negative/send.rs"]
mod send;
#[path = "negative/service_params.rs"]
mod service_params;
#[path = "negative/streaming.rs"]
mod streaming;
#[path = "negative/subscribe.rs"]
mod subscribe;
mod support;
#[path = "negative/tasks_cancel.rs"]
mod tasks_cancel;
#[path = "negative/tasks_get.rs"]
mod tasks_get;
#[path = "negative/tasks_list.rs"]
mod tasks_list;
#[path = "negative/tls.rs"]
mod tls;
#[path = "negative/v03.rs"]
mod v03;
#[path = "negative/versioning.rs"]
mod versioning;

use std::collections::BTreeSet;
use std::sync::Arc;

use a2a_reference_agent::Fault;
use a2a_tck::suite::check::{Level, Profile, Status};
use cases::{Case, KIT_SIDE_PENDING};

/// Every negative case.
/// The cases, filed by the id prefix of their check (one file per prefix under `negative/`).
const FILED: &[(&str, &[Case])] = &[
    ("card", card::CASES),
    ("card.signature", card_signature::CASES),
    ("send", send::CASES),
    ("context", context::CASES),
    ("tasks.get", tasks_get::CASES),
    ("tasks.cancel", tasks_cancel::CASES),
    ("tasks.list", tasks_list::CASES),
    ("lifecycle", lifecycle::CASES),
    ("data-model", data_model::CASES),
    ("jsonrpc", jsonrpc::CASES),
    ("versioning", versioning::CASES),
    ("capabilities", capabilities::CASES),
    ("v03", v03::CASES),
    ("streaming", streaming::CASES),
    ("subscribe", subscribe::CASES),
    ("rest", rest::CASES),
    ("grpc", grpc::CASES),
    ("bindings", bindings::CASES),
    ("durability", durability::CASES),
    ("extensions", extensions::CASES),
    ("service-params", service_params::CASES),
    ("tls", tls::CASES),
    ("auth", auth::CASES),
    ("extended-card", extended_card::CASES),
    ("push", push::CASES),
];

fn all_cases() -> impl Iterator<Item = &'static Case> {
    FILED.iter().flat_map(|(_, cases)| cases.iter())
}
use libtest_mimic::{Arguments, Failed, Trial};

fn main() -> std::process::ExitCode {
    let args = Arguments::from_args();
    let runtime = Arc::new(tokio::runtime::Runtime::new().expect("a tokio runtime"));
    let catalog = a2a_tck::suite::checks::all();
    let mut trials = vec![Trial::test(
        "cases-are-filed-by-the-prefix-of-their-check",
        || {
            // The longest prefix of the list that the check's id starts with names its file.
            let misfiled: Vec<String> = (FILED.iter())
                .flat_map(|(prefix, cases)| cases.iter().map(move |c| (prefix, c)))
                .filter(|(prefix, case)| {
                    let own = (FILED.iter())
                        .map(|(p, _)| *p)
                        .filter(|p| case.check.starts_with(&format!("{p}.")))
                        .max_by_key(|p| p.len());
                    own != Some(**prefix)
                })
                .map(|(prefix, case)| format!("{} in the file of `{prefix}`", case.check))
                .collect();
            if misfiled.is_empty() {
                Ok(())
            } else {
                Err(format!("cases in the wrong file: {misfiled:?}").into())
            }
        },
    )];
    trials.push(Trial::test("every-check-has-a-negative-case", || {
        let covered: BTreeSet<&str> = all_cases().map(|c| c.check).collect();
        let catalog = a2a_tck::suite::checks::all();
        let missing: Vec<&str> = catalog
            .iter()
            .map(|c| c.id)
            .filter(|id| !covered.contains(id))
            .collect();
        let unknown: Vec<&str> = covered
            .iter()
            .copied()
            .filter(|id| !catalog.iter().any(|c| c.id == *id))
            .collect();
        if missing.is_empty() && unknown.is_empty() {
            Ok(())
        } else {
            Err(format!("checks without a negative case: {missing:?}; cases for unknown checks: {unknown:?}").into())
        }
    }));
    trials.push(Trial::test("every-fault-has-a-negative-case", || {
        let exercised: BTreeSet<Fault> = all_cases().map(|c| c.fault).collect();
        let pending: BTreeSet<Fault> = KIT_SIDE_PENDING.iter().copied().collect();
        let missing: Vec<&str> = (Fault::all().iter())
            .filter(|f| !exercised.contains(f) && !pending.contains(f))
            .map(Fault::name)
            .collect();
        let stale: Vec<&str> = (pending.iter())
            .filter(|f| exercised.contains(f))
            .map(Fault::name)
            .collect();
        if missing.is_empty() && stale.is_empty() {
            Ok(())
        } else {
            Err(format!(
                "faults no negative case exercises: {missing:?}; \
                 faults listed as kit side pending that now have a case (remove them): {stale:?}"
            )
            .into())
        }
    }));
    for case in all_cases() {
        let Some(check) = catalog.iter().find(|c| c.id == case.check) else {
            continue;
        };
        let expected = case.expect.unwrap_or(match check.level {
            Level::Must => Status::Fail,
            Level::Should | Level::May => Status::Warn,
        });
        let profile = check.needs.profile;
        let runtime = runtime.clone();
        trials.push(
            Trial::test(format!("{} under {}", case.check, case.fault), move || {
                runtime.block_on(async {
                    let report = if profile == Profile::Restart {
                        // The built-in agent on SQLite, restarted in the middle of the run.
                        support::run_durable(&[case.fault], case.check).await
                    } else {
                        // The agent each check's `needs` name: under TLS, or in
                        // authenticated mode.
                        let mut config = a2a_tck::run::builtin::profile();
                        config.faults.insert(case.fault);
                        config.tls = profile == Profile::Tls;
                        let credentials = (profile == Profile::Authenticated)
                            .then(|| a2a_tck::run::builtin::authenticated(&mut config));
                        let agent = a2a_tck::run::builtin::start_with(config)
                            .await
                            .map_err(|e| Failed::from(format!("agent did not start: {e}")))?;
                        let card_url = match case.card_path {
                            Some(path) => format!("{}{path}", agent.base_url()),
                            None => agent.card_url(),
                        };
                        // A case that needs the agent given a webhook off loopback.
                        let webhook = if push::routable_webhook(case) {
                            support::routable_webhook()
                        } else {
                            Default::default()
                        };
                        let report = support::run_as_with(
                            &agent.base_url(),
                            &card_url,
                            case.check,
                            credentials,
                            agent.ca_pem(),
                            webhook,
                        )
                        .await;
                        agent.shutdown().await;
                        report
                    };
                    let mut results = support::results_of(&report, case.check);
                    if !case.versions.is_empty() {
                        results.retain(|r| r.version.is_some_and(|v| case.versions.contains(&v)));
                    }
                    if !case.bindings.is_empty() {
                        results.retain(|r| r.binding.is_some_and(|b| case.bindings.contains(&b)));
                    }
                    if support::all_have(&results, expected) {
                        Ok(())
                    } else {
                        Err(Failed::from(format!(
                            "expected {expected} under fault {}:\n{}",
                            case.fault,
                            support::explain(&results)
                        )))
                    }
                })
            })
            .with_kind(check.level.as_str()),
        );
    }
    libtest_mimic::run(&args, trials).exit_code()
}
