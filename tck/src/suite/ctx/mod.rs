//! The per-check context: the card, the interface under test and its transport, the
//! check's ids and evidence. Checks call operations here; the transport decides how the
//! interface's binding and version carry them, so nothing here looks at either.

use std::sync::Arc;

use serde_json::{json, Value};

use crate::exchange::card::{FetchedCard, Interface};
pub use crate::exchange::transport::answer::RpcReply;
use crate::exchange::transport::{Connector, Transport};
use crate::exchange::wire::Wire;
use crate::facts::ids::Ids;
use crate::facts::model::HarnessError;

mod operations;

pub use crate::exchange::transport::{Answer, ErrorReply};

/// What a check works with. Cheap to clone; clones share the evidence log and the ids.
#[derive(Debug, Clone)]
pub struct Ctx {
    pub card: Arc<FetchedCard>,
    /// The interface under test; `None` for card checks.
    pub interface: Option<Interface>,
    pub wire: Wire,
    /// The interface's binding, in its version; `None` for card checks.
    transport: Option<Arc<dyn Transport>>,
    /// Makes the transports of other interfaces (see [`Ctx::on`]).
    connector: Connector,
    /// The interfaces this run tests and that answered the probe (selection applied): checks
    /// that compare interfaces use these and no others.
    usable: Arc<Vec<Interface>>,
    ids: Ids,
    /// The scenario contract of the run, and the scenario prefixes this check sent.
    scenarios: crate::suite::contract::Scenarios,
    /// Public keys (JWKs) the user trusts for card signatures (`--trusted-key`).
    trusted_keys: Arc<Vec<Value>>,
    /// The durability phase: what was made on this interface before the restart.
    saved: Option<Arc<Saved>>,
    /// The credentials of a second principal (see [`Ctx::with_other_credentials`]).
    other_credentials: Arc<Vec<(String, String)>>,
    /// The credentials of a limited principal (see [`Ctx::with_limited_credentials`]).
    limited_credentials: Arc<Vec<(String, String)>>,
    /// The run's webhook receiver (push checks), or why it could not start.
    webhook: Option<Arc<Result<crate::exchange::webhook::Webhook, String>>>,
    /// How the run judges the sentences the revisions of 1.0 word differently, and its
    /// record of the contested sentences its checks met.
    judging: crate::facts::revision::Judging,
    met: crate::facts::revision::MetLog,
}

impl Ctx {
    pub fn new(
        card: Arc<FetchedCard>,
        interface: Option<Interface>,
        wire: Wire,
        connector: Connector,
        ns: &str,
    ) -> Ctx {
        let ids = Ids::new(ns);
        let transport = interface
            .as_ref()
            .map(|i| connector.connect(i, &wire, &ids));
        Ctx {
            card,
            interface,
            wire,
            transport,
            connector,
            usable: Arc::default(),
            ids,
            scenarios: crate::suite::contract::Scenarios::default(),
            trusted_keys: Arc::default(),
            saved: None,
            other_credentials: Arc::default(),
            limited_credentials: Arc::default(),
            webhook: None,
            judging: crate::facts::revision::Judging::default(),
            met: crate::facts::revision::MetLog::default(),
        }
    }

    /// With the run's webhook receiver (or why it could not start).
    pub fn with_webhook(
        mut self,
        webhook: Option<Arc<Result<crate::exchange::webhook::Webhook, String>>>,
    ) -> Ctx {
        self.webhook = webhook;
        self
    }

    /// The run's webhook receiver; a missing prerequisite when it is not running.
    pub fn webhook(&self) -> Result<&crate::exchange::webhook::Webhook, HarnessError> {
        match self.webhook.as_deref() {
            Some(Ok(webhook)) => Ok(webhook),
            Some(Err(why)) => Err(HarnessError::Prerequisite(format!(
                "the kit's webhook receiver did not start: {why}"
            ))),
            None => Err(HarnessError::Prerequisite(
                "the kit's webhook receiver is not running in this run".into(),
            )),
        }
    }

    /// With the credentials of a second principal (`--other-bearer`, `--other-header`).
    pub fn with_other_credentials(mut self, headers: Arc<Vec<(String, String)>>) -> Ctx {
        self.other_credentials = headers;
        self
    }

    /// The credentials of a second principal; empty when none was given.
    pub fn other_credentials(&self) -> &[(String, String)] {
        &self.other_credentials
    }

    /// With the credentials of a limited principal (`--limited-bearer`, `--limited-header`):
    /// one the agent authenticates but permits nothing the kit tries.
    pub fn with_limited_credentials(mut self, headers: Arc<Vec<(String, String)>>) -> Ctx {
        self.limited_credentials = headers;
        self
    }

    /// The credentials of a limited principal; empty when none was given.
    pub fn limited_credentials(&self) -> &[(String, String)] {
        &self.limited_credentials
    }

    /// The same check as another caller: `headers` are sent in place of the run's headers
    /// (`--header`, `--bearer`); their values are redacted in evidence alike. Exchanges are
    /// recorded in this check's evidence.
    pub fn as_caller(&self, headers: Vec<(String, String)>) -> Ctx {
        let wire = self.wire.clone().with_headers(Arc::new(headers));
        let transport = self
            .interface
            .as_ref()
            .map(|i| self.connector.connect(i, &wire, &self.ids));
        Ctx {
            wire,
            transport,
            ..self.clone()
        }
    }

    /// With what the durability phase made on this interface before the restart.
    pub fn with_saved(mut self, saved: Arc<Saved>) -> Ctx {
        self.saved = Some(saved);
        self
    }

    /// What the durability phase made on this interface before the restart, if it runs.
    pub fn saved(&self) -> Option<&Saved> {
        self.saved.as_deref()
    }

    /// With the run's scenario contract (default: every scenario honoured).
    pub fn with_scenarios(mut self, scenarios: crate::suite::contract::Scenarios) -> Ctx {
        self.scenarios = scenarios;
        self
    }

    /// The run's scenario contract, and what this check sent of it.
    pub fn scenarios(&self) -> &crate::suite::contract::Scenarios {
        &self.scenarios
    }

    /// With the run's judging (`--spec-revision`) and its record of what checks met.
    pub fn with_judging(
        mut self,
        judging: crate::facts::revision::Judging,
        met: crate::facts::revision::MetLog,
    ) -> Ctx {
        self.judging = judging;
        self.met = met;
        self
    }

    /// How the run judges the sentences the revisions word differently.
    pub fn judging(&self) -> crate::facts::revision::Judging {
        self.judging
    }

    /// What check `id` runs under: the run's judging and its record of what was met.
    pub fn judged(&self, id: &'static str) -> crate::facts::revision::Judged {
        crate::facts::revision::Judged {
            judging: self.judging,
            check: id,
            met: self.met.clone(),
        }
    }

    /// With the public keys (JWKs) trusted for card signatures.
    pub fn with_trusted_keys(mut self, keys: Arc<Vec<Value>>) -> Ctx {
        self.trusted_keys = keys;
        self
    }

    /// The public keys (JWKs) trusted for card signatures (see [`Ctx::with_trusted_keys`]).
    pub fn trusted_keys(&self) -> &[Value] {
        &self.trusted_keys
    }

    /// With the interfaces of this run that checks comparing interfaces may use.
    pub fn with_interfaces(mut self, usable: Arc<Vec<Interface>>) -> Ctx {
        self.usable = usable;
        self
    }

    /// The interfaces of this run that answered the probe (see [`Ctx::with_interfaces`]).
    pub fn interfaces(&self) -> &[Interface] {
        &self.usable
    }

    /// The same check's context on another interface (checks that compare bindings). Ids stay
    /// in this check's namespace.
    pub fn on(&self, interface: Interface) -> Ctx {
        let transport = self.connector.connect(&interface, &self.wire, &self.ids);
        Ctx {
            interface: Some(interface),
            transport: Some(transport),
            ..self.clone()
        }
    }

    /// The same check's context with `extensions` activated on every request instead of the
    /// card's required ones (empty: none), on the same interface.
    pub fn with_extensions(&self, extensions: Vec<String>) -> Ctx {
        let wire = self.wire.clone().with_extensions(Arc::new(extensions));
        let transport =
            (self.interface.as_ref()).map(|i| self.connector.connect(i, &wire, &self.ids));
        Ctx {
            wire,
            transport,
            ..self.clone()
        }
    }

    /// This check's namespace: its ids, and the `by` of what the run's history saw through it.
    pub fn namespace(&self) -> &str {
        self.ids.ns()
    }

    /// A fresh id in this check's namespace: `<prefix>-<ns>-<n>` (see [`Ids`]).
    pub fn id(&self, prefix: &str) -> String {
        self.scenarios.note(prefix);
        self.ids.next(prefix)
    }

    /// A user message playing the scenario `prefix` (a kit name), carried the way the
    /// run's contract carries it: its messageId starts with `prefix` (official, kit), or
    /// under ACTS its first text part is the ACTS counterpart and its messageId carries no
    /// prefix (a name without a counterpart is carried the messageId way). Carried by its
    /// messageId, its parts are the kit's own text, or those the card of an agent that plays
    /// no contract gave (see [`crate::suite::card_drive`]).
    pub fn user_message(&self, prefix: &str) -> Value {
        if let Some((parts, metadata)) = self.scenarios.drive().and_then(|d| d.first(prefix)) {
            return self.driven(prefix, parts, metadata);
        }
        let text = self.scenarios.text_prefix(prefix);
        self.message_with(prefix, text)
    }

    /// A follow-up on `task` playing `prefix`, without its ids (the caller sets them): a
    /// drive file's follow-up for the state the task is in (values read from `task`), else
    /// [`Ctx::follow_up_message`].
    pub fn follow_up_on(&self, task: &Value, prefix: &str) -> Value {
        if let Some(drive) = self.scenarios.drive() {
            let task_id = crate::facts::a2a::text(task, "id").unwrap_or("(no id)");
            for pointer in drive.unresolved(prefix, task) {
                self.scenarios.note_unresolved(&pointer, task_id);
            }
        }
        match self
            .scenarios
            .drive()
            .and_then(|d| d.follow_up(prefix, task))
        {
            Some((parts, metadata)) => self.driven(prefix, parts, metadata),
            None => self.follow_up_message(prefix),
        }
    }

    fn driven(&self, prefix: &str, parts: Value, metadata: Option<Value>) -> Value {
        self.scenarios.note(prefix);
        let mut message = json!({
            "messageId": self.ids.next("a2a-tck-message"),
            "role": "ROLE_USER",
            "parts": parts,
        });
        if let Some(metadata) = metadata {
            message["metadata"] = metadata;
        }
        message
    }

    /// A follow-up message playing `prefix` on an existing task (the caller sets `taskId`):
    /// as [`Ctx::user_message`], except that ACTS follow-ups are plain text (`done` to
    /// complete a multi-turn task).
    pub fn follow_up_message(&self, prefix: &str) -> Value {
        let text = self.scenarios.follow_up_text(prefix);
        self.message_with(prefix, text)
    }

    fn message_with(&self, prefix: &str, text: Option<&str>) -> Value {
        match text {
            Some(text) => {
                self.scenarios.note(prefix);
                json!({
                    "messageId": self.ids.next("a2a-tck-message"),
                    "role": "ROLE_USER",
                    "parts": [{"text": text}],
                })
            }
            // An agent that plays no contract may have said on its card what it takes.
            None => json!({
                "messageId": self.id(prefix),
                "role": "ROLE_USER",
                "parts": match self.scenarios.card_driven() {
                    Some(card) => card.parts.clone(),
                    None => json!([{"text": format!("a2a-tck message ({prefix})")}]),
                },
            }),
        }
    }
}

/// What phase 1 made on one interface, as the agent showed it before the restart. Each
/// fixture is the value, or why it could not be made (the check that needs it is then
/// UNTESTABLE with that reason).
#[derive(Debug, Clone)]
pub struct Saved {
    /// A completed task with history and artifacts, as GetTask showed it.
    pub completed: Result<Value, String>,
    /// Whether ListTasks (filtered by the completed task's contextId) listed it (1.0 only).
    pub listed: Result<(), String>,
    /// An input-required task, as GetTask showed it.
    pub input_required: Result<Value, String>,
    /// A context the agent continued by contextId alone before the restart.
    pub context: Result<String, String>,
    /// A push config set on an open task: (task id, config as GetTaskPushNotificationConfig
    /// returned it); `None` when the card does not declare push notifications.
    pub push: Option<Result<(String, Value), String>>,
}
