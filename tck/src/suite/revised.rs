//! The checks whose expectation differs by revision of A2A 1.0 (see [`crate::facts::revision`]):
//! which sentences each meets, the level it is judged at under a pinned revision, and the
//! lines `a2a-tck explain` and `list --json` show.

use crate::facts::a2a::ErrorKind;
use crate::facts::revision::{Judging, Keyword, Sentence};
use crate::suite::check::{Check, Level};

/// A check and the sentences it judges that the revisions word differently.
pub struct Revised {
    pub check: &'static str,
    pub sentences: &'static [Sentence],
}

const NOT_CANCELABLE: &[Sentence] = &[Sentence::error_row(ErrorKind::TaskNotCancelable)];
const VERSION: &[Sentence] = &[Sentence::error_row(ErrorKind::VersionNotSupported)];
const UNSUPPORTED: &[Sentence] = &[Sentence::error_row(ErrorKind::UnsupportedOperation)];

/// Every check whose expectation differs by revision, in catalogue order.
pub const REVISED: &[Revised] = &[
    Revised {
        check: "send.terminal-task-rejects-message",
        sentences: UNSUPPORTED,
    },
    Revised {
        check: "send.unsupported-media-type-rejected",
        sentences: &[Sentence::error_row(ErrorKind::ContentTypeNotSupported)],
    },
    Revised {
        check: "tasks.cancel.open-task-becomes-canceled",
        sentences: NOT_CANCELABLE,
    },
    Revised {
        check: "tasks.cancel.canceled-task-stays-canceled",
        sentences: NOT_CANCELABLE,
    },
    Revised {
        check: "tasks.cancel.terminal-task-not-cancelable",
        sentences: NOT_CANCELABLE,
    },
    Revised {
        check: "jsonrpc.errors.error-info-in-data",
        sentences: &[Sentence::JsonRpcErrorInfo],
    },
    Revised {
        check: "versioning.unsupported-version-rejected",
        sentences: VERSION,
    },
    Revised {
        check: "versioning.missing-version-means-0-3",
        sentences: VERSION,
    },
    Revised {
        check: "capabilities.streaming-absent-rejects-streaming",
        sentences: UNSUPPORTED,
    },
    Revised {
        check: "capabilities.push-absent-rejects-push-config",
        sentences: &[Sentence::error_row(ErrorKind::PushNotificationNotSupported)],
    },
    Revised {
        check: "capabilities.extended-card-absent-rejected",
        sentences: UNSUPPORTED,
    },
    Revised {
        check: "subscribe.terminal-task-unsupported",
        sentences: UNSUPPORTED,
    },
    Revised {
        check: "rest.content-type-a2a-json",
        sentences: &[Sentence::RestMediaType],
    },
    Revised {
        check: "rest.service-parameters-as-headers",
        sentences: VERSION,
    },
    Revised {
        check: "grpc.service-parameters-in-metadata",
        sentences: VERSION,
    },
];

/// The sentences check `id` judges that the revisions word differently; empty for most.
pub fn sentences(id: &str) -> &'static [Sentence] {
    REVISED
        .iter()
        .find(|r| r.check == id)
        .map_or(&[], |r| r.sentences)
}

/// The level `check` is judged at under `judging`: its own, except where a pinned revision
/// gives its sentence another keyword (1.0.0 makes ErrorInfo in a JSON-RPC `error.data` a
/// MUST, where 1.0.1 and the default judging make it a SHOULD).
pub fn level(check: &Check, judging: Judging) -> Level {
    let Judging::Pinned(revision) = judging else {
        return check.level;
    };
    let keyword = sentences(check.id).iter().find_map(|s| match s {
        Sentence::JsonRpcErrorInfo => Some(revision.jsonrpc_error_info),
        _ => None,
    });
    match keyword {
        Some(Keyword::Must) => Level::Must,
        Some(Keyword::Should) => Level::Should,
        Some(Keyword::None) | None => check.level,
    }
}

/// One line per sentence of check `id` that the revisions word differently: what each
/// revision says, and how each `--spec-revision` judges it.
pub fn differences(id: &str) -> Vec<String> {
    sentences(id)
        .iter()
        .map(|sentence| {
            let says: Vec<String> = sentence
                .by_revision()
                .into_iter()
                .map(|(tag, text)| format!("{tag}: {text}"))
                .collect();
            format!(
                "§{} {}: {}. Default (latest): {}. Pinned: the revision's own text, no tolerance.",
                sentence.section(),
                sentence.title(),
                says.join("; "),
                sentence.reading(Judging::Tolerant)
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_revised_check_exists_once() {
        let catalog = crate::suite::checks::all();
        for (i, r) in REVISED.iter().enumerate() {
            assert!(catalog.iter().any(|c| c.id == r.check), "{}", r.check);
            assert!(
                REVISED[..i].iter().all(|o| o.check != r.check),
                "{} twice",
                r.check
            );
        }
    }

    #[test]
    fn error_info_is_a_must_under_1_0_0_only() {
        let catalog = crate::suite::checks::all();
        let check = catalog
            .iter()
            .find(|c| c.id == "jsonrpc.errors.error-info-in-data")
            .expect("in the catalogue");
        let pinned = |tag| level(check, Judging::named(tag).expect("a revision"));
        assert_eq!(pinned("1.0.0"), Level::Must);
        assert_eq!(pinned("1.0.1"), Level::Should);
        assert_eq!(level(check, Judging::Tolerant), Level::Should);
        assert!(differences(check.id)[0].contains("1.0.0: MUST"));
    }
}
