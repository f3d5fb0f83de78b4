//! gRPC (spec 1.0 §10): placeholder until the gRPC client lands.

use serde_json::Value;

use super::stream::Start;
use super::Reply;
use crate::check::HarnessError;
use crate::ctx::Ctx;

pub async fn unary(
    _ctx: &Ctx,
    _url: &str,
    _method: &str,
    _params: &Value,
    _version: Option<String>,
) -> Result<Reply, HarnessError> {
    Err(HarnessError::Internal("gRPC is not built yet".into()))
}

pub async fn stream(
    _ctx: &Ctx,
    _url: &str,
    _method: &str,
    _params: &Value,
    _version: Option<String>,
) -> Result<Start, HarnessError> {
    Err(HarnessError::Internal("gRPC is not built yet".into()))
}
