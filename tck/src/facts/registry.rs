//! The requirements registries (`tck/requirements/*.toml`), built into the kit, and the
//! coverage table `a2a-tck coverage` prints: per level, how many entries are covered by checks,
//! planned or untestable, and how many of the MUST entries that bind servers are covered.

use std::fmt::Write as _;

use serde::Deserialize;

/// The registries the kit carries: file name and text (A2A 1.0, A2A 0.3, and the sentences of
/// the external specifications the A2A bindings adopt, such as JSON-RPC 2.0).
pub const REGISTRIES: &[(&str, &str)] = &[
    (
        "a2a-v1.0.toml",
        include_str!("../../requirements/a2a-v1.0.toml"),
    ),
    (
        "a2a-v0.3.toml",
        include_str!("../../requirements/a2a-v0.3.toml"),
    ),
    (
        "external.toml",
        include_str!("../../requirements/external.toml"),
    ),
];

#[derive(Debug, Deserialize)]
struct Registry {
    requirement: Vec<Requirement>,
}

/// One entry of a registry (the fields the table needs; the file has more).
#[derive(Debug, Deserialize)]
pub struct Requirement {
    pub id: String,
    /// The spec section that holds the sentence.
    #[serde(default)]
    pub section: String,
    pub level: String,
    pub applies_to: String,
    #[serde(default)]
    pub checks: Option<Vec<String>>,
    #[serde(default)]
    pub planned: Option<String>,
    #[serde(default)]
    pub untestable: Option<String>,
}

impl Requirement {
    /// The strongest upper-case keyword of the entry: MUST, SHOULD, MAY, or `other` (a
    /// lower-case keyword or none).
    pub fn bucket(&self) -> &'static str {
        let level = self.level.as_str();
        if level.contains("MUST") || level.contains("REQUIRED") || level.contains("SHALL") {
            "MUST"
        } else if level.contains("SHOULD") || level.contains("RECOMMENDED") {
            "SHOULD"
        } else if level.contains("MAY") || level.contains("OPTIONAL") {
            "MAY"
        } else {
            "other"
        }
    }

    /// A server-side MUST: the sentence binds agents and has an upper-case MUST.
    pub fn is_server_must(&self) -> bool {
        matches!(self.applies_to.as_str(), "server" | "both") && self.level.contains("MUST")
    }
}

/// The section of the registry entry `id` (`3.6.1`), from the registries the kit carries.
pub fn section_of(id: &str) -> Option<String> {
    static ENTRIES: std::sync::OnceLock<Vec<Requirement>> = std::sync::OnceLock::new();
    let entries = ENTRIES.get_or_init(|| {
        (REGISTRIES.iter())
            .flat_map(|(_, text)| parse(text).unwrap_or_default())
            .collect()
    });
    entries
        .iter()
        .find(|e| e.id == id)
        .map(|e| e.section.clone())
}

/// Parses one registry's text.
pub fn parse(text: &str) -> Result<Vec<Requirement>, String> {
    toml::from_str::<Registry>(text)
        .map(|r| r.requirement)
        .map_err(|e| e.to_string())
}

/// The coverage table of one registry, as `a2a-tck coverage` prints it.
pub fn table(name: &str, entries: &[Requirement]) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{name}: {} entries", entries.len());
    let _ = writeln!(
        out,
        "  {:<8} {:>7} {:>8} {:>8} {:>11}",
        "level", "entries", "covered", "planned", "untestable"
    );
    let row = |out: &mut String, label: &str, pick: &dyn Fn(&Requirement) -> bool| {
        let of = |f: fn(&Requirement) -> bool| entries.iter().filter(|e| pick(e) && f(e)).count();
        let _ = writeln!(
            out,
            "  {:<8} {:>7} {:>8} {:>8} {:>11}",
            label,
            of(|_| true),
            of(|e| e.checks.is_some()),
            of(|e| e.planned.is_some()),
            of(|e| e.untestable.is_some())
        );
    };
    for bucket in ["MUST", "SHOULD", "MAY", "other"] {
        row(&mut out, bucket, &|e: &Requirement| e.bucket() == bucket);
    }
    row(&mut out, "total", &|_: &Requirement| true);
    let server_must = entries.iter().filter(|e| e.is_server_must()).count();
    let covered = entries
        .iter()
        .filter(|e| e.is_server_must() && e.checks.is_some())
        .count();
    let percent = if server_must == 0 {
        0.0
    } else {
        100.0 * covered as f64 / server_must as f64
    };
    let _ = writeln!(
        out,
        "  server-side MUST entries: {covered} of {server_must} covered ({percent:.1}%)"
    );
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn every_registry_parses_and_adds_up() {
        for (name, text) in REGISTRIES {
            let entries = parse(text).unwrap();
            let table = table(name, &entries);
            let total = format!("{:>7}", entries.len());
            assert!(table.contains(&total), "{table}");
            assert!(table.contains("server-side MUST entries:"), "{table}");
        }
    }
}
