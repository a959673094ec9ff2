//! The input schema every tool declares, in the shape the host needs: the MCP-AQL one
//! (mcp-integration §3), or one that a model provider's function calling accepts as it is.
//!
//! The MCP-AQL shape names `operation`, `params` and, for a batch, `operations` (the batch
//! form has no `operation`, so nothing at the root is `required`; spec digest §10.25). OpenAI's
//! strict mode wants every object closed and every member required, and Gemini's `parameters`
//! know neither `additionalProperties` nor an object without members: both get `params` as
//! JSON text, and [`ToolSchema::normalize`] turns such arguments back into the MCP-AQL form, so
//! the same calls work whatever the schema.

use rmcp::model::JsonObject;
use serde_json::{Map, Value, json};

pub use crate::config::ToolSchema;
use crate::error::{AqlError, ErrorCode};

impl ToolSchema {
    /// The input schema of every tool; a batch holds up to `max_batch` operations.
    pub fn input_schema(self, max_batch: usize) -> JsonObject {
        let operation = "Operation name in snake_case; call operation 'introspect' with params \
                         {\"query\": \"operations\"} to list them";
        let batch = format!(
            "A batch, in place of 'operation' and 'params': up to {max_batch} operations, run in \
             order, each answered in 'results'"
        );
        let schema = match self {
            Self::Mcp => json!({
                "type": "object",
                "properties": {
                    "operation": {"type": "string", "description": format!("{operation}. Required unless 'operations' is given")},
                    "params": {"type": "object", "additionalProperties": true, "description": "Operation parameters"},
                    "operations": {
                        "type": "array",
                        "minItems": 1,
                        "maxItems": max_batch,
                        "description": batch,
                        "items": {
                            "type": "object",
                            "properties": {
                                "operation": {"type": "string"},
                                "params": {"type": "object", "additionalProperties": true}
                            },
                            "required": ["operation"]
                        }
                    }
                }
            }),
            Self::OpenAiStrict => json!({
                "type": "object",
                "additionalProperties": false,
                "properties": {
                    "operation": {"type": ["string", "null"], "description": format!("{operation}; null with 'operations'")},
                    "params": {"type": ["string", "null"], "description": PARAMS_TEXT},
                    "operations": {
                        "type": ["array", "null"],
                        "description": format!("{batch}; null for one operation"),
                        "items": {
                            "type": "object",
                            "additionalProperties": false,
                            "properties": {
                                "operation": {"type": "string"},
                                "params": {"type": ["string", "null"], "description": PARAMS_TEXT}
                            },
                            "required": ["operation", "params"]
                        }
                    }
                },
                "required": ["operation", "params", "operations"]
            }),
            Self::Gemini => json!({
                "type": "object",
                "properties": {
                    "operation": {"type": "string", "description": format!("{operation}. Required unless 'operations' is given")},
                    "params": {"type": "string", "description": PARAMS_TEXT},
                    "operations": {
                        "type": "array",
                        "description": batch,
                        "items": {
                            "type": "object",
                            "properties": {
                                "operation": {"type": "string"},
                                "params": {"type": "string", "description": PARAMS_TEXT}
                            },
                            "required": ["operation"]
                        }
                    }
                }
            }),
        };
        match schema {
            Value::Object(schema) => schema,
            _ => JsonObject::new(),
        }
    }

    /// `arguments` in the MCP-AQL form: under a provider schema, members left `null` are
    /// dropped and `params` given as JSON text becomes the object it holds, in the request
    /// and in each batch item. The MCP-AQL schema takes arguments as they are.
    ///
    /// # Errors
    ///
    /// `VALIDATION_INVALID_TYPE` when `params` text is not a JSON object.
    pub fn normalize(self, mut arguments: JsonObject) -> Result<JsonObject, AqlError> {
        if self == Self::Mcp {
            return Ok(arguments);
        }
        unwrap_text(&mut arguments, "params")?;
        if let Some(Value::Array(items)) = arguments.get_mut("operations") {
            for (index, item) in items.iter_mut().enumerate() {
                if let Value::Object(item) = item {
                    unwrap_text(item, &format!("operations[{index}].params"))?;
                }
            }
        }
        Ok(arguments)
    }
}

const PARAMS_TEXT: &str =
    "Operation parameters as JSON object text, e.g. \"{\\\"id\\\": 7}\"; null or \"{}\" for none";

/// Drops `null` members of `object` and parses its `params` text (`label` in errors).
fn unwrap_text(object: &mut Map<String, Value>, label: &str) -> Result<(), AqlError> {
    object.retain(|_, value| !value.is_null());
    let Some(Value::String(text)) = object.get("params") else {
        return Ok(());
    };
    let parsed = if text.trim().is_empty() {
        Some(Map::new())
    } else {
        serde_json::from_str::<Value>(text)
            .ok()
            .and_then(|value| match value {
                Value::Object(map) => Some(map),
                _ => None,
            })
    };
    match parsed {
        Some(params) => {
            object.insert("params".to_owned(), Value::Object(params));
            Ok(())
        }
        None => Err(AqlError::new(
            ErrorCode::ValidationInvalidType,
            format!(
                "Parameter '{label}' expected JSON object text such as '{{\"id\": 7}}', got text which is no JSON object"
            ),
        )
        .with_detail("param_name", label)
        .with_detail("expected_type", "JSON object text")
        .with_detail("actual_type", "string")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn object(value: Value) -> JsonObject {
        match value {
            Value::Object(map) => map,
            _ => panic!("an object"),
        }
    }

    #[test]
    fn provider_arguments_become_the_mcp_aql_form() {
        for schema in [ToolSchema::OpenAiStrict, ToolSchema::Gemini] {
            let one = schema
                .normalize(object(
                    json!({"operation": "get_todo", "params": "{\"id\": 7}", "operations": null}),
                ))
                .expect("valid");
            assert_eq!(
                Value::Object(one),
                json!({"operation": "get_todo", "params": {"id": 7}})
            );
            let batch = schema
                .normalize(object(
                    json!({"operation": null, "params": null, "operations": [
                        {"operation": "get_todo", "params": "{\"id\": 1}"},
                        {"operation": "list_todos", "params": null}
                    ]}),
                ))
                .expect("valid");
            assert_eq!(
                Value::Object(batch),
                json!({"operations": [{"operation": "get_todo", "params": {"id": 1}}, {"operation": "list_todos"}]})
            );
            let error = schema
                .normalize(object(json!({"operation": "x", "params": "[1]"})))
                .expect_err("not an object");
            assert_eq!(error.code, ErrorCode::ValidationInvalidType);
        }
        let raw = object(json!({"operation": "x", "params": "{}", "operations": null}));
        assert_eq!(ToolSchema::Mcp.normalize(raw.clone()).expect("as is"), raw);
    }

    #[test]
    fn provider_schemas_keep_to_what_the_providers_accept() {
        /// Every object schema inside `schema`, the root included.
        fn objects<'a>(schema: &'a Value, found: &mut Vec<&'a Map<String, Value>>) {
            if let Value::Object(map) = schema {
                if map.get("type").is_some_and(|t| {
                    t == "object" || t.as_array().is_some_and(|t| t.contains(&json!("object")))
                }) {
                    found.push(map);
                }
                for value in map.values() {
                    objects(value, found);
                }
            }
        }
        let strict = Value::Object(ToolSchema::OpenAiStrict.input_schema(25));
        let mut found = Vec::new();
        objects(&strict, &mut found);
        for object in &found {
            assert_eq!(object["additionalProperties"], false, "{object:?}");
            let properties: Vec<&String> = object["properties"]
                .as_object()
                .expect("members")
                .keys()
                .collect();
            let required: Vec<&str> = object["required"]
                .as_array()
                .expect("required")
                .iter()
                .filter_map(Value::as_str)
                .collect();
            assert_eq!(properties.len(), required.len(), "{object:?}");
        }
        let gemini = Value::Object(ToolSchema::Gemini.input_schema(25)).to_string();
        assert!(!gemini.contains("additionalProperties"), "{gemini}");
        let mut found = Vec::new();
        let gemini: Value = serde_json::from_str(&gemini).expect("JSON");
        objects(&gemini, &mut found);
        assert!(found.iter().all(|object| {
            object["properties"]
                .as_object()
                .is_some_and(|p| !p.is_empty())
        }));
        let mcp = ToolSchema::Mcp.input_schema(25);
        assert!(!mcp.contains_key("required"), "a batch has no 'operation'");
        assert_eq!(mcp["properties"]["operations"]["maxItems"], 25);
    }
}
