//! ARCHITECTURE.md held against the tree: every file its recipes name exists, the binding
//! recipe names exactly the files of the kit that name a binding (`Binding::Grpc`), and no
//! `.rs` file of the workspace is over 600 lines unless the map lists it with its reason.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The most lines a source file has before the map must say why.
const MOST_LINES: usize = 600;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn architecture() -> String {
    std::fs::read_to_string(root().join("ARCHITECTURE.md")).expect("ARCHITECTURE.md")
}

/// The text of the section under `heading` (a `## ` or `### ` line), to the next heading of
/// its level or above.
fn section<'a>(text: &'a str, heading: &str) -> &'a str {
    let level = heading.split(' ').next().unwrap_or_default().len();
    let start = text
        .find(&format!("\n{heading}\n"))
        .unwrap_or_else(|| panic!("ARCHITECTURE.md has no section {heading:?}"));
    let body = &text[start + heading.len() + 2..];
    let end = (body.match_indices("\n#"))
        .find(|(at, _)| {
            let hashes = body[at + 1..].chars().take_while(|c| *c == '#').count();
            hashes <= level && body[at + 1 + hashes..].starts_with(' ')
        })
        .map_or(body.len(), |(at, _)| at);
    &body[..end]
}

/// The file paths a text names in backticks: a token with a `/` or a file's extension, without
/// spaces or placeholders (`negative/<prefix>.rs`), and inside the repository (not `../`).
fn paths_in(text: &str) -> BTreeSet<String> {
    let mut paths = BTreeSet::new();
    for (i, token) in text.split('`').enumerate() {
        let file_like = [".rs", ".json", ".md", ".toml", ".py", ".sh"]
            .iter()
            .any(|ext| token.ends_with(ext));
        let named = i % 2 == 1
            && (token.contains('/') || file_like)
            && !token.contains(|c: char| c.is_whitespace() || "<>*(){}[]:,\"".contains(c))
            && !token.starts_with("../");
        if named {
            paths.insert(token.to_string());
        }
    }
    paths
}

/// Where a path the map names is, relative to the repository: the map names a path from the
/// repository, a crate, or a crate's sources (`suite/ctx.rs` is `tck/src/suite/ctx.rs`).
fn resolve(path: &str) -> Option<String> {
    let bases = ["", "tck/", "tck/src/", "tck/tests/", "reference-agent/src/"];
    let root = root();
    (bases.iter())
        .map(|base| format!("{base}{}", path.trim_end_matches('/')))
        .find(|candidate| root.join(candidate).exists())
}

/// Every `.rs` file under `dir` (relative to the repository), with its text.
fn sources(dir: &Path, out: &mut Vec<(String, String)>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries {
        let path = entry.expect("an entry").path();
        if path.is_dir() {
            if path.file_name().is_some_and(|n| n == "target") {
                continue;
            }
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let rel = path.strip_prefix(root()).expect("below the root");
            let text = std::fs::read_to_string(&path).expect("a source file");
            out.push((rel.to_string_lossy().replace('\\', "/"), text));
        }
    }
}

fn workspace_sources() -> Vec<(String, String)> {
    let mut files = Vec::new();
    for dir in ["tck", "reference-agent", "proto"] {
        sources(&root().join(dir), &mut files);
    }
    files
}

#[test]
fn every_file_a_recipe_names_exists() {
    let text = architecture();
    let recipes = section(&text, "## Recipes");
    let paths = paths_in(recipes);
    assert!(
        paths.len() > 20,
        "the reader found the recipes' paths: {paths:?}"
    );
    let missing: Vec<&String> = paths.iter().filter(|p| resolve(p).is_none()).collect();
    assert!(
        missing.is_empty(),
        "paths the recipes name that are not in the tree: {missing:?}"
    );
}

#[test]
fn the_binding_recipe_names_every_file_that_names_a_binding() {
    let text = architecture();
    let recipe = section(&text, "### Add a binding");
    let listed: BTreeSet<String> = (paths_in(recipe).iter())
        .filter_map(|p| resolve(p))
        .filter(|p| p.starts_with("tck/src/") && p.ends_with(".rs"))
        .collect();
    let naming: BTreeSet<String> = (workspace_sources().into_iter())
        .filter(|(rel, text)| rel.starts_with("tck/src/") && text.contains("Binding::Grpc"))
        .map(|(rel, _)| rel)
        .collect();
    let unlisted: Vec<&String> = naming.difference(&listed).collect();
    let stale: Vec<&String> = listed.difference(&naming).collect();
    assert!(
        unlisted.is_empty() && stale.is_empty(),
        "files naming Binding::Grpc the binding recipe does not list: {unlisted:?}; files it \
         lists that name no binding: {stale:?}"
    );
}

/// The files the map lets be longer, each with its reason: `- `path`: reason` lines of its
/// section on long files.
fn long_files_allowed(text: &str) -> Vec<(String, String)> {
    let list = section(text, "## Files over 600 lines");
    (list.lines())
        .filter_map(|line| line.strip_prefix("- `"))
        .filter_map(|line| {
            let (path, reason) = line.split_once('`')?;
            let reason = reason.trim_start_matches(':').trim();
            Some((path.to_string(), reason.to_string()))
        })
        .collect()
}

#[test]
fn no_source_file_is_over_600_lines_without_a_reason_in_the_map() {
    let text = architecture();
    let allowed = long_files_allowed(&text);
    let mut problems = Vec::new();
    for (path, reason) in &allowed {
        if reason.len() < 10 {
            problems.push(format!("{path} is listed without a reason"));
        }
    }
    let files = workspace_sources();
    assert!(
        files.len() > 100,
        "the reader found the workspace's sources"
    );
    for (rel, text) in &files {
        let lines = text.lines().count();
        let listed = allowed.iter().any(|(path, _)| path == rel);
        if lines > MOST_LINES && !listed {
            problems.push(format!(
                "{rel} has {lines} lines: split it along a seam, or list it with its reason \
                 under \"Files over 600 lines\" in ARCHITECTURE.md"
            ));
        }
        if lines <= MOST_LINES && listed {
            problems.push(format!(
                "{rel} has {lines} lines: take it off the list of long files"
            ));
        }
    }
    for (path, _) in &allowed {
        if !files.iter().any(|(rel, _)| rel == path) {
            problems.push(format!("{path} is listed as long but is not in the tree"));
        }
    }
    assert!(problems.is_empty(), "{problems:#?}");
}

#[test]
fn the_readers_of_the_map_find_paths_sections_and_reasons() {
    let text = "# A\n\n## Recipes\n\n### One\n\n1. `suite/ctx.rs`, `a b`, `x.*`, `neg/<p>.rs`, \
                `../out.md` and `Cargo.toml`.\n\n### Two\n\n`cli/`\n\n## Files over 600 lines\n\n\
                - `tck/src/a.rs`: because.\n\n## Next\n";
    assert_eq!(
        paths_in(section(text, "## Recipes")),
        ["Cargo.toml", "cli/", "suite/ctx.rs"]
            .map(String::from)
            .into()
    );
    assert_eq!(
        section(text, "### One").trim(),
        "1. `suite/ctx.rs`, `a b`, `x.*`, `neg/<p>.rs`, `../out.md` and `Cargo.toml`."
    );
    assert_eq!(
        long_files_allowed(text),
        [("tck/src/a.rs".to_string(), "because.".to_string())]
    );
    assert_eq!(
        resolve("suite/check.rs").as_deref(),
        Some("tck/src/suite/check.rs")
    );
    assert_eq!(
        resolve("policy/build.rs").as_deref(),
        Some("reference-agent/src/policy/build.rs")
    );
}
