//! A play's evidence, in the model server checks use ([`Exchange`]): first what the adapter
//! was given and printed (the scenario, its JSON lines, its other output and standard error),
//! then every request the client made, as the stage recorded it, with the answer the stage
//! passed back: a stream's SSE events or gRPC messages as events (with their arrival times),
//! a gRPC message decoded by the project's proto. Headers are redacted as the server-side
//! evidence redacts them ([`redact_all`]); the play's bearer token is scrubbed from the whole
//! report by the runner (`crate::reporting::secrets`). Every result of the play carries it, held to the
//! bounds of a server check's evidence (its first [`EVIDENCE_RESULT_EXCHANGES`] exchanges,
//! [`EVIDENCE_RESULT_BYTES`] of bodies; the report's own cap after).
//!
//! [`EVIDENCE_RESULT_EXCHANGES`]: crate::exchange::evidence::EVIDENCE_RESULT_EXCHANGES
//! [`EVIDENCE_RESULT_BYTES`]: crate::exchange::evidence::EVIDENCE_RESULT_BYTES

use serde_json::{json, Value};

use crate::exchange::evidence::{
    redact_all, Exchange, RecordedBody, RecordedEvent, RecordedRequest, RecordedResponse, Recorder,
    EVIDENCE_EVENT_LIMIT,
};
use crate::facts::model::Binding;

use super::adapter::{Client, Outcome};
use super::calls::Call;
use super::stage::{Door, Served};

/// The play's evidence: the adapter's run, then the client's requests, bounded as a server
/// check's evidence is.
pub fn of_play(
    calls: &[Call],
    scenario: &Value,
    outcome: &Outcome,
    client: &Client,
) -> Vec<Exchange> {
    let recorder = Recorder::default();
    recorder.push_evidence(adapter_run(scenario, outcome, client));
    for call in calls {
        recorder.push_evidence(request(call));
    }
    recorder.take()
}

/// What the adapter was given and printed, as an exchange of method `ADAPTER`.
fn adapter_run(scenario: &Value, outcome: &Outcome, client: &Client) -> Exchange {
    let command = match client {
        Client::Command(command) => command.clone(),
        Client::Reference(faults) => {
            let names: Vec<&str> = faults.iter().map(|f| f.name()).collect();
            if names.is_empty() {
                "reference client".into()
            } else {
                format!("reference client (faults: {})", names.join(", "))
            }
        }
    };
    let mut printed = json!({"lines": outcome.lines});
    if !outcome.noise.is_empty() {
        printed["other_output"] = json!(outcome.noise);
    }
    if let Some(failure) = &outcome.failure {
        printed["failure"] = json!(failure);
    }
    Exchange {
        request: RecordedRequest {
            method: "ADAPTER".into(),
            url: command,
            headers: Vec::new(),
            body: Some(RecordedBody::of(scenario.to_string().as_bytes())),
        },
        response: Some(RecordedResponse {
            status: 0,
            headers: Vec::new(),
            body: RecordedBody::of(printed.to_string().as_bytes()),
        }),
        error: outcome.failure.clone(),
        elapsed_ms: 0,
        events: Vec::new(),
        dropped: None,
    }
}

/// One request of the client with the stage's answer.
fn request(call: &Call) -> Exchange {
    let seen = &call.seen;
    let served = seen.served();
    let grpc = call.binding == Some(Binding::Grpc) || seen.is_grpc();
    let body = if grpc && !call.params.is_null() {
        Some(RecordedBody::of(call.params.to_string().as_bytes()))
    } else {
        (!seen.body.is_empty()).then(|| RecordedBody::of(&seen.body))
    };
    let door = match seen.door {
        Door::Main => "",
        Door::Alt => " (second interface)",
        Door::Dead => " (failing interface)",
    };
    let query = seen
        .query
        .as_deref()
        .map_or(String::new(), |q| format!("?{q}"));
    let (body_served, events) = if grpc {
        grpc_answer(&seen.path, &served)
    } else if content_type(&served.headers).starts_with("text/event-stream") {
        (RecordedBody::of(b""), sse_events(&served))
    } else {
        (RecordedBody::of(&served.body), Vec::new())
    };
    let mut dropped = None;
    if served.events > events.len() {
        dropped = Some(crate::exchange::evidence::Dropped {
            events: (served.events - events.len()) as u64,
            bytes: 0,
            exchanges: 0,
        });
    }
    Exchange {
        request: RecordedRequest {
            method: if grpc {
                "gRPC".into()
            } else {
                seen.method.clone()
            },
            url: format!("{}{query}{door}", seen.path),
            headers: redact_all(&seen.headers),
            body,
        },
        response: Some(RecordedResponse {
            status: served.status,
            headers: redact_all(&served.headers),
            body: body_served,
        }),
        error: served.error.clone(),
        elapsed_ms: served.elapsed_ms,
        events,
        dropped,
    }
}

fn content_type(headers: &[(String, String)]) -> &str {
    (headers.iter())
        .find(|(n, _)| n.eq_ignore_ascii_case("content-type"))
        .map_or("", |(_, v)| v.as_str())
}

/// The SSE events of a streamed answer (of the part the stage keeps), each with its arrival
/// time when the stage noted it.
fn sse_events(served: &Served) -> Vec<RecordedEvent> {
    let text = String::from_utf8_lossy(&served.body).replace("\r\n", "\n");
    let mut events = Vec::new();
    for block in text.split("\n\n") {
        let mut name = None;
        let mut data: Vec<&str> = Vec::new();
        for line in block.lines() {
            if let Some(value) = line.strip_prefix("data:") {
                data.push(value.strip_prefix(' ').unwrap_or(value));
            } else if let Some(value) = line.strip_prefix("event:") {
                name = Some(value.trim().to_owned());
            }
        }
        if data.is_empty() && name.is_none() {
            continue;
        }
        if events.len() >= EVIDENCE_EVENT_LIMIT {
            break;
        }
        events.push(RecordedEvent {
            at_ms: served.event_ms.get(events.len()).copied().unwrap_or(0),
            event: name.filter(|n| !n.is_empty()),
            data: RecordedBody::of(data.join("\n").as_bytes()),
        });
    }
    events
}

/// A gRPC answer: its messages decoded by the rpc's output type (a server stream's as events,
/// a unary call's as the body), or the bytes as received when they do not decode.
fn grpc_answer(path: &str, served: &Served) -> (RecordedBody, Vec<RecordedEvent>) {
    let mut parts = path.trim_start_matches('/').splitn(2, '/');
    let (service, rpc) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
    let Some(method) = a2a_proto::method_in(service, rpc) else {
        return (RecordedBody::of(&served.body), Vec::new());
    };
    let mut messages = Vec::new();
    let mut rest = served.body.as_slice();
    while rest.len() >= 5 {
        let len = u32::from_be_bytes([rest[1], rest[2], rest[3], rest[4]]) as usize;
        if rest.len() < 5 + len {
            break;
        }
        let frame = &rest[5..5 + len];
        let decoded = (rest[0] == 0)
            .then(|| prost_reflect::DynamicMessage::decode(method.output(), frame).ok())
            .flatten()
            .and_then(|m| a2a_proto::to_json(&m).ok());
        messages.push(match decoded {
            Some(value) => RecordedBody::of(value.to_string().as_bytes()),
            None => RecordedBody::of(frame),
        });
        rest = &rest[5 + len..];
    }
    if !method.is_server_streaming() {
        return match messages.pop() {
            Some(body) if messages.is_empty() => (body, Vec::new()),
            _ => (RecordedBody::of(&served.body), Vec::new()),
        };
    }
    let events = (messages.into_iter().take(EVIDENCE_EVENT_LIMIT).enumerate())
        .map(|(i, data)| RecordedEvent {
            at_ms: served.event_ms.get(i).copied().unwrap_or(0),
            event: None,
            data,
        })
        .collect();
    (RecordedBody::of(b""), events)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn sse_events_are_read_from_the_kept_stream() {
        let served = Served {
            body: b"event: status\ndata: {\"a\":1}\n\ndata: {\"b\":\r\ndata: 2}\r\n\r\n".to_vec(),
            event_ms: vec![3, 9],
            ..Served::default()
        };
        let events = sse_events(&served);
        assert_eq!(events.len(), 2);
        assert_eq!(events[0].event.as_deref(), Some("status"));
        assert_eq!(events[0].data.json, Some(json!({"a": 1})));
        assert_eq!(events[0].at_ms, 3);
        assert_eq!(events[1].data.json, Some(json!({"b": 2})));
        assert_eq!(events[1].at_ms, 9);
    }
}
