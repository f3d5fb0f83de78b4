//! A run: plan, probe, run every check under its deadline, the durability phase, assemble the
//! report; the built-in agent and its restarts; the card-only run and the report of a run that
//! could not start; exploration, which sends seeded random sequences and judges their history.

pub mod builtin;
pub mod card_only;
pub mod configurations;
pub mod durability;
pub mod explore;
pub mod failure;
pub mod runner;
pub mod session;
