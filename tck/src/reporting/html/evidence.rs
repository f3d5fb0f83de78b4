//! Wire evidence as HTML: requests, responses and stream events with their arrival times,
//! held to a page budget. Everything the agent sent goes through [`Budget::take`], so a
//! hostile or huge answer cannot make the page unbounded; each cut says so where it happens.

use maud::{html, Markup};

use crate::exchange::evidence::{Exchange, RecordedBody};
use crate::reporting::evidence_text::{body_note, body_text, cut, dropped_note, event_text};

/// Bytes of one body, header block or event shown.
pub const BODY_CAP: usize = 16 * 1024;
/// Bytes of evidence shown for one result.
pub const RESULT_CAP: usize = 96 * 1024;
/// Bytes of evidence shown in the whole page.
pub const PAGE_CAP: usize = 3 * 1024 * 1024;

/// What is left to show, for the page and for the result being rendered.
#[derive(Debug)]
pub struct Budget {
    page: usize,
    result: usize,
    /// How many cuts were made; the page says so at its top when any was.
    pub cuts: usize,
}

impl Default for Budget {
    fn default() -> Self {
        Budget {
            page: PAGE_CAP,
            result: 0,
            cuts: 0,
        }
    }
}

impl Budget {
    /// Starts the share of one result.
    fn start_result(&mut self) {
        self.result = RESULT_CAP.min(self.page);
    }

    fn spent(&self) -> bool {
        self.result == 0
    }

    /// As much of `text` as the budget allows, and whether it was cut.
    fn take(&mut self, text: &str) -> (String, bool) {
        let (shown, was_cut) = cut(text, BODY_CAP.min(self.result));
        self.result -= shown.len();
        self.page -= shown.len();
        if was_cut {
            self.cuts += 1;
        }
        (shown.to_string(), was_cut)
    }
}

fn cut_note(was_cut: bool, total: usize) -> Markup {
    html! {
        @if was_cut {
            p.cut { "Cut here for size: " (total) " bytes in all; the JSON report keeps it whole." }
        }
    }
}

fn block(budget: &mut Budget, text: &str) -> Markup {
    let (shown, was_cut) = budget.take(text);
    html! {
        pre { (shown) }
        (cut_note(was_cut, text.len()))
    }
}

fn headers(budget: &mut Budget, headers: &[(String, String)]) -> Markup {
    if headers.is_empty() {
        return html! {};
    }
    let text: String = headers
        .iter()
        .map(|(name, value)| format!("{name}: {value}\n"))
        .collect();
    html! { div.headers { (block(budget, &text)) } }
}

fn body(budget: &mut Budget, body: &RecordedBody) -> Markup {
    html! {
        @if let Some(text) = body_text(body) {
            (block(budget, &text))
        }
        @if let Some(note) = body_note(body) {
            p.cut { (note) }
        }
    }
}

/// The gRPC status of a call's recorded answer (its HTTP status is 200 whatever it is).
fn grpc_status(headers: &[(String, String)]) -> Option<&str> {
    headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("grpc-status"))
        .map(|(_, v)| v.as_str())
}

/// ` (NOT_FOUND)`: the name of a bare gRPC status code (the kit records `5 NOT_FOUND`,
/// which names itself).
fn grpc_name(code: &str) -> String {
    const NAMES: [&str; 17] = [
        "OK",
        "CANCELLED",
        "UNKNOWN",
        "INVALID_ARGUMENT",
        "DEADLINE_EXCEEDED",
        "NOT_FOUND",
        "ALREADY_EXISTS",
        "PERMISSION_DENIED",
        "RESOURCE_EXHAUSTED",
        "FAILED_PRECONDITION",
        "ABORTED",
        "OUT_OF_RANGE",
        "UNIMPLEMENTED",
        "INTERNAL",
        "UNAVAILABLE",
        "DATA_LOSS",
        "UNAUTHENTICATED",
    ];
    code.parse::<usize>()
        .ok()
        .and_then(|n| NAMES.get(n))
        .map_or_else(String::new, |name| format!(" ({name})"))
}

fn exchange(budget: &mut Budget, exchange: &Exchange) -> Markup {
    let request = &exchange.request;
    html! {
        div.exchange {
            h4.request { "→ " (request.method) " " span.url { (request.url) } }
            (headers(budget, &request.headers))
            @if let Some(sent) = &request.body { (body(budget, sent)) }
            @match &exchange.response {
                Some(response) => {
                    @if let Some(code) = grpc_status(&response.headers) {
                        h4.response {
                            @if code == "stream" { "← gRPC stream" }
                            @else { "← grpc-status " (code) (grpc_name(code)) }
                            " after " (exchange.elapsed_ms) " ms"
                        }
                    } @else {
                        h4.response { "← " (response.status) " after " (exchange.elapsed_ms) " ms" }
                    }
                    (headers(budget, &response.headers))
                    (body(budget, &response.body))
                }
                None => {
                    h4.response { "← no response after " (exchange.elapsed_ms) " ms" }
                }
            }
            @if !exchange.events.is_empty() {
                table.events {
                    thead { tr { th { "arrived" } th { "event" } th { "data" } } }
                    tbody {
                        @for event in &exchange.events {
                            tr {
                                td.num { "+" (event.at_ms) " ms" }
                                td { (event.event.as_deref().unwrap_or("")) }
                                td {
                                    (block(budget, &event_text(&event.data)))
                                    @if let Some(note) = body_note(&event.data) { p.cut { (note) } }
                                }
                            }
                        }
                    }
                }
            }
            @if let Some(note) = dropped_note(exchange) { p.cut { (note) } }
            @if let Some(error) = &exchange.error {
                p.error { "Did not complete: " (budget.take(error).0) }
            }
        }
    }
}

/// The exchanges of one result, within the result's share of the page budget.
pub fn exchanges(budget: &mut Budget, exchanges: &[Exchange]) -> Markup {
    budget.start_result();
    if budget.spent() && !exchanges.is_empty() {
        budget.cuts += 1;
        return html! {
            p.cut {
                (exchanges.len()) " exchange(s) not shown: the page's evidence budget is spent. "
                "The JSON report keeps them."
            }
        };
    }
    let mut shown = Vec::new();
    for (index, recorded) in exchanges.iter().enumerate() {
        if budget.spent() {
            budget.cuts += 1;
            let left = exchanges.len() - index;
            shown.push(html! {
                p.cut { (left) " more exchange(s) not shown for size. The JSON report keeps them." }
            });
            break;
        }
        shown.push(exchange(budget, recorded));
    }
    html! { @for part in shown { (part) } }
}
