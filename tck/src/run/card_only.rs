//! The card without an agent (`a2a-tck card FILE|URL`): the checks whose scope is the card,
//! run on a card file (a card under review in a repository, before it is deployed) or on the
//! card a URL serves, and nothing sent to the agent's interfaces. The report is the same as a
//! run's, with every declared interface listed as not tested.
//!
//! A file is recorded as a `READ file://...` exchange whose answer (status 200) is the
//! file's content. The checks that judge the HTTP response of the card fetch (media type,
//! caching headers, the well-known path) are N/A for a file, and the checks that reach the
//! agent's interfaces are N/A for both, each with its reason.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Instant, SystemTime};

use futures::StreamExt;
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::exchange::card::{self, CardError, Cards, FetchedCard};
use crate::exchange::evidence::{
    Exchange, RecordedBody, RecordedRequest, RecordedResponse, Recorder,
};
use crate::exchange::transport::Connector;
use crate::exchange::wire::{HttpReply, Wire};
use crate::reporting::report::{CheckResult, Counts, Report, Verdict};
use crate::run::runner::{RunError, RunOptions};
use crate::suite::check::{Check, Level, ProtocolVersion, Scope, Status};
use crate::suite::ctx::Ctx;

/// Where the card comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CardSource {
    /// A card file (also given as a `file://` URL).
    File(PathBuf),
    /// An `http://` or `https://` URL the card is read from.
    Url(String),
}

impl CardSource {
    /// `file://PATH` and anything without a scheme is a file; `http(s)://` a URL.
    pub fn parse(text: &str) -> Result<CardSource, String> {
        if let Some(path) = text.strip_prefix("file://") {
            return Ok(CardSource::File(PathBuf::from(path)));
        }
        if text.starts_with("http://") || text.starts_with("https://") {
            return Ok(CardSource::Url(text.to_string()));
        }
        if text.contains("://") {
            return Err(format!(
                "{text}: a card is read from a file, a file:// URL, or an http:// or https:// URL"
            ));
        }
        Ok(CardSource::File(PathBuf::from(text)))
    }
}

/// The card checks that judge the HTTP response of the card fetch, or the scheme it was
/// served over: N/A for a card file.
pub const NEED_THE_RESPONSE: &[&str] = &[
    "card.discovery.served-at-well-known-path",
    "card.media-type-json",
    "card.caching.cache-control-max-age",
    "card.caching.etag",
    "card.caching.last-modified",
    "tls.interfaces-https",
    "card.signature.jku-over-https",
];

/// The card checks that reach the agent's interfaces or endpoints: N/A without an agent.
pub const NEED_THE_AGENT: &[&str] = &[
    "bindings.task-readable-on-every-binding",
    "versioning.card-declares-every-version",
    "versioning.task-same-in-both-versions",
    "v03.card.declared-transports-answer",
    "tls.tls-1-3-offered",
    "tls.legacy-versions-refused",
    "tls.hsts-on-http-bindings",
];

const FILE_REASON: &str = "the card was read from a file: there is no HTTP response of a card \
     fetch to judge (media type, caching headers, well-known path, the scheme it is served \
     over); run `a2a-tck card URL` on \
     the deployed card to judge them";

const AGENT_REASON: &str = "`a2a-tck card` judges the card alone: this check reaches the \
     agent's interfaces, so it runs in a run against the agent";

/// Why `check` is N/A for a card from `source`, if it is.
fn not_applicable(check: &Check, source: &CardSource) -> Option<&'static str> {
    if NEED_THE_AGENT.contains(&check.id) {
        Some(AGENT_REASON)
    } else if matches!(source, CardSource::File(_)) && NEED_THE_RESPONSE.contains(&check.id) {
        Some(FILE_REASON)
    } else {
        None
    }
}

/// The `file://` URL of a path (absolute, when the current directory is known).
fn file_url(path: &Path) -> String {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    format!("file://{}", absolute.display())
}

/// Reads a card file as the kit reads a fetched card: a JSON object.
pub fn read_file(path: &Path, max_body: usize) -> Result<FetchedCard, (CardError, Vec<Exchange>)> {
    let url = file_url(path);
    let request = RecordedRequest {
        method: "READ".into(),
        url: url.clone(),
        headers: Vec::new(),
        body: None,
    };
    let started = Instant::now();
    let bytes = std::fs::metadata(path)
        .and_then(|m| {
            if m.len() as usize > max_body {
                Err(std::io::Error::other(format!(
                    "the file holds {} bytes, more than the kit's limit of {max_body}",
                    m.len()
                )))
            } else {
                std::fs::read(path)
            }
        })
        .map_err(|e| {
            let exchange = Exchange {
                request: request.clone(),
                response: None,
                error: Some(e.to_string()),
                elapsed_ms: started.elapsed().as_millis() as u64,
                events: Vec::new(),
                dropped: None,
            };
            (
                CardError::Fetch {
                    url: path.display().to_string(),
                    reason: e.to_string(),
                },
                vec![exchange],
            )
        })?;
    let exchange = Exchange {
        request,
        response: Some(RecordedResponse {
            status: 200,
            headers: Vec::new(),
            body: RecordedBody::of(&bytes),
        }),
        error: None,
        elapsed_ms: started.elapsed().as_millis() as u64,
        events: Vec::new(),
        dropped: None,
    };
    let reply = HttpReply {
        status: 200,
        headers: Vec::new(),
        body: bytes,
    };
    let start = String::from_utf8_lossy(&reply.body[..reply.body.len().min(200)]).into_owned();
    let json: Value = match serde_json::from_slice(&reply.body) {
        Ok(json) => json,
        Err(e) => {
            let error = CardError::NotJson {
                url: path.display().to_string(),
                reason: e.to_string(),
                content_type: None,
                body: start,
            };
            return Err((error, vec![exchange]));
        }
    };
    if !json.is_object() {
        let error = CardError::NotObject {
            url: path.display().to_string(),
        };
        return Err((error, vec![exchange]));
    }
    let sha256 = format!("sha256:{:x}", Sha256::digest(&reply.body));
    Ok(FetchedCard {
        url,
        reply,
        json,
        sha256,
        exchange,
        a2a_version: None,
        assumed_version: None,
    })
}

/// Runs the selected card checks of `catalog` on the card from `source`. `options` gives the
/// selection, limits, headers (for a URL), trusted keys and CA certificates; its target and
/// card URL name the source in the report.
pub async fn run(
    catalog: &[Check],
    options: &RunOptions,
    source: &CardSource,
) -> Result<Report, RunError> {
    let selected: Vec<&Check> = options
        .filter
        .apply(catalog)
        .map_err(RunError::Usage)?
        .into_iter()
        .filter(|c| matches!(c.scope, Scope::Card))
        .collect();
    let crate::run::runner::Start {
        started_at,
        started,
        client,
        extra,
        timings,
        pace: _,
    } = crate::run::runner::Start::new(options)?;
    let wire = |recorder: Recorder| {
        Wire::new(
            client.clone(),
            options.limits,
            recorder.observed_by(timings.clone()),
        )
        .with_headers(extra.clone())
    };
    let cards = match source {
        CardSource::File(path) => match read_file(path, options.limits.max_body) {
            Ok(card) => Cards::assuming(card, None, options.assume_version),
            Err((error, evidence)) => return Err(RunError::Card { error, evidence }),
        },
        CardSource::Url(url) => {
            let card_wire = wire(Recorder::default());
            let plain = match card::fetch(&card_wire, url).await {
                Ok(card) => card,
                Err(error) => {
                    let evidence = card_wire.recorder().take();
                    return Err(RunError::Card { error, evidence });
                }
            };
            let v1_0 = card::fetch_as(&wire(Recorder::default()), url, Some(ProtocolVersion::V1_0))
                .await
                .ok();
            Cards::assuming(plain, v1_0, options.assume_version)
        }
    };
    let fetched = cards.plain.clone();
    let connector = Connector::trusting(&fetched.url, Arc::new(options.ca_certs.clone()));
    let trusted_keys = Arc::new(options.trusted_keys.clone());
    let mut plan: Vec<(&Check, Arc<FetchedCard>)> = Vec::new();
    for check in &selected {
        for card in cards.all() {
            if Arc::ptr_eq(card, &fetched) || !is_cross_card(check.id) {
                plan.push((check, card.clone()));
            }
        }
    }
    let run_id = format!("tck-card-{}", std::process::id());
    // No card check judges a sentence the revisions word differently: the default judging,
    // for its record of the signatures' canonical forms.
    let met = crate::facts::revision::MetLog::default();
    let mut results: Vec<(usize, CheckResult)> =
        futures::stream::iter(plan.into_iter().enumerate())
            .map(|(index, (check, card))| {
                let version = card.a2a_version;
                let ctx = Ctx::new(
                    card,
                    None,
                    wire(Recorder::default()),
                    connector.clone(),
                    &format!("{run_id}-{index}"),
                )
                .with_trusted_keys(trusted_keys.clone())
                .with_judging(crate::facts::revision::Judging::default(), met.clone());
                let reason = not_applicable(check, source);
                async move {
                    let mut result = match reason {
                        Some(reason) => na(check, reason),
                        None => {
                            crate::run::runner::execute(
                                check,
                                ctx,
                                crate::run::runner::Deadline::fixed(options.check_timeout),
                                None,
                            )
                            .await
                        }
                    };
                    result.version = version;
                    (index, result)
                }
            })
            .buffer_unordered(options.jobs.max(1))
            .collect()
            .await;
    results.sort_by_key(|(index, _)| *index);
    let results: Vec<CheckResult> = results.into_iter().map(|(_, r)| r).collect();
    let mut totals: BTreeMap<Level, Counts> = Level::ALL
        .iter()
        .map(|level| (*level, Counts::default()))
        .collect();
    for result in &results {
        totals.entry(result.level).or_default().add(result.status);
    }
    // The card is the one thing under test here.
    let scope = crate::reporting::report::VerdictScope {
        interfaces_tested: 1,
        needs_credentials: Vec::new(),
        must_selected: results.iter().any(|r| r.level == Level::Must),
    };
    let (verdict, mut verdict_reason) = Verdict::of(&results, &scope);
    verdict_reason.push_str(
        "; the card alone was judged: `a2a-tck card` sends nothing to the agent's interfaces",
    );
    let (mut declared, _) = cards.interfaces();
    for entry in &mut declared {
        entry.tested = false;
        entry.reason = Some("`a2a-tck card` tests the card, not the agent's interfaces".into());
    }
    let mut spec_versions: Vec<String> = declared
        .iter()
        .filter_map(|d| d.version.map(|v| v.as_str().to_string()))
        .collect();
    spec_versions.sort();
    spec_versions.dedup();
    let text = |k: &str| {
        (fetched.json.get(k))
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    let mut report =
        crate::run::failure::card_unusable(catalog, options, started_at, String::new(), Vec::new());
    report.failure = None;
    report.spec_versions = spec_versions;
    report.target.card_sha256 = fetched.sha256.clone();
    report.target.agent_name = text("name");
    report.target.agent_version = text("version");
    report.target.versioned_card =
        cards
            .v1_0
            .as_ref()
            .map(|card| crate::reporting::report::VersionedCard {
                a2a_version: ProtocolVersion::V1_0,
                card_sha256: card.sha256.clone(),
                agent_name: (card.json.get("name"))
                    .and_then(Value::as_str)
                    .map(str::to_string),
                agent_version: (card.json.get("version"))
                    .and_then(Value::as_str)
                    .map(str::to_string),
            });
    report.selection.checks_selected = selected.len();
    report.interfaces = declared;
    report.compatibility = Some(crate::reporting::compat::of(&results));
    let met = std::mem::take(&mut *met.lock().unwrap_or_else(|e| e.into_inner()));
    report.readings = crate::reporting::report::AppliedReading::of(
        crate::facts::revision::Judging::default(),
        &met,
    );
    report.card_signatures = crate::reporting::report::SignatureForms::of(&met);
    report.latency = timings.figures();
    report.totals = totals;
    report.verdict = verdict;
    report.verdict_reason = verdict_reason;
    report.results = results;
    report.finished_at = humantime::format_rfc3339_millis(SystemTime::now()).to_string();
    report.duration_ms = started.elapsed().as_millis() as u64;
    let secrets = crate::reporting::secrets::of_headers(options.headers.iter());
    Ok(crate::reporting::secrets::scrub(report, &secrets))
}

/// Card checks that judge across both cards an agent serves run once, on the plain card (as
/// in a run; see the runner).
fn is_cross_card(id: &str) -> bool {
    ["versioning.", "bindings.", "v03."]
        .iter()
        .any(|prefix| id.starts_with(prefix))
}

/// The N/A result of `check`, with `reason`.
fn na(check: &Check, reason: &str) -> CheckResult {
    CheckResult::of(check, Status::NotApplicable, reason.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sources_are_files_or_http_urls() {
        assert_eq!(
            CardSource::parse("card.json"),
            Ok(CardSource::File("card.json".into()))
        );
        assert_eq!(
            CardSource::parse("file:///tmp/card.json"),
            Ok(CardSource::File("/tmp/card.json".into()))
        );
        assert_eq!(
            CardSource::parse("https://h/.well-known/agent-card.json"),
            Ok(CardSource::Url(
                "https://h/.well-known/agent-card.json".into()
            ))
        );
        assert!(CardSource::parse("ftp://h/card.json").is_err());
    }

    #[test]
    fn the_listed_checks_are_card_checks_of_the_catalogue() {
        let catalog = crate::suite::checks::all();
        for id in NEED_THE_RESPONSE.iter().chain(NEED_THE_AGENT) {
            let check = catalog.iter().find(|c| c.id == *id);
            assert!(
                check.is_some_and(|c| matches!(c.scope, Scope::Card)),
                "{id} is not a card check of the catalogue"
            );
        }
    }
}
