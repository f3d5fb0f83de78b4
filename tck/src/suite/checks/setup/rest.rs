//! Raw HTTP+JSON requests, for the checks that judge the REST binding's own bytes.

use crate::exchange::transport::rest;
use crate::exchange::wire::{HttpReply, Request};
use crate::suite::check::HarnessError;
use crate::suite::ctx::Ctx;
use serde_json::Value;

/// `method` with `params` (the tenant added) on the REST interface, sent as the kit's
/// transport sends it but answered raw: for checks that judge what the transport reads past
/// (status, headers, bytes).
pub(crate) async fn raw(ctx: &Ctx, method: &str, params: Value) -> Result<HttpReply, HarnessError> {
    let interface = ctx
        .interface
        .as_ref()
        .ok_or_else(|| HarnessError::Internal("no interface".into()))?;
    let route = rest::route(&interface.url, method, &ctx.with_tenant(params)?)?;
    let mut headers = vec![("accept", rest::ACCEPT.to_string())];
    if route.body.is_some() {
        headers.push(("content-type", rest::REQUEST_CONTENT_TYPE.to_string()));
    }
    headers.push(("a2a-version", interface.version.as_str().to_string()));
    ctx.wire
        .send(Request {
            method: route.method,
            url: &route.url,
            headers,
            body: route.body.map(|b| b.to_string().into_bytes()),
        })
        .await
}
