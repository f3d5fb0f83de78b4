//! The checks of authorization errors: a limited principal (authenticated, permitted nothing
//! the kit tries) is refused with the binding's authorization error.

use crate::suite::checks::setup::auth::{limited_principal, meaningful_code, served};
use serde_json::json;

use super::{security_required, streams};
use crate::exchange::transport::stream::{End, Next, Start};
use crate::exchange::transport::Reply;
use crate::facts::model::Binding;
use crate::suite::check::{HarnessError, Verdict};
use crate::suite::checks::setup::Findings;
use crate::suite::ctx::{Answer, Ctx};

/// How a refusal reads as an authorization error.
enum Form {
    /// The binding's authorization error.
    Authorization,
    /// A defensible form: what was seen.
    Tolerated(String),
    /// Not an authorization error: what was seen.
    Wrong(String),
}

const UNAUTHENTICATED: &str = "the answer to missing or invalid credentials, which these are not";

/// The form of a refusal, against the §5.4 authorization row: HTTP 403, gRPC
/// PERMISSION_DENIED, JSON-RPC a custom code (the binding fixes no HTTP status).
fn authorization_form(reply: &Reply) -> Form {
    let error = match &reply.read {
        Ok(Answer::Error(error)) => Some(error),
        _ => None,
    };
    let code = error.and_then(|e| e.code);
    match reply.binding {
        Binding::Grpc => match error.and_then(|e| e.status.as_deref()) {
            Some("PERMISSION_DENIED") => Form::Authorization,
            Some("UNAUTHENTICATED") => {
                Form::Wrong(format!("gRPC UNAUTHENTICATED ({UNAUTHENTICATED})"))
            }
            other => Form::Wrong(format!("gRPC status {}", other.unwrap_or("none"))),
        },
        Binding::Rest => match reply.http_status {
            Some(403) => Form::Authorization,
            Some(401) => Form::Wrong(format!("HTTP 401 ({UNAUTHENTICATED})")),
            status => Form::Wrong(format!("HTTP {}", status.unwrap_or(0))),
        },
        Binding::Jsonrpc => match (reply.http_status, code) {
            (Some(403), _) => Form::Authorization,
            (Some(200), Some(code)) if !meaningful_code(code) => Form::Authorization,
            (Some(401), _) => Form::Tolerated(format!(
                "HTTP 401{}",
                code.map_or(String::new(), |c| format!(" with JSON-RPC code {c}"))
            )),
            (status, code) => Form::Wrong(format!(
                "HTTP {}{}",
                status.unwrap_or(0),
                code.map_or(String::new(), |c| format!(" with JSON-RPC code {c}"))
            )),
        },
    }
}

pub(super) async fn limited_refused(ctx: Ctx) -> Result<Verdict, HarnessError> {
    if let Err(why) = security_required(&ctx.card.json) {
        return Ok(Verdict::NotApplicable { reason: why });
    }
    let limited = match limited_principal(&ctx) {
        Ok(limited) => limited,
        Err(not_applicable) => return Ok(not_applicable),
    };
    let expected = "an authorization error: HTTP 403 (JSON-RPC: or a custom JSON-RPC error code \
                    in HTTP 200), gRPC PERMISSION_DENIED; never a result";
    let mut findings = Findings::default();
    let message = limited.user_message("tck-complete-task");
    let reply = limited
        .send(limited.with_tenant(json!({ "message": message }))?)
        .await?;
    if let Some(what) = served(&reply) {
        findings.problem(format!(
            "SendMessage by the limited principal was served: {what}"
        ));
    } else {
        match authorization_form(&reply) {
            Form::Authorization => {}
            Form::Tolerated(actual) => findings.add(
                "SendMessage",
                Verdict::tolerate(
                    expected,
                    actual,
                    "the JSON-RPC binding fixes no HTTP status, but 401 tells the client its \
                     credentials are missing or invalid (RFC 9110 §15.5.2); an authenticated \
                     caller without the permission gets 403 (§5.4)",
                ),
            ),
            Form::Wrong(actual) => {
                findings.problem(format!("SendMessage was refused with {actual}"));
            }
        }
    }
    if streams(&ctx) {
        let message = limited.user_message("tck-complete-task");
        let params = limited.with_tenant(json!({ "message": message }))?;
        if let Start::Stream(mut stream) = limited.send_streaming(params).await? {
            // A stream that ends before any event served nothing; an event, or a stream held
            // open, served the limited principal.
            match stream.next(ctx.stream_wait()).await {
                Next::End(End::Closed | End::Error(_) | End::Broken(_)) => {}
                first => findings.problem(format!(
                    "SendStreamingMessage by the limited principal started a stream (first: {})",
                    first.brief()
                )),
            }
        }
    }
    Ok(findings.verdict(expected, Verdict::pass()))
}
