//! What the card declares that no result of the run tested: capabilities, security, signatures,
//! extensions. A declaration no check judged is named in the verdict, the summary and the
//! reports, with why it went untested, so a run never passes over it in silence.

use serde_json::Value;

use crate::reporting::report::{CheckResult, NotRun, UntestedDeclaration};
use crate::suite::check::{Capability, Check, Gate, Status};
use crate::suite::filter::Filter;

impl UntestedDeclaration {
    /// "pushNotifications declared, not tested: this version of the kit has no push checks".
    pub fn line(&self) -> String {
        format!("{} declared, not tested: {}", self.what, self.why)
    }
}

/// The untested declarations, one line per reason: `streaming, extensions declared, not
/// tested: the selection (--select, --level) excluded its checks` says once what it would
/// otherwise repeat for each declaration.
pub fn grouped_lines(list: &[UntestedDeclaration]) -> Vec<String> {
    let mut groups: Vec<(&str, Vec<&str>)> = Vec::new();
    for untested in list {
        match groups.iter_mut().find(|(why, _)| *why == untested.why) {
            Some((_, whats)) => whats.push(&untested.what),
            None => groups.push((&untested.why, vec![&untested.what])),
        }
    }
    groups
        .into_iter()
        .map(|(why, whats)| format!("{} declared, not tested: {why}", whats.join(", ")))
        .collect()
}

/// What the run needs to know to tell a declaration tested from one left untested.
pub struct Run<'a> {
    pub card: &'a Value,
    pub catalog: &'a [Check],
    pub selected: &'a [&'a Check],
    pub results: &'a [CheckResult],
    pub not_run: &'a [NotRun],
    pub filter: &'a Filter,
}

const CAPABILITIES: [(Capability, &str); 3] = [
    (Capability::Streaming, "streaming"),
    (Capability::PushNotifications, "push notification"),
    (Capability::ExtendedAgentCard, "extended agent card"),
];

/// Why a declaration went untested when the run was stopped before any of its checks ran
/// (`is_its_check` names them): the stop, not a fact about the agent the run never
/// established.
const STOPPED_BEFORE: &str = "the run was interrupted before its checks ran";

/// Whether a stop left out a check `is_its_check` names.
fn stopped_before(run: &Run<'_>, is_its_check: &dyn Fn(&str) -> bool) -> bool {
    (run.not_run.iter()).any(|n| n.reason == crate::facts::stop::INTERRUPTED && is_its_check(&n.id))
}

/// Every declaration of the card that no result of the run tested, in card order.
pub fn untested(run: &Run<'_>) -> Vec<UntestedDeclaration> {
    let mut out = Vec::new();
    let capabilities = run.card.get("capabilities");
    for (capability, words) in CAPABILITIES {
        let field = capability.card_field();
        let mut declared = capabilities
            .and_then(|c| c.get(field))
            .and_then(Value::as_bool)
            .unwrap_or(false);
        // The 0.3 card's own field for the extended card.
        if capability == Capability::ExtendedAgentCard {
            declared |= run
                .card
                .get("supportsAuthenticatedExtendedCard")
                .and_then(Value::as_bool)
                .unwrap_or(false);
        }
        if let Some(why) = declared
            .then(|| capability_gap(run, capability, words))
            .flatten()
        {
            out.push(UntestedDeclaration {
                what: field.to_string(),
                why,
            });
        }
    }
    let non_empty = |value: Option<&Value>| match value {
        Some(Value::Array(items)) => !items.is_empty(),
        Some(Value::Object(fields)) => !fields.is_empty(),
        _ => false,
    };
    if non_empty(capabilities.and_then(|c| c.get("extensions"))) {
        // Judged by the extension checks that look at the declared extensions.
        let extension_check = |id: &str| {
            id.starts_with("extensions.") && id != "extensions.unknown-extension-ignored"
        };
        let judged = (run.results.iter())
            .any(|r| extension_check(&r.id) && r.status != Status::NotApplicable);
        if !judged {
            let why = if stopped_before(run, &extension_check) {
                STOPPED_BEFORE
            } else if run.selected.iter().any(|c| extension_check(c.id)) {
                "no extension check could judge it: the kit judges required extensions \
                 (what an optional one changes is defined by its own specification)"
            } else {
                "the selection (--select, --level) excluded its checks"
            };
            out.push(UntestedDeclaration {
                what: "extensions".into(),
                why: why.into(),
            });
        }
    }
    let security = ["securitySchemes", "securityRequirements", "security"];
    if security.iter().any(|key| non_empty(run.card.get(*key))) {
        let auth_check = |id: &str| id.starts_with("auth.");
        let judged = run
            .results
            .iter()
            .any(|r| auth_check(&r.id) && r.status != Status::NotApplicable);
        if !judged {
            let not_applicable = run
                .results
                .iter()
                .find(|r| auth_check(&r.id) && r.status == Status::NotApplicable);
            let why = if let Some(result) = not_applicable {
                result.message.clone()
            } else if stopped_before(run, &auth_check) {
                STOPPED_BEFORE.to_string()
            } else if run.selected.iter().any(|c| auth_check(c.id)) {
                "no usable interface ran its checks".to_string()
            } else {
                "the selection (--select, --level) excluded its checks".to_string()
            };
            for key in security {
                if non_empty(run.card.get(key)) {
                    out.push(UntestedDeclaration {
                        what: key.into(),
                        why: why.clone(),
                    });
                }
            }
        }
    }
    if non_empty(run.card.get("signatures")) {
        let signature_check = |id: &str| id.starts_with("card.signature.");
        let judged = run
            .results
            .iter()
            .any(|r| signature_check(&r.id) && r.status != Status::NotApplicable);
        if !judged {
            let why = if stopped_before(run, &signature_check) {
                STOPPED_BEFORE
            } else if run.selected.iter().any(|c| signature_check(c.id)) {
                "no signature could be judged (no key found through `jku` or --trusted-key, \
                 or an algorithm the kit cannot verify)"
            } else {
                "the selection (--select, --level) excluded its checks"
            };
            out.push(UntestedDeclaration {
                what: "signatures".into(),
                why: why.into(),
            });
        }
    }
    out
}

/// Why the checks of a declared capability produced no result, or `None` when one did.
fn capability_gap(run: &Run<'_>, capability: Capability, words: &str) -> Option<String> {
    let gated = |check: &Check| check.requires.contains(&Gate::Declares(capability));
    let ids: Vec<&str> = run
        .catalog
        .iter()
        .filter(|c| gated(c))
        .map(|c| c.id)
        .collect();
    if ids.is_empty() {
        return Some(format!("this version of the kit has no {words} checks"));
    }
    if run.results.iter().any(|r| ids.contains(&r.id.as_str())) {
        return None;
    }
    if !run.selected.iter().any(|c| gated(c)) {
        return Some("the selection (--select, --level) excluded its checks".into());
    }
    if stopped_before(run, &|id| ids.contains(&id)) {
        return Some(STOPPED_BEFORE.into());
    }
    if run.not_run.iter().any(|n| ids.contains(&n.id.as_str())) {
        return Some("its checks were not run: the contract is `none`".into());
    }
    if !run.filter.bindings.is_empty() || !run.filter.versions.is_empty() {
        return Some("the selection (--binding, --protocol-version) excluded it".into());
    }
    Some("no usable interface ran its checks".into())
}
