//! The probes of one operation: which params the server accepts, measured by calling it
//! (`accepted_parameters`); a call without each required param (`missing_required`); a call
//! with an unknown param (`unknown_parameter`).

use serde_json::{Map, Value, json};

use super::UNKNOWN_PARAM;
use super::client::Client;
use crate::error::Error;
use crate::ir::{Category, Operation};

/// Codes a call can fail with before its params are looked at: nothing about the params can
/// be learnt from such an answer.
const BEFORE_PARAMS: [&str; 4] = [
    "VALIDATION_ENDPOINT_MISMATCH",
    "VALIDATION_UNKNOWN_OPERATION",
    "VALIDATION_PAYLOAD_TOO_LARGE",
    "VALIDATION_INVALID_ENCODING",
];

/// The per-operation probes and what they gathered.
pub struct Probes<'a> {
    /// The session.
    pub client: &'a mut Client,
    /// Values given for params by name.
    pub values: &'a Map<String, Value>,
    /// `introspection.operation_details`.
    pub details: Vec<Value>,
    /// `accepted_parameters`.
    pub accepted: Map<String, Value>,
    /// `parameter_tests.missing_required`.
    pub missing: Vec<Value>,
    /// `parameter_tests.unknown_parameter`.
    pub unknown: Vec<Value>,
    /// `error_tests`.
    pub errors: Vec<Value>,
    /// What could not be measured, and why.
    pub untested: Vec<String>,
}

impl Probes<'_> {
    /// Probes the operation `name`, documented by `details`; `operation` is its schema, when
    /// the server's operation is one of the schema's.
    pub fn operation(
        &mut self,
        name: &str,
        details: &Value,
        operation: Option<&Operation>,
    ) -> Result<(), Error> {
        let documented: Vec<(&str, bool)> = details["parameters"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|param| Some((param["name"].as_str()?, param["required"] == true)))
            .collect();
        let tool = details["mcpTool"].as_str().unwrap_or_default().to_owned();
        let required: Map<String, Value> = documented
            .iter()
            .filter(|(_, required)| *required)
            .map(|(param, _)| {
                let value = self.value_for(operation, details, param);
                ((*param).to_owned(), value)
            })
            .collect();
        self.accepted(name, &tool, &documented, &required, operation, details)?;
        for param in required.keys() {
            let mut params = required.clone();
            params.remove(param);
            let response = self
                .client
                .call(&tool, json!({"operation": name, "params": params}))?;
            self.missing.push(json!({
                "operation": name,
                "parameter": param,
                "response": response.clone(),
            }));
            self.errors.push(json!({
                "name": format!("{name}: missing required '{param}'"),
                "must_mention": [param],
                "response": response,
            }));
        }
        let mut params = required;
        params.insert(UNKNOWN_PARAM.to_owned(), json!(1));
        let response = self
            .client
            .call(&tool, json!({"operation": name, "params": params}))?;
        self.unknown.push(json!({
            "operation": name,
            "parameter": UNKNOWN_PARAM,
            "response": response.clone(),
        }));
        if response["success"] == false {
            self.errors.push(json!({
                "name": format!("{name}: unknown param"),
                "must_mention": [UNKNOWN_PARAM],
                "response": response,
            }));
        }
        Ok(())
    }

    /// `accepted_parameters` of `name`, from answers: each documented param is sent beside
    /// the required ones, and is accepted unless the server calls it unknown. A call that
    /// changes something is made a dry run, so nothing reaches the upstream; an operation
    /// that offers none keeps its optional params untested.
    fn accepted(
        &mut self,
        name: &str,
        tool: &str,
        documented: &[(&str, bool)],
        required: &Map<String, Value>,
        operation: Option<&Operation>,
        details: &Value,
    ) -> Result<(), Error> {
        let reads = operation.is_none_or(|operation| operation.category == Category::Read);
        let dry = documented.iter().any(|(param, _)| *param == "dry_run");
        let call = |client: &mut Client, mut params: Map<String, Value>| {
            if !reads && dry {
                params.insert("dry_run".to_owned(), json!(true));
            }
            client.call(tool, json!({"operation": name, "params": params}))
        };
        let base = call(self.client, required.clone())?;
        let code = base["error"]["code"].as_str().unwrap_or_default();
        if BEFORE_PARAMS.contains(&code) {
            self.untested.push(format!(
                "'{name}': its params could not be measured: a call with its required params fails with {code} before they are read"
            ));
            return Ok(());
        }
        let unknown = |answer: &Value| -> Vec<String> {
            if answer["error"]["code"] != "VALIDATION_UNKNOWN_PARAM" {
                return Vec::new();
            }
            answer["error"]["details"]["unknown_params"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|name| name.as_str().map(str::to_owned))
                .collect()
        };
        let refused = unknown(&base);
        let mut accepted: Vec<&str> = documented
            .iter()
            .filter(|(param, is_required)| *is_required && !refused.iter().any(|r| r == param))
            .map(|(param, _)| *param)
            .collect();
        for (param, _) in documented.iter().filter(|(_, required)| !required) {
            if !reads && !dry && *param != "dry_run" {
                self.untested.push(format!(
                    "'{name}': optional param '{param}' is not probed: the operation offers no dry run, and a real call would change the upstream"
                ));
                continue;
            }
            let mut params = required.clone();
            params.insert(
                (*param).to_owned(),
                self.value_for(operation, details, param),
            );
            let answer = call(self.client, params)?;
            if !unknown(&answer).iter().any(|unknown| unknown == param) {
                accepted.push(param);
            }
        }
        self.accepted.insert(name.to_owned(), json!(accepted));
        Ok(())
    }

    /// A value for `param` of the operation `details` document: the one given on the
    /// command line, else one its checks accept: the schema's example, the documented
    /// example's, or one of the documented type.
    pub fn value_for(&self, operation: Option<&Operation>, details: &Value, param: &str) -> Value {
        if let Some(value) = self.values.get(param) {
            return value.clone();
        }
        let declared = operation.and_then(|operation| {
            operation
                .all_params()
                .find(|candidate| candidate.name == param)
        });
        if let Some(declared) = declared {
            return declared.example.clone();
        }
        let documented = details["examples"][0]["request"]["params"].get(param);
        if let Some(example) = documented {
            return example.clone();
        }
        let ty = details["parameters"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|info| info["name"] == param)
            .and_then(|info| info["type"].as_str())
            .unwrap_or_default();
        match (param, ty) {
            ("input", _) => json!({}),
            ("query", _) => json!("operations"),
            ("fields", _) => json!("full"),
            ("first" | "last", _) => json!(1),
            ("dry_run", _) => json!(true),
            (_, "object") => json!({}),
            (_, "array") => json!([]),
            (_, "integer" | "number") => json!(1),
            (_, "boolean") => json!(true),
            _ => json!("probe"),
        }
    }
}
