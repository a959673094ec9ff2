//! The serde model of an adapter schema's front matter, field for field.
//!
//! The format is the public spec's `adapter-schema.schema.json` plus the element metadata
//! (`author`, `tags`, `triggers`, `created`, `modified`) and the auth keys real adapter files
//! carry. Unknown keys are refused; [`keys`] lists the known ones for suggestions.

pub mod keys;
pub mod maps_to;

use indexmap::IndexMap;
use serde::Deserialize;
use serde_json::Value;

/// The whole front matter.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AdapterSchema {
    /// Adapter identifier, e.g. `github`.
    pub name: String,
    /// Element type discriminator; must be `adapter`.
    #[serde(rename = "type")]
    pub element_type: String,
    /// Semantic version of the adapter.
    pub version: String,
    /// What the adapter is for.
    pub description: String,
    /// Where and how the target API is reached.
    pub target: Target,
    /// How requests authenticate.
    pub auth: Option<AuthConfig>,
    /// Trust metadata; documentation only.
    #[expect(
        dead_code,
        reason = "parsed so its shape is checked; documentation only, nothing is generated from it"
    )]
    pub trust: Option<Trust>,
    /// Rate limits; documentation only.
    #[expect(
        dead_code,
        reason = "parsed so its shape is checked; documentation only, nothing is generated from it"
    )]
    pub rate_limits: Option<RateLimits>,
    /// The CRUDE operation lists.
    pub operations: Operations,
    /// Element metadata: author.
    #[expect(
        dead_code,
        reason = "parsed so its shape is checked; documentation only, nothing is generated from it"
    )]
    pub author: Option<String>,
    /// Element metadata: tags.
    #[expect(
        dead_code,
        reason = "parsed so its shape is checked; documentation only, nothing is generated from it"
    )]
    pub tags: Option<Vec<String>>,
    /// Element metadata: activation triggers.
    #[expect(
        dead_code,
        reason = "parsed so its shape is checked; documentation only, nothing is generated from it"
    )]
    pub triggers: Option<Vec<String>>,
    /// Element metadata: creation date.
    #[expect(
        dead_code,
        reason = "parsed so its shape is checked; documentation only, nothing is generated from it"
    )]
    pub created: Option<String>,
    /// Element metadata: last modification date.
    #[expect(
        dead_code,
        reason = "parsed so its shape is checked; documentation only, nothing is generated from it"
    )]
    pub modified: Option<String>,
}

/// `target`: the API connection.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Target {
    /// Base URL for requests.
    pub base_url: String,
    /// `http`, `websocket`, `serial` or `native`.
    pub transport: String,
    /// `rest`, `graphql`, `grpc` or `custom`.
    pub protocol: String,
    /// `json`, `xml`, `protobuf`, `msgpack` or `form`.
    pub serialization: String,
}

/// `auth`: credentials come from environment variables named here.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AuthConfig {
    /// `none`, `api_key`, `bearer`, `basic` or `oauth2`.
    #[serde(rename = "type")]
    pub kind: String,
    /// Bearer: variable holding the token.
    pub token_env: Option<String>,
    /// Bearer or api_key: header name.
    pub header: Option<String>,
    /// Bearer: text before the token.
    pub prefix: Option<String>,
    /// Api_key: variable holding the key.
    pub key_env: Option<String>,
    /// Api_key: header name.
    pub header_name: Option<String>,
    /// Api_key: query parameter name.
    pub query_param: Option<String>,
    /// Basic: variable holding the user name.
    pub username_env: Option<String>,
    /// Basic: variable holding the password.
    pub password_env: Option<String>,
}

/// `trust`: documentation only.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
#[expect(
    dead_code,
    reason = "parsed so its shape is checked; documentation only, nothing is generated from it"
)]
pub struct Trust {
    /// Trust level.
    pub level: Option<String>,
    /// Who verified the adapter.
    pub verified_by: Option<String>,
    /// When it was verified.
    pub verification_date: Option<String>,
}

/// `rate_limits`: documentation only.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
#[expect(
    dead_code,
    reason = "parsed so its shape is checked; documentation only, nothing is generated from it"
)]
pub struct RateLimits {
    /// Requests per minute.
    pub requests_per_minute: Option<u64>,
    /// Requests per hour.
    pub requests_per_hour: Option<u64>,
    /// Requests per day.
    pub requests_per_day: Option<u64>,
    /// Burst size.
    pub burst_limit: Option<u64>,
}

/// `operations`: one list per CRUDE family.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Operations {
    /// Additive operations.
    #[serde(default)]
    pub create: Vec<Operation>,
    /// Read-only operations.
    #[serde(default)]
    pub read: Vec<Operation>,
    /// Modifying operations.
    #[serde(default)]
    pub update: Vec<Operation>,
    /// Removing operations.
    #[serde(default)]
    pub delete: Vec<Operation>,
    /// Side-effecting operations.
    #[serde(default)]
    pub execute: Vec<Operation>,
}

/// One operation.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Operation {
    /// Wire name, snake_case.
    pub name: String,
    /// `METHOD /path/{placeholder}`.
    pub maps_to: String,
    /// What the operation does.
    pub description: Option<String>,
    /// Parameters in schema order.
    #[serde(default)]
    pub params: IndexMap<String, Param>,
    /// What the operation returns.
    pub response: Option<Response>,
    /// Pagination hints.
    #[expect(
        dead_code,
        reason = "parsed so its shape is checked; documentation only, nothing is generated from it"
    )]
    pub pagination: Option<Pagination>,
    /// Whether field selection applies.
    #[expect(
        dead_code,
        reason = "parsed so its shape is checked; documentation only, nothing is generated from it"
    )]
    pub supports_fields: Option<bool>,
    /// `safe`, `reversible`, `destructive`, `dangerous` or `forbidden`.
    pub danger_level: Option<String>,
    /// Whether a confirmation token is needed.
    pub requires_confirmation: Option<bool>,
    /// Whether repeating the call repeats its effect.
    #[expect(
        dead_code,
        reason = "parsed so its shape is checked; documentation only, nothing is generated from it"
    )]
    pub non_idempotent: Option<bool>,
}

/// One parameter.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Param {
    /// `string`, `integer`, `number`, `boolean`, `array` or `object`.
    #[serde(rename = "type")]
    pub kind: String,
    /// Whether the caller must give it.
    pub required: Option<bool>,
    /// What it means.
    pub description: Option<String>,
    /// Value used when absent.
    pub default: Option<Value>,
    /// Allowed values.
    #[serde(rename = "enum")]
    pub allowed: Option<Vec<Value>>,
    /// Inclusive lower bound.
    pub minimum: Option<f64>,
    /// Inclusive upper bound.
    pub maximum: Option<f64>,
    /// Regular expression a string must match.
    pub pattern: Option<String>,
    /// Format hint such as `date-time`.
    pub format: Option<String>,
}

/// `response`: open-ended; `type` names the result.
#[derive(Debug, Clone, Deserialize)]
pub struct Response {
    /// Result type name.
    #[serde(rename = "type")]
    pub kind: Option<String>,
    /// What the result holds.
    pub description: Option<String>,
}

/// `pagination`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
#[expect(
    dead_code,
    reason = "parsed so its shape is checked; documentation only, nothing is generated from it"
)]
pub struct Pagination {
    /// `offset`, `cursor` or `page`.
    pub style: Option<String>,
    /// Default page size.
    pub default_limit: Option<u64>,
    /// Largest page size.
    pub max_limit: Option<u64>,
}
