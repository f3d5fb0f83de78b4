//! `google.rpc.Status` details in `grpc-status-details-bin`: building them on
//! the server, reading them on the client.

use std::collections::BTreeMap;

use prost::Message as _;
use prost_reflect::DynamicMessage;
use serde_json::{Map, Value};
use tonic::{Code, Status};
use tonic_types::{ErrorDetails, StatusExt};

use crate::client::{ErrorInfo, GrpcStatus};

/// The canonical upper-snake name of a status code, e.g. `"NOT_FOUND"`.
pub fn code_name(code: i32) -> &'static str {
    match code {
        0 => "OK",
        1 => "CANCELLED",
        2 => "UNKNOWN",
        3 => "INVALID_ARGUMENT",
        4 => "DEADLINE_EXCEEDED",
        5 => "NOT_FOUND",
        6 => "ALREADY_EXISTS",
        7 => "PERMISSION_DENIED",
        8 => "RESOURCE_EXHAUSTED",
        9 => "FAILED_PRECONDITION",
        10 => "ABORTED",
        11 => "OUT_OF_RANGE",
        12 => "UNIMPLEMENTED",
        13 => "INTERNAL",
        14 => "UNAVAILABLE",
        15 => "DATA_LOSS",
        16 => "UNAUTHENTICATED",
        _ => "UNKNOWN_CODE",
    }
}

/// A status with an `ErrorInfo` detail (when `reason` is given) and a
/// `BadRequest` detail (when there are field violations).
pub(crate) fn status_with_details(
    code: Code,
    message: &str,
    reason: Option<&str>,
    metadata: &[(String, String)],
    field_violations: &[(String, String)],
) -> Status {
    if reason.is_none() && field_violations.is_empty() {
        return Status::new(code, message);
    }
    let mut details = ErrorDetails::new();
    if let Some(reason) = reason {
        let metadata: std::collections::HashMap<String, String> =
            metadata.iter().cloned().collect();
        details.set_error_info(reason, crate::ERROR_DOMAIN, metadata);
    }
    for (field, description) in field_violations {
        details.add_bad_request_violation(field.clone(), description.clone());
    }
    Status::with_error_details(code, message, details)
}

/// The status a call ended with, read from its trailers as another party recorded them:
/// `grpc-status`, `grpc-message` (percent-encoded) and `grpc-status-details-bin` (base64,
/// padded or not).
pub fn status_of_trailers(code: i32, message: &str, details_bin: Option<&str>) -> GrpcStatus {
    use base64::Engine as _;
    let message = percent_decoded(message);
    let Some(encoded) = details_bin.map(str::trim).filter(|d| !d.is_empty()) else {
        return grpc_status(&Status::new(Code::from(code), message));
    };
    let unpadded = encoded.trim_end_matches('=');
    match base64::engine::general_purpose::STANDARD_NO_PAD.decode(unpadded) {
        Ok(bytes) => grpc_status(&Status::with_details(
            Code::from(code),
            message,
            bytes::Bytes::from(bytes),
        )),
        Err(e) => {
            let mut status = grpc_status(&Status::new(Code::from(code), message));
            status.details_error = Some(format!("grpc-status-details-bin is not base64: {e}"));
            status
        }
    }
}

/// `grpc-message` decoded (`%XX` escapes).
fn percent_decoded(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = text
            .get(i + 1..i + 3)
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'%', Some(byte)) => {
                out.push(byte);
                i += 3;
            }
            (byte, _) => {
                out.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The client's view of a status the peer sent.
pub(crate) fn grpc_status(status: &Status) -> GrpcStatus {
    let code = status.code() as i32;
    let mut out = GrpcStatus {
        code,
        message: status.message().to_owned(),
        error_info: None,
        details: Vec::new(),
        details_error: None,
        challenge: status
            .metadata()
            .get("www-authenticate")
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned),
    };
    if let Some(note) = status.metadata().get(crate::sanitize::DETAILS_ERROR_HEADER) {
        out.details_error = Some(note.to_str().unwrap_or("undecodable details").to_owned());
    }
    if status.details().is_empty() {
        return out;
    }
    let rpc_status = match tonic_types::Status::decode(status.details()) {
        Ok(s) => s,
        Err(e) => {
            out.details_error = Some(format!(
                "grpc-status-details-bin is not a google.rpc.Status: {e}"
            ));
            return out;
        }
    };
    if rpc_status.code != code {
        out.details_error = Some(format!(
            "grpc-status-details-bin says code {} ({}), grpc-status says {code}",
            rpc_status.code,
            code_name(rpc_status.code)
        ));
    }
    match status.check_error_details() {
        Ok(d) => {
            out.error_info = d.error_info().map(|i| ErrorInfo {
                reason: i.reason.clone(),
                domain: i.domain.clone(),
                metadata: i
                    .metadata
                    .iter()
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect::<BTreeMap<_, _>>(),
            });
        }
        Err(e) => {
            out.details_error
                .get_or_insert_with(|| format!("an error detail does not decode: {e}"));
        }
    }
    out.details = rpc_status.details.iter().map(any_to_json).collect();
    out
}

/// ProtoJSON of an `Any` (`{"@type": url, ...fields}`) when its type is in
/// the pool; just `{"@type": url}` when it is not, or does not decode.
fn any_to_json(any: &prost_types::Any) -> Value {
    let type_name = any.type_url.rsplit('/').next().unwrap_or_default();
    let known = crate::pool()
        .get_message_by_name(type_name)
        .and_then(|desc| DynamicMessage::decode(desc, any.value.as_slice()).ok())
        .and_then(|msg| crate::to_json(&msg).ok());
    let mut obj = Map::new();
    obj.insert("@type".into(), Value::String(any.type_url.clone()));
    match known {
        Some(Value::Object(fields)) => obj.extend(fields),
        Some(other) => {
            obj.insert("value".into(), other);
        }
        None => {}
    }
    Value::Object(obj)
}
