//! The A2A 0.3 service (`a2a.v1.A2AService`) through the client and the
//! server over real sockets on 127.0.0.1, alone and next to the 1.0 service
//! on one server, with a recording backend.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use a2a_proto::client::{ClientError, GrpcClient, GrpcStatus};
use a2a_proto::server::{router_for, Backend, BackendError};
use a2a_proto::{SERVICE, SERVICE_0_3};
use futures::stream::{self, BoxStream, StreamExt as _};
use serde_json::{json, Value};
use tonic::Code;

/// Bound on every await in these tests.
const LIMIT: Duration = Duration::from_secs(10);
/// Per-call timeout given to the client.
const CALL: Duration = Duration::from_secs(5);

async fn within<F: std::future::Future>(f: F) -> F::Output {
    tokio::time::timeout(LIMIT, f)
        .await
        .expect("test step finished within its time limit")
}

/// Records every call as (rpc, params) and every version check.
#[derive(Default)]
struct Recorder {
    calls: Mutex<Vec<(String, Value)>>,
    versions: Mutex<Vec<Option<String>>>,
}

impl Recorder {
    fn calls(&self) -> Vec<(String, Value)> {
        self.calls.lock().expect("lock").clone()
    }

    fn record(&self, method: &str, params: &Value) {
        self.calls
            .lock()
            .expect("lock")
            .push((method.to_owned(), params.clone()));
    }
}

fn cancelled_task() -> Value {
    json!({"id": "t1", "contextId": "c1", "status": {"state": "TASK_STATE_CANCELLED"}})
}

#[allow(clippy::result_large_err)]
impl Backend for Recorder {
    fn check_version(&self, requested: Option<&str>) -> Result<(), BackendError> {
        self.versions
            .lock()
            .expect("lock")
            .push(requested.map(str::to_owned));
        Ok(())
    }

    fn call(&self, method: &str, params: Value) -> Result<Value, BackendError> {
        self.record(method, &params);
        match method {
            "SendMessage" => Ok(json!({ "task": cancelled_task() })),
            // 1.0 addresses the task by id and spells CANCELED with one L;
            // 0.3 uses the resource name and two L's.
            "GetTask" if params["id"] == "t1" => Ok(
                json!({"id": "t1", "contextId": "c1", "status": {"state": "TASK_STATE_CANCELED"}}),
            ),
            "GetTask" if params["name"] == "tasks/t1" => Ok(cancelled_task()),
            // The 1.0 spelling does not fit the 0.3 enum.
            "CancelTask" => Ok(json!({"id": "t1", "status": {"state": "TASK_STATE_CANCELED"}})),
            _ => Err(BackendError::new(Code::NotFound, "no such task")),
        }
    }

    fn stream(
        &self,
        method: &str,
        params: Value,
    ) -> Result<BoxStream<'static, Result<Value, BackendError>>, BackendError> {
        self.record(method, &params);
        let update = |state: &str, last: bool| {
            json!({"statusUpdate": {"taskId": "t1", "contextId": "c1",
                                    "status": {"state": state}, "final": last}})
        };
        match method {
            "TaskSubscription" => Ok(stream::iter(vec![
                Ok(update("TASK_STATE_WORKING", false)),
                Ok(update("TASK_STATE_CANCELLED", true)),
            ])
            .boxed()),
            _ => Err(BackendError::new(Code::Unimplemented, method.to_owned())),
        }
    }
}

/// Serves `app` on 127.0.0.1:0 and returns a client for it.
async fn client_for(app: axum::Router) -> GrpcClient {
    let listener = within(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .await
        .expect("bind");
    let addr: SocketAddr = listener.local_addr().expect("local addr");
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    GrpcClient::new(&addr.to_string(), "http", Duration::from_secs(2)).expect("client")
}

/// A server with only the 0.3 service.
async fn v03_server() -> (Arc<Recorder>, GrpcClient) {
    let backend = Arc::new(Recorder::default());
    let client = client_for(router_for(SERVICE_0_3, backend.clone())).await;
    (backend, client)
}

fn status_of(result: Result<Result<Value, GrpcStatus>, ClientError>) -> GrpcStatus {
    match result {
        Ok(Err(s)) => s,
        other => panic!("expected a status from the server, got {other:?}"),
    }
}

#[test]
fn both_services_are_in_the_pool() {
    assert_eq!(SERVICE_0_3, "a2a.v1.A2AService");
    assert_eq!(
        a2a_proto::method_names_in(SERVICE_0_3),
        [
            "SendMessage",
            "SendStreamingMessage",
            "GetTask",
            "CancelTask",
            "TaskSubscription",
            "CreateTaskPushNotificationConfig",
            "GetTaskPushNotificationConfig",
            "ListTaskPushNotificationConfig",
            "GetAgentCard",
            "DeleteTaskPushNotificationConfig",
        ]
    );
    let get = a2a_proto::method_in(SERVICE_0_3, "GetTask").expect("0.3 GetTask");
    assert_eq!(get.input().full_name(), "a2a.v1.GetTaskRequest");
    assert_eq!(get.output().full_name(), "a2a.v1.Task");
    let sub = a2a_proto::method_in(SERVICE_0_3, "TaskSubscription").expect("0.3 stream");
    assert!(sub.is_server_streaming());
    // The 1.0 shortcut still means lf.a2a.v1.
    let get_v1 = a2a_proto::method("GetTask").expect("1.0 GetTask");
    assert_eq!(get_v1.input().full_name(), "lf.a2a.v1.GetTaskRequest");
    assert!(a2a_proto::method_in(SERVICE, "TaskSubscription").is_none());
    assert!(a2a_proto::method_in(SERVICE_0_3, "SubscribeToTask").is_none());
    assert!(a2a_proto::method_in("no.such.Service", "GetTask").is_none());
    assert!(a2a_proto::method_names_in("no.such.Service").is_empty());
}

#[tokio::test]
async fn send_message_round_trip_keeps_json_names_and_enum_spelling() {
    let (backend, client) = v03_server().await;
    let request = json!({
        "message": {"messageId": "m1", "role": "ROLE_USER", "content": [{"text": "hi"}]},
        "configuration": {"blocking": true},
    });
    let reply = within(client.unary_in(SERVICE_0_3, "SendMessage", &request, &[], CALL))
        .await
        .expect("no client error")
        .expect("no status");
    assert_eq!(
        reply,
        json!({"task": {"id": "t1", "contextId": "c1", "status": {"state": "TASK_STATE_CANCELLED"}}})
    );
    // The backend sees the same JSON: "message" (json_name of field
    // `request`), "content" (not "parts"), the enum by name.
    assert_eq!(backend.calls(), vec![("SendMessage".to_owned(), request)]);
    // No a2a-version in 0.3; the check still runs, with None.
    assert_eq!(*backend.versions.lock().expect("lock"), vec![None]);
}

#[tokio::test]
async fn proto_field_name_is_accepted_but_the_json_name_comes_back() {
    // ProtoJSON parsers accept the proto field name too: `request` for
    // SendMessageRequest.message. The server hands the JSON name on.
    let (backend, client) = v03_server().await;
    let request = json!({"request": {"messageId": "m1", "role": "ROLE_USER",
                                     "content": [{"text": "hi"}]}});
    within(client.unary_in(SERVICE_0_3, "SendMessage", &request, &[], CALL))
        .await
        .expect("no client error")
        .expect("no status");
    let calls = backend.calls();
    assert_eq!(calls[0].1["message"]["content"], json!([{"text": "hi"}]));
    assert!(calls[0].1.get("request").is_none(), "{}", calls[0].1);
}

#[tokio::test]
async fn get_task_by_resource_name() {
    let (backend, client) = v03_server().await;
    let reply = within(client.unary_in(
        SERVICE_0_3,
        "GetTask",
        &json!({"name": "tasks/t1"}),
        &[],
        CALL,
    ))
    .await
    .expect("no client error")
    .expect("no status");
    assert_eq!(reply, cancelled_task());
    assert_eq!(
        backend.calls(),
        vec![("GetTask".to_owned(), json!({"name": "tasks/t1"}))]
    );
    // An id is not a field of the 0.3 GetTaskRequest.
    let err = within(client.unary_in(SERVICE_0_3, "GetTask", &json!({"id": "t1"}), &[], CALL))
        .await
        .expect_err("encode error");
    assert!(matches!(err, ClientError::Encode(_)), "{err:?}");
}

#[tokio::test]
async fn task_subscription_streams_two_events() {
    let (backend, client) = v03_server().await;
    let mut events = within(client.server_stream_in(
        SERVICE_0_3,
        "TaskSubscription",
        &json!({"name": "tasks/t1"}),
        &[],
        CALL,
    ))
    .await
    .expect("no client error")
    .expect("no status");
    let first = within(events.next()).await.expect("event").expect("some");
    assert_eq!(
        first,
        json!({"statusUpdate": {"taskId": "t1", "contextId": "c1",
                                "status": {"state": "TASK_STATE_WORKING"}}})
    );
    let second = within(events.next()).await.expect("event").expect("some");
    assert_eq!(
        second,
        json!({"statusUpdate": {"taskId": "t1", "contextId": "c1",
                                "status": {"state": "TASK_STATE_CANCELLED"}, "final": true}})
    );
    assert_eq!(within(events.next()).await.expect("clean end"), None);
    assert_eq!(
        backend.calls(),
        vec![("TaskSubscription".to_owned(), json!({"name": "tasks/t1"}))]
    );
}

#[tokio::test]
async fn both_services_on_one_server_reach_their_own_backend() {
    let v1 = Arc::new(Recorder::default());
    let v03 = Arc::new(Recorder::default());
    let app = router_for(SERVICE, v1.clone()).merge(router_for(SERVICE_0_3, v03.clone()));
    let client = client_for(app).await;

    let reply = within(client.unary(
        "GetTask",
        &json!({"id": "t1"}),
        &[("a2a-version".into(), "1.0".into())],
        CALL,
    ))
    .await
    .expect("no client error")
    .expect("no status");
    assert_eq!(reply["status"]["state"], "TASK_STATE_CANCELED");
    let reply = within(client.unary_in(
        SERVICE_0_3,
        "GetTask",
        &json!({"name": "tasks/t1"}),
        &[],
        CALL,
    ))
    .await
    .expect("no client error")
    .expect("no status");
    assert_eq!(reply["status"]["state"], "TASK_STATE_CANCELLED");

    assert_eq!(
        v1.calls(),
        vec![("GetTask".to_owned(), json!({"id": "t1"}))]
    );
    assert_eq!(*v1.versions.lock().expect("lock"), vec![Some("1.0".into())]);
    assert_eq!(
        v03.calls(),
        vec![("GetTask".to_owned(), json!({"name": "tasks/t1"}))]
    );
    assert_eq!(*v03.versions.lock().expect("lock"), vec![None]);

    // The 0.3 stream works next to 1.0 on the same connection.
    let mut events = within(client.server_stream_in(
        SERVICE_0_3,
        "TaskSubscription",
        &json!({"name": "tasks/t1"}),
        &[],
        CALL,
    ))
    .await
    .expect("no client error")
    .expect("no status");
    let first = within(events.next()).await.expect("event").expect("some");
    assert_eq!(first["statusUpdate"]["taskId"], "t1");
}

#[tokio::test]
async fn unknown_03_field_is_an_encode_error() {
    let (backend, client) = v03_server().await;
    // `parts` is the 1.0 name; in 0.3 the parts are in `content`.
    let request = json!({"message": {"messageId": "m1", "role": "ROLE_USER",
                                     "parts": [{"text": "hi"}]}});
    let err = within(client.unary_in(SERVICE_0_3, "SendMessage", &request, &[], CALL))
        .await
        .expect_err("encode error");
    match err {
        ClientError::Encode(text) => {
            assert!(text.contains("parts"), "{text}");
            assert!(text.contains("a2a.v1.SendMessageRequest"), "{text}");
        }
        other => panic!("expected Encode, got {other:?}"),
    }
    // Nor are the 0.3 JSON-RPC spellings: roles are enum names, parts have
    // no `kind`.
    for message in [
        json!({"messageId": "m1", "role": "user", "content": [{"text": "hi"}]}),
        json!({"messageId": "m1", "role": "ROLE_USER", "content": [{"kind": "text", "text": "hi"}]}),
    ] {
        let request = json!({"message": message, "configuration": {"blocking": true}});
        let err = within(client.unary_in(SERVICE_0_3, "SendMessage", &request, &[], CALL))
            .await
            .expect_err("encode error");
        assert!(matches!(err, ClientError::Encode(_)), "{err:?}");
    }
    assert!(backend.calls().is_empty());
}

#[tokio::test]
async fn rpcs_of_the_other_version_are_unknown() {
    let (_backend, client) = v03_server().await;
    let err = within(client.unary_in(
        SERVICE,
        "TaskSubscription",
        &json!({"name": "tasks/t1"}),
        &[],
        CALL,
    ))
    .await
    .expect_err("unknown rpc");
    match err {
        ClientError::UnknownMethod(text) => {
            assert_eq!(text, "lf.a2a.v1.A2AService/TaskSubscription")
        }
        other => panic!("expected UnknownMethod, got {other:?}"),
    }
    let err = within(client.server_stream_in(
        SERVICE_0_3,
        "SubscribeToTask",
        &json!({"id": "t1"}),
        &[],
        CALL,
    ))
    .await
    .expect_err("unknown rpc");
    assert!(matches!(err, ClientError::UnknownMethod(_)), "{err:?}");
    // The 1.0 service is not served by a 0.3-only router.
    let s = status_of(within(client.unary("GetTask", &json!({"id": "t1"}), &[], CALL)).await);
    assert_eq!(s.code_name(), "UNIMPLEMENTED");
}

#[tokio::test]
async fn result_with_the_10_enum_spelling_is_internal() {
    let (_backend, client) = v03_server().await;
    let s = status_of(
        within(client.unary_in(
            SERVICE_0_3,
            "CancelTask",
            &json!({"name": "tasks/t1"}),
            &[],
            CALL,
        ))
        .await,
    );
    assert_eq!(s.code_name(), "INTERNAL");
    assert!(s.message.contains("TASK_STATE_CANCELED"), "{}", s.message);
}

/// The merged server answers an rpc path of the wrong version (and any path
/// of a service the pool does not have) with UNIMPLEMENTED.
#[tokio::test]
async fn server_answers_rpc_of_the_other_version_with_unimplemented() {
    let app = router_for(SERVICE, Arc::new(Recorder::default()))
        .merge(router_for(SERVICE_0_3, Arc::new(Recorder::default())))
        .merge(router_for("no.such.Service", Arc::new(Recorder::default())));
    let listener = within(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    let channel = within(
        tonic::transport::Endpoint::from_shared(format!("http://{addr}"))
            .expect("endpoint")
            .connect(),
    )
    .await
    .expect("connect");
    let mut grpc = tonic::client::Grpc::new(channel);
    let empty = a2a_proto::message("google.protobuf.Empty").expect("Empty");
    for path in [
        "/a2a.v1.A2AService/SubscribeToTask",
        "/a2a.v1.A2AService/ListTasks",
        "/lf.a2a.v1.A2AService/TaskSubscription",
        "/no.such.Service/GetTask",
    ] {
        within(grpc.ready()).await.expect("ready");
        let status = within(grpc.unary(
            tonic::Request::new(prost_reflect::DynamicMessage::new(empty.clone())),
            path.parse().expect("path"),
            a2a_proto::DynamicCodec::new(empty.clone()),
        ))
        .await
        .expect_err("unimplemented");
        assert_eq!(status.code(), Code::Unimplemented, "{path}: {status:?}");
    }
}
