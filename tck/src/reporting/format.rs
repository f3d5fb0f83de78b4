//! The formats a report is written in: one table, which the command line (one flag each) and
//! the library ([`crate::api::Format`]) both iterate. Each renders a finished [`Report`].

use crate::reporting::report::Report;

/// A format a report can be written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// The versioned JSON report (`--report`, `schemas/report.schema.json`).
    Json,
    /// JUnit XML (`--junit`): one test case per check x binding x version.
    Junit,
    /// Markdown (`--markdown`): fit for a CI step summary.
    Markdown,
    /// One self-contained HTML page (`--html`).
    Html,
    /// A SARIF 2.1.0 log (`--sarif`), for code-scanning views.
    Sarif,
}

impl Format {
    /// Every format, in the order the command writes them.
    pub const ALL: [Format; 5] = [
        Format::Json,
        Format::Junit,
        Format::Markdown,
        Format::Html,
        Format::Sarif,
    ];

    /// The command-line flag that asks for it.
    pub fn flag(self) -> &'static str {
        match self {
            Format::Json => "--report",
            Format::Junit => "--junit",
            Format::Markdown => "--markdown",
            Format::Html => "--html",
            Format::Sarif => "--sarif",
        }
    }

    /// Its name, for people.
    pub fn label(self) -> &'static str {
        match self {
            Format::Json => "JSON",
            Format::Junit => "JUnit",
            Format::Markdown => "Markdown",
            Format::Html => "HTML",
            Format::Sarif => "SARIF",
        }
    }

    /// `report` in this format. `baseline_text`, the baseline file the run was gated on
    /// (`--expect`), locates the SARIF results of expected entries in it; the other formats
    /// ignore it.
    pub fn render(self, report: &Report, baseline_text: Option<&str>) -> Result<String, String> {
        match self {
            Format::Json => Ok(report.to_json()),
            Format::Junit => crate::reporting::output::junit(report).map_err(|e| e.to_string()),
            Format::Markdown => Ok(crate::reporting::output::markdown(report)),
            Format::Html => Ok(crate::reporting::html::page(report)),
            Format::Sarif => Ok(crate::reporting::sarif::sarif(report, baseline_text)),
        }
    }
}
