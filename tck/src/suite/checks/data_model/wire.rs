//! Strict wire shapes (`data-model.*`, second part): every JSON message the agent sent on an
//! interface during the whole run, validated against the wire schema of the interface's
//! version (see [`crate::shapes`]), judged once the interface's other checks are done.
//! When the run left nothing to judge on the interface (the check runs alone), the check makes
//! a little traffic of its own (a plain message, the task read back, a stream when the card
//! declares streaming).

use crate::check::Needs;
use serde_json::{json, Value};

use crate::checks::{EVERY_BINDING_0_3, EVERY_BINDING_1_0, EVERY_BINDING_BOTH, STREAMING};
use crate::a2a;
use crate::check::{Check, HarnessError, Level, SpecRef, Verdict};
use crate::contract::PLAIN;
use crate::ctx::{Answer, Ctx};
use crate::shapes::{Findings, Rule};
use crate::transport::Start;

/// The id prefix of every check in this module.
pub const PREFIX: &str = "data-model";

/// The stream whose artifact comes in chunks, the likeliest to carry something after its end.
const CHUNKED: &str = "tck-stream-artifact-chunked";

/// The checks of this module: the runner runs them after every other check of the run.
const IDS: &[&str] = &[
    "data-model.wire-shape-1-0",
    "data-model.wire-shape-0-3",
    "data-model.no-other-version-fields",
    "data-model.stream-events-same-task",
    "streaming.nothing-after-stream-end",
];

/// Whether the check judges the traffic of the whole run (and so runs last).
pub fn judges_the_run(id: &str) -> bool {
    IDS.contains(&id)
}

/// Checks whose traffic the audit leaves alone: they send a deliberately invalid message that an
/// agent may defensibly process (a contested sentence, graded there as a WARN), and the agent
/// then owes the client's message back in the task's history, invalid as it was sent. Judging
/// that echo here would turn the WARN into a MUST failure of the wire shape.
const UNAUDITED: &[&str] = &["send.invalid-message-rejected"];

/// Whether the audit judges the messages of check `id`.
pub fn audited(id: &str) -> bool {
    !UNAUDITED.contains(&id)
}

/// This module's checks.
pub fn checks() -> Vec<Check> {
    vec![
        Check {
            id: "data-model.wire-shape-1-0",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "5.7", statements: &["V10-5.7-02", "V10-5.7-04", "V10-P-19", "V10-5.5-02", "V10-D-4.1.6-01"] },
            requirement: "Every message the agent sends on a 1.0 interface matches the 1.0 wire schema: REQUIRED fields present and set, REQUIRED arrays non-empty, oneofs with exactly one member, enums among the 1.0 ProtoJSON names",
            scope: EVERY_BINDING_1_0,
            requires: &[],
            maps_to: &["DM-SERIAL-004"],
            acts: &["DM-SERIAL-002", "CORE-HIST-004", "GRPC-STREAM-001"],
            reading: Some(concat!(
                "Schema: schemas/a2a-1.0.wire.schema.json, generated from the kit's types. TASK_STATE_UNSPECIFIED and ROLE_UNSPECIFIED are ",
                "the unset values, so a REQUIRED state or role holding them is missing. Task.contextId is not REQUIRED in the proto and is ",
                "not required here; ListTasksResponse.tasks may be empty (spec notes §1.17 #7). Over gRPC, protobuf drops scalars at their ",
                "default: ListTasks' counts and last page token are read as their defaults. ",
                "Judged over the traffic of the whole run on this interface; see the check list in the README."
            )),
            needs: Needs::NONE,
            run: |ctx| Box::pin(judge(ctx, Rule::Shape)),
        },
        Check {
            id: "data-model.wire-shape-0-3",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "3.6.2", statements: &["V10-3.6.2-01", "V03-11.1.5-02", "V03-3.2.2-07"] },
            requirement: "Every message the agent sends on a 0.3 interface matches the 0.3 wire schema: the types.ts JSON on JSON-RPC (kind, kebab-case states, user/agent roles, final on status updates), the 0.3 proto JSON on gRPC",
            scope: EVERY_BINDING_0_3,
            requires: &[],
            maps_to: &[],
            acts: &[],
            reading: Some(concat!(
                "Schema: schemas/a2a-0.3.wire.schema.json. 0.3 REST bodies are the 0.3 proto's JSON in practice (content, ",
                "TASK_STATE_CANCELLED, ROLE_*) while the 0.3 spec only calls them structurally equivalent to the core types: a REST ",
                "message passes in either form. The 0.3 proto marks no field REQUIRED and binary protobuf drops defaults, so the proto ",
                "form requires only ids, a task's status, a message's role and an event's status or artifact; `final` is required on ",
                "JSON-RPC only. Judged over the traffic of the whole run on this interface."
            )),
            needs: Needs::NONE,
            run: |ctx| Box::pin(judge(ctx, Rule::Shape)),
        },
        Check {
            id: "data-model.no-other-version-fields",
            level: Level::Should,
            spec: SpecRef { version: "1.0", section: "A.2.1", statements: &["V10-D-A.2.1-01", "V03-11.1.5-02"] },
            requirement: "Messages carry no member that only the other protocol version has: no kind, final, content or file in 1.0; no raw, url, filename, mediaType or flat push config in 0.3",
            scope: EVERY_BINDING_BOTH,
            requires: &[],
            maps_to: &[],
            acts: &[],
            reading: Some(concat!(
                "Appendix A.2.1 says `kind` \"should not be emitted\" (lower case) and receivers skip members they do not know ",
                "(§5.7, SHOULD), so a member of the other version is a WARN, never a FAIL. A state or role spelled the other ",
                "version's way is an enum value outside the set: the wire-shape check FAILs it. Members of neither version are not ",
                "reported. Judged over the traffic of the whole run on this interface."
            )),
            needs: Needs::NONE,
            run: |ctx| Box::pin(judge(ctx, Rule::OtherVersion)),
        },
        Check {
            id: "data-model.stream-events-same-task",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "3.1.2", statements: &["V10-3.1.2-05", "V03-7.2-01"] },
            requirement: "Every event of a stream is about the stream's task: the subscribed task, the task the message continues, or the task its first event names",
            scope: EVERY_BINDING_BOTH,
            requires: STREAMING,
            maps_to: &[],
            acts: &[],
            reading: Some(concat!(
                "A task stream carries the Task and then that task's status and artifact updates (§3.1.2, §3.1.6). An event ",
                "without a task id (a direct Message) is not judged. Judged over every stream of the run on this interface."
            )),
            needs: Needs::NONE,
            run: |ctx| Box::pin(judge(ctx, Rule::OtherTask)),
        },
    ]
}

/// The check of this module that is about streams (id prefix `streaming`), judged over the
/// run's traffic like the others.
pub fn stream_checks() -> Vec<Check> {
    vec![
        Check {
            id: "streaming.nothing-after-stream-end",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "3.1.2", statements: &["V10-3.1.2-04", "V10-3.1.2-06", "V10-3.1.6-01", "V03-T-09"] },
            requirement: "No stream carries an event after its end: the terminal state, 0.3's final status update, or the one Message of a message-only stream",
            scope: EVERY_BINDING_BOTH,
            requires: STREAMING,
            maps_to: &[],
            acts: &[],
            reading: Some(concat!(
                "Judged over every stream of the run on this interface (SendStreamingMessage, follow-ups, SubscribeToTask), ",
                "not only the ones a streaming check reads. A stream ends at a status update in a terminal state, a status ",
                "update with `final: true` (0.3), a Task in a terminal state after the first event, or a Message as the ",
                "first event. After the end only the same terminal state may come again (the final Task snapshot §11.7 ",
                "allows, a repeated status); an artifact chunk, another state or a message fails. A stream's first Task is ",
                "the task as it stands (§3.1.6), so a terminal first Task does not end it. An interrupted state does not end ",
                "a stream here: §3.1.2 names terminal states only, and §7.6.1 asks agents to keep auth-required streams open."
            )),
            needs: Needs::NONE.may_send(&["tck-stream-artifact-chunked"]),
            run: |ctx| Box::pin(judge(ctx, Rule::AfterEnd)),
        },
    ]
}

/// A little traffic of the check's own: a plain message, its task read back, and a stream
/// when the card declares streaming (for the end of streams, the chunked stream too, when
/// the contract gives it). What comes back is audited like every exchange; the answers
/// themselves are not judged here.
async fn sample(ctx: &Ctx, rule: Rule) {
    if let Ok(Answer::Result(result)) = ctx.send_message(ctx.user_message(PLAIN), None).await {
        if let Some(id) = result.get("task").and_then(|t| a2a::text(t, "id")) {
            let _ = ctx.get_task(id, None).await;
        }
    }
    let streaming = ctx
        .card
        .json
        .pointer("/capabilities/streaming")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    if !streaming {
        return;
    }
    let mut prefixes = vec![PLAIN];
    if rule == Rule::AfterEnd && ctx.scenarios().honours(CHUNKED) {
        prefixes.push(CHUNKED);
    }
    for prefix in prefixes {
        let params = json!({ "message": ctx.user_message(prefix) });
        if let Ok(Start::Stream(mut stream)) = ctx.send_streaming(params).await {
            stream.collect(ctx.stream_wait()).await;
        }
    }
}

async fn judge(ctx: Ctx, rule: Rule) -> Result<Verdict, HarnessError> {
    let recorder = ctx.wire.recorder().clone();
    let audit = crate::shapes::InterfaceAudit::of(&recorder).ok_or_else(|| {
        HarnessError::Internal("the run keeps no wire audit for this interface".into())
    })?;
    let judged = |findings: &Findings| match rule {
        Rule::OtherTask => findings.stream_events,
        Rule::AfterEnd => findings.streams,
        _ => findings.messages,
    };
    // The run's other checks usually left plenty to judge; alone, the check makes its own.
    if judged(&audit.findings()) == 0 {
        sample(&ctx, rule).await;
    }
    let findings = audit.findings();
    let judged = judged(&findings);
    if judged == 0 {
        return Err(HarnessError::Prerequisite(match rule {
            Rule::OtherTask => "no stream of this interface carried an event naming a task".into(),
            Rule::AfterEnd => "no stream of this interface carried an event".into(),
            _ => "no message of this interface could be judged: no answer in its version was JSON \
                  of a known operation"
                .into(),
        }));
    }
    // The evidence is the offending messages, not the check's own sample.
    recorder.take();
    Ok(verdict(&findings, rule, |exchange| {
        recorder.push_evidence(exchange)
    }))
}

fn verdict(
    findings: &Findings,
    rule: Rule,
    mut keep: impl FnMut(crate::evidence::Exchange),
) -> Verdict {
    let (count, kept) = findings.of(rule);
    let seen = match rule {
        Rule::OtherTask => format!("{} stream events", findings.stream_events),
        Rule::AfterEnd => format!("{} streams", findings.streams),
        _ => format!("{} messages", findings.messages),
    };
    if count == 0 {
        // No count here: the checks of this phase run at once, so how much of each other's
        // traffic one sees varies, and a passing result must read the same every run.
        return Verdict::pass_with(match rule {
            Rule::Shape => "every message judged matches the version's wire schema",
            Rule::OtherVersion => "no message judged carries a member of the other version",
            Rule::OtherTask => "every stream event judged is about its stream's task",
            Rule::AfterEnd => "no stream judged carries an event after its end",
        });
    }
    let expected = match rule {
        Rule::Shape => "every message matching the version's wire schema",
        Rule::OtherVersion => "no member of the other protocol version",
        Rule::OtherTask => "every event of a stream about the stream's task",
        Rule::AfterEnd => "nothing after a stream's end but a repeat of its terminal state",
    };
    let mut lines = Vec::new();
    for finding in kept {
        lines.push(crate::shapes::cut(&finding.problems.join("; "), 600));
        keep(finding.exchange.clone());
    }
    let more = if count > kept.len() {
        format!(" (the first {} shown)", kept.len())
    } else {
        String::new()
    };
    Verdict::fail(
        expected,
        format!(
            "{count} exchange(s) of {seen} break it{more}: {}",
            lines.join(" | ")
        ),
    )
}
