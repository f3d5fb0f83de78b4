//! The cycles inside a folder of the kit: between the files of `exchange/transport/`, of
//! `suite/checks/`, of `run/runner/`, which the graph by module (one node per module of a
//! layer) cannot see.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use super::{cycles, graph_in, sources, LAYERS};

/// The paths `code` names after `prefix` (`crate::`, `super::`, `self::`), each as its
/// segments, every group spelled out: `super::{a::{x, self}, b}` is `a::x`, `a::self`, `b`.
fn paths_after(code: &str, prefix: &str) -> Vec<Vec<String>> {
    fn spell(text: &str, head: &[String], out: &mut Vec<Vec<String>>) {
        let mut segments = head.to_vec();
        let mut rest = text;
        loop {
            let name: String = (rest.chars())
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if let Some(group) = rest.strip_prefix('{') {
                let mut depth = 0;
                let mut start = 0;
                for (i, c) in group.char_indices() {
                    match c {
                        '{' => depth += 1,
                        '}' if depth == 0 => {
                            spell(group[start..i].trim_start(), &segments, out);
                            return;
                        }
                        '}' => depth -= 1,
                        ',' if depth == 0 => {
                            spell(group[start..i].trim_start(), &segments, out);
                            start = i + 1;
                        }
                        _ => {}
                    }
                }
                return;
            }
            if name.is_empty() {
                break;
            }
            rest = &rest[name.len()..];
            segments.push(name);
            match rest.strip_prefix("::") {
                Some(after) => rest = after,
                None => break,
            }
        }
        if segments.len() > head.len() {
            out.push(segments);
        }
    }
    let mut out = Vec::new();
    for (at, _) in code.match_indices(prefix) {
        let before = code[..at].chars().last();
        if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':') {
            continue;
        }
        spell(&code[at + prefix.len()..], &[], &mut out);
    }
    out
}

/// The cycles between the files of one folder below a layer (`exchange/transport/`'s
/// `jsonrpc.rs`, `rest.rs` and `stream.rs`), which the graph by module cannot see: each file
/// or sub-folder of such a folder is a node, and an import names one when its path (through
/// `crate::`, `super::` or `self::`, or an item the folder's `mod.rs` re-exports from it)
/// reaches into it. `root_modules` are the modules a crate's root may re-export, each with its
/// layer (`crate::t` is `crate::low::t` in the test's own crate); a path that names its layer
/// (`crate::exchange::wire`) needs none.
fn folder_cycles(src: &Path, root_modules: &BTreeMap<String, String>) -> Vec<String> {
    let mut files = Vec::new();
    sources(src, src, &mut files);
    let module_path = |rel: &str| -> Vec<String> {
        let mut parts: Vec<String> = (rel.split('/'))
            .map(|p| p.trim_end_matches(".rs").to_string())
            .collect();
        if parts
            .last()
            .is_some_and(|p| p == "mod" || p == "lib" || p == "main")
        {
            parts.pop();
        }
        parts
    };
    let code_of = |text: &str| -> String {
        let code: Vec<&str> = (text.lines())
            .map(|l| l.split("//").next().unwrap_or(l))
            .collect();
        code.join("\n")
    };
    // The folders below a layer, each with its children (files and sub-folders) and the
    // items its `mod.rs` re-exports from a child.
    let mut children: BTreeMap<Vec<String>, BTreeSet<String>> = BTreeMap::new();
    for (rel, _) in &files {
        let path = module_path(rel);
        if path.len() >= 3 {
            let folder = path[..path.len() - 1].to_vec();
            children
                .entry(folder)
                .or_default()
                .insert(path[path.len() - 1].clone());
        }
    }
    let mut reexported: BTreeMap<Vec<String>, BTreeMap<String, String>> = BTreeMap::new();
    for (rel, text) in &files {
        let folder = module_path(rel);
        let Some(kids) = children.get(&folder).filter(|_| rel.ends_with("mod.rs")) else {
            continue;
        };
        for line in code_of(text).lines() {
            let line = line.trim_start();
            let Some(used) = line
                .strip_prefix("pub use ")
                .or_else(|| line.strip_prefix("pub(crate) use "))
                .or_else(|| line.strip_prefix("pub(super) use "))
            else {
                continue;
            };
            let used = used.strip_prefix("self::").unwrap_or(used);
            for path in paths_after(&format!(" {used}"), " ") {
                if path.len() >= 2 && kids.contains(&path[0]) {
                    let item = path.last().expect("a path").clone();
                    (reexported.entry(folder.clone()).or_default()).insert(item, path[0].clone());
                }
            }
        }
    }
    let mut graphs: BTreeMap<Vec<String>, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    for (folder, kids) in &children {
        let graph = graphs.entry(folder.clone()).or_default();
        for kid in kids {
            graph.insert(kid.clone(), BTreeSet::new());
        }
    }
    for (rel, text) in &files {
        let here = module_path(rel);
        let code = code_of(text);
        let mut resolved: Vec<Vec<String>> = Vec::new();
        for mut path in paths_after(&code, "crate::") {
            if let Some(layer) = root_modules.get(&path[0]) {
                path.insert(0, layer.clone());
            }
            resolved.push(path);
        }
        // `super::` from `a/b.rs` (module a::b) is `a`; from `a/b/mod.rs` (module a::b) too.
        let parent = here[..here.len().saturating_sub(1)].to_vec();
        for path in paths_after(&code, "super::") {
            let mut base = parent.clone();
            let mut path = path.as_slice();
            while path.first().is_some_and(|s| s == "super") {
                base.pop();
                path = &path[1..];
            }
            resolved.push([base, path.to_vec()].concat());
        }
        for path in paths_after(&code, "self::") {
            resolved.push([here.clone(), path].concat());
        }
        for (folder, graph) in &mut graphs {
            if here.len() <= folder.len() || here[..folder.len()] != folder[..] {
                continue;
            }
            let from = here[folder.len()].clone();
            for path in &resolved {
                if path.len() <= folder.len() || path[..folder.len()] != folder[..] {
                    continue;
                }
                let named = &path[folder.len()];
                let to = if graph.contains_key(named) {
                    Some(named.clone())
                } else {
                    (reexported.get(folder)).and_then(|items| items.get(named).cloned())
                };
                if let Some(to) = to.filter(|to| *to != from) {
                    graph.get_mut(&from).expect("a child").insert(to);
                }
            }
        }
    }
    let mut found = Vec::new();
    for (folder, graph) in &graphs {
        for group in cycles(graph) {
            found.push(format!(
                "an import cycle in {}/: {group:?}",
                folder.join("/")
            ));
        }
    }
    found
}

#[test]
fn no_folder_of_the_kit_has_an_import_cycle_between_its_files() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let (_, layer_of) = graph_in(&src, LAYERS);
    let found = folder_cycles(&src, &layer_of);
    assert!(found.is_empty(), "{found:#?}");
}

#[test]
fn the_folder_reader_sees_a_cycle_between_the_files_of_a_folder() {
    let dir = std::env::temp_dir().join(format!("a2a-tck-folders-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("low/t/deep")).expect("a temporary crate");
    let write = |name: &str, text: &str| std::fs::write(dir.join(name), text).expect("a file");
    write("lib.rs", "pub mod low; pub use low::t;\n");
    write("low/mod.rs", "pub mod t;\n");
    write(
        "low/t/mod.rs",
        "pub mod a; pub mod b; pub mod c; pub mod deep; mod d;\npub use d::{Item, Other};\n",
    );
    // a -> b through `super::`, b -> c through the root's re-export, c -> a through the
    // folder's full path: one cycle of three.
    write("low/t/a.rs", "use super::{b::{self, X}, Free};\n");
    write("low/t/b.rs", "fn f() { crate::t::c::go() }\n");
    write(
        "low/t/c.rs",
        "use crate::low::t::a::Y; // use super::d::Item;\n",
    );
    // d -> deep; deep -> d through an item the folder re-exports: a second cycle.
    write("low/t/d.rs", "use super::deep::Z;\n");
    write("low/t/deep/mod.rs", "use super::Item;\n");
    let roots: BTreeMap<String, String> = [("t".to_string(), "low".to_string())].into();
    let found = folder_cycles(&dir, &roots);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(
        found,
        [
            "an import cycle in low/t/: [\"a\", \"b\", \"c\"]",
            "an import cycle in low/t/: [\"d\", \"deep\"]",
        ]
    );
}
