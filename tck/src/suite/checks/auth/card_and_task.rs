//! Checks of what tasks and the card say about authorization: in-task authorization
//! (TASK_STATE_AUTH_REQUIRED explained) and the URLs of the card's OAuth schemes.

use serde_json::Value;

use crate::suite::check::{HarnessError, Verdict};
use crate::suite::checks::setup::{Findings, Setup};
use crate::suite::ctx::Ctx;

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
                    crate::facts::a2a::brief(message, 300)
                ),
                None => "no status message".to_string(),
            },
        )
    };
    Ok(match ctx.version() {
        crate::facts::model::ProtocolVersion::V0_3 => verdict.only_recommended(
            "0.3 only recommends that an auth-required task explain itself (V03-4.5-02)",
        ),
        crate::facts::model::ProtocolVersion::V1_0 => verdict,
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

/// The 0.3 authorizationCode flow URLs of the card's 0.3-form oauth2 schemes (`type:
/// oauth2`): the ones 0.3 says "MUST be a URL and use TLS" (types.ts AuthorizationCodeOAuthFlow).
fn tls_required_urls(card: &Value) -> Vec<(String, String)> {
    let mut found = Vec::new();
    let Some(schemes) = card.get("securitySchemes").and_then(Value::as_object) else {
        return found;
    };
    for (name, scheme) in schemes {
        if scheme.get("type").and_then(Value::as_str) != Some("oauth2") {
            continue;
        }
        let Some(flow) = scheme.pointer("/flows/authorizationCode") else {
            continue;
        };
        for field in ["authorizationUrl", "tokenUrl", "refreshUrl"] {
            if let Some(url) = flow.get(field).and_then(Value::as_str) {
                found.push((
                    format!("{name}.flows.authorizationCode.{field}"),
                    url.to_string(),
                ));
            }
        }
    }
    found
}

/// What is wrong with the card's OAuth / OpenID Connect URLs; `None` when it declares none.
fn oauth_problems(card: &Value) -> Option<Vec<String>> {
    let urls = oauth_urls_of(card);
    if urls.is_empty() {
        return None;
    }
    let mut problems = Vec::new();
    for (field, value) in &urls {
        match value {
            Value::String(url) if reqwest::Url::parse(url).is_ok() => {}
            // An absent optional URL (proto3 writes an unset string as empty or leaves it out).
            Value::Null => {}
            Value::String(url) if url.is_empty() && field.ends_with("refreshUrl") => {}
            _ => problems.push(format!("{field} is not a URL: {value}")),
        }
    }
    for (field, url) in tls_required_urls(card) {
        let parsed = reqwest::Url::parse(&url).ok();
        if let Some(parsed) = parsed.filter(|u| u.scheme() != "https") {
            problems.push(format!(
                "{field} does not use TLS ({}): {url} (0.3: \"MUST be a URL and use TLS\")",
                parsed.scheme()
            ));
        }
    }
    Some(problems)
}

pub(super) async fn oauth_urls(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let Some(problems) = oauth_problems(&ctx.card.json) else {
        return Ok(Verdict::NotApplicable {
            reason: "the card declares no OAuth 2.0 or OpenID Connect scheme URL".into(),
        });
    };
    let mut findings = Findings::default();
    for problem in problems {
        findings.problem(problem);
    }
    Ok(findings.verdict(
        "every OAuth / OpenID Connect URL of the card a URL, and https for a 0.3 authorizationCode flow",
        Verdict::pass(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn card(token_url: &str) -> Value {
        let flows = json!({"authorizationCode": {
            "authorizationUrl": "https://auth.example.com/authorize",
            "tokenUrl": token_url,
            "refreshUrl": "https://auth.example.com/refresh",
            "scopes": {},
        }});
        json!({"securitySchemes": {"oauth": {"type": "oauth2", "flows": flows}}})
    }

    #[test]
    fn https_authorization_code_urls_pass() {
        assert_eq!(
            oauth_problems(&card("https://auth.example.com/token")),
            Some(vec![])
        );
    }

    #[test]
    fn plain_http_token_url_of_0_3_fails() {
        let problems = oauth_problems(&card("http://auth.example.com/token")).unwrap_or_default();
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(problems[0].contains("tokenUrl"), "{problems:?}");
    }

    #[test]
    fn plain_http_outside_0_3_authorization_code_is_not_judged() {
        // 1.0 form only, and a 0.3 clientCredentials flow: no TLS sentence binds them.
        let flows = json!({"authorizationCode": {
            "authorizationUrl": "http://a.example/x", "tokenUrl": "http://a.example/t"}});
        let v10 = json!({"securitySchemes": {"o": {"oauth2SecurityScheme": {"flows": flows}}}});
        assert_eq!(oauth_problems(&v10), Some(vec![]));
        let cc = json!({"clientCredentials": {"tokenUrl": "http://a.example/t", "scopes": {}}});
        let v03 = json!({"securitySchemes": {"o": {"type": "oauth2", "flows": cc}}});
        assert_eq!(oauth_problems(&v03), Some(vec![]));
        assert_eq!(oauth_problems(&json!({})), None);
    }
}
