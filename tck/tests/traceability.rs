//! Traceability: the requirements registries (`tck/requirements/a2a-v1.0.toml` and
//! `a2a-v0.3.toml`) and the checks agree. Every registry entry is either tested (and the checks
//! it names cite it back), planned or untestable with a reason; every check cites registry
//! entries of either version; a check citing a 0.3 sentence runs on 0.3 interfaces (or on the
//! card), and a check that runs on an interface of a version cites a sentence of that version;
//! every official TCK id a check maps to exists, and every ACTS test id a check names is
//! listed in `fixtures/acts-tests.json`, whose coverage status agrees with the checks and with
//! the README's "ACTS coverage" table.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::path::PathBuf;

use serde::Deserialize;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Registry {
    requirement: Vec<Requirement>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Requirement {
    id: String,
    section: String,
    level: String,
    applies_to: String,
    text: String,
    checks: Option<Vec<String>>,
    planned: Option<String>,
    untestable: Option<String>,
}

impl Requirement {
    fn checks(&self) -> &[String] {
        self.checks.as_deref().unwrap_or_default()
    }

    /// A server-side MUST: the sentence binds agents and has an upper-case MUST in its keywords.
    fn is_server_must(&self) -> bool {
        matches!(self.applies_to.as_str(), "server" | "both") && self.level.contains("MUST")
    }
}

const APPLIES_TO: &[&str] = &[
    "server",
    "client",
    "both",
    "ops/security",
    "binding-author",
    "doc",
];

/// The 129 requirement ids of the official A2A TCK (`a2aproject/a2a-tck`, branch 1.0-dev,
/// `tck/requirements/*.py`).
const OFFICIAL_TCK_IDS: [&str; 129] = [
    "CARD-DISC-001",
    "CARD-PROTO-001",
    "CARD-PROTO-002",
    "CARD-STRUCT-001",
    "CARD-EXT-001",
    "CARD-EXT-002",
    "CARD-SIGN-001",
    "CARD-SIGN-002",
    "CARD-SIGN-003",
    "CARD-SIGN-004",
    "CARD-CACHE-001",
    "CARD-CACHE-002",
    "CARD-CACHE-003",
    "AUTH-TLS-001",
    "AUTH-TLS-002",
    "AUTH-SERVER-001",
    "AUTH-SERVER-002",
    "AUTH-INTASK-001",
    "AUTH-INTASK-002",
    "AUTH-INTASK-003",
    "AUTH-INTASK-004",
    "AUTH-INTASK-005",
    "AUTH-INTASK-006",
    "AUTH-SCOPE-001",
    "AUTH-SCOPE-002",
    "AUTH-SCOPE-003",
    "GRPC-SVC-001",
    "GRPC-SVC-002",
    "GRPC-SVC-003",
    "GRPC-META-001",
    "GRPC-ERR-001",
    "GRPC-ERR-002",
    "GRPC-ERR-003",
    "HTTP_JSON-URL-001",
    "HTTP_JSON-URL-002",
    "HTTP_JSON-SVC-001",
    "HTTP_JSON-SVC-002",
    "HTTP_JSON-QP-001",
    "HTTP_JSON-ERR-001",
    "HTTP_JSON-ERR-002",
    "HTTP_JSON-STATUS-001",
    "HTTP_JSON-SSE-001",
    "JSONRPC-FMT-001",
    "JSONRPC-FMT-002",
    "JSONRPC-SVC-001",
    "JSONRPC-SVC-002",
    "JSONRPC-ERR-001",
    "JSONRPC-ERR-002",
    "JSONRPC-ERR-003",
    "JSONRPC-SSE-001",
    "JSONRPC-SSE-002",
    "CORE-SEND-001",
    "CORE-SEND-002",
    "CORE-SEND-003",
    "CORE-STREAM-001",
    "CORE-STREAM-002",
    "CORE-STREAM-003",
    "CORE-GET-001",
    "CORE-GET-002",
    "CORE-LIST-001",
    "CORE-LIST-002",
    "CORE-LIST-003",
    "CORE-LIST-004",
    "CORE-LIST-005",
    "CORE-CANCEL-001",
    "CORE-CANCEL-002",
    "CORE-CANCEL-003",
    "CORE-EXECUTION-MODE-001",
    "CORE-EXECUTION-MODE-002",
    "CORE-ERR-001",
    "CORE-ERR-002",
    "CORE-CAP-001",
    "CORE-CAP-002",
    "CORE-CAP-003",
    "CORE-CAP-004",
    "CORE-MULTI-001",
    "CORE-MULTI-001a",
    "CORE-MULTI-002",
    "CORE-MULTI-002a",
    "CORE-MULTI-003",
    "CORE-MULTI-004",
    "CORE-MULTI-005",
    "CORE-MULTI-006",
    "CORE-HIST-001",
    "CORE-HIST-002",
    "CORE-HIST-003",
    "CORE-HIST-004",
    "CORE-HIST-005",
    "CORE-HIST-006",
    "DM-TASK-001",
    "DM-TASK-002",
    "DM-MSG-001",
    "DM-MSG-002",
    "DM-PART-001",
    "DM-ART-001",
    "DM-STATUS-001",
    "DM-SERIAL-001",
    "DM-SERIAL-002",
    "DM-SERIAL-003",
    "DM-SERIAL-004",
    "DM-SERIAL-005",
    "BIND-EQUIV-001",
    "BIND-EQUIV-002",
    "BIND-EQUIV-003",
    "BIND-EQUIV-004",
    "BIND-FIELD-001",
    "PUSH-CREATE-001",
    "PUSH-CREATE-002",
    "PUSH-GET-001",
    "PUSH-GET-002",
    "PUSH-LIST-001",
    "PUSH-DEL-001",
    "PUSH-DEL-002",
    "PUSH-DELIVER-001",
    "PUSH-DELIVER-002",
    "PUSH-DELIVER-003",
    "STREAM-ORDER-001",
    "STREAM-ORDER-002",
    "STREAM-ORDER-003",
    "STREAM-ORDER-004",
    "STREAM-SUB-001",
    "STREAM-SUB-002",
    "STREAM-SUB-003",
    "STREAM-SUB-004",
    "VER-CLIENT-001",
    "VER-SERVER-001",
    "VER-SERVER-002",
    "VER-SERVER-003",
    "VER-CLIENT-002",
];

/// The registries: file name, id prefix of its entries.
const REGISTRIES: &[(&str, &str)] = &[
    ("a2a-v1.0.toml", "V10-"),
    ("a2a-v0.3.toml", "V03-"),
    ("external.toml", "EXT-"),
];

fn load(file: &str) -> Vec<Requirement> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("requirements")
        .join(file);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let registry: Registry =
        toml::from_str(&text).unwrap_or_else(|e| panic!("{} does not parse: {e}", path.display()));
    registry.requirement
}

/// The entries of every registry.
fn registry() -> Vec<Requirement> {
    REGISTRIES.iter().flat_map(|(file, _)| load(file)).collect()
}

fn blank(value: &str) -> bool {
    value.trim().is_empty()
}

#[test]
fn entries_are_unique_and_complete() {
    let mut seen = HashSet::new();
    for (file, prefix) in REGISTRIES {
        let entries = load(file);
        assert!(!entries.is_empty(), "the registry {file} is empty");
        for entry in &entries {
            assert!(seen.insert(entry.id.clone()), "duplicate id {}", entry.id);
            assert!(
                entry.id.starts_with(prefix),
                "{}: id in {file} must start with {prefix}",
                entry.id
            );
            complete(entry);
        }
    }
}

fn complete(entry: &Requirement) {
    for (field, value) in [
        ("section", &entry.section),
        ("level", &entry.level),
        ("text", &entry.text),
    ] {
        assert!(!blank(value), "{}: empty {field}", entry.id);
    }
    assert!(
        !entry.text.contains('\n'),
        "{}: text must be one line",
        entry.id
    );
    assert!(
        APPLIES_TO.contains(&entry.applies_to.as_str()),
        "{}: applies_to {:?} is not one of {APPLIES_TO:?}",
        entry.id,
        entry.applies_to
    );
}

#[test]
fn every_entry_has_exactly_one_disposition() {
    for entry in registry() {
        let given = [
            entry.checks.is_some(),
            entry.planned.is_some(),
            entry.untestable.is_some(),
        ];
        assert_eq!(
            given.iter().filter(|g| **g).count(),
            1,
            "{}: needs exactly one of checks, planned, untestable",
            entry.id
        );
        if let Some(checks) = &entry.checks {
            assert!(!checks.is_empty(), "{}: checks is empty", entry.id);
            let unique: HashSet<&String> = checks.iter().collect();
            assert_eq!(
                unique.len(),
                checks.len(),
                "{}: a check listed twice",
                entry.id
            );
        }
        for (field, value) in [
            ("planned", &entry.planned),
            ("untestable", &entry.untestable),
        ] {
            if let Some(value) = value {
                assert!(!blank(value), "{}: {field} is empty", entry.id);
            }
        }
    }
}

#[test]
fn listed_checks_exist() {
    let known: HashSet<&str> = (a2a_tck::suite::checks::all().iter().map(|c| c.id))
        .chain(a2a_tck::client::client_checks::all().iter().map(|c| c.id))
        .collect();
    for entry in registry() {
        for check in entry.checks() {
            assert!(
                known.contains(check.as_str()),
                "{} lists {check}, which is not a check of the kit",
                entry.id
            );
        }
    }
}

/// A check's id and the statements it cites.
struct Cited<'a> {
    id: &'a str,
    statements: Vec<&'a str>,
}

#[test]
fn client_checks_cite_client_sentences() {
    let entries = registry();
    for check in a2a_tck::client::client_checks::all() {
        for statement in check.spec.statements {
            let entry = entries.iter().find(|e| e.id == *statement);
            let applies = entry.map(|e| e.applies_to.as_str());
            assert!(
                matches!(applies, Some("client" | "both")),
                "{} cites {statement}, which binds {applies:?}, not clients",
                check.id
            );
        }
    }
}

#[test]
fn checks_cite_exactly_the_entries_that_list_them() {
    let entries = registry();
    let ids: HashSet<&str> = entries.iter().map(|e| e.id.as_str()).collect();
    let mut listing: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for entry in &entries {
        for check in entry.checks() {
            listing
                .entry(check.as_str())
                .or_default()
                .insert(entry.id.as_str());
        }
    }
    let mut problems = Vec::new();
    // The agent checks and the client checks (`a2a-tck client`) alike.
    let client: Vec<(&str, Vec<&str>)> = (a2a_tck::client::client_checks::all().iter())
        .map(|c| (c.id, c.spec.statements.to_vec()))
        .collect();
    let server: Vec<(&str, Vec<&str>)> = (a2a_tck::suite::checks::all().iter())
        .map(|c| (c.id, c.spec.statements.to_vec()))
        .collect();
    for (id, statements) in server.into_iter().chain(client) {
        let check = Cited { id, statements };
        let cited: BTreeSet<&str> = check.statements.iter().copied().collect();
        for statement in &cited {
            if !ids.contains(statement) {
                problems.push(format!(
                    "{} cites {statement}, which is not in the registry",
                    check.id
                ));
            }
        }
        let listed = listing.remove(check.id).unwrap_or_default();
        if cited != listed {
            problems.push(format!(
                "{}: cites {cited:?}, but the registry lists it under {listed:?}",
                check.id
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn every_check_cites_a_statement() {
    for check in a2a_tck::suite::checks::all() {
        assert!(
            !check.spec.statements.is_empty(),
            "{} cites no statement",
            check.id
        );
    }
}

#[test]
fn maps_to_ids_are_official_tck_ids() {
    let official: HashSet<&str> = OFFICIAL_TCK_IDS.into_iter().collect();
    assert_eq!(official.len(), 129, "the official id list has duplicates");
    for check in a2a_tck::suite::checks::all() {
        for id in check.maps_to {
            assert!(
                official.contains(id),
                "{} maps to {id}, which is not an official TCK requirement id",
                check.id
            );
        }
    }
}

#[test]
fn checks_citing_0_3_sentences_run_on_0_3() {
    use a2a_tck::suite::check::{ProtocolVersion, Scope};
    for check in a2a_tck::suite::checks::all() {
        if !check.spec.statements.iter().any(|s| s.starts_with("V03-")) {
            continue;
        }
        let runs_on_0_3 = match check.scope {
            Scope::Card => true,
            Scope::Interface { versions, .. } | Scope::Play { versions, .. } => {
                versions.contains(&ProtocolVersion::V0_3)
            }
        };
        assert!(
            runs_on_0_3,
            "{} cites a 0.3 sentence but never runs on a 0.3 interface",
            check.id
        );
    }
}

#[test]
fn coverage_summary() {
    for (file, _) in REGISTRIES {
        let entries = load(file);
        let count = |pick: fn(&Requirement) -> bool| entries.iter().filter(|e| pick(e)).count();
        let covered = count(|e| e.checks.is_some());
        let planned = count(|e| e.planned.is_some());
        let untestable = count(|e| e.untestable.is_some());
        let server_must = count(Requirement::is_server_must);
        let server_must_covered = count(|e| e.is_server_must() && e.checks.is_some());
        assert_eq!(covered + planned + untestable, entries.len());
        eprintln!(
            "{file}: {} entries: {covered} covered, {planned} planned, {untestable} untestable; \
             server-side MUST entries: {server_must_covered} of {server_must} covered",
            entries.len()
        );
    }
}

/// One entry of `fixtures/acts-tests.json`: an ACTS test, in the kit's words.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ActsTest {
    id: String,
    file: String,
    level: String,
    summary: String,
    status: String,
    note: Option<String>,
    /// `level`: the kit's expectation is the test's own, at another level.
    #[allow(dead_code)]
    differs: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ActsFile {
    #[allow(dead_code)]
    about: String,
    statuses: BTreeMap<String, String>,
    tests: Vec<ActsTest>,
}

fn acts_tests() -> ActsFile {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fixtures/acts-tests.json");
    let text = std::fs::read_to_string(&path).expect("fixtures/acts-tests.json");
    serde_json::from_str(&text).expect("fixtures/acts-tests.json parses")
}

/// The ACTS test ids each check names, by test id.
fn checks_by_acts_id() -> BTreeMap<&'static str, Vec<&'static str>> {
    let mut by_id: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for check in a2a_tck::suite::checks::all() {
        for id in check.acts {
            by_id.entry(id).or_default().push(check.id);
        }
    }
    by_id
}

#[test]
fn acts_file_lists_the_111_tests_once_each() {
    let file = acts_tests();
    assert_eq!(file.tests.len(), 111, "ACTS 0.1.0 has 111 tests");
    let mut seen = HashSet::new();
    for test in &file.tests {
        assert!(seen.insert(test.id.as_str()), "{} is listed twice", test.id);
        assert!(
            matches!(test.level.as_str(), "must" | "should" | "may"),
            "{}: level {:?}",
            test.id,
            test.level
        );
        assert!(
            test.file.ends_with(".acts.yaml"),
            "{}: file {:?}",
            test.id,
            test.file
        );
        assert!(!test.summary.is_empty(), "{} has no summary", test.id);
        assert!(
            file.statuses.contains_key(&test.status),
            "{}: status {:?} is not one of {:?}",
            test.id,
            test.status,
            file.statuses.keys()
        );
        if matches!(
            test.status.as_str(),
            "partly" | "not-covered" | "read-differently"
        ) {
            assert!(
                test.note.as_deref().is_some_and(|n| !n.is_empty()),
                "{} is {} and says not why",
                test.id,
                test.status
            );
        }
    }
}

#[test]
fn acts_ids_named_by_checks_are_acts_tests() {
    let file = acts_tests();
    let known: HashSet<&str> = file.tests.iter().map(|t| t.id.as_str()).collect();
    for check in a2a_tck::suite::checks::all() {
        let mut own = HashSet::new();
        for id in check.acts {
            assert!(
                known.contains(id),
                "{} names {id}, which is not in fixtures/acts-tests.json",
                check.id
            );
            assert!(own.insert(id), "{} names {id} twice", check.id);
        }
    }
}

#[test]
fn acts_status_agrees_with_the_checks() {
    let by_id = checks_by_acts_id();
    for test in acts_tests().tests {
        let named = by_id.contains_key(test.id.as_str());
        match test.status.as_str() {
            "not-covered" | "client-only" => assert!(
                !named,
                "{} is {} but {:?} name it",
                test.id,
                test.status,
                by_id[test.id.as_str()]
            ),
            _ => assert!(
                named,
                "{} is {} but no check names it",
                test.id, test.status
            ),
        }
    }
}

#[test]
fn readme_acts_table_agrees_with_the_checks() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../README.md");
    let readme = std::fs::read_to_string(&path).expect("README.md");
    let start = readme
        .find("\n## ACTS coverage\n")
        .expect("README.md has a section \"ACTS coverage\"");
    let section = &readme[start + 1..];
    let section = &section[..section[3..].find("\n## ").map_or(section.len(), |i| i + 3)];
    let by_id = checks_by_acts_id();
    let mut rows = BTreeMap::new();
    for line in section.lines().filter(|l| l.starts_with("| ")) {
        let cells: Vec<&str> = line.trim_matches('|').split(" | ").map(str::trim).collect();
        assert_eq!(cells.len(), 4, "README ACTS row {line:?}");
        if cells[0] == "ACTS test" {
            continue;
        }
        let checks: Vec<&str> = cells[2]
            .split(", ")
            .filter(|c| *c != "—")
            .map(|c| c.trim_matches('`'))
            .collect();
        let status = cells[3]
            .split(':')
            .next()
            .unwrap_or_default()
            .replace(' ', "-");
        let previous = rows.insert(cells[0], (cells[1], checks, status));
        assert!(previous.is_none(), "README lists {} twice", cells[0]);
    }
    let tests = acts_tests().tests;
    assert_eq!(
        rows.len(),
        tests.len(),
        "README rows against fixtures/acts-tests.json"
    );
    for test in &tests {
        let (level, checks, status) = rows
            .get(test.id.as_str())
            .unwrap_or_else(|| panic!("README has no row for {}", test.id));
        assert_eq!(*level, test.level, "README level of {}", test.id);
        assert_eq!(*status, test.status, "README status of {}", test.id);
        let named: BTreeSet<&str> = by_id
            .get(test.id.as_str())
            .map(|c| c.iter().copied().collect())
            .unwrap_or_default();
        let listed: BTreeSet<&str> = checks.iter().copied().collect();
        assert_eq!(listed, named, "README checks of {}", test.id);
    }
}

/// Whether a check runs on interfaces of a version (card checks run once, on no interface).
fn runs_on(
    check: &a2a_tck::suite::check::Check,
    version: a2a_tck::suite::check::ProtocolVersion,
) -> bool {
    match check.scope {
        a2a_tck::suite::check::Scope::Card => false,
        a2a_tck::suite::check::Scope::Interface { versions, .. }
        | a2a_tck::suite::check::Scope::Play { versions, .. } => versions.contains(&version),
    }
}

/// A check that runs on an interface of a version judges it by a sentence of that version: a
/// 0.3 interface by a `V03-` statement, a 1.0 interface by a `V10-` one. A sentence of the
/// other version, however close, is not the rule of this one. Card checks run once, on the
/// card, and are not held to this: a card of one shape is judged by the sentences of its own
/// version by checks of that version (the 0.3 card checks cite 0.3, the others 1.0).
#[test]
fn checks_cite_a_sentence_of_every_version_they_run_on() {
    use a2a_tck::suite::check::ProtocolVersion;
    let mut problems = Vec::new();
    for check in a2a_tck::suite::checks::all() {
        for (version, prefix) in [
            (ProtocolVersion::V1_0, "V10-"),
            (ProtocolVersion::V0_3, "V03-"),
        ] {
            if runs_on(&check, version)
                && !check.spec.statements.iter().any(|s| s.starts_with(prefix))
            {
                problems.push(format!(
                    "{} runs on {version:?} interfaces but cites no {prefix} statement: {:?}",
                    check.id, check.spec.statements
                ));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "{} checks:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

/// Whether a registry level carries an upper-case keyword of obligation.
fn binds(level: &str) -> bool {
    level.contains("MUST") || level.contains("REQUIRED") || level.contains("SHALL")
}

/// A MUST check FAILs an agent (or a client): at least one sentence it cites must say MUST,
/// REQUIRED or SHALL (or MUST NOT) in upper case. A lower-case "must", a MAY, a CAN or a
/// sentence without a keyword supports a SHOULD or MAY check at most, whose miss is a WARN.
#[test]
fn must_checks_cite_a_binding_sentence() {
    use a2a_tck::suite::check::Level;
    let entries = registry();
    let level_of = |id: &str| {
        entries
            .iter()
            .find(|e| e.id == id)
            .map(|e| e.level.as_str())
    };
    let server = (a2a_tck::suite::checks::all().into_iter())
        .filter(|c| c.level == Level::Must)
        .map(|c| (c.id.to_string(), c.spec.statements.to_vec()));
    let client = (a2a_tck::client::client_checks::all().iter())
        .filter(|c| c.level == Level::Must)
        .map(|c| (c.id.to_string(), c.spec.statements.to_vec()));
    let mut problems = Vec::new();
    for (id, statements) in server.chain(client) {
        let statements: Vec<&str> = statements;
        let levels: Vec<(&str, &str)> = (statements.iter())
            .map(|s| (*s, level_of(s).unwrap_or("?")))
            .collect();
        if !levels.iter().any(|(_, level)| binds(level)) {
            problems.push(format!("{id}: {levels:?}"));
        }
    }
    assert!(
        problems.is_empty(),
        "{} MUST checks cite no sentence with MUST, REQUIRED or SHALL:\n{}",
        problems.len(),
        problems.join("\n")
    );
}
