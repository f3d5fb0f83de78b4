//! The negative cases of the `push.*` checks: each names a check and a fault of the
//! reference agent under which it must FAIL (MUST) or WARN (SHOULD, MAY), unless it says otherwise.

use a2a_reference_agent::Fault;
use a2a_tck::suite::check::{ProtocolVersion, Status};

use crate::cases::{case, expecting, in_version, Case};

pub const CASES: &[Case] = &[
    // Configs without an id all get the task id (a2a-sdk): the kit names its own ids, so a
    // second config of the task does not replace the first.
    expecting(
        "push.inline-config-delivers",
        Fault::PushDefaultIdIsTaskId,
        Status::Pass,
    ),
    expecting(
        "push.delivery-stops-after-delete",
        Fault::PushDefaultIdIsTaskId,
        Status::Pass,
    ),
    case(
        "push.config-create-returns-config",
        Fault::PushConfigCreateNoId,
    ),
    case(
        "push.config-get-returns-config",
        Fault::PushConfigGetDropsUrl,
    ),
    case(
        "push.config-list-returns-all",
        Fault::PushConfigListDropsLast,
    ),
    // Config paging is a 1.0 rule (§3.1.9): 0.3 states none, so the check runs on 1.0 only.
    in_version(
        &[ProtocolVersion::V1_0],
        "push.config-list-pages",
        Fault::PushConfigListPageTokenBroken,
    ),
    case(
        "push.config-delete-removes",
        Fault::PushConfigDeleteNotDeleted,
    ),
    // 1.0 names TaskNotFoundError; 0.3 names its errors only by example, so an internal
    // error is a refusal there.
    in_version(
        &[ProtocolVersion::V1_0],
        "push.config-get-unknown-config-fails",
        Fault::PushConfigGetUnknownWrongError,
    ),
    Case {
        expect: Some(Status::Pass),
        versions: &[ProtocolVersion::V0_3],
        ..case(
            "push.config-get-unknown-config-fails",
            Fault::PushConfigGetUnknownWrongError,
        )
    },
    // A success for a config that does not exist fails in both versions.
    case(
        "push.config-get-unknown-config-fails",
        Fault::PushConfigGetUnknownReturnsConfig,
    ),
    // Idempotency is a 1.0 rule: on 0.3 the second delete is not judged.
    in_version(
        &[ProtocolVersion::V1_0],
        "push.config-delete-removes",
        Fault::PushConfigDeleteAgainFails,
    ),
    Case {
        expect: Some(Status::Pass),
        versions: &[ProtocolVersion::V0_3],
        ..case(
            "push.config-delete-removes",
            Fault::PushConfigDeleteAgainFails,
        )
    },
    case(
        "push.config-unknown-task-not-found",
        Fault::PushConfigUnknownTaskAccepted,
    ),
    case(
        "push.inline-config-delivers",
        Fault::PushInlineConfigIgnored,
    ),
    // A MUST of 1.0 (FAIL); 0.3 only recommends a payload form (WARN).
    Case {
        versions: &[ProtocolVersion::V1_0],
        ..case("push.delivery-payload-shape", Fault::PushPayloadWrongShape)
    },
    // Only 0.3 asks for the token on the call (a SHOULD); on 1.0 a missing token is N/A.
    in_version(
        &[ProtocolVersion::V0_3],
        "push.delivery-token",
        Fault::PushTokenMissing,
    ),
    Case {
        expect: Some(Status::NotApplicable),
        versions: &[ProtocolVersion::V1_0],
        ..case("push.delivery-token", Fault::PushTokenMissing)
    },
    case(
        "push.delivery-authentication",
        Fault::PushAuthCredentialsMissing,
    ),
    // 1.0 only: on 0.3 each call is the Task as it stands, so the terminal Task already
    // carries the held-back artifact (told with the terminal state, which passes); the stale
    // snapshot sent after it fails only if it arrives before the kit stops reading.
    in_version(
        &[ProtocolVersion::V1_0],
        "push.delivery-every-update-in-order",
        Fault::PushOutOfOrder,
    ),
    // One step, one update, one call (the final Task with its artifact): conformant.
    expecting(
        "push.delivery-every-update-in-order",
        Fault::PushOneNotificationAtTerminal,
        Status::Pass,
    ),
    case(
        "push.delivery-every-update-in-order",
        Fault::PushSkipsTerminal,
    ),
    case("push.delivery-stops-after-delete", Fault::PushAfterDelete),
    // Only a config that has had a call is called on once deleted: the check brings a call
    // to the config before it deletes it.
    case(
        "push.delivery-stops-after-delete",
        Fault::PushAfterDeleteOnceDelivered,
    ),
    // Out of order on inline configs only: the check of one created config passes, the one
    // of every webhook (its own traffic has an inline config) fails. 1.0 only: 0.3 states no
    // ordering rule.
    case(
        "push.delivery-order-every-webhook",
        Fault::PushInlineOutOfOrder,
    ),
    expecting(
        "push.delivery-every-update-in-order",
        Fault::PushInlineOutOfOrder,
        Status::Pass,
    ),
    // A config refused with `authentication` and taken without: the push checks still judge,
    // and the credentials check says why it cannot.
    expecting(
        "push.config-create-returns-config",
        Fault::PushRefusesAuthentication,
        Status::Pass,
    ),
    expecting(
        "push.delivery-every-update-in-order",
        Fault::PushRefusesAuthentication,
        Status::Pass,
    ),
    expecting(
        "push.delivery-authentication",
        Fault::PushRefusesAuthentication,
        Status::Untestable,
    ),
    // Accepted at creation, and a call to the link-local address cannot be seen: no
    // evidence either way (the kit's own webhook is on loopback, so no loopback probe).
    expecting(
        "push.config-private-webhook-refused",
        Fault::PushAcceptsPrivateHost,
        Status::Untestable,
    ),
    // Agents given a webhook that does not read as loopback (see `routable_webhook`; the
    // traffic stays on loopback): the kit also offers a
    // loopback one on its receiver, and the agent is seen calling it.
    case(
        "push.config-private-webhook-refused",
        Fault::PushAcceptsPrivateHost,
    ),
];

/// Whether the harness gives the agent a webhook URL off loopback for `case` (the kit's
/// receiver then answers on 127.0.0.1 too, so a call to its loopback address can be seen).
pub fn routable_webhook(case: &Case) -> bool {
    case.check == "push.config-private-webhook-refused"
        && case.fault == Fault::PushAcceptsPrivateHost
        && case.expect.is_none()
}
