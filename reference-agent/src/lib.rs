//! A deterministic, scripted A2A 1.0 agent for the a2a-tck conformance kit,
//! serving JSON-RPC 2.0, HTTP+JSON/REST (with SSE streams) and gRPC (h2c, on
//! the same port) over one binding-neutral [`service`]. The same URLs also serve A2A 0.3 ([`v03`]),
//! picked by the `A2A-Version` header (absent = 0.3).
//!
//! The prefix of `message.messageId` picks a scenario from
//! `fixtures/scenarios.json`. With no [`Fault`] the agent is conformant; each
//! fault makes it break exactly one rule, so negative tests can show that the
//! matching check fails (or, for the faults that say so, takes a conformant
//! alternative the kit must accept). The faults reach the code through two seams:
//! the behaviour [`policy`] (values the store, the service and the adapters read) and
//! the `shape` pass over outgoing JSON.

mod app;
mod auth;
mod card;
mod clock;
mod config;
mod error;
pub mod extensions;
pub mod fault;
mod grpc;
mod jsonrpc;
mod methods;
mod model;
mod params;
mod parts;
pub mod policy;
pub mod push;
mod quirks;
mod rest;
mod scenario;
mod server;
pub mod service;
mod shape;
mod signing;
mod sse;
mod store;
mod store_kind;
mod stream;
mod tls;
pub mod v03;
mod v03_codec;
mod version;
mod wire;

pub use app::App;
pub use config::{
    switched_on, AgentConfig, ACTS_AUTH, ACTS_INSUFFICIENT_TOKEN, ACTS_REDUCED_CAPABILITIES,
    ACTS_VALID_TOKEN, JSONRPC_PATH, REST_PATH,
};
pub use error::{FieldViolation, GrpcCode, RpcError};
pub use fault::Fault;
pub use server::{start, start_with_identity, RunningAgent, TlsIdentity};
pub use store_kind::StoreKind;
pub use v03::{call_proto03, stream_proto03};
pub use version::Version;
