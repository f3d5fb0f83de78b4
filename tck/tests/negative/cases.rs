//! The negative cases: each check paired with the fault of the reference agent that breaks
//! its sentence, and the faults whose case is still pending on the kit side.

use a2a_reference_agent::Fault;
use a2a_tck::suite::check::{Binding, ProtocolVersion, Status};

/// How a check is broken.
pub struct Case {
    pub check: &'static str,
    pub fault: Fault,
    /// The card URL path to use instead of the well-known one (for card faults).
    pub card_path: Option<&'static str>,
    /// The status to see instead of FAIL/WARN (for faults that must not count as failures).
    pub expect: Option<Status>,
    /// The bindings whose results are judged, for faults of some bindings; empty = every
    /// result.
    pub bindings: &'static [Binding],
    /// The protocol versions whose results are judged; empty = every result.
    pub versions: &'static [ProtocolVersion],
}

pub const fn case(check: &'static str, fault: Fault) -> Case {
    Case {
        check,
        fault,
        card_path: None,
        expect: None,
        bindings: &[],
        versions: &[],
    }
}

/// A case whose fault is a conformant (or tolerated) alternative: every result must have
/// `status` (PASS, or WARN for a tolerated answer), never FAIL.
pub const fn expecting(check: &'static str, fault: Fault, status: Status) -> Case {
    Case {
        check,
        fault,
        card_path: None,
        expect: Some(status),
        bindings: &[],
        versions: &[],
    }
}

/// A case judged on some bindings' results only.
pub const fn on(bindings: &'static [Binding], check: &'static str, fault: Fault) -> Case {
    Case {
        check,
        fault,
        card_path: None,
        expect: None,
        bindings,
        versions: &[],
    }
}

/// A case judged on some bindings of some versions only.
pub const fn on_v(
    bindings: &'static [Binding],
    versions: &'static [ProtocolVersion],
    check: &'static str,
    fault: Fault,
) -> Case {
    Case {
        check,
        fault,
        card_path: None,
        expect: None,
        bindings,
        versions,
    }
}

/// 1.0 only: 0.3 specifies neither REST error bodies nor gRPC statuses, nor a result wrapper.
pub const V1_0: &[ProtocolVersion] = &[ProtocolVersion::V1_0];

/// Protocol version 0.3 alone.
pub const V0_3: &[ProtocolVersion] = &[ProtocolVersion::V0_3];

/// A case judged on the results of one protocol version only.
pub const fn in_version(
    version: &'static [ProtocolVersion],
    check: &'static str,
    fault: Fault,
) -> Case {
    Case {
        check,
        fault,
        card_path: None,
        expect: None,
        bindings: &[],
        versions: version,
    }
}

/// The bindings that carry JSON (a fault of the JSON encoding cannot show on gRPC).
pub const JSON: &[Binding] = &[Binding::Jsonrpc, Binding::Rest];

/// The JSON-RPC binding alone.
pub const RPC: &[Binding] = &[Binding::Jsonrpc];

/// A case whose fault is a defensible alternative on some bindings of 1.0 only: those results
/// must have `status` (PASS, or WARN for a tolerated answer).
pub const fn alternative(
    bindings: &'static [Binding],
    check: &'static str,
    fault: Fault,
    status: Status,
) -> Case {
    Case {
        check,
        fault,
        card_path: None,
        expect: Some(status),
        bindings,
        versions: V1_0,
    }
}

/// Faults that no case exercises yet because the kit cannot observe them today ("kit side
/// pending"): each gets its case, and leaves this list, with the kit change it needs.
pub const KIT_SIDE_PENDING: &[Fault] = &[
    // No check waits for a stream that reached INPUT_REQUIRED/AUTH_REQUIRED to close.
    Fault::StreamOpenAfterInterrupted,
    // The agent's card declares no tenant, so no check sends a REST request under /{tenant}.
    Fault::RestIgnoresTenant,
];
