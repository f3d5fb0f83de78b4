//! placeholder
use super::stream::Start;
use super::Reply;
use crate::check::HarnessError;
use crate::ctx::Ctx;
use serde_json::Value;
pub async fn unary(
    _: &Ctx,
    _: &str,
    _: &str,
    _: &Value,
    _: Option<String>,
) -> Result<Reply, HarnessError> {
    Err(HarnessError::Internal("gRPC is not built yet".into()))
}
pub async fn stream(
    _: &Ctx,
    _: &str,
    _: &str,
    _: &Value,
    _: Option<String>,
) -> Result<Start, HarnessError> {
    Err(HarnessError::Internal("gRPC is not built yet".into()))
}
