//! The reference client: the kit's own transports driven as an A2A client through the adapter
//! protocol's steps, in-process. With no fault it does what every client check asks; each
//! [`ClientFault`] makes it break exactly one check, so the negative tests can show each check
//! failing.

use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};

use crate::exchange::card::Interface;
use crate::exchange::evidence::Recorder;
use crate::exchange::transport::stream::{End, Next};
use crate::exchange::transport::{
    Answer, Connector, ErrorReply, Reply, Start, Transport, VersionHeader,
};
use crate::exchange::wire::{Limits, Wire};
use crate::facts::a2a::ErrorKind;
use crate::facts::ids::{fresh_token, Ids};
use crate::facts::model::{Binding, ProtocolVersion};

a2a_reference_agent::declare_faults! {
    /// One rule the reference client breaks on purpose (`--client-fault NAME`).
    pub enum ClientFault {
        RejectUnknownFields => "reject-unknown-fields",
            "Refuses a card that holds a field it does not know.";
        WrongJsonrpcVersion => "wrong-jsonrpc-version",
            "Sends JSON-RPC requests with \"jsonrpc\": \"1.0\".";
        NoVersionHeader => "no-version-header",
            "Sends no A2A-Version on its unary calls.";
        ReuseMessageId => "reuse-message-id",
            "Gives every message the same messageId.";
        MisreadState => "misread-state",
            "Reports every task as working.";
        MisreadErrors => "misread-errors",
            "Reports every error as Other.";
        NewTaskOnFollowUp => "new-task-on-follow-up",
            "Sends a follow-up without the task's taskId and contextId.";
        StopAtFirstEvent => "stop-at-first-event",
            "Stops reading a stream after its first event.";
        StreamRegardless => "stream-regardless",
            "Streams even when the card says streaming: false.";
        PollInsteadOfSubscribe => "poll-instead-of-subscribe",
            "Gets the task instead of subscribing to it again.";
        KeepLastChunk => "keep-last-chunk",
            "Keeps only the last chunk of a chunked artifact.";
        LastInterface => "last-interface",
            "Uses the last interface the card lists, not the first.";
        NoFallback => "no-fallback",
            "Gives up when the first interface fails.";
        DropTenant => "drop-tenant",
            "Leaves the interface's tenant out of its requests.";
        UnauthenticatedExtendedCard => "unauthenticated-extended-card",
            "Asks for the extended card without credentials.";
        PublicCardAsExtended => "public-card-as-extended",
            "Asks for the extended card, then gives the public card as the extended card.";
        NoExtensionHeader => "no-extension-header",
            "Activates no extension.";
        PushWithoutToken => "push-without-token",
            "Registers push configs without their token.";
        IgnoreInterfaceVersion => "ignore-interface-version",
            "Speaks 1.0 to every interface, whatever version the card gives it.";
        VerifyAsServed => "verify-as-served",
            "Verifies a signature over the card as served, default values and all.";
        AcceptAnySignature => "accept-any-signature",
            "Accepts a card whatever its signatures say.";
        RequireEverySignature => "require-every-signature",
            "Refuses a card unless every signature verifies over the §8.4.1 form.";
        SpeakUnknownBinding => "speak-unknown-binding",
            "Takes a card's interface of a binding it does not speak for one of the binding the card lists next.";
        AcceptIncompleteCard => "accept-incomplete-card",
            "Reads a card that lacks a REQUIRED field.";
        BearerEverywhere => "bearer-everywhere",
            "Sends its token with every A2A request, whether or not the card declares a security scheme.";
        BearerToCardOrigin => "bearer-to-card-origin",
            "Sends its token with the card fetch too.";
        AuthRequiredAsFailed => "auth-required-as-failed",
            "Reports a task that asks for authorization as failed.";
        RetryRefusedVersion => "retry-refused-version",
            "Sends a request an interface refused with VersionNotSupportedError to it once more, unchanged.";
        StaleCard => "stale-card",
            "Gives its stored card on a second read, whatever the card's Cache-Control said.";
        NoStreamRecovery => "no-stream-recovery",
            "Leaves a cut stream as it is, reporting what it held.";
        CutReadAsCompleted => "cut-read-as-completed",
            "Reports a task whose stream was cut as completed, without following it again.";
        NewMessageIdOnRetry => "new-message-id-on-retry",
            "Sends a failed SendMessage again under a new messageId.";
        RetryReportsFirstError => "retry-reports-first-error",
            "Reports the failure of a SendMessage's first attempt even when its retry was answered.";
        IgnoreTimeout => "ignore-timeout",
            "Waits for an answer past the deadline it was given.";
        PollPastBound => "poll-past-bound",
            "Polls a task for twice the bound it was given, and half a second more.";
    }
}

impl FromStr for ClientFault {
    type Err = String;

    fn from_str(name: &str) -> Result<ClientFault, String> {
        (ClientFault::ALL.iter())
            .find(|f| f.name() == name)
            .copied()
            .ok_or_else(|| {
                format!("no client fault {name:?} (see a2a-tck client --list-client-faults)")
            })
    }
}

/// How long a stream may stay silent before the reference client stops reading it.
const STREAM_WAIT: Duration = Duration::from_secs(10);
/// How often the reference client polls a task it waits for.
const POLL_EVERY: Duration = Duration::from_millis(100);

/// Whether a task state (either spelling) is terminal or interrupted: nothing more comes
/// without the client.
fn settled(state: &str) -> bool {
    (super::verdicts::state_name(&json!(state))).is_some_and(|s| {
        matches!(
            s.as_str(),
            "completed"
                | "failed"
                | "canceled"
                | "cancelled"
                | "rejected"
                | "input-required"
                | "auth-required"
        )
    })
}

/// The card fields the reference client knows (for [`ClientFault::RejectUnknownFields`]).
const KNOWN_CARD_FIELDS: &[&str] = &[
    "name",
    "description",
    "version",
    "provider",
    "capabilities",
    "defaultInputModes",
    "defaultOutputModes",
    "skills",
    "supportedInterfaces",
    "securitySchemes",
    "securityRequirements",
    "security",
    "signatures",
    "iconUrl",
    "documentationUrl",
    "protocolVersion",
    "url",
    "preferredTransport",
    "additionalInterfaces",
    "supportsAuthenticatedExtendedCard",
];

/// The REQUIRED fields of a card in 1.0's form (`supportedInterfaces`) and in 0.3's.
const REQUIRED_CARD_FIELDS_1_0: &[&str] = &[
    "name",
    "description",
    "supportedInterfaces",
    "version",
    "capabilities",
    "defaultInputModes",
    "defaultOutputModes",
    "skills",
];
const REQUIRED_CARD_FIELDS_0_3: &[&str] = &[
    "name",
    "description",
    "url",
    "version",
    "capabilities",
    "defaultInputModes",
    "defaultOutputModes",
    "skills",
];

/// The first REQUIRED field a card lacks, in the form it is written in.
fn missing_required(card: &Value) -> Option<&'static str> {
    let required = if card.get("supportedInterfaces").is_some() {
        REQUIRED_CARD_FIELDS_1_0
    } else {
        REQUIRED_CARD_FIELDS_0_3
    };
    required
        .iter()
        .copied()
        .find(|f| card.get(*f).is_none_or(Value::is_null))
}

/// How the stored card may be reused: its ETag, and whether the response forbade reuse
/// without revalidation (`no-cache`, `no-store`, `max-age=0`).
#[derive(Debug, Clone, Default)]
struct CardCache {
    etag: Option<String>,
    revalidate: bool,
}

impl CardCache {
    fn of(headers: &reqwest::header::HeaderMap) -> CardCache {
        let text = |name| {
            headers
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned)
        };
        let control = text(reqwest::header::CACHE_CONTROL)
            .unwrap_or_default()
            .to_ascii_lowercase();
        let revalidate = control.split(',').map(str::trim).any(|d| {
            d == "no-cache" || d == "no-store" || d == "max-age=0" || d.starts_with("no-cache=")
        });
        CardCache {
            etag: text(reqwest::header::ETAG),
            revalidate,
        }
    }
}

/// Runs a scenario file's steps; returns one line per step (the describe line for a describe run).
pub async fn run(scenario: &Value, faults: &[ClientFault]) -> Vec<Value> {
    if scenario["describe"] == json!(true) {
        return vec![json!({
            "event": "client",
            "name": "a2a-tck reference client",
            "version": env!("CARGO_PKG_VERSION"),
            "bindings": ["JSONRPC", "HTTP+JSON", "GRPC"],
            "versions": ["1.0", "0.3"],
            "features": ["streaming", "push", "extended-card", "extensions", "signatures", "credentials", "timeouts", "wait"],
        })];
    }
    let mut session = Session::new(scenario, faults);
    let steps = scenario["steps"].as_array().cloned().unwrap_or_default();
    let mut lines = Vec::new();
    for (i, step) in steps.iter().enumerate() {
        let op = step["op"].as_str().unwrap_or("").to_owned();
        // A user who subscribes again by hand turns the client's own recovery off.
        session.recover = (steps.get(i + 1)).is_none_or(|next| next["op"] != "subscribe");
        let mut line = match session.step(step).await {
            Ok(line) => line,
            Err(error) => json!({"error": error}),
        };
        line["op"] = json!(op);
        lines.push(line);
    }
    lines
}

/// An error line's `error`.
fn error(kind: &str, message: impl Into<String>) -> Value {
    json!({"kind": kind, "message": message.into()})
}

struct Session {
    faults: Vec<ClientFault>,
    card_url: String,
    bearer: Option<String>,
    extensions: Vec<String>,
    http: Option<crate::exchange::wire::HttpClient>,
    card: Option<Value>,
    /// The interfaces of the card, in the order the client tries them.
    interfaces: Vec<Interface>,
    /// The index of the interface in use.
    current: usize,
    connector: Connector,
    ids: Ids,
    last_task: Option<String>,
    last_context: Option<String>,
    trusted_keys: Vec<Value>,
    /// How the stored card may be reused.
    card_cache: CardCache,
    /// The card last read, kept for a 304.
    stored: Option<Value>,
    /// Whether a stream cut before its task ended is followed again by the client itself.
    recover: bool,
}

impl Session {
    fn new(scenario: &Value, faults: &[ClientFault]) -> Session {
        let text = |k: &str| scenario[k].as_str().map(str::to_owned);
        let card_url = text("card_url").unwrap_or_default();
        Session {
            faults: faults.to_vec(),
            connector: Connector::new(&card_url),
            card_url,
            bearer: text("bearer"),
            extensions: (scenario["extensions"].as_array())
                .map(|a| {
                    a.iter()
                        .filter_map(Value::as_str)
                        .map(str::to_owned)
                        .collect()
                })
                .unwrap_or_default(),
            http: crate::exchange::wire::client().ok(),
            card: None,
            interfaces: Vec::new(),
            current: 0,
            ids: Ids::new(&fresh_token()),
            last_task: None,
            last_context: None,
            trusted_keys: (scenario["trusted_keys"]["keys"].as_array())
                .cloned()
                .unwrap_or_default(),
            card_cache: CardCache::default(),
            stored: None,
            recover: true,
        }
    }

    fn has(&self, fault: ClientFault) -> bool {
        self.faults.contains(&fault)
    }

    async fn step(&mut self, step: &Value) -> Result<Value, Value> {
        match step["op"].as_str().unwrap_or("") {
            "card" => {
                let card = self.read_card().await?;
                let verify = step["verify"] == json!(true);
                if verify {
                    self.verify(&card)?;
                }
                let mut line = json!({
                    "name": card["name"],
                    "skills": crate::client::plays::skill_ids(&card),
                    "streaming": card["capabilities"]["streaming"].as_bool().unwrap_or(false),
                });
                if verify {
                    line["verified"] = json!(true);
                }
                Ok(line)
            }
            "send" => self.send(step).await,
            "get" => {
                let id = self.task_of(step)?;
                let reply = self.call("GetTask", json!({"id": id}), true).await?;
                self.result(reply)
            }
            "cancel" => {
                let id = self.task_of(step)?;
                let reply = self.call("CancelTask", json!({"id": id}), true).await?;
                self.result(reply)
            }
            "subscribe" => {
                let id = self.task_of(step)?;
                if self.has(ClientFault::PollInsteadOfSubscribe) {
                    let reply = self.call("GetTask", json!({"id": id}), true).await?;
                    return self.result(reply);
                }
                self.stream("SubscribeToTask", json!({"id": id})).await
            }
            "extended_card" => self.extended_card().await,
            "push" => self.push(step).await,
            "wait" => self.wait(step).await,
            other => Err(error("Other", format!("unknown op {other:?}"))),
        }
    }

    /// Verifies the card's signatures with the trusted keys: at least one must verify.
    fn verify(&self, card: &Value) -> Result<(), Value> {
        use crate::facts::jws::{canonical_forms, keys_for, Outcome, Signature};
        let entries = card["signatures"].as_array().cloned().unwrap_or_default();
        if entries.is_empty() {
            return Err(error("SignatureInvalid", "the card carries no signature"));
        }
        if self.has(ClientFault::AcceptAnySignature) {
            return Ok(());
        }
        let mut verified = Vec::new();
        for entry in &entries {
            let signature = Signature::parse(entry);
            let keys = keys_for(&self.trusted_keys, signature.kid().as_deref());
            let ok = if self.has(ClientFault::VerifyAsServed) {
                let mut served = card.clone();
                if let Some(map) = served.as_object_mut() {
                    map.remove("signatures");
                }
                let served = serde_jcs::to_vec(&served).ok();
                verify_over(&signature, &keys, served.as_deref())
            } else if self.has(ClientFault::RequireEverySignature) {
                let presence = (canonical_forms(card).into_iter())
                    .find(|(name, _)| *name == crate::client::card_signing::PRESENCE_FORM)
                    .map(|(_, bytes)| bytes);
                verify_over(&signature, &keys, presence.as_deref())
            } else {
                matches!(
                    signature.verify_with_any(card, &keys),
                    Outcome::Verified { .. }
                )
            };
            verified.push(ok);
        }
        let accepted = if self.has(ClientFault::RequireEverySignature) {
            verified.iter().all(|v| *v)
        } else {
            verified.iter().any(|v| *v)
        };
        if accepted {
            Ok(())
        } else {
            Err(error(
                "SignatureInvalid",
                "no signature of the card verifies with a trusted key",
            ))
        }
    }

    /// The card for a `card` step: the stored one while its response allows reuse, else asked
    /// for again (conditionally, with its ETag).
    async fn read_card(&mut self) -> Result<Value, Value> {
        let reuse = !self.card_cache.revalidate || self.has(ClientFault::StaleCard);
        match &self.card {
            Some(card) if reuse => Ok(card.clone()),
            Some(_) => {
                self.card = None;
                self.card().await
            }
            None => self.card().await,
        }
    }

    async fn card(&mut self) -> Result<Value, Value> {
        if let Some(card) = &self.card {
            return Ok(card.clone());
        }
        let http = (self.http.clone()).ok_or_else(|| error("Transport", "no HTTP client"))?;
        let mut request = http.get(&self.card_url);
        if let Some(etag) = &self.card_cache.etag {
            request = request.header("If-None-Match", etag.as_str());
        }
        if let (Some(token), true) = (&self.bearer, self.has(ClientFault::BearerToCardOrigin)) {
            request = request.bearer_auth(token);
        }
        let answer = request
            .send()
            .await
            .map_err(|e| error("Transport", e.to_string()))?;
        if answer.status() == reqwest::StatusCode::NOT_MODIFIED {
            if let Some(card) = self.stored.clone() {
                self.card = Some(card.clone());
                return Ok(card);
            }
        }
        let cache = CardCache::of(answer.headers());
        let bytes = (answer.bytes().await).map_err(|e| error("Transport", e.to_string()))?;
        let card: Value =
            serde_json::from_slice(&bytes).map_err(|e| error("CardRejected", e.to_string()))?;
        if !self.has(ClientFault::AcceptIncompleteCard) {
            if let Some(field) = missing_required(&card) {
                return Err(error(
                    "CardRejected",
                    format!("the card lacks its REQUIRED {field}"),
                ));
            }
        }
        self.card_cache = cache;
        if self.has(ClientFault::RejectUnknownFields) {
            let unknown = (card.as_object().into_iter().flatten())
                .map(|(k, _)| k.as_str())
                .find(|k| !KNOWN_CARD_FIELDS.contains(k));
            if let Some(field) = unknown {
                return Err(error("CardRejected", format!("unknown field {field}")));
            }
        }
        let mut interfaces = if self.has(ClientFault::SpeakUnknownBinding) {
            interfaces_taking_unknown(&card)
        } else {
            interfaces_of(&card)
        };
        if self.has(ClientFault::LastInterface) {
            interfaces.reverse();
        }
        if self.has(ClientFault::IgnoreInterfaceVersion) {
            for interface in &mut interfaces {
                interface.version = ProtocolVersion::V1_0;
            }
        }
        if self.has(ClientFault::DropTenant) {
            for interface in &mut interfaces {
                interface.tenant = None;
            }
        }
        self.interfaces = interfaces;
        self.card = Some(card.clone());
        self.stored = Some(card.clone());
        Ok(card)
    }

    /// The transport of the interface in use, with the session's credentials and extensions.
    async fn transport(&mut self, credentials: bool) -> Result<Arc<dyn Transport>, Value> {
        self.card().await?;
        let interface = (self.interfaces.get(self.current).cloned()).ok_or_else(|| {
            error(
                "CardRejected",
                "the card lists no interface this client speaks",
            )
        })?;
        let http = (self.http.clone()).ok_or_else(|| error("Transport", "no HTTP client"))?;
        let mut headers = Vec::new();
        let asked = (self.card.as_ref())
            .and_then(|c| c["securitySchemes"].as_object())
            .is_some_and(|schemes| !schemes.is_empty());
        let credentials = credentials && (asked || self.has(ClientFault::BearerEverywhere));
        if let (Some(token), true) = (&self.bearer, credentials) {
            headers.push(("Authorization".to_owned(), format!("Bearer {token}")));
        }
        let extensions = if self.has(ClientFault::NoExtensionHeader) {
            Vec::new()
        } else {
            self.extensions.clone()
        };
        let wire = Wire::new(http, Limits::default(), Recorder::default())
            .with_headers(Arc::new(headers))
            .with_extensions(Arc::new(extensions));
        Ok(self.connector.connect(&interface, &wire, &self.ids))
    }

    /// A unary call on the interface in use; when the interface fails (no answer, HTTP 5xx,
    /// gRPC UNAVAILABLE) and `fall_back`, the next interface.
    /// A SendMessage that fails so is sent once more, on the same interface, with the same
    /// message.
    async fn call(&mut self, method: &str, params: Value, fall_back: bool) -> Result<Reply, Value> {
        let mut params = params;
        let mut retried = false;
        let mut sent_again = false;
        let mut first_failure = None;
        loop {
            let transport = self.transport(true).await?;
            let sent_params = transport.with_tenant(params.clone());
            let version = if self.has(ClientFault::NoVersionHeader) {
                VersionHeader::Absent
            } else {
                VersionHeader::Interface
            };
            let sent = if self.has(ClientFault::WrongJsonrpcVersion)
                && transport.interface().binding == Binding::Jsonrpc
            {
                self.wrong_envelope(&transport, method, sent_params).await
            } else {
                transport.call(method, sent_params, version).await
            };
            let refused = matches!(&sent, Ok(Reply { read: Ok(Answer::Error(e)), .. })
                if crate::exchange::judge::is(e, ErrorKind::VersionNotSupported));
            if refused && self.has(ClientFault::RetryRefusedVersion) && !retried {
                retried = true;
                continue;
            }
            let failed = match &sent {
                Err(_) => true,
                Ok(reply) => interface_failed(reply) || refused,
            };
            // A refusal of the version is an answer, not a failure to send again.
            if failed && !refused && method == "SendMessage" && !sent_again {
                sent_again = true;
                first_failure = Some(match &sent {
                    Err(e) => error("Transport", e.to_string()),
                    Ok(reply) => error(
                        "Transport",
                        format!(
                            "the first attempt failed (HTTP {})",
                            reply.http_status.map_or("?".into(), |s| s.to_string())
                        ),
                    ),
                });
                if self.has(ClientFault::NewMessageIdOnRetry) {
                    params["message"]["messageId"] = json!(self.ids.next("msg"));
                }
                continue;
            }
            if let (Some(first), false) = (first_failure.take(), failed) {
                if self.has(ClientFault::RetryReportsFirstError) {
                    return Err(first);
                }
            }
            let next = self.current + 1 < self.interfaces.len();
            if failed && fall_back && next && !self.has(ClientFault::NoFallback) {
                self.current += 1;
                continue;
            }
            return sent.map_err(|e| error("Transport", e.to_string()));
        }
    }

    async fn wrong_envelope(
        &self,
        transport: &Arc<dyn Transport>,
        method: &str,
        params: Value,
    ) -> Result<Reply, crate::facts::model::HarnessError> {
        use crate::exchange::transport::v03;
        let (method, params) = match transport.interface().version {
            ProtocolVersion::V1_0 => (method.to_owned(), params),
            ProtocolVersion::V0_3 => (
                v03::jsonrpc_method(method).unwrap_or(method).to_owned(),
                v03::write::request(v03::Form::JsonRpc, method, &params),
            ),
        };
        let body = json!({"jsonrpc": "1.0", "id": self.ids.next("rpc"), "method": method, "params": params});
        let mut headers = vec![("Content-Type", "application/json".to_owned())];
        if let Some(value) = transport.version_value(VersionHeader::Interface) {
            headers.push(("A2A-Version", value));
        }
        let http = transport
            .raw(body.to_string().into_bytes(), headers)
            .await?;
        let read = crate::exchange::transport::answer::read_response(
            &http.json().unwrap_or(Value::Null),
            Some(http.status),
        )
        .ok_or_else(|| "not a JSON-RPC response".to_owned());
        Ok(Reply::new(Binding::Jsonrpc, Some(http.status), read))
    }

    fn task_of(&self, step: &Value) -> Result<String, Value> {
        match step["task"].as_str() {
            Some("last") | None => (self.last_task.clone())
                .ok_or_else(|| error("Other", "no task yet to name as last")),
            Some(id) => Ok(id.to_owned()),
        }
    }

    fn message(&self, step: &Value) -> Value {
        let id = if self.has(ClientFault::ReuseMessageId) {
            "tck-reference-message".to_owned()
        } else {
            self.ids.next("msg")
        };
        let mut message = json!({
            "messageId": id,
            "role": "ROLE_USER",
            "parts": [{"text": step["text"].as_str().unwrap_or("")}],
        });
        if step["follow_up"] == json!(true) && !self.has(ClientFault::NewTaskOnFollowUp) {
            if let Some(task) = &self.last_task {
                message["taskId"] = json!(task);
            }
            if let Some(context) = &self.last_context {
                message["contextId"] = json!(context);
            }
        }
        message
    }

    async fn send(&mut self, step: &Value) -> Result<Value, Value> {
        let card = self.card().await?;
        let declared = card["capabilities"]["streaming"].as_bool().unwrap_or(false);
        let streaming = match step["stream"].as_str().unwrap_or("auto") {
            "always" => true,
            "never" => false,
            _ => declared || self.has(ClientFault::StreamRegardless),
        };
        let params = json!({"message": self.message(step)});
        if streaming {
            return self.stream("SendStreamingMessage", params).await;
        }
        let deadline = (step["timeout_ms"].as_u64())
            .filter(|_| !self.has(ClientFault::IgnoreTimeout))
            .map(Duration::from_millis);
        let reply = match deadline {
            Some(deadline) => {
                tokio::time::timeout(deadline, self.call("SendMessage", params, true))
                    .await
                    .map_err(|_| {
                        error(
                            "Transport",
                            format!("no answer within {} ms", deadline.as_millis()),
                        )
                    })??
            }
            None => self.call("SendMessage", params, true).await?,
        };
        self.result(reply)
    }

    /// A result line from a unary reply.
    fn result(&mut self, reply: Reply) -> Result<Value, Value> {
        match reply.read {
            // SendMessage answers `{"task"}` or `{"message"}`; GetTask and CancelTask the task.
            Ok(Answer::Result(value)) => match value.get("message") {
                Some(message) => Ok(json!({"result": "message", "text": texts(message)})),
                None => Ok(self.task_line(value.get("task").unwrap_or(&value))),
            },
            Ok(Answer::Error(e)) => Err(self.error_of(&e)),
            Err(unreadable) => Err(error("Transport", unreadable)),
        }
    }

    fn task_line(&mut self, task: &Value) -> Value {
        let id = task["id"].as_str().map(str::to_owned);
        let context = task["contextId"].as_str().map(str::to_owned);
        if id.is_some() {
            self.last_task.clone_from(&id);
            self.last_context.clone_from(&context);
        }
        let state = if self.has(ClientFault::MisreadState) {
            json!("working")
        } else if self.has(ClientFault::AuthRequiredAsFailed)
            && (task["status"]["state"].as_str())
                .is_some_and(|s| matches!(s, "TASK_STATE_AUTH_REQUIRED" | "auth-required"))
        {
            json!("failed")
        } else {
            task["status"]["state"].clone()
        };
        let artifacts: Vec<Value> = (task["artifacts"].as_array().into_iter().flatten())
            .map(|a| json!({"artifact_id": a["artifactId"], "text": texts(a)}))
            .collect();
        json!({"result": "task", "task_id": id, "context_id": context, "state": state, "artifacts": artifacts})
    }

    fn error_of(&self, reply: &ErrorReply) -> Value {
        if self.has(ClientFault::MisreadErrors) {
            return error("Other", reply.to_string());
        }
        let protocol = [
            ErrorKind::InvalidParams,
            ErrorKind::InvalidRequest,
            ErrorKind::MethodNotFound,
            ErrorKind::JsonParse,
            ErrorKind::Internal,
        ];
        let kinds: Vec<ErrorKind> = ErrorKind::A2A.iter().copied().chain(protocol).collect();
        let by_reason = (reply.error_info.as_ref()).and_then(|info| {
            kinds
                .iter()
                .find(|k| k.reason() == Some(info.reason.as_str()))
        });
        let by_status = match reply.status.as_deref() {
            Some("NOT_FOUND") => Some(&ErrorKind::TaskNotFound),
            Some("FAILED_PRECONDITION") => Some(&ErrorKind::TaskNotCancelable),
            Some("UNIMPLEMENTED") => Some(&ErrorKind::UnsupportedOperation),
            Some("INVALID_ARGUMENT") => Some(&ErrorKind::InvalidParams),
            _ => None,
        };
        let by_code = reply
            .code
            .and_then(|code| kinds.iter().find(|k| k.jsonrpc_code() == code));
        let kind = by_reason
            .or(by_code)
            .or(by_status)
            .or_else(|| {
                kinds
                    .iter()
                    .find(|k| crate::exchange::judge::is(reply, **k))
            })
            .map_or("Other".to_owned(), |k| match k {
                ErrorKind::JsonParse => "ParseError".to_owned(),
                other => format!("{other:?}"),
            });
        error(&kind, reply.to_string())
    }

    /// Opens a stream and reads it to its end, putting artifact chunks together.
    async fn stream(&mut self, method: &str, params: Value) -> Result<Value, Value> {
        let transport = self.transport(true).await?;
        let params = transport.with_tenant(params);
        let start = transport
            .open_stream(method, params)
            .await
            .map_err(|e| error("Transport", e.to_string()))?;
        let mut stream = match start {
            Start::Stream(stream) => stream,
            Start::Refused(reply) => return self.result(*reply),
        };
        let mut task = json!({});
        let mut events = 0usize;
        let mut message = None;
        let mut ended = None;
        // Whether the client itself stopped reading (a stream it leaves is not followed again).
        let mut left = false;
        loop {
            match stream.next(STREAM_WAIT).await {
                Next::Event(event) => {
                    events += 1;
                    if let Some(response) = &event.response {
                        self.fold(&mut task, &mut message, response);
                    }
                    if self.has(ClientFault::StopAtFirstEvent) {
                        left = true;
                        break;
                    }
                }
                Next::End(End::Closed) => break,
                Next::End(End::Error(e)) => {
                    ended = Some(self.error_of(&e));
                    break;
                }
                Next::End(other) => {
                    ended = Some(error("Transport", other.describe()));
                    break;
                }
            }
        }
        let open = !left
            && message.is_none()
            && (task["status"]["state"].as_str()).is_some_and(|s| !settled(s));
        let id = task["id"].as_str().map(str::to_owned);
        if let (true, "SendStreamingMessage", Some(id)) = (open, method, id) {
            if self.has(ClientFault::CutReadAsCompleted) {
                task["status"]["state"] = json!("TASK_STATE_COMPLETED");
                ended = None;
            } else if self.recover && !self.has(ClientFault::NoStreamRecovery) {
                let mut line = self.recover(&id).await?;
                line["streamed"] = json!(true);
                line["events"] = json!(events + line["events"].as_u64().unwrap_or(0) as usize);
                return Ok(line);
            }
        }
        let mut line = match message {
            Some(text) if task.get("id").is_none() => json!({"result": "message", "text": text}),
            _ => self.task_line(&task),
        };
        line["streamed"] = json!(true);
        line["events"] = json!(events);
        if let Some(error) = ended {
            line["error"] = error;
        }
        Ok(line)
    }

    /// Follows a task again after its stream ended before the task did: subscribes to it,
    /// or, when the agent refuses (the task ended meanwhile), reads it.
    async fn recover(&mut self, id: &str) -> Result<Value, Value> {
        let subscribed = Box::pin(self.stream("SubscribeToTask", json!({"id": id}))).await;
        match subscribed {
            Ok(line) if line.get("error").is_none() => Ok(line),
            _ => {
                let reply = self.call("GetTask", json!({"id": id}), true).await?;
                self.result(reply)
            }
        }
    }

    /// Waits for a task to end or be interrupted by polling it, within the step's `timeout_ms`.
    async fn wait(&mut self, step: &Value) -> Result<Value, Value> {
        let id = self.task_of(step)?;
        let mut bound = Duration::from_millis(step["timeout_ms"].as_u64().unwrap_or(1000));
        if self.has(ClientFault::PollPastBound) {
            bound = bound * 2 + Duration::from_millis(500);
        }
        let started = std::time::Instant::now();
        let mut every = tokio::time::interval(POLL_EVERY);
        loop {
            every.tick().await;
            let reply = self.call("GetTask", json!({"id": id}), true).await?;
            let line = self.result(reply)?;
            let state = line["state"].as_str().unwrap_or("");
            if settled(state) || started.elapsed() + POLL_EVERY > bound {
                return Ok(line);
            }
        }
    }

    /// Folds one StreamResponse into the task held so far.
    fn fold(&self, task: &mut Value, message: &mut Option<String>, response: &Value) {
        if let Some(whole) = response.get("task") {
            *task = whole.clone();
        } else if let Some(update) = response.get("statusUpdate") {
            task["id"] = update["taskId"].clone();
            task["contextId"] = update["contextId"].clone();
            task["status"] = update["status"].clone();
        } else if let Some(update) = response.get("artifactUpdate") {
            task["id"] = update["taskId"].clone();
            task["contextId"] = update["contextId"].clone();
            let artifact = &update["artifact"];
            let append = update["append"] == json!(true) && !self.has(ClientFault::KeepLastChunk);
            if !task["artifacts"].is_array() {
                task["artifacts"] = json!([]);
            }
            if let Some(artifacts) = task["artifacts"].as_array_mut() {
                let held = artifacts
                    .iter_mut()
                    .find(|a| a["artifactId"] == artifact["artifactId"]);
                match held {
                    Some(held) if append => {
                        let more = artifact["parts"].as_array().cloned().unwrap_or_default();
                        if let Some(parts) = held["parts"].as_array_mut() {
                            parts.extend(more);
                        }
                    }
                    Some(held) => *held = artifact.clone(),
                    None => artifacts.push(artifact.clone()),
                }
            }
        } else if let Some(reply) = response.get("message") {
            *message = Some(texts(reply));
        }
    }

    async fn extended_card(&mut self) -> Result<Value, Value> {
        let credentials = !self.has(ClientFault::UnauthenticatedExtendedCard);
        let transport = self.transport(credentials).await?;
        let params = transport.with_tenant(json!({}));
        let reply = transport
            .call("GetExtendedAgentCard", params, VersionHeader::Interface)
            .await
            .map_err(|e| error("Transport", e.to_string()))?;
        match reply.read {
            // Asks for the extended card, then gives the public one.
            Ok(Answer::Result(_)) if self.has(ClientFault::PublicCardAsExtended) => {
                let card = self.card().await?;
                Ok(json!({"name": card["name"], "skills": crate::client::plays::skill_ids(&card)}))
            }
            Ok(Answer::Result(card)) => {
                Ok(json!({"name": card["name"], "skills": crate::client::plays::skill_ids(&card)}))
            }
            Ok(Answer::Error(e)) => Err(self.error_of(&e)),
            Err(unreadable) => Err(error("Transport", unreadable)),
        }
    }

    async fn push(&mut self, step: &Value) -> Result<Value, Value> {
        let task = self.task_of(step)?;
        let mut config = json!({"taskId": task, "url": step["url"]});
        if !self.has(ClientFault::PushWithoutToken) {
            config["token"] = step["token"].clone();
        }
        let reply = self
            .call("CreateTaskPushNotificationConfig", config, false)
            .await?;
        match reply.read {
            Ok(Answer::Result(value)) => {
                let config = value.get("pushNotificationConfig").unwrap_or(&value);
                Ok(json!({
                    "task_id": value["taskId"],
                    "config_id": config["id"],
                    "url": config["url"],
                    "token": config["token"],
                }))
            }
            Ok(Answer::Error(e)) => Err(self.error_of(&e)),
            Err(unreadable) => Err(error("Transport", unreadable)),
        }
    }
}

/// Whether `signature` verifies over `payload` with one of `keys` (ES256 only: the plays').
fn verify_over(
    signature: &crate::facts::jws::Signature,
    keys: &[Value],
    payload: Option<&[u8]>,
) -> bool {
    use base64::Engine as _;
    use ring::signature::{UnparsedPublicKey, ECDSA_P256_SHA256_FIXED};
    let (Some(payload), Ok(bytes)) = (payload, &signature.signature) else {
        return false;
    };
    let b64 = base64::engine::general_purpose::URL_SAFE_NO_PAD;
    let input = format!("{}.{}", signature.protected, b64.encode(payload));
    keys.iter().any(|key| {
        let mut point = vec![4u8];
        for c in ["x", "y"] {
            match key[c].as_str().and_then(|t| b64.decode(t).ok()) {
                Some(part) => point.extend(part),
                None => return false,
            }
        }
        UnparsedPublicKey::new(&ECDSA_P256_SHA256_FIXED, point)
            .verify(input.as_bytes(), bytes)
            .is_ok()
    })
}

/// Whether a reply says the interface itself failed (not the operation).
fn interface_failed(reply: &Reply) -> bool {
    if reply.http_status.is_some_and(|s| s >= 500) && reply.binding != Binding::Jsonrpc {
        return true;
    }
    match &reply.read {
        Err(_) => true,
        Ok(Answer::Error(e)) => {
            e.status.as_deref() == Some("UNAVAILABLE") || e.http_status == Some(503)
        }
        Ok(Answer::Result(_)) => false,
    }
}

/// The text parts of a message or an artifact, put together.
fn texts(holder: &Value) -> String {
    (holder["parts"].as_array().into_iter().flatten())
        .filter_map(|p| p["text"].as_str())
        .collect()
}

/// The interfaces of a card in the card's order, an interface of a binding the client does not
/// speak taken for one of the binding listed after it (for [`ClientFault::SpeakUnknownBinding`]).
fn interfaces_taking_unknown(card: &Value) -> Vec<Interface> {
    let known = interfaces_of(card);
    let Some(next) = known.first() else {
        return known;
    };
    let first_url = card["supportedInterfaces"][0]["url"]
        .as_str()
        .or_else(|| card["url"].as_str())
        .unwrap_or("");
    if first_url.is_empty() || known.iter().any(|i| i.url == first_url) {
        return known;
    }
    let mut taken = next.clone();
    taken.url = first_url.to_owned();
    std::iter::once(taken).chain(known).collect()
}

/// The interfaces of a card the reference client speaks, in the card's order: a 1.0 card's
/// `supportedInterfaces`; a 0.3 card's main `url` (its `preferredTransport`), then its
/// `additionalInterfaces`.
pub fn interfaces_of(card: &Value) -> Vec<Interface> {
    let mut listed: Vec<(Value, Value, Option<ProtocolVersion>, Option<String>)> = Vec::new();
    if let Some(entries) = card["supportedInterfaces"].as_array() {
        for entry in entries {
            let version = entry["protocolVersion"]
                .as_str()
                .and_then(ProtocolVersion::from_declared);
            let tenant = entry["tenant"]
                .as_str()
                .filter(|t| !t.is_empty())
                .map(str::to_owned);
            listed.push((
                entry["url"].clone(),
                entry["protocolBinding"].clone(),
                version,
                tenant,
            ));
        }
    } else {
        let v03 = Some(ProtocolVersion::V0_3);
        listed.push((
            card["url"].clone(),
            card["preferredTransport"].clone(),
            v03,
            None,
        ));
        for extra in card["additionalInterfaces"]
            .as_array()
            .into_iter()
            .flatten()
        {
            listed.push((extra["url"].clone(), extra["transport"].clone(), v03, None));
        }
    }
    let mut interfaces: Vec<Interface> = Vec::new();
    for (url, binding, version, tenant) in listed {
        let (Some(url), Some(binding), Some(version)) = (
            url.as_str(),
            binding.as_str().and_then(Binding::from_card),
            version,
        ) else {
            continue;
        };
        let interface = Interface {
            binding,
            version,
            url: url.to_owned(),
            tenant,
        };
        if !interfaces.contains(&interface) {
            interfaces.push(interface);
        }
    }
    interfaces
}
