//! The report and everything made from a finished one: the report model, the baseline and floor
//! gates and the one gate every entrance applies (`gate`), the compatibility figure, redaction, and the renderers (summary, Markdown, JUnit, HTML,
//! SARIF) with one table of formats. Imports only the layers below it, never the run.

pub mod acts_report;
pub mod baseline;
pub mod compat;
pub mod declarations;
pub mod diff;
pub mod evidence_text;
pub mod floor;
pub mod format;
pub mod gate;
pub mod html;
pub mod output;
pub mod refusals;
pub mod report;
pub mod sarif;
pub mod secrets;
pub mod site;
pub mod survey_index;
