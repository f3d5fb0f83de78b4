//! The `a2a-tck` command's own modules, above the library: its arguments and the flags every
//! run shares (`flags`), the run session every run goes through (`command_session`), the agent run,
//! `card` and `client`, the `list` and `explain` commands, the `explore` command, the reports it
//! writes and how.

pub mod agent_run;
mod arg_values;
mod args;
pub mod card_command;
pub mod catalog;
pub mod client_command;
pub mod command_session;
pub mod configurations;
pub mod explore_command;
pub mod flags;
pub mod reports;
pub mod signals;
pub mod site;
pub mod survey;
pub mod write;

pub(crate) use args::*;

/// Where a run reads the agent card: `--card-url` when given, else where the built-in agent
/// serves it (a fault may move it off the well-known path), else the well-known path of
/// `target`.
pub fn card_url_of(
    given: Option<&String>,
    served: Option<String>,
    target: &str,
) -> Result<String, String> {
    match (given, served) {
        (Some(url), _) => Ok(url.clone()),
        (None, Some(served)) => Ok(served),
        (None, None) => a2a_tck::exchange::card::card_url_for(target).map_err(|e| e.to_string()),
    }
}
