//! Import cycles between the top-level modules of the kit (`tck/src`) and of the reference
//! agent (`reference-agent/src`), read from the sources (`crate::name` paths and grouped
//! `use crate::{...}`). The graph has cycles today (see ARCHITECTURE.md, "Known debts"); this
//! test is a ratchet: it fails when a new cycle appears or a known one takes in another module,
//! and when a known one shrinks, so that the list below is kept true as the debts are paid.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The strongly connected groups of modules as they stand: each may only shrink.
const KNOWN: &[(&str, &[&str])] = &[
    (
        "tck/src",
        &[
            "baseline",
            "builtin",
            "card",
            "check",
            "checks",
            "compat",
            "contract",
            "ctx",
            "declarations",
            "durability",
            "durability_phase",
            "evidence",
            "evidence_text",
            "filter",
            "floor",
            "judge",
            "latency",
            "output",
            "probe",
            "report",
            "runner",
            "secrets",
            "shapes",
            "transport",
            "webhook",
            "wire",
        ],
    ),
    ("reference-agent/src", &["error", "policy"]),
    (
        "reference-agent/src",
        &["params", "push", "quirks", "service", "store", "stream"],
    ),
];

/// Every `.rs` file under `dir`, with its path relative to `dir`.
fn sources(dir: &Path, root: &Path, out: &mut Vec<(String, String)>) {
    for entry in std::fs::read_dir(dir).expect("a source folder") {
        let path = entry.expect("an entry").path();
        if path.is_dir() {
            sources(&path, root, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let rel = path.strip_prefix(root).expect("below the root");
            let text = std::fs::read_to_string(&path).expect("a source file");
            out.push((rel.to_string_lossy().replace('\\', "/"), text));
        }
    }
}

/// The import graph of the crate in `src` by top-level module (`a.rs` and `a/` are `a`).
fn graph(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut files = Vec::new();
    sources(src, src, &mut files);
    let top = |rel: &str| {
        let first = rel.split('/').next().unwrap_or(rel);
        first.trim_end_matches(".rs").to_string()
    };
    let mut text_of: BTreeMap<String, String> = BTreeMap::new();
    for (rel, text) in &files {
        let module = top(rel);
        if module == "lib" || module == "main" {
            continue;
        }
        let code: Vec<&str> = text
            .lines()
            .map(|l| l.split("//").next().unwrap_or(l))
            .collect();
        text_of
            .entry(module)
            .or_default()
            .push_str(&code.join("\n"));
    }
    let names: BTreeSet<String> = text_of.keys().cloned().collect();
    let ident = |s: &str| -> String {
        (s.chars())
            .take_while(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '_')
            .collect()
    };
    let mut graph = BTreeMap::new();
    for (module, text) in &text_of {
        let mut edges = BTreeSet::new();
        for (at, _) in text.match_indices("crate::") {
            let rest = &text[at + "crate::".len()..];
            if let Some(group) = rest.strip_prefix('{') {
                // The first name of each top-level item of the group (`a::{x, y}, b`: a, b).
                let mut depth = 0;
                let mut at_item = true;
                for (i, c) in group.char_indices() {
                    match c {
                        '{' => depth += 1,
                        '}' if depth == 0 => break,
                        '}' => depth -= 1,
                        ',' if depth == 0 => at_item = true,
                        c if at_item && !c.is_whitespace() => {
                            edges.insert(ident(&group[i..]));
                            at_item = false;
                        }
                        _ => {}
                    }
                }
            } else {
                edges.insert(ident(rest));
            }
        }
        edges.retain(|n| names.contains(n) && n != module);
        graph.insert(module.clone(), edges);
    }
    graph
}

/// The groups of two or more modules that import each other, each sorted.
fn cycles(graph: &BTreeMap<String, BTreeSet<String>>) -> BTreeSet<Vec<String>> {
    // Reachability by a depth-first search from each module (the graphs have a few dozen).
    let reach = |from: &String| {
        let mut seen = BTreeSet::new();
        let mut stack = vec![from.clone()];
        while let Some(next) = stack.pop() {
            for to in &graph[&next] {
                if seen.insert(to.clone()) {
                    stack.push(to.clone());
                }
            }
        }
        seen
    };
    let reached: BTreeMap<&String, BTreeSet<String>> =
        graph.keys().map(|m| (m, reach(m))).collect();
    let mut groups = BTreeSet::new();
    for a in graph.keys() {
        let group: Vec<String> = (graph.keys())
            .filter(|b| *b == a || (reached[a].contains(*b) && reached[*b].contains(a)))
            .cloned()
            .collect();
        if group.len() > 1 {
            groups.insert(group);
        }
    }
    groups
}

#[test]
fn no_import_cycle_appears_and_the_known_ones_only_shrink() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut problems = Vec::new();
    for crate_src in ["tck/src", "reference-agent/src"] {
        let found = cycles(&graph(&root.join(crate_src)));
        let known: BTreeSet<Vec<String>> = (KNOWN.iter())
            .filter(|(src, _)| *src == crate_src)
            .map(|(_, group)| group.iter().map(|m| m.to_string()).collect())
            .collect();
        for group in found.difference(&known) {
            problems.push(format!(
                "{crate_src}: a new or grown import cycle: {group:?}"
            ));
        }
        for group in known.difference(&found) {
            problems.push(format!(
                "{crate_src}: the known cycle {group:?} is gone or smaller: update KNOWN"
            ));
        }
    }
    assert!(problems.is_empty(), "{problems:#?}");
}

#[test]
fn the_reader_sees_an_added_cycle() {
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    graph.insert("a".into(), ["b".to_string()].into());
    graph.insert("b".into(), BTreeSet::new());
    assert!(cycles(&graph).is_empty());
    graph.get_mut("b").expect("b").insert("a".into());
    assert_eq!(
        cycles(&graph),
        [vec!["a".to_string(), "b".to_string()]].into()
    );
}

/// The reference agent's faults reach its code through the behaviour policy (`policy/`) and
/// the outgoing-JSON pass (`shape.rs`, `shape/`); the feature policies (auth, push, signing,
/// the durable store) are built in `policy/features.rs`. The files listed as debts still read
/// the fault set where they work; the list may only shrink.
#[test]
fn faults_are_read_only_by_the_policy_the_shape_pass_and_the_known_debts() {
    const SEAMS: &[&str] = &["policy/", "shape.rs", "shape/"];
    const DEBTS: &[&str] = &["extensions.rs"];
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../reference-agent/src");
    let mut files = Vec::new();
    sources(&src, &src, &mut files);
    let readers: BTreeSet<String> = (files.iter())
        .filter(|(_, text)| text.contains("has(Fault::"))
        .map(|(rel, _)| rel.clone())
        .filter(|rel| {
            !SEAMS
                .iter()
                .any(|seam| rel.starts_with(seam) || rel == seam)
        })
        .collect();
    let debts: BTreeSet<String> = DEBTS.iter().map(|d| d.to_string()).collect();
    assert_eq!(
        readers, debts,
        "files that read the fault set outside policy/ and shape (left) against the known debts (right)"
    );
}

#[test]
fn the_reader_follows_every_item_of_a_nested_use_group() {
    let dir = std::env::temp_dir().join(format!("a2a-tck-layers-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("b")).expect("a temporary crate");
    let write = |name: &str, text: &str| std::fs::write(dir.join(name), text).expect("a file");
    write("lib.rs", "mod a; mod b; mod c;\n");
    write("a.rs", "use crate::{b::{x, y}, c};\n");
    write("b/mod.rs", "pub fn x() {}\npub fn y() {}\n");
    write("c.rs", "// use crate::a; is a comment\n");
    let read = graph(&dir);
    let _ = std::fs::remove_dir_all(&dir);
    let edges: Vec<&String> = read["a"].iter().collect();
    assert_eq!(edges, ["b", "c"]);
    assert!(read["c"].is_empty(), "{read:?}");
}
