//! HTTP+JSON/REST (spec 1.0 §11): operations as HTTP verbs on resource paths relative to the
//! interface URL, ProtoJSON bodies, errors as a `google.rpc.Status` body; streams as SSE.

use async_trait::async_trait;
use reqwest::{Method, Url};
use serde_json::{json, Map, Value};

use super::stream::{self, Start};
use super::{error_info_in, Answer, ErrorReply, Link, Reply, Transport, VersionHeader};
use crate::a2a;
use crate::model::{Binding, HarnessError, ProtocolVersion};
use crate::wire::{HttpReply, Request};

/// The HTTP+JSON binding of one interface.
#[derive(Debug)]
pub struct Rest(pub Link);

/// The headers of a request.
type Headers = Vec<(&'static str, String)>;

impl Rest {
    /// The request of an operation: its route (by the interface's version) and headers.
    fn request(
        &self,
        method: &str,
        params: Value,
        version: VersionHeader<'_>,
        stream: bool,
    ) -> Result<(Route, Headers), HarnessError> {
        let link = &self.0;
        let params = link.with_tenant(params);
        let route = link.codec.route(&link.interface.url, method, &params)?;
        let accept = if stream { "text/event-stream" } else { ACCEPT };
        let mut headers = vec![("accept", accept.to_string())];
        if route.body.is_some() {
            headers.push(("content-type", REQUEST_CONTENT_TYPE.to_string()));
        }
        if let Some(version) = link.codec.version_value(version) {
            headers.push(("a2a-version", version));
        }
        Ok((route, headers))
    }
}

#[async_trait]
impl Transport for Rest {
    fn link(&self) -> &Link {
        &self.0
    }

    async fn call(
        &self,
        method: &str,
        params: Value,
        version: VersionHeader<'_>,
    ) -> Result<Reply, HarnessError> {
        let (route, headers) = self.request(method, params, version, false)?;
        let http = self
            .0
            .wire
            .send(Request {
                method: route.method,
                url: &route.url,
                headers,
                body: route.body.map(|b| b.to_string().into_bytes()),
            })
            .await?;
        Ok(self.0.codec.read(Binding::Rest, method, read(&http)))
    }

    async fn open_stream(&self, method: &str, params: Value) -> Result<Start, HarnessError> {
        let (route, headers) = self.request(method, params, VersionHeader::Interface, true)?;
        let opened = self
            .0
            .wire
            .open(Request {
                method: route.method,
                url: &route.url,
                headers,
                body: route.body.map(|b| b.to_string().into_bytes()),
            })
            .await?;
        let wait = self.0.wire.limits().stream_wait;
        let start = stream::start_sse(Binding::Rest, opened, None, wait).await?;
        Ok(self.0.codec.read_start(Binding::Rest, start))
    }
}

/// The media type the kit sends (accepted by every 1.0 server) and the ones it accepts.
pub const REQUEST_CONTENT_TYPE: &str = "application/json";
pub const ACCEPT: &str = "application/a2a+json, application/json";

/// An operation as an HTTP request.
#[derive(Debug, Clone, PartialEq)]
pub struct Route {
    pub method: Method,
    pub url: String,
    pub body: Option<Value>,
}

/// Maps a 1.0 method and its ProtoJSON params to the binding's route (§11.3, the proto's
/// HTTP annotations). A `tenant` in the params becomes the `/{tenant}` path prefix; path
/// fields leave the body; GET requests carry the rest as camelCase query parameters.
pub fn route(base: &str, method: &str, params: &Value) -> Result<Route, HarnessError> {
    let mut fields: Map<String, Value> = params.as_object().cloned().unwrap_or_default();
    let tenant = take_text(&mut fields, "tenant");
    let (verb, path): (Method, Vec<String>) = match method {
        "SendMessage" => (Method::POST, vec!["message:send".into()]),
        "SendStreamingMessage" => (Method::POST, vec!["message:stream".into()]),
        "GetTask" => (
            Method::GET,
            vec![
                "tasks".into(),
                take_text(&mut fields, "id").unwrap_or_default(),
            ],
        ),
        "ListTasks" => (Method::GET, vec!["tasks".into()]),
        "CancelTask" => {
            let id = take_text(&mut fields, "id").unwrap_or_default();
            (Method::POST, vec!["tasks".into(), format!("{id}:cancel")])
        }
        // §11.3.2 and §5.3 say POST; the proto annotation says GET (spec notes §1.17 #1).
        "SubscribeToTask" => {
            let id = take_text(&mut fields, "id").unwrap_or_default();
            (
                Method::POST,
                vec!["tasks".into(), format!("{id}:subscribe")],
            )
        }
        "CreateTaskPushNotificationConfig" => {
            let task = take_text(&mut fields, "taskId").unwrap_or_default();
            (
                Method::POST,
                vec!["tasks".into(), task, "pushNotificationConfigs".into()],
            )
        }
        "ListTaskPushNotificationConfigs" => {
            let task = take_text(&mut fields, "taskId").unwrap_or_default();
            (
                Method::GET,
                vec!["tasks".into(), task, "pushNotificationConfigs".into()],
            )
        }
        "GetTaskPushNotificationConfig" | "DeleteTaskPushNotificationConfig" => {
            let task = take_text(&mut fields, "taskId").unwrap_or_default();
            let id = take_text(&mut fields, "id").unwrap_or_default();
            let verb = if method.starts_with("Get") {
                Method::GET
            } else {
                Method::DELETE
            };
            (
                verb,
                vec!["tasks".into(), task, "pushNotificationConfigs".into(), id],
            )
        }
        "GetExtendedAgentCard" => (Method::GET, vec!["extendedAgentCard".into()]),
        other => {
            return Err(HarnessError::Internal(format!(
                "the HTTP+JSON binding has no route for {other}"
            )))
        }
    };
    let mut url = Url::parse(base)
        .map_err(|e| HarnessError::Internal(format!("interface url {base:?}: {e}")))?;
    {
        let mut segments = url
            .path_segments_mut()
            .map_err(|()| HarnessError::Internal(format!("interface url {base:?} has no path")))?;
        segments.pop_if_empty();
        segments.extend(tenant.iter());
        segments.extend(path.iter());
    }
    let body = if verb == Method::GET || verb == Method::DELETE {
        {
            let mut query = url.query_pairs_mut();
            for (key, value) in &fields {
                for text in query_values(value) {
                    query.append_pair(key, &text);
                }
            }
        }
        if url.query() == Some("") {
            url.set_query(None);
        }
        None
    } else {
        Some(Value::Object(fields))
    };
    Ok(Route {
        method: verb,
        url: url.to_string(),
        body,
    })
}

fn take_text(fields: &mut Map<String, Value>, key: &str) -> Option<String> {
    match fields.remove(key) {
        Some(Value::String(s)) => Some(s),
        Some(other) => Some(other.to_string()),
        None => None,
    }
}

/// A query parameter's values (§11.5): scalars as text, booleans lowercase, arrays as
/// repeated keys.
fn query_values(value: &Value) -> Vec<String> {
    match value {
        Value::Null => Vec::new(),
        Value::String(s) => vec![s.clone()],
        Value::Array(items) => items.iter().flat_map(query_values).collect(),
        other => vec![other.to_string()],
    }
}

/// Reads an HTTP+JSON answer: a 2xx body is the result, anything else an error whose body
/// should be a `google.rpc.Status` (§11.6). A 2xx whose body is such an error is read as an
/// error with that 2xx status, so that checks expecting a result or a given status see it.
pub fn read(http: &HttpReply) -> Reply {
    Reply::new(Binding::Rest, Some(http.status), read_answer(http))
}

fn read_answer(http: &HttpReply) -> Result<Answer, String> {
    let success = (200..300).contains(&http.status);
    let body = if http.body.iter().all(u8::is_ascii_whitespace) {
        if success {
            return Ok(Answer::Result(json!({})));
        }
        None
    } else {
        http.json()
    };
    match body {
        Some(body) if success && !looks_like_status(&body) => Ok(Answer::Result(body)),
        Some(body) => Ok(Answer::Error(error_reply(http.status, body))),
        None if success => Err(format!(
            "HTTP {} with a body that is not JSON: {}",
            http.status,
            http.body_start(200)
        )),
        None => Ok(Answer::Error(ErrorReply {
            binding: Binding::Rest,
            code: None,
            http_status: Some(http.status),
            status: None,
            error_info: None,
            shape_problem: Some(format!(
                "the body is not a google.rpc.Status (Content-Type {}: {})",
                http.header("content-type").unwrap_or("none"),
                http.body_start(120)
            )),
            raw: Value::String(http.body_start(300)),
            version: ProtocolVersion::V1_0,
        })),
    }
}

/// `{"error": {"code": .., "status"|"message"|"details": ..}}`.
fn looks_like_status(body: &Value) -> bool {
    body.get("error")
        .and_then(Value::as_object)
        .is_some_and(|e| e.contains_key("code") || e.contains_key("status"))
}

fn error_reply(http_status: u16, body: Value) -> ErrorReply {
    let error = body.get("error").filter(|e| e.is_object());
    let shape_problem = match error {
        None => Some(format!(
            "the body is not a google.rpc.Status wrapped in \"error\": {}",
            a2a::brief(&body, 200)
        )),
        Some(e) => {
            let untyped = a2a::items(e, "details")
                .filter(|d| d.get("@type").and_then(Value::as_str).is_none())
                .count();
            if e.get("code").and_then(Value::as_u64) != Some(u64::from(http_status)) {
                Some(format!(
                    "error.code {} differs from the HTTP status {http_status}",
                    a2a::shown_json(e.get("code"))
                ))
            } else if untyped > 0 {
                Some(format!("{untyped} of error.details have no @type"))
            } else {
                None
            }
        }
    };
    ErrorReply {
        binding: Binding::Rest,
        code: None,
        http_status: Some(http_status),
        status: error
            .and_then(|e| a2a::text(e, "status"))
            .map(str::to_string),
        error_info: error.and_then(|e| error_info_in(e.get("details"))),
        shape_problem,
        raw: body,
        version: ProtocolVersion::V1_0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url_of(method: &str, params: Value) -> (Method, String, Option<Value>) {
        let r = route("http://h:1/a2a/rest", method, &params).expect("route");
        (r.method, r.url, r.body)
    }

    #[test]
    fn routes_follow_the_binding() {
        assert_eq!(
            url_of("GetTask", json!({"id": "t 1", "historyLength": 2})),
            (
                Method::GET,
                "http://h:1/a2a/rest/tasks/t%201?historyLength=2".into(),
                None
            )
        );
        assert_eq!(
            url_of("CancelTask", json!({"id": "t1", "tenant": "acme"})),
            (
                Method::POST,
                "http://h:1/a2a/rest/acme/tasks/t1:cancel".into(),
                Some(json!({}))
            )
        );
        assert_eq!(
            url_of(
                "ListTasks",
                json!({"includeArtifacts": true, "pageSize": 2})
            )
            .1,
            "http://h:1/a2a/rest/tasks?includeArtifacts=true&pageSize=2"
        );
        assert_eq!(
            url_of("SendMessage", json!({"message": {}})).2,
            Some(json!({"message": {}}))
        );
        assert_eq!(
            url_of("ListTasks", json!({})).1,
            "http://h:1/a2a/rest/tasks"
        );
        assert!(route("http://h/", "Nope", &json!({})).is_err());
    }

    fn http(status: u16, body: &str) -> HttpReply {
        HttpReply {
            status,
            headers: vec![],
            body: body.as_bytes().to_vec(),
        }
    }

    #[test]
    fn errors_are_read_from_google_rpc_status() {
        let body = r#"{"error":{"code":404,"status":"NOT_FOUND","message":"x","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"TASK_NOT_FOUND","domain":"a2a-protocol.org"}]}}"#;
        let Ok(Answer::Error(e)) = read(&http(404, body)).read else {
            panic!("an error")
        };
        assert_eq!(e.status.as_deref(), Some("NOT_FOUND"));
        assert_eq!(
            e.error_info.map(|i| i.reason).as_deref(),
            Some("TASK_NOT_FOUND")
        );
        assert_eq!(e.shape_problem, None);
        // A 200 carrying the error body is an error, with that status.
        let Ok(Answer::Error(e)) = read(&http(200, body)).read else {
            panic!("an error")
        };
        assert!(e.shape_problem.is_some());
        // problem+json is not the binding's error form.
        let Ok(Answer::Error(e)) = read(&http(404, r#"{"type":"about:blank","status":404}"#)).read
        else {
            panic!("an error")
        };
        assert!(e.shape_problem.is_some());
        assert!(matches!(read(&http(200, "{}")).read, Ok(Answer::Result(_))));
        assert!(read(&http(200, "<html>")).read.is_err());
    }
}
