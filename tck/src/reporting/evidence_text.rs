//! Recorded exchanges as plain text for people (JUnit failures, Markdown, the summary), held
//! to a size budget: each body is cut at its own cap, the whole at a total cap, and the text
//! says where something was cut.

use std::fmt::Write as _;

use crate::exchange::evidence::{Exchange, RecordedBody};

/// How much evidence text to keep.
#[derive(Debug, Clone, Copy)]
pub struct Caps {
    /// Bytes of one body (request, response or stream event).
    pub body: usize,
    /// Bytes of the whole text.
    pub total: usize,
}

impl Caps {
    /// For JUnit failures and Markdown: enough to see what happened, small enough for CI UIs.
    pub const COMPACT: Caps = Caps {
        body: 2 * 1024,
        total: 16 * 1024,
    };
}

/// A body as text: pretty JSON when it parsed, else the text received; `None` when empty.
pub fn body_text(body: &RecordedBody) -> Option<String> {
    if let Some(json) = &body.json {
        return Some(serde_json::to_string_pretty(json).unwrap_or_default());
    }
    body.text.clone().filter(|t| !t.is_empty())
}

/// A stream event's data on one line: compact JSON when it parsed, else the text received.
pub fn event_text(body: &RecordedBody) -> String {
    match &body.json {
        Some(json) => serde_json::to_string(json).unwrap_or_default(),
        None => body.text.clone().unwrap_or_default(),
    }
}

/// Cuts `text` to at most `max` bytes (on a char boundary); true when it cut.
pub fn cut(text: &str, max: usize) -> (&str, bool) {
    if text.len() <= max {
        return (text, false);
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    (&text[..end], true)
}

/// One line saying how big a body was and whether the record holds only its start.
pub fn body_note(body: &RecordedBody) -> Option<String> {
    body.truncated.then(|| {
        let kept = if body.kept_bytes() == 0 {
            "none of it (the kit's evidence cap)"
        } else {
            "only the start"
        };
        format!("[{} bytes received; the record keeps {kept}]", body.bytes)
    })
}

/// One line saying what a record left out to stay within the kit's evidence caps.
pub fn dropped_note(exchange: &Exchange) -> Option<String> {
    let dropped = exchange.dropped.filter(|d| d.events > 0 || d.bytes > 0)?;
    Some(format!(
        "[the record left out {} event(s), {} bytes, past the kit's evidence caps]",
        dropped.events, dropped.bytes
    ))
}

fn push_body(out: &mut String, body: &RecordedBody, caps: Caps) {
    if let Some(text) = body_text(body) {
        let (shown, was_cut) = cut(&text, caps.body);
        let _ = writeln!(out, "{shown}");
        if was_cut {
            let _ = writeln!(out, "[body cut here: {} bytes in all]", text.len());
        }
    }
    if let Some(note) = body_note(body) {
        let _ = writeln!(out, "{note}");
    }
}

/// The exchanges as text: `>` lines for the request, `<` lines for the answer, then the
/// stream events with their arrival times. Header values are as recorded (already redacted).
pub fn text(exchanges: &[Exchange], caps: Caps) -> String {
    let mut out = String::new();
    for (index, exchange) in exchanges.iter().enumerate() {
        if index > 0 {
            out.push('\n');
        }
        let request = &exchange.request;
        let _ = writeln!(out, "> {} {}", request.method, request.url);
        for (name, value) in &request.headers {
            let _ = writeln!(out, "> {name}: {value}");
        }
        if let Some(body) = &request.body {
            push_body(&mut out, body, caps);
        }
        match &exchange.response {
            Some(response) => {
                // A gRPC call's HTTP status is 200 whatever its outcome: its status is grpc-status.
                match response
                    .headers
                    .iter()
                    .find(|(k, _)| k.eq_ignore_ascii_case("grpc-status"))
                {
                    Some((_, code)) => {
                        let _ = writeln!(out, "< grpc-status {code} ({} ms)", exchange.elapsed_ms);
                    }
                    None => {
                        let _ = writeln!(out, "< {} ({} ms)", response.status, exchange.elapsed_ms);
                    }
                }
                for (name, value) in &response.headers {
                    let _ = writeln!(out, "< {name}: {value}");
                }
                push_body(&mut out, &response.body, caps);
            }
            None => {
                let _ = writeln!(out, "< no response ({} ms)", exchange.elapsed_ms);
            }
        }
        for event in &exchange.events {
            let name = event.event.as_deref().unwrap_or("event");
            let data = event_text(&event.data).replace('\n', " ");
            let (shown, was_cut) = cut(&data, caps.body);
            let _ = writeln!(
                out,
                "  +{} ms {name}: {shown}{}",
                event.at_ms,
                if was_cut { " [cut]" } else { "" }
            );
        }
        if let Some(note) = dropped_note(exchange) {
            let _ = writeln!(out, "{note}");
        }
        if let Some(error) = &exchange.error {
            let _ = writeln!(out, "! {error}");
        }
    }
    let (shown, was_cut) = cut(&out, caps.total);
    if was_cut {
        format!(
            "{shown}\n[evidence cut here: {} bytes in all; the JSON report (--report) keeps it whole]\n",
            out.len()
        )
    } else {
        out
    }
}
