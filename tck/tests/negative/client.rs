//! The negative cases of the client checks: each check paired with the fault of the reference
//! client that breaks its sentence, as `cases.rs` pairs an agent check with a fault of the
//! reference agent. `client_mode.rs` runs them.

use a2a_tck::client::reference_client::ClientFault;

/// How a client check is broken.
pub struct Case {
    pub check: &'static str,
    pub fault: ClientFault,
}

const fn case(check: &'static str, fault: ClientFault) -> Case {
    Case { check, fault }
}

/// Every client check's case.
pub const CASES: &[Case] = &[
    case(
        "client.card.tolerates-unknown-fields",
        ClientFault::RejectUnknownFields,
    ),
    case(
        "client.card.mixed-versions",
        ClientFault::IgnoreInterfaceVersion,
    ),
    case(
        "client.signatures.valid-accepted",
        ClientFault::VerifyAsServed,
    ),
    case(
        "client.signatures.invalid-refused",
        ClientFault::AcceptAnySignature,
    ),
    case(
        "client.signatures.required-defaults",
        ClientFault::RequireEverySignature,
    ),
    case(
        "client.requests.binding-form",
        ClientFault::WrongJsonrpcVersion,
    ),
    case(
        "client.requests.version-header",
        ClientFault::NoVersionHeader,
    ),
    case("client.requests.message-valid", ClientFault::ReuseMessageId),
    case("client.read.results", ClientFault::MisreadState),
    case("client.read.errors", ClientFault::MisreadErrors),
    case("client.follow-up.same-task", ClientFault::NewTaskOnFollowUp),
    case("client.stream.read", ClientFault::StopAtFirstEvent),
    case(
        "client.capabilities.streaming-off",
        ClientFault::StreamRegardless,
    ),
    case(
        "client.stream.resubscribe",
        ClientFault::PollInsteadOfSubscribe,
    ),
    case(
        "client.stream.chunks-reassembled",
        ClientFault::KeepLastChunk,
    ),
    case(
        "client.interface.first-supported",
        ClientFault::LastInterface,
    ),
    case("client.interface.fallback", ClientFault::NoFallback),
    case("client.interface.tenant", ClientFault::DropTenant),
    case(
        "client.extended-card.authenticated",
        ClientFault::UnauthenticatedExtendedCard,
    ),
    case(
        "client.extended-card.used",
        ClientFault::PublicCardAsExtended,
    ),
    case(
        "client.extensions.required-activated",
        ClientFault::NoExtensionHeader,
    ),
    case("client.push.config-sent", ClientFault::PushWithoutToken),
    case(
        "client.interface.unspoken-first-skipped",
        ClientFault::SpeakUnknownBinding,
    ),
    case(
        "client.card.invalid-refused",
        ClientFault::AcceptIncompleteCard,
    ),
    case(
        "client.credentials.unasked-withheld",
        ClientFault::BearerEverywhere,
    ),
    case(
        "client.credentials.other-origin-withheld",
        ClientFault::BearerToCardOrigin,
    ),
    case(
        "client.auth-required.read",
        ClientFault::AuthRequiredAsFailed,
    ),
    case(
        "client.version.refusal-not-retried",
        ClientFault::RetryRefusedVersion,
    ),
    case("client.card.cache-honored", ClientFault::StaleCard),
    case("client.stream.recovers", ClientFault::NoStreamRecovery),
    case(
        "client.stream.cut-reported",
        ClientFault::CutReadAsCompleted,
    ),
    case(
        "client.retry.same-message-id",
        ClientFault::NewMessageIdOnRetry,
    ),
    case(
        "client.retry.reports-served",
        ClientFault::RetryReportsFirstError,
    ),
    case("client.timeout.gives-up", ClientFault::IgnoreTimeout),
    case("client.polling.bounded", ClientFault::PollPastBound),
];
