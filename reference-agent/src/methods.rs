//! What a method name names (a stream or a unary call), and how an agent that lacks it
//! refuses it.

use crate::error::RpcError;
use crate::policy::{ServicePolicy, Streaming};

/// Whether `method` is answered with a stream (`service::stream`) rather than `service::call`.
pub fn is_streaming(method: &str) -> bool {
    matches!(method, "SendStreamingMessage" | "SubscribeToTask")
}

pub(crate) fn unknown_method(policy: &ServicePolicy, method: &str) -> RpcError {
    if policy.unknown_method_invalid_request {
        RpcError::invalid_request(format_args!("unknown method `{method}`"))
    } else {
        RpcError::method_not_found(method)
    }
}

/// The error of a streaming method when the agent does not stream.
pub(crate) fn streaming_refused(policy: &ServicePolicy, method: &str) -> Option<RpcError> {
    match policy.streaming {
        Streaming::On => None,
        Streaming::OffMethodNotFound => Some(RpcError::method_not_found(method)),
        Streaming::Off => Some(RpcError::unsupported_operation(
            "streaming is not supported (capabilities.streaming is false)",
        )),
    }
}
