//! A checked generator-format document to the front-matter model ([`AdapterSchema`]), so that
//! the shared checks, lowering and emission serve both formats as one pipeline.
//!
//! Conversion keeps every operation at its index and every param at its position, which is
//! what lets `paths` turn a path of the converted model back into one of the document.

use heck::ToShoutySnakeCase;

use super::model::{
    Auth, GenSchema, OperationDefinition, ParameterDefinition, TypeDefinition, TypeReference,
};
use crate::schema::{
    self, AdapterSchema, AuthConfig, AuthKind, ElementType, Operations, ParamType, Protocol,
    Response, Serialization, Target, Transport,
};

/// The converted schema, and the documentation the generated README carries for it.
pub struct Converted {
    /// The front-matter model of the document.
    pub schema: AdapterSchema,
    /// What the front-matter model has no place for, as Markdown: the display name, the
    /// target API and the named types with their fields.
    pub documentation: String,
}

/// Converts `document`, which passed the format's own checks.
pub fn convert(document: &GenSchema) -> Converted {
    let adapter = &document.adapter;
    let endpoints = &document.endpoints;
    let operations = |list: &[OperationDefinition]| {
        list.iter()
            .map(|definition| operation(definition, &document.types))
            .collect()
    };
    let schema = AdapterSchema {
        // The format's names are snake_case; the front matter's are kebab-case.
        name: adapter.name.replace('_', "-"),
        element_type: ElementType::Adapter,
        version: adapter.version.clone(),
        description: adapter.description.clone(),
        target: Target {
            base_url: adapter.target_api.base_url.clone(),
            transport: Transport::Http,
            protocol: Protocol::Rest,
            serialization: Serialization::Json,
        },
        auth: document
            .auth
            .as_ref()
            .map(|auth| convert_auth(auth, &adapter.name.to_shouty_snake_case())),
        trust: None,
        rate_limits: None,
        operations: Operations {
            create: operations(&endpoints.create),
            read: operations(&endpoints.read),
            update: operations(&endpoints.update),
            delete: operations(&endpoints.delete),
            execute: operations(&endpoints.execute),
        },
        relationships: None,
        author: None,
        tags: None,
        triggers: None,
        created: None,
        modified: None,
        extensions: Vec::new(),
    };
    Converted {
        schema,
        documentation: documentation(document),
    }
}

/// `auth{type, config}` to the front matter's keys. The format names no environment
/// variables, so each credential's variable is `<ADAPTER>_TOKEN`, `<ADAPTER>_API_KEY`,
/// `<ADAPTER>_USERNAME` or `<ADAPTER>_PASSWORD` unless `config` names one (`token_env`, ...).
fn convert_auth(auth: &Auth, prefix: &str) -> AuthConfig {
    let setting = |key: &str| auth.config.get(key).cloned();
    let variable = |key: &str, suffix: &str| {
        Some(setting(key).unwrap_or_else(|| format!("{prefix}_{suffix}")))
    };
    match auth.kind {
        AuthKind::Bearer => AuthConfig {
            token_env: variable("token_env", "TOKEN"),
            header: setting("header_name"),
            prefix: setting("prefix"),
            ..AuthConfig::of(auth.kind)
        },
        AuthKind::ApiKey => AuthConfig {
            key_env: variable("key_env", "API_KEY"),
            header_name: setting("header_name"),
            query_param: setting("query_param"),
            ..AuthConfig::of(auth.kind)
        },
        AuthKind::Basic => AuthConfig {
            username_env: variable("username_env", "USERNAME"),
            password_env: variable("password_env", "PASSWORD"),
            ..AuthConfig::of(auth.kind)
        },
        AuthKind::None | AuthKind::Oauth2 | AuthKind::AwsSigv4 | AuthKind::Combined => {
            AuthConfig::of(auth.kind)
        }
    }
}

/// One operation; a `returns: {ref: T}` takes `T`'s fields from `types` as its result's.
fn operation(operation: &OperationDefinition, types: &[TypeDefinition]) -> schema::Operation {
    let http = operation
        .http
        .as_ref()
        .expect("validated: every operation has `http`");
    schema::Operation {
        name: operation.name.clone(),
        maps_to: format!("{} {}", http.method, http.path),
        description: Some(operation.description.clone()),
        params: operation
            .params
            .iter()
            .map(|param| (param.name.clone(), convert_param(param)))
            .collect(),
        response: Some(Response {
            kind: Some(returned_type(&operation.returns)),
            description: None,
            presets: None,
            fields: result_fields(&operation.returns, types),
            items: None,
            computed: None,
        }),
        pagination: None,
        supports_fields: None,
        danger_level: operation.danger_level,
        requires_confirmation: None,
        non_idempotent: None,
        content_type: None,
        requires_body: None,
        requires_one_of: Vec::new(),
        lifecycle: None,
        headers: indexmap::IndexMap::new(),
        query: None,
    }
}

fn convert_param(param: &ParameterDefinition) -> schema::Param {
    schema::Param {
        kind: json_type(&param.kind),
        required: Some(param.required),
        description: param.description.clone(),
        default: param.default.clone(),
        allowed: None,
        minimum: None,
        maximum: None,
        min_length: None,
        max_length: None,
        pattern: None,
        format: None,
        location: None,
        wire_name: None,
        style: None,
        explode: None,
    }
}

/// The JSON type a value of `kind` has: a named type is an object of its fields.
fn json_type(kind: &TypeReference) -> ParamType {
    match kind {
        TypeReference::Json(json) => *json,
        TypeReference::Array { .. } => ParamType::Array,
        TypeReference::Object { .. } | TypeReference::Ref { .. } => ParamType::Object,
    }
}

/// The fields of the named type `returns` refers to, as `response.fields`.
fn result_fields(
    returns: &TypeReference,
    types: &[TypeDefinition],
) -> Option<indexmap::IndexMap<String, schema::ResponseField>> {
    let TypeReference::Ref { name } = returns else {
        return None;
    };
    let named = types.iter().find(|defined| &defined.name == name)?;
    Some(
        named
            .fields
            .iter()
            .map(|field| {
                (
                    field.name.clone(),
                    schema::ResponseField {
                        kind: json_type(&field.kind),
                        required: Some(field.required),
                        description: field.description.clone(),
                    },
                )
            })
            .collect(),
    )
}

/// `response.type`: a named type's name, else the JSON type's, which introspection reports
/// as `<Operation>Result`.
fn returned_type(returns: &TypeReference) -> String {
    match returns {
        TypeReference::Ref { name } => name.clone(),
        other => json_type(other).as_str().to_owned(),
    }
}

/// `kind` in words for the README: `array of Repository`.
fn describe(kind: &TypeReference) -> String {
    match kind {
        TypeReference::Json(json) => json.as_str().to_owned(),
        TypeReference::Array { array } => format!("array of {}", describe(array)),
        TypeReference::Object { object } if object.is_empty() => "object".to_owned(),
        TypeReference::Object { object } => format!(
            "object of {}",
            object
                .iter()
                .map(|(name, kind)| format!("{name}: {}", describe(kind)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        TypeReference::Ref { name } => name.clone(),
    }
}

/// The display name, the target API and the types, as Markdown.
fn documentation(document: &GenSchema) -> String {
    let adapter = &document.adapter;
    let target = &adapter.target_api;
    let mut text = format!(
        "# {}\n\nAdapts {}",
        one_line(&adapter.display_name),
        one_line(&target.name)
    );
    if let Some(version) = &target.version {
        text.push_str(&format!(" (API version {})", one_line(version)));
    }
    text.push_str(&format!(" at `{}`.\n", one_line(&target.base_url)));
    for TypeDefinition { name, fields } in &document.types {
        text.push_str(&format!(
            "\n## Type `{name}`\n\n| field | type | required | description |\n|---|---|---|---|\n"
        ));
        for field in fields {
            text.push_str(&format!(
                "| `{}` | {} | {} | {} |\n",
                field.name,
                cell(&describe(&field.kind)),
                if field.required { "yes" } else { "no" },
                cell(field.description.as_deref().unwrap_or_default()),
            ));
        }
    }
    text
}

/// `text` on one line.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `text` as a Markdown table cell.
fn cell(text: &str) -> String {
    one_line(text).replace('|', "\\|")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_references_become_json_types_and_names() {
        for (yaml, json, returned, described) in [
            ("string", "string", "string", "string"),
            ("{array: integer}", "array", "array", "array of integer"),
            ("{array: {ref: Repo}}", "array", "array", "array of Repo"),
            ("{object: {}}", "object", "object", "object"),
            (
                "{object: {id: integer, tags: {array: string}}}",
                "object",
                "object",
                "object of id: integer, tags: array of string",
            ),
            ("{ref: Repo}", "object", "Repo", "Repo"),
        ] {
            let kind: TypeReference = serde_yaml::from_str(yaml).expect("a type reference");
            assert_eq!(json_type(&kind).as_str(), json, "{yaml}");
            assert_eq!(returned_type(&kind), returned, "{yaml}");
            assert_eq!(describe(&kind), described, "{yaml}");
        }
    }

    #[test]
    fn auth_config_maps_to_front_matter_keys_with_default_variables() {
        for (yaml, expected) in [
            (
                "{type: bearer, config: {header_name: Authorization, prefix: 'Bearer '}}",
                "{type: bearer, token_env: GITHUB_API_TOKEN, header: Authorization, prefix: 'Bearer '}",
            ),
            (
                "{type: bearer, config: {token_env: GH_TOKEN}}",
                "{type: bearer, token_env: GH_TOKEN}",
            ),
            (
                "{type: api_key, config: {query_param: key}}",
                "{type: api_key, key_env: GITHUB_API_API_KEY, query_param: key}",
            ),
            (
                "{type: basic}",
                "{type: basic, username_env: GITHUB_API_USERNAME, password_env: GITHUB_API_PASSWORD}",
            ),
            ("{type: none}", "{type: none}"),
        ] {
            let auth: Auth = serde_yaml::from_str(yaml).expect("an auth");
            let converted = serde_yaml::to_value(convert_auth(&auth, "GITHUB_API")).expect("yaml");
            let expected: serde_yaml::Value = serde_yaml::from_str(expected).expect("yaml");
            assert_eq!(converted, expected, "{yaml}");
        }
    }
}
