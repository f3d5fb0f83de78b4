//! Authenticated mode (`--bearer-token`, [`crate::config::AgentConfig::bearer_tokens`]): every
//! operation of every binding needs `Authorization: Bearer <token>` with one of the
//! configured tokens, each token one principal with a task store of its own (so tasks and
//! contexts of one principal are invisible to the others). The public card stays public; it
//! declares an HTTP bearer scheme (1.0 `securitySchemes`/`securityRequirements`, 0.3
//! `security`) and the extended card, which GetExtendedAgentCard (1.0, every binding) and the
//! 0.3 operations (`agent/getAuthenticatedExtendedCard`, REST `/v1/card`, gRPC
//! `GetAgentCard`) return to authenticated callers only, with caching headers on HTTP.
//!
//! A request without a valid token is refused in the binding's form (spec 1.0 §3.3.2, §5.4
//! error table, §7.4; 0.3 §4.4): HTTP 401 with `WWW-Authenticate: Bearer` on JSON-RPC and
//! REST, gRPC `UNAUTHENTICATED` (with the same challenge in `www-authenticate` metadata).
//!
//! A limited token (`--limited-token`, [`crate::config::AgentConfig::limited_tokens`]) authenticates
//! a principal that may do nothing: each of its requests, the extended card included, gets
//! the binding's authorization error (spec 1.0 §3.3.2, §5.4): HTTP 403 on JSON-RPC and REST,
//! gRPC `PERMISSION_DENIED`, naming the missing permission.

use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Router;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use tower::ServiceExt;

mod cards;

pub use cards::{extended_card, extended_cards, public_view, ExtendedCards};

use crate::config::REST_PATH;

/// The name of the bearer scheme in the card's `securitySchemes`.
pub const SCHEME: &str = "bearer";
const CHALLENGE: &str = "Bearer realm=\"a2a-tck-reference-agent\"";
const REFUSAL: &str =
    "authentication required: send `Authorization: Bearer <token>` (security scheme `bearer`)";
/// The refusal of the limited principal: authenticated, without the permission (spec 1.0
/// §3.3.2 asks that it name the missing permission).
const FORBIDDEN: &str =
    "permission denied: the caller is authenticated but lacks the permission `a2a:use`";
/// How much of a JSON-RPC request body is read to learn its method (the handler behind
/// applies its own limit).
const BODY_LIMIT: usize = 64 * 1024 * 1024;
const EXTENDED_CACHE_CONTROL: &str = "private, max-age=300";

pub use crate::policy::features::AuthPolicy;

/// Adds the security declarations and the extended-card capability to the public card
/// (both versions' fields, as the card already carries both).
pub fn declare(card: &mut Value, policy: &AuthPolicy) {
    if !policy.on {
        return;
    }
    let Some(fields) = card.as_object_mut() else {
        return;
    };
    let description = "A bearer token given to the agent with --bearer-token.";
    fields.insert(
        "securitySchemes".into(),
        json!({ SCHEME: {
            "httpAuthSecurityScheme": {"scheme": "Bearer", "description": description},
            // The 0.3 form of the same scheme, for 0.3 clients of this card.
            "type": "http",
            "scheme": "Bearer",
            "description": description,
        }}),
    );
    if let Some(token_url) = policy.card_oauth {
        let flows = json!({"clientCredentials": {"tokenUrl": token_url, "scopes": {}}});
        if let Some(schemes) = fields
            .get_mut("securitySchemes")
            .and_then(Value::as_object_mut)
        {
            schemes.insert(
                "oauth".into(),
                json!({"oauth2SecurityScheme": {"flows": flows}, "type": "oauth2", "flows": flows}),
            );
        }
    }
    if policy.card_oauth_code_http {
        let flows = json!({"authorizationCode": {
            "authorizationUrl": "https://auth.example.com/oauth2/authorize",
            "tokenUrl": "http://auth.example.com/oauth2/token",
            "scopes": {},
        }});
        if let Some(schemes) = fields
            .get_mut("securitySchemes")
            .and_then(Value::as_object_mut)
        {
            schemes.insert(
                "oauthCode".into(),
                json!({"oauth2SecurityScheme": {"flows": flows}, "type": "oauth2", "flows": flows}),
            );
        }
    }
    fields.insert(
        "securityRequirements".into(),
        json!([{ "schemes": { SCHEME: { "list": [] } } }]),
    );
    fields.insert("security".into(), json!([{ SCHEME: [] }]));
    fields.insert("supportsAuthenticatedExtendedCard".into(), json!(true));
    if let Some(capabilities) = fields
        .get_mut("capabilities")
        .and_then(Value::as_object_mut)
    {
        capabilities.insert("extendedAgentCard".into(), json!(true));
    }
}

/// Which binding a request is for, by its path and content type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    JsonRpc,
    Rest,
    Grpc,
}

impl Kind {
    fn of(request: &Request) -> Kind {
        let grpc = request
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("application/grpc"));
        if grpc {
            Kind::Grpc
        } else if request.uri().path().starts_with(&format!("{REST_PATH}/")) {
            Kind::Rest
        } else {
            Kind::JsonRpc
        }
    }
}

/// The guard in front of the services: finds the principal of a request and passes it to
/// that principal's services, or refuses it.
pub struct Guard {
    tokens: Vec<String>,
    /// The services of each principal (same order as `tokens`).
    services: Vec<Router>,
    policy: AuthPolicy,
    /// The limited principal's tokens: they authenticate, and permit nothing.
    limited: Vec<String>,
    /// The limited principal's own services (an extended card tailored to it), when it has
    /// any: extended-card requests go there.
    limited_service: Option<Router>,
}

impl Guard {
    pub fn new(tokens: Vec<String>, services: Vec<Router>, policy: AuthPolicy) -> Guard {
        Guard {
            tokens,
            services,
            policy,
            limited: Vec::new(),
            limited_service: None,
        }
    }

    /// With the limited principal's tokens, and its own services if it has any.
    pub fn with_limited(mut self, tokens: Vec<String>, service: Option<Router>) -> Guard {
        self.limited = tokens;
        self.limited_service = service;
        self
    }

    /// Whether a token is the limited principal's.
    fn is_limited(&self, token: Option<&str>) -> bool {
        token.is_some_and(|t| self.limited.iter().any(|known| known == t))
    }

    /// The principal a token names (by the policy's faults).
    fn principal(&self, token: Option<&str>) -> Option<usize> {
        let found = token.and_then(|t| self.tokens.iter().position(|known| known == t));
        let principal = match (found, token) {
            (Some(i), _) => Some(i),
            (None, Some(_)) if self.policy.any_token || self.policy.not_enforced => Some(0),
            (None, None) if self.policy.not_enforced => Some(0),
            (None, _) => None,
        };
        if self.policy.shared_tasks {
            principal.map(|_| 0)
        } else {
            principal
        }
    }
}

/// The bearer token of `Authorization` (scheme case-insensitive), if any.
fn bearer(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?.trim();
    let (scheme, token) = value.split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| token.trim())
        .filter(|t| !t.is_empty())
}

/// Whether the request asks for the extended card (any binding, either version).
fn asks_extended_card(kind: Kind, path: &str, body: Option<&Bytes>) -> bool {
    match kind {
        Kind::Grpc => path.ends_with("/GetExtendedAgentCard") || path.ends_with("/GetAgentCard"),
        Kind::Rest => path.ends_with("/extendedAgentCard") || path.ends_with("/v1/card"),
        Kind::JsonRpc => body
            .and_then(|b| serde_json::from_slice::<Value>(b).ok())
            .and_then(|v| v.get("method").and_then(Value::as_str).map(str::to_owned))
            .is_some_and(|m| {
                m == "GetExtendedAgentCard" || m == "agent/getAuthenticatedExtendedCard"
            }),
    }
}

/// Whether an extended-card request is 0.3's (REST `/v1/card`, gRPC `GetAgentCard`, JSON-RPC
/// `agent/getAuthenticatedExtendedCard`).
fn asks_v03_card(path: &str, body: Option<&Bytes>) -> bool {
    path.ends_with("/v1/card")
        || path.ends_with("/GetAgentCard")
        || body
            .and_then(|b| serde_json::from_slice::<Value>(b).ok())
            .is_some_and(|v| v.get("method") == Some(&json!("agent/getAuthenticatedExtendedCard")))
}

/// The id of a JSON-RPC request body (null when there is none).
fn request_id(body: Option<&Bytes>) -> Value {
    body.and_then(|b| serde_json::from_slice::<Value>(b).ok())
        .and_then(|v| v.get("id").cloned())
        .unwrap_or(Value::Null)
}

/// Every request that is not for the public card comes here.
pub async fn guard(State(guard): State<Arc<Guard>>, request: Request) -> Response {
    let kind = Kind::of(&request);
    let path = request.uri().path().to_owned();
    let if_none_match = request.headers().get(header::IF_NONE_MATCH).cloned();
    let token = bearer(request.headers());
    let limited = guard.is_limited(token);
    let principal = guard.principal(token);
    // A JSON-RPC body is read here to learn its method; the handler gets it back unchanged.
    let (request, body) = if kind == Kind::JsonRpc {
        let (parts, body) = request.into_parts();
        match axum::body::to_bytes(body, BODY_LIMIT).await {
            Ok(bytes) => (
                Request::from_parts(parts, Body::from(bytes.clone())),
                Some(bytes),
            ),
            Err(_) => return StatusCode::PAYLOAD_TOO_LARGE.into_response(),
        }
    } else {
        (request, None)
    };
    let extended = asks_extended_card(kind, &path, body.as_ref());
    if limited {
        let policy = &guard.policy;
        let service = if policy.limited_allowed || (extended && policy.limited_card_served) {
            guard.services.first().cloned()
        } else if extended && guard.limited_service.is_some() {
            guard.limited_service.clone()
        } else if policy.limited_unauthenticated {
            return refuse(kind, policy, request_id(body.as_ref()));
        } else {
            return forbid(kind, policy, request_id(body.as_ref()));
        };
        let Some(service) = service else {
            return StatusCode::INTERNAL_SERVER_ERROR.into_response();
        };
        return serve(
            service,
            request,
            extended && kind != Kind::Grpc && !policy.card_no_cache,
            if_none_match,
        )
        .await;
    }
    let principal = match principal {
        None if extended && guard.policy.card_without_auth => Some(0),
        other => other,
    };
    let Some(principal) = principal else {
        let mut response = refuse(kind, &guard.policy, request_id(body.as_ref()));
        if extended && guard.policy.v03_card_no_challenge && asks_v03_card(&path, body.as_ref()) {
            response.headers_mut().remove(header::WWW_AUTHENTICATE);
        }
        return response;
    };
    let Some(service) = guard.services.get(principal).cloned() else {
        return StatusCode::INTERNAL_SERVER_ERROR.into_response();
    };
    let cached = extended && kind != Kind::Grpc && !guard.policy.card_no_cache;
    serve(service, request, cached, if_none_match).await
}

/// The answer of a principal's services; with caching headers when `cached` (the extended
/// card on HTTP).
async fn serve(
    service: Router,
    request: Request,
    cached: bool,
    if_none_match: Option<HeaderValue>,
) -> Response {
    let response = match service.oneshot(request).await {
        Ok(response) => response,
        Err(never) => match never {},
    };
    if cached {
        with_cache_headers(response, if_none_match).await
    } else {
        response
    }
}

/// The extended card's response with `Cache-Control`, `ETag` (of its body) and `Vary`; a
/// matching `If-None-Match` gets 304.
async fn with_cache_headers(response: Response, if_none_match: Option<HeaderValue>) -> Response {
    if response.status() != StatusCode::OK {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, BODY_LIMIT).await else {
        return StatusCode::INTERNAL_SERVER_ERROR.into_response();
    };
    // A JSON-RPC error travels in HTTP 200: only a card result is cached.
    let is_error = serde_json::from_slice::<Value>(&bytes)
        .ok()
        .is_some_and(|v| v.get("error").is_some());
    if is_error {
        return Response::from_parts(parts, Body::from(bytes));
    }
    let digest = Sha256::digest(&bytes);
    let etag: String = digest.iter().take(8).map(|b| format!("{b:02x}")).collect();
    let etag = format!("\"{etag}\"");
    let headers = &mut parts.headers;
    headers.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static(EXTENDED_CACHE_CONTROL),
    );
    headers.insert(header::VARY, HeaderValue::from_static("Authorization"));
    if let Ok(value) = HeaderValue::from_str(&etag) {
        headers.insert(header::ETAG, value);
    }
    let revalidated = if_none_match
        .as_ref()
        .and_then(|v| v.to_str().ok())
        .is_some_and(|tags| {
            tags.split(',')
                .map(|t| t.trim().trim_start_matches("W/"))
                .any(|t| t == "*" || t == etag)
        });
    if revalidated {
        parts.status = StatusCode::NOT_MODIFIED;
        parts.headers.remove(header::CONTENT_TYPE);
        return Response::from_parts(parts, Body::empty());
    }
    Response::from_parts(parts, Body::from(bytes))
}

/// A refusal of a request without valid credentials, in the binding's form.
fn refuse(kind: Kind, policy: &AuthPolicy, id: Value) -> Response {
    let message = if policy.no_challenge {
        "denied"
    } else {
        REFUSAL
    };
    // 401 carries the challenge; 403 (the alternative) names the scheme in its message.
    let challenge = (!policy.no_challenge && !policy.forbidden)
        .then_some([(header::WWW_AUTHENTICATE, CHALLENGE)]);
    let (http, rest_status) = if policy.wrong_status {
        (StatusCode::INTERNAL_SERVER_ERROR, "INTERNAL")
    } else if policy.forbidden {
        (StatusCode::FORBIDDEN, "PERMISSION_DENIED")
    } else {
        (StatusCode::UNAUTHORIZED, "UNAUTHENTICATED")
    };
    match kind {
        Kind::Grpc => {
            let status = if policy.wrong_status {
                tonic::Status::internal(message)
            } else if policy.forbidden {
                tonic::Status::permission_denied(message)
            } else {
                tonic::Status::unauthenticated(message)
            };
            let mut response: Response = status.into_http();
            if let Some([(name, value)]) = challenge {
                response
                    .headers_mut()
                    .insert(name, HeaderValue::from_static(value));
            }
            response
        }
        Kind::JsonRpc => {
            let (status, code) = if policy.wrong_status {
                (StatusCode::OK, -32603)
            } else if policy.jsonrpc_in_200 {
                (StatusCode::OK, -32010)
            } else {
                (http, -32000)
            };
            let body = json!({
                "jsonrpc": "2.0",
                "id": id,
                "error": {"code": code, "message": message},
            });
            (status, challenge, axum::Json(body)).into_response()
        }
        Kind::Rest => {
            let body = json!({"error": {
                "code": http.as_u16(),
                "status": rest_status,
                "message": message,
            }});
            (http, challenge, axum::Json(body)).into_response()
        }
    }
}

/// The refusal of an authenticated caller without the permission, in the binding's form
/// (spec 1.0 §5.4: HTTP 403, gRPC PERMISSION_DENIED; JSON-RPC a custom code, here -32000 in
/// HTTP 403, or -32010 in HTTP 200 under the fault that moves JSON-RPC refusals there).
fn forbid(kind: Kind, policy: &AuthPolicy, id: Value) -> Response {
    match kind {
        Kind::Grpc => tonic::Status::permission_denied(FORBIDDEN).into_http(),
        Kind::JsonRpc => {
            let (status, code) = if policy.jsonrpc_in_200 {
                (StatusCode::OK, -32010)
            } else {
                (StatusCode::FORBIDDEN, -32000)
            };
            let body = json!({
                "jsonrpc": "2.0",
                "id": id,
                "error": {"code": code, "message": FORBIDDEN},
            });
            (status, axum::Json(body)).into_response()
        }
        Kind::Rest => {
            let body = json!({"error": {
                "code": 403,
                "status": "PERMISSION_DENIED",
                "message": FORBIDDEN,
            }});
            (StatusCode::FORBIDDEN, axum::Json(body)).into_response()
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::config::AgentConfig;

    #[test]
    fn bearer_tokens_are_read_case_insensitively() {
        let mut headers = HeaderMap::new();
        headers.insert(
            header::AUTHORIZATION,
            HeaderValue::from_static("bearer abc"),
        );
        assert_eq!(bearer(&headers), Some("abc"));
        headers.insert(header::AUTHORIZATION, HeaderValue::from_static("Basic abc"));
        assert_eq!(bearer(&headers), None);
        headers.insert(header::AUTHORIZATION, HeaderValue::from_static("Bearer "));
        assert_eq!(bearer(&headers), None);
    }

    #[test]
    fn extended_card_views_keep_their_version_fields() {
        let config = AgentConfig {
            bearer_tokens: vec!["t".into()],
            ..AgentConfig::default()
        };
        let policy = AuthPolicy::new(&config);
        let mut card = json!({"name": "n", "url": "u", "supportedInterfaces": [],
            "capabilities": {"streaming": true}, "skills": []});
        declare(&mut card, &policy);
        let cards = extended_cards(&card, &policy).unwrap();
        assert!(cards.v10.get("url").is_none());
        assert_eq!(cards.v10["capabilities"]["extendedAgentCard"], true);
        assert!(cards.v10["securitySchemes"][SCHEME].get("type").is_none());
        assert_eq!(cards.v03_json["securitySchemes"][SCHEME]["type"], "http");
        assert!(cards.v03_json.get("supportedInterfaces").is_none());
        assert_eq!(
            cards.v03_proto["security"][0]["schemes"][SCHEME]["list"],
            json!([])
        );
        assert_eq!(cards.v10["skills"].as_array().unwrap().len(), 1);
    }
}
