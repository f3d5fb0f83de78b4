//! Before any check runs on an interface: does it answer its binding at all? Only when nothing
//! answers is the interface unusable: then every check on it is ERROR with one reason, found
//! once, with its evidence.

use serde_json::{json, Value};

use crate::exchange::transport::{Answer, ErrorReply};
use crate::facts::model::{Binding, HarnessError, ProtocolVersion};
use crate::suite::ctx::Ctx;

/// GetTask of an unknown id (then, on JSON-RPC 1.0, an unknown method if that gets no
/// JSON-RPC answer). A request that gets no answer within its deadline ends the probe at
/// once: an interface that accepts calls and never answers costs one deadline, not one per
/// attempt (and its checks are ERROR at once with this reason).
pub async fn probe(ctx: &Ctx) -> Result<(), Unusable> {
    probe_inner(ctx)
        .await
        .map_err(|(error, needs_credentials)| Unusable {
            error,
            needs_credentials,
        })
}

/// Why an interface is unusable.
#[derive(Debug)]
pub struct Unusable {
    pub error: HarnessError,
    /// The agent refused the probe for want of credentials the kit was not given.
    pub needs_credentials: bool,
}

async fn probe_inner(ctx: &Ctx) -> Result<(), (HarnessError, bool)> {
    let interface = ctx.transport().map_err(|e| (e, false))?.interface();
    let url = interface.url.clone();
    let binding = interface.binding;
    let mut seen = String::new();
    let mut attempts = vec![("GetTask", json!({ "id": ctx.id("tck-probe") }))];
    if binding == Binding::Jsonrpc && interface.version == ProtocolVersion::V1_0 {
        attempts.push(("TckProbeUnknownMethod", json!({})));
    }
    for (method, params) in attempts {
        let reply = match ctx.request(method, params).await {
            Ok(reply) => reply,
            Err(HarnessError::Deadline(m)) => {
                return Err((
                    HarnessError::Deadline(format!(
                        "the interface at {url} did not answer {} in time: {m}",
                        binding.title()
                    )),
                    false,
                ))
            }
            Err(HarnessError::Transport(m)) => {
                return Err((
                    HarnessError::Transport(format!("the interface at {url} did not answer: {m}")),
                    false,
                ))
            }
            Err(other) => {
                seen = other.to_string();
                continue;
            }
        };
        if let Some(status @ (401 | 403)) = reply.http_status {
            return Err((
                HarnessError::Transport(needs_credentials(ctx, &url, &format!("HTTP {status}"))),
                true,
            ));
        }
        match &reply.read {
            Ok(Answer::Error(e)) if refuses_credentials(e) => {
                return Err((
                    HarnessError::Transport(needs_credentials(ctx, &url, &e.to_string())),
                    true,
                ));
            }
            Ok(Answer::Error(e))
                if binding == Binding::Rest
                    && e.shape_problem.is_some()
                    && e.http_status == Some(404)
                    && e.raw.is_string() =>
            {
                // A plain 404 page: no HTTP+JSON binding at this URL.
                seen = e.to_string();
            }
            Ok(_) => return Ok(()),
            Err(unreadable) => seen = unreadable.clone(),
        }
    }
    Err((
        HarnessError::Malformed(format!(
            "the interface at {url} did not answer {} ({seen}); check the url the card declares",
            binding.title()
        )),
        false,
    ))
}

/// Whether an error says the request lacked credentials (gRPC UNAUTHENTICATED or
/// PERMISSION_DENIED; HTTP 401 and 403 are seen by their status).
fn refuses_credentials(error: &ErrorReply) -> bool {
    error.binding == Binding::Grpc
        && matches!(
            error.status.as_deref(),
            Some("UNAUTHENTICATED" | "PERMISSION_DENIED")
        )
}

/// What to tell a user whose agent wants credentials the kit was not given.
fn needs_credentials(ctx: &Ctx, url: &str, error: &str) -> String {
    let schemes: Vec<&String> = ctx
        .card
        .json
        .get("securitySchemes")
        .and_then(Value::as_object)
        .map(|m| m.keys().collect())
        .unwrap_or_default();
    let declared = if schemes.is_empty() {
        String::new()
    } else {
        format!("; the card declares security schemes {schemes:?}")
    };
    format!(
        "the interface at {url} requires authentication ({error}){declared}; \
         give credentials with --bearer <token>, --bearer-env <VAR> or --header, e.g. \
         --header 'X-API-Key: <key>'"
    )
}
