//! A layer between tonic's client and the channel that removes a
//! `grpc-status-details-bin` which is not base64 (tonic 0.14 panics on it)
//! and leaves a note in [`DETAILS_ERROR_HEADER`] instead, in the response
//! headers and in the trailers.

use std::pin::Pin;
use std::task::{Context, Poll};

use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig};
use base64::engine::DecodePaddingMode;
use base64::Engine as _;
use bytes::Bytes;
use http_body::Frame;
use tonic::codegen::http::{HeaderMap, HeaderValue, Request, Response};
use tonic::codegen::{BoxFuture, Service};
use tonic::transport::Channel;
use tonic::Status;

/// Where the note about an undecodable `grpc-status-details-bin` goes.
pub(crate) const DETAILS_ERROR_HEADER: &str = "x-a2a-proto-details-error";

const DETAILS: &str = "grpc-status-details-bin";

const BASE64: GeneralPurpose = GeneralPurpose::new(
    &base64::alphabet::STANDARD,
    GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
);

fn fix(headers: &mut HeaderMap) {
    let Some(value) = headers.get(DETAILS) else {
        return;
    };
    if let Err(e) = BASE64.decode(value.as_bytes()) {
        headers.remove(DETAILS);
        let note = format!("grpc-status-details-bin is not base64: {e}");
        let note = HeaderValue::try_from(note.as_str())
            .unwrap_or_else(|_| HeaderValue::from_static("grpc-status-details-bin is not base64"));
        headers.insert(DETAILS_ERROR_HEADER, note);
    }
}

#[derive(Debug, Clone)]
pub(crate) struct Sanitized(pub(crate) Channel);

impl Service<Request<tonic::body::Body>> for Sanitized {
    type Response = Response<SanitizedBody>;
    type Error = tonic::transport::Error;
    type Future = BoxFuture<Self::Response, Self::Error>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.0.poll_ready(cx)
    }

    fn call(&mut self, req: Request<tonic::body::Body>) -> Self::Future {
        let fut = self.0.call(req);
        Box::pin(async move {
            let (mut parts, body) = fut.await?.into_parts();
            fix(&mut parts.headers);
            Ok(Response::from_parts(parts, SanitizedBody(body)))
        })
    }
}

pub(crate) struct SanitizedBody(tonic::body::Body);

impl http_body::Body for SanitizedBody {
    type Data = Bytes;
    type Error = Status;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Status>>> {
        let polled = Pin::new(&mut self.0).poll_frame(cx);
        if let Poll::Ready(Some(Ok(mut frame))) = polled {
            if let Some(trailers) = frame.trailers_mut() {
                fix(trailers);
            }
            return Poll::Ready(Some(Ok(frame)));
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.0.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.0.size_hint()
    }
}
