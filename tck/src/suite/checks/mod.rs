//! The catalogue: one module per id prefix (`send` holds the `send.*` checks, `tasks_get` the
//! `tasks.get.*` ones, ...), each exporting its checks in spec order, plus `setup`, the helpers
//! several modules share. What a check needs of the agent is its `Check`'s `needs` (a
//! `Needs`, in `facts/model.rs`). Check modules never import each other.

use crate::suite::check::{Binding, Capability, Check, Gate, ProtocolVersion, Scope};

pub mod auth;
pub mod bindings;
pub mod capabilities;
pub mod card;
pub mod card_signature;
pub mod context;
pub mod data_model;
pub mod durability;
pub mod extended_card;
pub mod extensions;
pub mod grpc;
pub mod jsonrpc;
pub mod lifecycle;
pub mod push;
pub mod rest;
pub mod send;
pub mod service_params;
pub(crate) mod setup;
pub mod streaming;
pub mod subscribe;
pub mod tasks_cancel;
pub mod tasks_get;
pub mod tasks_list;
pub mod tls;
pub mod v03;
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

/// Rules of the JSON-RPC binding that 0.3 and 1.0 share.
pub const JSONRPC_BOTH: Scope = Scope::Interface {
    bindings: &[Binding::Jsonrpc],
    versions: &[ProtocolVersion::V1_0, ProtocolVersion::V0_3],
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
        (push::PREFIX, push::delivery::checks()),
        (push::PREFIX, push::order::checks()),
        (v03::wire::PREFIX, v03::wire::checks()),
        (v03::card::PREFIX, v03::card::checks()),
        (streaming::progress::PREFIX, streaming::progress::checks()),
        (rest::PREFIX, rest::binding_rules()),
        (grpc::PREFIX, grpc::binding_rules()),
        (card::PREFIX, card::last_modified::checks()),
        (jsonrpc::PREFIX, jsonrpc::error_details::jsonrpc_checks()),
        (rest::PREFIX, rest::error_details::rest_checks()),
        (subscribe::PREFIX, subscribe::closing_checks()),
        (lifecycle::PREFIX, lifecycle::checks()),
        (data_model::wire::PREFIX, data_model::wire::checks()),
        (streaming::after_end::PREFIX, streaming::after_end::checks()),
        (v03::resubscribe::PREFIX, v03::resubscribe::checks()),
        (extensions::v03::PREFIX, extensions::v03::checks()),
        // --- planned10 ---
        (send::PREFIX, send::modes::checks()),
        (card_signature::PREFIX, card_signature::jku::checks()),
        (data_model::PREFIX, data_model::utf8::checks()),
        (tasks_list::PREFIX, tasks_list::bounds::checks()),
    ]
}

/// Every check of the kit, in a stable order.
pub fn all() -> Vec<Check> {
    parts().into_iter().flat_map(|(_, checks)| checks).collect()
}

/// The id of every check of [`all`] (a baseline of a run on an agent names these).
pub fn ids() -> Vec<&'static str> {
    all().iter().map(|c| c.id).collect()
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

    /// Every `.rs` file under `checks/`, as (path relative to it, text).
    fn sources() -> Vec<(String, String)> {
        fn walk(dir: &std::path::Path, root: &std::path::Path, out: &mut Vec<(String, String)>) {
            for entry in std::fs::read_dir(dir).expect("checks/ is readable") {
                let path = entry.expect("an entry").path();
                if path.is_dir() {
                    walk(&path, root, out);
                } else if path.extension().is_some_and(|e| e == "rs") {
                    let rel = path.strip_prefix(root).expect("under checks/");
                    let text = std::fs::read_to_string(&path).expect("a source file");
                    out.push((rel.to_string_lossy().replace('\\', "/"), text));
                }
            }
        }
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/suite/checks");
        let mut out = Vec::new();
        walk(&root, &root, &mut out);
        out
    }

    /// A check calls an operation one way: the typed call of its context (`ctx.get(params)`,
    /// `ctx.create_push_config(params)`, `ctx.extended_card()`, ... each returning the whole
    /// reply), never the transport itself nor a typed operation by its name; `ctx.request` is
    /// for a method named on purpose (an unknown one, another version's name).
    #[test]
    fn checks_call_operations_through_the_typed_calls_of_their_context() {
        const TYPED: &[&str] = &[
            "SendMessage",
            "SendStreamingMessage",
            "GetTask",
            "ListTasks",
            "CancelTask",
            "SubscribeToTask",
            "CreateTaskPushNotificationConfig",
            "GetTaskPushNotificationConfig",
            "ListTaskPushNotificationConfigs",
            "DeleteTaskPushNotificationConfig",
            "GetExtendedAgentCard",
        ];
        let mut found = Vec::new();
        for (rel, text) in sources().into_iter().filter(|(rel, _)| rel != "mod.rs") {
            let code: String = (text.lines())
                .map(|l| l.split("//").next().unwrap_or(l))
                .collect::<Vec<_>>()
                .join("\n");
            let squeezed: String = code.split_whitespace().collect();
            if squeezed.contains(".transport()") {
                found.push(format!("{rel} calls through ctx.transport()"));
            }
            for op in TYPED {
                for by_name in ["request", "stream", "open_stream"] {
                    if squeezed.contains(&format!(".{by_name}(\"{op}\"")) {
                        found.push(format!("{rel} calls {op} by name ({by_name})"));
                    }
                }
            }
        }
        assert!(found.is_empty(), "{found:#?}");
    }

    /// A check module uses the shared helpers of `checks/setup/` and the scopes of this file,
    /// never another check module: what two areas share lives in `setup/`.
    #[test]
    fn no_check_module_imports_another() {
        let files = sources();
        // The top-level modules: `send` for `send.rs` and everything under `send/`.
        let top = |rel: &str| {
            rel.split('/')
                .next()
                .unwrap_or(rel)
                .trim_end_matches(".rs")
                .to_string()
        };
        let modules: HashSet<String> = (files.iter())
            .map(|(rel, _)| top(rel))
            .filter(|m| m != "mod" && m != "setup")
            .collect();
        let mut found = Vec::new();
        for (rel, text) in &files {
            let own = top(rel);
            if own == "mod" || own == "setup" {
                continue;
            }
            let depth = rel.matches('/').count();
            let up = format!("super::{}", "super::".repeat(depth));
            for code in text.lines().map(|l| l.split("//").next().unwrap_or(l)) {
                for prefix in ["crate::suite::checks::", up.as_str()] {
                    for (at, _) in code.match_indices(prefix) {
                        if prefix == up && code[..at].ends_with("::") {
                            continue;
                        }
                        let rest = &code[at + prefix.len()..];
                        let name: String = (rest.chars())
                            .take_while(|c| {
                                c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '_'
                            })
                            .collect();
                        if modules.contains(&name) && name != own {
                            found.push(format!("{rel} uses {name}"));
                        }
                    }
                }
            }
        }
        assert!(
            found.is_empty(),
            "check modules importing others: {found:#?}"
        );
    }

    #[test]
    fn needs_name_scenarios_and_weights() {
        for check in all() {
            let needs = check.needs;
            for p in needs.scenarios.iter().chain(needs.optional) {
                assert!(
                    crate::suite::contract::is_scenario(p),
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
