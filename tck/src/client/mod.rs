//! Client mode (`a2a-tck client`): the kit judges an A2A client. A scripted agent (the
//! [`stage`] in front of a reference agent per play) serves each play of the scenario table
//! ([`plays`]); the client runs through its [`adapter`] (a command speaking
//! `adapters/PROTOCOL.md`, or the kit's [`reference_client`]); what it sent is read into
//! [`calls`], what it read comes back as JSON lines, and the [`verdicts`] judge both, each the
//! run of a check of [`client_checks`], the catalogue of client checks (checks of the one
//! model); the [`client_runner`] makes the same report a run on an agent makes.

pub mod adapter;
pub mod calls;
pub mod card_signing;
pub mod client_checks;
pub mod client_runner;
pub mod exchanges;
pub mod field_wire;
pub mod plays;
pub mod process;
pub mod reference_client;
pub mod stage;
pub mod verdicts;
