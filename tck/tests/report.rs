//! The report is a contract: its committed JSON Schema matches the Rust types, real reports
//! validate against it, truncated reports are rejected, and a full builtin report is pinned.

use std::path::PathBuf;

use a2a_tck::reporting::report::{Report, ReportError};
use a2a_tck::run::runner::{self, RunOptions};

fn schema_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../schemas/report.schema.json")
}

/// Every field of the report is documented: the types are the library's public model
/// (`a2a_tck::api::model`), and their doc comments are the schema's descriptions. The keys of
/// a map by level (`totals`, `compatibility.levels`) are the levels themselves.
#[test]
fn every_field_of_the_report_is_documented() {
    let schema: serde_json::Value = serde_json::from_str(&Report::schema()).expect("JSON");
    fn walk(node: &serde_json::Value, path: &str, missing: &mut Vec<String>) {
        match node {
            serde_json::Value::Object(map) => {
                if let Some(serde_json::Value::Object(properties)) = map.get("properties") {
                    let by_level = properties
                        .keys()
                        .all(|k| ["MUST", "SHOULD", "MAY"].contains(&k.as_str()));
                    for (name, property) in properties {
                        if !by_level && property.get("description").is_none() {
                            missing.push(format!("{path}/{name}"));
                        }
                    }
                }
                for (key, value) in map {
                    walk(value, &format!("{path}/{key}"), missing);
                }
            }
            serde_json::Value::Array(items) => {
                for item in items {
                    walk(item, path, missing);
                }
            }
            _ => {}
        }
    }
    let mut missing = Vec::new();
    walk(&schema, "", &mut missing);
    if let Some(serde_json::Value::Object(defs)) = schema.get("$defs") {
        for (name, def) in defs {
            if def.get("description").is_none() {
                missing.push(format!("$defs/{name}"));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "undocumented in the report's types: {missing:#?}"
    );
}
#[test]
fn committed_schema_matches_the_types() {
    let generated = Report::schema();
    let path = schema_path();
    if std::env::var_os("UPDATE_SCHEMAS").is_some() {
        std::fs::write(&path, &generated).expect("write schema");
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "schemas/report.schema.json is out of date with the report types; \
         regenerate it with `UPDATE_SCHEMAS=1 cargo test -p a2a-tck --test suite report::`"
    );
}

async fn builtin_report(jobs: usize) -> Report {
    let agent = a2a_tck::run::builtin::start(&[])
        .await
        .expect("agent starts");
    let mut options = RunOptions::new(&agent.base_url(), &agent.card_url());
    options.builtin = true;
    options.jobs = jobs;
    // Stated, so no contract probe sends messages before the checks (task ids stay put).
    options.contract = Some(a2a_tck::suite::contract::Contract::Kit);
    let report = runner::run(&a2a_tck::suite::checks::all(), &options)
        .await
        .expect("run");
    agent.shutdown().await;
    report
}

/// The report of a run whose card cannot be fetched (a port nothing listens on).
async fn unusable_card_report() -> Report {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    let target = format!("http://127.0.0.1:{port}");
    let options = RunOptions::new(&target, &format!("{target}/.well-known/agent-card.json"));
    let catalog = a2a_tck::suite::checks::all();
    let started = std::time::SystemTime::now();
    match runner::run(&catalog, &options).await {
        Err(runner::RunError::Card { error, evidence }) => {
            let message = error.to_string();
            a2a_tck::run::failure::card_unusable(&catalog, &options, started, message, evidence)
        }
        other => panic!("expected an unusable card, got {other:?}"),
    }
}

#[tokio::test]
async fn reports_validate_against_the_schema() {
    let schema: serde_json::Value =
        serde_json::from_str(&Report::schema()).expect("schema is JSON");
    let validator = jsonschema::validator_for(&schema).expect("schema compiles");
    // A passing report, and one full of failures with evidence.
    let mut reports = vec![builtin_report(16).await];
    let agent = a2a_tck::run::builtin::start(&["omit-error-info".parse().expect("fault")])
        .await
        .expect("agent");
    let options = RunOptions::new(&agent.base_url(), &agent.card_url());
    reports.push(
        runner::run(&a2a_tck::suite::checks::all(), &options)
            .await
            .expect("run"),
    );
    agent.shutdown().await;
    reports.push(unusable_card_report().await);
    for report in reports {
        let instance = serde_json::to_value(&report).expect("serializes");
        let errors: Vec<String> = validator
            .iter_errors(&instance)
            .map(|e| e.to_string())
            .collect();
        assert!(
            errors.is_empty(),
            "report does not match its schema: {errors:?}"
        );
    }
}

#[tokio::test]
async fn truncated_and_foreign_reports_are_rejected() {
    let report = builtin_report(16).await;
    let dir = std::env::temp_dir().join(format!("a2a-tck-report-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let whole = dir.join("whole.json");
    report.write(&whole).expect("write");
    assert_eq!(Report::read(&whole).expect("reads back"), report);

    let text = report.to_json();
    let cut = dir.join("cut.json");
    std::fs::write(&cut, &text[..text.len() / 2]).expect("write");
    assert!(matches!(Report::read(&cut), Err(ReportError::Parse { .. })));

    let mut value = serde_json::to_value(&report).expect("value");
    value["complete"] = serde_json::json!(false);
    let unmarked = dir.join("unmarked.json");
    std::fs::write(&unmarked, value.to_string()).expect("write");
    assert!(matches!(
        Report::read(&unmarked),
        Err(ReportError::Incomplete { .. })
    ));

    value["complete"] = serde_json::json!(true);
    value["format_version"] = serde_json::json!(99);
    let foreign = dir.join("foreign.json");
    std::fs::write(&foreign, value.to_string()).expect("write");
    assert!(matches!(
        Report::read(&foreign),
        Err(ReportError::Version { found: 99, .. })
    ));
}

#[tokio::test]
async fn builtin_report_snapshot() {
    // One check at a time, so the agent's ids are the same on every run.
    let report = builtin_report(1).await;
    // A check that judged nothing is N/A, not a PASS over "0 URLs" or "0 events".
    let empty: Vec<String> = (report.results.iter())
        .filter(|r| r.status == a2a_tck::suite::check::Status::Pass)
        .filter(|r| r.message.starts_with("0 ") || r.message.contains(" 0 "))
        .map(|r| format!("{}: {}", r.id, r.message))
        .collect();
    assert!(empty.is_empty(), "PASS over nothing: {empty:?}");
    insta::assert_json_snapshot!("builtin-report", report, {
        ".started_at" => "[time]",
        ".finished_at" => "[time]",
        ".duration_ms" => "[ms]",
        ".results[].duration_ms" => "[ms]",
        // The agent's latency varies from run to run; its shape is tested in `outputs`.
        ".latency" => "[latency]",
        ".target.url" => "[url]",
        ".target.card_url" => "[url]",
        ".target.card_sha256" => "[sha256]",
        ".interfaces[].url" => "[url]",
    });
}

#[tokio::test]
async fn result_order_is_deterministic() {
    let ids = |r: &Report| -> Vec<(String, Option<String>)> {
        r.results
            .iter()
            .map(|x| (x.id.clone(), x.binding.map(|b| b.to_string())))
            .collect()
    };
    let (a, b) = (builtin_report(16).await, builtin_report(3).await);
    assert_eq!(ids(&a), ids(&b));
}
