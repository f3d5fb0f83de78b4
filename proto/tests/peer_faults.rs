//! The client against a hand-written HTTP/2 peer that breaks the gRPC rules
//! in various ways, and the server's answer to an rpc it does not have.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use a2a_proto::client::{ClientError, GrpcClient, GrpcStreamEnd};
use a2a_proto::server::{router, Backend, BackendError};
use a2a_proto::DynamicCodec;
use axum::body::Body;
use axum::response::Response;
use axum::routing::post;
use bytes::Bytes;
use futures::stream::{self, BoxStream};
use http::{HeaderMap, HeaderValue};
use http_body::Frame;
use http_body_util::StreamBody;
use prost::Message as _;
use prost_reflect::DynamicMessage;
use serde_json::{json, Value};

const LIMIT: Duration = Duration::from_secs(10);
const CALL: Duration = Duration::from_secs(5);

async fn within<F: std::future::Future>(f: F) -> F::Output {
    tokio::time::timeout(LIMIT, f)
        .await
        .expect("test step finished within its time limit")
}

/// One gRPC length-prefixed frame.
fn frame(payload: &[u8]) -> Bytes {
    let mut out = vec![0u8];
    out.extend_from_slice(&u32::try_from(payload.len()).expect("small").to_be_bytes());
    out.extend_from_slice(payload);
    out.into()
}

fn grpc_headers(resp: &mut Response) {
    resp.headers_mut()
        .insert("content-type", HeaderValue::from_static("application/grpc"));
}

/// A 200 response with `data` frames and then `trailers`.
fn with_trailers(data: Vec<Bytes>, trailers: &[(&'static str, &'static str)]) -> Response {
    let mut map = HeaderMap::new();
    for (k, v) in trailers {
        map.insert(*k, HeaderValue::from_static(v));
    }
    let mut frames: Vec<Result<Frame<Bytes>, Infallible>> =
        data.into_iter().map(|d| Ok(Frame::data(d))).collect();
    frames.push(Ok(Frame::trailers(map)));
    let mut resp = Response::new(Body::new(StreamBody::new(stream::iter(frames))));
    grpc_headers(&mut resp);
    resp
}

/// A trailers-only response: status in the headers, no body.
fn trailers_only(headers: &[(&'static str, &'static str)]) -> Response {
    let mut resp = Response::new(Body::empty());
    grpc_headers(&mut resp);
    for (k, v) in headers {
        resp.headers_mut().insert(*k, HeaderValue::from_static(v));
    }
    resp
}

fn good_event() -> Bytes {
    let desc = a2a_proto::message("lf.a2a.v1.StreamResponse").expect("StreamResponse");
    let msg = a2a_proto::from_json(
        &desc,
        &json!({"statusUpdate": {"taskId": "t", "contextId": "c", "status": {"state": "TASK_STATE_WORKING"}}}),
    )
    .expect("valid event");
    frame(&msg.encode_to_vec())
}

/// Field 3 of Task is a message; a varint there does not decode.
const NOT_A_TASK: &[u8] = &[0x18, 0x07];

async fn faulty_peer() -> SocketAddr {
    let path = |rpc: &str| format!("/lf.a2a.v1.A2AService/{rpc}");
    let app = axum::Router::new()
        // A response message that is not a Task.
        .route(
            &path("GetTask"),
            post(|| async { with_trailers(vec![frame(NOT_A_TASK)], &[("grpc-status", "0")]) }),
        )
        // grpc-status-details-bin that is not base64 (tonic would panic).
        .route(
            &path("CancelTask"),
            post(|| async {
                trailers_only(&[
                    ("grpc-status", "5"),
                    ("grpc-message", "gone"),
                    ("grpc-status-details-bin", "%%% not base64 %%%"),
                ])
            }),
        )
        // Valid base64 that is not a google.rpc.Status.
        .route(
            &path("ListTasks"),
            post(|| async {
                trailers_only(&[
                    ("grpc-status", "9"),
                    ("grpc-message", "nope"),
                    ("grpc-status-details-bin", "//8="),
                ])
            }),
        )
        // OK response without any grpc-status.
        .route(
            &path("GetExtendedAgentCard"),
            post(|| async { with_trailers(vec![], &[]) }),
        )
        // A good event, then garbage.
        .route(
            &path("SubscribeToTask"),
            post(|| async {
                with_trailers(
                    vec![good_event(), frame(&[0xFF, 0xFF, 0xFF])],
                    &[("grpc-status", "0")],
                )
            }),
        );
    let listener = within(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    addr
}

async fn client() -> GrpcClient {
    let addr = faulty_peer().await;
    GrpcClient::new(&addr.to_string(), "http", Duration::from_secs(2)).expect("client")
}

#[tokio::test]
async fn response_that_is_not_the_message_is_a_decode_error() {
    let c = client().await;
    let err = within(c.unary("GetTask", &json!({"id": "t"}), &[], CALL))
        .await
        .expect_err("decode error");
    match err {
        ClientError::Decode(text) => assert!(text.contains("lf.a2a.v1.Task"), "{text}"),
        other => panic!("expected Decode, got {other:?}"),
    }
}

#[tokio::test]
async fn details_that_are_not_base64_do_not_panic() {
    let c = client().await;
    let status = within(c.unary("CancelTask", &json!({"id": "t"}), &[], CALL))
        .await
        .expect("no client error")
        .expect_err("a status");
    assert_eq!(status.code_name(), "NOT_FOUND");
    assert_eq!(status.message, "gone");
    let note = status.details_error.expect("details_error");
    assert!(note.contains("not base64"), "{note}");
}

#[tokio::test]
async fn details_that_are_not_a_status_are_reported() {
    let c = client().await;
    let status = within(c.unary("ListTasks", &json!({}), &[], CALL))
        .await
        .expect("no client error")
        .expect_err("a status");
    assert_eq!(status.code_name(), "FAILED_PRECONDITION");
    assert_eq!(status.message, "nope");
    assert!(status.details_error.is_some(), "{status:?}");
    assert_eq!(status.error_info, None);
}

#[tokio::test]
async fn missing_grpc_status_is_unknown() {
    let c = client().await;
    let status = within(c.unary("GetExtendedAgentCard", &json!({}), &[], CALL))
        .await
        .expect("no client error")
        .expect_err("a status");
    assert_eq!(status.code_name(), "UNKNOWN");
    assert!(status.message.contains("grpc-status"), "{}", status.message);
}

#[tokio::test]
async fn undecodable_event_ends_the_stream_with_decode() {
    let c = client().await;
    let mut events = within(c.server_stream("SubscribeToTask", &json!({"id": "t"}), &[], CALL))
        .await
        .expect("no client error")
        .expect("no status");
    let first = within(events.next()).await.expect("event").expect("some");
    assert_eq!(first["statusUpdate"]["taskId"], "t");
    match within(events.next()).await {
        Err(GrpcStreamEnd::Decode(text)) => assert!(text.contains("StreamResponse"), "{text}"),
        other => panic!("expected Decode, got {other:?}"),
    }
}

struct Nothing;

#[allow(clippy::result_large_err)]
impl Backend for Nothing {
    fn check_version(&self, _: Option<&str>) -> Result<(), BackendError> {
        Ok(())
    }
    fn call(&self, _: &str, _: Value) -> Result<Value, BackendError> {
        Ok(json!({}))
    }
    fn stream(
        &self,
        _: &str,
        _: Value,
    ) -> Result<BoxStream<'static, Result<Value, BackendError>>, BackendError> {
        Ok(Box::pin(stream::empty()))
    }
}

#[tokio::test]
async fn server_answers_unknown_rpc_with_unimplemented() {
    let listener = within(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move {
        let _ = axum::serve(listener, router(Arc::new(Nothing))).await;
    });
    let channel = within(
        tonic::transport::Endpoint::from_shared(format!("http://{addr}"))
            .expect("endpoint")
            .connect(),
    )
    .await
    .expect("connect");
    let mut grpc = tonic::client::Grpc::new(channel);
    within(grpc.ready()).await.expect("ready");
    let empty = a2a_proto::message("google.protobuf.Empty").expect("Empty");
    let status = within(grpc.unary(
        tonic::Request::new(DynamicMessage::new(empty.clone())),
        "/lf.a2a.v1.A2AService/NoSuchRpc".parse().expect("path"),
        DynamicCodec::new(empty),
    ))
    .await
    .expect_err("unimplemented");
    assert_eq!(status.code(), tonic::Code::Unimplemented);
}

#[tokio::test]
async fn server_answers_undecodable_request_with_invalid_argument() {
    let listener = within(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move {
        let _ = axum::serve(listener, router(Arc::new(Nothing))).await;
    });
    let channel = within(
        tonic::transport::Endpoint::from_shared(format!("http://{addr}"))
            .expect("endpoint")
            .connect(),
    )
    .await
    .expect("connect");
    let mut grpc = tonic::client::Grpc::new(channel);
    within(grpc.ready()).await.expect("ready");
    // A TaskStatus (field 1 = enum, a varint) where GetTaskRequest has
    // field 1 = tenant, a string: the wire types clash.
    let status_desc = a2a_proto::message("lf.a2a.v1.TaskStatus").expect("TaskStatus");
    let wrong = a2a_proto::from_json(&status_desc, &json!({"state": "TASK_STATE_WORKING"}))
        .expect("TaskStatus");
    let task = a2a_proto::message("lf.a2a.v1.Task").expect("Task");
    let status = within(grpc.unary(
        tonic::Request::new(wrong),
        "/lf.a2a.v1.A2AService/GetTask".parse().expect("path"),
        DynamicCodec::new(task),
    ))
    .await
    .expect_err("invalid argument");
    assert_eq!(status.code(), tonic::Code::InvalidArgument, "{status:?}");
}
