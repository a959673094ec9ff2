//! The serde model of a generator-format document (GEN §2.1), field for field. It is built
//! only from a document the format's own checks passed, for conversion.

use aqlgen_model::{DangerLevel, Method};
use indexmap::IndexMap;
use serde::Deserialize;
use serde_json::Value;

use crate::schema::{AuthKind, ParamType};

/// The whole document but `schema_version`, which `version` checks before this is built (so
/// unknown keys are not denied here: `schema_version` would be one).
#[derive(Debug, Clone, Deserialize)]
pub struct GenSchema {
    /// Adapter metadata.
    pub adapter: Adapter,
    /// How requests authenticate.
    pub auth: Option<Auth>,
    /// Operations by endpoint.
    pub endpoints: Endpoints,
    /// Named types, for `{ref: Name}`.
    #[serde(default)]
    pub types: Vec<TypeDefinition>,
}

/// `adapter`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Adapter {
    /// Identifier, snake_case.
    pub name: String,
    /// Human-readable name.
    pub display_name: String,
    /// Semver of the adapter.
    pub version: String,
    /// What the adapter is for.
    pub description: String,
    /// The API adapted.
    pub target_api: TargetApi,
}

/// `adapter.target_api`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TargetApi {
    /// The API's name.
    pub name: String,
    /// Base URL for requests.
    pub base_url: String,
    /// The API's own version.
    pub version: Option<String>,
}

/// `auth`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Auth {
    /// The scheme.
    #[serde(rename = "type")]
    pub kind: AuthKind,
    /// The scheme's settings, all strings.
    #[serde(default)]
    pub config: IndexMap<String, String>,
}

/// `endpoints`: one list per CRUDE family.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Endpoints {
    /// Additive operations.
    #[serde(default)]
    pub create: Vec<OperationDefinition>,
    /// Read-only operations.
    #[serde(default)]
    pub read: Vec<OperationDefinition>,
    /// Modifying operations.
    #[serde(default)]
    pub update: Vec<OperationDefinition>,
    /// Removing operations.
    #[serde(default)]
    pub delete: Vec<OperationDefinition>,
    /// Side-effecting operations.
    #[serde(default)]
    pub execute: Vec<OperationDefinition>,
}

/// One operation.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OperationDefinition {
    /// Wire name, snake_case.
    pub name: String,
    /// What it does.
    pub description: String,
    /// Parameters in order.
    pub params: Vec<ParameterDefinition>,
    /// What it returns.
    pub returns: TypeReference,
    /// How much harm it can do.
    pub danger_level: Option<DangerLevel>,
    /// The upstream request; aqlgen refuses an operation without one.
    pub http: Option<Http>,
}

/// An operation's `http`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Http {
    /// The upstream method.
    pub method: Method,
    /// The path template, `/items/{id}`.
    pub path: String,
}

/// A parameter, or a field of a type.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ParameterDefinition {
    /// Wire name, snake_case.
    pub name: String,
    /// Its type.
    #[serde(rename = "type")]
    pub kind: TypeReference,
    /// Whether the caller must give it.
    pub required: bool,
    /// What it means.
    pub description: Option<String>,
    /// Value used when absent.
    pub default: Option<Value>,
}

/// A type: a JSON type's name, or a list, object or named type.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum TypeReference {
    /// `string`, `integer`, `number`, `boolean`, `object` or `array`.
    Json(ParamType),
    /// `{array: T}`.
    Array {
        /// The items' type.
        array: Box<TypeReference>,
    },
    /// `{object: {key: T}}`.
    Object {
        /// The members' types.
        object: IndexMap<String, TypeReference>,
    },
    /// `{ref: Name}`: an entry of `types`.
    Ref {
        /// The type's name.
        #[serde(rename = "ref")]
        name: String,
    },
}

/// An entry of `types`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TypeDefinition {
    /// The type's name.
    pub name: String,
    /// Its fields.
    pub fields: Vec<ParameterDefinition>,
}
