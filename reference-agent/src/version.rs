//! The protocol version a request is served in: `A2A-Version` (gRPC metadata, the REST query
//! parameter) negotiated under the version policy.

use crate::error::RpcError;
use crate::policy::VersionPolicy;

/// A protocol version the interfaces serve, picked per request by `A2A-Version`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Version {
    /// A2A 0.3 (slash methods, `kind` discriminators, `/v1` REST routes).
    V0_3,
    /// A2A 1.0.
    V1_0,
}

/// Parses `Major.Minor[.Patch]`, ignoring the patch.
fn major_minor(version: &str) -> Option<(u64, u64)> {
    let mut numbers = version.split('.').map(|n| {
        if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) {
            n.parse::<u64>().ok()
        } else {
            None
        }
    });
    let major = numbers.next()??;
    let minor = numbers.next()??;
    match (numbers.next(), numbers.next()) {
        (None, _) | (Some(Some(_)), None) => Some((major, minor)),
        _ => None,
    }
}

/// Version negotiation; `requested` is the A2A-Version header / gRPC metadata
/// value (or the REST query parameter), `None` when absent. An absent or empty
/// value means 0.3 (1.0 §3.6.2); `0.3[.x]` and `1.0[.x]` are served (the patch
/// is not considered, §3.6); anything else is VersionNotSupportedError.
pub fn negotiate_version(
    policy: &VersionPolicy,
    requested: Option<&str>,
) -> Result<Version, RpcError> {
    if policy.always_1_0 {
        return Ok(Version::V1_0);
    }
    let requested = requested.map(str::trim).unwrap_or_default();
    if requested.is_empty() {
        if policy.missing_means_1_0 {
            return Ok(Version::V1_0);
        }
        return Ok(Version::V0_3);
    }
    let has_patch = requested.split('.').count() > 2;
    if has_patch && policy.reject_patch {
        return Err(RpcError::version_not_supported(requested));
    }
    match major_minor(requested) {
        Some((1, 0)) => Ok(Version::V1_0),
        Some((0, 3)) => Ok(Version::V0_3),
        _ => Err(RpcError::version_not_supported(requested)),
    }
}

/// The version check of an interface that serves only 1.0 (the `lf.a2a.v1`
/// gRPC service): a request negotiated as 0.3 gets VersionNotSupportedError.
pub fn check_version(policy: &VersionPolicy, requested: Option<&str>) -> Result<(), RpcError> {
    match negotiate_version(policy, requested)? {
        Version::V1_0 => Ok(()),
        Version::V0_3 => {
            let requested = requested.map(str::trim).unwrap_or_default();
            Err(RpcError::version_not_supported(if requested.is_empty() {
                "0.3"
            } else {
                requested
            }))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::major_minor;

    #[test]
    fn version_parsing_ignores_patch() {
        assert_eq!(major_minor("1.0"), Some((1, 0)));
        assert_eq!(major_minor("1.0.7"), Some((1, 0)));
        assert_eq!(major_minor("99.0"), Some((99, 0)));
        for bad in [
            "", "1", "1.", "1.0.", "1.0.0.0", "v1.0", "1.x", "garbage", "1.0-rc1",
        ] {
            assert_eq!(major_minor(bad), None, "{bad}");
        }
    }
}
