//! A client-mode run: ask the client what it supports, then, one play at a time, for every
//! binding x version the selection keeps, start a reference agent for the play behind the stage,
//! serve the play's card, run the client's adapter under its deadline, read back what the agent
//! holds, judge every check of the play, and assemble the same report a run on an agent writes.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use serde_json::{json, Value};

use a2a_reference_agent::{AgentConfig, RunningAgent};

use crate::exchange::card::DeclaredInterface;
use crate::exchange::evidence::Exchange;
use crate::facts::ids::fresh_token;
use crate::facts::model::{Binding, HarnessError, ProtocolVersion, Verdict};
use crate::reporting::report::{
    self, CheckResult, ClientUnderTest, Counts, Mode, Report, Selection, Target,
};
use crate::suite::check::{Level, Status};
use crate::suite::filter::Filter;

use super::adapter::{Adapter, Client};
use super::calls::{self, Call};
use super::card_signing::PlaySigner;
use super::client_checks::{self, ClientCheck};
use super::exchanges;
use super::plays::{self, PlaySpec};
use super::stage::{Play, Stage};
use super::verdicts::{self, Observed, Truth};

const SCENARIOS: &str = include_str!("../../../fixtures/scenarios.json");

/// What a client-mode run needs.
#[derive(Debug, Clone)]
pub struct ClientOptions {
    pub client: Client,
    /// How long one run of the adapter may take.
    pub scenario_timeout: Duration,
    /// Which checks, bindings and versions (`--select`, `--level`, `--binding`, `--protocol-version`).
    pub filter: Filter,
}

/// Every binding, in the order plays run on them.
const BINDINGS: [Binding; 3] = [Binding::Jsonrpc, Binding::Rest, Binding::Grpc];
const VERSIONS: [ProtocolVersion; 2] = [ProtocolVersion::V1_0, ProtocolVersion::V0_3];

/// Runs the client through every play the selection keeps; the report says what it did.
pub async fn run(options: &ClientOptions) -> Report {
    let started = SystemTime::now();
    let table = plays::table();
    let mut selected: Vec<&ClientCheck> = Vec::new();
    for check in client_checks::all() {
        match options.filter.keeps(check.id, check.level) {
            Ok(true) => selected.push(check),
            Ok(false) => {}
            Err(e) => return failed(options, started, e, None),
        }
    }
    let (mut adapter, identity) = match options.client.open(options.scenario_timeout).await {
        Ok(opened) => opened,
        Err(e) => {
            return failed(
                options,
                started,
                format!("the client could not describe itself: {e}"),
                None,
            )
        }
    };
    let stage = match Stage::start().await {
        Ok(stage) => stage,
        Err(e) => {
            return failed(
                options,
                started,
                format!("the scripted agent could not start: {e}"),
                Some(identity),
            )
        }
    };
    let signer = match PlaySigner::new() {
        Ok(signer) => signer,
        Err(e) => return failed(options, started, e, Some(identity)),
    };
    let mut results = Vec::new();
    let mut secrets = Vec::new();
    let interfaces = interfaces_of(options, &identity);
    for spec in &table.plays {
        let checks: Vec<&ClientCheck> = (selected.iter().copied())
            .filter(|c| client_checks::play_of(c) == Some(spec.id.as_str()))
            .collect();
        if checks.is_empty() {
            continue;
        }
        for binding in BINDINGS {
            for version in VERSIONS {
                if not_selected(&options.filter, binding, version).is_some() {
                    continue;
                }
                let here: Vec<&ClientCheck> = (checks.iter().copied())
                    .filter(|c| client_checks::runs_on(c, spec, version))
                    .collect();
                if here.is_empty() {
                    continue;
                }
                if let Some(reason) = unsupported(&identity, spec, binding, version) {
                    let outcome = Ok(Verdict::NotApplicable { reason });
                    results.extend(
                        here.iter()
                            .map(|c| result(c, binding, version, &outcome, Vec::new(), 0)),
                    );
                    continue;
                }
                let play = (&stage, &signer, &mut secrets);
                results.extend(
                    play_once(
                        options,
                        &mut adapter,
                        play,
                        spec,
                        &here,
                        binding,
                        version,
                        &identity,
                    )
                    .await,
                );
            }
        }
    }
    drop(adapter);
    drop(stage);
    let places = interfaces.iter().filter(|i| i.tested).count();
    let mut report = assemble(options, started, identity, results, places, selected.len());
    // The pairs the client declares and the selection keeps, not every pair a result names.
    let tested: Vec<String> = (interfaces.iter().filter(|i| i.tested))
        .filter_map(|i| Some(format!("{} {}", i.binding?, i.version?)))
        .collect();
    report.compatibility = Some(crate::reporting::compat::on(&report.results, tested));
    report.interfaces = interfaces;
    // The plays' bearer tokens, wherever the client or the adapter echoed them.
    crate::reporting::secrets::scrub(report, &secrets)
}

/// Why the selection leaves a binding x version out, if it does.
fn not_selected(
    filter: &Filter,
    binding: Binding,
    version: ProtocolVersion,
) -> Option<&'static str> {
    if !filter.bindings.is_empty() && !filter.bindings.contains(&binding) {
        Some("not selected (--binding)")
    } else if !filter.versions.is_empty() && !filter.versions.contains(&version) {
        Some("not selected (--protocol-version)")
    } else {
        None
    }
}

/// The binding x version pairs of the run, as the report lists interfaces: those the client
/// declares and the selection keeps are tested, each on the scripted agent of every play.
fn interfaces_of(options: &ClientOptions, identity: &ClientUnderTest) -> Vec<DeclaredInterface> {
    let mut all = Vec::new();
    for binding in BINDINGS {
        for version in VERSIONS {
            let declared =
                identity.bindings.contains(&binding) && identity.versions.contains(&version);
            let reason = not_selected(&options.filter, binding, version)
                .map(str::to_owned)
                .or_else(|| (!declared).then(|| "the client does not declare it".to_owned()));
            all.push(DeclaredInterface {
                protocol_binding: plays::binding_name(binding).into(),
                protocol_version: version.as_str().into(),
                url: "the scripted agent of each play".into(),
                tenant: None,
                binding: Some(binding),
                version: Some(version),
                tested: reason.is_none(),
                reason,
                problem: None,
                needs_credentials: false,
                card_a2a_version: None,
            });
        }
    }
    all
}

/// Why a play cannot run on a binding x version for this client, if it cannot.
fn unsupported(
    identity: &ClientUnderTest,
    spec: &PlaySpec,
    binding: Binding,
    version: ProtocolVersion,
) -> Option<String> {
    if !identity.bindings.contains(&binding) {
        return Some(format!(
            "the client declares no {} support",
            binding.title()
        ));
    }
    if !identity.versions.contains(&version) {
        return Some(format!("the client declares no support for A2A {version}"));
    }
    let missing: Vec<&str> = (spec.needs.iter())
        .filter(|n| !identity.features.contains(n))
        .map(String::as_str)
        .collect();
    (!missing.is_empty()).then(|| {
        format!(
            "the play needs the feature(s) {}, which the client's adapter does not declare",
            missing.join(", ")
        )
    })
}

/// The result of `check` on a binding x version: its outcome at its level, by the one mapping.
fn result(
    check: &ClientCheck,
    binding: Binding,
    version: ProtocolVersion,
    outcome: &Result<Verdict, HarnessError>,
    evidence: Vec<Exchange>,
    duration_ms: u64,
) -> CheckResult {
    let status = Status::of(check.level, outcome);
    let message = match outcome {
        Ok(verdict) => verdict.message(),
        Err(error) => error.to_string(),
    };
    // The sentences of the result's version, where the check cites any; else all it cites.
    let prefix = match version {
        ProtocolVersion::V1_0 => "V10-",
        ProtocolVersion::V0_3 => "V03-",
    };
    let cited = check.spec.statements.iter().map(|s| (*s).to_owned());
    let own: Vec<String> = cited.clone().filter(|s| s.starts_with(prefix)).collect();
    let statements = if own.is_empty() { cited.collect() } else { own };
    CheckResult {
        // The version and section of the first sentence cited.
        spec_version: match statements.first() {
            Some(s) if s.starts_with("V03-") => "0.3".into(),
            _ => "1.0".into(),
        },
        section: (statements.first())
            .and_then(|s| crate::facts::registry::section_of(s))
            .unwrap_or_default(),
        statements,
        binding: Some(binding),
        version: Some(version),
        duration_ms,
        // A play's few exchanges are what a reader of any of its results needs (the URL the
        // client called, the headers it sent): kept whatever the status, bounded as a
        // server check's evidence is (see `exchanges`).
        evidence,
        ..CheckResult::of(check, status, message)
    }
}

/// The reference agent a play runs on.
fn backend_config(spec: &PlaySpec, bearer: &Option<String>) -> AgentConfig {
    AgentConfig {
        push: true,
        no_streaming: spec.card.streaming == Some(false),
        required_extension: spec.card.required_extension,
        // The agent asks for the token only where its card declares the scheme.
        bearer_tokens: bearer
            .iter()
            .filter(|_| spec.card.declares_bearer())
            .cloned()
            .collect(),
        ..AgentConfig::default()
    }
}

#[allow(clippy::too_many_arguments)]
async fn play_once(
    options: &ClientOptions,
    adapter: &mut Adapter,
    (stage, signer, secrets): (&Stage, &PlaySigner, &mut Vec<String>),
    spec: &PlaySpec,
    checks: &[&ClientCheck],
    binding: Binding,
    version: ProtocolVersion,
    identity: &ClientUnderTest,
) -> Vec<CheckResult> {
    let clock = std::time::Instant::now();
    let bearer = spec.card.gives_bearer().then(fresh_token);
    secrets.extend(bearer.clone());
    let all_error = |why: String| -> Vec<CheckResult> {
        let outcome = Err(HarnessError::Internal(why));
        checks
            .iter()
            .map(|c| result(c, binding, version, &outcome, Vec::new(), 0))
            .collect()
    };
    let backend = match crate::run::builtin::start_with(backend_config(spec, &bearer)).await {
        Ok(agent) => agent,
        Err(e) => return all_error(format!("the play's reference agent could not start: {e}")),
    };
    let http = match crate::exchange::wire::client() {
        Ok(http) => http,
        Err(e) => return all_error(format!("no HTTP client: {e}")),
    };
    let backend_card = match http.get(backend.card_url()).send().await {
        Ok(answer) => (answer.bytes().await.ok())
            .and_then(|b| serde_json::from_slice::<Value>(&b).ok())
            .unwrap_or(Value::Null),
        Err(e) => {
            return all_error(format!(
                "the play's reference agent did not serve its card: {e}"
            ))
        }
    };
    let token = fresh_token();
    let bases = plays::bases(stage, spec, binding, &token, &identity.bindings);
    let mut card = plays::card_for(spec, binding, version, &bases, &backend_card);
    if let Some(how) = &spec.card.signed {
        card = signer.sign(card, how);
    }
    let trusted_keys = spec.card.signed.is_some().then(|| signer.jwks());
    let card_url = plays::card_url(stage, &token);
    let play = Play::new(token, card.clone(), backend.local_addr(), spec.cut_after)
        .with(plays::stage_options(spec, &card))
        .with_mishaps(spec.mishaps());
    let play = Arc::new(play);
    // The steps of calls the client's API offers; the others are not asked of it.
    let operations = identity.operations.as_deref();
    let asked: Vec<usize> = (0..spec.steps.len())
        .filter(|i| plays::offers(&spec.steps[*i], operations))
        .collect();
    let asked_spec = PlaySpec {
        steps: asked.iter().map(|i| spec.steps[*i].clone()).collect(),
        ..spec.clone()
    };
    let scenario = plays::scenario_file(
        &asked_spec,
        &card_url,
        binding,
        version,
        bearer.as_deref(),
        trusted_keys,
    );
    stage.begin(Arc::clone(&play));
    let outcome = adapter
        .run(&scenario, &card_url, options.scenario_timeout)
        .await;
    stage.end();
    let truth = truth_of(
        &http,
        &backend,
        bearer.clone(),
        spec.card.required_extension,
    )
    .await;
    drop(backend);
    // Each request is read with the prefix of the door it came through.
    let calls: Vec<Call> = play
        .seen()
        .iter()
        .map(|s| calls::read(s, &s.prefix))
        .collect();
    let evidence = exchanges::of_play(&calls, &scenario, &outcome, &options.client);
    let seen = Observed {
        play: spec,
        binding,
        version,
        card: &card,
        calls: &calls,
        outcome: &outcome,
        truth: &truth,
        asked: &asked,
        operations,
    };
    let duration_ms = clock.elapsed().as_millis() as u64;
    checks
        .iter()
        .map(|check| {
            // A step not asked of the client leaves some checks nothing to judge.
            let outcome = verdicts::unasked(check.id, &seen).unwrap_or_else(|| (check.run)(&seen));
            result(
                check,
                binding,
                version,
                &outcome,
                evidence.clone(),
                duration_ms,
            )
        })
        .collect()
}

/// A JSON-RPC 1.0 call of the kit on the play's reference agent.
async fn backend_call(
    http: &reqwest::Client,
    backend: &RunningAgent,
    bearer: Option<&str>,
    extension: bool,
    method: &str,
    params: Value,
) -> Option<Value> {
    let mut request = http
        .post(backend.jsonrpc_url())
        .header("A2A-Version", "1.0")
        .header("Content-Type", "application/json")
        .body(json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).to_string());
    if let Some(token) = bearer {
        request = request.bearer_auth(token);
    }
    if extension {
        request = request.header(
            "A2A-Extensions",
            a2a_reference_agent::extensions::REQUIRED_EXTENSION,
        );
    }
    let bytes = request.send().await.ok()?.bytes().await.ok()?;
    let answer: Value = serde_json::from_slice(&bytes).ok()?;
    answer.get("result").cloned()
}

/// What the play's reference agent holds: every task (with history and artifacts), its
/// extended card, and the text of its direct message.
async fn truth_of(
    http: &reqwest::Client,
    backend: &RunningAgent,
    bearer: Option<String>,
    extension: bool,
) -> Truth {
    let call = |method: &'static str, params: Value| {
        backend_call(http, backend, bearer.as_deref(), extension, method, params)
    };
    let listed = call("ListTasks", json!({"pageSize": 100})).await;
    let mut tasks = Vec::new();
    for task in (listed.as_ref().and_then(|l| l["tasks"].as_array()))
        .into_iter()
        .flatten()
    {
        let id = task["id"].clone();
        let full = call("GetTask", json!({"id": id, "historyLength": 50})).await;
        tasks.push(full.unwrap_or_else(|| task.clone()));
    }
    let extended_card = match bearer {
        Some(_) => call("GetExtendedAgentCard", json!({})).await,
        None => None,
    };
    let message_text = serde_json::from_str::<Value>(SCENARIOS)
        .ok()
        .and_then(|table| {
            (table["scenarios"].as_array().into_iter().flatten())
                .find(|s| s["prefix"] == "tck-message-response")
                .and_then(|s| s["message"]["text"].as_str().map(str::to_owned))
        })
        .unwrap_or_default();
    Truth {
        tasks,
        extended_card,
        message_text,
        bearer,
    }
}

fn target_of(options: &ClientOptions, identity: Option<&ClientUnderTest>) -> Target {
    Target {
        url: match &options.client {
            Client::Command(command) => command.clone(),
            Client::Reference(_) => "builtin reference client".into(),
        },
        card_url: String::new(),
        card_sha256: String::new(),
        agent_name: identity.map(|i| i.name.clone()),
        agent_version: identity.map(|i| i.version.clone()),
        builtin: matches!(options.client, Client::Reference(_)),
        versioned_card: None,
    }
}

/// The report of a run that could not start.
fn failed(
    options: &ClientOptions,
    started: SystemTime,
    why: String,
    identity: Option<ClientUnderTest>,
) -> Report {
    let mut report = Report::begun(
        target_of(options, identity.as_ref()),
        Selection::of(&options.filter, 0),
        started,
    );
    report.mode = Some(Mode::Client);
    report.client = identity;
    report.verdict_reason = why.clone();
    report.failure = Some(report::RunFailure {
        message: why,
        evidence: Vec::new(),
    });
    report
}

fn assemble(
    options: &ClientOptions,
    started: SystemTime,
    identity: ClientUnderTest,
    results: Vec<CheckResult>,
    places: usize,
    selected: usize,
) -> Report {
    let mut totals: BTreeMap<Level, Counts> =
        Level::ALL.iter().map(|l| (*l, Counts::default())).collect();
    for result in &results {
        totals.entry(result.level).or_default().add(result.status);
    }
    let scope = report::VerdictScope {
        interfaces_tested: places,
        needs_credentials: Vec::new(),
        must_selected: results.iter().any(|r| r.level == Level::Must),
    };
    let (verdict, mut verdict_reason) = report::Verdict::of(&results, &scope);
    if places == 0 {
        verdict_reason = "the client declares no binding x version the selection keeps".into();
    }
    let mut spec_versions: Vec<String> = identity
        .versions
        .iter()
        .map(|v| v.as_str().to_owned())
        .collect();
    spec_versions.dedup();
    let target = target_of(options, Some(&identity));
    // The contested sentences the client's results met (the kit's list in `revision`).
    let mut met = crate::facts::revision::Met::default();
    for result in &results {
        let judged = matches!(result.status, Status::Pass | Status::Fail | Status::Warn);
        if judged && result.id == "client.interface.first-supported" {
            let checks = met
                .sentences
                .entry(crate::facts::revision::Sentence::InterfaceChoice)
                .or_default();
            if checks.is_empty() {
                checks.push(result.id.clone());
            }
        }
    }
    let readings = report::AppliedReading::of(crate::facts::revision::Judging::default(), &met);
    Report {
        readings,
        mode: Some(Mode::Client),
        client: Some(identity),
        spec_versions,
        totals,
        verdict,
        verdict_reason,
        compatibility: Some(crate::reporting::compat::of(&results)),
        results,
        ..Report::begun(target, Selection::of(&options.filter, selected), started)
    }
}
