//! Batches (operations §7): `{"operations": [{operation, params}, ...]}` on any tool. The
//! server runs each item as it would run it alone; this module reads the request and builds
//! the answer: every item's result in order, a summary, and, when an item needs confirmation,
//! `halted_at` and the `pending_operations` that did not run (§7.5.2).
//!
//! The two official schemas disagree on a batch's answer (spec digest §10, item 25): the
//! operation-result schema allows `warnings` and forbids `halted_at` and `pending_operations`,
//! the batch schema the other way round. Items carry no warnings (the batch schema's item
//! results are closed), so their warnings are collapsed into the batch's `warnings`
//! (warnings §6.5); an answer without warnings and without a halt satisfies both schemas.

use rmcp::model::JsonObject;
use serde_json::{Map, Value, json};

use crate::error::{AqlError, ErrorCode};
use crate::params::json_type;
use crate::protocol::envelope::{Envelope, too_large};
use crate::protocol::result::Outcome;
use crate::protocol::result::{bare_value, failure_value};
use crate::text::shorten;
use crate::warning::{self, Warning};

/// The member that makes a request a batch.
const OPERATIONS: &str = "operations";

/// Whether `arguments` are a batch.
pub fn is_batch(arguments: &JsonObject) -> bool {
    arguments.contains_key(OPERATIONS)
}

/// The items of a batch request, each an item object or the error that item gets.
///
/// # Errors
///
/// For the batch as a whole: `operations` beside `operation` or beside other params, not a
/// list, empty, or longer than `max` items.
pub fn items(
    mut arguments: JsonObject,
    max: usize,
) -> Result<Vec<Result<JsonObject, AqlError>>, AqlError> {
    let operations = arguments.remove(OPERATIONS).unwrap_or(Value::Null);
    let others: Vec<String> = arguments
        .keys()
        .filter(|key| !key.starts_with('_'))
        .map(|key| shorten(key, 80).into_owned())
        .collect();
    if !others.is_empty() {
        return Err(AqlError::new(
            ErrorCode::ValidationUnknownParam,
            format!(
                "A batch request holds only 'operations', found {}: put 'operation' and 'params' inside each item",
                others
                    .iter()
                    .map(|key| format!("'{key}'"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        ));
    }
    let Value::Array(operations) = operations else {
        return Err(AqlError::new(
            ErrorCode::ValidationInvalidType,
            format!(
                "Parameter 'operations' expected 'array' (of {{\"operation\", \"params\"}} items), got '{}'",
                json_type(&operations)
            ),
        ));
    };
    if operations.is_empty() {
        return Err(AqlError::new(
            ErrorCode::ValidationInvalidValue,
            "Parameter 'operations' must hold one item or more",
        ));
    }
    if operations.len() > max {
        return Err(too_many(operations.len(), max));
    }
    Ok(operations
        .into_iter()
        .enumerate()
        .map(|(index, item)| match item {
            Value::Object(item) => Ok(item),
            other => Err(AqlError::new(
                ErrorCode::ValidationInvalidType,
                format!(
                    "Batch item {index} expected 'object' ({{\"operation\", \"params\"}}), got '{}'",
                    json_type(&other)
                ),
            )
            .with_detail("param_name", format!("operations[{index}]"))
            .with_detail("expected_type", "object")
            .with_detail("actual_type", json_type(&other))),
        })
        .collect())
}

/// The refusal of a batch of `len` items when `max` is the most one may hold.
pub fn too_many(len: usize, max: usize) -> AqlError {
    let mut error = too_large("batch_size", max, len, "operations");
    error
        .message
        .push_str(": split the batch, or ask the operator for a larger '--max-batch-size'");
    error
}

/// The `operation` an item names, as its result echoes it (cut to 80 characters).
pub fn operation_name(item: &Result<JsonObject, AqlError>) -> String {
    match item {
        Ok(item) => item
            .get("operation")
            .and_then(Value::as_str)
            .map(|name| shorten(name, 80).into_owned())
            .unwrap_or_default(),
        Err(_) => String::new(),
    }
}

/// The failure of an item not run because the batch's answer reached `limit` bytes.
pub fn too_large_to_run(limit: usize, collected: usize) -> AqlError {
    let error = too_large("response_size", limit, collected, "bytes");
    AqlError::new(
        error.code,
        format!(
            "{}: the batch's answer is full, so this operation did not run; send it in another batch",
            error.message
        ),
    )
    .with_detail("limit_type", "response_size")
    .with_detail("limit_value", limit)
    .with_detail("actual_value", collected)
    .with_detail("unit", "bytes")
}

/// A batch's answer as its items run.
#[derive(Debug)]
pub struct Report {
    total: usize,
    results: Vec<Value>,
    halted_at: Option<Value>,
    pending: Vec<Value>,
    succeeded: usize,
    failed: usize,
    warnings: Vec<Warning>,
    /// Bytes of `data` collected so far.
    data_bytes: usize,
}

impl Report {
    /// An empty report of a batch of `total` items.
    pub fn new(total: usize) -> Self {
        Self {
            total,
            results: Vec::with_capacity(total),
            halted_at: None,
            pending: Vec::new(),
            succeeded: 0,
            failed: 0,
            warnings: Vec::new(),
            data_bytes: 0,
        }
    }

    /// Records how item `index` ended; true when it needs confirmation, so the batch halts.
    pub fn record(
        &mut self,
        index: usize,
        operation: String,
        outcome: Outcome,
        session: Option<&str>,
    ) -> bool {
        let (result, halts) = match outcome {
            Outcome::Success { data, mut warnings } => {
                self.succeeded += 1;
                self.data_bytes += data.json_len();
                self.warnings.append(&mut warnings);
                (json!({"success": true, "data": data.into_value()}), false)
            }
            Outcome::Failure { error, introspect } => {
                let halts = error.code == ErrorCode::ConfirmationRequired;
                if !halts {
                    self.failed += 1;
                }
                let result = if introspect {
                    bare_value(&error)
                } else {
                    failure_value(&error, session)
                };
                (result, halts)
            }
        };
        let entry = json!({"index": index, "operation": operation, "result": result});
        if halts {
            self.halted_at = Some(entry);
        } else {
            self.results.push(entry);
        }
        halts
    }

    /// Bytes of `data` collected so far.
    pub fn data_bytes(&self) -> usize {
        self.data_bytes
    }

    /// Whether the answers collected so far reach `limit` bytes, the response size limit: the
    /// items after that are not run (see [`too_large_to_run`]), so a batch's answer stays
    /// within twice the limit however many large answers its items would bring.
    pub fn is_full(&self, limit: usize) -> bool {
        self.data_bytes >= limit
    }

    /// Lists the items after the halt, which did not run, with their params for continuation.
    pub fn halt(&mut self, rest: impl Iterator<Item = (usize, Result<JsonObject, AqlError>)>) {
        for (index, item) in rest {
            let operation = operation_name(&item);
            let mut entry = Map::new();
            entry.insert("index".into(), index.into());
            entry.insert("operation".into(), operation.into());
            if let Ok(item) = item
                && let Ok(envelope) = Envelope::parse(Some(item))
                && !envelope.params.is_empty()
            {
                entry.insert("params".into(), Value::Object(envelope.params));
            }
            self.pending.push(Value::Object(entry));
        }
    }

    /// The answer: `success` true, `data` null, the results and the summary, the halt when
    /// there was one, and the items' warnings collapsed.
    pub fn finish(self) -> Value {
        let mut summary = json!({
            "total": self.total,
            "succeeded": self.succeeded,
            "failed": self.failed,
        });
        let mut body = json!({"success": true, "data": null, "results": self.results});
        if let Some(halted_at) = self.halted_at {
            summary["halted"] = 1.into();
            summary["pending"] = self.pending.len().into();
            body["halted_at"] = halted_at;
            body["pending_operations"] = Value::Array(self.pending);
        }
        body["summary"] = summary;
        if !self.warnings.is_empty() {
            body["warnings"] = Value::Array(warning::collect(&self.warnings));
        }
        body
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::call::Data;

    fn object(value: Value) -> JsonObject {
        value.as_object().cloned().expect("an object")
    }

    #[test]
    fn batch_requests_are_checked_as_a_whole() {
        let refused = |value: Value| items(object(value), 3).expect_err("refused").code;
        assert_eq!(
            refused(json!({"operations": []})),
            ErrorCode::ValidationInvalidValue
        );
        assert_eq!(
            refused(json!({"operations": {}})),
            ErrorCode::ValidationInvalidType
        );
        assert_eq!(
            refused(json!({"operations": [{}, {}, {}, {}]})),
            ErrorCode::ValidationPayloadTooLarge
        );
        assert_eq!(
            refused(json!({"operations": [{}], "operation": "x"})),
            ErrorCode::ValidationUnknownParam
        );
        let parsed = items(
            object(json!({"operations": [{"operation": "a"}, 7], "_meta": {}})),
            3,
        )
        .expect("a batch");
        assert!(parsed[0].is_ok());
        assert_eq!(
            parsed[1].as_ref().expect_err("not an object").code,
            ErrorCode::ValidationInvalidType
        );
    }

    #[test]
    fn a_report_fills_up_at_the_response_limit() {
        let mut report = Report::new(2);
        assert!(!report.is_full(10));
        let big = Outcome::Success {
            data: Data::Text("\"0123456789\"".into()),
            warnings: Vec::new(),
        };
        report.record(0, "get".into(), big, None);
        assert!(report.is_full(10));
        let error = too_large_to_run(10, report.data_bytes());
        assert_eq!(error.code, ErrorCode::ValidationPayloadTooLarge);
        assert_eq!(error.details["actual_value"], 12);
    }

    #[test]
    fn a_halt_lists_what_did_not_run() {
        let mut report = Report::new(3);
        let ok = Outcome::Success {
            data: Data::Text("{\"id\":1}".into()),
            warnings: vec![Warning::new("W", "w")],
        };
        assert!(!report.record(0, "get".into(), ok, None));
        let gated = Outcome::Failure {
            error: AqlError::new(ErrorCode::ConfirmationRequired, "confirm"),
            introspect: false,
        };
        assert!(report.record(1, "delete".into(), gated, None));
        report.halt(
            [(
                2,
                Ok(object(json!({"operation": "get", "params": {"id": 2}}))),
            )]
            .into_iter(),
        );
        let body = report.finish();
        assert_eq!(
            body["summary"],
            json!({"total": 3, "succeeded": 1, "failed": 0, "halted": 1, "pending": 1})
        );
        assert_eq!(body["halted_at"]["index"], 1);
        assert_eq!(
            body["pending_operations"],
            json!([{"index": 2, "operation": "get", "params": {"id": 2}}])
        );
        assert_eq!(body["warnings"][0]["code"], "W");
        assert_eq!(
            body["results"][0]["result"],
            json!({"success": true, "data": {"id": 1}})
        );
    }
}
