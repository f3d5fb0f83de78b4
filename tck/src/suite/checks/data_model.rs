//! Data model checks (`data-model.*`): REQUIRED fields, oneofs, ProtoJSON names, enums and
//! timestamps on the wire (spec 1.0 §4.1, §5.5, §5.6.1, §5.7). These read what the proto
//! requires directly, so a missing field cannot slip past a schema without `required` arrays.

pub mod utf8;
pub mod wire;
use crate::suite::check::Needs;
use serde_json::Value;

use super::setup::{task_id, verdict_from, Setup};
use super::EVERY_BINDING_1_0;
use crate::facts::a2a::{self, PART_CONTENT, ROLES, TASK_STATES};
use crate::suite::check::{Check, HarnessError, Level, SpecRef, Verdict};
use crate::suite::ctx::Ctx;

/// The id prefix of every check in this module.
pub const PREFIX: &str = "data-model";

/// This module's checks, in spec order.
pub fn checks() -> Vec<Check> {
    vec![
        Check {
            id: "data-model.task.required-fields",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "5.7", statements: &["V10-5.7-02", "V10-P-19"] },
            requirement: "A Task carries its REQUIRED fields: a non-empty id and a status with a state",
            scope: EVERY_BINDING_1_0,
            requires: &[],
            maps_to: &["DM-TASK-001", "DM-STATUS-001", "DM-SERIAL-004"],
            acts: &["DM-SERIAL-002"],
            reading: None,
            needs: Needs::NONE.sends(&["tck-artifact-text"]).weighs(2),
            run: |ctx| Box::pin(task_required(ctx)),
        },
        Check {
            id: "data-model.message.required-fields",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "5.7", statements: &["V10-5.7-02", "V10-5.7-04", "V10-P-19", "V10-D-4.1.6-01"] },
            requirement: "A Message carries messageId, a valid role and at least one part, each part with exactly one content member: the direct reply, and every message inside a task (status message, history)",
            scope: EVERY_BINDING_1_0,
            requires: &[],
            maps_to: &["DM-MSG-001", "DM-MSG-002", "DM-PART-001"],
            acts: &["CORE-SEND-003"],
            reading: Some(
                "Read: the direct reply to `tck-message-response`; the task of \
                 `tck-artifact-text` as SendMessage and GetTask give it; an input-required task \
                 and, when the agent plays `tck-fail-task`, a failed one, as GetTask \
                 (historyLength 100) gives them: their status message and every message of \
                 their history, the agent's own steps included. A message with empty `parts` \
                 fails wherever it is stored. A source the agent does not produce is left out.",
            ),
            needs: Needs::NONE.sends(&["tck-artifact-text", "tck-message-response", "tck-input-required", "tck-fail-task"]).weighs(7),
            run: |ctx| Box::pin(message_required(ctx)),
        },
        Check {
            id: "data-model.artifact.required-fields",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "5.7", statements: &["V10-5.7-02", "V10-5.7-04", "V10-P-11", "V10-P-19", "V10-D-4.1.6-01"] },
            requirement: "An Artifact carries a non-empty artifactId and at least one part, each part with exactly one content member of its kind's form: text and url strings, raw bytes as base64",
            scope: EVERY_BINDING_1_0,
            requires: &[],
            maps_to: &["DM-ART-001"],
            acts: &["DM-ART-001", "DM-ART-002", "DM-ART-003", "DM-ART-004"],
            reading: Some(
                "Read: the artifacts of `tck-artifact-text` (required), and of \
                 `tck-artifact-data`, `tck-artifact-file` and `tck-artifact-file-url` when the \
                 contract gives them (the answer's artifacts, else GetTask's). A scenario the \
                 agent does not play is left out, never failed: which kinds were judged is in \
                 the result. `raw` is bytes, so base64 in ProtoJSON (standard or URL-safe, \
                 padded or not); `data` may hold any JSON value in 1.0. Neither filename nor \
                 mediaType is required on a file part (ACTS DM-ART-003/004 assert them, and a \
                 0.3 `file` member the 1.0 part does not have): their absence is not judged.",
            ),
            needs: Needs::NONE.sends(&["tck-artifact-text", "tck-artifact-data", "tck-artifact-file", "tck-artifact-file-url"]),
            run: |ctx| Box::pin(artifact_required(ctx)),
        },
        Check {
            id: "data-model.json.camel-case-field-names",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "5.5", statements: &["V10-5.5-01"] },
            requirement: "JSON field names are camelCase, never the proto's snake_case",
            scope: super::JSON_1_0,
            requires: &[],
            maps_to: &["DM-SERIAL-001"],
            acts: &["DM-FMT-001"],
            reading: Some("Free-form members (`metadata`, a data part's `data`) are not inspected."),
            needs: Needs::NONE.sends(&["tck-artifact-text"]).weighs(2),
            run: |ctx| Box::pin(camel_case(ctx)),
        },
        Check {
            id: "data-model.enums.protojson-names",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "5.5", statements: &["V10-5.5-02"] },
            requirement: "Enums are their ProtoJSON string names: TASK_STATE_* states and ROLE_* roles",
            scope: super::JSON_1_0,
            requires: &[],
            maps_to: &["DM-SERIAL-002", "DM-TASK-002", "DM-MSG-002"],
            acts: &["DM-FMT-002"],
            reading: None,
            needs: Needs::NONE.sends(&["tck-artifact-text"]).weighs(2),
            run: |ctx| Box::pin(enum_names(ctx)),
        },
        Check {
            id: "data-model.timestamps.utc-z",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "5.6.1", statements: &["V10-5.6.1-01", "V10-5.6.1-03", "V10-5.6.1-05"] },
            requirement: "Timestamps are ISO 8601 / RFC 3339 strings in UTC with the `Z` designator, no other offset",
            scope: super::JSON_1_0,
            requires: &[],
            maps_to: &["DM-SERIAL-003"],
            acts: &["DM-SERIAL-001"],
            reading: None,
            needs: Needs::NONE.sends(&["tck-artifact-text"]).weighs(2),
            run: |ctx| Box::pin(timestamps(ctx)),
        },
        Check {
            id: "data-model.no-kind-discriminator",
            level: Level::Should,
            spec: SpecRef { version: "1.0", section: "A.2.1", statements: &["V10-D-A.2.1-01"] },
            requirement: "The 0.3 `kind` discriminator is not emitted in 1.0 objects",
            scope: super::JSON_1_0,
            requires: &[],
            maps_to: &[],
            acts: &[],
            reading: Some("Appendix A.2.1 says `kind` \"should not be emitted\" (lowercase); read as SHOULD."),
            needs: Needs::NONE.sends(&["tck-artifact-text"]).weighs(2),
            run: |ctx| Box::pin(no_kind(ctx)),
        },
    ]
}

/// A task with history, an agent status message and an artifact, fetched back with GetTask:
/// the richest object the core operations produce.
async fn sample_tasks(ctx: &Ctx) -> Result<Vec<Value>, HarnessError> {
    let sent = ctx.create_task("tck-artifact-text").await?;
    let got = ctx.get_task(&task_id(&sent), None).await?;
    let got = got.result().cloned().ok_or_else(|| {
        HarnessError::Prerequisite(format!(
            "GetTask failed for a task just created: {}",
            got.describe()
        ))
    })?;
    Ok(vec![sent, got])
}

fn task_problems(task: &Value, label: &str) -> Vec<String> {
    let mut problems = Vec::new();
    if a2a::text(task, "id").is_none() {
        problems.push(format!("{label}: `id` missing or empty"));
    }
    match task.get("status") {
        Some(status) if status.is_object() => match status.get("state") {
            Some(Value::String(s)) if s != "TASK_STATE_UNSPECIFIED" => {}
            other => problems.push(format!(
                "{label}: `status.state` is {}",
                a2a::shown_json(other)
            )),
        },
        other => problems.push(format!("{label}: `status` is {}", a2a::shown_json(other))),
    }
    problems
}

async fn task_required(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let tasks = sample_tasks(&ctx).await?;
    let problems: Vec<String> = ["SendMessage task", "GetTask task"]
        .iter()
        .zip(&tasks)
        .flat_map(|(label, task)| task_problems(task, label))
        .collect();
    Ok(verdict_from(problems, "id and status.state on every Task"))
}

fn part_problems(parts: Option<&Value>, label: &str) -> Vec<String> {
    let Some(parts) = parts.and_then(Value::as_array).filter(|p| !p.is_empty()) else {
        return vec![format!("{label}: `parts` missing or empty")];
    };
    parts
        .iter()
        .enumerate()
        .filter_map(|(i, part)| {
            let members: Vec<&str> = PART_CONTENT
                .iter()
                .copied()
                .filter(|k| part.get(*k).is_some())
                .collect();
            (members.len() != 1)
                .then(|| format!("{label}.parts[{i}] has content members {members:?}"))
        })
        .collect()
}

fn message_problems(message: &Value, label: &str) -> Vec<String> {
    let mut problems = Vec::new();
    if a2a::text(message, "messageId").is_none() {
        problems.push(format!("{label}: `messageId` missing or empty"));
    }
    match message.get("role").and_then(Value::as_str) {
        Some(r) if ROLES.contains(&r) => {}
        other => problems.push(format!("{label}: `role` is {}", a2a::shown(other))),
    }
    problems.extend(part_problems(message.get("parts"), label));
    problems
}

async fn message_required(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let answer = ctx
        .send_message(ctx.user_message("tck-message-response"), None)
        .await?;
    // Two sources, each optional: a direct Message reply, and the messages inside a task.
    let mut messages: Vec<(String, Value)> = Vec::new();
    if let Some(m) = answer.result().and_then(|r| r.get("message")) {
        messages.push(("message".into(), m.clone()));
    }
    let tasks = match sample_tasks(&ctx).await {
        Ok(tasks) => tasks,
        Err(HarnessError::Prerequisite(_)) => Vec::new(),
        Err(other) => return Err(other),
    };
    let mut tasks: Vec<(String, Value)> = tasks
        .into_iter()
        .enumerate()
        .map(|(t, task)| (format!("task[{t}]"), task))
        .collect();
    tasks.extend(interrupted_and_failed(&ctx).await?);
    for (t, task) in &tasks {
        if let Some(status_message) = task.get("status").and_then(|s| s.get("message")) {
            messages.push((format!("{t}.status.message"), status_message.clone()));
        }
        for (i, m) in a2a::items(task, "history").enumerate() {
            messages.push((format!("{t}.history[{i}]"), m.clone()));
        }
    }
    if messages.is_empty() {
        return Err(HarnessError::Prerequisite(format!(
            "no message to examine: no Message reply (prefix `tck-message-response`: {}), and no \
             status message or history in the tasks",
            answer.describe()
        )));
    }
    let problems: Vec<String> = messages
        .iter()
        .flat_map(|(label, m)| message_problems(m, label))
        .collect();
    Ok(verdict_from(
        problems,
        "Messages with messageId, role and valid parts",
    ))
}

/// The history GetTask is asked for on the input-required and failed tasks.
const HISTORY_READ: i64 = 100;

/// An input-required task and, when the agent plays `tck-fail-task`, a failed one, each read
/// back with GetTask and its history, labelled by state: agents keep the messages of their
/// intermediate steps there (status messages of WORKING, the question of INPUT_REQUIRED, the
/// reason of FAILED). A task the agent does not produce is left out.
async fn interrupted_and_failed(ctx: &Ctx) -> Result<Vec<(String, Value)>, HarnessError> {
    let mut wanted = vec![("tck-input-required", "TASK_STATE_INPUT_REQUIRED")];
    if ctx.scenarios().honours("tck-fail-task") {
        wanted.push(("tck-fail-task", "TASK_STATE_FAILED"));
    }
    let mut tasks = Vec::new();
    for (prefix, state) in wanted {
        let task = match ctx.create_task_in_state(prefix, state).await {
            Ok(task) => task,
            Err(HarnessError::Prerequisite(_)) => continue,
            Err(other) => return Err(other),
        };
        let read = ctx.get_task(&task_id(&task), Some(HISTORY_READ)).await?;
        let label = format!(
            "{} task",
            state.trim_start_matches("TASK_STATE_").to_lowercase()
        );
        match read.result() {
            Some(got) => tasks.push((format!("{label} (GetTask)"), got.clone())),
            None => tasks.push((format!("{label} (SendMessage)"), task)),
        }
    }
    Ok(tasks)
}

/// The artifact scenarios beyond text: each, when the contract gives it, is sent and what
/// the agent produced is judged like the text artifact, with the rule of its part kind.
const MORE_ARTIFACTS: &[&str] = &[
    "tck-artifact-data",
    "tck-artifact-file",
    "tck-artifact-file-url",
];

async fn artifact_required(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let task = ctx.create_task("tck-artifact-text").await?;
    let Some(artifacts) = task
        .get("artifacts")
        .and_then(Value::as_array)
        .filter(|a| !a.is_empty())
    else {
        return Err(HarnessError::Prerequisite(
            "SendMessage (prefix `tck-artifact-text`) returned a task without artifacts".into(),
        ));
    };
    let mut problems = artifact_problems(artifacts, "artifacts");
    let mut kinds = part_kinds(artifacts);
    for prefix in MORE_ARTIFACTS {
        if !ctx.scenarios().honours(prefix) {
            continue;
        }
        // A scenario the agent does not play (no task, no artifact) is left out: the
        // contract is a promise, not a rule of the spec.
        let Some(artifacts) = produced_artifacts(&ctx, prefix).await else {
            continue;
        };
        problems.extend(artifact_problems(
            &artifacts,
            &format!("{prefix} artifacts"),
        ));
        kinds.extend(part_kinds(&artifacts));
    }
    let expected = "artifacts with artifactId and valid parts";
    Ok(if problems.is_empty() {
        let kinds: Vec<&str> = kinds.into_iter().collect();
        Verdict::pass_with(format!(
            "{expected}; part kinds judged: {}",
            kinds.join(", ")
        ))
    } else {
        verdict_from(problems, expected)
    })
}

/// The artifacts of the task `prefix` makes: those of the SendMessage answer, else those
/// GetTask gives (an agent that answered before the work ended); `None` when there are none.
async fn produced_artifacts(ctx: &Ctx, prefix: &str) -> Option<Vec<Value>> {
    let task = ctx.create_task(prefix).await.ok()?;
    let of = |task: &Value| {
        task.get("artifacts")
            .and_then(Value::as_array)
            .filter(|a| !a.is_empty())
            .cloned()
    };
    if let Some(artifacts) = of(&task) {
        return Some(artifacts);
    }
    let read = ctx.get_task(&task_id(&task), None).await.ok()?;
    read.result().and_then(of)
}

fn artifact_problems(artifacts: &[Value], label: &str) -> Vec<String> {
    let mut problems = Vec::new();
    for (i, artifact) in artifacts.iter().enumerate() {
        let label = format!("{label}[{i}]");
        if a2a::text(artifact, "artifactId").is_none() {
            problems.push(format!("{label}: `artifactId` missing or empty"));
        }
        problems.extend(part_problems(artifact.get("parts"), &label));
        let parts = artifact.get("parts").and_then(Value::as_array);
        for (j, part) in parts.into_iter().flatten().enumerate() {
            problems.extend(content_problem(part, &format!("{label}.parts[{j}]")));
        }
    }
    problems
}

/// The content members the parts of `artifacts` use.
fn part_kinds(artifacts: &[Value]) -> std::collections::BTreeSet<&'static str> {
    artifacts
        .iter()
        .filter_map(|a| a.get("parts").and_then(Value::as_array))
        .flatten()
        .flat_map(|part| {
            PART_CONTENT
                .iter()
                .copied()
                .filter(|k| part.get(*k).is_some())
        })
        .collect()
}

/// What is wrong with a part's content member for its kind (ProtoJSON, spec 1.0 §5.5):
/// `text` and `url` are strings (a url not empty), `raw` is bytes, so base64 in JSON (standard
/// or URL-safe, padded or not: ProtoJSON accepts all four). `data` may be any JSON value.
fn content_problem(part: &Value, label: &str) -> Option<String> {
    use base64::Engine as _;
    let engines = [
        base64::engine::general_purpose::STANDARD,
        base64::engine::general_purpose::STANDARD_NO_PAD,
        base64::engine::general_purpose::URL_SAFE,
        base64::engine::general_purpose::URL_SAFE_NO_PAD,
    ];
    if let Some(raw) = part.get("raw") {
        let Some(raw) = raw.as_str() else {
            return Some(format!(
                "{label}: `raw` is {}, not a base64 string",
                a2a::brief(raw, 80)
            ));
        };
        if !engines.iter().any(|e| e.decode(raw).is_ok()) {
            return Some(format!(
                "{label}: `raw` is not base64: {}",
                a2a::brief(&Value::from(raw), 80)
            ));
        }
    }
    if let Some(url) = part.get("url") {
        if url.as_str().is_none_or(str::is_empty) {
            return Some(format!(
                "{label}: `url` is {}, not a non-empty string",
                a2a::brief(url, 80)
            ));
        }
    }
    match part.get("text") {
        Some(text) if !text.is_string() => Some(format!(
            "{label}: `text` is {}, not a string",
            a2a::brief(text, 80)
        )),
        _ => None,
    }
}

/// Visits every object key outside free-form members, with its JSON path.
fn walk_keys(value: &Value, path: &str, visit: &mut dyn FnMut(&str, &str, &Value)) {
    match value {
        Value::Object(map) => {
            for (key, child) in map {
                let here = format!("{path}.{key}");
                visit(&here, key, child);
                if key != "metadata" && key != "data" {
                    walk_keys(child, &here, visit);
                }
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                walk_keys(item, &format!("{path}[{i}]"), visit);
            }
        }
        _ => {}
    }
}

async fn camel_case(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let mut problems = Vec::new();
    for task in sample_tasks(&ctx).await? {
        walk_keys(&task, "task", &mut |path, key, _| {
            if key.contains('_') {
                problems.push(path.to_string());
            }
        });
    }
    Ok(verdict_from(problems, "camelCase field names only"))
}

async fn enum_names(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let mut problems = Vec::new();
    let mut seen = 0;
    for task in sample_tasks(&ctx).await? {
        walk_keys(&task, "task", &mut |path, key, value| {
            let allowed: &[&str] = match key {
                "state" => TASK_STATES,
                "role" => ROLES,
                _ => return,
            };
            seen += 1;
            if !value.as_str().is_some_and(|v| allowed.contains(&v)) {
                problems.push(format!("{path} is {value}"));
            }
        });
    }
    if seen == 0 {
        return Ok(Verdict::NotApplicable {
            reason: "the tasks carry no state or role member to judge (a missing status.state \
                     is judged by data-model.task.required-fields)"
                .into(),
        });
    }
    Ok(verdict_from(problems, "TASK_STATE_* and ROLE_* enum names"))
}

/// `YYYY-MM-DDTHH:MM:SS[.fraction]Z`, and a real instant.
fn is_utc_z(value: &str) -> bool {
    let bytes = value.as_bytes();
    let shape = |i: usize, digit: bool| bytes.get(i).is_some_and(|b| b.is_ascii_digit() == digit);
    let fixed = (0..4).all(|i| shape(i, true))
        && bytes.get(4) == Some(&b'-')
        && (5..7).all(|i| shape(i, true))
        && bytes.get(7) == Some(&b'-')
        && (8..10).all(|i| shape(i, true))
        && bytes.get(10) == Some(&b'T')
        && (11..13).all(|i| shape(i, true))
        && bytes.get(13) == Some(&b':')
        && (14..16).all(|i| shape(i, true))
        && bytes.get(16) == Some(&b':')
        && (17..19).all(|i| shape(i, true));
    let rest = value.get(19..).unwrap_or("");
    let fraction_ok = match rest.strip_prefix('.') {
        Some(f) => {
            f.len() > 1 && f.ends_with('Z') && f[..f.len() - 1].chars().all(|c| c.is_ascii_digit())
        }
        None => rest == "Z",
    };
    fixed && fraction_ok && humantime::parse_rfc3339_weak(value.trim_end_matches('Z')).is_ok()
}

async fn timestamps(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let mut seen = 0;
    let mut problems = Vec::new();
    for task in sample_tasks(&ctx).await? {
        walk_keys(&task, "task", &mut |path, key, value| {
            if key == "timestamp" {
                seen += 1;
                if !value.as_str().is_some_and(is_utc_z) {
                    problems.push(format!("{path} is {value}"));
                }
            }
        });
    }
    if seen == 0 {
        return Ok(Verdict::NotApplicable {
            reason: "the tasks carry no timestamp (status.timestamp is optional)".into(),
        });
    }
    Ok(verdict_from(
        problems,
        "timestamps like 2026-01-01T00:00:00.000Z",
    ))
}

async fn no_kind(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let mut problems = Vec::new();
    for task in sample_tasks(&ctx).await? {
        walk_keys(&task, "task", &mut |path, key, _| {
            if key == "kind" {
                problems.push(path.to_string());
            }
        });
    }
    Ok(verdict_from(problems, "no `kind` members"))
}

#[cfg(test)]
mod tests {
    use super::is_utc_z;

    #[test]
    fn utc_z_timestamps() {
        assert!(is_utc_z("2026-01-01T00:00:00Z"));
        assert!(is_utc_z("2026-01-01T00:00:00.123Z"));
        assert!(!is_utc_z("2026-01-01T00:00:00+00:00"));
        assert!(!is_utc_z("2026-01-01T00:00:00.123"));
        assert!(!is_utc_z("2026-01-01 00:00:00Z"));
        assert!(!is_utc_z("2026-13-01T00:00:00Z"));
        assert!(!is_utc_z("2026-01-01T00:00:00.Z"));
    }
}
