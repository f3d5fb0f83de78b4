//! The judgement of the checks that judge a whole run's traffic on an interface through the
//! run's wire-shape audit (the `data-model` wire shapes, `streaming.nothing-after-stream-end`):
//! what the audit found on the interface, and a little traffic of the check's own when the
//! run left nothing to judge (the check runs alone).

use serde_json::{json, Value};

use crate::exchange::shapes::{Findings, Rule};
use crate::exchange::transport::Start;
use crate::facts::a2a;
use crate::suite::check::{HarnessError, Verdict};
use crate::suite::contract::PLAIN;
use crate::suite::ctx::{Answer, Ctx};

/// The stream whose artifact comes in chunks, the likeliest to carry something after its end.
const CHUNKED: &str = "tck-stream-artifact-chunked";

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

pub(crate) async fn judge(ctx: Ctx, rule: Rule) -> Result<Verdict, HarnessError> {
    let recorder = ctx.wire.recorder().clone();
    let audit = crate::exchange::shapes::InterfaceAudit::of(&recorder).ok_or_else(|| {
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
    mut keep: impl FnMut(crate::exchange::evidence::Exchange),
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
        lines.push(crate::exchange::shapes::cut(
            &finding.problems.join("; "),
            600,
        ));
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
