//! The negative cases of the `data-model.*` checks: each names a check and a fault of the
//! reference agent under which it must FAIL (MUST) or WARN (SHOULD, MAY), unless it says otherwise.

use a2a_reference_agent::Fault;

use crate::cases::{case, in_version, on_v, Case, JSON, RPC, V0_3, V1_0};

pub const CASES: &[Case] = &[
    case("data-model.task.required-fields", Fault::OmitStatusState),
    case(
        "data-model.message.required-fields",
        Fault::MessageMissingMessageId,
    ),
    case(
        "data-model.message.required-fields",
        Fault::NestedMessageMissingRole,
    ),
    case(
        "data-model.message.required-fields",
        Fault::HistoryAgentMessageEmptyParts,
    ),
    case(
        "data-model.artifact.required-fields",
        Fault::ArtifactMissingId,
    ),
    case(
        "data-model.json.camel-case-field-names",
        Fault::SnakeCaseFields,
    ),
    case(
        "data-model.enums.protojson-names",
        Fault::LowercaseTaskState,
    ),
    case("data-model.timestamps.utc-z", Fault::TimestampWithOffset),
    case("data-model.no-kind-discriminator", Fault::EmitKindField),
    case("data-model.wire-shape-1-0", Fault::WireMissingRequiredField),
    case("data-model.wire-shape-0-3", Fault::WireMissingRequiredField),
    on_v(
        JSON,
        V1_0,
        "data-model.wire-shape-1-0",
        Fault::WirePartTwoMembers,
    ),
    on_v(
        JSON,
        V1_0,
        "data-model.wire-shape-1-0",
        Fault::WireBadEnumValue,
    ),
    on_v(
        JSON,
        V1_0,
        "data-model.artifact.required-fields",
        Fault::WireRawNotBase64,
    ),
    on_v(
        JSON,
        V1_0,
        "data-model.no-other-version-fields",
        Fault::WireOtherVersionField,
    ),
    on_v(
        JSON,
        V0_3,
        "data-model.no-other-version-fields",
        Fault::WireOtherVersionField,
    ),
    case(
        "data-model.stream-events-same-task",
        Fault::WireStreamOtherTaskId,
    ),
    in_version(
        V0_3,
        "data-model.stream-events-same-task",
        Fault::WireStreamOtherTaskId,
    ),
    // Faults of other rules that the schemas catch too.
    case("data-model.wire-shape-1-0", Fault::OmitStatusState),
    on_v(
        JSON,
        V1_0,
        "data-model.wire-shape-1-0",
        Fault::LowercaseTaskState,
    ),
    on_v(
        JSON,
        V1_0,
        "data-model.wire-shape-1-0",
        Fault::SendResultUnwrapped,
    ),
    on_v(
        JSON,
        V1_0,
        "data-model.no-other-version-fields",
        Fault::EmitKindField,
    ),
    on_v(RPC, V0_3, "data-model.wire-shape-0-3", Fault::V03NoKind),
    on_v(RPC, V0_3, "data-model.wire-shape-0-3", Fault::V03NoFinal),
    on_v(
        RPC,
        V0_3,
        "data-model.wire-shape-0-3",
        Fault::V03StateSpelled10,
    ),
    on_v(
        RPC,
        V0_3,
        "data-model.wire-shape-0-3",
        Fault::V03Answers10Shapes,
    ),
    case("data-model.json-utf-8", Fault::JsonLatin1Charset),
];
