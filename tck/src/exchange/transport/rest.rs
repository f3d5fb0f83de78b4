//! HTTP+JSON/REST (spec 1.0 §11): operations as HTTP verbs on resource paths relative to the
//! interface URL, ProtoJSON bodies, errors as a `google.rpc.Status` body; streams as SSE.

use async_trait::async_trait;
use reqwest::{Method, Url};
use serde_json::{Map, Value};

use super::stream::{self, Start};
use super::{Link, Reply, Transport, VersionHeader};
use crate::exchange::wire::Request;
use crate::facts::model::{Binding, HarnessError};

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
        Ok(self
            .0
            .codec
            .read(Binding::Rest, method, super::answer::read_rest(&http)))
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
}
