//! The catalogue: one module per id prefix (`send` holds the `send.*` checks, `tasks_get` the
//! `tasks.get.*` ones, ...), each exporting its checks in spec order, plus `setup`, the helpers
//! several modules share, and `needs`, what each check needs of the agent. Check modules
//! never import each other.

use crate::check::{Binding, Capability, Check, Gate, ProtocolVersion, Scope};

pub mod auth;
pub mod bindings;
pub mod capabilities;
pub mod card;
pub mod card_jku;
pub mod card_last_modified;
pub mod card_signature;
pub mod context;
pub mod data_model;
pub mod data_model_utf8;
pub mod data_model_wire;
pub mod durability;
pub mod error_details;
pub mod extended_card;
pub mod extensions;
pub mod extensions_v03;
pub mod grpc;
pub mod jsonrpc;
pub mod push;
pub mod push_delivery;
pub mod push_order;
pub(crate) mod push_setup;
pub mod rest;
pub mod send;
pub mod send_modes;
pub mod service_params;
pub(crate) mod setup;
pub mod streaming;
pub mod streaming_progress;
pub mod subscribe;
pub mod tasks_cancel;
pub mod tasks_get;
pub mod tasks_list;
pub mod tasks_list_bounds;
pub mod tls;
pub mod v03;
pub mod v03_card;
pub mod v03_resubscribe;
pub mod v03_wire;
pub mod versioning;

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

/// The gate of the stream checks: the card declares `capabilities.streaming`.
pub const STREAMING: &[Gate] = &[Gate::Declares(Capability::Streaming)];

/// The catalogue in its stable order, in parts: each part is the id prefix of the module it
/// comes from and that module's checks. A module may give more than one part, so that the
/// order stays as it has always been (reports and snapshots follow it).
fn parts() -> Vec<(&'static str, Vec<Check>)> {
    vec![
        (card::PREFIX, card::checks()),
        (card_signature::PREFIX, card_signature::checks()),
        (send::PREFIX, send::checks()),
        (context::PREFIX, context::checks()),
        (tasks_get::PREFIX, tasks_get::checks()),
        (tasks_cancel::PREFIX, tasks_cancel::checks()),
        (tasks_list::PREFIX, tasks_list::checks()),
        (data_model::PREFIX, data_model::checks()),
        (jsonrpc::PREFIX, jsonrpc::checks()),
        (versioning::PREFIX, versioning::checks()),
        (capabilities::PREFIX, capabilities::checks()),
        (streaming::PREFIX, streaming::checks()),
        (subscribe::PREFIX, subscribe::checks()),
        (rest::PREFIX, rest::checks()),
        (grpc::PREFIX, grpc::checks()),
        (streaming::PREFIX, streaming::framing_checks()),
        (jsonrpc::PREFIX, jsonrpc::stream_checks()),
        (bindings::PREFIX, bindings::checks()),
        (v03::PREFIX, v03::checks()),
        (versioning::PREFIX, versioning::across_versions()),
        (send::PREFIX, send::identity_checks()),
        (extensions::PREFIX, extensions::checks()),
        (service_params::PREFIX, service_params::checks()),
        (tls::PREFIX, tls::checks()),
        (durability::PREFIX, durability::checks()),
        (auth::PREFIX, auth::checks()),
        (extended_card::PREFIX, extended_card::checks()),
        (push::PREFIX, push::checks()),
        (push::PREFIX, push_delivery::checks()),
        (push::PREFIX, push_order::checks()),
        (v03_wire::PREFIX, v03_wire::checks()),
        (v03_card::PREFIX, v03_card::checks()),
        (streaming_progress::PREFIX, streaming_progress::checks()),
        (rest::PREFIX, rest::binding_rules()),
        (grpc::PREFIX, grpc::binding_rules()),
        (card::PREFIX, card_last_modified::checks()),
        (jsonrpc::PREFIX, error_details::jsonrpc_checks()),
        (rest::PREFIX, error_details::rest_checks()),
        (subscribe::PREFIX, subscribe::closing_checks()),
        (data_model_wire::PREFIX, data_model_wire::checks()),
        (streaming::PREFIX, data_model_wire::stream_checks()),
        (v03_resubscribe::PREFIX, v03_resubscribe::checks()),
        (extensions_v03::PREFIX, extensions_v03::checks()),
        // --- planned10 ---
        (send::PREFIX, send_modes::checks()),
        (card_signature::PREFIX, card_jku::checks()),
        (data_model::PREFIX, data_model_utf8::checks()),
        (tasks_list::PREFIX, tasks_list_bounds::checks()),
    ]
}

/// Whether the check judges the traffic of the whole run on its interface (the wire shapes,
/// the order of every webhook's calls), and so runs after every other.
pub fn judges_the_run(id: &str) -> bool {
    data_model_wire::judges_the_run(id) || push_order::judges_the_run(id)
}

/// Every check of the kit, in a stable order.
pub fn all() -> Vec<Check> {
    parts().into_iter().flat_map(|(_, checks)| checks).collect()
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

    #[test]
    fn needs_name_scenarios_and_weights() {
        for check in all() {
            let needs = check.needs;
            for p in needs.scenarios.iter().chain(needs.optional) {
                assert!(
                    crate::contract::is_scenario(p),
                    "{}: {p} is not a scenario prefix",
                    check.id
                );
            }
            assert!(needs.weight >= 1, "{}: a weight of 0", check.id);
        }
    }

    #[test]
    fn each_module_exports_only_ids_of_its_prefix() {
        for (prefix, checks) in parts() {
            assert!(!checks.is_empty(), "module {prefix} gives an empty part");
            for check in checks {
                assert!(
                    check.id.starts_with(&format!("{prefix}.")),
                    "check {} is in the module of prefix {prefix}",
                    check.id
                );
            }
        }
    }
}
