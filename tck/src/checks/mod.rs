//! The catalogue: one file per spec area, each exporting its checks in spec order.

use crate::check::{Binding, Check, ProtocolVersion, Scope};

pub mod agent_card;
pub mod bindings;
pub mod capabilities;
pub mod data_model;
pub mod jsonrpc_binding;
pub mod list_tasks;
pub mod send_message;
pub mod streaming;
pub mod tasks;
pub mod versioning;
pub mod versions;

/// Binding-agnostic checks: run once on every declared interface of 1.0.
pub const EVERY_BINDING_1_0: Scope = Scope::Interface {
    bindings: &[Binding::Jsonrpc, Binding::Rest, Binding::Grpc],
    versions: &[ProtocolVersion::V1_0],
};

/// Lifecycle and identity checks: run on every declared interface of 0.3 and of 1.0.
pub const EVERY_BINDING_BOTH: Scope = Scope::Interface {
    bindings: &[Binding::Jsonrpc, Binding::Rest, Binding::Grpc],
    versions: &[ProtocolVersion::V1_0, ProtocolVersion::V0_3],
};

/// Checks of 0.3 interfaces, on every binding.
pub const EVERY_BINDING_0_3: Scope = Scope::Interface {
    bindings: &[Binding::Jsonrpc, Binding::Rest, Binding::Grpc],
    versions: &[ProtocolVersion::V0_3],
};

/// Checks of the JSON encodings of 0.3 (JSON-RPC and REST).
pub const JSON_0_3: Scope = Scope::Interface {
    bindings: &[Binding::Jsonrpc, Binding::Rest],
    versions: &[ProtocolVersion::V0_3],
};

/// Rules of the JSON-RPC binding of 0.3.
pub const JSONRPC_0_3: Scope = Scope::Interface {
    bindings: &[Binding::Jsonrpc],
    versions: &[ProtocolVersion::V0_3],
};

/// Rules of the JSON-RPC binding of 1.0.
pub const JSONRPC_1_0: Scope = Scope::Interface {
    bindings: &[Binding::Jsonrpc],
    versions: &[ProtocolVersion::V1_0],
};

/// Rules of the HTTP+JSON/REST binding of 1.0.
pub const REST_1_0: Scope = Scope::Interface {
    bindings: &[Binding::Rest],
    versions: &[ProtocolVersion::V1_0],
};

/// Rules of the gRPC binding of 1.0.
pub const GRPC_1_0: Scope = Scope::Interface {
    bindings: &[Binding::Grpc],
    versions: &[ProtocolVersion::V1_0],
};

/// The JSON bindings (JSON-RPC and REST) of 1.0: Server-Sent Events streams, ProtoJSON
/// request bodies.
pub const JSON_1_0: Scope = Scope::Interface {
    bindings: &[Binding::Jsonrpc, Binding::Rest],
    versions: &[ProtocolVersion::V1_0],
};

/// Every check of the kit, in a stable order.
pub fn all() -> Vec<Check> {
    [
        agent_card::checks(),
        send_message::checks(),
        tasks::checks(),
        list_tasks::checks(),
        data_model::checks(),
        jsonrpc_binding::checks(),
        versioning::checks(),
        capabilities::checks(),
        streaming::checks(),
        bindings::checks(),
        versions::checks(),
    ]
    .into_iter()
    .flatten()
    .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn ids_are_unique_kebab_slugs() {
        let checks = all();
        let mut seen = HashSet::new();
        for check in &checks {
            assert!(seen.insert(check.id), "duplicate id {}", check.id);
            assert!(
                check
                    .id
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '.'),
                "id {} is not a lowercase slug",
                check.id
            );
            assert!(!check.requirement.is_empty());
            assert!(!check.spec.section.is_empty());
        }
    }
}
