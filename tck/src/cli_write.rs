//! The reports a run writes (`--report`, `--junit`, `--markdown`, `--html`): each checked before
//! the run's first request, each written even when another cannot be, and what goes to standard
//! output; part of the `a2a-tck` binary, not of the library.

use std::io::Write as _;
use std::path::PathBuf;

use a2a_tck::destination::Destination;
use a2a_tck::report::Report;
use a2a_tck::{html, output};

use crate::cli::RunArgs;

/// What a report holds.
#[derive(Debug, Clone)]
pub enum Kind {
    Json,
    Junit,
    Markdown,
    Html,
    /// SARIF, its results located in the baseline file (its text, under `--expect`) or the
    /// card.
    Sarif(Option<String>),
}

impl Kind {
    fn render(&self, report: &Report) -> Result<String, String> {
        match self {
            Kind::Json => Ok(report.to_json()),
            Kind::Junit => output::junit(report).map_err(|e| e.to_string()),
            Kind::Markdown => Ok(output::markdown(report)),
            Kind::Html => Ok(html::page(report)),
            Kind::Sarif(baseline) => Ok(a2a_tck::sarif::sarif(report, baseline.as_deref())),
        }
    }
}

/// One report asked for: its flag, what it holds, where it goes.
#[derive(Debug, Clone)]
pub struct Wanted {
    pub flag: &'static str,
    pub kind: Kind,
    pub destination: Destination,
}

impl Wanted {
    /// What the report is, for people: JSON, JUnit, Markdown, HTML.
    pub fn label(&self) -> &'static str {
        match self.kind {
            Kind::Json => "JSON",
            Kind::Junit => "JUnit",
            Kind::Markdown => "Markdown",
            Kind::Html => "HTML",
            Kind::Sarif(_) => "SARIF",
        }
    }

    fn shown(&self) -> String {
        format!("{} {}", self.flag, self.destination.shown())
    }
}

/// Every report the run's flags ask for, in the order they are written. A usage error: a
/// directory, two reports to standard output, two reports to one path.
pub fn wanted(args: &RunArgs) -> Result<Vec<Wanted>, String> {
    let baseline = (args.expect.as_deref()).and_then(|p| std::fs::read_to_string(p).ok());
    let asked: [(&'static str, Kind, &Option<PathBuf>); 5] = [
        ("--report", Kind::Json, &args.report),
        ("--junit", Kind::Junit, &args.junit),
        ("--markdown", Kind::Markdown, &args.markdown),
        ("--html", Kind::Html, &args.html),
        ("--sarif", Kind::Sarif(baseline), &args.sarif),
    ];
    let mut wanted: Vec<Wanted> = Vec::new();
    for (flag, kind, path) in asked {
        let Some(path) = path else { continue };
        let destination = Destination::parse(path).map_err(|e| format!("{flag}: {e}"))?;
        if let Some(other) = wanted.iter().find(|w| w.destination == destination) {
            return Err(match destination {
                Destination::Stdout => format!(
                    "{} and {flag} both write to standard output (-): give one of them a file",
                    other.flag
                ),
                Destination::Path(_) => format!(
                    "{} and {flag} both write {}: give each report its own file",
                    other.flag,
                    destination.shown()
                ),
            });
        }
        wanted.push(Wanted {
            flag,
            kind,
            destination,
        });
    }
    Ok(wanted)
}

/// Whether a report goes to standard output (the summary then goes to standard error).
pub fn to_stdout(wanted: &[Wanted]) -> bool {
    wanted.iter().any(|w| w.destination == Destination::Stdout)
}

/// Checks, before the run's first request, that every report can be written; the error names
/// each one that cannot.
pub fn check(wanted: &[Wanted]) -> Result<(), String> {
    let problems: Vec<String> = wanted
        .iter()
        .filter_map(|w| {
            w.destination
                .check()
                .err()
                .map(|e| format!("{}: cannot be written: {e}", w.shown()))
        })
        .collect();
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("; "))
    }
}

/// Writes every report asked for, each even when another could not be written; returns a line
/// for each that failed.
pub fn write(report: &Report, wanted: &[Wanted]) -> Vec<String> {
    wanted
        .iter()
        .filter_map(|w| {
            let written = w
                .kind
                .render(report)
                .and_then(|text| (w.destination.write(text.as_bytes())).map_err(|e| e.to_string()));
            written
                .err()
                .map(|e| format!("failed to write {}: {e}", w.shown()))
        })
        .collect()
}

/// Prints `text` on standard output, or on standard error when `to_stderr`; a reader that went
/// away (`| head`) ends the printing quietly, and the run goes on to its exit status.
pub fn say(text: &str, to_stderr: bool) {
    // Through anstream: the summary's colours are kept on a terminal and stripped elsewhere
    // (a pipe, a file, NO_COLOR).
    let written = if to_stderr {
        let mut err = anstream::stderr();
        err.write_all(text.as_bytes()).and_then(|()| err.flush())
    } else {
        let mut out = anstream::stdout();
        out.write_all(text.as_bytes()).and_then(|()| out.flush())
    };
    // Nothing is left to tell the reader of a closed pipe; any other failure cannot be told
    // either (standard error is where it would go).
    drop(written);
}
