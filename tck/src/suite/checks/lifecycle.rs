//! Whole-run invariants of a task's life (`lifecycle.*`), judged on the run's history of every
//! task (`crate::exchange::history`): every time the kit was shown a task, in a send answer, a read, a
//! list, a cancel answer or a stream event. Each check judges only the sights its own traffic
//! made, the sequences that show its rule at work: the other checks run at the same time, and
//! whether one of their sights came before the check ended would decide its status from run to
//! run (an agent that cancels a completed task: the check WARNed or PASSed as a later read of
//! that task by another check came in time or not). The other checks judge their own rules on
//! their own traffic; `a2a-tck explore` judges the same invariants on longer sequences.
//!
//! No sentence of the specification states these invariants with an RFC 2119 keyword: the
//! proto calls the four states terminal, §3.1.5 says a cancel returns the task's updated state,
//! and history and artifacts are what the task accumulated. The checks are SHOULDs: a broken
//! invariant is a WARN, never a FAIL.

use crate::exchange::history::{self, Observation, Violation};
use crate::facts::a2a;
use crate::suite::check::{Check, HarnessError, Level, Needs, SpecRef, Verdict};
use crate::suite::checks::setup::{cancelable_task, settle, task_id, Setup};
use crate::suite::contract::PLAIN;
use crate::suite::ctx::Ctx;

pub const PREFIX: &str = "lifecycle";

/// The scenarios the checks' own traffic may send besides the plain message: a task held open for the
/// cancel (the kit's long-running one, else the official input-required one).
const MAY_SEND: &[&str] = &["tck-long-running", "tck-input-required"];

/// Which invariant a check judges.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Rule {
    TerminalFinal,
    CancelKept,
    ReadsKeep,
    MessagesOnce,
}

macro_rules! lifecycle_check {
    ($id:literal, $rule:expr, [$($statement:literal),+], $requirement:literal, $reading:literal) => {
        Check {
            id: $id,
            level: Level::Should,
            spec: SpecRef { version: "1.0", section: "proto TaskState", statements: &[$($statement),+] },
            requirement: $requirement,
            scope: super::EVERY_BINDING_BOTH,
            requires: &[],
            maps_to: &[],
            acts: &[],
            reading: Some($reading),
            needs: Needs::NONE.may_send(MAY_SEND).weighs(8),
            run: |ctx| Box::pin(judge(ctx, $rule)),
        }
    };
}

pub fn checks() -> Vec<Check> {
    vec![
        lifecycle_check!(
            "lifecycle.terminal-state-is-final",
            Rule::TerminalFinal,
            ["V10-D-L-01", "V03-D-L-01"],
            "A task seen in a terminal state (COMPLETED, FAILED, CANCELED, REJECTED) shows that \
             same state in every later sight of it, on every operation",
            "The proto names the four states terminal and §3.1.1/§3.1.5 make a message or a \
             cancel to a terminal task an error, but no sentence says with a keyword that a \
             terminal state never changes: a WARN. Only sights in certain order are compared: \
             the later request went out after the earlier answer came back; a stream event is \
             never the later sight (a stream may deliver what the agent made before). The \
             check's own traffic completes a task, reads it, sends it one more message and \
             reads it again, cancels it and reads it, and cancels a held task and reads it; only \
             its own sights are judged, so that what other checks do at the same time never \
             moves its status."
        ),
        lifecycle_check!(
            "lifecycle.cancel-takes-effect",
            Rule::CancelKept,
            ["V10-D-L-02", "V03-D-L-02"],
            "After a CancelTask answered with the task still open (the cancel accepted), the \
             task does not end in any terminal state but CANCELED",
            "§3.1.5 says CancelTask returns the task's updated state and lists \
             TaskNotCancelableError for a task that cannot be canceled, so a cancel answered \
             with the task reads as accepted; the spec sets no time by which it must take \
             effect, so a task that stays open is not judged, only one that later ends \
             COMPLETED, FAILED or REJECTED. No keyword: a WARN. A cancel answered CANCELED is \
             judged by lifecycle.terminal-state-is-final."
        ),
        lifecycle_check!(
            "lifecycle.reads-keep-what-they-showed",
            Rule::ReadsKeep,
            ["V10-D-L-03", "V03-D-L-03"],
            "A GetTask without historyLength never lacks a message or an artifact that an \
             earlier such read of the task showed: reading (with or without historyLength) \
             removes nothing",
            "historyLength limits what one answer shows (§3.1.3); nothing in the spec lets a \
             read change what the agent holds, and a task's history and artifacts are what it \
             accumulated. Only full reads (no historyLength) in certain order are compared. No \
             keyword: a WARN. The check's own traffic reads a completed task, reads it with \
             historyLength 1, and reads it again."
        ),
        lifecycle_check!(
            "lifecycle.history-holds-each-message-once",
            Rule::MessagesOnce,
            ["V10-D-L-04", "V03-D-L-04"],
            "A task's history names each message (by messageId) once",
            "The history is the task's messages in order; a message stored twice is a record \
             of something that did not happen twice. No keyword: a WARN. Judged on every sight \
             that carries a history."
        ),
    ]
}

/// Whether the run's contract or drive file gives a scenario that holds a task open.
fn offers_held(ctx: &Ctx) -> bool {
    MAY_SEND.iter().any(|p| ctx.scenarios().honours(p))
}

/// The check's own sequence: what shows its rule at work. Errors of the agent are left to the
/// other checks; only what the history saw is judged.
async fn own_traffic(ctx: &Ctx, rule: Rule) -> Result<(), HarnessError> {
    // Two sequences at once, each a chain of its own: a task completed and read, and a task
    // held open, canceled and read.
    let (completed, held) = futures::join!(completed_sequence(ctx, rule), held_sequence(ctx, rule));
    completed.and(held)
}

/// A task completed, read once it has ended (an agent may answer before it finishes, so what
/// the reads show does not depend on how fast the agent works), then what the rule needs: a
/// read with historyLength 1 and a full read again; or one more message and a read.
async fn completed_sequence(ctx: &Ctx, rule: Rule) -> Result<(), HarnessError> {
    if rule == Rule::CancelKept {
        return Ok(());
    }
    let task = ctx.create_task(PLAIN).await?;
    let task = settle(ctx, task, "TASK_STATE_COMPLETED").await?;
    let id = task_id(&task);
    let now = ctx.get_task(&id, None).await?;
    match rule {
        Rule::ReadsKeep => {
            let _ = ctx.get_task(&id, Some(1)).await?;
            let _ = ctx.get_task(&id, None).await?;
        }
        Rule::TerminalFinal => {
            let ended = (now.result().and_then(a2a::state))
                .is_some_and(|s| a2a::TERMINAL_STATES.contains(&s));
            if ended {
                let more = crate::suite::checks::setup::full_follow_up(ctx, &task, PLAIN);
                let _ = ctx.send_message(more, None).await?;
                let _ = ctx.get_task(&id, None).await?;
                // A cancel of the ended task (TaskNotCancelableError is the answer owed): an
                // agent that takes it shows the task CANCELED after COMPLETED.
                let _ = ctx.cancel_task(&id).await?;
                let _ = ctx.get_task(&id, None).await?;
            }
        }
        _ => {}
    }
    Ok(())
}

/// A task held open (when the contract or drive file gives one), canceled and read.
async fn held_sequence(ctx: &Ctx, rule: Rule) -> Result<(), HarnessError> {
    if rule == Rule::ReadsKeep || !offers_held(ctx) {
        return Ok(());
    }
    // A held task the agent did not give leaves the check to judge the rest of the run.
    if let Ok(task) = cancelable_task(ctx).await {
        let id = task_id(&task);
        let _ = ctx.cancel_task(&id).await?;
        let _ = ctx.get_task(&id, None).await?;
    }
    Ok(())
}

/// Whether some sight of a task matches `first` and a later sight of the same task `then`.
fn pair(
    seen: &[Observation],
    first: impl Fn(&Observation) -> bool,
    then: impl Fn(&Observation) -> bool,
) -> bool {
    (seen.iter().filter(|a| first(a))).any(|a| {
        seen.iter()
            .any(|b| b.task == a.task && then(b) && b.after(a))
    })
}

async fn judge(ctx: Ctx, rule: Rule) -> Result<Verdict, HarnessError> {
    let Some(history) = ctx.wire.history().cloned() else {
        return Err(HarnessError::Internal(
            "the run keeps no history of its tasks".into(),
        ));
    };
    let Some(interface) = ctx.interface.clone() else {
        return Err(HarnessError::Internal("no interface".into()));
    };
    // Without a task held open the check's own traffic cannot show the rule at work (a cancel
    // of an ended task is judged by lifecycle.terminal-state-is-final).
    if rule == Rule::CancelKept && !offers_held(&ctx) {
        return Ok(Verdict::NotApplicable {
            reason: "the run's contract or drive file gives no scenario that holds a task open \
                     to cancel (long-running, input-required)"
                .into(),
        });
    }
    own_traffic(&ctx, rule).await?;
    // Only the sights of this check's own traffic: what other checks see at the same time
    // comes before this check ends or not, run by run.
    let seen: Vec<Observation> = (history.on((interface.binding, interface.version)))
        .into_iter()
        .filter(|o| o.by == ctx.namespace())
        .collect();
    // Judged only where the history holds what the rule compares: a sight and a later one
    // of the same task.
    let full = |o: &Observation| o.seen == history::Seen::Read { limited: false };
    let terminal = |o: &Observation| {
        o.state
            .as_deref()
            .is_some_and(|s| a2a::TERMINAL_STATES.contains(&s))
    };
    let relevant = match rule {
        Rule::CancelKept => pair(
            &seen,
            |o| o.seen == history::Seen::Canceled,
            |o| o.state.is_some(),
        ),
        Rule::ReadsKeep => pair(&seen, full, full),
        Rule::TerminalFinal => pair(&seen, terminal, |o| o.state.is_some()),
        Rule::MessagesOnce => seen.iter().any(|o| o.history.is_some()),
    };
    if !relevant {
        return Err(HarnessError::Prerequisite(
            match rule {
                Rule::CancelKept => {
                    "no CancelTask on this interface was answered with a task \
                                     and the task read after it \
                                     (the agent held no task open to cancel)"
                }
                Rule::ReadsKeep => {
                    "no task on this interface was read twice in full, one read \
                                    after the other"
                }
                Rule::TerminalFinal => {
                    "no task on this interface was seen in a terminal state \
                                        and seen again after"
                }
                Rule::MessagesOnce => "no answer on this interface carried a task's history",
            }
            .into(),
        ));
    }
    let violations: Vec<Violation> = match rule {
        Rule::TerminalFinal => history::terminal_changes(&seen),
        Rule::CancelKept => history::cancel_not_kept(&seen),
        Rule::ReadsKeep => history::reads_remove(&seen),
        Rule::MessagesOnce => history::repeated_messages(&seen),
    };
    let expected = match rule {
        Rule::TerminalFinal => "every task seen terminal shows the same state in every later sight",
        Rule::CancelKept => "no task whose cancel was accepted ends in a state other than CANCELED",
        Rule::ReadsKeep => "every full read shows what earlier full reads of the task showed",
        Rule::MessagesOnce => "each message once in every history seen",
    };
    if violations.is_empty() {
        return Ok(Verdict::pass_with(expected));
    }
    let shown: Vec<String> = (violations.iter().take(3))
        .map(|v| crate::exchange::shapes::cut(&v.what, 400))
        .collect();
    let more = if violations.len() > shown.len() {
        format!(" (and {} more task(s))", violations.len() - shown.len())
    } else {
        String::new()
    };
    Ok(Verdict::fail(
        expected,
        format!("{}{more}", shown.join(" | ")),
    ))
}
