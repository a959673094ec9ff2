//! Semantic checks on the typed model. Each check appends diagnostics and never stops early.

use std::collections::BTreeMap;

use regex::Regex;
use serde_json::Value;

use super::{Code, Diagnostic, nearest};
use crate::ident;
use crate::schema::maps_to::{self, PathPiece};
use crate::schema::{AdapterSchema, AuthConfig, Operation, Param};

/// Protocol operations an adapter may not redefine.
pub const RESERVED: [&str; 7] = [
    "introspect",
    "execute_agent",
    "record_execution_step",
    "complete_execution",
    "abort_execution",
    "confirm_operation",
    "verify_challenge",
];
/// Parameter types the format defines.
pub const PARAM_TYPES: [&str; 6] = ["string", "integer", "number", "boolean", "array", "object"];
/// Danger levels, in rank order.
pub const DANGER_LEVELS: [&str; 5] = [
    "safe",
    "reversible",
    "destructive",
    "dangerous",
    "forbidden",
];

/// Every semantic problem in `schema`.
pub fn check(schema: &AdapterSchema) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    check_header(schema, &mut out);
    if let Some(auth) = &schema.auth {
        check_auth(auth, &mut out);
    }
    let families = [
        ("create", &schema.operations.create),
        ("read", &schema.operations.read),
        ("update", &schema.operations.update),
        ("delete", &schema.operations.delete),
        ("execute", &schema.operations.execute),
    ];
    if families.iter().all(|(_, list)| list.is_empty()) {
        out.push(
            Diagnostic::new(
                Code::InvalidValue,
                "operations",
                "the adapter defines no operations",
            )
            .expected("at least one operation in create, read, update, delete or execute")
            .found("none"),
        );
    }
    let mut names: BTreeMap<&str, String> = BTreeMap::new();
    let mut idents: BTreeMap<String, String> = BTreeMap::new();
    for (family, list) in families {
        for (index, operation) in list.iter().enumerate() {
            let path = format!("operations.{family}[{index}]");
            if let Some(first) = names.insert(&operation.name, path.clone()) {
                out.push(
                    Diagnostic::new(
                        Code::DuplicateOperation,
                        format!("{path}.name"),
                        format!("operation `{}` is defined twice", operation.name),
                    )
                    .expected("operation names unique across all endpoints")
                    .found(format!(
                        "a second `{}` (the first is at {first})",
                        operation.name
                    )),
                );
            } else if let Some(first) =
                idents.insert(ident::type_name(&operation.name, ""), path.clone())
            {
                out.push(
                    Diagnostic::new(
                        Code::IdentCollision,
                        format!("{path}.name"),
                        format!(
                            "operation `{}` gets the same Rust name as the one at {first}",
                            operation.name
                        ),
                    )
                    .expected("names that differ after case conversion")
                    .found(format!("{:?}", operation.name)),
                );
            }
            check_operation(family, operation, &path, &mut out);
        }
    }
    out
}

fn check_header(schema: &AdapterSchema, out: &mut Vec<Diagnostic>) {
    if schema.element_type != "adapter" {
        out.push(
            Diagnostic::new(
                Code::InvalidValue,
                "type",
                "the element type must be `adapter`",
            )
            .expected("\"adapter\"")
            .found(format!("{:?}", schema.element_type)),
        );
    }
    let name_pattern = Regex::new("^[a-z][a-z0-9-]*$").expect("a valid literal pattern");
    if !name_pattern.is_match(&schema.name) {
        let kebab = heck::ToKebabCase::to_kebab_case(schema.name.as_str());
        out.push(
            Diagnostic::new(
                Code::InvalidName,
                "name",
                "the adapter name is not lowercase kebab-case",
            )
            .expected("lowercase letters, digits and `-`, starting with a letter")
            .found(format!("{:?}", schema.name))
            .suggest(format!("use `{kebab}`")),
        );
    }
    let semver = Regex::new(r"^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$")
        .expect("a valid literal pattern");
    if !semver.is_match(&schema.version) {
        out.push(
            Diagnostic::new(
                Code::InvalidVersion,
                "version",
                "the version is not semantic versioning",
            )
            .expected("MAJOR.MINOR.PATCH, e.g. 1.0.0")
            .found(format!("{:?}", schema.version)),
        );
    }
    let url = &schema.target.base_url;
    let host = url
        .strip_prefix("https://")
        .or_else(|| url.strip_prefix("http://"));
    if host.is_none_or(|rest| {
        rest.is_empty() || rest.starts_with('/') || rest.contains(char::is_whitespace)
    }) {
        out.push(
            Diagnostic::new(
                Code::InvalidUrl,
                "target.base_url",
                "the base URL is not an http(s) URL",
            )
            .expected("http://host/... or https://host/...")
            .found(format!("{url:?}")),
        );
    }
    for (field, value, known, generated) in [
        (
            "transport",
            &schema.target.transport,
            &["http", "websocket", "serial", "native"][..],
            "http",
        ),
        (
            "protocol",
            &schema.target.protocol,
            &["rest", "graphql", "grpc", "custom"][..],
            "rest",
        ),
        (
            "serialization",
            &schema.target.serialization,
            &["json", "xml", "protobuf", "msgpack", "form"][..],
            "json",
        ),
    ] {
        check_choice(&format!("target.{field}"), value, known, generated, out);
    }
}

/// A value from a known set, of which only `generated` is generated yet.
fn check_choice(
    path: &str,
    value: &str,
    known: &[&str],
    generated: &str,
    out: &mut Vec<Diagnostic>,
) {
    if !known.contains(&value) {
        let mut diagnostic = Diagnostic::new(
            Code::InvalidValue,
            path,
            format!("`{value}` is not a known value"),
        )
        .expected(format!("one of: {}", known.join(", ")))
        .found(format!("{value:?}"));
        if let Some(candidate) = nearest(value, known.iter().copied()) {
            diagnostic = diagnostic.suggest(format!("did you mean `{candidate}`?"));
        }
        out.push(diagnostic);
    } else if value != generated {
        out.push(
            Diagnostic::new(
                Code::Unsupported,
                path,
                format!("`{value}` is not supported yet"),
            )
            .expected(format!(
                "\"{generated}\" (the only value aqlgen generates today)"
            ))
            .found(format!("{value:?}")),
        );
    }
}

fn check_auth(auth: &AuthConfig, out: &mut Vec<Diagnostic>) {
    let known = ["none", "api_key", "bearer", "basic", "oauth2"];
    if auth.kind == "oauth2" {
        out.push(
            Diagnostic::new(
                Code::Unsupported,
                "auth.type",
                "`oauth2` auth is not supported yet",
            )
            .expected("none, api_key, bearer or basic")
            .found("\"oauth2\"")
            .suggest("use `bearer` with a token from an environment variable"),
        );
        return;
    }
    if !known.contains(&auth.kind.as_str()) {
        let mut diagnostic = Diagnostic::new(
            Code::InvalidValue,
            "auth.type",
            format!("`{}` is not an auth type", auth.kind),
        )
        .expected(format!("one of: {}", known.join(", ")))
        .found(format!("{:?}", auth.kind));
        if let Some(candidate) = nearest(&auth.kind, known) {
            diagnostic = diagnostic.suggest(format!("did you mean `{candidate}`?"));
        }
        out.push(diagnostic);
        return;
    }
    let needs: &[(&str, bool)] = match auth.kind.as_str() {
        "bearer" => &[("token_env", auth.token_env.is_some())],
        "api_key" => &[
            ("key_env", auth.key_env.is_some()),
            (
                "header_name",
                auth.header_name.is_some() || auth.header.is_some() || auth.query_param.is_some(),
            ),
        ],
        "basic" => &[
            ("username_env", auth.username_env.is_some()),
            ("password_env", auth.password_env.is_some()),
        ],
        _ => &[],
    };
    for (key, present) in needs {
        if !present {
            let expected = if *key == "header_name" {
                "`header_name` (or `header`) or `query_param` saying where the key goes".to_owned()
            } else {
                format!("`{key}` naming an environment variable")
            };
            out.push(
                Diagnostic::new(
                    Code::MissingField,
                    format!("auth.{key}"),
                    format!("`{}` auth needs `{key}`", auth.kind),
                )
                .expected(expected)
                .found("nothing"),
            );
        }
    }
}

fn check_operation(family: &str, operation: &Operation, path: &str, out: &mut Vec<Diagnostic>) {
    check_snake_case(&format!("{path}.name"), "operation", &operation.name, out);
    if RESERVED.contains(&operation.name.as_str()) {
        out.push(
            Diagnostic::new(
                Code::ReservedName,
                format!("{path}.name"),
                format!(
                    "`{}` is a protocol operation and cannot be redefined",
                    operation.name
                ),
            )
            .expected(format!("a name other than {}", RESERVED.join(", ")))
            .found(format!("{:?}", operation.name)),
        );
    }
    if let Some(level) = &operation.danger_level
        && !DANGER_LEVELS.contains(&level.as_str())
    {
        let mut diagnostic = Diagnostic::new(
            Code::InvalidValue,
            format!("{path}.danger_level"),
            format!("`{level}` is not a danger level"),
        )
        .expected(format!("one of: {}", DANGER_LEVELS.join(", ")))
        .found(format!("{level:?}"));
        if let Some(candidate) = nearest(level, DANGER_LEVELS) {
            diagnostic = diagnostic.suggest(format!("did you mean `{candidate}`?"));
        }
        out.push(diagnostic);
    }
    match maps_to::parse(&operation.maps_to) {
        Err(expected) => out.push(
            Diagnostic::new(
                Code::InvalidMapsTo,
                format!("{path}.maps_to"),
                "`maps_to` is not `METHOD /path`",
            )
            .expected(expected)
            .found(format!("{:?}", operation.maps_to)),
        ),
        Ok(parsed) => {
            for piece in &parsed.pieces {
                let PathPiece::Placeholder(name) = piece else {
                    continue;
                };
                let declared = operation.params.get(*name);
                if declared.is_none_or(|param| param.required != Some(true)) {
                    let found = if declared.is_some() {
                        "an optional param"
                    } else {
                        "no such param"
                    };
                    out.push(
                        Diagnostic::new(
                            Code::InvalidPlaceholder,
                            format!("{path}.maps_to"),
                            format!("path placeholder `{{{name}}}` is not a required param"),
                        )
                        .expected(format!("a param `{name}` with `required: true`"))
                        .found(found)
                        .suggest(format!(
                            "declare `{name}: {{type: string, required: true}}` under params"
                        )),
                    );
                }
            }
        }
    }
    let mut field_idents: BTreeMap<String, &str> = BTreeMap::new();
    for (name, param) in &operation.params {
        let param_path = format!("{path}.params.{name}");
        check_snake_case(&param_path, "parameter", name, out);
        if let Some(first) = field_idents.insert(ident::field_name(name), name) {
            out.push(
                Diagnostic::new(
                    Code::IdentCollision,
                    param_path.clone(),
                    format!("parameter `{name}` gets the same Rust name as `{first}`"),
                )
                .expected("names that differ after case conversion")
                .found(format!("{name:?}")),
            );
        }
        let clashes = match name.as_str() {
            "confirmation_token" => operation.requires_confirmation == Some(true),
            "input" => family == "update",
            _ => false,
        };
        if clashes {
            out.push(
                Diagnostic::new(Code::ReservedName, param_path.clone(), format!("parameter name `{name}` is reserved by the protocol here"))
                    .expected("another name (`input` wraps UPDATE fields; `confirmation_token` carries confirmations)")
                    .found(format!("{name:?}")),
            );
        }
        check_param(param, &param_path, out);
    }
}

fn check_snake_case(path: &str, what: &str, name: &str, out: &mut Vec<Diagnostic>) {
    let snake = Regex::new("^[a-z][a-z0-9_]*$").expect("a valid literal pattern");
    if !snake.is_match(name) {
        out.push(
            Diagnostic::new(
                Code::InvalidName,
                path,
                format!("{what} name `{name}` is not snake_case"),
            )
            .expected("lowercase letters, digits and `_`, starting with a letter")
            .found(format!("{name:?}"))
            .suggest(format!("use `{}`", ident::snake_case_suggestion(name))),
        );
    }
}

fn check_param(param: &Param, path: &str, out: &mut Vec<Diagnostic>) {
    let kind = param.kind.as_str();
    if !PARAM_TYPES.contains(&kind) {
        let mut diagnostic = Diagnostic::new(
            Code::InvalidType,
            format!("{path}.type"),
            format!("parameter type `{kind}` is not a known type"),
        )
        .expected(format!("one of: {}", PARAM_TYPES.join(", ")))
        .found(format!("{kind:?}"));
        if let Some(candidate) = nearest(kind, PARAM_TYPES).or(match kind {
            "str" | "text" => Some("string"),
            "int" | "i64" => Some("integer"),
            "float" | "double" => Some("number"),
            "bool" => Some("boolean"),
            "list" => Some("array"),
            "map" | "dict" => Some("object"),
            _ => None,
        }) {
            diagnostic = diagnostic.suggest(format!("did you mean `{candidate}`?"));
        }
        out.push(diagnostic);
        return;
    }
    let allowed = param.allowed.as_deref().unwrap_or_default();
    for (index, value) in allowed.iter().enumerate() {
        if !matches_type(kind, value) {
            out.push(
                Diagnostic::new(
                    Code::InvalidEnum,
                    format!("{path}.enum[{index}]"),
                    format!("enum value does not match the parameter type `{kind}`"),
                )
                .expected(format!("a {kind}"))
                .found(value.to_string()),
            );
        }
    }
    if matches!(kind, "array" | "object" | "boolean") && !allowed.is_empty() {
        out.push(
            Diagnostic::new(
                Code::InvalidEnum,
                format!("{path}.enum"),
                format!("`enum` does not apply to `{kind}` parameters"),
            )
            .expected("`enum` on string, integer or number parameters")
            .found(format!("an enum on a {kind}")),
        );
    }
    if param.default.is_some() && matches!(kind, "array" | "object") {
        out.push(
            Diagnostic::new(
                Code::Unsupported,
                format!("{path}.default"),
                format!("a default on an `{kind}` parameter is not supported yet"),
            )
            .expected("`default` on string, integer, number or boolean parameters")
            .found(format!("a default on an {kind}")),
        );
    } else if let Some(default) = &param.default {
        if param.required == Some(true) {
            out.push(
                Diagnostic::new(
                    Code::InvalidDefault,
                    format!("{path}.default"),
                    "a required parameter never falls back to its default",
                )
                .expected("either `required: true` or a `default`, not both")
                .found(format!("required: true and default: {default}"))
                .suggest("drop `required: true`: a parameter with a default is optional"),
            );
        } else if !matches_type(kind, default) {
            out.push(
                Diagnostic::new(
                    Code::InvalidDefault,
                    format!("{path}.default"),
                    format!("the default does not match the parameter type `{kind}`"),
                )
                .expected(format!("a {kind}"))
                .found(default.to_string()),
            );
        } else if !allowed.is_empty() && !allowed.contains(default) {
            out.push(
                Diagnostic::new(
                    Code::InvalidDefault,
                    format!("{path}.default"),
                    "the default is not one of the enum values",
                )
                .expected(format!(
                    "one of: {}",
                    allowed
                        .iter()
                        .map(Value::to_string)
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
                .found(default.to_string()),
            );
        }
    }
    check_range(param, path, out);
    if let Some(pattern) = &param.pattern {
        if kind != "string" {
            out.push(
                Diagnostic::new(
                    Code::InvalidPattern,
                    format!("{path}.pattern"),
                    format!("`pattern` does not apply to `{kind}` parameters"),
                )
                .expected("`pattern` on string parameters")
                .found(format!("a pattern on a {kind}")),
            );
        } else if let Err(error) = Regex::new(pattern) {
            out.push(
                Diagnostic::new(
                    Code::InvalidPattern,
                    format!("{path}.pattern"),
                    "the pattern is not a valid regular expression",
                )
                .expected("a regular expression")
                .found(format!(
                    "{pattern:?}: {}",
                    error.to_string().lines().last().unwrap_or_default().trim()
                )),
            );
        }
    }
}

fn check_range(param: &Param, path: &str, out: &mut Vec<Diagnostic>) {
    let kind = param.kind.as_str();
    for (key, bound) in [("minimum", param.minimum), ("maximum", param.maximum)] {
        let Some(bound) = bound else { continue };
        let problem = match kind {
            "integer" if bound.fract() != 0.0 => Some("a whole number for an integer parameter"),
            "integer" | "number" => None,
            _ => Some("`minimum`/`maximum` only on integer or number parameters"),
        };
        if let Some(expected) = problem {
            out.push(
                Diagnostic::new(
                    Code::InvalidRange,
                    format!("{path}.{key}"),
                    format!("`{key}` does not suit a `{kind}` parameter"),
                )
                .expected(expected)
                .found(bound.to_string()),
            );
        }
    }
    if let (Some(minimum), Some(maximum)) = (param.minimum, param.maximum)
        && minimum > maximum
    {
        out.push(
            Diagnostic::new(
                Code::InvalidRange,
                format!("{path}.minimum"),
                "`minimum` is greater than `maximum`",
            )
            .expected(format!("minimum <= maximum ({maximum})"))
            .found(minimum.to_string()),
        );
    }
    let out_of_range = |value: &Value| {
        value.as_f64().is_some_and(|number| {
            param.minimum.is_some_and(|m| number < m) || param.maximum.is_some_and(|m| number > m)
        })
    };
    if let Some(default) = &param.default
        && matches!(kind, "integer" | "number")
        && out_of_range(default)
    {
        out.push(
            Diagnostic::new(
                Code::InvalidDefault,
                format!("{path}.default"),
                "the default lies outside minimum..maximum",
            )
            .expected("a default within the bounds")
            .found(default.to_string()),
        );
    }
}

/// Whether a YAML value is a valid value of a parameter type.
pub fn matches_type(kind: &str, value: &Value) -> bool {
    match kind {
        "string" => value.is_string(),
        "integer" => value.is_i64() || value.is_u64() && value.as_i64().is_some(),
        "number" => value.is_number(),
        "boolean" => value.is_boolean(),
        "array" => value.is_array(),
        "object" => value.is_object(),
        _ => false,
    }
}
