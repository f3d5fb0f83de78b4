//! a2a-tck: the conformance test kit for the Agent2Agent (A2A) protocol.
//!
//! The stable surface is [`api`]: [`api::run`] (or [`api::run_blocking`]) takes
//! [`api::Options`] and returns the [`api::Report`] the `a2a-tck` command writes, and
//! [`api::markdown`], [`api::junit`], [`api::html`] and [`api::sarif`] render it as the
//! command's other reports do. The report's types are re-exported there too; the JSON they
//! serialize to is versioned by its `format_version` (`schemas/report.schema.json`).
//!
//! Every other module is public only so that the kit's own binary, tests and benchmarks can
//! reach it: they are hidden from these docs, carry no stability promise and may change in
//! any release.

#![deny(missing_docs)]

pub mod api;

// The kit's layers, a folder each in `tck/src`, lowest first (see ARCHITECTURE.md): public
// for the kit's binary and tests, hidden from these docs. A module is named by its layer
// wherever it is used (`crate::exchange::wire`, `a2a_tck::reporting::report`): the crate's
// root re-exports none of them.
#[doc(hidden)]
pub mod client;
#[doc(hidden)]
pub mod exchange;
#[doc(hidden)]
pub mod facts;
#[doc(hidden)]
pub mod reporting;
#[doc(hidden)]
pub mod run;
#[doc(hidden)]
pub mod suite;
