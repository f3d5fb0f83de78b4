//! The judges of the plays on cards, credentials and versions that clients met in the field: a
//! card whose first interface is of a binding the client does not speak, a card missing a
//! REQUIRED field, a bearer token given where the card asks for none or whose card is on
//! another origin than its interfaces, a task that asks for authorization, an interface that
//! refuses the client's version, and a card that must not be reused without asking again.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::facts::model::Binding;

use super::super::calls::Call;
use super::super::plays::binding_name;
use super::super::stage::{card_etag, Door};
use super::{
    adapter_failed, broken, card_not_given, kept, kit_error, state_name, untestable, Judged,
    Observed,
};

/// Why there is nothing to judge: the adapter failed (ERROR), or the client did not do it.
fn nothing(seen: &Observed, what: &str) -> Judged {
    match &seen.outcome.failure {
        Some(failure) => adapter_failed(failure),
        None => untestable(format!(
            "the client made no {what}, so there is nothing to judge"
        )),
    }
}

/// The line of step `i` of the play, or why there is none (a step not asked of a client whose
/// API lacks its call has none).
fn line<'a>(seen: &'a Observed, i: usize) -> Result<&'a Value, Judged> {
    seen.line(i)
}

/// The error of a line, as `kind: message`.
fn error_in(line: &Value) -> Option<String> {
    let error = line.get("error").filter(|e| !e.is_null())?;
    let message = error["message"].as_str().unwrap_or("");
    let message: String = message.chars().take(200).collect();
    Some(format!(
        "{}: {message}",
        error["kind"].as_str().unwrap_or("?")
    ))
}

fn operations<'a>(seen: &'a Observed) -> impl Iterator<Item = &'a Call> {
    seen.calls.iter().filter(|c| c.is_operation())
}

/// The binding the card lists first (its spelling).
fn first_binding(card: &Value) -> String {
    card["supportedInterfaces"][0]["protocolBinding"]
        .as_str()
        .or_else(|| card["preferredTransport"].as_str())
        .unwrap_or("")
        .to_owned()
}

/// `client.interface.unspoken-first-skipped`: the card lists first, at the failing door, an
/// interface of a binding the client does not declare; the client uses the next one.
pub(crate) fn unspoken_skipped(seen: &Observed) -> Judged {
    let unspoken = first_binding(seen.card);
    let there: Vec<&Call> = (seen.calls.iter())
        .filter(|c| c.door() == Door::Dead && !c.card_fetch)
        .collect();
    let spoke_it = |c: &&Call| c.binding.map(binding_name) == Some(unspoken.as_str());
    let wrong: Vec<String> = (there.iter())
        .filter(|c| !spoke_it(c))
        .map(|c| {
            format!(
                "{} ({})",
                c.brief(),
                c.binding
                    .map_or("a request the kit cannot place", Binding::title)
            )
        })
        .collect();
    if !wrong.is_empty() {
        return broken(format!(
            "the card's first interface is {unspoken}, a binding the client does not declare; \
             the client sent there: {}",
            wrong.join("; ")
        ));
    }
    if let Some(call) = there.first() {
        return untestable(format!(
            "the client spoke {unspoken} to the card's first interface ({}), a binding its \
             adapter does not declare: it speaks it after all, so the card offered it no \
             interface to skip",
            call.brief()
        ));
    }
    match operations(seen).next() {
        Some(first) if first.door() == Door::Main => kept(format!(
            "the card lists a {unspoken} interface first; the client skipped it and used the \
             first {} interface",
            seen.binding.title()
        )),
        Some(first) => kit_error(format!(
            "a request came through a door this play's card does not list: {}",
            first.brief()
        )),
        None => refused_over_first(seen, &unspoken).unwrap_or_else(|| nothing(seen, "A2A request")),
    }
}

/// A client that received the card, sent nothing, and refused it naming its first interface's
/// address as the reason: it did not use the first interface it supports (1.0 §8.3.2). Only
/// the client's own words tie the refusal to that interface: a refusal for any other reason,
/// or one that names no address, leaves the play unjudged.
fn refused_over_first(seen: &Observed, unspoken: &str) -> Option<Judged> {
    if card_not_given(seen, "", false).is_some() {
        return None;
    }
    let url = (seen.card["supportedInterfaces"][0]["url"].as_str())
        .or_else(|| seen.card["url"].as_str())?;
    // A URL is named whole: its host and port are the card's too when it is a path of the
    // card's listener. A gRPC address (host:port) is a listener of its own.
    // The whole message is searched (a client's may be long); the verdict shows its start.
    let said = (seen.outcome.lines.iter())
        .filter(|line| (line["error"]["message"].as_str()).is_some_and(|m| m.contains(url)))
        .find_map(error_in)?;
    Some(broken(format!(
        "the client received the card and refused it over its first interface, {unspoken} at \
         {url}, a binding it does not declare ({said}); it made no request on the {} interface \
         listed next, the first it supports (1.0 §8.3.2: the first supported interface)",
        seen.binding.title()
    )))
}

/// `client.card.invalid-refused`: the card lacks a REQUIRED field; the client's card read fails.
pub(crate) fn invalid_refused(seen: &Observed) -> Judged {
    let field = seen.play.card.without.as_deref().unwrap_or("?");
    let line = match line(seen, 0) {
        Ok(line) => line,
        Err(judged) => return judged,
    };
    if let Some(judged) = card_not_given(seen, "refuses a card that lacks a REQUIRED field", false)
    {
        return judged;
    }
    match error_in(line) {
        Some(error) => kept(format!(
            "the card lacks its REQUIRED field {field}; the client refused it ({error})"
        )),
        None => broken(format!(
            "the card lacks its REQUIRED field {field}, and the client read it as a card: {}",
            line.to_string().chars().take(200).collect::<String>()
        )),
    }
}

/// The requests that carry the play's token, in any header.
fn carrying<'a>(seen: &'a Observed) -> Vec<&'a Call> {
    let Some(token) = seen.truth.bearer.as_deref().filter(|t| !t.is_empty()) else {
        return Vec::new();
    };
    (seen.calls.iter())
        .filter(|c| c.seen.headers.iter().any(|(_, v)| v.contains(token)))
        .collect()
}

/// `client.credentials.unasked-withheld`: the card declares no security; the client, given a
/// token, sends it nowhere.
pub(crate) fn unasked_withheld(seen: &Observed) -> Judged {
    let sent: Vec<String> = carrying(seen).iter().map(|c| c.brief()).collect();
    if !sent.is_empty() {
        return broken(format!(
            "the card declares no security scheme; the client sent the token it holds with: {}",
            sent.join("; ")
        ));
    }
    let count = operations(seen).count();
    if count == 0 {
        return nothing(seen, "A2A request");
    }
    kept(format!(
        "the card declares no security scheme; none of the client's {count} requests carried \
         the token it holds"
    ))
}

/// `client.credentials.other-origin-withheld`: the card (main listener) declares a bearer scheme
/// for interfaces on another origin (the second listener); the token goes only there.
pub(crate) fn other_origin_withheld(seen: &Observed) -> Judged {
    let carrying = carrying(seen);
    let astray: Vec<String> = (carrying.iter())
        .filter(|c| c.door() != Door::Alt)
        .map(|c| c.brief())
        .collect();
    if !astray.is_empty() {
        return broken(format!(
            "the card's interfaces are on another origin than the card; the client sent the \
             interfaces' token to the card's origin with: {}",
            astray.join("; ")
        ));
    }
    let at_interface: Vec<&Call> = operations(seen).filter(|c| c.door() == Door::Alt).collect();
    if at_interface.is_empty() {
        return nothing(seen, "A2A request");
    }
    let with = at_interface
        .iter()
        .filter(|c| carrying.iter().any(|k| std::ptr::eq(*k, **c)))
        .count();
    kept(format!(
        "the token went only to the interfaces' origin ({with} of the {} requests there \
         carried it), never to the card's",
        at_interface.len()
    ))
}

/// The text of what was served for `call`: the body as sent, or for gRPC its first message
/// decoded by the project's proto into JSON.
fn served_text(call: &Call) -> String {
    let served = call.seen.served();
    if call.binding != Some(Binding::Grpc) {
        return String::from_utf8_lossy(&served.body).into_owned();
    }
    let mut parts = call.seen.path.trim_start_matches('/').splitn(2, '/');
    let (service, rpc) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
    let body = &served.body;
    let (Some(method), true) = (a2a_proto::method_in(service, rpc), body.len() >= 5) else {
        return String::new();
    };
    let len = u32::from_be_bytes([body[1], body[2], body[3], body[4]]) as usize;
    let Some(message) = body.get(5..5 + len).filter(|_| body[0] == 0) else {
        return String::new();
    };
    prost_reflect::DynamicMessage::decode(method.output(), message)
        .ok()
        .and_then(|m| a2a_proto::to_json(&m).ok())
        .map(|v| v.to_string())
        .unwrap_or_default()
}

/// Whether what was served for `call` shows the auth-required state.
fn shows_auth_required(call: &Call) -> bool {
    let text = served_text(call).to_ascii_uppercase();
    text.contains("AUTH_REQUIRED") || text.contains("AUTH-REQUIRED")
}

/// `client.auth-required.read`: the task asks for authorization; the client reports that
/// state, and a follow-up continues the task.
pub(crate) fn auth_required(seen: &Observed) -> Judged {
    let sends: Vec<&Call> = (seen.calls.iter())
        .filter(|c| matches!(c.op, Some("SendMessage" | "SendStreamingMessage")))
        .collect();
    let Some(first) = sends.first() else {
        return nothing(seen, "SendMessage request");
    };
    if !shows_auth_required(first) {
        return untestable(format!(
            "the agent's answer to {} did not show the auth-required state",
            first.brief()
        ));
    }
    let line0 = match line(seen, 0) {
        Ok(line) => line,
        Err(judged) => return judged,
    };
    let read = state_name(&line0["state"]);
    if read.as_deref() != Some("auth-required") {
        return broken(format!(
            "the agent's task asked for authorization (auth-required); the client gave {}",
            match error_in(line0) {
                Some(error) => format!("an error ({error})"),
                None => format!("the state {}", line0["state"]),
            }
        ));
    }
    let task = line0["task_id"].as_str().unwrap_or("");
    let continued = seen.line(1).ok().map(|line1| {
        let same = line1["task_id"].as_str() == Some(task);
        let state = state_name(&line1["state"]);
        match (same, state.as_deref(), error_in(line1)) {
            (true, Some("completed"), _) => "; the follow-up continued it to completion".to_owned(),
            (_, _, Some(error)) => format!("; the follow-up gave an error ({error})"),
            _ => format!("; after the follow-up the client gave {}", line1["state"]),
        }
    });
    kept(format!(
        "the client reported the task as auth-required{}",
        continued.unwrap_or_default()
    ))
}

/// Whether the stage's answer to `call` is a refusal (the agent was asked a version it does not
/// speak, so anything but a success is its VersionNotSupportedError).
fn refused(call: &Call) -> bool {
    let served = call.seen.served();
    let grpc_status = (served.headers.iter())
        .find(|(n, _)| n.eq_ignore_ascii_case("grpc-status"))
        .map(|(_, v)| v.trim() != "0");
    let body = String::from_utf8_lossy(&served.body);
    served.status >= 400
        || grpc_status == Some(true)
        || body.contains("-32009")
        || body.contains("VERSION_NOT_SUPPORTED")
}

/// `client.version.refusal-not-retried`: the card's first interface answers every request
/// VersionNotSupportedError; the client does not send the same request there again with the
/// same version.
pub(crate) fn refusal_not_retried(seen: &Observed) -> Judged {
    let at_first: Vec<&Call> = operations(seen)
        .filter(|c| c.door() == Door::Main)
        .collect();
    let Some(first) = at_first.first() else {
        return match operations(seen).next() {
            Some(other) => untestable(format!(
                "the client went to the card's second interface first ({}), so no interface \
                 refused its version",
                other.brief()
            )),
            None => nothing(seen, "A2A request"),
        };
    };
    if !refused(first) {
        return untestable(format!(
            "the first interface did not refuse {} (the stage could not make the agent answer \
             VersionNotSupportedError)",
            first.brief()
        ));
    }
    let mut tries: BTreeMap<(String, String), usize> = BTreeMap::new();
    for call in &at_first {
        let version = call.version_value().unwrap_or_default();
        *tries
            .entry((call.op.unwrap_or("?").to_owned(), version))
            .or_default() += 1;
    }
    let again: Vec<String> = (tries.iter())
        .filter(|(_, n)| **n > 1)
        .map(|((op, version), n)| format!("{op} {n} times with A2A-Version {version:?}"))
        .collect();
    if !again.is_empty() {
        return broken(format!(
            "the interface answered VersionNotSupportedError, and the client sent it the same \
             request with the same version again: {}",
            again.join("; ")
        ));
    }
    let then = match operations(seen).find(|c| c.door() == Door::Alt) {
        Some(call) => format!(
            "it went on to the card's other interface ({})",
            call.brief()
        ),
        None => match seen.line(0).ok().and_then(error_in) {
            Some(error) => format!("it gave the error ({error})"),
            None => "it did not try again".to_owned(),
        },
    };
    kept(format!(
        "the interface refused the client's version; the client did not repeat the request \
         there: {then}"
    ))
}

/// `client.card.cache-honored`: the card is served `no-cache` with an ETag and changes after its
/// first fetch; the second card read gives the card as it stands.
pub(crate) fn cache_honored(seen: &Observed) -> Judged {
    let (line0, line1) = match (line(seen, 0), line(seen, 1)) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(judged), _) | (_, Err(judged)) => return judged,
    };
    for (i, line) in [line0, line1].iter().enumerate() {
        if let Some(error) = error_in(line) {
            return untestable(format!("card read {} failed ({error})", i + 1));
        }
    }
    let fetches: Vec<&Call> = seen.calls.iter().filter(|c| c.card_fetch).collect();
    let conditional = (fetches.iter())
        .filter(|c| c.seen.header("if-none-match").is_some())
        .count();
    let first_name = seen.card["name"].as_str().unwrap_or("");
    let revised_name = super::super::plays::revised(seen.card)["name"]
        .as_str()
        .unwrap_or("")
        .to_owned();
    let read = line1["name"].as_str().unwrap_or("");
    if read == revised_name {
        return kept(format!(
            "the second read gave the card as it stands ({} fetches, {conditional} of them \
             conditional)",
            fetches.len()
        ));
    }
    if read == first_name {
        return broken(format!(
            "the card was served with Cache-Control: no-cache and ETag {}; it changed after \
             its first fetch, and the client's second read gave the first card ({} fetch(es) \
             of the card in all)",
            card_etag(true),
            fetches.len()
        ));
    }
    untestable(format!(
        "the client's second read gave the name {read:?}, neither the card's first name nor \
         its revised one"
    ))
}
