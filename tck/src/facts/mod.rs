//! The words every layer shares and the protocol facts: bindings and versions, verdicts and the
//! kit's own errors, a check's needs ([`model`]); what A2A says of states, errors and fields
//! ([`a2a`]); the requirement registries; card signatures; the scenario contracts' drive files;
//! ids, paths and stop signals; which operation a request is ([`operation`]); the released revisions of 1.0 where their text differs
//! ([`revision`]). Nothing here imports another layer.

pub mod a2a;
pub mod behaviors;
pub mod destination;
pub mod drive;
pub mod ids;
pub mod jws;
pub mod model;
pub mod operation;
pub mod registry;
pub mod revision;
pub mod service_params;
pub mod stop;
