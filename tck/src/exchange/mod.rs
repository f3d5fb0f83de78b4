//! The wire: the recording HTTP client, the evidence model and its observers (latency, the
//! run's pace, the wire-shape audit), the card reader, the kit's webhook receiver, one transport per binding and the
//! judge of what each binding owes for an error. Imports only [`crate::facts`].

pub mod card;
pub mod evidence;
pub mod history;
pub mod judge;
pub mod latency;
pub mod pace;
pub mod shapes;
pub mod tls_probe;
pub mod transport;
pub mod webhook;
pub mod wire;
