//! The kit's layers and the import graph of both crates, read from the sources (`crate::name`
//! paths and grouped `use crate::{...}`). The kit (`tck/src`) is layered by folder, lowest
//! first ([`LAYERS`]); a module may import its own layer and the ones below, never one above,
//! and no two modules may import each other, directly or round a loop; inside a module's folder
//! (`exchange/transport/`), no two of its files either. The reference agent
//! (`reference-agent/src`) is read by top-level module, and has no cycle either.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

mod folders;

/// The kit's layers, lowest first: a folder of `tck/src` each, but for the library's facade
/// (`api.rs`) and the binary's own modules (`cli/`, with `main.rs`).
const LAYERS: &[&str] = &[
    "facts",
    "exchange",
    "suite",
    "reporting",
    "run",
    "client",
    "api",
    "cli",
];

/// Every `.rs` file under `dir`, with its path relative to `root`.
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

/// The module a file belongs to: its top-level module (`a.rs` and `a/` are `a`), or, inside
/// one of `layers`' folders, the module it is in there (`facts/model.rs` is `model`); `None`
/// for the crate roots and a layer's own `mod.rs`, which only declare.
fn module_of(rel: &str, layers: &[&str]) -> Option<String> {
    let parts: Vec<&str> = rel.split('/').collect();
    let (first, rest) = parts.split_first()?;
    let name = |part: &str| part.trim_end_matches(".rs").to_string();
    if layers.contains(first) && !rest.is_empty() {
        let module = name(rest[0]);
        return (module != "mod").then_some(module);
    }
    let module = name(first);
    (module != "lib" && module != "main").then_some(module)
}

/// Where each path named after `crate::` in `code` starts: the path itself, or, for a group
/// (`crate::{a::{x, y}, b}`), each of its top-level items (`a::{x, y}`, `b`).
fn crate_paths(code: &str) -> Vec<&str> {
    let mut paths = Vec::new();
    for (at, _) in code.match_indices("crate::") {
        let rest = &code[at + "crate::".len()..];
        let Some(group) = rest.strip_prefix('{') else {
            paths.push(rest);
            continue;
        };
        let mut depth = 0;
        let mut at_item = true;
        for (i, c) in group.char_indices() {
            match c {
                '{' => depth += 1,
                '}' if depth == 0 => break,
                '}' => depth -= 1,
                ',' if depth == 0 => at_item = true,
                c if at_item && !c.is_whitespace() => {
                    paths.push(&group[i..]);
                    at_item = false;
                }
                _ => {}
            }
        }
    }
    paths
}

/// The import graph of the crate in `src` by module (see [`module_of`]), with each module's
/// layer (its folder, or itself outside the layer folders).
fn graph_in(
    src: &Path,
    layers: &[&str],
) -> (BTreeMap<String, BTreeSet<String>>, BTreeMap<String, String>) {
    let mut files = Vec::new();
    sources(src, src, &mut files);
    let mut text_of: BTreeMap<String, String> = BTreeMap::new();
    let mut layer_of: BTreeMap<String, String> = BTreeMap::new();
    for (rel, text) in &files {
        let Some(module) = module_of(rel, layers) else {
            continue;
        };
        let first = rel.split('/').next().unwrap_or(rel).trim_end_matches(".rs");
        layer_of.insert(module.clone(), first.to_string());
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
    // `crate::facts::model::X` names `model`, as `crate::model::X` does.
    let named = |s: &str| -> String {
        let first = ident(s);
        match s[first.len()..].strip_prefix("::") {
            Some(rest) if layers.contains(&first.as_str()) => ident(rest),
            _ => first,
        }
    };
    let mut graph = BTreeMap::new();
    for (module, text) in &text_of {
        let mut edges = BTreeSet::new();
        for path in crate_paths(text) {
            edges.insert(named(path));
        }
        edges.retain(|n| names.contains(n) && n != module);
        graph.insert(module.clone(), edges);
    }
    (graph, layer_of)
}

/// The import graph of a crate read by top-level module.
fn graph(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    graph_in(src, &[]).0
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

/// What breaks the layering of a crate read by [`graph_in`]: a module in no layer, an import
/// of a layer above, a cycle.
fn layering_problems(
    graph: &BTreeMap<String, BTreeSet<String>>,
    layer_of: &BTreeMap<String, String>,
    layers: &[&str],
) -> Vec<String> {
    let rank = |module: &String| {
        let layer = &layer_of[module];
        layers.iter().position(|l| l == layer)
    };
    let mut problems = Vec::new();
    for (module, layer) in layer_of {
        if rank(module).is_none() {
            problems.push(format!(
                "{module} is in no layer ({layer}): move it into one of {layers:?}"
            ));
        }
    }
    for (from, edges) in graph {
        for to in edges {
            if let (Some(a), Some(b)) = (rank(from), rank(to)) {
                if b > a {
                    problems.push(format!(
                        "{from} ({}) imports {to} ({}), a layer above it",
                        layer_of[from], layer_of[to]
                    ));
                }
            }
        }
    }
    for group in cycles(graph) {
        problems.push(format!("an import cycle: {group:?}"));
    }
    problems
}

#[test]
fn the_kit_has_no_import_cycle_and_no_layer_imports_one_above_it() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let (graph, layer_of) = graph_in(&src, LAYERS);
    assert!(
        graph.len() > 40,
        "the reader found the kit's modules: {graph:?}"
    );
    let problems = layering_problems(&graph, &layer_of, LAYERS);
    assert!(problems.is_empty(), "{problems:#?}");
}

#[test]
fn the_layer_reader_sees_an_import_from_below_up_a_cycle_and_a_module_in_no_layer() {
    let dir = std::env::temp_dir().join(format!("a2a-tck-layered-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    for folder in ["low", "high", "stray"] {
        std::fs::create_dir_all(dir.join(folder)).expect("a temporary crate");
    }
    let write = |name: &str, text: &str| std::fs::write(dir.join(name), text).expect("a file");
    write("lib.rs", "pub mod low; pub mod high; pub use low::a;\n");
    write("low/mod.rs", "pub mod a;\n");
    write("low/a.rs", "use crate::high::b::X;\n");
    write("high/mod.rs", "pub mod b;\n");
    write("high/b.rs", "use crate::a;\n");
    write("stray/c.rs", "\n");
    let (graph, layer_of) = graph_in(&dir, &["low", "high"]);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(layer_of["a"], "low");
    assert_eq!(layer_of["b"], "high");
    let problems = layering_problems(&graph, &layer_of, &["low", "high"]);
    assert_eq!(
        problems,
        [
            "stray is in no layer (stray): move it into one of [\"low\", \"high\"]",
            "a (low) imports b (high), a layer above it",
            "an import cycle: [\"a\", \"b\"]",
        ],
        "{graph:?}"
    );
}

#[test]
fn the_agent_has_no_import_cycle() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../reference-agent/src");
    let graph = graph(&src);
    assert!(
        graph.len() > 20,
        "the reader found the agent's modules: {graph:?}"
    );
    let found = cycles(&graph);
    assert!(found.is_empty(), "import cycles in the agent: {found:#?}");
}

/// The items a file names through the crate's root (`crate::App`, `crate::{x, App}`): the
/// reader sees an import by the module it names, and a root re-export hides the module.
fn through_the_root(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    let code: Vec<&str> = text
        .lines()
        .map(|l| l.split("//").next().unwrap_or(l))
        .collect();
    let code = code.join("\n");
    let upper = |s: &str| s.chars().next().is_some_and(|c| c.is_ascii_uppercase());
    let name = |s: &str| -> String {
        (s.chars())
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect()
    };
    for path in crate_paths(&code) {
        if upper(path) {
            found.push(name(path));
        }
    }
    found
}

#[test]
fn modules_name_what_they_import_by_its_module_not_through_the_crate_root() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut found = Vec::new();
    for crate_src in ["tck/src", "reference-agent/src"] {
        let src = root.join(crate_src);
        let mut files = Vec::new();
        sources(&src, &src, &mut files);
        for (rel, text) in files {
            if rel == "lib.rs" || rel == "main.rs" {
                continue;
            }
            for item in through_the_root(&text) {
                found.push(format!("{crate_src}/{rel}: crate::{item}"));
            }
        }
    }
    assert!(found.is_empty(), "{found:#?}");
    assert_eq!(
        through_the_root("use crate::{a::B, App};\nlet x = crate::Fault::X; // crate::C"),
        ["App", "Fault"]
    );
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

/// Whether the code of a file (its tests and comments aside) names a fault or asks the
/// configuration for one: `Fault::SomeFault`, however the path to it is spelled, or `.has(`.
fn reads_faults(text: &str) -> bool {
    let code = text.split("#[cfg(test)]").next().unwrap_or(text);
    let code: Vec<&str> = code
        .lines()
        .map(|l| l.split("//").next().unwrap_or(l))
        .collect();
    let code = code.join("\n");
    let names_a_fault = (code.match_indices("Fault::"))
        .any(|(at, _)| code[at + "Fault::".len()..].starts_with(|c: char| c.is_ascii_uppercase()));
    names_a_fault || code.contains(".has(")
}

/// The reference agent's faults reach its code through the behaviour policy (`policy/`) and
/// the outgoing-JSON pass (`shape.rs`, `shape/`) only; the feature policies (auth, push,
/// signing, the durable store, extensions) are built in `policy/features.rs`. No other file
/// reads the fault set, and the agent's `App` holds the policy values, not the fault set.
#[test]
fn faults_are_read_only_by_the_policy_and_the_shape_pass() {
    // The seams, and the list of faults itself.
    const SEAMS: &[&str] = &["policy/", "shape.rs", "shape/", "fault.rs"];
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../reference-agent/src");
    let mut files = Vec::new();
    sources(&src, &src, &mut files);
    let readers: BTreeSet<String> = (files.iter())
        .filter(|(_, text)| reads_faults(text))
        .map(|(rel, _)| rel.clone())
        .filter(|rel| {
            !SEAMS
                .iter()
                .any(|seam| rel.starts_with(seam) || rel == seam)
        })
        .collect();
    assert!(
        readers.is_empty(),
        "files that read the fault set outside policy/ and shape: {readers:?}"
    );
    // The reader sees a read however it is spelled, and not a listing of every fault.
    for read in [
        "if config.has(Fault::X) {}",
        "if c.has(crate::Fault::X) {}",
        "let f = crate::fault::Fault::X;",
    ] {
        assert!(reads_faults(read), "{read}");
    }
    assert!(!reads_faults(
        "for f in Fault::all() {}\n#[cfg(test)]\nFault::X"
    ));
    let lib = std::fs::read_to_string(src.join("app.rs")).expect("the agent's app.rs");
    let app = lib
        .split("pub struct App {")
        .nth(1)
        .and_then(|rest| rest.split("\n}\n").next())
        .expect("the App struct");
    for field in ["AgentConfig", "Fault"] {
        assert!(!app.contains(field), "App holds {field}: {app}");
    }
}

/// The agent's core (the service, streams, the store, push) takes the parts it works with
/// (`parts::Core`, or the one part), not the whole `App`: only the binding adapters, which
/// serve requests from it, and the modules that make and serve it name `App`.
#[test]
fn only_the_adapters_see_the_whole_agent() {
    const ADAPTERS: &[&str] = &[
        "app.rs",
        "grpc.rs",
        "jsonrpc.rs",
        "lib.rs",
        "rest.rs",
        "server.rs",
        "v03.rs",
    ];
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../reference-agent/src");
    let mut files = Vec::new();
    sources(&src, &src, &mut files);
    let whole = |text: &str| {
        let code: Vec<&str> = text
            .lines()
            .map(|l| l.split("//").next().unwrap_or(l))
            .collect();
        let code = code.join("\n");
        (code.match_indices("App")).any(|(at, _)| {
            let before = code[..at].chars().last();
            let after = code[at + 3..].chars().next();
            !before.is_some_and(|c| c.is_alphanumeric() || c == '_')
                && !after.is_some_and(|c| c.is_alphanumeric() || c == '_')
        })
    };
    let seeing: BTreeSet<String> = (files.iter())
        .filter(|(_, text)| whole(text))
        .map(|(rel, _)| rel.clone())
        .collect();
    let adapters: BTreeSet<String> = ADAPTERS.iter().map(|a| a.to_string()).collect();
    assert_eq!(
        seeing, adapters,
        "files naming App (left) against the adapters (right)"
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
