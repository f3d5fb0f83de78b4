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

#[doc(hidden)]
pub mod a2a;
pub mod api;
#[doc(hidden)]
pub mod baseline;
#[doc(hidden)]
pub mod builtin;
#[doc(hidden)]
pub mod card;
#[doc(hidden)]
pub mod card_only;
#[doc(hidden)]
pub mod check;
#[doc(hidden)]
pub mod checks;
#[doc(hidden)]
pub mod compat;
#[doc(hidden)]
pub mod contract;
#[doc(hidden)]
pub mod ctx;
#[doc(hidden)]
pub mod declarations;
#[doc(hidden)]
pub mod destination;
#[doc(hidden)]
pub mod diff;
#[doc(hidden)]
pub mod drive;
#[doc(hidden)]
pub mod durability;
mod durability_phase;
#[doc(hidden)]
pub mod evidence;
#[doc(hidden)]
pub mod evidence_text;
#[doc(hidden)]
pub mod failure;
#[doc(hidden)]
pub mod filter;
#[doc(hidden)]
pub mod floor;
#[doc(hidden)]
pub mod html;
#[doc(hidden)]
pub mod ids;
#[doc(hidden)]
pub mod judge;
#[doc(hidden)]
pub mod jws;
#[doc(hidden)]
pub mod latency;
#[doc(hidden)]
pub mod model;
#[doc(hidden)]
pub mod output;
#[doc(hidden)]
pub mod probe;
#[doc(hidden)]
pub mod registry;
#[doc(hidden)]
pub mod report;
#[doc(hidden)]
pub mod runner;
#[doc(hidden)]
pub mod sarif;
#[doc(hidden)]
pub mod secrets;
#[doc(hidden)]
pub mod service_params;
#[doc(hidden)]
pub mod shapes;
#[doc(hidden)]
pub mod stop;
#[doc(hidden)]
pub mod tls_probe;
#[doc(hidden)]
pub mod transport;
#[doc(hidden)]
pub mod webhook;
#[doc(hidden)]
pub mod wire;
