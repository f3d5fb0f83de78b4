//! The released revisions of A2A 1.0 and the sentences they word differently, as data.
//!
//! "1.0" names more than one text: the 1.0.1 patch changed six rows of the §5.4 error table,
//! made the ErrorInfo of a JSON-RPC `error.data` a SHOULD where 1.0.0 had a MUST, and named
//! `application/a2a+json` (SHOULD) where 1.0.0 described `application/json`; nothing on the
//! wire tells an agent of one revision from one of the other (§3.6). A run judges by one of:
//! the latest revision, tolerating an answer an older revision gave (the default), or one
//! revision pinned with `--spec-revision`, strictly. A later revision is one more row of
//! [`REVISIONS`].
//!
//! Each check runs under the run's [`Judging`] (a task-local value the runner sets), so the
//! judge of errors and the few checks whose expectation differs read it where they judge, and
//! note the contested sentences they met ([`note`]), which the report lists with the reading
//! applied.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::{Arc, Mutex};

use crate::facts::a2a::ErrorKind;

/// The RFC 2119 strength a revision gives a sentence; `None` for a description without one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keyword {
    Must,
    Should,
    None,
}

impl Keyword {
    pub fn as_str(self) -> &'static str {
        match self {
            Keyword::Must => "MUST",
            Keyword::Should => "SHOULD",
            Keyword::None => "no keyword",
        }
    }
}

/// One row of the §5.4 error table: the gRPC status and the HTTP status of an A2A error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ErrorRow {
    pub kind: ErrorKind,
    pub grpc: &'static str,
    pub http: u16,
}

const fn row(kind: ErrorKind, grpc: &'static str, http: u16) -> ErrorRow {
    ErrorRow { kind, grpc, http }
}

/// What one released revision of A2A 1.0 says where the revisions differ.
#[derive(Debug, PartialEq, Eq)]
pub struct Revision {
    /// The tag of the specification (`docs/specification.md` at `v<tag>`).
    pub tag: &'static str,
    /// §5.4: the rows of the error table this revision words otherwise than the latest, whose
    /// table is [`ErrorKind::grpc_status`] and [`ErrorKind::http_status`] (every row a MUST
    /// in every revision).
    pub errors: &'static [ErrorRow],
    /// §9.5: the strength of "A2A errors carry a google.rpc.ErrorInfo in JSON-RPC `error.data`".
    pub jsonrpc_error_info: Keyword,
    /// §11.1: the REST media types the revision names for requests and responses, and the
    /// strength it names them with.
    pub rest_media_types: (&'static [&'static str], Keyword),
    /// The A2A issues and pull requests that record the change to this revision, if any.
    pub sources: &'static str,
}

/// Every released revision of A2A 1.0, oldest first; the last is the latest. 1.0.2 exists
/// only as a release branch, untagged: it is added here once tagged.
pub const REVISIONS: &[Revision] = &[
    Revision {
        tag: "1.0.0",
        errors: &[
            row(ErrorKind::TaskNotCancelable, "FAILED_PRECONDITION", 409),
            row(
                ErrorKind::PushNotificationNotSupported,
                "UNIMPLEMENTED",
                400,
            ),
            row(ErrorKind::UnsupportedOperation, "UNIMPLEMENTED", 400),
            row(ErrorKind::ContentTypeNotSupported, "INVALID_ARGUMENT", 415),
            row(ErrorKind::InvalidAgentResponse, "INTERNAL", 502),
            row(ErrorKind::VersionNotSupported, "UNIMPLEMENTED", 400),
        ],
        jsonrpc_error_info: Keyword::Must,
        rest_media_types: (&["application/json", "application/a2a+json"], Keyword::None),
        sources: "",
    },
    Revision {
        tag: "1.0.1",
        errors: &[],
        jsonrpc_error_info: Keyword::Should,
        rest_media_types: (&["application/a2a+json"], Keyword::Should),
        sources: "A2A #2200, #2204 (no wire signal tells the revisions apart)",
    },
];

impl Revision {
    /// The latest released revision.
    pub fn latest() -> &'static Revision {
        REVISIONS.last().expect("at least one revision")
    }

    /// The revision tagged `tag` (`1.0.1`), or `latest`.
    pub fn named(tag: &str) -> Option<&'static Revision> {
        if tag == "latest" {
            return Some(Revision::latest());
        }
        REVISIONS.iter().find(|r| r.tag == tag)
    }

    /// The row of `kind` in this revision's error table; `None` for a generic error (JSON-RPC
    /// and the like), which §5.4 does not list.
    pub fn error(&self, kind: ErrorKind) -> Option<ErrorRow> {
        ErrorKind::A2A.contains(&kind).then(|| {
            (self.errors.iter().find(|r| r.kind == kind).copied()).unwrap_or(row(
                kind,
                kind.grpc_status(),
                kind.http_status(),
            ))
        })
    }

    /// The gRPC status of `kind` in this revision (generic errors: as every revision has it).
    pub fn grpc_status(&self, kind: ErrorKind) -> &'static str {
        self.error(kind)
            .map_or_else(|| kind.grpc_status(), |r| r.grpc)
    }

    /// The HTTP status of `kind` in this revision (generic errors: as every revision has it).
    pub fn http_status(&self, kind: ErrorKind) -> u16 {
        self.error(kind)
            .map_or_else(|| kind.http_status(), |r| r.http)
    }

    /// The revisions other than this one, oldest first.
    pub fn others(&self) -> impl Iterator<Item = &'static Revision> + '_ {
        REVISIONS.iter().filter(move |r| r.tag != self.tag)
    }
}

impl fmt::Display for Revision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.tag)
    }
}

/// Whether the revisions give `kind` different rows of the error table.
pub fn error_row_differs(kind: ErrorKind) -> bool {
    let latest = Revision::latest().error(kind);
    latest.is_some() && REVISIONS.iter().any(|r| r.error(kind) != latest)
}

/// How a run judges the sentences the revisions word differently.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Judging {
    /// By the latest revision; an answer an older revision gave where the latest changed the
    /// sentence is tolerated (WARN, naming the text it follows), never failed. The default.
    #[default]
    Tolerant,
    /// By this revision alone, with no tolerance (`--spec-revision <tag>`).
    Pinned(&'static Revision),
}

impl Judging {
    /// `latest` (tolerant) or a revision's tag (pinned); `None` for an unknown name.
    pub fn named(name: &str) -> Option<Judging> {
        if name == "latest" {
            return Some(Judging::Tolerant);
        }
        REVISIONS
            .iter()
            .find(|r| r.tag == name)
            .map(Judging::Pinned)
    }

    /// The names `--spec-revision` takes.
    pub fn names() -> Vec<&'static str> {
        let mut names: Vec<&'static str> = REVISIONS.iter().map(|r| r.tag).collect();
        names.push("latest");
        names
    }

    /// The revision whose text is the expectation.
    pub fn revision(self) -> &'static Revision {
        match self {
            Judging::Tolerant => Revision::latest(),
            Judging::Pinned(r) => r,
        }
    }

    pub fn tolerant(self) -> bool {
        self == Judging::Tolerant
    }

    /// The revisions whose answer is tolerated where it differs from the expectation.
    pub fn tolerated(self) -> impl Iterator<Item = &'static Revision> {
        let tolerant = self.tolerant();
        let expected = self.revision();
        REVISIONS
            .iter()
            .filter(move |r| tolerant && r.tag != expected.tag)
    }
}

/// A sentence the revisions word differently, or that contradicts itself, which a check met.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Sentence {
    /// §5.4: the gRPC and HTTP status of this A2A error.
    ErrorRow(ErrorKindKey),
    /// §8.4: the canonical form a card signature covers.
    CardCanonicalForm,
    /// §9.5: ErrorInfo in a JSON-RPC `error.data`.
    JsonRpcErrorInfo,
    /// §11.1: the REST media type.
    RestMediaType,
    /// §5.2 against §8.3.2: which declared interface a client uses (any protocol, MAY; the
    /// first supported, MUST). Client mode.
    InterfaceChoice,
}

/// An [`ErrorKind`] as an ordered key (in the order of the error table: by its JSON-RPC code,
/// -32001 first).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ErrorKindKey(i64);

impl ErrorKindKey {
    pub fn kind(self) -> ErrorKind {
        *ErrorKind::A2A
            .iter()
            .find(|k| -k.jsonrpc_code() == self.0)
            .expect("a key of an A2A error")
    }
}

impl From<ErrorKind> for ErrorKindKey {
    fn from(kind: ErrorKind) -> ErrorKindKey {
        ErrorKindKey::of(kind)
    }
}

impl ErrorKindKey {
    pub const fn of(kind: ErrorKind) -> ErrorKindKey {
        ErrorKindKey(-kind.jsonrpc_code())
    }
}

impl Sentence {
    /// The error table's row of `kind`.
    pub const fn error_row(kind: ErrorKind) -> Sentence {
        Sentence::ErrorRow(ErrorKindKey::of(kind))
    }

    /// The section that holds it.
    pub fn section(self) -> &'static str {
        match self {
            Sentence::ErrorRow(_) => "5.4",
            Sentence::JsonRpcErrorInfo => "9.5",
            Sentence::RestMediaType => "11.1",
            Sentence::CardCanonicalForm => "8.4",
            Sentence::InterfaceChoice => "5.2",
        }
    }

    /// The sentence, in the kit's words.
    pub fn title(self) -> String {
        match self {
            Sentence::ErrorRow(k) => format!(
                "the gRPC and HTTP status of {} (error table)",
                k.kind().name()
            ),
            Sentence::JsonRpcErrorInfo => "a google.rpc.ErrorInfo in JSON-RPC error.data".into(),
            Sentence::RestMediaType => "the media type of HTTP+JSON requests and responses".into(),
            Sentence::CardCanonicalForm => {
                "the canonical form of the card a signature covers".into()
            }
            Sentence::InterfaceChoice => "which of the card's interfaces a client uses: any \
                 protocol the agent declares (§5.2, MAY) or the first it supports (§8.3.2, MUST)"
                .into(),
        }
    }

    /// What each revision says of it, one line per revision; empty for a sentence the
    /// revisions word alike (it contradicts itself in each).
    pub fn by_revision(self) -> Vec<(&'static str, String)> {
        let say = |r: &Revision| match self {
            Sentence::ErrorRow(k) => {
                let kind = k.kind();
                format!(
                    "MUST: gRPC {}, HTTP {}",
                    r.grpc_status(kind),
                    r.http_status(kind)
                )
            }
            Sentence::JsonRpcErrorInfo => r.jsonrpc_error_info.as_str().to_string(),
            Sentence::RestMediaType => {
                format!(
                    "{}: {}",
                    r.rest_media_types.1.as_str(),
                    r.rest_media_types.0.join(" or ")
                )
            }
            Sentence::CardCanonicalForm | Sentence::InterfaceChoice => String::new(),
        };
        if matches!(
            self,
            Sentence::CardCanonicalForm | Sentence::InterfaceChoice
        ) {
            return Vec::new();
        }
        REVISIONS.iter().map(|r| (r.tag, say(r))).collect()
    }

    /// The reading a run applies to it under `judging`.
    pub fn reading(self, judging: Judging) -> String {
        let expected = judging.revision();
        let older: Vec<&str> = judging.tolerated().map(|r| r.tag).collect();
        let tolerance = if older.is_empty() {
            "no other revision's answer is accepted".to_string()
        } else {
            format!(
                "an answer {} gave is tolerated (WARN), never failed",
                older.join(", ")
            )
        };
        match self {
            Sentence::ErrorRow(k) => {
                let kind = k.kind();
                format!(
                    "{} as {} gives it: gRPC {}, HTTP {} (MUST); {tolerance}",
                    kind.name(),
                    expected.tag,
                    expected.grpc_status(kind),
                    expected.http_status(kind)
                )
            }
            Sentence::JsonRpcErrorInfo => format!(
                "{} as {} words it: a missing ErrorInfo is judged as a {} is",
                "ErrorInfo in error.data",
                expected.tag,
                expected.jsonrpc_error_info.as_str()
            ),
            Sentence::RestMediaType => format!(
                "{} as {} names it; any other media type warns (SHOULD)",
                expected.rest_media_types.0.join(" or "),
                expected.tag
            ),
            Sentence::InterfaceChoice => INTERFACE_CHOICE.into(),
            Sentence::CardCanonicalForm => "§8.4.1 keeps an optional field set to its default \
                 while §8.4.2 and §8.4.3 strip every default-valued property: a signature over \
                 any of the canonical forms a careful reader can derive verifies"
                .into(),
        }
    }
}

/// The reading of §5.2 against §8.3.2 (client mode's `client.interface.first-supported`, whose
/// `reading` in `fixtures/client-plays.json` says the same).
pub const INTERFACE_CHOICE: &str = "§5.2 lets a client choose any protocol the agent declares \
     (MAY) and §8.3.2 has it select the first supported interface and prefer earlier entries \
     (MUST). Read together: the choice among protocols (bindings) is the client's, and among \
     interfaces of a protocol it uses the first. The kit's card lists two interfaces of the same \
     binding and version, so §5.2 leaves no choice to make there: a client that uses the second \
     fails on 1.0. A client that passes over an interface of a binding it speaks for one of \
     another binding is not failed (§5.2). On 0.3 the rule is §5.6.3's rule 2, a SHOULD: WARN";

/// A check's record of the contested sentences it met, and of the canonical forms of the
/// card's signatures that verified.
#[derive(Debug, Default)]
pub struct Met {
    /// Each sentence met, with the ids of the checks that met it.
    pub sentences: BTreeMap<Sentence, Vec<String>>,
    /// Each signature (by its index in `signatures`) and the canonical forms it verified over.
    pub signatures: BTreeMap<usize, Vec<&'static str>>,
}

/// The run's record of what its checks met: shared by every check's [`Judged`].
pub type MetLog = Arc<Mutex<Met>>;

/// The run's judging, with the check it is judging and the run's record of what was met.
#[derive(Debug, Clone, Default)]
pub struct Judged {
    pub judging: Judging,
    pub check: &'static str,
    pub met: MetLog,
}

tokio::task_local! {
    static JUDGED: Judged;
}

/// Runs `future` (one check) under `judged`.
pub async fn under<F: std::future::Future>(judged: Judged, future: F) -> F::Output {
    JUDGED.scope(judged, future).await
}

/// The judging of the check running; the default ([`Judging::Tolerant`]) outside a run.
pub fn judging() -> Judging {
    JUDGED.try_with(|j| j.judging).unwrap_or_default()
}

/// Notes that the check running met `sentence`.
pub fn note(sentence: Sentence) {
    let _ = JUDGED.try_with(|j| {
        let mut met = j.met.lock().unwrap_or_else(|e| e.into_inner());
        let checks = met.sentences.entry(sentence).or_default();
        if !checks.iter().any(|c| c == j.check) {
            checks.push(j.check.to_string());
        }
    });
}

/// Notes that signature `index` of the card verified over the canonical forms `forms`.
pub fn note_signature(index: usize, forms: Vec<&'static str>) {
    note(Sentence::CardCanonicalForm);
    let _ = JUDGED.try_with(|j| {
        let mut met = j.met.lock().unwrap_or_else(|e| e.into_inner());
        let known = met.signatures.entry(index).or_default();
        for form in forms {
            if !known.contains(&form) {
                known.push(form);
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_latest_table_is_the_one_error_kind_gives() {
        for kind in ErrorKind::A2A {
            let row = Revision::latest().error(*kind).expect("listed");
            assert_eq!(row.grpc, kind.grpc_status(), "{kind}");
            assert_eq!(row.http, kind.http_status(), "{kind}");
        }
        assert!(Revision::latest().errors.is_empty());
        // An older revision lists only A2A errors, each once, each with a row that differs.
        for r in REVISIONS {
            for (i, changed) in r.errors.iter().enumerate() {
                assert!(ErrorKind::A2A.contains(&changed.kind), "{r}");
                assert!(r.errors[..i].iter().all(|o| o.kind != changed.kind), "{r}");
                let latest = (changed.kind.grpc_status(), changed.kind.http_status());
                assert_ne!((changed.grpc, changed.http), latest, "{r} {}", changed.kind);
            }
        }
        assert_eq!(Revision::latest().error(ErrorKind::InvalidParams), None);
    }

    #[test]
    fn the_six_rows_1_0_1_changed() {
        let changed: Vec<&str> = ErrorKind::A2A
            .iter()
            .filter(|k| error_row_differs(**k))
            .map(|k| k.name())
            .collect();
        assert_eq!(
            changed,
            [
                "TaskNotCancelableError",
                "PushNotificationNotSupportedError",
                "UnsupportedOperationError",
                "ContentTypeNotSupportedError",
                "InvalidAgentResponseError",
                "VersionNotSupportedError",
            ]
        );
        let old = Revision::named("1.0.0").expect("a revision");
        assert_eq!(old.http_status(ErrorKind::TaskNotCancelable), 409);
        assert_eq!(
            old.grpc_status(ErrorKind::VersionNotSupported),
            "UNIMPLEMENTED"
        );
        assert_eq!(old.http_status(ErrorKind::Internal), 500);
    }

    #[test]
    fn judging_by_name() {
        assert_eq!(Judging::named("latest"), Some(Judging::Tolerant));
        assert_eq!(
            Judging::named("1.0.1")
                .map(Judging::revision)
                .map(|r| r.tag),
            Some("1.0.1")
        );
        assert!(!Judging::named("1.0.1").expect("a revision").tolerant());
        assert_eq!(Judging::named("1.0.2"), None);
        assert_eq!(Judging::names(), ["1.0.0", "1.0.1", "latest"]);
        let tolerated: Vec<&str> = Judging::Tolerant.tolerated().map(|r| r.tag).collect();
        assert_eq!(tolerated, ["1.0.0"]);
        assert_eq!(
            Judging::named("1.0.0")
                .expect("a revision")
                .tolerated()
                .count(),
            0
        );
    }
}
