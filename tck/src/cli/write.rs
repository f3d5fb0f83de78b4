//! The reports a run writes (`--report`, `--junit`, `--markdown`, `--html`): each checked before
//! the run's first request, each written even when another cannot be, and what goes to standard
//! output; part of the `a2a-tck` binary, not of the library.

use std::io::Write as _;

use a2a_tck::facts::destination::Destination;
use a2a_tck::reporting::acts_report::{self, ActsDestination};
use a2a_tck::reporting::format::Format;
use a2a_tck::reporting::report::Report;

use crate::cli::RunArgs;

/// One report asked for: its flag, what it holds, where it goes.
#[derive(Debug, Clone)]
pub struct Wanted {
    pub flag: &'static str,
    pub format: Format,
    pub destination: Destination,
}

impl Wanted {
    /// What the report is, for people: JSON, JUnit, Markdown, HTML, SARIF.
    pub fn label(&self) -> &'static str {
        self.format.label()
    }

    fn shown(&self) -> String {
        format!("{} {}", self.flag, self.destination.shown())
    }
}

/// Every report the run's flags ask for, in the order they are written. A usage error: a
/// directory, two reports to standard output, two reports to one path.
pub fn wanted(args: &RunArgs) -> Result<Vec<Wanted>, String> {
    let path_of = |format: Format| match format {
        Format::Json => &args.report,
        Format::Junit => &args.junit,
        Format::Markdown => &args.markdown,
        Format::Html => &args.html,
        Format::Sarif => &args.sarif,
    };
    let mut wanted: Vec<Wanted> = Vec::new();
    for format in Format::ALL {
        let (flag, path) = (format.flag(), path_of(format));
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
            format,
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
pub fn write(report: &Report, wanted: &[Wanted], baseline_text: Option<&str>) -> Vec<String> {
    wanted
        .iter()
        .filter_map(|w| {
            let written = w
                .format
                .render(report, baseline_text)
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

/// Checks, before the run's first request, that the ACTS reports (`--acts-report`) can be
/// written there.
pub fn check_acts(path: &std::path::Path) -> Result<(), String> {
    ActsDestination::parse(path)
        .check()
        .map_err(|e| format!("--acts-report {e}"))
}

/// Writes the ACTS reports of `report` (one per binding with a tested 1.0 interface), each
/// result under the configuration `configuration_of` reads from it; returns the console lines
/// (one per binding and level, as the ACTS runner prints them, and where each was written), or
/// why they could not be written.
pub fn write_acts(
    report: &Report,
    args: &RunArgs,
    configuration_of: acts_report::ConfigurationOf,
) -> Result<Vec<String>, String> {
    let Some(path) = &args.acts_report else {
        return Ok(Vec::new());
    };
    let sdk = acts_report::Sdk::of(
        report,
        args.sdk_name.as_deref(),
        args.sdk_version.as_deref(),
        args.sdk_language.as_deref(),
        args.sdk_repository.as_deref(),
    );
    let documents = acts_report::documents(report, &sdk, configuration_of);
    if documents.is_empty() {
        return Ok(vec![
            "ACTS: no report written: the run tested no 1.0 interface (ACTS tests 1.0)".into(),
        ]);
    }
    let written = ActsDestination::parse(path)
        .write(&documents)
        .map_err(|e| format!("failed to write --acts-report {e}"))?;
    let mut lines: Vec<String> = documents.iter().flat_map(|d| d.console_lines()).collect();
    for path in written {
        lines.push(format!("ACTS report written to {}", path.display()));
    }
    Ok(lines)
}
