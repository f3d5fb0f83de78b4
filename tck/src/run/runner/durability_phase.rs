//! The runner's part of the durability area: plan the `durability.*` checks over the selected
//! interfaces, make the fixtures (phase 1), restart the target and wait for it, then run the
//! checks against the fixtures (phase 2), each under its deadline. See [`crate::run::durability`].

use std::collections::HashMap;
use std::sync::Arc;

use futures::StreamExt;

use super::{execute, Deadline, Problem, RunOptions};
use crate::exchange::card::{Cards, FetchedCard, Interface};
use crate::exchange::evidence::Recorder;
use crate::exchange::transport::Connector;
use crate::exchange::wire::Wire;
use crate::reporting::report::DurabilityReport;
use crate::reporting::report::{CheckResult, NotRun};
use crate::run::durability::{restart_and_wait, Durability};
use crate::suite::check::{Check, HarnessError, Scope};
use crate::suite::checks::durability::prepare;
use crate::suite::contract::Scenarios;
use crate::suite::ctx::Ctx;
use crate::suite::ctx::Saved;

/// The selected checks, split into the area's (empty unless `asked`) and the others. Selecting
/// only the area's checks without asking for it is a usage error.
pub(crate) fn split(
    selected: Vec<&Check>,
    asked: bool,
) -> Result<(Vec<&Check>, Vec<&Check>), String> {
    let (durable, others): (Vec<&Check>, Vec<&Check>) = selected
        .into_iter()
        .partition(|c| c.needs.profile == crate::suite::check::Profile::Restart);
    if asked {
        Ok((durable, others))
    } else if others.is_empty() && !durable.is_empty() {
        Err(
            "the durability.* checks run only with --restart-cmd, or with --durability against \
             the built-in agent"
                .into(),
        )
    } else {
        Ok((Vec::new(), others))
    }
}

/// What the area needs of the run.
pub(crate) struct Area<'a> {
    pub checks: &'a [&'a Check],
    /// The selected interfaces (usable or not).
    pub interfaces: &'a [Interface],
    /// The selected interfaces whose probe failed, with why.
    pub unusable: &'a [(Interface, Problem)],
    /// The cards the agent serves; each interface is tested with the one declaring it.
    pub cards: &'a Cards,
    pub options: &'a RunOptions,
    pub scenarios: &'a Scenarios,
    pub run_id: &'a str,
    /// The run's latency figures, which this area's exchanges are timed into too.
    pub timings: &'a std::sync::Arc<crate::exchange::latency::Timings>,
    /// The run's pace: this area's checks take its permits too.
    pub pace: &'a std::sync::Arc<crate::exchange::pace::Pace>,
}

/// What the area gives the report: its results, in catalogue order, then interface order; the
/// planned results a stop left out; and what the restart did (`None` when a stop came before
/// it).
pub(crate) struct Outcome {
    pub results: Vec<CheckResult>,
    pub interrupted: Vec<NotRun>,
    pub restart: Option<DurabilityReport>,
}

/// Runs the area. The stop holds in each of its steps: making the fixtures and the checks get
/// the grace, the restart and the wait for the agent end at once; whatever was not judged is
/// reported as interrupted.
pub(crate) async fn run(area: Area<'_>, durability: &Durability) -> Result<Outcome, HarnessError> {
    let options = area.options;
    let stop = &options.stop;
    let mut plan: Vec<(&Check, &Interface)> = Vec::new();
    for check in area.checks {
        if let Scope::Interface { bindings, versions } = check.scope {
            for interface in area.interfaces {
                if bindings.contains(&interface.binding) && versions.contains(&interface.version) {
                    plan.push((check, interface));
                }
            }
        }
    }
    let problem_of = |interface: &Interface| {
        area.unusable
            .iter()
            .find(|(u, _)| u == interface)
            .map(|(_, p)| p.clone())
    };
    let headers = Arc::new(options.headers.clone());
    // As in the rest of the run: the card's required extensions activated on every request,
    // the user's CA certificates trusted.
    let activate = |card: &FetchedCard| {
        Arc::new(crate::facts::service_params::required_extensions(
            &card.json,
        ))
    };
    let ca_certs = Arc::new(options.ca_certs.clone());
    // Phase 1: the fixtures, on every usable interface of the plan, all at once.
    let mut wanted: Vec<&Interface> = Vec::new();
    for (_, interface) in &plan {
        if problem_of(interface).is_none() && !wanted.contains(interface) {
            wanted.push(interface);
        }
    }
    let client = crate::exchange::wire::client_trusting(&options.ca_certs)?;
    let connector = Connector::trusting(&area.cards.plain.url, ca_certs.clone());
    // A check's context on `interface`, over the connections of the phase it runs in.
    let ctx_on = |client: &crate::exchange::wire::HttpClient,
                  connector: &Connector,
                  interface: &Interface,
                  id: String| {
        let card = area.cards.card_of(interface);
        let recorder =
            (Recorder::default().observed_by(area.timings.clone())).observed_by(area.pace.clone());
        let wire = Wire::new(client.clone(), options.limits, recorder)
            .with_headers(headers.clone())
            .with_extensions(activate(&card));
        Ctx::new(card, Some(interface.clone()), wire, connector.clone(), &id)
            .with_scenarios(area.scenarios.fresh())
            .with_judging(area.options.spec_revision, Default::default())
    };
    let interrupted = |plan: &[(&Check, &Interface)]| -> Vec<NotRun> {
        (plan.iter())
            .map(|(check, interface)| NotRun {
                id: check.id.to_string(),
                level: check.level,
                binding: Some(interface.binding),
                version: Some(interface.version),
                reason: crate::facts::stop::INTERRUPTED.into(),
            })
            .collect()
    };
    let made = futures::future::join_all(wanted.iter().enumerate().map(|(n, interface)| {
        let ctx = ctx_on(
            &client,
            &connector,
            interface,
            format!("{}-durable-{n}", area.run_id),
        );
        async move {
            let saved = match tokio::time::timeout(options.check_timeout, prepare(&ctx)).await {
                Ok(saved) => saved,
                Err(_) => late(options.check_timeout),
            };
            ((*interface).clone(), Arc::new(saved))
        }
    }));
    // Stopped while the fixtures were made: no restart, nothing judged.
    let Some(made) = stop.within_grace(made).await.filter(|_| !stop.is_stopped()) else {
        return Ok(Outcome {
            results: Vec::new(),
            interrupted: interrupted(&plan),
            restart: None,
        });
    };
    let saved: HashMap<String, Arc<Saved>> = made
        .into_iter()
        .map(|(interface, saved)| (key(&interface), saved))
        .collect();
    // No connection of phase 1 outlives the restart.
    drop((client, connector));
    // The restart, and the wait for the agent to answer again.
    let back = restart_and_wait(
        durability,
        &options.card_url,
        &options.headers,
        &options.ca_certs,
    );
    // Stopped during the restart: the command is killed (it is dropped), nothing judged.
    let Some(back) = stop.unless_stopped(back).await else {
        return Ok(Outcome {
            results: Vec::new(),
            interrupted: interrupted(&plan),
            restart: Some(DurabilityReport {
                restart: durability.describe.clone(),
                restarted: false,
                message: format!(
                    "{}: the restart was cut short",
                    crate::facts::stop::INTERRUPTED
                ),
                ready_ms: None,
            }),
        });
    };
    let report = DurabilityReport {
        restart: durability.describe.clone(),
        restarted: back.is_ok(),
        message: match &back {
            Ok(took) => format!("restarted; the card answered again after {took:?}"),
            Err(why) => why.to_string(),
        },
        ready_ms: back.as_ref().ok().map(|d| d.as_millis() as u64),
    };
    let down = back.err().map(|error| Problem {
        error,
        evidence: Vec::new(),
    });
    // Phase 2: the checks, on fresh connections, at the run's pace.
    let client = crate::exchange::wire::client_trusting(&options.ca_certs)?;
    let connector = Connector::trusting(&area.cards.plain.url, ca_certs.clone());
    let pace = area.pace;
    let results = futures::stream::iter(plan.iter().copied().enumerate())
        .then(|(index, planned)| async move {
            (index, planned, stop.unless_stopped(pace.acquire()).await)
        })
        .map(|(index, (check, interface), permit)| {
            let mut ctx = ctx_on(
                &client,
                &connector,
                interface,
                format!("{}-durable-check-{index}", area.run_id),
            );
            if let Some(saved) = saved.get(&key(interface)) {
                ctx = ctx.with_saved(saved.clone());
            }
            let problem = problem_of(interface).or_else(|| down.clone());
            async move {
                let result = match permit {
                    None => None,
                    Some(_permit) => {
                        stop.within_grace(execute(
                            check,
                            ctx,
                            Deadline::fixed(options.check_timeout),
                            problem,
                        ))
                        .await
                    }
                };
                (index, result)
            }
        })
        .buffer_unordered(pace.ceiling())
        .collect::<Vec<_>>()
        .await;
    let mut results = results;
    results.sort_by_key(|(index, _)| *index);
    let mut judged = Vec::new();
    let mut left: Vec<(&Check, &Interface)> = Vec::new();
    for (index, result) in results {
        match result {
            Some(result) => judged.push(result),
            None => left.push(plan[index]),
        }
    }
    Ok(Outcome {
        results: judged,
        interrupted: interrupted(&left),
        restart: Some(report),
    })
}

fn key(interface: &Interface) -> String {
    format!(
        "{} {} {}",
        interface.binding,
        interface.version.as_str(),
        interface.url
    )
}

/// The fixtures of an interface whose phase 1 ran past its deadline.
fn late(deadline: std::time::Duration) -> Saved {
    let why =
        format!("making the fixtures did not finish within the check deadline of {deadline:?}");
    Saved {
        completed: Err(why.clone()),
        listed: Err(why.clone()),
        input_required: Err(why.clone()),
        context: Err(why),
        push: None,
    }
}
