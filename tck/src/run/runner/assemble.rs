//! The report of a run, assembled from what it did: the header, the verdict and its reason
//! (what the run left out included), the sections, and the results.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::exchange::card::{self, Cards, FetchedCard};
use crate::reporting::report::{self, CheckResult, Counts, Report, Selection, Target};
use crate::suite::check::{Check, Level, ProtocolVersion};

use super::target::TargetSeen;
use super::{RunOptions, Start};

/// Everything the report is assembled from.
pub(super) struct Outcome<'a, 'c> {
    /// What the checks met of the contested sentences.
    pub(super) met: crate::facts::revision::Met,
    pub(super) catalog: &'c [Check],
    pub(super) options: &'a RunOptions,
    pub(super) start: &'a Start,
    pub(super) target: TargetSeen,
    pub(super) selected: &'a [&'c Check],
    pub(super) durable: &'a [&'c Check],
    pub(super) results: Vec<CheckResult>,
    pub(super) not_run: Vec<report::NotRun>,
    pub(super) interrupted: Vec<report::NotRun>,
    pub(super) contract: Option<crate::suite::contract::ContractReport>,
    pub(super) durability: Option<report::DurabilityReport>,
}

/// The report of a run: the header, the verdict and its reason (what the run left out
/// included), the sections, and the results.
pub(super) fn assemble(outcome: Outcome) -> Report {
    let Outcome {
        met,
        catalog,
        options,
        start,
        target,
        selected,
        durable,
        mut results,
        mut not_run,
        interrupted,
        contract,
        durability,
    } = outcome;
    let TargetSeen {
        cards,
        fetched,
        declared,
        interfaces,
        ..
    } = target;
    let stop = &options.stop;
    // An operation refused wherever it was called: one cause, named once (and the results
    // that stopped at it judged nothing of their own rule when no keyword obliges it).
    let declared_capabilities = (cards.v1_0.iter())
        .map(|c| crate::reporting::refusals::Declared::of(&c.json))
        .fold(
            crate::reporting::refusals::Declared::of(&cards.plain.json),
            |a, b| a.or(b),
        );
    let refused_operations = crate::reporting::refusals::apply(
        &mut results,
        &start.timings.succeeded(),
        declared_capabilities,
    );
    let mut totals: BTreeMap<Level, Counts> = Level::ALL
        .iter()
        .map(|level| (*level, Counts::default()))
        .collect();
    for result in &results {
        totals.entry(result.level).or_default().add(result.status);
    }
    let scope = report::VerdictScope {
        interfaces_tested: interfaces.len(),
        needs_credentials: (declared.iter())
            .filter(|d| d.tested && d.needs_credentials)
            .map(|d| format!("{} {}", d.protocol_binding, d.protocol_version))
            .collect(),
        must_selected: selected
            .iter()
            .chain(durable)
            .any(|c| c.level == Level::Must),
    };
    let (verdict, mut verdict_reason) = report::Verdict::of(&results, &scope);
    for line in crate::reporting::refusals::grouped_lines(&refused_operations) {
        verdict_reason.push_str(&format!("; {line}"));
    }
    let selecting = !options.filter.bindings.is_empty() || !options.filter.versions.is_empty();
    if interfaces.is_empty() && selecting && declared.iter().any(|d| d.binding.is_some()) {
        verdict_reason =
            "no declared interface matches the selection (--binding, --protocol-version)".into();
    }
    let not_run_checks = (not_run.iter())
        .map(|n| n.id.as_str())
        .collect::<std::collections::BTreeSet<&str>>()
        .len();
    let was_interrupted = stop.is_stopped();
    verdict_reason.push_str(&left_out(&declared, &not_run));
    not_run.extend(interrupted);
    // What the run left out: the selection's checks (the durability area counts only when
    // asked for: it never runs by default), the contract's, the selection's interfaces.
    let eligible = (catalog.iter())
        .filter(|c| {
            options.durability.is_some() || c.needs.profile != crate::suite::check::Profile::Restart
        })
        .count();
    let partial = report::Partial {
        checks_not_selected: eligible.saturating_sub(selected.len() + durable.len()),
        checks_not_run: not_run_checks,
        interfaces_not_selected: (declared.iter())
            .filter(|d| (d.reason.as_deref()).is_some_and(|r| r.starts_with("not selected")))
            .count(),
    }
    .if_any();
    let untested_declarations =
        untested_declarations(&cards, catalog, selected, &results, &not_run, options);
    if let Some(version) = options.assume_version {
        let assumed: Vec<String> = (declared.iter())
            .filter(|d| d.tested && d.protocol_version.trim().is_empty())
            .map(|d| format!("{} at {}", d.protocol_binding, d.url))
            .collect();
        if !assumed.is_empty() {
            verdict_reason.push_str(&format!(
                "; the card names no protocolVersion: {} tested as {version} \
                 (--assume-version {version})",
                assumed.join(", ")
            ));
        }
    }
    for line in crate::reporting::declarations::grouped_lines(&untested_declarations) {
        verdict_reason.push_str(&format!("; {line}"));
    }
    let mut spec_versions: Vec<String> = interfaces
        .iter()
        .map(|i| i.version.as_str().to_string())
        .collect();
    spec_versions.dedup();
    let target = target_of(options, &cards, &fetched);
    let selection = Selection::of(&options.filter, selected.len() + durable.len());
    let mut report = Report {
        interfaces: declared,
        totals,
        verdict,
        verdict_reason,
        partial,
        compatibility: Some(crate::reporting::compat::of(&results)),
        latency: start.timings.figures(),
        concurrency: Some(start.pace.concurrency()),
        contract,
        not_run,
        untested_declarations,
        refused_operations,
        results,
        durability,
        spec_revision: report::SpecRevisionJudged::of(options.spec_revision, &spec_versions),
        readings: report::AppliedReading::of(options.spec_revision, &met),
        card_signatures: report::SignatureForms::of(&met),
        spec_versions,
        ..Report::begun(target, selection, start.started_at)
    };
    if was_interrupted {
        report.mark_interrupted_by(stop.why());
    }
    report
}

/// What the verdict's reason adds for what the run did not test: the declared interfaces it
/// did not test and the checks the contract left out (what a stop left out is said by
/// [`Report::mark_interrupted`]).
fn left_out(declared: &[card::DeclaredInterface], not_run: &[report::NotRun]) -> String {
    let mut words = String::new();
    let untested: Vec<String> = (declared.iter())
        .filter(|d| !d.tested)
        .map(|d| format!("{} {}", d.protocol_binding, d.protocol_version))
        .collect();
    if !untested.is_empty() {
        words.push_str(&format!(
            "; {} declared, not tested: {}",
            report::plural(untested.len(), "interface", "interfaces"),
            untested.join(", ")
        ));
    }
    let not_run_checks = (not_run.iter())
        .map(|n| n.id.as_str())
        .collect::<std::collections::BTreeSet<&str>>()
        .len();
    if !not_run.is_empty() {
        words.push_str(&format!(
            "; {} not run ({}), as they need the agent to play a test scenario the contract \
             does not give",
            report::plural(not_run_checks, "check", "checks"),
            report::plural(not_run.len(), "planned result", "planned results")
        ));
    }
    words
}

/// The report's target: where the agent is, and what its cards say it is.
fn target_of(options: &RunOptions, cards: &Cards, fetched: &FetchedCard) -> Target {
    let text = |k: &str| {
        fetched
            .json
            .get(k)
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    Target {
        url: options.target.clone(),
        card_url: options.card_url.clone(),
        card_sha256: fetched.sha256.clone(),
        agent_name: text("name"),
        agent_version: text("version"),
        builtin: options.builtin,
        versioned_card: cards.v1_0.as_ref().map(|card| report::VersionedCard {
            a2a_version: ProtocolVersion::V1_0,
            card_sha256: card.sha256.clone(),
            agent_name: (card.json.get("name"))
                .and_then(Value::as_str)
                .map(str::to_string),
            agent_version: (card.json.get("version"))
                .and_then(Value::as_str)
                .map(str::to_string),
        }),
    }
}

/// What each card declares that no result tested, once each.
fn untested_declarations(
    cards: &Cards,
    catalog: &[Check],
    selected: &[&Check],
    results: &[CheckResult],
    not_run: &[report::NotRun],
    options: &RunOptions,
) -> Vec<report::UntestedDeclaration> {
    let mut untested_declarations: Vec<report::UntestedDeclaration> = Vec::new();
    for card in cards.all() {
        for untested in
            crate::reporting::declarations::untested(&crate::reporting::declarations::Run {
                card: &card.json,
                catalog,
                selected,
                results,
                not_run,
                filter: &options.filter,
            })
        {
            if !untested_declarations.contains(&untested) {
                untested_declarations.push(untested);
            }
        }
    }
    // A card that names no protocolVersion: each interface its url gives, named.
    for interface in cards.interfaces().0 {
        if interface.reason.as_deref() == Some(card::NO_PROTOCOL_VERSION) {
            untested_declarations.push(report::UntestedDeclaration {
                what: format!(
                    "the {} interface at {}",
                    interface.protocol_binding, interface.url
                ),
                why: card::NO_PROTOCOL_VERSION.to_string(),
            });
        }
    }
    untested_declarations
}
