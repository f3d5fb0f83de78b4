//! Cross-binding checks (`bindings.*`, spec 1.0 §5.1): every binding an agent declares for a
//! version serves the same tasks.

use crate::suite::check::Needs;
use serde_json::{json, Value};

use super::setup::{task_id, Setup};
use crate::facts::a2a;
use crate::suite::check::{Check, HarnessError, Level, Scope, SpecRef, Verdict};
use crate::suite::ctx::Ctx;

/// The id prefix of every check in this module.
pub const PREFIX: &str = "bindings";

/// This module's checks, in spec order.
pub fn checks() -> Vec<Check> {
    vec![
        Check {
            id: "bindings.task-readable-on-every-binding",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "5.1", statements: &["V10-5.1-01", "V10-4-01", "V03-3.2.2-06", "V03-3.2.3-08", "V03-3.4.1-01", "V03-3.5.4-01", "V03-3.5.4-02", "V03-11.1.4-01"] },
            requirement: "A task created over one binding reads the same (id, state, artifacts) over every other binding the card declares",
            scope: Scope::Card,
            requires: &[],
            maps_to: &[],
            acts: &[],
            reading: Some(
                "The task is created on the first declared interface of each version and read \
                 with GetTask on every other; an agent with one interface has nothing to compare \
                 (N/A).",
            ),
            needs: Needs::NONE.sends(&["tck-artifact-text"]).weighs(8),
            run: |ctx| Box::pin(equivalent_bindings(ctx)),
        },
    ]
}

/// What two bindings must agree on about a task: id, context, state, and each artifact's id
/// and part contents (defaults, which ProtoJSON may send or omit, left out).
fn essence(task: &Value) -> Value {
    let artifacts: Vec<Value> = a2a::items(task, "artifacts")
        .map(|a| {
            let parts: Vec<Value> = a2a::items(a, "parts")
                .map(|p| {
                    let content: serde_json::Map<String, Value> = a2a::PART_CONTENT
                        .iter()
                        .filter_map(|k| p.get(*k).map(|v| (k.to_string(), v.clone())))
                        .collect();
                    Value::Object(content)
                })
                .collect();
            json!({ "artifactId": a.get("artifactId"), "parts": parts })
        })
        .collect();
    json!({
        "id": task.get("id"),
        "contextId": task.get("contextId"),
        "state": a2a::state(task),
        "artifacts": artifacts,
    })
}

async fn equivalent_bindings(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let interfaces = ctx.interfaces().to_vec();
    let mut problems = Vec::new();
    let mut compared = Vec::new();
    // Each version on its own: the first interface of the version makes the task.
    let mut firsts: Vec<&crate::exchange::card::Interface> = Vec::new();
    for interface in &interfaces {
        if !firsts.iter().any(|f| f.version == interface.version) {
            firsts.push(interface);
        }
    }
    for first in firsts {
        let others: Vec<_> = interfaces
            .iter()
            .filter(|i| i.version == first.version && i.binding != first.binding)
            .cloned()
            .collect();
        if others.is_empty() {
            continue;
        }
        let origin = ctx.on(first.clone());
        let task = origin.create_task("tck-artifact-text").await?;
        let id = task_id(&task);
        let reference = origin.get_task(&id, None).await?;
        let Some(reference) = reference.result().cloned() else {
            return Err(HarnessError::Prerequisite(format!(
                "GetTask on {} {} of the task it created failed: {}",
                first.binding,
                first.version,
                reference.describe()
            )));
        };
        for other in others {
            let answer = ctx.on(other.clone()).get_task(&id, None).await?;
            compared.push(format!("{} {}", other.binding, other.version));
            match answer.result() {
                Some(t) if essence(t) == essence(&reference) => {}
                Some(t) => problems.push(format!(
                    "{} {}: {} where {} gave {}",
                    other.binding,
                    other.version,
                    a2a::brief(&essence(t), 200),
                    first.binding,
                    a2a::brief(&essence(&reference), 200)
                )),
                None => problems.push(format!(
                    "{} {}: {}",
                    other.binding,
                    other.version,
                    answer.describe()
                )),
            }
        }
    }
    if compared.is_empty() {
        return Ok(Verdict::NotApplicable {
            reason: "one binding per version is tested: nothing to compare".into(),
        });
    }
    Ok(if problems.is_empty() {
        Verdict::pass_with(format!("tasks read alike on {}", compared.join(", ")))
    } else {
        Verdict::fail(
            "each task with the same id, context, state and artifacts on every binding of its version",
            problems.join("; "),
        )
    })
}
