//! The catalogue of `a2a-tck client`: every client check, a [`Check`] of the one model whose
//! scope is the play it judges ([`Scope::Play`], the play's card and steps in
//! `fixtures/client-plays.json`) and whose run is its judge over what the play showed
//! ([`Judge`], in [`super::verdicts`]). The run, `list` and `explain` read this list; the
//! reference client's fault that breaks each check is named in its negative case
//! (`tck/tests/negative/client.rs`), as an agent check's is.

use crate::facts::model::ProtocolVersion;
use crate::suite::check::{Check, HarnessError, Level, Needs, Scope, SpecRef, Verdict};

use super::field_wire;
use super::plays::PlaySpec;
use super::verdicts::{self, Observed};

/// What a client check runs: its judge over what one play showed, with the same outcome an agent
/// check returns.
pub type Judge = fn(&Observed) -> Result<Verdict, HarnessError>;

/// A check of a client.
pub type ClientCheck = Check<Judge>;

const BOTH: &[ProtocolVersion] = &[ProtocolVersion::V1_0, ProtocolVersion::V0_3];
const V1_0_ONLY: &[ProtocolVersion] = &[ProtocolVersion::V1_0];

/// Every client check, grouped by area.
pub fn all() -> &'static [ClientCheck] {
    CHECKS
}

/// The client check with `id`.
pub fn find(id: &str) -> Option<&'static ClientCheck> {
    CHECKS.iter().find(|c| c.id == id)
}

/// The play a client check judges (the id its scope names).
pub fn play_of<Run>(check: &Check<Run>) -> Option<&'static str> {
    match check.scope {
        Scope::Play { play, .. } => Some(play),
        _ => None,
    }
}

/// Whether `check` is judged on `version`: a version of its scope that its play runs on.
pub fn runs_on(check: &ClientCheck, play: &PlaySpec, version: ProtocolVersion) -> bool {
    let own = match check.scope {
        Scope::Play { versions, .. } => versions.contains(&version),
        _ => false,
    };
    own && (play.versions.as_ref()).is_none_or(|v| v.iter().any(|v| v == version.as_str()))
}

const CHECKS: &[ClientCheck] = &[
    Check {
        id: "client.card.tolerates-unknown-fields",
        level: Level::Must,
        spec: SpecRef {
            version: "0.3",
            section: "11.2.1",
            statements: &["V03-11.2.1-02"],
        },
        requirement: "The client reads a card that carries fields no version defines, as it would the card without them.",
        scope: Scope::Play {
            play: "basic",
            versions: BOTH,
        },
        requires: &[],
        maps_to: &[],
        acts: &[],
        reading: None,
        needs: Needs::NONE,
        run: verdicts::card_read,
    },
    Check {
        id: "client.card.mixed-versions",
        level: Level::Must,
        spec: SpecRef {
            version: "0.3",
            section: "11.2.1",
            statements: &["V03-11.2.1-02", "V10-8.3.2-01"],
        },
        requirement: "The client reads a card that declares interfaces of both versions, and speaks to each interface in the version the card gives it.",
        scope: Scope::Play {
            play: "mixed-card",
            versions: BOTH,
        },
        requires: &[],
        maps_to: &[],
        acts: &[],
        reading: Some("Which of the two interfaces the client picks is its own (first supported, of the versions it speaks); what is judged is that it reads the card and that every request to an interface speaks that interface's version (its method names, routes or service, and its A2A-Version)."),
        needs: Needs::NONE,
        run: verdicts::mixed_versions,
    },
    Check {
        id: "client.signatures.valid-accepted",
        level: Level::Must,
        spec: SpecRef {
            version: "1.0",
            section: "8.4.3",
            statements: &["V10-8.4.3-01", "V10-8.4.3-04"],
        },
        requirement: "A client verifying a card's signature with a trusted key accepts a card signed as §8.4 says.",
        scope: Scope::Play {
            play: "signed",
            versions: BOTH,
        },
        requires: &[],
        maps_to: &[],
        acts: &[],
        reading: None,
        needs: Needs::NONE,
        run: verdicts::signature_accepted,
    },
    Check {
        id: "client.signatures.invalid-refused",
        level: Level::Should,
        spec: SpecRef {
            version: "1.0",
            section: "8.4.3",
            statements: &["V10-8.4.3-02", "V10-14.3-05"],
        },
        requirement: "A client verifying card signatures refuses a card whose signature does not verify.",
        scope: Scope::Play {
            play: "signed-broken",
            versions: BOTH,
        },
        requires: &[],
        maps_to: &[],
        acts: &[],
        reading: None,
        needs: Needs::NONE,
        run: verdicts::signature_refused,
    },
    Check {
        id: "client.signatures.required-defaults",
        level: Level::Must,
        spec: SpecRef {
            version: "1.0",
            section: "8.4.3",
            statements: &["V10-8.4.3-01"],
        },
        requirement: "A client verifying card signatures accepts a card whose REQUIRED fields hold their default value, signed over each canonical form a reading of §8.4 gives.",
        scope: Scope::Play {
            play: "signed-defaults",
            versions: BOTH,
        },
        requires: &[],
        maps_to: &[],
        acts: &[],
        reading: Some("§8.4.1 keeps REQUIRED fields at their default value in the canonical form (its worked example keeps description: \"\") and keeps optional fields that were set; §8.4.2 and §8.4.3 say to remove properties with default values. The card carries one signature per form these readings give, so a verifier that follows any of them verifies one; a client that refuses the card follows none, or asks every signature to verify, which §8.4.3 does not (at least one; several MAY be present for key rotation)."),
        needs: Needs::NONE,
        run: verdicts::signature_accepted,
    },
    Check {
        id: "client.requests.binding-form",
        level: Level::Must,
        spec: SpecRef {
            version: "0.3",
            section: "7",
            statements: &["V03-7-01", "V03-6.11.1-03", "V03-11.2.2-01", "V03-6.11.1-04"],
        },
        requirement: "Every request has its binding's form: JSON-RPC 2.0 requests POSTed as application/json with a string or number id and a method of the version; REST requests on the version's routes; gRPC calls on the version's service.",
        scope: Scope::Play {
            play: "basic",
            versions: BOTH,
        },
        requires: &[],
        maps_to: &[],
        acts: &[],
        reading: None,
        needs: Needs::NONE,
        run: verdicts::binding_form,
    },
    Check {
        id: "client.requests.version-header",
        level: Level::Must,
        spec: SpecRef {
            version: "1.0",
            section: "3.6.1",
            statements: &["V10-3.6.1-01", "V10-3.6.1-02"],
        },
        requirement: "Every request to a 1.0 interface carries A2A-Version: 1.0 (as a header, or as the A2A-Version query parameter).",
        scope: Scope::Play {
            play: "basic",
            versions: V1_0_ONLY,
        },
        requires: &[],
        maps_to: &[],
        acts: &[],
        reading: Some("The card fetch is not an A2A operation and is not judged; a 0.3 client is excepted by the sentence itself, so the check runs on 1.0 interfaces only."),
        needs: Needs::NONE,
        run: verdicts::version_header,
    },
    Check {
        id: "client.requests.message-valid",
        level: Level::Must,
        spec: SpecRef {
            version: "0.3",
            section: "11.2.2",
            statements: &["V03-11.2.2-01"],
        },
        requirement: "Every message the client sends has a non-empty messageId, the user role and at least one part, and no two messages share a messageId.",
        scope: Scope::Play {
            play: "basic",
            versions: BOTH,
        },
        requires: &[],
        maps_to: &[],
        acts: &[],
        reading: None,
        needs: Needs::NONE,
        run: verdicts::message_valid,
    },
    Check {
        id: "client.read.results",
        level: Level::Must,
        spec: SpecRef {
            version: "0.3",
            section: "11.2",
            statements: &["V03-11.2-01", "V03-11.2.1-01", "V03-11.2.2-01"],
        },
        requirement: "What the client's API returns is what the agent served: the task's id, contextId, state and artifacts, and a direct message's text.",
        scope: Scope::Play {
            play: "basic",
            versions: BOTH,
        },
        requires: &[],
        maps_to: &[],
        acts: &[],
        reading: Some("Each step is judged against the exchange the client was recorded making for it and what the agent answered there (an error answered is an error to report); a step with no recorded request is not judged. A client whose API offers no get is not asked to get, except on 0.3, whose §11.2.2 requires clients to make tasks/get requests."),
        needs: Needs::NONE,
        run: verdicts::read_results,
    },
    Check {
        id: "client.read.errors",
        level: Level::Must,
        spec: SpecRef {
            version: "0.3",
            section: "11.2.2",
            statements: &["V03-11.2.2-02", "V03-11.2.2-01"],
        },
        requirement: "The client maps the binding's error forms to the right A2A errors: TaskNotFound for a task that does not exist, TaskNotCancelable for a task that completed.",
        scope: Scope::Play {
            play: "errors",
            versions: BOTH,
        },
        requires: &[],
        maps_to: &[],
        acts: &[],
        reading: Some("Judged on the errors the agent answered the client's recorded requests, whatever the play meant to bring about (a client told MethodNotFound that reports MethodNotFound reads it right); a step with no recorded request, or a cancel the client's API does not offer (no sentence requires it of a client), is not judged. 0.3 defines A2A error codes for JSON-RPC only (§8.2); its HTTP+JSON and gRPC error forms are unspecified, so there any error counts and the kind the client gave is only noted. 1.0 defines every binding's error form, and the kind is judged on all three."),
        needs: Needs::NONE,
        run: verdicts::read_errors,
    },
    Check {
        id: "client.follow-up.same-task",
        level: Level::Must,
        spec: SpecRef {
            version: "1.0",
            section: "3.4.2",
            statements: &["V10-3.4.2-03", "V10-3.4.3-02"],
        },
        requirement: "A follow-up to a task that asks for input carries that task's taskId (and its contextId, when it sends one), and the client reads the task's completion.",
        scope: Scope::Play {
            play: "follow-up",
            versions: BOTH,
        },
        requires: &[],
        maps_to: &[],
        acts: &[],
        reading: None,
        needs: Needs::NONE,
        run: verdicts::follow_up,
    },
    Check {
        id: "client.stream.read",
        level: Level::Must,
        spec: SpecRef {
            version: "0.3",
            section: "11.2",
            statements: &["V03-11.2-01", "V03-11.2.3-01"],
        },
        requirement: "A client that streams reads the stream to its end: the task's final state and its artifacts as served.",
        scope: Scope::Play {
            play: "streaming",
            versions: BOTH,
        },
        requires: &[],
        maps_to: &[],
        acts: &[],
        reading: None,
        needs: Needs::NONE,
        run: verdicts::stream_read,
    },
    Check {
        id: "client.capabilities.streaming-off",
        level: Level::Should,
        spec: SpecRef {
            version: "1.0",
            section: "3.3.4",
            statements: &["V10-3.3.4-07"],
        },
        requirement: "A client whose agent card says streaming: false does not call SendStreamingMessage.",
        scope: Scope::Play {
            play: "no-streaming",
            versions: BOTH,
        },
        requires: &[],
        maps_to: &[],
        acts: &[],
        reading: None,
        needs: Needs::NONE,
        run: verdicts::streaming_off,
    },
    Check {
        id: "client.stream.resubscribe",
        level: Level::Should,
        spec: SpecRef {
            version: "1.0",
            section: "7.6.2",
            statements: &["V10-7.6.2-02"],
        },
        requirement: "After its stream is cut, the client subscribes to the same task again (SubscribeToTask) and reads it to completion.",
        scope: Scope::Play {
            play: "resume",
            versions: BOTH,
        },
        requires: &[],
        maps_to: &[],
        acts: &[],
        reading: None,
        needs: Needs::NONE,
        run: verdicts::resubscribe,
    },
    Check {
        id: "client.stream.chunks-reassembled",
        level: Level::Must,
        spec: SpecRef {
            version: "0.3",
            section: "11.2",
            statements: &["V03-11.2-01"],
        },
        requirement: "Artifact chunks of a stream (append: true) are put together into the artifact the agent built.",
        scope: Scope::Play {
            play: "chunked",
            versions: BOTH,
        },
        requires: &[],
        maps_to: &[],
        acts: &[],
        reading: Some("Judged on what the client's API gives: no client-side sentence names the append flag, but a client that delivers a chunk without the append the agent sent, or leaves chunks apart where it puts a task together, reports an artifact the agent never built (it misreads the stream it says it supports)."),
        needs: Needs::NONE,
        run: verdicts::chunks,
    },
    Check {
        id: "client.interface.first-supported",
        level: Level::Must,
        spec: SpecRef {
            version: "1.0",
            section: "8.3.2",
            statements: &["V10-8.3.2-01", "V03-5.6.3-01", "V03-5.6.3-05", "V03-11.2.1-03", "V03-5.6.3-02"],
        },
        requirement: "The client uses the first interface of the card that it supports, at the URL the card gives.",
        scope: Scope::Play {
            play: "preference",
            versions: BOTH,
        },
        requires: &[],
        maps_to: &[],
        acts: &[],
        reading: Some("1.0 §5.2 lets a client choose any protocol the agent declares (MAY); §8.3.2 has it select the first supported interface and prefer earlier entries (MUST). Read together, the choice among protocols is the client's and among interfaces of one protocol it takes the first: the play's two interfaces share binding and version, so §5.2 leaves no choice, and a 1.0 client that uses the second fails. On a 0.3 card the first interface is the main url with its preferredTransport, and §5.6.3 rule 2 (V03-5.6.3-02) says a client that supports it SHOULD use the main url: a 0.3 client that uses the second warns."),
        needs: Needs::NONE,
        run: verdicts::first_supported,
    },
    Check {
        id: "client.interface.fallback",
        level: Level::Should,
        spec: SpecRef {
            version: "1.0",
            section: "5.2",
            statements: &["V10-5.2-03", "V03-5.6.3-04", "V03-3.4.2-03"],
        },
        requirement: "When the first interface fails (503, gRPC UNAVAILABLE), the client tries the next one the card declares, of another protocol.",
        scope: Scope::Play {
            play: "fallback",
            versions: BOTH,
        },
        requires: &[],
        maps_to: &[],
        acts: &[],
        reading: Some("The sentences ask for fallback to alternative protocols (1.0 §5.2) or transports (0.3 §3.4.2, §5.6.3): the failing first interface is of another binding the client declares, and the play's own binding comes second. A client that declares one binding has no alternative protocol to fall back to: N/A (a second URL of the binding that failed is no alternative protocol, so not trying one breaks nothing)."),
        needs: Needs::NONE,
        run: verdicts::fallback,
    },
    Check {
        id: "client.interface.tenant",
        level: Level::Must,
        spec: SpecRef {
            version: "1.0",
            section: "proto AgentInterface.tenant",
            statements: &["V10-P-06", "V10-P-07"],
        },
        requirement: "Every request to an interface with a tenant carries that tenant (JSON-RPC and gRPC in the request's tenant field, REST as the first path segment).",
        scope: Scope::Play {
            play: "tenant",
            versions: V1_0_ONLY,
        },
        requires: &[],
        maps_to: &[],
        acts: &[],
        reading: None,
        needs: Needs::NONE,
        run: verdicts::tenant,
    },
    Check {
        id: "client.extended-card.authenticated",
        level: Level::Must,
        spec: SpecRef {
            version: "1.0",
            section: "3.1.11",
            statements: &["V10-3.1.11-01", "V03-7.10-01", "V03-11.2.2-03"],
        },
        requirement: "The client asks for the extended card with credentials of a scheme the public card declares (here its bearer token).",
        scope: Scope::Play {
            play: "extended-card",
            versions: BOTH,
        },
        requires: &[],
        maps_to: &[],
        acts: &[],
        reading: None,
        needs: Needs::NONE,
        run: verdicts::extended_authenticated,
    },
    Check {
        id: "client.extended-card.used",
        level: Level::Should,
        spec: SpecRef {
            version: "1.0",
            section: "13.3",
            statements: &["V10-13.3-11", "V03-7.10-03"],
        },
        requirement: "What the client gives as the extended card is the extended card the agent served, not the public one.",
        scope: Scope::Play {
            play: "extended-card",
            versions: BOTH,
        },
        requires: &[],
        maps_to: &[],
        acts: &[],
        reading: None,
        needs: Needs::NONE,
        run: verdicts::extended_used,
    },
    Check {
        id: "client.extensions.required-activated",
        level: Level::Should,
        spec: SpecRef {
            version: "1.0",
            section: "proto AgentExtension.required",
            statements: &["V10-P-17"],
        },
        requirement: "A client asked to use an extension the card marks required names it in A2A-Extensions (gRPC metadata a2a-extensions) on its requests.",
        scope: Scope::Play {
            play: "extension",
            versions: V1_0_ONLY,
        },
        requires: &[],
        maps_to: &[],
        acts: &[],
        reading: Some("The proto says a client must understand and comply with a required extension in lower case, without an RFC 2119 keyword: a client that does not name it is a WARN, not a FAIL."),
        needs: Needs::NONE,
        run: verdicts::extensions,
    },
    Check {
        id: "client.push.config-sent",
        level: Level::Should,
        spec: SpecRef {
            version: "1.0",
            section: "13.2",
            statements: &["V10-13.2-15"],
        },
        requirement: "Each push config the client registers carries the task's id, the webhook URL and its own token, as given.",
        scope: Scope::Play {
            play: "push",
            versions: BOTH,
        },
        requires: &[],
        maps_to: &[],
        acts: &[],
        reading: None,
        needs: Needs::NONE,
        run: verdicts::push,
    },
    Check {
        id: "client.interface.unspoken-first-skipped",
        level: Level::Must,
        spec: SpecRef {
            version: "1.0",
            section: "8.3.2",
            statements: &["V10-8.3.2-01", "V03-5.6.3-01", "V03-5.6.3-03"],
        },
        requirement: "When the card's first interface is of a binding the client does not speak, the client sends nothing there and uses the first interface it supports.",
        scope: Scope::Play {
            play: "unspoken-first",
            versions: BOTH,
        },
        requires: &[],
        maps_to: &[],
        acts: &[],
        reading: Some("The binding the client does not speak is taken from its adapter's describe line. A client that speaks it after all (it sends that binding's requests to the first interface) chose rightly by §8.3.2 and is not judged (UNTESTABLE); what breaks the rule is a request of another binding, or one the kit cannot place, sent to the interface the card gives that binding, or a card refused over its first interface: the client received the card, sent nothing, and its error names the first interface's URL (a refusal that names no URL is not judged)."),
        needs: Needs::NONE,
        run: verdicts::field_cards::unspoken_skipped,
    },
    Check {
        id: "client.card.invalid-refused",
        level: Level::Should,
        spec: SpecRef {
            version: "1.0",
            section: "5.7",
            statements: &["V10-5.7-03"],
        },
        requirement: "A client refuses a card that lacks a REQUIRED field (here name).",
        scope: Scope::Play {
            play: "card-missing-field",
            versions: BOTH,
        },
        requires: &[],
        maps_to: &[],
        acts: &[],
        reading: Some("No sentence makes a client refuse a card: §5.7 says implementations SHOULD validate REQUIRED fields and reject messages that miss one, and a card is such a message, so a client that reads the card is a WARN, never a FAIL. The field left out is name, REQUIRED in both versions and needed by no client to reach the agent. An interface URL that is not absolute is not played: only the proto's comment says it, in lower case."),
        needs: Needs::NONE,
        run: verdicts::field_cards::invalid_refused,
    },
    Check {
        id: "client.credentials.unasked-withheld",
        level: Level::May,
        spec: SpecRef {
            version: "1.0",
            section: "7.3",
            statements: &["V10-D-7.3-01"],
        },
        requirement: "A client given a token sends it to no request of an agent whose card declares no security scheme.",
        scope: Scope::Play {
            play: "credentials-unasked",
            versions: BOTH,
        },
        requires: &[],
        maps_to: &[],
        acts: &[],
        reading: Some("§7.3 has the client learn the schemes from the card's securitySchemes and send the credentials they ask for; no sentence with a keyword forbids sending one the card does not ask for, so a token sent anyway is a WARN, never a FAIL."),
        needs: Needs::NONE,
        run: verdicts::field_cards::unasked_withheld,
    },
    Check {
        id: "client.credentials.other-origin-withheld",
        level: Level::May,
        spec: SpecRef {
            version: "1.0",
            section: "7.3; 8.3.1",
            statements: &["V10-D-7.3-02"],
        },
        requirement: "When the card declares a bearer scheme for interfaces on another origin than the card's, the client sends the token only to the interfaces' origin, never to the card's (the card fetch included).",
        scope: Scope::Play {
            play: "credentials-other-origin",
            versions: BOTH,
        },
        requires: &[],
        maps_to: &[],
        acts: &[],
        reading: Some("No sentence with a keyword says where a credential must not go; §7.3 sends it with A2A requests, which go to the interfaces. A client that keeps the token from the interfaces' origin (it binds credentials to the origin it was configured for) keeps this rule too (the agent then refuses it, which the message notes). A token sent to the card's origin is a WARN, never a FAIL."),
        needs: Needs::NONE,
        run: verdicts::field_cards::other_origin_withheld,
    },
    Check {
        id: "client.auth-required.read",
        level: Level::Must,
        spec: SpecRef {
            version: "0.3",
            section: "11.2",
            statements: &["V03-11.2-01", "V10-D-7.6.2-01"],
        },
        requirement: "When the task asks for authorization, the client reports its state as auth-required (not failed, not an error), and a follow-up to the task continues it.",
        scope: Scope::Play {
            play: "auth-required",
            versions: BOTH,
        },
        requires: &[],
        maps_to: &[],
        acts: &[],
        reading: Some("What is judged is the state the client reports; a compliant client reads the results the agent serves (0.3 §11.2). §7.6.2 leaves what the client does next to it, without a keyword: the follow-up's outcome is only noted."),
        needs: Needs::NONE,
        run: verdicts::field_cards::auth_required,
    },
    Check {
        id: "client.version.refusal-not-retried",
        level: Level::May,
        spec: SpecRef {
            version: "1.0",
            section: "3.6.2; 3.6.3",
            statements: &["V10-D-3.6.2-01"],
        },
        requirement: "When an interface answers VersionNotSupportedError, the client does not send it the same request with the same A2A-Version again; it may go on to an interface of another version, or give the error.",
        scope: Scope::Play {
            play: "version-refused",
            versions: V1_0_ONLY,
        },
        requires: &[],
        maps_to: &[],
        acts: &[],
        reading: Some("No sentence with a keyword tells a client what to do with VersionNotSupportedError (§3.6.3 asks SDKs for means to negotiate, and advises, in lower case, against automatic fallback to older versions); going to the card's 0.3 interface and giving the error are both accepted. The stage makes the agent refuse by asking it for a version it does not speak. That every request speaks its interface's version is judged by client.card.mixed-versions, on the same kind of card."),
        needs: Needs::NONE,
        run: verdicts::field_cards::refusal_not_retried,
    },
    Check {
        id: "client.card.cache-honored",
        level: Level::Should,
        spec: SpecRef {
            version: "1.0",
            section: "8.6.2",
            statements: &["V10-8.6.2-01", "V10-8.6-01"],
        },
        requirement: "A card served with Cache-Control: no-cache is not reused without asking the agent again: the client's second read gives the card as it stands.",
        scope: Scope::Play {
            play: "card-cache",
            versions: BOTH,
        },
        requires: &[],
        maps_to: &[],
        acts: &[],
        reading: Some("RFC 9111 makes caching optional: a client that keeps no cache and fetches the card afresh for each read honours it, and so does one that revalidates with If-None-Match (the stage answers 304 while the card is unchanged). What breaks it is a stored card given again although the response said no-cache. Conditional requests (§8.6.2, SHOULD) concern an expired cached card, which a client without a cache never holds, so they are only counted."),
        needs: Needs::NONE,
        run: verdicts::field_cards::cache_honored,
    },
    Check {
        id: "client.stream.recovers",
        level: Level::Should,
        spec: SpecRef {
            version: "1.0",
            section: "7.6.2",
            statements: &["V10-7.6.2-02", "V10-3.7-03"],
        },
        requirement: "When its stream of a task still working is cut, the client, asked only to send, follows the task again by itself: it subscribes to it, reads it (GetTask) or registers a webhook.",
        scope: Scope::Play {
            play: "recover",
            versions: BOTH,
        },
        requires: &[],
        maps_to: &[],
        acts: &[],
        reading: Some("No sentence obliges a client to recover a cut stream. §3.5.2 names a client reconnecting after a network interruption as what several streams per task allow, §3.7 that such a client may miss status updates, and §7.6.2's SHOULD (subscribe, register a webhook or poll) is written for a client without a stream to a task waiting on authorization; read here for any task the client is left without a stream to, as client.stream.resubscribe reads it. A careful reader may hold that it binds auth-required tasks only, so a client that does not recover WARNs, never FAILs; what it then reports is client.stream.cut-reported's."),
        needs: Needs::NONE,
        run: field_wire::recovers,
    },
    Check {
        id: "client.stream.cut-reported",
        level: Level::Must,
        spec: SpecRef {
            version: "0.3",
            section: "11.2",
            statements: &["V03-11.2-01"],
        },
        requirement: "After its stream is cut, what the client's API reports is what the agent served: an error, a state the stream or a later request gave it, or (when it followed the task again) the task as the agent holds it; never a state nothing served.",
        scope: Scope::Play {
            play: "recover",
            versions: BOTH,
        },
        requires: &[],
        maps_to: &[],
        acts: &[],
        reading: Some("The agent ends the task by itself about 2 s after it starts, while the kit reads what the agent holds when the adapter exits, so a client that read the task back before then reports an earlier state (working) than the kit reads: a state that is not terminal is never held against it. A terminal state is judged: the agent's own, and only when the client asked about the task after the cut."),
        needs: Needs::NONE,
        run: field_wire::cut_reported,
    },
    Check {
        id: "client.retry.same-message-id",
        level: Level::May,
        spec: SpecRef {
            version: "1.0",
            section: "3.3.1",
            statements: &["V10-3.3.1-01"],
        },
        requirement: "A client that sends a SendMessage again after a 503 or a dropped connection sends it with the messageId it first gave it, so an agent can tell the retry from a new message.",
        scope: Scope::Play {
            play: "retry",
            versions: BOTH,
        },
        requires: &[],
        maps_to: &[],
        acts: &[],
        reading: Some("§3.3.1 lets an agent make SendMessage idempotent by detecting a repeated messageId (MAY); no sentence binds the client, so a retry under a new messageId WARNs, never FAILs, and a client that does not retry is N/A (not retrying is never wrong). Even with the same messageId a retry is safe only with an agent that recognises a repeated messageId, which §3.3.1 leaves optional: after a 503 the agent said it did not handle the request, but after a dropped connection the client cannot know whether the first attempt took, and HTTP (RFC 9110 §9.2.2) says a client SHOULD NOT retry a non-idempotent request automatically then; the judge's message says which retries followed a drop."),
        needs: Needs::NONE,
        run: field_wire::same_message_id,
    },
    Check {
        id: "client.retry.reports-served",
        level: Level::Must,
        spec: SpecRef {
            version: "0.3",
            section: "11.2",
            statements: &["V03-11.2-01"],
        },
        requirement: "What the client reports for a send answered 503, or whose connection dropped, is what it was finally served: an error when the failure was the last answer it got, the task when a retry was answered.",
        scope: Scope::Play {
            play: "retry",
            versions: BOTH,
        },
        requires: &[],
        maps_to: &[],
        acts: &[],
        reading: None,
        needs: Needs::NONE,
        run: field_wire::retry_reported,
    },
    Check {
        id: "client.timeout.gives-up",
        level: Level::May,
        spec: SpecRef {
            version: "1.0",
            section: "3.2.2",
            statements: &["V10-D-3.2.2-01"],
        },
        requirement: "A client asked to give up on a send after 500 ms reports an error once the answer has not come, instead of waiting for the answer the stage holds for 2.5 s.",
        scope: Scope::Play {
            play: "timeout",
            versions: BOTH,
        },
        requires: &[],
        maps_to: &[],
        acts: &[],
        reading: Some("No sentence of either version speaks of a client's deadline: a blocking SendMessage is answered only when the task ends or is interrupted (§3.2.2), and how long the caller waits is its own choice. The play asks the client, through its adapter, for the deadline the SDK's users set (timeout_ms), and bounds its own wait (the stage passes the request on after 2.5 s), so it never waits on a client's default of minutes. A client that waits past its deadline reports a late answer truthfully: a WARN, never a FAIL; an adapter whose SDK has no deadline declares no timeouts feature and the play is N/A."),
        needs: Needs::NONE,
        run: field_wire::gives_up,
    },
    Check {
        id: "client.polling.bounded",
        level: Level::May,
        spec: SpecRef {
            version: "1.0",
            section: "3.5.1",
            statements: &["V10-D-3.5.1-01"],
        },
        requirement: "A client asked to wait at most 800 ms for a task that stays working, and that polls it with GetTask, stops polling within that bound (1 s of slack), polls no more than once per 50 ms on average, and reports the task as still open.",
        scope: Scope::Play {
            play: "poll",
            versions: BOTH,
        },
        requires: &[],
        maps_to: &[],
        acts: &[],
        reading: Some("Polling is one of the three ways to follow a task (§3.5.1, 'the client periodically calls Get Task'; §3.2.2 leaves it to the caller after a non-blocking send), with no keyword and no bound named: the bound is the one the client was asked for, the rate limit the kit's own, so a miss WARNs, never FAILs. A client that waits by subscribing instead is N/A here."),
        needs: Needs::NONE,
        run: field_wire::polling_bounded,
    },
];
