//! One check's execution (in its own task, under its deadline) and what it needs: the
//! capability gates and the run's id.

use std::time::{Duration, Instant, SystemTime};

use serde_json::Value;

use crate::check::{Check, Gate, HarnessError, Status, Verdict};
use crate::ctx::Ctx;
use crate::evidence::Exchange;
use crate::report::CheckResult;

/// Why an interface cannot be tested, found by its probe.
#[derive(Debug, Clone)]
pub(crate) struct Problem {
    pub(crate) error: HarnessError,
    pub(crate) evidence: Vec<Exchange>,
}

/// Runs one check in its own task (so a panic is contained) under its deadline; a check that
/// runs past it is aborted, so it sends nothing more.
pub(crate) async fn execute(
    check: &Check,
    ctx: Ctx,
    deadline: Duration,
    problem: Option<Problem>,
) -> CheckResult {
    let started = Instant::now();
    let recorder = ctx.wire.recorder().clone();
    let interface = ctx.interface.clone();
    let scenarios = ctx.scenarios().clone();
    let outcome = if let Some(missing) = missing_capability(check, &ctx.card.json) {
        Ok(missing)
    } else if let Some(problem) = problem {
        for exchange in problem.evidence {
            recorder.push(exchange);
        }
        Err(problem.error)
    } else {
        let mut task = tokio::spawn((check.run)(ctx));
        match tokio::time::timeout(deadline, &mut task).await {
            Ok(Ok(outcome)) => outcome,
            Ok(Err(join)) => Err(HarnessError::Internal(format!(
                "the check panicked: {join}"
            ))),
            Err(_) => {
                task.abort();
                Err(HarnessError::Deadline(format!(
                    "the check did not finish within its deadline of {deadline:?}"
                )))
            }
        }
    };
    let outcome = outcome.and_then(|verdict| {
        scenarios.held_to(&check.needs).map(|_| verdict)
    });
    let status = Status::of(check.level, &outcome);
    let message = match &outcome {
        Ok(verdict) => verdict.message(),
        Err(error) => error.to_string(),
    };
    let evidence = recorder.take();
    CheckResult {
        binding: interface.as_ref().map(|i| i.binding),
        version: interface.as_ref().map(|i| i.version),
        duration_ms: started.elapsed().as_millis() as u64,
        evidence: if status == Status::Pass {
            Vec::new()
        } else {
            evidence
        },
        ..CheckResult::of(check, status, message)
    }
}

/// The load signal of a check that ran into its deadline.
pub(crate) const DEADLINE: &str = "its deadline";

/// What in a failed, errored or untestable result looks like an overloaded agent rather than the rule
/// under test: a 5xx or 429 answer, a JSON-RPC internal error, a gRPC UNAVAILABLE,
/// RESOURCE_EXHAUSTED, INTERNAL or DEADLINE_EXCEEDED, an exchange that broke off, or the
/// check's deadline. `None` for any other result.
pub(crate) fn load_signal(result: &CheckResult) -> Option<String> {
    if !matches!(
        result.status,
        Status::Fail | Status::Error | Status::Untestable
    ) {
        return None;
    }
    if result.status == Status::Error && result.message.contains("deadline") {
        return Some(DEADLINE.into());
    }
    result.evidence.iter().find_map(|exchange| {
        if let Some(error) = &exchange.error {
            return Some(format!(
                "a broken exchange ({})",
                crate::shapes::cut(error, 80)
            ));
        }
        let response = exchange.response.as_ref()?;
        if response.status >= 500 || response.status == 429 {
            return Some(format!("HTTP {}", response.status));
        }
        let grpc = (response.headers.iter())
            .find(|(k, _)| k == "grpc-status")
            .and_then(|(_, v)| v.split(' ').next()?.parse::<u8>().ok());
        if let Some(code @ (4 | 8 | 13 | 14)) = grpc {
            return Some(format!("gRPC status {code}"));
        }
        let internal = |v: &Value| v.pointer("/error/code").and_then(Value::as_i64) == Some(-32603);
        let events = exchange.events.iter().filter_map(|e| e.data.json.as_ref());
        (response.body.json.iter().chain(events).any(internal))
            .then(|| "a JSON-RPC internal error".to_string())
    })
}

/// `N/A` when a capability gate of the check does not hold for this card.
fn missing_capability(check: &Check, card: &Value) -> Option<Verdict> {
    let declared = |capability: crate::check::Capability| {
        let flag = |v: Option<&Value>| v.and_then(Value::as_bool).unwrap_or(false);
        flag(card.get("capabilities").and_then(|c| c.get(capability.card_field())))
            // The 0.3 card's own field for the extended card.
            || (capability == crate::check::Capability::ExtendedAgentCard
                && flag(card.get("supportsAuthenticatedExtendedCard")))
    };
    check.requires.iter().find_map(|gate| {
        let reason = match *gate {
            Gate::Declares(c) if !declared(c) => {
                format!("the card does not declare capabilities.{}", c.card_field())
            }
            Gate::Lacks(c) if declared(c) => format!(
                "the card declares capabilities.{}, so the rule for agents without it does not apply",
                c.card_field()
            ),
            _ => return None,
        };
        Some(Verdict::NotApplicable { reason })
    })
}

/// A short id that keeps this run's messages apart from other runs against the same agent.
pub(super) fn run_id() -> String {
    use std::hash::{BuildHasher, Hasher};
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u128(
        SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or_default(),
    );
    hasher.write_u32(std::process::id());
    format!("{:08x}", hasher.finish() as u32)
}
