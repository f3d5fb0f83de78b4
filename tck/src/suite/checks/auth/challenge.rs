//! The challenge of a refusal for missing credentials (`auth.challenge`): a WWW-Authenticate
//! header on HTTP, `www-authenticate` metadata on gRPC, or an error naming the scheme.

use crate::suite::checks::setup::auth::without_credentials;
use serde_json::{json, Value};

use super::{scheme_words, security_required};
use crate::facts::model::{Binding, ProtocolVersion};
use crate::suite::check::{HarnessError, Verdict};
use crate::suite::ctx::{Answer, Ctx};

/// Whether `text` names one of `words`.
pub(crate) fn names_scheme(text: &str, words: &[String]) -> bool {
    let text = text.to_ascii_lowercase();
    words.iter().any(|w| text.contains(w.as_str()))
}

pub(super) async fn challenge(ctx: Ctx) -> Result<Verdict, HarnessError> {
    if let Err(why) = security_required(&ctx.card.json) {
        return Ok(Verdict::NotApplicable { reason: why });
    }
    let words = scheme_words(&ctx.card.json);
    let caller = without_credentials(&ctx);
    let expected = "a WWW-Authenticate challenge, or an error naming the declared scheme";
    let http = match ctx.binding() {
        Binding::Grpc => None,
        Binding::Jsonrpc => {
            let (method, version) = match ctx.version() {
                ProtocolVersion::V1_0 => ("GetTask", Some("1.0")),
                ProtocolVersion::V0_3 => ("tasks/get", None),
            };
            let body = json!({"jsonrpc": "2.0", "id": "tck-auth-challenge", "method": method,
                              "params": {"id": "tck-auth-challenge"}});
            let mut headers = vec![("Content-Type", "application/json".to_string())];
            headers.extend(version.map(|v| ("A2A-Version", v.to_string())));
            Some(
                caller
                    .post_raw(body.to_string().into_bytes(), headers)
                    .await?
                    .http,
            )
        }
        Binding::Rest => {
            let base = ctx
                .interface
                .as_ref()
                .map(|i| i.url.trim_end_matches('/').to_string());
            let base = base.unwrap_or_default();
            let (url, version) = match ctx.version() {
                ProtocolVersion::V1_0 => (format!("{base}/tasks/tck-auth-challenge"), Some("1.0")),
                ProtocolVersion::V0_3 => (format!("{base}/v1/tasks/tck-auth-challenge"), None),
            };
            let headers = version
                .map(|v| ("A2A-Version", v.to_string()))
                .into_iter()
                .collect();
            let request = crate::exchange::wire::Request {
                method: reqwest::Method::GET,
                url: &url,
                headers,
                body: None,
            };
            Some(caller.wire.send(request).await?)
        }
    };
    if let Some(http) = http {
        let result = http.json().is_some_and(|body| body.get("result").is_some());
        let served = match ctx.binding() {
            Binding::Jsonrpc => result,
            _ => (200..300).contains(&http.status),
        };
        if served {
            return Ok(Verdict::fail(
                expected,
                format!("HTTP {}: the request was served", http.status),
            ));
        }
        return Ok(match http.header("www-authenticate").map(str::trim) {
            Some(value) if !value.is_empty() => {
                Verdict::pass_with(format!("WWW-Authenticate: {value}"))
            }
            _ if names_scheme(&http.body_start(4000), &words) => {
                Verdict::pass_with("no WWW-Authenticate, but the error names the scheme")
            }
            _ => Verdict::fail(
                expected,
                format!(
                    "HTTP {} without WWW-Authenticate, naming no declared scheme ({words:?}): {}",
                    http.status,
                    http.body_start(300)
                ),
            ),
        });
    }
    let reply = caller
        .get(caller.with_tenant(json!({"id": "tck-auth-challenge"}))?)
        .await?;
    Ok(match &reply.read {
        Ok(Answer::Error(error)) => {
            match error.raw.get("wwwAuthenticate").and_then(Value::as_str) {
                Some(challenge) if !challenge.trim().is_empty() => {
                    Verdict::pass_with(format!("www-authenticate: {challenge}"))
                }
                _ if names_scheme(&error.raw.to_string(), &words) => Verdict::pass(),
                _ => Verdict::fail(
                    expected,
                    format!(
                    "{error}: no www-authenticate metadata, naming no declared scheme ({words:?})"
                ),
                ),
            }
        }
        Ok(answer) => Verdict::fail(
            expected,
            format!(
                "{}, naming no declared scheme ({words:?})",
                answer.describe()
            ),
        ),
        Err(unreadable) => Verdict::fail(expected, unreadable.clone()),
    })
}
