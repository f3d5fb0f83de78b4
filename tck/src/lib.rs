//! a2a-tck: the conformance test kit for the Agent2Agent (A2A) protocol.
//!
//! The catalogue ([`checks::all`]) is run by [`runner::run`] against any agent; the binary
//! `a2a-tck` is a thin CLI over it, and `cargo test` runs the same catalogue against the
//! in-process reference agent.

pub mod a2a;
pub mod api;
pub mod baseline;
pub mod builtin;
pub mod card;
pub mod card_only;
pub mod check;
pub mod checks;
pub mod compat;
pub mod contract;
pub mod ctx;
pub mod declarations;
pub mod destination;
pub mod diff;
pub mod drive;
pub mod durability;
mod durability_phase;
pub mod evidence;
pub mod evidence_text;
pub mod failure;
pub mod filter;
pub mod floor;
pub mod html;
pub mod ids;
pub mod judge;
pub mod jws;
pub mod latency;
pub mod model;
pub mod output;
pub mod probe;
pub mod registry;
pub mod report;
pub mod runner;
pub mod sarif;
pub mod secrets;
pub mod service_params;
pub mod shapes;
pub mod stop;
pub mod tls_probe;
pub mod transport;
pub mod webhook;
pub mod wire;
