//! The `a2a-tck` command's own modules, above the library: its arguments, the `list` and
//! `explain` commands, the `explore` command, the reports it writes and how.

mod args;
pub mod catalog;
pub mod configurations;
pub mod explore_command;
pub mod reports;
pub mod signals;
pub mod site;
pub mod survey;
pub mod write;

pub(crate) use args::*;
