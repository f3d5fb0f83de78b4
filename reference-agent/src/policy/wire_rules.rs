//! The binding rules and 0.3 card declarations a fault can break (service parameters in
//! headers and metadata, query parameters, stream progress, the 0.3 card's url).

use crate::fault::Fault;

/// What the binding adapters and the card read.
#[derive(Debug, Clone, Default)]
pub struct WireRules {
    /// HTTP+JSON reads A2A-Version from the header (else only from the query).
    pub rest_version_header: bool,
    /// gRPC reads the a2a-version metadata (else every call is 1.0).
    pub grpc_version_metadata: bool,
    /// HTTP+JSON query names are read in snake_case instead of camelCase.
    pub rest_query_snake_case: bool,
    /// HTTP+JSON query values are percent-decoded.
    pub rest_query_decoded: bool,
    /// SendStreamingMessage streams its intermediate events.
    pub stream_progress: bool,
    /// The 0.3 card `url` is the HTTP+JSON endpoint although preferredTransport is JSONRPC.
    pub v03_url_is_rest: bool,
    /// The card's Last-Modified header is an RFC 3339 timestamp, not an HTTP-date.
    pub card_last_modified_malformed: bool,
    /// A subscription closed by its client leaves the task's other subscriptions open.
    pub close_keeps_siblings: bool,
}

impl WireRules {
    pub fn new(has: &dyn Fn(Fault) -> bool) -> WireRules {
        WireRules {
            rest_version_header: !has(Fault::RestIgnoresVersionHeader),
            grpc_version_metadata: !has(Fault::GrpcIgnoresVersionMetadata),
            rest_query_snake_case: has(Fault::RestQuerySnakeCase),
            rest_query_decoded: !has(Fault::RestQueryNotDecoded),
            stream_progress: !has(Fault::StreamOnlyFinal),
            v03_url_is_rest: has(Fault::V03CardUrlTransportMismatch),
            card_last_modified_malformed: has(Fault::CardLastModifiedMalformed),
            close_keeps_siblings: !has(Fault::SubscribeCloseEndsOthers),
        }
    }
}
