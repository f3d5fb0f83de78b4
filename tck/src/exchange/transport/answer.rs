//! How the whole answer of an HTTP binding reads, unjudged, into a [`Reply`]: a JSON-RPC
//! response ([`RpcReply`], [`read_response`]) and an HTTP+JSON body ([`read_rest`]). The
//! unary calls of both bindings read their answers here, and so do their streams (an error
//! before the first event, an error event), which is why it is a module of its own below
//! `jsonrpc`, `rest` and `stream`.

use serde_json::{json, Value};

use super::{error_info_in, Answer, ErrorReply, Reply};
use crate::exchange::wire::HttpReply;
use crate::facts::a2a;
use crate::facts::model::{Binding, ProtocolVersion};

/// A JSON-RPC exchange as sent and received.
#[derive(Debug, Clone)]
pub struct RpcReply {
    pub http: HttpReply,
    /// The parsed body, if it is JSON.
    pub body: Option<Value>,
}

impl RpcReply {
    pub fn new(http: HttpReply) -> RpcReply {
        let body = http.json();
        RpcReply { http, body }
    }

    /// The reply as the checks read it.
    pub fn reply(&self) -> Reply {
        Reply::new(Binding::Jsonrpc, Some(self.http.status), self.read())
    }

    fn read(&self) -> Result<Answer, String> {
        let Some(body) = self.body.as_ref() else {
            return Err(format!(
                "HTTP {} with a body that is not JSON: {}",
                self.http.status,
                self.http.body_start(200)
            ));
        };
        read_response(body, Some(self.http.status)).ok_or_else(|| {
            format!(
                "HTTP {} with a body that is not a JSON-RPC response (neither or both of \
                 result and error): {}",
                self.http.status,
                a2a::brief(body, 300)
            )
        })
    }
}

/// Reads a JSON-RPC response object: its result, or its error.
pub fn read_response(body: &Value, http_status: Option<u16>) -> Option<Answer> {
    match (body.get("result"), body.get("error")) {
        (Some(result), None) => Some(Answer::Result(result.clone())),
        (None, Some(error)) => Some(Answer::Error(ErrorReply {
            binding: Binding::Jsonrpc,
            code: error.get("code").and_then(Value::as_i64),
            http_status,
            status: None,
            error_info: error_info_in(error.get("data")),
            shape_problem: None,
            raw: error.clone(),
            version: ProtocolVersion::V1_0,
        })),
        _ => None,
    }
}

/// Reads an HTTP+JSON answer: a 2xx body is the result, anything else an error whose body
/// should be a `google.rpc.Status` (§11.6). A 2xx whose body is such an error is read as an
/// error with that 2xx status, so that checks expecting a result or a given status see it.
pub fn read_rest(http: &HttpReply) -> Reply {
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

/// A whole HTTP reply read the binding's way.
pub fn unary_reply(binding: Binding, http: &HttpReply) -> Reply {
    match binding {
        Binding::Rest => read_rest(http),
        _ => RpcReply::new(http.clone()).reply(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let Ok(Answer::Error(e)) = read_rest(&http(404, body)).read else {
            panic!("an error")
        };
        assert_eq!(e.status.as_deref(), Some("NOT_FOUND"));
        assert_eq!(
            e.error_info.map(|i| i.reason).as_deref(),
            Some("TASK_NOT_FOUND")
        );
        assert_eq!(e.shape_problem, None);
        // A 200 carrying the error body is an error, with that status.
        let Ok(Answer::Error(e)) = read_rest(&http(200, body)).read else {
            panic!("an error")
        };
        assert!(e.shape_problem.is_some());
        // problem+json is not the binding's error form.
        let Ok(Answer::Error(e)) =
            read_rest(&http(404, r#"{"type":"about:blank","status":404}"#)).read
        else {
            panic!("an error")
        };
        assert!(e.shape_problem.is_some());
        assert!(matches!(
            read_rest(&http(200, "{}")).read,
            Ok(Answer::Result(_))
        ));
        assert!(read_rest(&http(200, "<html>")).read.is_err());
    }
}
