//! The negative cases of the `tls.*` checks: each names a check and a fault of the
//! reference agent under which it must FAIL (MUST) or WARN (SHOULD, MAY), unless it says otherwise.

use a2a_reference_agent::Fault;

use crate::cases::{case, Case};

pub const CASES: &[Case] = &[
    // Transport security: the harness serves the agent over TLS for the tls.* checks.
    case("tls.tls-1-3-offered", Fault::TlsNo13),
    case("tls.legacy-versions-refused", Fault::TlsLegacyAccepted),
    case("tls.hsts-on-http-bindings", Fault::TlsNoHsts),
    case("tls.interfaces-https", Fault::TlsHttpInterface),
];
