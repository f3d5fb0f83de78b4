//! Several configurations of one agent, one verdict (`--configuration NAME=URL`, `--plan`).
//!
//! The ACTS runner of the official SDKs tests an agent in up to three configurations: as it
//! is (the default), with streaming, push notifications and the extended card switched off
//! ("reduced"), and with a bearer scheme declared and enforced ("auth"). A rule that does not
//! apply where a capability is declared (a streaming call *without* the capability is refused)
//! is judged only where it is not, and a rule of security only where security is declared.
//!
//! The default run is made as ever. Then each other configuration runs the checks whose
//! result in the default run was N/A or UNTESTABLE ([`rerun_ids`]), and [`merge`] takes into
//! the default report each such result that a configuration judged (PASS, WARN or FAIL),
//! tagged with the configuration's name. A result judged in the default run stays the
//! default's; a result no configuration judged stays as the default run left it (an N/A or
//! ERROR elsewhere judges nothing). Results are matched by check id, binding and version:
//! the interfaces of the configurations have other URLs. When several configurations judged
//! one result, the most severe verdict is taken (FAIL, then WARN, then PASS), the first
//! configuration given on a tie: each is what the agent was seen to do.

use serde_json::Value;

use crate::reporting::report::{
    self, CheckResult, ConfigurationRun, Report, Verdict, VerdictScope,
};
use crate::run::runner::{self, RunError, RunOptions};
use crate::suite::check::{Binding, Check, ProtocolVersion, Status};

/// One other configuration of the agent: its name and the options of its run (its target,
/// card URL and credentials; the rest as the default run's).
#[derive(Debug, Clone)]
pub struct Configuration {
    /// Its name (`reduced`, `auth`): never `default`.
    pub name: String,
    /// The options of its run; [`test`] sets the selection and leaves durability out.
    pub options: RunOptions,
}

/// What became of one configuration's run.
#[derive(Debug, Clone)]
pub enum Outcome {
    /// It ran: its report.
    Ran(Box<Report>),
    /// No result of the default run was N/A or UNTESTABLE: nothing to run again.
    NothingToRun,
    /// It could not run (its card unusable, a stop before its first check): why.
    Failed(String),
}

/// One configuration, tested.
#[derive(Debug, Clone)]
pub struct Tested {
    /// Its name.
    pub name: String,
    /// Its target's base URL.
    pub target: String,
    /// Where its card was read.
    pub card_url: String,
    /// What its card declares (see [`ConfigurationRun::declares`]).
    pub declares: Vec<String>,
    /// How many checks were run in it.
    pub checks_run: usize,
    /// Its run.
    pub outcome: Outcome,
}

/// The ids of the checks to run again in the other configurations: those with a result N/A
/// or UNTESTABLE in `default`, each once, in report order.
pub fn rerun_ids(default: &Report) -> Vec<String> {
    let mut ids: Vec<String> = Vec::new();
    for result in &default.results {
        let unjudged = matches!(result.status, Status::NotApplicable | Status::Untestable);
        if unjudged && !ids.contains(&result.id) {
            ids.push(result.id.clone());
        }
    }
    ids
}

/// Runs [`rerun_ids`] of `default` in each configuration, one after the other (each under
/// the deadlines of its own run), and stops starting new ones once the run is stopped.
pub async fn test(
    catalog: &[Check],
    default: &Report,
    configurations: Vec<Configuration>,
) -> Vec<Tested> {
    let ids = rerun_ids(default);
    let mut tested = Vec::new();
    for Configuration { name, mut options } in configurations {
        let mut entry = Tested {
            name,
            target: options.target.clone(),
            card_url: options.card_url.clone(),
            declares: Vec::new(),
            checks_run: 0,
            outcome: Outcome::NothingToRun,
        };
        if options.stop.is_stopped() {
            entry.outcome = Outcome::Failed(crate::facts::stop::INTERRUPTED.into());
            tested.push(entry);
            continue;
        }
        if ids.is_empty() {
            tested.push(entry);
            continue;
        }
        options.filter.select = ids.iter().map(|id| globset::escape(id)).collect();
        options.durability = None;
        options.progress = None;
        entry.checks_run = options.filter.apply(catalog).map_or(0, |kept| kept.len());
        entry.declares = declares(&options).await;
        entry.outcome = match runner::run(catalog, &options).await {
            Ok(report) => Outcome::Ran(Box::new(report)),
            Err(RunError::Card { error, .. }) => {
                Outcome::Failed(format!("its agent card is unusable: {error}"))
            }
            Err(e) => Outcome::Failed(e.to_string()),
        };
        tested.push(entry);
    }
    tested
}

/// What the configuration's card declares, read once more for the report (empty when it
/// cannot be read: its run says why).
async fn declares(options: &RunOptions) -> Vec<String> {
    let Ok(client) = crate::exchange::wire::client_trusting(&options.ca_certs) else {
        return Vec::new();
    };
    let wire = crate::exchange::wire::Wire::new(client, options.limits, Default::default())
        .with_headers(std::sync::Arc::new(options.headers.clone()));
    match crate::exchange::card::fetch(&wire, &options.card_url).await {
        Ok(card) => declared(&card.json),
        Err(_) => Vec::new(),
    }
}

/// The capabilities `card` declares true and the security schemes it names.
pub fn declared(card: &Value) -> Vec<String> {
    let flags = crate::reporting::refusals::Declared::of(card);
    let mut declares: Vec<String> = [
        (flags.streaming, "streaming"),
        (flags.push, "pushNotifications"),
        (flags.extended_card, "extendedAgentCard"),
    ]
    .iter()
    .filter(|(on, _)| *on)
    .map(|(_, name)| name.to_string())
    .collect();
    if let Some(schemes) = card.get("securitySchemes").and_then(Value::as_object) {
        declares.extend(schemes.keys().map(|name| format!("security:{name}")));
    }
    declares
}

/// How severe a judged status is, for the choice between configurations.
fn severity(status: Status) -> Option<u8> {
    match status {
        Status::Fail => Some(3),
        Status::Warn => Some(2),
        Status::Pass => Some(1),
        _ => None,
    }
}

type Key<'a> = (&'a str, Option<Binding>, Option<ProtocolVersion>);

fn key(result: &CheckResult) -> Key<'_> {
    (result.id.as_str(), result.binding, result.version)
}

/// The default report with the results the other configurations judged taken in, and its
/// totals, compatibility and verdict made again; a pure function of its inputs. The
/// configurations are recorded in `configurations`; one that could not be tested leaves a
/// conformant verdict `inconclusive` (what it was to judge was not shown).
pub fn merge(mut default: Report, tested: Vec<Tested>) -> Report {
    if tested.is_empty() {
        return default;
    }
    let before = default.results.clone();
    let mut taken = vec![0usize; tested.len()];
    for result in default.results.iter_mut() {
        if !matches!(result.status, Status::NotApplicable | Status::Untestable) {
            continue;
        }
        let mut best: Option<(u8, usize, &CheckResult)> = None;
        for (index, entry) in tested.iter().enumerate() {
            let Outcome::Ran(report) = &entry.outcome else {
                continue;
            };
            let judged = (report.results.iter())
                .filter(|r| key(r) == key(result))
                .filter_map(|r| severity(r.status).map(|s| (s, r)));
            for (severity, found) in judged {
                if best.is_none_or(|(s, _, _)| severity > s) {
                    best = Some((severity, index, found));
                }
            }
        }
        if let Some((_, index, found)) = best {
            let name = &tested[index].name;
            *result = CheckResult {
                message: format!("in configuration {name}: {}", found.message),
                configuration: Some(name.clone()),
                ..found.clone()
            };
            taken[index] += 1;
        }
    }
    let records: Vec<ConfigurationRun> = (tested.iter().zip(&taken))
        .map(|(entry, taken)| record(entry, *taken))
        .collect();
    let total_taken: usize = taken.iter().sum();
    if total_taken > 0 {
        rejudge(&mut default, &before);
        let each: Vec<String> = (records.iter())
            .filter(|r| r.results_taken > 0)
            .map(|r| format!("{} in {}", r.results_taken, r.name))
            .collect();
        default.verdict_reason.push_str(&format!(
            "; {} judged in other configurations of the agent ({})",
            report::plural(total_taken, "result", "results"),
            each.join(", ")
        ));
    }
    for failed in records.iter().filter(|r| r.failure.is_some()) {
        default.verdict_reason.push_str(&format!(
            "; configuration {} could not be tested: {}",
            failed.name,
            failed.failure.as_deref().unwrap_or_default()
        ));
        if default.verdict == Verdict::Conformant {
            default.verdict = Verdict::Inconclusive;
        }
    }
    default.configurations = records;
    default
}

/// The report's record of one configuration.
fn record(entry: &Tested, results_taken: usize) -> ConfigurationRun {
    let (card_sha256, verdict, failure) = match &entry.outcome {
        Outcome::Ran(report) => (
            report.target.card_sha256.clone(),
            Some(report.verdict),
            (report.failure.as_ref()).map(|f| f.message.clone()),
        ),
        Outcome::NothingToRun => (String::new(), None, None),
        Outcome::Failed(why) => (String::new(), None, Some(why.clone())),
    };
    ConfigurationRun {
        name: entry.name.clone(),
        target: entry.target.clone(),
        card_url: entry.card_url.clone(),
        card_sha256,
        declares: entry.declares.clone(),
        checks_run: entry.checks_run,
        results_taken,
        verdict,
        failure,
    }
}

/// Makes the totals, the compatibility figure and the verdict of `report` again from its
/// results (`before`: its results as its run left them). The verdict's reason keeps what
/// the run added to it; when the reason cannot be told apart (the run replaced it), the
/// run's verdict stays, worsened to non-conformant by a MUST check that failed elsewhere.
fn rejudge(report: &mut Report, before: &[CheckResult]) {
    report.totals = (report.totals.keys())
        .map(|level| (*level, report::Counts::default()))
        .collect();
    for result in &report.results {
        report
            .totals
            .entry(result.level)
            .or_default()
            .add(result.status);
    }
    if report.compatibility.is_some() {
        report.compatibility = Some(crate::reporting::compat::of(&report.results));
    }
    let scope = VerdictScope {
        interfaces_tested: report.interfaces.iter().filter(|d| d.tested).count(),
        needs_credentials: (report.interfaces.iter())
            .filter(|d| d.tested && d.needs_credentials)
            .map(|d| format!("{} {}", d.protocol_binding, d.protocol_version))
            .collect(),
        must_selected: (report.results.iter().map(|r| r.level))
            .chain(report.not_run.iter().map(|n| n.level))
            .any(|level| level == crate::suite::check::Level::Must),
    };
    let (was, was_reason) = Verdict::of(before, &scope);
    let (now, now_reason) = Verdict::of(&report.results, &scope);
    match report.verdict_reason.strip_prefix(was_reason.as_str()) {
        Some(added) if was == report.verdict => {
            report.verdict = now;
            report.verdict_reason = format!("{now_reason}{added}");
        }
        _ => {
            let must_failed = (report.results.iter()).any(|r| {
                r.level == crate::suite::check::Level::Must
                    && r.status == Status::Fail
                    && r.configuration.is_some()
            });
            if must_failed {
                report.verdict = Verdict::NonConformant;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reporting::report::{Selection, Target};
    use crate::suite::check::Level;

    fn result(id: &str, binding: Option<Binding>, status: Status) -> CheckResult {
        CheckResult {
            id: id.into(),
            level: Level::Must,
            spec_version: "1.0".into(),
            section: "1".into(),
            statements: Vec::new(),
            requirement: String::new(),
            binding,
            version: binding.map(|_| ProtocolVersion::V1_0),
            status,
            message: format!("{status}"),
            reading: None,
            maps_to: Vec::new(),
            acts: Vec::new(),
            duration_ms: 0,
            evidence: Vec::new(),
            configuration: None,
        }
    }

    fn interface(binding: &str) -> crate::exchange::card::DeclaredInterface {
        serde_json::from_value(serde_json::json!({
            "protocol_binding": binding, "protocol_version": "1.0",
            "url": format!("http://default/{binding}"), "tested": true,
        }))
        .expect("a declared interface")
    }

    /// A report of `results` with its verdict as the runner makes it.
    fn report(results: Vec<CheckResult>) -> Report {
        let target = Target {
            url: "http://default".into(),
            card_url: "http://default/card".into(),
            card_sha256: "sha256:00".into(),
            agent_name: None,
            agent_version: None,
            builtin: false,
            versioned_card: None,
        };
        let selection = Selection::of(&Default::default(), results.len());
        let mut report = Report::begun(target, selection, std::time::SystemTime::now());
        report.interfaces = vec![interface("JSONRPC")];
        let scope = VerdictScope {
            interfaces_tested: 1,
            needs_credentials: Vec::new(),
            must_selected: true,
        };
        let (verdict, reason) = Verdict::of(&results, &scope);
        report.verdict = verdict;
        report.verdict_reason = format!("{reason}; added by the run");
        for r in &results {
            report.totals.entry(r.level).or_default().add(r.status);
        }
        report.results = results;
        report
    }

    fn ran(name: &str, results: Vec<CheckResult>) -> Tested {
        Tested {
            name: name.into(),
            target: format!("http://{name}"),
            card_url: format!("http://{name}/card"),
            declares: Vec::new(),
            checks_run: results.len(),
            outcome: Outcome::Ran(Box::new(report(results))),
        }
    }

    const RPC: Option<Binding> = Some(Binding::Jsonrpc);

    #[test]
    fn a_result_judged_elsewhere_replaces_an_unjudged_default_and_says_where() {
        let default = report(vec![
            result("a", RPC, Status::Pass),
            result("b", RPC, Status::NotApplicable),
            result("c", None, Status::Untestable),
        ]);
        assert_eq!(default.verdict, Verdict::Inconclusive);
        let merged = merge(
            default,
            vec![ran(
                "reduced",
                vec![
                    result("b", RPC, Status::Pass),
                    result("c", None, Status::Pass),
                ],
            )],
        );
        let b = &merged.results[1];
        assert_eq!(
            (b.status, b.configuration.as_deref()),
            (Status::Pass, Some("reduced"))
        );
        assert!(b.message.starts_with("in configuration reduced: "));
        assert_eq!(merged.results[2].configuration.as_deref(), Some("reduced"));
        assert_eq!(
            merged.verdict,
            Verdict::Conformant,
            "{}",
            merged.verdict_reason
        );
        assert!(merged.verdict_reason.contains("; added by the run"));
        assert!(merged
            .verdict_reason
            .contains("2 results judged in other configurations"));
        assert_eq!(merged.totals[&Level::Must].pass, 3);
        assert_eq!(merged.configurations[0].results_taken, 2);
        assert_eq!(merged.configurations[0].verdict, Some(Verdict::Conformant));
    }

    #[test]
    fn a_result_judged_in_the_default_stays_the_defaults() {
        let default = report(vec![result("a", RPC, Status::Pass)]);
        let merged = merge(
            default.clone(),
            vec![ran("reduced", vec![result("a", RPC, Status::Fail)])],
        );
        assert_eq!(merged.results, default.results);
        assert_eq!(merged.verdict, Verdict::Conformant);
        assert_eq!(merged.configurations[0].results_taken, 0);
    }

    #[test]
    fn an_unjudged_result_elsewhere_leaves_the_default_as_it_was() {
        let default = report(vec![
            result("a", RPC, Status::Pass),
            result("b", RPC, Status::NotApplicable),
        ]);
        let merged = merge(
            default.clone(),
            vec![ran("reduced", vec![result("b", RPC, Status::Error)])],
        );
        assert_eq!(merged.results, default.results);
        assert_eq!(merged.verdict_reason, default.verdict_reason);
    }

    #[test]
    fn results_are_matched_by_binding_and_version_not_url() {
        let default = report(vec![
            result("a", RPC, Status::Pass),
            result("b", RPC, Status::NotApplicable),
        ]);
        let mut other = result("b", Some(Binding::Rest), Status::Fail);
        let mut older = result("b", RPC, Status::Fail);
        older.version = Some(ProtocolVersion::V0_3);
        other.message = "elsewhere".into();
        let merged = merge(default, vec![ran("reduced", vec![other, older])]);
        assert_eq!(merged.results[1].status, Status::NotApplicable);
    }

    #[test]
    fn a_failure_elsewhere_fails_the_merged_run_and_names_its_configuration() {
        let default = report(vec![
            result("a", RPC, Status::Pass),
            result("b", RPC, Status::NotApplicable),
        ]);
        let merged = merge(
            default,
            vec![
                ran("reduced", vec![result("b", RPC, Status::Pass)]),
                ran("auth", vec![result("b", RPC, Status::Fail)]),
            ],
        );
        assert_eq!(merged.results[1].configuration.as_deref(), Some("auth"));
        assert_eq!(merged.verdict, Verdict::NonConformant);
        assert!(
            merged.verdict_reason.contains("1 in auth"),
            "{}",
            merged.verdict_reason
        );
        assert_eq!(merged.totals[&Level::Must].fail, 1);
        assert_eq!(merged.totals[&Level::Must].not_applicable, 0);
    }

    #[test]
    fn the_first_configuration_wins_a_tie() {
        let default = report(vec![result("b", RPC, Status::NotApplicable)]);
        let merged = merge(
            default,
            vec![
                ran("reduced", vec![result("b", RPC, Status::Pass)]),
                ran("auth", vec![result("b", RPC, Status::Pass)]),
            ],
        );
        assert_eq!(merged.results[0].configuration.as_deref(), Some("reduced"));
    }

    #[test]
    fn a_configuration_that_could_not_run_leaves_a_conformant_run_inconclusive() {
        let default = report(vec![result("a", RPC, Status::Pass)]);
        let failed = Tested {
            outcome: Outcome::Failed("its agent card is unusable: refused".into()),
            ..ran("auth", Vec::new())
        };
        let merged = merge(default, vec![failed]);
        assert_eq!(merged.verdict, Verdict::Inconclusive);
        assert!(merged
            .verdict_reason
            .contains("configuration auth could not be tested: its agent card is unusable"));
        assert!(merged.configurations[0].failure.is_some());
    }

    #[test]
    fn no_configuration_leaves_the_report_as_it_was() {
        let default = report(vec![result("b", RPC, Status::NotApplicable)]);
        assert_eq!(merge(default.clone(), Vec::new()), default);
    }

    #[test]
    fn the_checks_run_again_are_those_unjudged_in_the_default_once_each() {
        let default = report(vec![
            result("a", RPC, Status::Pass),
            result("b", RPC, Status::NotApplicable),
            result("b", None, Status::NotApplicable),
            result("c", RPC, Status::Untestable),
            result("d", RPC, Status::Error),
        ]);
        assert_eq!(rerun_ids(&default), ["b", "c"]);
    }

    #[test]
    fn a_card_declares_its_capabilities_and_schemes() {
        let card = serde_json::json!({
            "capabilities": {"streaming": true, "pushNotifications": false,
                             "extendedAgentCard": true},
            "securitySchemes": {"bearer": {}}
        });
        assert_eq!(
            declared(&card),
            ["streaming", "extendedAgentCard", "security:bearer"]
        );
    }
}
