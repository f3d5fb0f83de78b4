//! The binary's commands over written reports (`baseline`, `diff`), the registry's `coverage`, and
//! the progress bar of a run; part of the `a2a-tck` binary, not of the library.

use std::path::Path;
use std::process::ExitCode;

use a2a_tck::reporting::baseline::Baseline;
use a2a_tck::reporting::report::{self, Report};
use a2a_tck::run::runner::Progress;

use crate::usage;

/// A progress bar on stderr, when stderr is a terminal.
pub fn progress_bar() -> Option<(indicatif::ProgressBar, Progress)> {
    use std::io::IsTerminal as _;
    if !std::io::stderr().is_terminal() {
        return None;
    }
    let bar = indicatif::ProgressBar::new(0);
    if let Ok(style) =
        indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} checks {elapsed}")
    {
        bar.set_style(style);
    }
    let shown = bar.clone();
    let progress = Progress(std::sync::Arc::new(move |done, total| {
        shown.set_length(total as u64);
        shown.set_position(done as u64);
    }));
    Some((bar, progress))
}

pub fn write_baseline(report: &Path, output: Option<&Path>) -> ExitCode {
    let report = match Report::read(report) {
        Ok(report) => report,
        Err(e) => return usage(&e.to_string()),
    };
    let baseline = Baseline::from_report(&report);
    let yaml = output
        .and_then(|p| p.extension())
        .is_some_and(|e| e.eq_ignore_ascii_case("yaml") || e.eq_ignore_ascii_case("yml"));
    let text = if yaml {
        baseline.to_yaml()
    } else {
        baseline.to_toml()
    };
    let text = match text {
        Ok(text) => format!(
            "# Expected results of a2a-tck, from the report of {} ({}).\n\
             # Replace every reason with why the result is accepted, or fix the agent and\n\
             # remove the entry: an entry whose results pass, or that matches nothing, fails\n\
             # the run, and so does a reason still \"TODO\" (unless --allow-unreviewed).\n\
             # An entry may end on a day: expires = 2027-01-31.\n\
             # Use with: a2a-tck --expect FILE\n{text}",
            report
                .target
                .agent_name
                .as_deref()
                .unwrap_or("an unnamed agent"),
            report.finished_at
        ),
        Err(e) => return usage(&format!("failed to write the baseline: {e}")),
    };
    match output {
        Some(path) => {
            if let Err(e) = report::write_atomic(path, text.as_bytes()) {
                return usage(&format!("failed to write {}: {e}", path.display()));
            }
            eprintln!(
                "{} entries written to {}: review each reason",
                baseline.expect.len(),
                path.display()
            );
        }
        None => print!("{text}"),
    }
    ExitCode::SUCCESS
}

pub fn diff(old: &Path, new: &Path, json: bool) -> ExitCode {
    let (old, new) = match (Report::read(old), Report::read(new)) {
        (Ok(old), Ok(new)) => (old, new),
        (Err(e), _) | (_, Err(e)) => return usage(&e.to_string()),
    };
    let diff = a2a_tck::reporting::diff::diff(&old, &new);
    print!("{}", if json { diff.json() } else { diff.text() });
    if diff.regressions.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// `a2a-tck coverage`: the coverage table of every registry the kit carries.
pub fn coverage() -> ExitCode {
    for (name, text) in a2a_tck::facts::registry::REGISTRIES {
        match a2a_tck::facts::registry::parse(text) {
            Ok(entries) => print!("{}", a2a_tck::facts::registry::table(name, &entries)),
            Err(e) => {
                eprintln!("error: the registry {name} does not parse: {e}");
                return ExitCode::from(2);
            }
        }
    }
    ExitCode::SUCCESS
}
