//! One check's execution (in its own task, under its deadline) and what it needs: the
//! capability gates and the run's id.

use std::time::{Duration, Instant, SystemTime};

use serde_json::Value;

use crate::exchange::evidence::Exchange;
use crate::reporting::report::CheckResult;
use crate::suite::check::{Check, Gate, HarnessError, Status, Verdict};
use crate::suite::ctx::Ctx;

/// Why an interface cannot be tested, found by its probe.
#[derive(Debug, Clone)]
pub(crate) struct Problem {
    pub(crate) error: HarnessError,
    pub(crate) evidence: Vec<Exchange>,
}

/// A check's deadline, from its start: a floor, and, once the agent's latency is known, time
/// for `exchanges` one after another at twice the run's 95th percentile. Read when the check
/// starts and again when it passes, so it grows with what the run learns of the agent
/// meanwhile.
#[derive(Debug, Clone)]
pub(crate) struct Deadline {
    floor: Duration,
    exchanges: u32,
    latency: Option<std::sync::Arc<crate::exchange::latency::Timings>>,
}

impl Deadline {
    /// Always `floor`.
    pub(crate) fn fixed(floor: Duration) -> Deadline {
        Deadline {
            floor,
            exchanges: 0,
            latency: None,
        }
    }

    /// `floor`, and `exchanges` at the latency `timings` measure.
    pub(crate) fn sized(
        floor: Duration,
        exchanges: u32,
        timings: &std::sync::Arc<crate::exchange::latency::Timings>,
    ) -> Deadline {
        Deadline {
            floor,
            exchanges,
            latency: Some(timings.clone()),
        }
    }

    fn now(&self) -> Duration {
        let p95 = (self.latency.as_ref())
            .and_then(|t| t.p95_ms())
            .map_or(Duration::ZERO, Duration::from_millis);
        self.floor + p95 * 2 * self.exchanges
    }
}

/// A check's task, aborted when dropped: a check cut short (its deadline, the grace of a
/// stopped run) sends nothing more.
struct Running<T>(tokio::task::JoinHandle<T>);

impl<T> Drop for Running<T> {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// What the message of a check that ran past its deadline says, and how such a result is told.
const MISSED: &str = "within its deadline of";

/// Runs one check in its own task (so a panic is contained) under its deadline; a check that
/// runs past it is aborted, so it sends nothing more.
pub(crate) async fn execute(
    check: &Check,
    ctx: Ctx,
    deadline: Deadline,
    problem: Option<Problem>,
) -> CheckResult {
    let started = Instant::now();
    let recorder = ctx.wire.recorder().clone();
    let interface = ctx.interface.clone();
    let scenarios = ctx.scenarios().clone();
    let level = crate::suite::revised::level(check, ctx.judging());
    let judged = ctx.judged(check.id);
    let outcome = if let Some(missing) = missing_capability(check, &ctx.card.json) {
        Ok(missing)
    } else if let Some(problem) = problem {
        for exchange in problem.evidence {
            recorder.push(exchange);
        }
        Err(problem.error)
    } else if let Some(why) = scenarios.undeclared(&check.needs) {
        // Under a behaviour file, a check whose every scenario is undeclared sends nothing.
        Err(HarnessError::Prerequisite(why))
    } else {
        let mut task = Running(tokio::spawn(crate::facts::revision::under(
            judged,
            (check.run)(ctx),
        )));
        let mut until = deadline.now();
        loop {
            let at = tokio::time::Instant::from_std(started) + until;
            match tokio::time::timeout_at(at, &mut task.0).await {
                Ok(Ok(outcome)) => break outcome,
                Ok(Err(join)) => {
                    break Err(HarnessError::Internal(format!(
                        "the check panicked: {join}"
                    )))
                }
                // The agent turned out slower than when the check started: more time.
                Err(_) if deadline.now() > until => until = deadline.now(),
                Err(_) => {
                    task.0.abort();
                    break Err(HarnessError::Deadline(format!(
                        "the check did not finish {MISSED} {until:?}"
                    )));
                }
            }
        }
    };
    let outcome = outcome.and_then(|verdict| scenarios.held_to(&check.needs).map(|_| verdict));
    let outcome = undeclared_fails(outcome, &scenarios);
    // A follow-up the drive file could not fill (a pointer that found nothing) judged the
    // file, not the agent: what the agent made of it is never held against it.
    let unresolved = scenarios.unresolved();
    let outcome = match outcome {
        Ok(Verdict::Violated { .. } | Verdict::Tolerated { .. }) if !unresolved.is_empty() => {
            Err(HarnessError::Prerequisite(unresolved.join("; ")))
        }
        other => other,
    };
    let status = Status::of(level, &outcome);
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
        level,
        ..CheckResult::of(check, status, message)
    }
}

/// Under `--undeclared fail` (the ACTS runner's rule), a check that could not reach its state
/// because the behaviour file leaves a scenario it asked for undeclared is violated, not
/// UNTESTABLE; any other outcome stays as it is.
fn undeclared_fails(
    outcome: Result<Verdict, HarnessError>,
    scenarios: &crate::suite::contract::Scenarios,
) -> Result<Verdict, HarnessError> {
    if scenarios.undeclared_rule() != crate::facts::behaviors::Undeclared::Fail {
        return outcome;
    }
    match outcome {
        Err(HarnessError::Prerequisite(why)) => {
            let refused = scenarios.refused();
            // Only a check stopped by the refusal itself: one that tolerated a refused
            // scenario and stopped later for a reason of its own stays UNTESTABLE.
            if refused.is_empty() || !why.contains(crate::suite::contract::UNDECLARED_WORDS) {
                return Err(HarnessError::Prerequisite(why));
            }
            let acts: Vec<String> = (refused.iter())
                .map(|p| {
                    crate::suite::contract::acts_name(p)
                        .unwrap_or(p)
                        .to_string()
                })
                .map(|p| format!("`{p}`"))
                .collect();
            Ok(Verdict::fail(
                format!(
                    "the agent declares the ACTS behaviour(s) {} this check needs \
                     (--undeclared fail: the ACTS runner's rule)",
                    acts.join(", ")
                ),
                why,
            ))
        }
        other => other,
    }
}

/// Whether `result` is a check cut short by its deadline.
pub(crate) fn met_its_deadline(result: &CheckResult) -> bool {
    result.status == Status::Error && result.message.contains(MISSED)
}

/// The first sign of an overloaded agent ([`crate::exchange::pace::load_sign`]) in the evidence of a
/// failed, errored or untestable result; `None` for any other result, and for one whose
/// evidence shows none (its deadline included: it is sized to the agent's own latency).
pub(crate) fn load_signal(result: &CheckResult) -> Option<String> {
    if !matches!(
        result.status,
        Status::Fail | Status::Error | Status::Untestable
    ) {
        return None;
    }
    result
        .evidence
        .iter()
        .find_map(crate::exchange::pace::load_sign)
}

/// `N/A` when a capability gate of the check does not hold for this card.
fn missing_capability(check: &Check, card: &Value) -> Option<Verdict> {
    let declared = |capability: crate::suite::check::Capability| {
        let flag = |v: Option<&Value>| v.and_then(Value::as_bool).unwrap_or(false);
        flag(card.get("capabilities").and_then(|c| c.get(capability.card_field())))
            // The 0.3 card's own field for the extended card.
            || (capability == crate::suite::check::Capability::ExtendedAgentCard
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

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::facts::behaviors::{SutBehaviors, Undeclared};
    use crate::suite::contract::Scenarios;

    fn declaring_complete_only() -> Scenarios {
        let file = SutBehaviors::parse(
            "acts_version: \"1.0\"\nbehaviors:\n  - prefix: tck-complete-task\n",
        )
        .expect("a behaviour file");
        Scenarios::declared(Arc::new(file), Undeclared::Fail)
    }

    #[test]
    fn the_acts_rule_fails_only_a_check_stopped_by_the_refusal() {
        let scenarios = declaring_complete_only();
        let why = scenarios
            .refusal("tck-input-required")
            .expect("tck-multi-turn is undeclared");
        let stopped = undeclared_fails(Err(HarnessError::Prerequisite(why)), &scenarios);
        assert!(
            matches!(stopped, Ok(Verdict::Violated { .. })),
            "{stopped:?}"
        );
        // The same check, having tolerated the refusal, stops later for a reason of its own.
        let own = undeclared_fails(
            Err(HarnessError::Prerequisite("no message to examine".into())),
            &scenarios,
        );
        assert!(matches!(own, Err(HarnessError::Prerequisite(_))), "{own:?}");
    }
}
