//! The checks and what they run on: the `Check` model, each check's context, the scenario
//! contracts and the probe that detects them, the message taken from the card of an agent that
//! plays none, the usability probe, the selection filter and the
//! catalogue; the checks whose expectation differs by revision of the spec. Imports the layers
//! below it.

pub mod card_drive;
pub mod check;
pub mod checks;
pub mod contract;
pub mod ctx;
pub mod detect;
pub mod filter;
pub mod probe;
pub mod revised;
