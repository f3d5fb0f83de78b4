//! `a2a-tck site INDEX... --out DIR`: the results site of one or more survey runs (their
//! indexes, or the folders holding them), oldest first by when each index was written. Reads
//! each agent's reports run by run (two at a time), stores each report once under its digest
//! (`reports/<hex>/`: hard-linked from the survey's folder when both are on one filesystem,
//! else copied; a report the folder already holds from an earlier build is kept), and writes
//! the matrix, the agents' pages and their badges (`a2a_tck::reporting::site`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Component, Path, PathBuf};
use std::process::ExitCode;

use a2a_tck::reporting::report::Report;
use a2a_tck::reporting::site::{self, AgentHistory, RunInfo, Site, Tracker};
use a2a_tck::reporting::survey_index::{self, Entry, SurveyIndex};
use clap::Args;

/// The arguments of `a2a-tck site`.
#[derive(Debug, Args)]
pub(crate) struct SiteArgs {
    /// The survey runs: their index.json files, or the folders holding them (`survey --out`,
    /// `merge --out`), in any order.
    #[arg(required = true, value_name = "INDEX")]
    pub(crate) indexes: Vec<PathBuf>,
    /// Where the site is written.
    #[arg(long, value_name = "DIR")]
    pub(crate) out: PathBuf,
    /// The address the site is published at (e.g. https://example.org/a2a/): the badges link
    /// there and the embedding snippets name it; without it they are relative to the site.
    #[arg(long, value_name = "URL")]
    pub(crate) base_url: Option<String>,
}

/// The files of a report the site stores, when present in the agent's survey folder.
const FILES: [&str; 4] = ["report.json", "report.html", "report.md", "junit.xml"];

/// The site's folder of stored reports (see [`site::store_dir`]).
const STORE: &str = "reports";

/// A path an index names, if it stays below the index's folder.
fn inside(base: &Path, relative: &str) -> Option<PathBuf> {
    let path = Path::new(relative);
    path.components()
        .all(|c| matches!(c, Component::Normal(_)))
        .then(|| base.join(path))
}

/// The report an entry names, if it is there and is the one the entry's digest names.
fn load(base: &Path, entry: &Entry, notes: &mut Vec<String>) -> Option<Report> {
    let relative = entry.report.as_deref()?;
    let Some(path) = inside(base, relative) else {
        notes.push(format!(
            "{}: the report path {relative:?} leaves the index's folder: not read",
            entry.name
        ));
        return None;
    };
    let bytes = match std::fs::read(&path) {
        Ok(bytes) => bytes,
        Err(e) => {
            notes.push(format!("{}: {}: {e}", entry.name, path.display()));
            return None;
        }
    };
    if Some(survey_index::digest(&bytes)) != entry.report_sha256 {
        notes.push(format!(
            "{}: {} is not the report its index names (its digest differs): compared by \
             the index's counts",
            entry.name,
            path.display()
        ));
        return None;
    }
    match Report::read(&path) {
        Ok(report) => Some(report),
        Err(e) => {
            notes.push(format!("{}: {e}", entry.name));
            None
        }
    }
}

/// How the reports came into the site.
#[derive(Debug, Default)]
struct Stored {
    /// Reports (folders) stored by this build, and how many of their files were hard-linked
    /// and copied.
    reports: usize,
    linked: usize,
    copied: usize,
    /// Reports found in the site from an earlier build, and kept.
    kept: usize,
}

/// Stores the report files of the agent's folder `source` as `target` (`reports/<hex>`): kept
/// when the site already holds them (a `report.json` of the same length as the source's, whose
/// digest is the folder's name: a folder is renamed into place whole, so it is never half
/// written); else each file hard-linked (the survey writes its files anew, never in place, so
/// a later survey over the same folder leaves the site's alone) or, on another filesystem,
/// copied into a fresh folder renamed into place.
fn store_report(source: &Path, target: &Path, stored: &mut Stored) -> Result<(), String> {
    let len = |p: &Path| std::fs::metadata(p).ok().map(|m| m.len());
    let json = "report.json";
    if target.is_dir() {
        if len(&target.join(json)).is_some() && len(&target.join(json)) == len(&source.join(json)) {
            stored.kept += 1;
            return Ok(());
        }
        std::fs::remove_dir_all(target).map_err(|e| format!("{}: {e}", target.display()))?;
    }
    let name = target
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("report");
    let partial = target.with_file_name(format!(".partial-{name}"));
    if partial.exists() {
        std::fs::remove_dir_all(&partial).map_err(|e| format!("{}: {e}", partial.display()))?;
    }
    std::fs::create_dir_all(&partial).map_err(|e| format!("{}: {e}", partial.display()))?;
    for file in FILES {
        let from = source.join(file);
        if !from.is_file() {
            continue;
        }
        let to = partial.join(file);
        if std::fs::hard_link(&from, &to).is_ok() {
            stored.linked += 1;
        } else {
            std::fs::copy(&from, &to).map_err(|e| format!("{}: {e}", to.display()))?;
            stored.copied += 1;
        }
    }
    std::fs::rename(&partial, target).map_err(|e| format!("{}: {e}", target.display()))?;
    stored.reports += 1;
    Ok(())
}

/// Removes from the site's store what this build did not name (reports of runs no longer
/// given, folders left half-written), and the per-agent copies an older site kept beside each
/// agent's page (`agents/<folder>/report.*`, `runs/`).
fn prune(out: &Path, used: &BTreeSet<String>, agents: &[AgentHistory]) -> Result<(), String> {
    let remove = |path: &Path| -> Result<(), String> {
        let gone = if path.is_dir() {
            std::fs::remove_dir_all(path)
        } else {
            std::fs::remove_file(path)
        };
        gone.map_err(|e| format!("{}: {e}", path.display()))
    };
    if let Ok(listing) = std::fs::read_dir(out.join(STORE)) {
        for item in listing.flatten() {
            let name = item.file_name().to_string_lossy().into_owned();
            if !used.contains(&name) {
                remove(&item.path())?;
            }
        }
    }
    for agent in agents {
        let folder = out.join("agents").join(&agent.folder);
        for old in FILES.iter().chain(&["entry.json", "runs"]) {
            let path = folder.join(old);
            if path.exists() {
                remove(&path)?;
            }
        }
    }
    Ok(())
}

fn write(path: &Path, text: &str) -> Result<(), String> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
    }
    a2a_tck::reporting::report::write_atomic(path, text.as_bytes())
        .map_err(|e| format!("{}: {e}", path.display()))
}

/// `a2a-tck site`.
pub(crate) fn run(args: SiteArgs) -> ExitCode {
    let usage = |e: &str| crate::usage(e);
    let mut runs: Vec<(PathBuf, SurveyIndex, String)> = Vec::new();
    for given in &args.indexes {
        let file = if given.is_dir() {
            given.join("index.json")
        } else {
            given.clone()
        };
        match SurveyIndex::read(&file) {
            Ok(index) => {
                let base = file.parent().unwrap_or(Path::new(".")).to_path_buf();
                runs.push((base, index, file.display().to_string()));
            }
            Err(e) => return usage(&e),
        }
    }
    runs.sort_by(|a, b| a.1.finished_at.cmp(&b.1.finished_at));
    let base_url = match args.base_url.as_deref() {
        None => String::new(),
        Some(url) if url.ends_with('/') => url.to_string(),
        Some(url) => format!("{url}/"),
    };
    // Every agent of every run, by name: the runs it is in, in order.
    let mut by_name: BTreeMap<&str, Vec<(usize, &Entry)>> = BTreeMap::new();
    for (at, (_, index, _)) in runs.iter().enumerate() {
        for entry in &index.agents {
            by_name.entry(&entry.name).or_default().push((at, entry));
        }
    }
    let mut notes = Vec::new();
    let mut agents: Vec<AgentHistory> = Vec::new();
    let mut stored = Stored::default();
    let mut used: BTreeSet<String> = BTreeSet::new();
    for (name, seen) in &by_name {
        let mut tracker = Tracker::new(name);
        for (at, entry) in seen {
            let report = load(&runs[*at].0, entry, &mut notes);
            tracker.add(*at, (*entry).clone(), report);
        }
        let Some(agent) = tracker.finish() else {
            continue;
        };
        for seen in &agent.seen {
            let Some(dir) = agent.report_dir(seen) else {
                continue;
            };
            let Some(source) = (seen.entry.report.as_deref())
                .and_then(|r| inside(&runs[seen.run].0, r))
                .and_then(|p| p.parent().map(Path::to_path_buf))
            else {
                continue;
            };
            let name = dir.trim_end_matches('/').trim_start_matches("reports/");
            if !used.insert(name.to_string()) {
                continue;
            }
            if let Err(e) = store_report(&source, &args.out.join(STORE).join(name), &mut stored) {
                eprintln!("error: {e}");
                return ExitCode::from(a2a_tck::reporting::gate::EXIT_KIT);
            }
        }
        agents.push(agent);
    }
    agents.sort_by_cached_key(|a| (a.name.to_lowercase(), a.name.clone()));
    let site = Site {
        runs: (runs.iter())
            .map(|(_, index, file)| RunInfo {
                file: file.clone(),
                finished_at: index.finished_at.clone(),
                agents: index.agents.len(),
            })
            .collect(),
        agents,
        base_url,
    };
    let written = (site.agents.iter()).try_for_each(|agent| {
        let folder = args.out.join("agents").join(&agent.folder);
        write(&folder.join("index.html"), &site::agent_page(&site, agent))?;
        let badge = args
            .out
            .join("badges")
            .join(format!("{}.svg", agent.folder));
        write(&badge, &site::badge(&site, agent))
    });
    // The matrix last: a site whose index.html is there is complete.
    let written = written
        .and_then(|()| write(&args.out.join("all.html"), &site::matrix_static_page(&site)))
        .and_then(|()| write(&args.out.join("index.html"), &site::matrix_page(&site)));
    if let Err(e) = written {
        eprintln!("error: {e}");
        return ExitCode::from(a2a_tck::reporting::gate::EXIT_KIT);
    }
    if let Err(e) = prune(&args.out, &used, &site.agents) {
        eprintln!("error: {e}");
        return ExitCode::from(a2a_tck::reporting::gate::EXIT_KIT);
    }
    for note in &notes {
        eprintln!("note: {note}");
    }
    eprintln!(
        "reports: {} stored once each ({} file(s) hard-linked, {} copied), {} kept from the \
         site already there",
        stored.reports + stored.kept,
        stored.linked,
        stored.copied,
        stored.kept
    );
    eprintln!(
        "site: {} agent(s) from {} survey run(s); written to {}",
        site.agents.len(),
        site.runs.len(),
        args.out.join("index.html").display()
    );
    ExitCode::SUCCESS
}
