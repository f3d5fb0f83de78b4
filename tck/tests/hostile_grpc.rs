//! A hostile gRPC target: the project's `a2a_proto::server::router` behind a socket that cuts
//! the connection after the first message of a server stream. The check must end in FAIL or
//! ERROR, quickly, with the message seen before the cut in the evidence.

use crate::hostile;
use crate::support;

use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use a2a_proto::server::{Backend, BackendError};
use a2a_tck::suite::check::Status;
use futures::stream::BoxStream;
use futures::StreamExt;
use hostile::*;
use serde_json::{json, Value};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};

// --- gRPC: the connection is lost after the first message of a server stream ---

/// The task id of the one event; the socket cuts the connection once it has written it.
const GRPC_MARKER: &str = "hostile-grpc-task-before-the-reset";

struct OneEventThenNothing;

impl Backend for OneEventThenNothing {
    fn check_version(&self, _requested: Option<&str>) -> Result<(), BackendError> {
        Ok(())
    }

    fn call(&self, _method: &str, _params: Value) -> Result<Value, BackendError> {
        Err(BackendError::a2a(
            tonic::Code::NotFound,
            "TASK_NOT_FOUND",
            "Task not found",
        ))
    }

    fn stream(
        &self,
        _method: &str,
        _params: Value,
    ) -> Result<BoxStream<'static, Result<Value, BackendError>>, BackendError> {
        let event = json!({"task": {"id": GRPC_MARKER, "contextId": "c1",
                                     "status": {"state": "TASK_STATE_SUBMITTED"}}});
        Ok(futures::stream::once(async move { Ok(event) })
            .chain(futures::stream::pending())
            .boxed())
    }
}

/// A connection that shuts down its writing side (the peer sees the connection end, with no
/// gRPC status) right after it has written bytes containing [`GRPC_MARKER`].
struct CutAfterMarker {
    inner: TcpStream,
    cut: bool,
}

impl AsyncRead for CutAfterMarker {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl AsyncWrite for CutAfterMarker {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        if self.cut {
            return Poll::Ready(Err(io::ErrorKind::ConnectionReset.into()));
        }
        let written = Pin::new(&mut self.inner).poll_write(cx, buf);
        if let Poll::Ready(Ok(n)) = written {
            let marker = GRPC_MARKER.as_bytes();
            if buf[..n].windows(marker.len()).any(|w| w == marker) {
                self.cut = true;
                // A TCP shutdown completes at once; the peer gets its data, then the end.
                let _ = Pin::new(&mut self.inner).poll_shutdown(cx);
            }
        }
        written
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        if self.cut {
            return Poll::Ready(Ok(()));
        }
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        if self.cut {
            return Poll::Ready(Ok(()));
        }
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

struct CuttingListener(TcpListener);

impl axum::serve::Listener for CuttingListener {
    type Io = CutAfterMarker;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        loop {
            if let Ok((inner, addr)) = self.0.accept().await {
                return (CutAfterMarker { inner, cut: false }, addr);
            }
        }
    }

    fn local_addr(&self) -> io::Result<Self::Addr> {
        self.0.local_addr()
    }
}

/// The gRPC service (and the card, on the same port) of an agent whose streams break.
async fn grpc_hostile() -> Server {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    let card = card(json!({"protocolBinding": "GRPC", "protocolVersion": "1.0",
                           "url": addr.to_string()}));
    let app = a2a_proto::server::router(Arc::new(OneEventThenNothing)).route(
        CARD_PATH,
        axum::routing::get(move || async move { axum::Json(card) }),
    );
    let task = tokio::spawn(async move {
        let _ = axum::serve(CuttingListener(listener), app).await;
    });
    Server {
        card_url: format!("http://{addr}{CARD_PATH}"),
        task,
    }
}

#[tokio::test]
async fn a_grpc_stream_lost_after_one_event_fails_with_that_event() {
    let server = grpc_hostile().await;
    let (result, took) = run_one(&server.card_url, "streaming.task-stream-starts-with-task").await;
    assert_rejected(&result, took);
    assert_eq!(events_in(&result), 1, "{}", support::explain(&[&result]));
}

#[tokio::test]
async fn a_grpc_stream_lost_is_recorded_as_broken() {
    // The same lost connection, judged by a check that reads past the first event. The check
    // calls a stream that breaks before the terminal state UNTESTABLE (never a pass, the
    // run is not conformant); the evidence holds the event and why the stream ended.
    let server = grpc_hostile().await;
    let (result, took) = run_one(&server.card_url, "streaming.closes-after-terminal-state").await;
    assert!(
        matches!(
            result.status,
            Status::Fail | Status::Error | Status::Untestable
        ),
        "{}",
        support::explain(&[&result])
    );
    assert!(took < Duration::from_secs(10), "took {took:?}");
    assert_eq!(events_in(&result), 1, "{}", support::explain(&[&result]));
    let exchange = &result.evidence[0];
    assert!(
        exchange
            .error
            .as_deref()
            .is_some_and(|e| e.contains("broke")),
        "the exchange records the broken stream: {}",
        support::explain(&[&result])
    );
}
