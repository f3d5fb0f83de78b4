//! Checks of what tasks and the card say about authorization: in-task authorization
//! (TASK_STATE_AUTH_REQUIRED explained) and the URLs of the card's OAuth schemes.

use serde_json::Value;

use crate::check::{HarnessError, Verdict};
use crate::checks::setup::{Findings, Setup};
use crate::ctx::Ctx;

pub(super) async fn in_task_auth(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let task = ctx
        .create_task_in_state("tck-auth-required", "TASK_STATE_AUTH_REQUIRED")
        .await?;
    let parts = task
        .pointer("/status/message/parts")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let explains = parts.iter().any(|part| {
        part.as_object().is_some_and(|p| {
            p.values().any(|v| match v {
                Value::String(text) => !text.trim().is_empty(),
                Value::Object(o) => !o.is_empty(),
                Value::Array(a) => !a.is_empty(),
                _ => false,
            })
        })
    });
    let verdict = if explains {
        Verdict::pass()
    } else {
        Verdict::fail(
            "a status message with a part explaining the authorization needed",
            match task.pointer("/status/message") {
                Some(message) => format!(
                    "a status message without content: {}",
                    crate::a2a::brief(message, 300)
                ),
                None => "no status message".to_string(),
            },
        )
    };
    Ok(match ctx.version() {
        crate::model::ProtocolVersion::V0_3 => verdict.only_recommended(
            "0.3 only recommends that an auth-required task explain itself (V03-4.5-02)",
        ),
        crate::model::ProtocolVersion::V1_0 => verdict,
    })
}

/// Every URL field of the card's OAuth 2.0 and OpenID Connect schemes: (where, value).
fn oauth_urls_of(card: &Value) -> Vec<(String, Value)> {
    const FLOW_URLS: &[&str] = &[
        "authorizationUrl",
        "tokenUrl",
        "refreshUrl",
        "deviceAuthorizationUrl",
    ];
    let mut found = Vec::new();
    let Some(schemes) = card.get("securitySchemes").and_then(Value::as_object) else {
        return found;
    };
    for (name, scheme) in schemes {
        let typed = |kind: &str| {
            (scheme.get("type").and_then(Value::as_str) == Some(kind)).then_some(scheme)
        };
        if let Some(oauth) = scheme
            .get("oauth2SecurityScheme")
            .or_else(|| typed("oauth2"))
        {
            if let Some(url) = oauth.get("oauth2MetadataUrl") {
                found.push((format!("{name}.oauth2MetadataUrl"), url.clone()));
            }
            let flows = oauth.get("flows").and_then(Value::as_object);
            for (flow, fields) in flows.into_iter().flatten() {
                for field in FLOW_URLS {
                    if let Some(url) = fields.get(*field) {
                        found.push((format!("{name}.flows.{flow}.{field}"), url.clone()));
                    }
                }
            }
        }
        if let Some(oidc) = scheme
            .get("openIdConnectSecurityScheme")
            .or_else(|| typed("openIdConnect"))
        {
            if let Some(url) = oidc.get("openIdConnectUrl") {
                found.push((format!("{name}.openIdConnectUrl"), url.clone()));
            }
        }
    }
    found
}

pub(super) async fn oauth_urls(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let urls = oauth_urls_of(&ctx.card.json);
    if urls.is_empty() {
        return Ok(Verdict::NotApplicable {
            reason: "the card declares no OAuth 2.0 or OpenID Connect scheme URL".into(),
        });
    }
    let mut findings = Findings::default();
    for (field, value) in &urls {
        match value {
            Value::String(url) if reqwest::Url::parse(url).is_ok() => {}
            // An absent optional URL (proto3 writes an unset string as empty or leaves it out).
            Value::Null => {}
            Value::String(url) if url.is_empty() && field.ends_with("refreshUrl") => {}
            _ => findings.problem(format!("{field} is not a URL: {value}")),
        }
    }
    Ok(findings.verdict(
        "every OAuth / OpenID Connect URL of the card a URL",
        Verdict::pass(),
    ))
}
