//! Every check is shown to fail: each check id is paired with a fault of the reference
//! agent that breaks its sentence, and the check must then FAIL (MUST) or WARN (SHOULD/MAY).
//! The trial `every-check-has-a-negative-case` lists checks without one; that list is empty.
//! The trial `every-fault-has-a-negative-case` lists faults no case exercises, apart from
//! those in `cases::KIT_SIDE_PENDING`; that list is empty too.

#[path = "negative/cases.rs"]
mod cases;
#[path = "negative/cases_auth.rs"]
mod cases_auth;
#[path = "negative/cases_durable.rs"]
mod cases_durable;
#[path = "negative/cases_ext.rs"]
mod cases_ext;
#[path = "negative/cases_more.rs"]
mod cases_more;
#[path = "negative/cases_planned03.rs"]
mod cases_planned03;
#[path = "negative/cases_planned10.rs"]
mod cases_planned10;
#[path = "negative/cases_push.rs"]
mod cases_push;
#[path = "negative/cases_registry.rs"]
mod cases_registry;
#[path = "negative/cases_schemas.rs"]
mod cases_schemas;
mod support;

use std::collections::BTreeSet;
use std::sync::Arc;

use a2a_reference_agent::Fault;
use a2a_tck::check::{Level, Profile, Status};
use cases::{Case, CASES, KIT_SIDE_PENDING};
use cases_ext::EXT_CASES;
use cases_more::MORE_CASES;
use cases_push::PUSH_CASES;
use cases_registry::{REGISTRY_CASES, REGISTRY_MAY_CASES};
use cases_schemas::SCHEMAS_CASES;

/// Every negative case.
fn all_cases() -> impl Iterator<Item = &'static Case> {
    CASES
        .iter()
        .chain(MORE_CASES)
        .chain(cases_durable::DURABLE_CASES)
        .chain(EXT_CASES)
        .chain(cases_auth::AUTH_CASES)
        .chain(PUSH_CASES)
        .chain(REGISTRY_CASES)
        .chain(REGISTRY_MAY_CASES)
        .chain(SCHEMAS_CASES)
        .chain(cases_planned03::PLANNED03_CASES)
        .chain(cases_planned10::PLANNED10_CASES)
}
use libtest_mimic::{Arguments, Failed, Trial};

fn main() -> std::process::ExitCode {
    let args = Arguments::from_args();
    let runtime = Arc::new(tokio::runtime::Runtime::new().expect("a tokio runtime"));
    let catalog = a2a_tck::checks::all();
    let mut trials = vec![Trial::test("every-check-has-a-negative-case", || {
        let covered: BTreeSet<&str> = all_cases().map(|c| c.check).collect();
        let catalog = a2a_tck::checks::all();
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
    })];
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
                        let mut config = a2a_tck::builtin::profile();
                        config.faults.insert(case.fault);
                        config.tls = profile == Profile::Tls;
                        let credentials = (profile == Profile::Authenticated)
                            .then(|| a2a_tck::builtin::authenticated(&mut config));
                        let agent = a2a_tck::builtin::start_with(config)
                            .await
                            .map_err(|e| Failed::from(format!("agent did not start: {e}")))?;
                        let card_url = match case.card_path {
                            Some(path) => format!("{}{path}", agent.base_url()),
                            None => agent.card_url(),
                        };
                        // A case that needs the agent given a webhook off loopback.
                        let webhook = if cases_push::routable_webhook(case) {
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
