//! Strict wire shapes (`data-model.*`, second part): every JSON message the agent sent on an
//! interface during the whole run, validated against the wire schema of the interface's
//! version (see [`crate::exchange::shapes`]), judged once the interface's other checks are done.
//! When the run left nothing to judge on the interface (the check runs alone), the check makes
//! a little traffic of its own (a plain message, the task read back, a stream when the card
//! declares streaming).

use crate::suite::check::Needs;

use crate::exchange::shapes::Rule;
use crate::suite::check::{Check, Level, SpecRef};
use crate::suite::checks::setup::audit;
use crate::suite::checks::{EVERY_BINDING_0_3, EVERY_BINDING_1_0, EVERY_BINDING_BOTH, STREAMING};

/// The id prefix of every check in this module.
pub const PREFIX: &str = "data-model";

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
            needs: Needs::NONE.after_the_rest(),
            run: |ctx| Box::pin(audit::judge(ctx, Rule::Shape)),
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
            needs: Needs::NONE.after_the_rest(),
            run: |ctx| Box::pin(audit::judge(ctx, Rule::Shape)),
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
            needs: Needs::NONE.after_the_rest(),
            run: |ctx| Box::pin(audit::judge(ctx, Rule::OtherVersion)),
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
            needs: Needs::NONE.after_the_rest(),
            run: |ctx| Box::pin(audit::judge(ctx, Rule::OtherTask)),
        },
    ]
}
