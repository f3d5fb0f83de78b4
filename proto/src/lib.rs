//! The A2A gRPC bindings for the a2a-tck: 1.0 (`lf.a2a.v1.A2AService`,
//! [`SERVICE`]) and 0.3 (`a2a.v1.A2AService`, [`SERVICE_0_3`]).
//!
//! - [`pool`]: the descriptors of `lf.a2a.v1` and `a2a.v1` (compiled from
//!   `proto/lf/a2a/v1/a2a.proto` and `proto/a2a/v1/a2a.proto` at build time)
//!   plus the `google.rpc` error detail messages, so `Any` details can be
//!   shown as JSON.
//! - [`to_json`] / [`from_json`]: ProtoJSON of dynamic messages.
//! - [`DynamicCodec`]: a tonic codec for [`DynamicMessage`].
//! - [`client`]: a dynamic client that calls any rpc of either service by
//!   name with ProtoJSON in and out.
//! - [`server`]: an axum router per service over a small JSON-in/JSON-out
//!   [`server::Backend`] trait; the routers of both services merge.
//!
//! No Rust type is generated per message: everything goes through
//! `prost_reflect::DynamicMessage`. Both packages have messages with the same
//! short names (`Task`, `Message`, …); they are told apart by full name.

use std::sync::OnceLock;

use prost::Message as _;
use prost_reflect::{
    DescriptorPool, DeserializeOptions, DynamicMessage, MessageDescriptor, MethodDescriptor,
    ReflectMessage, SerializeOptions,
};
use serde_json::Value;
use tonic::codec::{BufferSettings, Codec, DecodeBuf, Decoder, EncodeBuf, Encoder};
use tonic::Status;

pub mod client;
mod details;
pub use details::{code_name, status_of_trailers};
mod sanitize;
pub mod server;

/// Full name of the A2A 1.0 service; rpc paths are
/// `/lf.a2a.v1.A2AService/<Rpc>`.
pub const SERVICE: &str = "lf.a2a.v1.A2AService";

/// Full name of the A2A 0.3 service; rpc paths are
/// `/a2a.v1.A2AService/<Rpc>`.
pub const SERVICE_0_3: &str = "a2a.v1.A2AService";

/// Domain of the `google.rpc.ErrorInfo` of A2A errors.
pub const ERROR_DOMAIN: &str = "a2a-protocol.org";

const A2A_DESCRIPTOR: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/a2a_descriptor.bin"));

/// The descriptor pool: `lf.a2a.v1.*`, `a2a.v1.*`, the well-known types they
/// use, and the
/// `google.rpc` status and error-detail messages. Decoded once.
pub fn pool() -> &'static DescriptorPool {
    static POOL: OnceLock<DescriptorPool> = OnceLock::new();
    POOL.get_or_init(|| {
        let mut pool = DescriptorPool::new();
        // Both sets are produced at build time by trusted tools; failing to
        // load them is a build defect, not a runtime condition.
        pool.decode_file_descriptor_set(tonic_types::pb::FILE_DESCRIPTOR_SET)
            .expect("the google.rpc descriptor set shipped by tonic-types loads");
        pool.decode_file_descriptor_set(A2A_DESCRIPTOR)
            .expect("the A2A descriptor set compiled by build.rs loads");
        pool
    })
}

/// The rpc `name` (e.g. `"SendMessage"`) of `lf.a2a.v1.A2AService` (1.0);
/// the same as `method_in(SERVICE, name)`.
pub fn method(name: &str) -> Option<MethodDescriptor> {
    method_in(SERVICE, name)
}

/// The rpc `name` of `service`, a full service name such as [`SERVICE`] or
/// [`SERVICE_0_3`]. None when the pool has no such service or the service
/// no such rpc.
pub fn method_in(service: &str, name: &str) -> Option<MethodDescriptor> {
    pool()
        .get_service_by_name(service)?
        .methods()
        .find(|m| m.name() == name)
}

/// A message type by its full name, e.g. `"lf.a2a.v1.Task"` (1.0) or
/// `"a2a.v1.Task"` (0.3).
pub fn message(full_name: &str) -> Option<MessageDescriptor> {
    pool().get_message_by_name(full_name)
}

/// Names of all rpcs of `service`, in proto order (empty for a service the
/// pool does not have).
pub fn method_names_in(service: &str) -> Vec<String> {
    pool()
        .get_service_by_name(service)
        .map(|s| s.methods().map(|m| m.name().to_owned()).collect())
        .unwrap_or_default()
}

/// ProtoJSON of a message: lowerCamelCase field names, enum values by name,
/// well-known types in their JSON forms (Timestamp as RFC 3339 text, Struct
/// and Value as plain JSON, bytes as base64), 64-bit integers as strings,
/// fields at their default value left out (proto3 `optional` fields that are
/// set are kept even at zero).
///
/// Fails only for values JSON cannot hold: a `google.protobuf.Value` number
/// that is NaN or infinite, or an `Any` whose type is not in [`pool`].
pub fn to_json(msg: &DynamicMessage) -> Result<Value, String> {
    msg.serialize_with_options(serde_json::value::Serializer, &SerializeOptions::new())
        .map_err(|e| {
            format!(
                "{} cannot be written as JSON: {e}",
                msg.descriptor().full_name()
            )
        })
}

/// Parses ProtoJSON into a message of type `desc`. Accepts both the
/// lowerCamelCase and the proto field names, enum names or numbers, and
/// `null` for absent fields. A field the message does not have is an error.
pub fn from_json(desc: &MessageDescriptor, value: &Value) -> Result<DynamicMessage, String> {
    DynamicMessage::deserialize_with_options(desc.clone(), value, &DeserializeOptions::new())
        .map_err(|e| format!("not a valid {}: {e}", desc.full_name()))
}

/// A tonic codec for dynamic messages: encodes any [`DynamicMessage`], and
/// decodes incoming messages as `decode` (the response type on a client, the
/// request type on a server).
#[derive(Debug, Clone)]
pub struct DynamicCodec {
    decode: MessageDescriptor,
    decode_error_code: tonic::Code,
}

impl DynamicCodec {
    /// A codec whose decode failures are `INTERNAL` (right for a client
    /// reading responses).
    pub fn new(decode: MessageDescriptor) -> DynamicCodec {
        DynamicCodec {
            decode,
            decode_error_code: tonic::Code::Internal,
        }
    }

    /// The status code of a decode failure (a server reading requests would
    /// say `INVALID_ARGUMENT`).
    pub fn decode_error_code(mut self, code: tonic::Code) -> DynamicCodec {
        self.decode_error_code = code;
        self
    }
}

impl Codec for DynamicCodec {
    type Encode = DynamicMessage;
    type Decode = DynamicMessage;
    type Encoder = DynamicEncoder;
    type Decoder = DynamicDecoder;

    fn encoder(&mut self) -> DynamicEncoder {
        DynamicEncoder
    }

    fn decoder(&mut self) -> DynamicDecoder {
        DynamicDecoder(self.decode.clone(), self.decode_error_code)
    }
}

#[derive(Debug)]
pub struct DynamicEncoder;

impl Encoder for DynamicEncoder {
    type Item = DynamicMessage;
    type Error = Status;

    fn encode(&mut self, item: DynamicMessage, dst: &mut EncodeBuf<'_>) -> Result<(), Status> {
        item.encode(dst)
            .map_err(|e| Status::internal(format!("encoding a message: {e}")))
    }

    fn buffer_settings(&self) -> BufferSettings {
        BufferSettings::default()
    }
}

#[derive(Debug)]
pub struct DynamicDecoder(MessageDescriptor, tonic::Code);

/// The source of the [`Status`] a [`DynamicDecoder`] returns when the bytes
/// are not a valid message of the expected type, so that a client can tell
/// its own decode failure from a status the peer sent.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct MessageDecodeError(pub String);

impl Decoder for DynamicDecoder {
    type Item = DynamicMessage;
    type Error = Status;

    fn decode(&mut self, src: &mut DecodeBuf<'_>) -> Result<Option<DynamicMessage>, Status> {
        match DynamicMessage::decode(self.0.clone(), src) {
            Ok(msg) => Ok(Some(msg)),
            Err(e) => {
                let text = format!("bytes are not a valid {}: {e}", self.0.full_name());
                let mut status = Status::new(self.1, text.clone());
                status.set_source(std::sync::Arc::new(MessageDecodeError(text)));
                Err(status)
            }
        }
    }

    fn buffer_settings(&self) -> BufferSettings {
        BufferSettings::default()
    }
}
