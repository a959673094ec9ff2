//! Answers as MCP sees them: the MCP-AQL discriminated union as JSON text content of a
//! `CallToolResult` (seed mcp-integration §4.1), with `isError` set from the error code.
//! Tools declare no `outputSchema`, so the answer is not repeated as `structuredContent`
//! (optional without one, MCP 2025-06-18 tools): every client reads the text, and a second
//! copy would double what an agent pays for each answer. The result union is the same for
//! every tool and `introspect` describes each operation's data, so a schema would only
//! lengthen `tools/list`.

use crate::call::Data;
use crate::error::{AqlError, ErrorCode};
use crate::warning::{self, Warning};
use rmcp::model::{CallToolResult, ContentBlock};

/// How one operation ended.
pub enum Outcome {
    /// `data`, and the warnings raised on the way.
    Success {
        /// The answer's `data`.
        data: Data,
        /// Warnings for the answer.
        warnings: Vec<Warning>,
    },
    /// The error; a failure of `introspect` is answered without `details`.
    Failure {
        /// What went wrong.
        error: AqlError,
        /// Whether the operation was `introspect`.
        introspect: bool,
    },
}

/// `{"success":true,"data":<data>,"warnings":[...]}`; no `warnings` member when there are
/// none (warnings §2.1).
pub fn success_with_warnings(data: Data, warnings: &[Warning]) -> CallToolResult {
    let warnings =
        (!warnings.is_empty()).then(|| serde_json::Value::Array(warning::collect(warnings)));
    let data_json = match data {
        Data::Text(text) => text,
        Data::Value(value) => value.to_string(),
    };
    let mut text = String::with_capacity(data_json.len() + 26);
    text.push_str("{\"success\":true,\"data\":");
    text.push_str(&data_json);
    if let Some(warnings) = &warnings {
        text.push_str(",\"warnings\":");
        text.push_str(&warnings.to_string());
    }
    text.push('}');
    CallToolResult::success(vec![ContentBlock::text(text)])
}

/// `{"success":false,"error":{code,message,details?}}`, whose `details` also name the
/// session when there is one (SPEC §2.3.5: failures can carry the session id only there).
/// `isError` is false for codes an agent recovers from by changing its request, true for the
/// others.
pub fn failure_in_session(error: &AqlError, session: Option<&str>) -> CallToolResult {
    let mut body = failure_value(error, session);
    if error.code == ErrorCode::ConfirmationRequired
        && let (Some(token), Some(expires_at)) = (
            error.details.get("confirmation_token"),
            error.details.get("expires_at"),
        )
    {
        let mut confirmation = serde_json::json!({
            "token": token,
            "expires_at": expires_at,
            "message": error.details.get("confirmation_message").unwrap_or(&error.message.clone().into()),
        });
        if let Some(reasons) = error.details.get("reasons") {
            confirmation["reasons"] = reasons.clone();
        }
        body["confirmation"] = confirmation;
    }
    wrap_failure(error, body)
}

/// A failure whose schema allows only `code` and `message` in its error object, so `details`
/// are left out: a failure of `introspect` (the introspection response schema), and a batch
/// refused as a whole (the batch schema).
pub fn bare_failure(error: &AqlError) -> CallToolResult {
    wrap_failure(error, bare_value(error))
}

/// The failure object `{"success":false,"error":{code,message}}`, without `details`.
pub fn bare_value(error: &AqlError) -> serde_json::Value {
    serde_json::json!({
        "success": false,
        "error": {"code": error.code.as_str(), "message": error.message},
    })
}

/// The failure object `{"success":false,"error":{code,message,details?}}`, whose `details`
/// name `session` when there is one.
pub fn failure_value(error: &AqlError, session: Option<&str>) -> serde_json::Value {
    let mut error_json = error.to_json();
    if let (Some(session), Some(object)) = (session, error_json.as_object_mut()) {
        let details = object
            .entry("details")
            .or_insert_with(|| serde_json::Value::Object(serde_json::Map::new()));
        if let Some(details) = details.as_object_mut() {
            details.insert("session_id".into(), session.into());
        }
    }
    serde_json::json!({"success": false, "error": error_json})
}

/// A batch's answer, `{"success":true,"data":null,"results":[...],"summary":{...}}`
/// (operations §7.2), built by the batch.
pub fn batch_success(body: serde_json::Value) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(body.to_string())])
}

fn wrap_failure(error: &AqlError, body: serde_json::Value) -> CallToolResult {
    let make = if error.code.is_recoverable() {
        CallToolResult::success
    } else {
        CallToolResult::error
    };
    make(vec![ContentBlock::text(body.to_string())])
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use super::*;

    /// The answer, the text content alone.
    fn text(result: &CallToolResult) -> Value {
        assert_eq!(result.content.len(), 1);
        assert!(result.structured_content.is_none());
        let raw = result.content[0].as_text().expect("text content");
        serde_json::from_str(&raw.text).expect("JSON text")
    }

    #[test]
    fn is_error_follows_recoverability() {
        let recoverable =
            failure_in_session(&AqlError::new(ErrorCode::NotFoundResource, "gone"), None);
        assert_eq!(recoverable.is_error, Some(false));
        let fatal = failure_in_session(
            &AqlError::new(ErrorCode::InternalError, "upstream failed"),
            None,
        );
        assert_eq!(fatal.is_error, Some(true));
        assert_eq!(text(&fatal)["error"]["code"], "INTERNAL_ERROR");
    }

    #[test]
    fn introspection_failures_carry_no_details() {
        let error = AqlError::new(ErrorCode::ValidationInvalidValue, "bad").with_detail("x", 1);
        let body = text(&bare_failure(&error));
        assert_eq!(
            body,
            serde_json::json!({"success": false, "error": {"code": "VALIDATION_INVALID_VALUE", "message": "bad"}})
        );
    }

    #[test]
    fn success_wraps_data() {
        assert_eq!(
            text(&success_with_warnings(Data::Text("null".into()), &[])),
            serde_json::json!({"success": true, "data": null})
        );
        let warned = success_with_warnings(Data::Text("1".into()), &[Warning::new("W", "careful")]);
        assert_eq!(
            text(&warned),
            serde_json::json!({"success": true, "data": 1, "warnings": [{"code": "W", "message": "careful"}]})
        );
        let rebuilt = success_with_warnings(
            Data::Value(serde_json::json!({"a": [1]})),
            &[Warning::new("W", "careful")],
        );
        let raw = &rebuilt.content[0].as_text().expect("text").text;
        assert!(raw.starts_with("{\"success\":true,\"data\":"), "{raw}");
        assert_eq!(
            text(&rebuilt),
            serde_json::json!({"success": true, "data": {"a": [1]}, "warnings": [{"code": "W", "message": "careful"}]})
        );
        assert_eq!(Data::Value(serde_json::json!({"a": [1]})).json_len(), 9);
    }
}
