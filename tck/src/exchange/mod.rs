//! The wire: the recording HTTP client, the evidence model and its observers (latency, the
//! run's pace, the wire-shape audit), the card reader, the kit's webhook receiver, one transport per binding and the
//! judge of what each binding owes for an error. Imports only [`crate::facts`].

pub mod evidence;
pub mod latency;
pub mod history;
pub mod pace;
pub mod wire;
pub mod card;
pub mod shapes;
pub mod webhook;
pub mod transport;
pub mod judge;
pub mod tls_probe;
