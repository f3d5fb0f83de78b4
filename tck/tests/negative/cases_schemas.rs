//! The negative cases of the strict wire shapes (`data-model.wire-shape-*`,
//! `data-model.no-other-version-fields`, `data-model.stream-events-same-task`). Faults that
//! put a member protobuf cannot carry (a second oneof member, an unknown enum value, an extra
//! member) are judged on the JSON bindings, where they reach the wire.

use a2a_reference_agent::Fault;
use a2a_tck::check::{Binding, ProtocolVersion};

use crate::cases::{case, in_version, on_v, Case};

const JSON: &[Binding] = &[Binding::Jsonrpc, Binding::Rest];
const RPC: &[Binding] = &[Binding::Jsonrpc];
const V1_0: &[ProtocolVersion] = &[ProtocolVersion::V1_0];
const V0_3: &[ProtocolVersion] = &[ProtocolVersion::V0_3];

pub const SCHEMAS_CASES: &[Case] = &[
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
    case(
        "streaming.nothing-after-stream-end",
        Fault::StreamChunkAfterTerminal,
    ),
    in_version(
        V0_3,
        "streaming.nothing-after-stream-end",
        Fault::StreamChunkAfterTerminal,
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
];
