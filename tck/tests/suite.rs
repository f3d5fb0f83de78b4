//! The kit's tests but the two catalogue harnesses (`conformance`, `negative`, which make one
//! trial per check and per fault): one test binary, so a change links once, not once per
//! file. Each file is a module named as it was; `cargo test -p a2a-tck --test suite report::`
//! runs one of them.

mod hostile;
mod support;

mod action;
mod acts;
mod architecture;
mod auth_secrets;
mod card_drive;
mod ci;
mod cli;
mod client_mode;
mod client_truth;
mod configurations;
mod contract;
mod declared;
mod durability;
mod explore;
mod gate;
mod hostile_bounds;
mod hostile_grpc;
mod hostile_streams;
mod html;
mod layers;
mod library;
mod nothing_judged;
mod omitted_field;
mod outputs;
mod readme;
mod real_answers;
mod refused_streams;
mod report;
mod site;
mod slow_agents;
mod spec_revision;
mod summary;
mod survey;
mod tls;
mod traceability;
mod verdict;
mod versioned_cards;
mod wire_audit;
