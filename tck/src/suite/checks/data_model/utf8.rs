//! JSON text encoding (`data-model.*`, spec 1.0 §14.1.1): the JSON the kit reads comes as
//! UTF-8, judged on the bytes themselves before any JSON reader sees them.

use crate::suite::check::Needs;
use serde_json::json;

use crate::exchange::wire::HttpReply;
use crate::suite::check::{Binding, Check, HarnessError, Level, SpecRef, Verdict};
use crate::suite::checks::setup::Findings;
use crate::suite::checks::JSON_1_0;
use crate::suite::ctx::Ctx;

/// This module's checks.
pub fn checks() -> Vec<Check> {
    vec![Check {
        id: "data-model.json-utf-8",
        level: Level::Must,
        spec: SpecRef {
            version: "1.0",
            section: "14.1.1",
            statements: &["V10-14.1.1-01"],
        },
        requirement: "JSON answers (the card, and the interface's answer to a message with non-ASCII text) are UTF-8: no other charset in Content-Type, and valid UTF-8 bytes",
        scope: JSON_1_0,
        requires: &[],
        maps_to: &[],
        acts: &[],
        reading: Some(
            "The bytes are judged as received, before the kit's JSON reader (which takes UTF-8 \
             only, so other checks see such answers as unreadable). A Content-Type without a \
             charset is fine (RFC 8259: JSON has no charset parameter). Bytes that are not \
             UTF-8 FAIL. A charset other than utf-8 on bytes that are valid UTF-8 is only a \
             WARN: the text is UTF-8 as the sentence asks, but the label misleads a client that \
             honours it. The message sent holds non-ASCII text, which a task's history echoes.",
        ),
        needs: Needs::NONE,
        run: |ctx| Box::pin(json_utf8(ctx)),
    }]
}

/// Text with characters beyond ASCII and beyond Latin-1.
const TEXT: &str = "a2a-tck UTF-8: Grüße, café, naïve — 東京 ✓";

/// What is wrong with one answer's encoding, if anything.
fn problems_of(label: &str, http: &HttpReply, findings: &mut Findings) {
    if let Some(content_type) = http.header("content-type") {
        let charset = content_type.split(';').skip(1).find_map(|param| {
            let (name, value) = param.split_once('=')?;
            name.trim()
                .eq_ignore_ascii_case("charset")
                .then(|| value.trim().trim_matches('"').to_string())
        });
        let other =
            charset.filter(|c| !c.eq_ignore_ascii_case("utf-8") && !c.eq_ignore_ascii_case("utf8"));
        if other.is_some() {
            let found = format!("Content-Type {content_type:?}");
            if std::str::from_utf8(&http.body).is_ok() {
                findings.add(
                    label,
                    Verdict::tolerate(
                        "no charset other than utf-8",
                        found,
                        "the bytes are valid UTF-8, as V10-14.1.1-01 asks; only the label names \
                         another charset",
                    ),
                );
            } else {
                findings.problem(format!("{label}: {found}"));
            }
        }
    }
    if let Err(e) = std::str::from_utf8(&http.body) {
        let at = e.valid_up_to();
        let bytes: Vec<String> = http.body[at..http.body.len().min(at + 4)]
            .iter()
            .map(|b| format!("{b:#04x}"))
            .collect();
        findings.problem(format!(
            "{label}: not UTF-8 at byte {at} of {} ({}), after {:?}",
            http.body.len(),
            bytes.join(" "),
            String::from_utf8_lossy(&http.body[at.saturating_sub(40)..at])
        ));
    }
}

async fn json_utf8(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let mut findings = Findings::default();
    problems_of(
        &format!("the card at {}", ctx.card.url),
        &ctx.card.reply,
        &mut findings,
    );
    let mut message = ctx.user_message("tck-complete-task");
    message["parts"] = json!([{ "text": TEXT }]);
    let http = match ctx.binding() {
        Binding::Jsonrpc => {
            ctx.rpc("SendMessage", json!({ "message": message }))
                .await?
                .http
        }
        Binding::Rest => {
            crate::suite::checks::setup::rest::raw(
                &ctx,
                "SendMessage",
                json!({ "message": message }),
            )
            .await?
        }
        Binding::Grpc => {
            return Err(HarnessError::Internal(
                "the UTF-8 check runs on JSON bindings only".into(),
            ))
        }
    };
    problems_of("the SendMessage answer", &http, &mut findings);
    Ok(findings.verdict(
        "UTF-8 JSON: valid UTF-8 bytes and no charset other than utf-8",
        Verdict::pass(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn verdict(content_type: &str, body: &[u8]) -> Verdict {
        let reply = HttpReply {
            status: 200,
            headers: vec![("content-type".into(), content_type.into())],
            body: body.to_vec(),
        };
        let mut findings = Findings::default();
        problems_of("the answer", &reply, &mut findings);
        findings.verdict("UTF-8", Verdict::pass())
    }

    #[test]
    fn utf8_bytes_pass_with_or_without_a_utf8_charset() {
        for content_type in ["application/json", "application/json; charset=UTF-8"] {
            let v = verdict(content_type, "{\"t\":\"café\"}".as_bytes());
            assert!(
                matches!(v, Verdict::Satisfied { .. }),
                "{content_type}: {v:?}"
            );
        }
    }

    #[test]
    fn another_charset_on_utf8_bytes_is_only_a_warning() {
        let v = verdict("application/json; charset=iso-8859-1", b"{\"t\":\"cafe\"}");
        assert!(matches!(v, Verdict::Tolerated { .. }), "{v:?}");
    }

    #[test]
    fn bytes_that_are_not_utf8_fail_whatever_the_label() {
        for content_type in ["application/json", "application/json; charset=iso-8859-1"] {
            let v = verdict(content_type, b"{\"t\":\"caf\xe9\"}");
            assert!(
                matches!(v, Verdict::Violated { .. }),
                "{content_type}: {v:?}"
            );
        }
    }
}
