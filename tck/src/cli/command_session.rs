//! The command's run session, the start and end of every run it makes (the agent run,
//! `a2a-tck card`, `a2a-tck client`), on the library's [`Session`]: at the start the gate
//! (`--expect`, `--allow-unreviewed`, `--min-judged`) loaded and checked, every report asked
//! for checked before the first request, and the signals listened for; at the end the gate
//! applied, the reports written, the summary printed and the exit status given.

use std::process::ExitCode;
use std::sync::atomic::{AtomicU8, Ordering};

use a2a_tck::reporting::gate::Gate;
use a2a_tck::reporting::report::Report;
use a2a_tck::run::session::Session;
use a2a_tck::{facts::destination::Destination, reporting::output};

use crate::cli::signals::Signals;
use crate::cli::{write, RunArgs};

/// A run of the command, from the check of its options to its exit status.
pub struct CommandSession {
    /// The library's session: the gate and the run's clock.
    pub run: Session,
    reports: Vec<write::Wanted>,
    signals: Option<tokio::task::JoinHandle<()>>,
}

impl CommandSession {
    /// The start of a run, before its first request: the gate of `args`, its baseline checked
    /// against `known_ids` (the notes it has told on standard error), and every report
    /// `args` ask for (`--acts-report` too) checked, so an unwritable path costs no run. The
    /// error is a usage error.
    pub fn start(args: &RunArgs, known_ids: &[&str]) -> Result<CommandSession, String> {
        let gate = Gate::load(
            args.expect.as_deref(),
            args.min_judged,
            args.allow_unreviewed,
            known_ids,
        )?;
        for note in gate.notes() {
            eprintln!("note: {note}");
        }
        let reports = write::wanted(args).and_then(|w| write::check(&w).map(|()| w))?;
        if let Some(path) = args.acts_report.as_deref() {
            write::check_acts(path)?;
        }
        Ok(CommandSession {
            run: Session::new(gate),
            reports,
            signals: None,
        })
    }

    /// SIGINT and SIGTERM from now on (inside the runtime): the first stops `stop` (no new
    /// check, a grace for those in flight, then the reports of what was judged), the second
    /// ends the kit at once.
    pub fn listen(&mut self, stop: a2a_tck::facts::stop::Stop) {
        self.signals = Some(on_signals(stop));
    }

    /// The end of a run: a run a signal stopped marked interrupted (a signal after the last
    /// check too), the evidence capped and the gate applied, every report asked for written,
    /// the summary printed (on standard error when a report goes to standard output), and
    /// the exit status: the signal's when one stopped the run, 2 when a report could not be
    /// written, else the gate's.
    pub fn finish(self, mut report: Report, args: &RunArgs) -> ExitCode {
        if self.signals.is_some() && interrupted_by().is_some() {
            report.mark_interrupted();
        }
        for note in self.run.end(&mut report) {
            eprintln!("note: {note}");
        }
        let code = self.written(&report, args);
        if let Some(signals) = self.signals {
            signals.abort();
        }
        code
    }

    fn written(&self, report: &Report, args: &RunArgs) -> ExitCode {
        let reports = &self.reports;
        // SARIF locates the results a baseline expects in the baseline file.
        let mut failed = write::write(report, reports, self.run.gate().baseline_text());
        let to_stderr = write::to_stdout(reports);
        // Each result names its configuration (none: the default one).
        let acts_lines = match write::write_acts(
            report,
            args,
            &a2a_tck::reporting::acts_report::own_configuration,
        ) {
            Ok(lines) => lines,
            Err(e) => {
                failed.push(e);
                Vec::new()
            }
        };
        let mut summary = if args.quiet {
            quiet_summary(report)
        } else {
            let options = output::SummaryOptions {
                verbose: args.verbose,
            };
            output::summary_with(report, options)
        };
        if !args.quiet {
            let written: Vec<(&str, &std::path::Path)> = (reports.iter())
                .filter(|w| !failed.iter().any(|f| f.contains(w.flag)))
                .filter_map(|w| match &w.destination {
                    Destination::Path(path) => Some((w.label(), path.as_path())),
                    Destination::Stdout => None,
                })
                .collect();
            if let Some(line) = output::written_line(&written) {
                summary.push_str(&line);
                summary.push('\n');
            }
        }
        for line in &acts_lines {
            summary.push_str(line);
            summary.push('\n');
        }
        write::say(&summary, to_stderr);
        for line in &failed {
            eprintln!("error: {line}");
        }
        if let Some(code) = interrupted_by() {
            return ExitCode::from(code);
        }
        if !failed.is_empty() {
            return ExitCode::from(a2a_tck::reporting::gate::EXIT_KIT);
        }
        ExitCode::from(self.run.exit_status(report))
    }
}

/// The summary of `--quiet`: the verdict, the floor and the gate, a line each.
fn quiet_summary(report: &Report) -> String {
    let mut text = format!(
        "verdict: {} ({})\n",
        report.verdict_words(),
        report.verdict_reason
    );
    if let Some(floor) = &report.floor {
        let result = if floor.passed { "PASS" } else { "FAIL" };
        text.push_str(&format!("floor: {result} ({})\n", floor.reason));
    }
    if let Some(gate) = &report.baseline {
        let result = if gate.passed { "PASS" } else { "FAIL" };
        text.push_str(&format!("gate: {result} ({})\n", gate.reason));
    }
    text
}

/// The exit status of the signal that stopped the run (130 for SIGINT, 143 for SIGTERM), if
/// one did.
static INTERRUPTED_BY: AtomicU8 = AtomicU8::new(0);

/// The exit status of the signal that stopped the run, if one did.
pub fn interrupted_by() -> Option<u8> {
    Some(INTERRUPTED_BY.load(Ordering::SeqCst)).filter(|code| *code != 0)
}

/// Waits for SIGINT or SIGTERM: the first stops the run, the second ends the kit at once with
/// the first one's status.
async fn interrupts(mut signals: Signals, stop: a2a_tck::facts::stop::Stop) {
    let mut first = true;
    loop {
        let Some((name, code)) = signals.next().await else {
            return;
        };
        let code =
            match INTERRUPTED_BY.compare_exchange(0, code, Ordering::SeqCst, Ordering::SeqCst) {
                Ok(_) => code,
                Err(earlier) => earlier,
            };
        if !first {
            eprintln!("{name} again: stopping at once, without reports");
            std::process::exit(i32::from(code));
        }
        first = false;
        eprintln!(
            "{name}: no new check starts; those running get {} s, then the reports are \
             written (send it again to stop at once)",
            a2a_tck::facts::stop::GRACE.as_secs()
        );
        stop.stop();
    }
}

/// Listens for SIGINT and SIGTERM from now on (inside the runtime): the first stops `stop`,
/// the second ends the kit at once.
pub fn on_signals(stop: a2a_tck::facts::stop::Stop) -> tokio::task::JoinHandle<()> {
    tokio::spawn(interrupts(Signals::listen(), stop))
}
