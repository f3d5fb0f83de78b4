//! Agent card checks (`card.*`): discovery, required fields, declared interfaces, caching
//! (spec 1.0 §4.4, §8).

pub mod last_modified;
use crate::suite::check::Needs;
use serde_json::Value;

use super::setup::verdict_from;
use crate::exchange::card::{self, WELL_KNOWN_PATH};
use crate::exchange::wire::Request;
use crate::facts::a2a;
use crate::suite::check::{Binding, Check, HarnessError, Level, Scope, SpecRef, Verdict};
use crate::suite::ctx::Ctx;

/// The id prefix of every check in this module.
pub const PREFIX: &str = "card";

/// This module's checks, in spec order.
pub fn checks() -> Vec<Check> {
    vec![
        Check {
            id: "card.discovery.served-at-well-known-path",
            level: Level::Must,
            spec: SpecRef {
                version: "1.0",
                section: "8.2",
                statements: &["V10-8.1-01", "V10-14.3-01", "V03-5.1-01"],
            },
            requirement: "What is served at /.well-known/agent-card.json is the agent's AgentCard",
            scope: Scope::Card,
            requires: &[],
            maps_to: &["CARD-DISC-001"],
            acts: &["CARD-DISC-001"],
            reading: Some(
                "§8.2 names the well-known URI as one way to publish a card among others (direct \
                 configuration, registries); §14.3 binds what is served there. So when the card \
                 was read from --card-url and the well-known URI answers 404, the check is N/A.",
            ),
            needs: Needs::NONE,
            run: |ctx| Box::pin(served_at_well_known_path(ctx)),
        },
        Check {
            id: "card.fields.required-present",
            level: Level::Must,
            spec: SpecRef {
                version: "1.0",
                section: "5.7",
                statements: &["V10-5.7-02", "V10-5.7-04", "V10-P-19", "V03-11.1.1-02"],
            },
            requirement: "The card carries every REQUIRED field of AgentCard, and of each skill",
            scope: Scope::Card,
            requires: &[],
            maps_to: &["CARD-STRUCT-001", "CARD-PROTO-001"],
            acts: &["CARD-DISC-001", "CARD-DISC-003", "CARD-DISC-004", "CARD-DISC-005", "CARD-DISC-007", "CARD-SCHEMA-001"],
            reading: Some(
                "§5.7 asks REQUIRED arrays to be non-empty, but the spec's own example card has \
                 `skills: []`, and ProtoJSON omits an empty list: this check accepts `skills` \
                 empty or absent. supportedInterfaces, defaultInputModes and defaultOutputModes \
                 must be non-empty. A `provider`, when present, needs url and organization.",
            ),
            needs: Needs::NONE,
            run: |ctx| Box::pin(required_fields(ctx)),
        },
        Check {
            id: "card.interfaces.declare-binding-url-version",
            level: Level::Must,
            spec: SpecRef {
                version: "1.0",
                section: "8.3.1",
                statements: &["V10-8.3-01", "V10-8.3.1-02"],
            },
            requirement: "Every supportedInterfaces entry declares its protocolBinding, an absolute url and its protocolVersion",
            scope: Scope::Card,
            requires: &[],
            maps_to: &["CARD-PROTO-002"],
            acts: &["CARD-DISC-002", "CARD-DISC-007", "CARD-SCHEMA-001"],
            reading: Some(
                "For GRPC the url may be `host:port` (proto comment); every other binding needs an \
                 absolute URL.",
            ),
            needs: Needs::NONE,
            run: |ctx| Box::pin(interfaces_declared(ctx)),
        },
        Check {
            id: "card.interfaces.version-is-major-minor",
            level: Level::Should,
            spec: SpecRef {
                version: "1.0",
                section: "3.6",
                statements: &["V10-3.6-01"],
            },
            requirement: "Interface protocolVersion values are Major.Minor, without a patch number",
            scope: Scope::Card,
            requires: &[],
            maps_to: &[],
            acts: &[],
            reading: None,
            needs: Needs::NONE,
            run: |ctx| Box::pin(version_major_minor(ctx)),
        },
        Check {
            id: "card.interfaces.version-is-known",
            level: Level::Should,
            spec: SpecRef {
                version: "1.0",
                section: "3.6",
                statements: &["V10-D-3.6-01"],
            },
            requirement: "Every interface's protocolVersion names a version of A2A: 1.0 or 0.3 (a patch number allowed)",
            scope: Scope::Card,
            requires: &[],
            maps_to: &[],
            acts: &[],
            reading: Some(
                "A protocol version is the Major.Minor of an A2A specification version (§3.6; \
                 the proto's examples are \"0.3\" and \"1.0\"); the kit knows 0.3 and 1.0 and \
                 takes 1.0.x and 0.3.x as those. Any other value names no version the kit can \
                 test or a client can choose the interface by. A version published after this \
                 kit would look the same, so this is WARN, never FAIL. An absent or empty \
                 protocolVersion is judged by card.interfaces.declare-binding-url-version.",
            ),
            needs: Needs::NONE,
            run: |ctx| Box::pin(version_known(ctx)),
        },
        Check {
            id: "card.media-type-json",
            level: Level::Must,
            spec: SpecRef {
                version: "1.0",
                section: "14.3",
                statements: &["V10-14.3-01", "V10-D-8.1-01"],
            },
            requirement: "The card is served with a JSON media type (application/json, or an application/*+json type)",
            scope: Scope::Card,
            requires: &[],
            maps_to: &[],
            acts: &[],
            reading: Some(
                "No sentence with a keyword names the card's media type: §14.3 says the resource \
                 MUST return an AgentCard object, and the card is a JSON document the server \
                 returns as a JSON response (§8.1, topics/agent-discovery.md). This check \
                 takes that as a JSON media type: application/json with any parameters \
                 (charset), or any application/*+json type (the RFC 6839 +json suffix, e.g. \
                 application/a2a+json, the type A2A registers in §14.1), since each tells a \
                 client the body is JSON. text/html, text/plain, other types or no \
                 Content-Type do not, whatever the body holds.",
            ),
            needs: Needs::NONE,
            run: |ctx| Box::pin(media_type_json(ctx)),
        },
        Check {
            id: "card.caching.cache-control-max-age",
            level: Level::Should,
            spec: SpecRef {
                version: "1.0",
                section: "8.6.1",
                statements: &["V10-8.6-01", "V10-8.6.1-01"],
            },
            requirement: "The card endpoint sends Cache-Control with a max-age directive",
            scope: Scope::Card,
            requires: &[],
            maps_to: &["CARD-CACHE-001"],
            acts: &["CARD-CACHE-001"],
            reading: None,
            needs: Needs::NONE,
            run: |ctx| Box::pin(cache_control(ctx)),
        },
        Check {
            id: "card.caching.etag",
            level: Level::Should,
            spec: SpecRef {
                version: "1.0",
                section: "8.6.1",
                statements: &["V10-8.6-01", "V10-8.6.1-02"],
            },
            requirement: "The card endpoint sends an ETag header",
            scope: Scope::Card,
            requires: &[],
            maps_to: &["CARD-CACHE-002"],
            acts: &["CARD-CACHE-001"],
            reading: None,
            needs: Needs::NONE,
            run: |ctx| Box::pin(etag(ctx)),
        },
    ]
}

async fn served_at_well_known_path(ctx: Ctx) -> Result<Verdict, HarnessError> {
    // The well-known path on the origin of the card URL, whatever --card-url said.
    let url =
        card::card_url_for(&ctx.card.url).map_err(|e| HarnessError::Internal(e.to_string()))?;
    debug_assert!(url.ends_with(WELL_KNOWN_PATH));
    // Asked for as the card under judgement was: with its A2A-Version, if any.
    let mut headers = vec![("accept", "application/json".into())];
    if let Some(version) = ctx.card.a2a_version {
        headers.push(("a2a-version", version.as_str().to_string()));
    }
    let reply = ctx
        .wire
        .send(Request {
            method: reqwest::Method::GET,
            url: &url,
            headers,
            body: None,
        })
        .await?;
    if matches!(reply.status, 404 | 410) && ctx.card.url != url {
        return Ok(Verdict::NotApplicable {
            reason: format!(
                "nothing is served at {url}; the card was read from {} (the well-known URI is one \
                 of several ways to publish a card, §8.2)",
                ctx.card.url
            ),
        });
    }
    let expected = format!(
        "HTTP 200 with an AgentCard (a JSON object with name and supportedInterfaces) at {url}"
    );
    if (300..400).contains(&reply.status) {
        // A redirect is not followed silently; one that leads to the card is a way to serve it.
        let location = reply.header("location").unwrap_or("");
        let target = reqwest::Url::parse(&url).and_then(|base| base.join(location));
        if target.as_ref().map(|t| t.as_str()) == Ok(ctx.card.url.as_str()) {
            return Ok(Verdict::pass_with(format!(
                "redirects to the card at {location}"
            )));
        }
        return Ok(Verdict::fail(
            expected,
            format!(
                "HTTP {} redirecting to {location:?}, not to the card",
                reply.status
            ),
        ));
    }
    if reply.status != 200 {
        return Ok(Verdict::fail(expected, format!("HTTP {}", reply.status)));
    }
    match reply.json() {
        Some(card @ Value::Object(_))
            if card.get("name").is_some()
                && (card.get("supportedInterfaces").is_some()
                    || only_0_3(&card, ctx.card.assumed_version)) =>
        {
            Ok(Verdict::pass())
        }
        Some(other) => Ok(Verdict::fail(
            expected,
            format!(
                "JSON that is not an AgentCard: {}",
                crate::facts::a2a::brief(&other, 120)
            ),
        )),
        None => Ok(Verdict::fail(
            expected,
            format!("a body that is not JSON: {}", reply.body_start(120)),
        )),
    }
}

/// Problems with one required field, or none.
fn field_problem(object: &Value, field: &str, kind: Kind) -> Option<String> {
    let value = match object.get(field) {
        None | Some(Value::Null) => return Some(format!("`{field}` is missing")),
        Some(v) => v,
    };
    let ok = match kind {
        Kind::Text => value.as_str().is_some_and(|s| !s.is_empty()),
        Kind::Object => value.is_object(),
        Kind::List => value.is_array(),
        Kind::NonEmptyList => value.as_array().is_some_and(|a| !a.is_empty()),
    };
    (!ok).then(|| {
        format!(
            "`{field}` is not {}: {}",
            kind.describe(),
            crate::facts::a2a::brief(value, 80)
        )
    })
}

#[derive(Clone, Copy)]
enum Kind {
    Text,
    Object,
    List,
    NonEmptyList,
}

impl Kind {
    fn describe(self) -> &'static str {
        match self {
            Kind::Text => "a non-empty string",
            Kind::Object => "an object",
            Kind::List => "an array",
            Kind::NonEmptyList => "a non-empty array",
        }
    }
}

/// A card of 0.3 only: no `supportedInterfaces`, a 0.3 `protocolVersion` and a `url` (spec
/// notes §2.5; or none, read as 0.3 under `--assume-version 0.3`). Its interfaces are read from
/// `url`, `preferredTransport` and `additionalInterfaces`, and the 0.3 rules apply to it.
fn only_0_3(card: &Value, assumed: Option<crate::suite::check::ProtocolVersion>) -> bool {
    card.get("supportedInterfaces").is_none()
        && card.get("url").is_some()
        && card::top_level_version(card, assumed)
            == Some(crate::suite::check::ProtocolVersion::V0_3)
}

async fn required_fields(ctx: Ctx) -> Result<Verdict, HarnessError> {
    card::record(ctx.wire.recorder(), &ctx.card);
    let card = &ctx.card.json;
    // A 0.3 card carries `url` and `protocolVersion` where 1.0 has `supportedInterfaces`.
    let locators: &[(&str, Kind)] = if only_0_3(card, ctx.card.assumed_version) {
        &[("protocolVersion", Kind::Text), ("url", Kind::Text)]
    } else {
        &[("supportedInterfaces", Kind::NonEmptyList)]
    };
    let mut problems: Vec<String> = [
        ("name", Kind::Text),
        ("description", Kind::Text),
        ("version", Kind::Text),
        ("capabilities", Kind::Object),
        ("defaultInputModes", Kind::NonEmptyList),
        ("defaultOutputModes", Kind::NonEmptyList),
    ]
    .into_iter()
    .chain(locators.iter().copied())
    .filter_map(|(field, kind)| field_problem(card, field, kind))
    .collect();
    if card.get("skills").is_some() {
        problems.extend(field_problem(card, "skills", Kind::List));
    }
    if let Some(provider) = card.get("provider") {
        for field in ["url", "organization"] {
            if let Some(p) = field_problem(provider, field, Kind::Text) {
                problems.push(format!("provider: {p}"));
            }
        }
    }
    for (i, skill) in a2a::items(card, "skills").enumerate() {
        for (field, kind) in [
            ("id", Kind::Text),
            ("name", Kind::Text),
            ("description", Kind::Text),
            ("tags", Kind::NonEmptyList),
        ] {
            if let Some(p) = field_problem(skill, field, kind) {
                problems.push(format!("skills[{i}]: {p}"));
            }
        }
    }
    Ok(verdict_from(
        problems,
        "every REQUIRED AgentCard and AgentSkill field present",
    ))
}

fn interfaces(ctx: &Ctx) -> Vec<Value> {
    ctx.card
        .json
        .get("supportedInterfaces")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default()
}

async fn interfaces_declared(ctx: Ctx) -> Result<Verdict, HarnessError> {
    card::record(ctx.wire.recorder(), &ctx.card);
    if only_0_3(&ctx.card.json, ctx.card.assumed_version) {
        return Ok(interfaces_0_3(&ctx.card.json));
    }
    let entries = interfaces(&ctx);
    if entries.is_empty() {
        return Ok(Verdict::fail(
            "a non-empty supportedInterfaces",
            "no supportedInterfaces",
        ));
    }
    let mut problems = Vec::new();
    for (i, entry) in entries.iter().enumerate() {
        let binding = field_problem(entry, "protocolBinding", Kind::Text);
        let version = field_problem(entry, "protocolVersion", Kind::Text);
        problems.extend(
            binding
                .iter()
                .chain(version.iter())
                .map(|p| format!("supportedInterfaces[{i}]: {p}")),
        );
        let binding = entry
            .get("protocolBinding")
            .and_then(Value::as_str)
            .and_then(Binding::from_card);
        match entry.get("url").and_then(Value::as_str) {
            None | Some("") => problems.push(format!("supportedInterfaces[{i}]: `url` is missing")),
            Some(url) => {
                if !card::usable_url(binding, url) {
                    problems.push(format!(
                        "supportedInterfaces[{i}]: url {url:?} is not an absolute URL"
                    ));
                }
            }
        }
    }
    Ok(verdict_from(
        problems,
        "every interface with protocolBinding, absolute url and protocolVersion",
    ))
}

/// A 0.3 card's interfaces: `url` (of `preferredTransport`, JSONRPC by default) and each
/// `additionalInterfaces` entry with a `url` and a `transport`.
fn interfaces_0_3(card: &Value) -> Verdict {
    let absolute =
        |url: &str, transport: &str| card::usable_url(Binding::from_card(transport), url);
    let mut problems = Vec::new();
    let preferred = card
        .get("preferredTransport")
        .and_then(Value::as_str)
        .unwrap_or("JSONRPC");
    let url = card.get("url").and_then(Value::as_str).unwrap_or("");
    if !absolute(url, preferred) {
        problems.push(format!("url {url:?} is not an absolute URL"));
    }
    for (i, entry) in a2a::items(card, "additionalInterfaces").enumerate() {
        let transport = entry.get("transport").and_then(Value::as_str).unwrap_or("");
        if transport.is_empty() {
            problems.push(format!("additionalInterfaces[{i}]: `transport` is missing"));
        }
        let url = entry.get("url").and_then(Value::as_str).unwrap_or("");
        if !absolute(url, transport) {
            problems.push(format!(
                "additionalInterfaces[{i}]: url {url:?} is not an absolute URL"
            ));
        }
    }
    verdict_from(
        problems,
        "a 0.3 card: an absolute url, and a url and transport on each additional interface",
    )
}

/// The N/A of a check of interface versions on a card none of whose interfaces declares one.
fn no_declared_version() -> Verdict {
    Verdict::NotApplicable {
        reason: "no supportedInterfaces entry declares a protocolVersion: nothing to judge \
                 (a card without supportedInterfaces, or interfaces without a version, are \
                 judged by card.interfaces.declare-binding-url-version)"
            .into(),
    }
}

/// The interfaces of the card that declare a non-empty protocolVersion, with their index.
fn declared_versions(ctx: &Ctx) -> Vec<(usize, Value, String)> {
    (interfaces(ctx).into_iter().enumerate())
        .filter_map(|(i, entry)| {
            let version = entry
                .get("protocolVersion")
                .and_then(Value::as_str)
                .filter(|v| !v.trim().is_empty())?
                .to_string();
            Some((i, entry, version))
        })
        .collect()
}

async fn version_major_minor(ctx: Ctx) -> Result<Verdict, HarnessError> {
    card::record(ctx.wire.recorder(), &ctx.card);
    let declared = declared_versions(&ctx);
    if declared.is_empty() {
        return Ok(no_declared_version());
    }
    let problems: Vec<String> = declared
        .iter()
        .filter_map(|(i, _, version)| {
            let parts: Vec<&str> = version.split('.').collect();
            let ok = parts.len() == 2
                && parts
                    .iter()
                    .all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit()));
            (!ok).then(|| format!("supportedInterfaces[{i}].protocolVersion is {version:?}"))
        })
        .collect();
    Ok(if problems.is_empty() {
        Verdict::pass_with(format!("{} interface version(s) judged", declared.len()))
    } else {
        verdict_from(problems, "protocolVersion values like \"1.0\"")
    })
}

/// Whether `media` (lowercase, parameters dropped) is a JSON media type: application/json,
/// or an application type with the RFC 6839 `+json` suffix.
fn is_json_media_type(media: &str) -> bool {
    media == "application/json"
        || media
            .strip_prefix("application/")
            .and_then(|subtype| subtype.strip_suffix("+json"))
            .is_some_and(|name| !name.is_empty() && !name.contains('/'))
}

async fn media_type_json(ctx: Ctx) -> Result<Verdict, HarnessError> {
    card::record(ctx.wire.recorder(), &ctx.card);
    let reply = &ctx.card.reply;
    let expected = "Content-Type application/json (parameters allowed) or application/*+json";
    let header = reply.header("content-type").map(str::to_string);
    Ok(match reply.media_type() {
        Some(media) if is_json_media_type(&media) => {
            Verdict::pass_with(format!("Content-Type: {}", header.unwrap_or(media)))
        }
        Some(_) => Verdict::fail(
            expected,
            format!("Content-Type: {}", header.unwrap_or_default()),
        ),
        None => Verdict::fail(expected, "no Content-Type header"),
    })
}

async fn version_known(ctx: Ctx) -> Result<Verdict, HarnessError> {
    card::record(ctx.wire.recorder(), &ctx.card);
    let declared = declared_versions(&ctx);
    if declared.is_empty() {
        return Ok(no_declared_version());
    }
    let problems: Vec<String> = declared
        .iter()
        .filter(|(_, _, version)| {
            crate::suite::check::ProtocolVersion::from_declared(version).is_none()
        })
        .map(|(i, entry, version)| {
            format!(
                "supportedInterfaces[{i}] ({} at {}) declares protocolVersion {version:?}, \
                 which is neither 1.0 nor 0.3",
                a2a::shown(entry.get("protocolBinding").and_then(Value::as_str)),
                a2a::shown(entry.get("url").and_then(Value::as_str)),
            )
        })
        .collect();
    Ok(if problems.is_empty() {
        Verdict::pass_with(format!("{} interface version(s) judged", declared.len()))
    } else {
        verdict_from(problems, "every interface's protocolVersion is 1.0 or 0.3")
    })
}

async fn cache_control(ctx: Ctx) -> Result<Verdict, HarnessError> {
    card::record(ctx.wire.recorder(), &ctx.card);
    let expected = "a Cache-Control header with max-age=<seconds>";
    match ctx.card.reply.header("cache-control") {
        None => Ok(Verdict::fail(expected, "no Cache-Control header")),
        Some(value) => {
            let has_max_age = value.split(',').any(|directive| {
                directive
                    .trim()
                    .to_ascii_lowercase()
                    .strip_prefix("max-age=")
                    .is_some_and(|n| n.trim_matches('"').parse::<u64>().is_ok())
            });
            if has_max_age {
                Ok(Verdict::pass_with(format!("Cache-Control: {value}")))
            } else {
                Ok(Verdict::fail(expected, format!("Cache-Control: {value}")))
            }
        }
    }
}

async fn etag(ctx: Ctx) -> Result<Verdict, HarnessError> {
    card::record(ctx.wire.recorder(), &ctx.card);
    match ctx.card.reply.header("etag") {
        Some(value) if !value.trim().is_empty() => Ok(Verdict::pass_with("ETag present")),
        _ => Ok(Verdict::fail("an ETag header", "no ETag header")),
    }
}

#[cfg(test)]
mod tests {
    use super::is_json_media_type;

    #[test]
    fn json_media_types() {
        for ok in [
            "application/json",
            "application/a2a+json",
            "application/vnd.x+json",
        ] {
            assert!(is_json_media_type(ok), "{ok}");
        }
        for bad in [
            "text/html",
            "text/plain",
            "text/json",
            "application/+json",
            "application/xml",
            "",
        ] {
            assert!(!is_json_media_type(bad), "{bad}");
        }
    }
}
