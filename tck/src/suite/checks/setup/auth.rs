//! Requests with the credentials a check of authentication needs (none, wrong ones, a
//! limited principal's) and the readings of a refusal, shared by `auth.*` and
//! `extended-card.*`.

use crate::exchange::transport::Reply;
use crate::facts::model::Binding;
use crate::suite::check::Verdict;
use crate::suite::ctx::{Answer, Ctx};
use serde_json::Value;

/// The check's context without any credential.
pub(crate) fn without_credentials(ctx: &Ctx) -> Ctx {
    ctx.as_caller(protocol_headers(ctx))
}

/// The check's context with wrong credentials; `None` when the kit knows no form for them.
pub(crate) fn with_wrong_credentials(ctx: &Ctx) -> Option<Ctx> {
    let mut headers = protocol_headers(ctx);
    let credentials: Vec<&(String, String)> = ctx
        .wire
        .extra_headers()
        .iter()
        .filter(|(name, _)| !PROTOCOL_HEADERS.contains(&name.to_ascii_lowercase().as_str()))
        .collect();
    if credentials.is_empty() {
        headers.push(card_credential(&ctx.card.json)?);
    }
    for (name, value) in credentials {
        let wrong = match value.split_once(' ') {
            Some((scheme, _)) if scheme.eq_ignore_ascii_case("basic") => {
                use base64::Engine as _;
                let pair = format!("tck-invalid:{}", invalid_secret());
                format!(
                    "Basic {}",
                    base64::engine::general_purpose::STANDARD.encode(pair)
                )
            }
            Some((scheme, _)) if !scheme.is_empty() => format!("{scheme} {}", invalid_secret()),
            _ => invalid_secret(),
        };
        headers.push((name.clone(), wrong));
    }
    Some(ctx.as_caller(headers))
}

/// What an answer served (a result), if it served one.
pub(crate) fn served(reply: &Reply) -> Option<String> {
    match &reply.read {
        Ok(Answer::Result(value)) if !value.is_null() => {
            Some(Answer::Result(value.clone()).describe())
        }
        _ => None,
    }
}

/// Whether a refusal has the binding's form for an authentication failure.
pub(crate) fn in_binding_form(reply: &Reply) -> Result<(), String> {
    let error = match &reply.read {
        Ok(Answer::Error(error)) => Some(error),
        _ => None,
    };
    match reply.binding {
        Binding::Grpc => match error.and_then(|e| e.status.as_deref()) {
            Some("UNAUTHENTICATED" | "PERMISSION_DENIED") => Ok(()),
            other => Err(format!("gRPC status {}", other.unwrap_or("none"))),
        },
        binding => match (reply.http_status, error.and_then(|e| e.code)) {
            (Some(401 | 403), _) => Ok(()),
            (Some(200), Some(code)) if binding == Binding::Jsonrpc && !meaningful_code(code) => {
                Ok(())
            }
            (status, code) => Err(format!(
                "HTTP {}{}",
                status.unwrap_or(0),
                code.map_or(String::new(), |c| format!(" with JSON-RPC code {c}"))
            )),
        },
    }
}

/// The limited principal, or the N/A verdict when the kit holds no such credential.
pub(crate) fn limited_principal(ctx: &Ctx) -> Result<Ctx, Verdict> {
    if ctx.limited_credentials().is_empty() {
        return Err(Verdict::NotApplicable {
            reason: NO_LIMITED.into(),
        });
    }
    let mut headers = protocol_headers(ctx);
    headers.extend(ctx.limited_credentials().iter().cloned());
    Ok(ctx.as_caller(headers))
}

/// The run's headers that are not credentials.
pub(crate) fn protocol_headers(ctx: &Ctx) -> Vec<(String, String)> {
    ctx.wire
        .extra_headers()
        .iter()
        .filter(|(name, _)| PROTOCOL_HEADERS.contains(&name.to_ascii_lowercase().as_str()))
        .cloned()
        .collect()
}

/// A random secret nobody holds.
pub(crate) fn invalid_secret() -> String {
    format!("tck-invalid-{}", crate::facts::ids::fresh_token())
}

/// A wrong credential made from the card's schemes: an http bearer scheme, or an apiKey in
/// a header.
pub(crate) fn card_credential(card: &Value) -> Option<(String, String)> {
    let schemes = card.get("securitySchemes")?.as_object()?;
    schemes
        .values()
        .find_map(|scheme| {
            let http = scheme
                .get("httpAuthSecurityScheme")
                .or_else(|| (scheme.get("type")? == "http").then_some(scheme))?;
            let name = http.get("scheme")?.as_str()?;
            name.eq_ignore_ascii_case("bearer").then(|| {
                (
                    "Authorization".to_string(),
                    format!("Bearer {}", invalid_secret()),
                )
            })
        })
        .or_else(|| {
            schemes.values().find_map(|scheme| {
                let key = scheme
                    .get("apiKeySecurityScheme")
                    .or_else(|| (scheme.get("type")? == "apiKey").then_some(scheme))?;
                let location = key.get("location").or_else(|| key.get("in"))?.as_str()?;
                let name = key.get("name")?.as_str()?;
                (location == "header").then(|| (name.to_string(), invalid_secret()))
            })
        })
}

/// JSON-RPC codes that mean something other than an authentication failure.
pub(crate) fn meaningful_code(code: i64) -> bool {
    matches!(code, -32700 | -32600 | -32601 | -32602 | -32603) || (-32009..=-32001).contains(&code)
}

/// Headers of the run that are not credentials.
pub(crate) const PROTOCOL_HEADERS: &[&str] = &[
    "a2a-version",
    "a2a-extensions",
    "x-a2a-extensions",
    "accept",
    "content-type",
    "user-agent",
];

/// Why the checks of a limited principal do not apply when the kit holds none.
pub(crate) const NO_LIMITED: &str = "no --limited-bearer given (nor --limited-bearer-env or \
     --limited-header): the kit holds no credential that authenticates without the permission";
