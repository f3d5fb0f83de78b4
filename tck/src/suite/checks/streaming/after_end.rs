//! The end of streams (`streaming.*`, spec 1.0 §3.1.2): judged over every stream of the run on
//! an interface by the run's wire-shape audit, once the interface's other checks are done (see
//! `setup/audit.rs`). The other stream checks are in `streaming`.

use crate::exchange::shapes::Rule;
use crate::suite::check::{Check, Level, Needs, SpecRef};
use crate::suite::checks::setup::audit;
use crate::suite::checks::{EVERY_BINDING_BOTH, STREAMING};

/// The id prefix of every check in this module.
pub const PREFIX: &str = "streaming";

/// This module's checks.
pub fn checks() -> Vec<Check> {
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
            needs: Needs::NONE
                .may_send(&["tck-stream-artifact-chunked"])
                .after_the_rest(),
            run: |ctx| Box::pin(audit::judge(ctx, Rule::AfterEnd)),
        },
    ]
}
