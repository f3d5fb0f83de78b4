//! Authentication and authorization checks (`auth.*`, spec 1.0 §3.3.2, §7.4, §13.1; 0.3
//! §4.4): when the card declares security requirements, requests without credentials or
//! with wrong ones are refused, in the binding's form and with a challenge, the tasks of
//! one principal are invisible to another (given a second principal's credentials), and a
//! principal without the permission gets an authorization error (given a limited
//! principal's credentials).
//!
//! The credentials are the run's headers (`--header`, `--bearer`): every one of them that is
//! not a protocol header (A2A-Version, A2A-Extensions, ...) counts as a credential, so that
//! a request "without credentials" never carries one by mistake.

use crate::suite::check::{Needs, Profile};
use serde_json::{json, Value};

use super::setup::{task_id, Findings, Setup};
use super::EVERY_BINDING_BOTH;
use crate::exchange::transport::stream::Start;
use crate::facts::model::ProtocolVersion;
use crate::suite::check::{Check, HarnessError, Level, SpecRef, Verdict};
use crate::suite::ctx::Ctx;

mod card_and_task;
mod challenge;
mod isolation;
mod limited;

use super::setup::auth::{in_binding_form, served, with_wrong_credentials, without_credentials};
use card_and_task::{in_task_auth, oauth_urls};
use challenge::challenge;
use isolation::{foreign_task, principals_isolated};
use limited::limited_refused;

/// The id prefix of every check in this module.
pub const PREFIX: &str = "auth";

const STATUS_READING: &str =
    "Refused means: no result. The binding's form (§5.4 error table; 0.3 §4.4) is HTTP 401 \
     for missing or invalid credentials and 403 for a caller without permission, gRPC \
     UNAUTHENTICATED / PERMISSION_DENIED; 0.3 §4.4 allows 401 or 403 for both, so either is \
     accepted on every binding. For JSON-RPC the table says the code is custom and the HTTP \
     status of JSON-RPC errors is not fixed: HTTP 401/403 (any body) passes, and so does a \
     JSON-RPC error in HTTP 200 whose code is not one that means something else (the JSON-RPC \
     standard codes and the A2A codes -32001..-32009).";

/// This module's checks, in spec order.
pub fn checks() -> Vec<Check> {
    vec![
        Check {
            id: "auth.missing-credentials-rejected",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "3.3.2", statements: &["V10-3.3.2-02", "V10-7.4-01", "V10-13.1-02", "V10-13.3-02", "V10-14.1.1-05", "V03-4.4-01", "V03-10.2-02"] },
            requirement: "When the card declares security requirements, SendMessage, SendStreamingMessage, GetTask and ListTasks without credentials are refused",
            scope: EVERY_BINDING_BOTH,
            requires: &[],
            maps_to: &[],
            acts: &["SEC-AUTH-001", "SEC-AUTH-004"],
            reading: Some(
                "Applies when the card declares a security requirement (1.0 securityRequirements \
                 or 0.3 security) with no empty alternative. Every header the kit was given \
                 (--header, --bearer) except protocol headers is left out. Refused means: no \
                 result (any error, any status); the form of the refusal is \
                 auth.rejection-form's. GetTask asks for a task the kit made with credentials, \
                 so a not-found answer cannot hide a served request.",
            ),
            needs: Needs::NONE.on(Profile::Authenticated),
            run: |ctx| Box::pin(missing_rejected(ctx)),
        },
        Check {
            id: "auth.invalid-credentials-rejected",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "3.3.2", statements: &["V10-3.3.2-02", "V10-7.4-01", "V10-13.3-02", "V03-4.4-01", "V03-10.2-02"] },
            requirement: "When the card declares security requirements, the same operations with wrong credentials are refused",
            scope: EVERY_BINDING_BOTH,
            requires: &[],
            maps_to: &[],
            acts: &["SEC-AUTH-001"],
            reading: Some(
                "The wrong credentials are the kit's own with their secret replaced by a random \
                 one (`Bearer tck-invalid-...`; other headers get a random value); without \
                 credentials of its own, the kit makes them from the card's http bearer or \
                 apiKey-in-header scheme.",
            ),
            needs: Needs::NONE.on(Profile::Authenticated),
            run: |ctx| Box::pin(invalid_rejected(ctx)),
        },
        Check {
            id: "auth.rejection-form",
            level: Level::Should,
            spec: SpecRef { version: "1.0", section: "7.4", statements: &["V10-7.4-02", "V03-4.4-02"] },
            requirement: "A request without credentials is refused in the binding's form: HTTP 401/403, gRPC UNAUTHENTICATED/PERMISSION_DENIED",
            scope: EVERY_BINDING_BOTH,
            requires: &[],
            maps_to: &[],
            acts: &["SEC-AUTH-006"],
            reading: Some(STATUS_READING),
            needs: Needs::NONE.on(Profile::Authenticated),
            run: |ctx| Box::pin(rejection_form(ctx)),
        },
        Check {
            id: "auth.challenge",
            level: Level::Should,
            spec: SpecRef { version: "1.0", section: "3.3.2", statements: &["V10-3.3.2-03", "V10-3.3.2-04", "V10-7.4-03", "V03-4.4-03"] },
            requirement: "A refusal for missing credentials carries challenge information naming the scheme (WWW-Authenticate on HTTP)",
            scope: EVERY_BINDING_BOTH,
            requires: &[],
            maps_to: &[],
            acts: &["SEC-AUTH-006"],
            reading: Some(
                "On HTTP (JSON-RPC and REST) a WWW-Authenticate header passes (0.3 §4.4 names \
                 it); so does an error whose text names a scheme the card declares (its name, \
                 or the http scheme such as Bearer). gRPC defines no challenge: \
                 `www-authenticate` metadata passes, and so does a status message or detail \
                 naming the scheme.",
            ),
            needs: Needs::NONE.on(Profile::Authenticated),
            run: |ctx| Box::pin(challenge(ctx)),
        },
        Check {
            id: "auth.principals-isolated",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "13.1", statements: &["V10-3.1.4-06", "V10-13.1-01", "V10-13.1-03", "V10-13.1-04", "V10-13.1-06", "V10-13.1-07", "V10-13.1-08"] },
            requirement: "A task made by one principal is invisible to another: GetTask, ListTasks (with and without contextId), CancelTask and SubscribeToTask of the other principal neither show nor change it",
            scope: super::EVERY_BINDING_1_0,
            requires: &[],
            maps_to: &[],
            acts: &["SEC-AUTH-003"],
            reading: Some(
                "Needs a second principal's credentials (--other-bearer, --other-bearer-env or \
                 --other-header); without them the result is UNTESTABLE, never PASS. The two \
                 principals are taken to be unrelated users: an agent whose authorization \
                 model lets them share tasks (§13.1 leaves the model to the agent) should be \
                 tested with principals that do not. Any error is accepted as a refusal; the \
                 task (a completed one, made by a plain message) must stay as it was.",
            ),
            needs: Needs::NONE.on(Profile::Authenticated),
            run: |ctx| Box::pin(principals_isolated(ctx)),
        },
        Check {
            id: "auth.foreign-task-indistinguishable",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "3.3.2", statements: &["V10-3.3.2-07", "V10-3.3.2-12"] },
            requirement: "GetTask of another principal's task answers as for a task that does not exist (TaskNotFoundError), revealing nothing",
            scope: super::EVERY_BINDING_1_0,
            requires: &[],
            maps_to: &[],
            acts: &["SEC-AUTH-003", "CORE-ERR-009"],
            reading: Some(
                "The answer for another principal's task is compared with the answer for an \
                 unknown id (code, HTTP status, gRPC status, ErrorInfo reason; messages may \
                 differ). §3.3.2 also asks for an authorization error when the caller lacks \
                 permission (V10-3.3.2-05): an authorization error (HTTP 403, gRPC \
                 PERMISSION_DENIED) is therefore tolerated (WARN), not failed. Needs a second \
                 principal, as auth.principals-isolated.",
            ),
            needs: Needs::NONE.on(Profile::Authenticated),
            run: |ctx| Box::pin(foreign_task(ctx)),
        },
        Check {
            id: "auth.limited-principal-refused",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "3.3.2", statements: &["V10-3.3.2-05", "V10-5.4-01", "V10-13.1-02", "V10-14.1.1-05"] },
            requirement: "A caller that authenticates but lacks the permission is refused with the binding's authorization error (HTTP 403, gRPC PERMISSION_DENIED), not as unauthenticated, and its message is not processed",
            scope: super::EVERY_BINDING_1_0,
            requires: &[],
            maps_to: &[],
            acts: &["SEC-AUTH-002"],
            reading: Some(
                "Needs a limited principal's credentials (--limited-bearer, --limited-bearer-env \
                 or --limited-header): ones the agent authenticates but permits nothing the kit \
                 tries, which only the user can know (§7.5 and §13.1 leave the authorization \
                 model to the agent); without them the result is N/A. The kit takes the user's \
                 word that the principal may not send messages: it sends SendMessage (and \
                 SendStreamingMessage when the card declares streaming) as that principal. A \
                 result, or a stream that carries an event, FAILs. The refusal's form is the \
                 §5.4 row for authorization: REST HTTP 403, gRPC PERMISSION_DENIED; HTTP 401 \
                 or UNAUTHENTICATED, the authentication error, FAILs, since the credential is \
                 valid and §3.3.2 asks for an authorization error. JSON-RPC has a custom code \
                 and no fixed HTTP status: HTTP 403 (any body) passes, so does a JSON-RPC \
                 error in HTTP 200 whose code means nothing else (not a JSON-RPC standard \
                 code nor -32001..-32009); HTTP 401 is a WARN. Only the SendMessage refusal's \
                 form is judged; the streaming call needs only to serve nothing. 1.0 only: \
                 0.3 leaves authorization to the agent (§4.6 MAY) and names no authorization \
                 error.",
            ),
            needs: Needs::NONE.weighs(2).on(Profile::Authenticated),
            run: |ctx| Box::pin(limited_refused(ctx)),
        },
        Check {
            id: "auth.in-task-auth-required-explained",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "7.6.1", statements: &["V10-7.6.1-01", "V10-7.6.1-02", "V10-7.6.1-03", "V03-4.5-01", "V03-4.5-02"] },
            requirement: "An agent that asks for authorization during a task answers with a Task in TASK_STATE_AUTH_REQUIRED whose status message explains what is needed",
            scope: EVERY_BINDING_BOTH,
            requires: &[],
            maps_to: &[],
            acts: &["SEC-AUTH-005"],
            reading: Some(
                "Driven by the kit's own scenario `tck-auth-required`, used only when the \
                 contract probe showed the agent asks for authorization on it (so the check \
                 does not apply to agents that never do). The explanation is a status message \
                 with at least one part that is not empty; the exception for needs negotiated \
                 out of band or through an extension cannot be seen from outside, so an agent \
                 relying on it fails here and should say so in its baseline. 0.3 only \
                 recommends the explanation (SHOULD): on 0.3 interfaces a missing one is a WARN.",
            ),
            needs: Needs::NONE.sends(&["tck-auth-required"]).on(Profile::Authenticated),
            run: |ctx| Box::pin(in_task_auth(ctx)),
        },
        Check {
            id: "auth.card-oauth-urls",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "proto OAuthFlows", statements: &["V10-P-18", "V03-T-05"] },
            requirement: "The URLs of the card's OAuth 2.0 and OpenID Connect schemes (authorization, token, refresh, device authorization, metadata, discovery) are URLs; a 0.3 authorizationCode flow's URLs use https",
            scope: crate::suite::check::Scope::Card,
            requires: &[],
            maps_to: &[],
            acts: &[],
            reading: Some(
                "The proto says \"MUST be in the form of a URL\" of the deprecated implicit and \
                 password flows; the kit reads every flow's URL fields the same way (a field \
                 named for a URL that does not parse as one is wrong in any flow). The scope \
                 maps MAY be empty and are not judged. TLS is required only where a sentence \
                 binds it: the 0.3 types say the authorizationCode flow's authorizationUrl, \
                 tokenUrl and refreshUrl \"MUST be a URL and use TLS\" (V03-T-05), so those of a \
                 0.3-form scheme (`type: oauth2`) must be https; 1.0 (and 0.3's other flows) \
                 only remark that OAuth 2.0 requires TLS, which is not judged. Both card forms are read: 1.0 oauth2SecurityScheme / \
                 openIdConnectSecurityScheme and 0.3 `type: oauth2` / `openIdConnect`. N/A \
                 when the card declares neither.",
            ),
            needs: Needs::NONE.on(Profile::Authenticated),
            run: |ctx| Box::pin(oauth_urls(ctx)),
        },
    ]
}

/// Whether the card requires authentication; `Err` holds why the checks do not apply.
pub fn security_required(card: &Value) -> Result<(), String> {
    let lists = [
        ("securityRequirements", card.get("securityRequirements")),
        ("security", card.get("security")),
    ];
    let mut declared = false;
    for (field, list) in lists {
        let Some(items) = list.and_then(Value::as_array).filter(|a| !a.is_empty()) else {
            continue;
        };
        declared = true;
        // An empty requirement is the alternative "no authentication" (OpenAPI).
        let empty = items.iter().any(|item| {
            let schemes = item.get("schemes").unwrap_or(item);
            schemes.as_object().is_none_or(|o| o.is_empty())
        });
        if empty {
            return Err(format!(
                "the card's {field} holds an empty requirement: authentication is optional"
            ));
        }
    }
    if declared {
        Ok(())
    } else {
        Err(
            "the card declares no security requirement (securityRequirements, or 0.3 security)"
                .into(),
        )
    }
}

fn not_applicable(reason: String) -> Verdict {
    Verdict::NotApplicable { reason }
}

/// Words that name a scheme the card declares: the scheme's key and its http scheme.
pub fn scheme_words(card: &Value) -> Vec<String> {
    let Some(schemes) = card.get("securitySchemes").and_then(Value::as_object) else {
        return Vec::new();
    };
    let mut words: Vec<String> = schemes.keys().map(|k| k.to_ascii_lowercase()).collect();
    for scheme in schemes.values() {
        let http = scheme.get("httpAuthSecurityScheme").unwrap_or(scheme);
        if let Some(name) = http.get("scheme").and_then(Value::as_str) {
            words.push(name.to_ascii_lowercase());
        }
    }
    words.retain(|w| !w.is_empty());
    words
}

/// The operations a caller without (valid) credentials must not get served, judged.
async fn operations_refused(ctx: &Ctx, caller: &Ctx, task: &str) -> Result<Findings, HarnessError> {
    let mut findings = Findings::default();
    let message = caller.user_message("tck-complete-task");
    let mut calls = vec![
        ("SendMessage", json!({ "message": message })),
        ("GetTask", json!({ "id": task })),
    ];
    if ctx.version() == ProtocolVersion::V1_0 {
        calls.push(("ListTasks", json!({})));
    }
    for (method, params) in calls {
        let reply = caller.request(method, caller.with_tenant(params)?).await?;
        if let Some(what) = served(&reply) {
            findings.problem(format!("{method} was served: {what}"));
        }
    }
    if streams(ctx) {
        let message = caller.user_message("tck-complete-task");
        let params = caller.with_tenant(json!({ "message": message }))?;
        if let Start::Stream(_) = caller.send_streaming(params).await? {
            findings.problem("SendStreamingMessage started a stream".into());
        }
    }
    Ok(findings)
}

/// Whether the card declares streaming.
pub(super) fn streams(ctx: &Ctx) -> bool {
    ctx.card
        .json
        .pointer("/capabilities/streaming")
        .and_then(Value::as_bool)
        .unwrap_or(false)
}

async fn missing_rejected(ctx: Ctx) -> Result<Verdict, HarnessError> {
    if let Err(why) = security_required(&ctx.card.json) {
        return Ok(not_applicable(why));
    }
    let task = task_id(&ctx.create_task("tck-complete-task").await?);
    let findings = operations_refused(&ctx, &without_credentials(&ctx), &task).await?;
    Ok(findings.verdict(
        "every operation without credentials refused",
        Verdict::pass(),
    ))
}

async fn invalid_rejected(ctx: Ctx) -> Result<Verdict, HarnessError> {
    if let Err(why) = security_required(&ctx.card.json) {
        return Ok(not_applicable(why));
    }
    let Some(wrong) = with_wrong_credentials(&ctx) else {
        return Err(HarnessError::Prerequisite(
            "the kit has no credentials and the card declares no http bearer or apiKey-in-header \
             scheme to forge wrong ones from"
                .into(),
        ));
    };
    let task = task_id(&ctx.create_task("tck-complete-task").await?);
    let findings = operations_refused(&ctx, &wrong, &task).await?;
    Ok(findings.verdict(
        "every operation with wrong credentials refused",
        Verdict::pass(),
    ))
}

async fn rejection_form(ctx: Ctx) -> Result<Verdict, HarnessError> {
    if let Err(why) = security_required(&ctx.card.json) {
        return Ok(not_applicable(why));
    }
    let task = task_id(&ctx.create_task("tck-complete-task").await?);
    let caller = without_credentials(&ctx);
    let reply = caller
        .get(caller.with_tenant(json!({ "id": task }))?)
        .await?;
    let expected = "HTTP 401 or 403 (JSON-RPC: or a custom JSON-RPC error code), gRPC UNAUTHENTICATED or PERMISSION_DENIED";
    if let Some(what) = served(&reply) {
        return Ok(Verdict::fail(
            expected,
            format!("GetTask was served: {what}"),
        ));
    }
    Ok(match in_binding_form(&reply) {
        Ok(()) => Verdict::pass(),
        Err(actual) => Verdict::fail(expected, actual),
    })
}
