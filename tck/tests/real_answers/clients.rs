//! Client mode: what the official SDKs' clients sent and read that the kit once misjudged.

use std::sync::Arc;

use a2a_tck::suite::check::Status;
use axum::body::Bytes;
use serde_json::{json, Value};

use super::assert_all;

/// An adapter in Python's standard library that speaks the HTTP+JSON 0.3 binding the way
/// a2a-sdk 1.3.0's 0.3 client does: ProtoJSON with the proto field names (`message_id`,
/// `task_id`, `context_id`), which ProtoJSON readers must take as well as the JSON names.
const PROTO_NAMES_ADAPTER: &str = r#"
import json, os, urllib.request
scenario = json.load(open(os.environ["A2A_TCK_SCENARIO"]))
if scenario.get("describe"):
    print(json.dumps({"event": "client", "name": "proto-names", "version": "0",
                      "bindings": ["HTTP+JSON"], "versions": ["0.3"], "features": []}))
    raise SystemExit
card = json.load(urllib.request.urlopen(scenario["card_url"]))
last = {}
for i, step in enumerate(scenario["steps"]):
    if step["op"] != "send":
        print(json.dumps({"op": step["op"], "error": {"kind": "Other", "message": "not driven"}}))
        continue
    message = {"message_id": "m-%d" % i, "role": "ROLE_USER", "content": [{"text": step["text"]}]}
    if step.get("follow_up"):
        message["task_id"], message["context_id"] = last["id"], last["context_id"]
    body = json.dumps({"request": message}).encode()
    request = urllib.request.Request(card["url"] + "/v1/message:send", body,
                                     {"Content-Type": "application/json"})
    task = json.load(urllib.request.urlopen(request)).get("task", {})
    last = {"id": task.get("id"), "context_id": task.get("contextId") or task.get("context_id")}
    print(json.dumps({"op": "send", "result": "task", "task_id": last["id"],
                      "context_id": last["context_id"], "state": task.get("status", {}).get("state")}))
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_sending_proto_field_names_over_rest_is_read_as_protojson() {
    let dir = tempfile::tempdir().expect("a scratch folder");
    let script = dir.path().join("adapter.py");
    std::fs::write(&script, PROTO_NAMES_ADAPTER).expect("the adapter is written");
    let options = a2a_tck::client::client_runner::ClientOptions {
        client: a2a_tck::client::adapter::Client::Command(format!("python3 {}", script.display())),
        scenario_timeout: std::time::Duration::from_secs(30),
        filter: a2a_tck::suite::filter::Filter {
            select: vec![
                "client.follow-up.same-task".into(),
                "client.requests.message-valid".into(),
            ],
            ..a2a_tck::suite::filter::Filter::default()
        },
    };
    let report = a2a_tck::client::client_runner::run(&options).await;
    let judged: Vec<(String, Status, String)> = (report.results.iter())
        .filter(|r| r.status != Status::NotApplicable)
        .map(|r| (r.id.clone(), r.status, r.message.clone()))
        .collect();
    assert!(
        !judged.is_empty(),
        "the checks ran on HTTP+JSON 0.3: {:?}",
        report.verdict_reason
    );
    assert_all(&judged, Status::Pass, "");
}

/// Sends one gRPC call through the stage over h2c and returns the response headers, the
/// messages' bytes and the trailers.
async fn grpc_through_stage(
    stage: &a2a_tck::client::stage::Stage,
    rpc: &str,
    request: Value,
) -> (http::HeaderMap, usize, Option<http::HeaderMap>) {
    use http_body_util::BodyExt as _;
    use prost::Message as _;
    let method = a2a_proto::method_in(a2a_proto::SERVICE, rpc).expect("a 1.0 rpc");
    let message = a2a_proto::from_json(&method.input(), &request).expect("the request");
    let mut frame = vec![0u8];
    let bytes = message.encode_to_vec();
    frame.extend_from_slice(&(bytes.len() as u32).to_be_bytes());
    frame.extend_from_slice(&bytes);
    let client = hyper_util::client::legacy::Client::builder(hyper_util::rt::TokioExecutor::new())
        .http2_only(true)
        .build_http::<http_body_util::Full<Bytes>>();
    let uri = format!(
        "http://{}/{}/{rpc}",
        stage.addr(a2a_tck::client::stage::Door::Main),
        a2a_proto::SERVICE
    );
    let request = http::Request::post(uri)
        .header("content-type", "application/grpc")
        .header("te", "trailers")
        .header("a2a-version", "1.0")
        .body(http_body_util::Full::new(Bytes::from(frame)))
        .expect("a request");
    let response = client.request(request).await.expect("an answer");
    let headers = response.headers().clone();
    let mut body = response.into_body();
    let (mut data, mut trailers) = (0usize, None);
    while let Some(frame) = body.frame().await {
        let frame = frame.expect("a frame");
        if let Some(chunk) = frame.data_ref() {
            data += chunk.len();
        } else if let Ok(map) = frame.into_trailers() {
            trailers = Some(map);
        }
    }
    (headers, data, trailers)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn grpc_statuses_pass_the_stage_in_trailers_as_grpc_core_clients_read_them() {
    // a2a-sdk's gRPC client (grpc-core) read a trailers-only answer passed on as headers then
    // an empty end of stream as "Stream removed", and a stream the stage cut without trailers
    // lost its first message: the stage now sends statuses in trailers, a cut as UNAVAILABLE.
    let backend = a2a_tck::run::builtin::start_with(a2a_reference_agent::AgentConfig::default())
        .await
        .expect("a reference agent");
    let stage = a2a_tck::client::stage::Stage::start()
        .await
        .expect("the stage");
    let play = |cut| {
        Arc::new(a2a_tck::client::stage::Play::new(
            "t".into(),
            json!({}),
            backend.local_addr(),
            cut,
        ))
    };
    stage.begin(play(None));
    let (headers, _, trailers) =
        grpc_through_stage(&stage, "GetTask", json!({"id": "no-such-task"})).await;
    assert!(headers.get("grpc-status").is_none(), "{headers:?}");
    let trailers = trailers.expect("the status in trailers");
    assert_eq!(
        trailers.get("grpc-status").map(|v| v.as_bytes()),
        Some(&b"5"[..])
    );
    stage.begin(play(Some(1)));
    let message = json!({"message": {"messageId": "m-1", "role": "ROLE_USER", "parts": [{"text": "tck-long-running: go"}]}});
    let (_, data, trailers) = grpc_through_stage(&stage, "SendStreamingMessage", message).await;
    assert!(data > 5, "the first message went through");
    let trailers = trailers.expect("a cut stream ends with trailers");
    assert_eq!(
        trailers.get("grpc-status").map(|v| v.as_bytes()),
        Some(&b"14"[..])
    );
    stage.end();
}

#[test]
fn a_card_with_required_defaults_verifies_for_a_verifier_that_drops_them() {
    // a2a-sdk 1.3.0 and @a2a-js/sdk 1.3.0 both canonicalise with REQUIRED fields at their
    // default value dropped and `optional` fields set to false kept (measured): one of the
    // defaults card's signatures must be over that form, not only over §8.4.1's.
    use base64::Engine as _;
    let signer = a2a_tck::client::card_signing::PlaySigner::new().expect("a key");
    let card = json!({"name": "n", "description": "d", "version": "1",
        "capabilities": {"streaming": false}, "skills": [{"id": "s", "name": "s", "description": "x", "tags": ["t"]}],
        "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"]});
    let signed = signer.sign(card, "defaults");
    let form = (a2a_tck::facts::jws::canonical_forms(&signed).into_iter())
        .find(|(name, _)| *name == a2a_tck::client::card_signing::EXCEPT_OPTIONAL_FORM)
        .map(|(_, bytes)| bytes)
        .expect("the form that drops REQUIRED defaults and keeps optional ones");
    let text = String::from_utf8_lossy(&form).into_owned();
    assert!(!text.contains("\"description\":\"\""), "{text}");
    assert!(text.contains("\"streaming\":false"), "{text}");
    let jwk = signer.jwks()["keys"][0].clone();
    let b64 = base64::engine::general_purpose::URL_SAFE_NO_PAD;
    let mut point = vec![4u8];
    for c in ["x", "y"] {
        point.extend(
            b64.decode(jwk[c].as_str().expect("a coordinate"))
                .expect("base64url"),
        );
    }
    let key =
        ring::signature::UnparsedPublicKey::new(&ring::signature::ECDSA_P256_SHA256_FIXED, point);
    let verified = (signed["signatures"].as_array().expect("signatures").iter()).any(|entry| {
        let protected = entry["protected"].as_str().unwrap_or("");
        let signature = b64
            .decode(entry["signature"].as_str().unwrap_or(""))
            .unwrap_or_default();
        let input = format!("{protected}.{}", b64.encode(&form));
        key.verify(input.as_bytes(), &signature).is_ok()
    });
    assert!(verified, "no signature covers the SDKs' canonical form");
}
