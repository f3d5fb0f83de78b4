//! The judge of errors: what each binding owes, in each protocol version, for each error the
//! spec names, and whether an answer the transports read back is that error. Transports only
//! report what came back; every rule about the form of an error lives here.
//!
//! 1.0 (§5.4, §9.5, §10.6, §11.6): a JSON-RPC error code; an HTTP status with a
//! `google.rpc.Status` body; a gRPC status; on HTTP+JSON and gRPC an ErrorInfo naming A2A
//! errors. 0.3 specifies neither REST error bodies nor gRPC status codes (spec notes §2.4):
//! there only the class of the error is asked.
//!
//! The HTTP and gRPC statuses are those of the revision the run judges by
//! ([`revision::judging`]): the latest, with an older revision's answer tolerated, or the one
//! pinned with `--spec-revision`, strictly.

use crate::exchange::transport::{Answer, ErrorReply, Reply};
use crate::facts::a2a::{self, ErrorKind};
use crate::facts::model::{Binding, ProtocolVersion, Verdict};
use crate::facts::revision::{self, Judging, Sentence};

/// What `kind` looks like on `binding` in `version`, for `expected` in a violation.
pub fn expected(kind: ErrorKind, binding: Binding, version: ProtocolVersion) -> String {
    if version == ProtocolVersion::V0_3 {
        return match binding {
            Binding::Jsonrpc => format!("JSON-RPC error {kind}"),
            Binding::Rest => format!(
                "an HTTP {}xx error ({})",
                kind.http_status() / 100,
                kind.name()
            ),
            Binding::Grpc => format!("a gRPC error status ({})", kind.name()),
        };
    }
    let by = revision::judging().revision();
    let pinned = match revision::judging() {
        Judging::Pinned(r) => format!(", spec {}", r.tag),
        Judging::Tolerant => String::new(),
    };
    let info = |prefix: &str| match kind.reason() {
        Some(reason) => format!(
            "{prefix} with ErrorInfo reason {reason} ({}{pinned})",
            kind.name()
        ),
        None => format!("{prefix} ({}{pinned})", kind.name()),
    };
    match binding {
        Binding::Jsonrpc => format!("JSON-RPC error {kind}"),
        Binding::Rest => info(&format!(
            "HTTP {} and a google.rpc.Status body",
            by.http_status(kind)
        )),
        Binding::Grpc => info(&format!("gRPC status {}", by.grpc_status(kind))),
    }
}

/// Whether `error` is exactly `kind` in the form its binding and version owe; if not, what
/// differs.
pub fn error(error: &ErrorReply, kind: ErrorKind) -> Result<(), String> {
    if error.version == ProtocolVersion::V0_3 && error.binding != Binding::Jsonrpc {
        return error_0_3(error, kind);
    }
    let by = revision::judging().revision();
    if error.binding != Binding::Jsonrpc && revision::error_row_differs(kind) {
        revision::note(Sentence::ErrorRow(kind.into()));
    }
    let mut problems = Vec::new();
    match error.binding {
        Binding::Jsonrpc => {
            if error.code != Some(kind.jsonrpc_code()) {
                problems.push(format!(
                    "code {}",
                    error.code.map_or("none".into(), |c| c.to_string())
                ));
            }
        }
        Binding::Rest => {
            if error.http_status != Some(by.http_status(kind)) {
                problems.push(format!("HTTP status {}", error.http_status.unwrap_or(0)));
            }
        }
        Binding::Grpc => {
            if error.status.as_deref() != Some(by.grpc_status(kind)) {
                problems.push(format!(
                    "gRPC status {}",
                    error.status.as_deref().unwrap_or("none")
                ));
            }
        }
    }
    // Every REST and gRPC error has the binding's error form (§11.6), generic ones too.
    if error.binding != Binding::Jsonrpc {
        problems.extend(error.shape_problem.clone());
    }
    // A generic error (no ErrorInfo reason of its own) is not one whose ErrorInfo names
    // an A2A error: on HTTP and gRPC, statuses alone are shared by several errors.
    if let (None, Some(info)) = (kind.reason(), &error.error_info) {
        if ErrorKind::A2A
            .iter()
            .any(|k| k.reason() == Some(info.reason.as_str()))
        {
            problems.push(format!("ErrorInfo reason {:?}", info.reason));
        }
    }
    // ErrorInfo is a MUST for A2A errors on gRPC and REST (§10.6, §11.6); on JSON-RPC it
    // is a SHOULD with its own check.
    if let (Some(reason), true) = (kind.reason(), error.binding != Binding::Jsonrpc) {
        match &error.error_info {
            Some(info) if info.reason == reason && info.domain == a2a::ERROR_DOMAIN => {}
            Some(info) => problems.push(format!(
                "ErrorInfo reason {:?} domain {:?}",
                info.reason, info.domain
            )),
            None => problems.push("no google.rpc.ErrorInfo detail".into()),
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join(", "))
    }
}

/// An error of the right class is all 0.3 asks on REST and gRPC: 4xx for client errors, 5xx
/// for server errors; on gRPC any status but OK, INTERNAL-like ones for server errors.
fn error_0_3(error: &ErrorReply, kind: ErrorKind) -> Result<(), String> {
    match error.binding {
        Binding::Rest => {
            let class = kind.http_status() / 100;
            match error.http_status {
                Some(s) if s / 100 == class => Ok(()),
                other => Err(format!("HTTP status {}", other.unwrap_or(0))),
            }
        }
        _ => {
            let server_side = kind.http_status() >= 500;
            match error.status.as_deref() {
                Some("OK") | None => Err("no error status".into()),
                Some(s) if matches!(s, "INTERNAL" | "UNKNOWN" | "UNAVAILABLE") != server_side => {
                    Err(format!("gRPC status {s}"))
                }
                Some(_) => Ok(()),
            }
        }
    }
}

/// Whether `error` is `kind` in its binding's form.
pub fn is(error: &ErrorReply, kind: ErrorKind) -> bool {
    self::error(error, kind).is_ok()
}

/// The verdict for "this call must fail with exactly `kind`": an answer that is not the
/// binding's error form is a violation too, not a harness error.
pub fn expect_error(reply: &Reply, kind: ErrorKind) -> Verdict {
    let expected = expected(kind, reply.binding, reply.version);
    match &reply.read {
        Ok(Answer::Error(e)) => match error(e, kind) {
            Ok(()) => Verdict::pass(),
            Err(differs) => match superseded(e, kind) {
                Some(why) => Verdict::tolerate(expected, format!("{differs}: {e}"), why),
                None => Verdict::fail(expected, format!("{differs}: {e}")),
            },
        },
        Ok(other) => Verdict::fail(expected, other.describe()),
        Err(unreadable) => Verdict::fail(expected, unreadable.clone()),
    }
}

/// Whether `error` is `kind` as the error table (§5.4) of a revision the run tolerates gave
/// it (in the default judging, 1.0.0 where 1.0.1 changed it): that revision's HTTP or gRPC
/// status, and everything else (the body's form, the ErrorInfo reason and domain) as the
/// latest asks. Every revision is "1.0", and a patch release does not change compatibility
/// (§3.6): such an answer follows superseded text and is tolerated, naming the latest entry,
/// never failed. `None` when it is not that answer, and always under a pinned revision.
fn superseded(error: &ErrorReply, kind: ErrorKind) -> Option<String> {
    if error.version != ProtocolVersion::V1_0 {
        return None;
    }
    let judging = revision::judging();
    let latest = judging.revision();
    judging
        .tolerated()
        .find_map(|older| superseded_by(error, kind, older, latest))
}

/// [`superseded`] for one older revision.
fn superseded_by(
    error: &ErrorReply,
    kind: ErrorKind,
    older: &revision::Revision,
    latest: &revision::Revision,
) -> Option<String> {
    let mut current = error.clone();
    let (old, new) = match error.binding {
        Binding::Jsonrpc => return None,
        Binding::Rest => {
            let (old, new) = (older.http_status(kind), latest.http_status(kind));
            if old == new || error.http_status != Some(old) {
                return None;
            }
            current.http_status = Some(new);
            // A google.rpc.Status body carries the HTTP status as its code.
            if let Some(code) = current.raw.pointer_mut("/error/code") {
                *code = new.into();
            }
            current.shape_problem = rest_shape_after_fix(&current, error);
            (format!("HTTP {old}"), format!("HTTP {new}"))
        }
        Binding::Grpc => {
            let (old, new) = (older.grpc_status(kind), latest.grpc_status(kind));
            if old == new || error.status.as_deref() != Some(old) {
                return None;
            }
            current.status = Some(new.to_string());
            (old.to_string(), new.to_string())
        }
    };
    self::error(&current, kind).ok().map(|()| {
        format!(
            "{old} is the {} entry of the error table for {}; spec {} (§5.4) gives {new}, \
             and a patch release does not change compatibility (§3.6)",
            older.tag,
            kind.name(),
            latest.tag
        )
    })
}

/// A REST error's shape problem once its status is moved to the 1.0.1 entry: the one problem
/// that the move settles (the body's code differing from the HTTP status) is dropped.
fn rest_shape_after_fix(current: &ErrorReply, original: &ErrorReply) -> Option<String> {
    let problem = original.shape_problem.clone()?;
    let code = current.raw.pointer("/error/code").and_then(|c| c.as_u64());
    let settled = problem.starts_with("error.code") && code == current.http_status.map(u64::from);
    (!settled).then_some(problem)
}

/// Whether the reply's answer is the error `kind`.
pub fn is_error(reply: &Reply, kind: ErrorKind) -> bool {
    matches!(&reply.read, Ok(Answer::Error(e)) if is(e, kind))
}

/// Errors that say a request was not understood or the agent broke: not a rejection of it.
const NOT_A_REJECTION: &[ErrorKind] = &[
    ErrorKind::JsonParse,
    ErrorKind::InvalidRequest,
    ErrorKind::MethodNotFound,
    ErrorKind::Internal,
];

/// Whether `error` says the request was not understood or the agent broke, rather than
/// rejecting the request for a reason. On HTTP and gRPC, parse errors, invalid requests and
/// invalid params share their status: there only a missing route and an internal error are
/// told apart; 0.3 REST and gRPC errors are told apart by their class only.
pub fn not_a_rejection(error: &ErrorReply) -> bool {
    NOT_A_REJECTION.iter().any(|k| {
        is(error, *k)
            && match (error.binding, error.version) {
                (Binding::Jsonrpc, _) => true,
                (_, ProtocolVersion::V0_3) => *k == ErrorKind::Internal,
                _ => matches!(k, ErrorKind::MethodNotFound | ErrorKind::Internal),
            }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exchange::transport::answer;
    use crate::exchange::wire::HttpReply;

    fn http(status: u16, body: &str) -> HttpReply {
        HttpReply {
            status,
            headers: vec![],
            body: body.as_bytes().to_vec(),
        }
    }

    #[test]
    fn rest_errors_are_judged_by_status_body_and_error_info() {
        let body = r#"{"error":{"code":404,"status":"NOT_FOUND","message":"x","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"TASK_NOT_FOUND","domain":"a2a-protocol.org"}]}}"#;
        assert!(is_error(
            &answer::read_rest(&http(404, body)),
            ErrorKind::TaskNotFound
        ));
        assert!(!is_error(
            &answer::read_rest(&http(400, body)),
            ErrorKind::TaskNotFound
        ));
        // A 200 carrying the error body is an error, with the wrong status.
        assert!(!is_error(
            &answer::read_rest(&http(200, body)),
            ErrorKind::TaskNotFound
        ));
        // problem+json is not the binding's error form.
        let problem = r#"{"type":"about:blank","status":404}"#;
        assert!(!is_error(
            &answer::read_rest(&http(404, problem)),
            ErrorKind::TaskNotFound
        ));
    }

    #[test]
    fn a_0_3_rest_error_needs_only_its_class() {
        let mut reply = answer::read_rest(&http(404, r#"{"message":"no such task"}"#));
        assert!(!is_error(&reply, ErrorKind::TaskNotFound));
        reply.version = ProtocolVersion::V0_3;
        if let Ok(Answer::Error(e)) = &mut reply.read {
            e.version = ProtocolVersion::V0_3;
        }
        assert!(is_error(&reply, ErrorKind::TaskNotFound));
        assert!(!is_error(&reply, ErrorKind::Internal));
        assert_eq!(
            expected(
                ErrorKind::TaskNotFound,
                Binding::Rest,
                ProtocolVersion::V0_3
            ),
            "an HTTP 4xx error (TaskNotFoundError)"
        );
    }
}
