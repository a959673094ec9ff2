//! The serde model of an adapter schema's front matter, field for field.
//!
//! The format is the public spec's `adapter-schema.schema.json` plus the element metadata
//! (`author`, `tags`, `triggers`, `created`, `modified`) and the auth keys real adapter files
//! carry. Unknown keys are refused; [`keys`] lists the known ones and the closed sets of names
//! some values come from. The closed sets are enums: the shared ones (danger and trust levels)
//! from `aql-model`, the schema-only ones here.

pub mod keys;
pub mod lifecycle;
pub mod maps_to;
pub mod placement;
pub mod query;
pub mod types;

use aqlgen_model::{Category, ContentType, DangerLevel, ParamLocation, ParamStyle, TrustLevel};
use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::Value;

aqlgen_model::vocabulary! {
    /// The element type of the front matter; an adapter schema says `adapter`.
    pub enum ElementType ("element type") {
        /// An MCP-AQL adapter.
        Adapter = "adapter",
    }
}

aqlgen_model::vocabulary! {
    /// `target.transport`.
    pub enum Transport ("transport") {
        /// HTTP requests; the only one generated today.
        Http = "http",
        /// WebSocket messages.
        Websocket = "websocket",
        /// A serial line.
        Serial = "serial",
        /// A native library.
        Native = "native",
    }
}

aqlgen_model::vocabulary! {
    /// `target.protocol`.
    pub enum Protocol ("protocol") {
        /// REST over HTTP; the only one generated today.
        Rest = "rest",
        /// GraphQL.
        Graphql = "graphql",
        /// gRPC.
        Grpc = "grpc",
        /// Anything else.
        Custom = "custom",
    }
}

aqlgen_model::vocabulary! {
    /// `target.serialization`.
    pub enum Serialization ("serialization") {
        /// JSON; the only one generated today.
        Json = "json",
        /// XML.
        Xml = "xml",
        /// Protocol Buffers.
        Protobuf = "protobuf",
        /// MessagePack.
        Msgpack = "msgpack",
        /// Form encoding.
        Form = "form",
    }
}

aqlgen_model::vocabulary! {
    /// `auth.type`.
    pub enum AuthKind ("auth type") {
        /// No credentials.
        None = "none",
        /// An API key in a header or the query string.
        ApiKey = "api_key",
        /// A token in the `Authorization` header.
        Bearer = "bearer",
        /// HTTP basic auth.
        Basic = "basic",
        /// OAuth 2: an access token the adapter obtains from a token endpoint (client
        /// credentials, or a refresh token) and sends as a bearer token.
        Oauth2 = "oauth2",
        /// AWS Signature Version 4: every request signed with an access key (an extension).
        AwsSigv4 = "aws_sigv4",
        /// Several credentials sent together, each a bearer token or an API key (an
        /// extension): its `credentials`.
        Combined = "combined",
    }
}

aqlgen_model::vocabulary! {
    /// A param's `type`.
    pub enum ParamType ("parameter type") {
        /// A string.
        String = "string",
        /// A whole number.
        Integer = "integer",
        /// Any number.
        Number = "number",
        /// `true` or `false`.
        Boolean = "boolean",
        /// A list.
        Array = "array",
        /// A map.
        Object = "object",
    }
}

impl ParamType {
    /// Whether a YAML value is a valid value of this type.
    pub fn admits(self, value: &Value) -> bool {
        match self {
            Self::String => value.is_string(),
            Self::Integer => value.is_i64() || value.is_u64() && value.as_i64().is_some(),
            Self::Number => value.is_number(),
            Self::Boolean => value.is_boolean(),
            Self::Array => value.is_array(),
            Self::Object => value.is_object(),
        }
    }
}

aqlgen_model::vocabulary! {
    /// `pagination.style`.
    pub enum PaginationStyle ("pagination style") {
        /// `limit` and `offset`.
        Offset = "offset",
        /// An opaque cursor.
        Cursor = "cursor",
        /// `page` and `page_size`.
        Page = "page",
    }
}

aqlgen_model::vocabulary! {
    /// What aqlgen reads beyond the official adapter schema, as a schema declares it once
    /// (`extensions: [placement, query]`) rather than being warned at every key.
    pub enum Extension ("extension") {
        /// The element metadata keys at the top level: `author`, `tags`, `triggers`,
        /// `created`, `modified`.
        Metadata = "metadata",
        /// Where a param goes and how it is written: `in`, `wire_name`, `style`, `explode`.
        Placement = "placement",
        /// A string param's `min_length` and `max_length`.
        Lengths = "lengths",
        /// `enum` values that are numbers.
        NumericEnums = "numeric_enums",
        /// An operation's body: `content_type`, `requires_body`, `requires_one_of`.
        Bodies = "bodies",
        /// An operation's fixed `headers`.
        Headers = "headers",
        /// `auth.type` `aws_sigv4` and `combined`.
        Auth = "auth",
        /// The query language: an operation's `query` and the top-level `relationships`.
        Query = "query",
        /// How a long-running execution is followed: an operation's `lifecycle`.
        Lifecycle = "lifecycle",
    }
}

/// The whole front matter.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct AdapterSchema {
    /// Adapter identifier, e.g. `github`.
    pub name: String,
    /// Element type discriminator; must be `adapter`.
    #[serde(rename = "type")]
    pub element_type: ElementType,
    /// Semantic version of the adapter.
    pub version: String,
    /// What the adapter is for.
    pub description: String,
    /// Where and how the target API is reached.
    pub target: Target,
    /// How requests authenticate.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub auth: Option<AuthConfig>,
    /// Who vouches for the adapter.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trust: Option<Trust>,
    /// What the target API allows.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rate_limits: Option<RateLimits>,
    /// The aqlgen extensions the schema uses, declared once.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub extensions: Vec<Extension>,
    /// The CRUDE operation lists.
    pub operations: Operations,
    /// The types relationship queries visit and the edges between them (an aqlgen addition).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub relationships: Option<query::Relationships>,
    /// Element metadata: author.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub author: Option<String>,
    /// Element metadata: tags.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tags: Option<Vec<String>>,
    /// Element metadata: activation triggers.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub triggers: Option<Vec<String>>,
    /// Element metadata: creation date.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub created: Option<String>,
    /// Element metadata: last modification date.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub modified: Option<String>,
}

/// `target`: the API connection.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Target {
    /// Base URL for requests.
    pub base_url: String,
    /// How the API is reached.
    pub transport: Transport,
    /// The API's style.
    pub protocol: Protocol,
    /// The wire format.
    pub serialization: Serialization,
}

/// `auth`: credentials come from environment variables named here.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct AuthConfig {
    /// The scheme.
    #[serde(rename = "type")]
    pub kind: AuthKind,
    /// Bearer: variable holding the token.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub token_env: Option<String>,
    /// Bearer or api_key: header name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub header: Option<String>,
    /// Bearer: text before the token.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prefix: Option<String>,
    /// Api_key: variable holding the key.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub key_env: Option<String>,
    /// Api_key: header name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub header_name: Option<String>,
    /// Api_key: query parameter name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub query_param: Option<String>,
    /// Basic: variable holding the user name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub username_env: Option<String>,
    /// Basic: variable holding the password.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub password_env: Option<String>,
    /// Oauth2: the authorization server's token endpoint.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub token_url: Option<String>,
    /// Oauth2: variable holding the client id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub client_id_env: Option<String>,
    /// Oauth2: variable holding the client secret.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub client_secret_env: Option<String>,
    /// Oauth2: variable holding a refresh token; without one, the client credentials grant.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refresh_token_env: Option<String>,
    /// Oauth2: the scopes asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scopes: Option<Vec<String>>,
    /// Aws_sigv4: the region signed for, e.g. `us-east-1`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub region: Option<String>,
    /// Aws_sigv4: the service's signing name, e.g. `dynamodb`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub service: Option<String>,
    /// Aws_sigv4: variable holding the access key id (default `AWS_ACCESS_KEY_ID`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub access_key_id_env: Option<String>,
    /// Aws_sigv4: variable holding the secret access key (default `AWS_SECRET_ACCESS_KEY`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub secret_access_key_env: Option<String>,
    /// Aws_sigv4: variable holding a session token (default `AWS_SESSION_TOKEN`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session_token_env: Option<String>,
    /// Combined: the credentials sent together, each `bearer` or `api_key`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub credentials: Vec<AuthConfig>,
}

impl AuthConfig {
    /// The request headers the auth writes: `Authorization` for bearer tokens (or their
    /// `header`), basic, OAuth 2 and AWS signatures; an API key's header; every one of
    /// `combined` credentials.
    pub fn headers(&self) -> Vec<&str> {
        match self.kind {
            AuthKind::None => Vec::new(),
            AuthKind::Bearer => vec![self.header.as_deref().unwrap_or("Authorization")],
            AuthKind::ApiKey => self
                .header_name
                .as_deref()
                .or(self.header.as_deref())
                .into_iter()
                .collect(),
            AuthKind::Basic | AuthKind::Oauth2 | AuthKind::AwsSigv4 => vec!["Authorization"],
            AuthKind::Combined => self.credentials.iter().flat_map(Self::headers).collect(),
        }
    }

    /// Whether the auth writes the header `name`.
    pub fn writes_header(&self, name: &str) -> bool {
        self.headers()
            .iter()
            .any(|header| header.eq_ignore_ascii_case(name))
    }

    /// An `auth` of `kind` with nothing else set.
    pub fn of(kind: AuthKind) -> Self {
        Self {
            kind,
            token_env: None,
            header: None,
            prefix: None,
            key_env: None,
            header_name: None,
            query_param: None,
            username_env: None,
            password_env: None,
            token_url: None,
            client_id_env: None,
            client_secret_env: None,
            refresh_token_env: None,
            scopes: None,
            region: None,
            service: None,
            access_key_id_env: None,
            secret_access_key_env: None,
            session_token_env: None,
            credentials: Vec::new(),
        }
    }
}

/// `trust`: who vouches for the adapter.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Trust {
    /// Who vouches for the adapter; either spelling of the ladder is read, the official
    /// schema's is written.
    #[serde(
        skip_serializing_if = "Option::is_none",
        serialize_with = "official_trust"
    )]
    pub level: Option<TrustLevel>,
    /// Who verified the adapter.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verified_by: Option<String>,
    /// When it was verified.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verification_date: Option<String>,
}

/// `rate_limits`: what the target API allows.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RateLimits {
    /// Requests per minute.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub requests_per_minute: Option<u64>,
    /// Requests per hour.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub requests_per_hour: Option<u64>,
    /// Requests per day.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub requests_per_day: Option<u64>,
    /// Burst size.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub burst_limit: Option<u64>,
}

/// `operations`: one list per CRUDE family.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Operations {
    /// Additive operations.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub create: Vec<Operation>,
    /// Read-only operations.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub read: Vec<Operation>,
    /// Modifying operations.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub update: Vec<Operation>,
    /// Removing operations.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub delete: Vec<Operation>,
    /// Side-effecting operations.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub execute: Vec<Operation>,
}

/// A trust level written as the official adapter schema spells it (`low`, not `generated`),
/// so that what aqlgen writes passes its own check without a warning.
fn official_trust<S: serde::Serializer>(
    level: &Option<TrustLevel>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    match level {
        Some(level) => serializer.serialize_str(level.official_name()),
        None => serializer.serialize_none(),
    }
}

/// A bound written as an integer when it is one, so `minimum: 1` stays `1` and not `1.0`.
fn whole_when_whole<S: serde::Serializer>(
    bound: &Option<f64>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    match *bound {
        Some(value)
            if value.fract() == 0.0
                && (-9_007_199_254_740_992.0..=9_007_199_254_740_992.0).contains(&value) =>
        {
            serializer.serialize_i64(value as i64)
        }
        Some(value) => serializer.serialize_f64(value),
        None => serializer.serialize_none(),
    }
}

/// Operations the protocol defines (SPEC §8.5.4): an adapter may not define them.
pub const RESERVED_OPERATIONS: [&str; 7] = [
    "introspect",
    "execute_agent",
    "record_execution_step",
    "complete_execution",
    "abort_execution",
    "confirm_operation",
    "verify_challenge",
];

/// Whether a param of an operation of `category` may not be called `name`: the gate's
/// `confirmation_token` anywhere, `input` on UPDATE, where it wraps the fields.
pub fn is_reserved_param(category: Category, name: &str) -> bool {
    name == "confirmation_token" || (category == Category::Update && name == "input")
}

impl Operations {
    /// Each category with its list, in CRUDE order.
    pub fn families(&self) -> [(Category, &Vec<Operation>); 5] {
        [
            (Category::Create, &self.create),
            (Category::Read, &self.read),
            (Category::Update, &self.update),
            (Category::Delete, &self.delete),
            (Category::Execute, &self.execute),
        ]
    }

    /// The list of `category`, to change.
    pub fn family_mut(&mut self, category: Category) -> &mut Vec<Operation> {
        match category {
            Category::Create => &mut self.create,
            Category::Read => &mut self.read,
            Category::Update => &mut self.update,
            Category::Delete => &mut self.delete,
            Category::Execute => &mut self.execute,
        }
    }
}

/// One operation.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Operation {
    /// Wire name, snake_case.
    pub name: String,
    /// `METHOD /path/{placeholder}`.
    pub maps_to: String,
    /// What the operation does.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Parameters in schema order.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub params: IndexMap<String, Param>,
    /// What the operation returns.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub response: Option<Response>,
    /// Pagination hints.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pagination: Option<Pagination>,
    /// Whether field selection applies.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub supports_fields: Option<bool>,
    /// How much harm the operation can do; by default from its category.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub danger_level: Option<DangerLevel>,
    /// Whether a confirmation token is needed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub requires_confirmation: Option<bool>,
    /// Whether repeating the call repeats its effect.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub non_idempotent: Option<bool>,
    /// The media type of the request body (an aqlgen addition); JSON when absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content_type: Option<ContentType>,
    /// Whether every call sends a body (an aqlgen addition): an empty one (`{}` in JSON)
    /// when the caller gives no body param.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub requires_body: Option<bool>,
    /// Sets of params one of which a call must give in full (an aqlgen addition): the
    /// variants of a `oneOf`/`anyOf` body, by param name.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub requires_one_of: Vec<Vec<String>>,
    /// How the execution a long-running EXECUTE operation starts is followed (an aqlgen
    /// addition, SPEC §8.4).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lifecycle: Option<Lifecycle>,
    /// Header values every call of the operation sends (an aqlgen addition), e.g. AWS's
    /// `X-Amz-Target`; a `Content-Type` here replaces the body's.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub headers: IndexMap<String, String>,
    /// How the operation's collection is queried (an aqlgen addition): text, filter and sort
    /// fields, and the bounds of a scan for what the upstream cannot do.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub query: Option<query::Query>,
}

/// How the execution an EXECUTE operation starts upstream is followed until it ends.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Lifecycle {
    /// `location`: the start answer's `Operation-Location` or `Location` header is polled;
    /// else the name of a READ operation of this adapter that answers the state.
    pub poll: String,
    /// Dot path of the execution's id in the start answer; needed when `poll` or `cancel`
    /// names an operation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The param of the `poll` and `cancel` operations that takes the id; by default their
    /// one required param the starting operation does not have.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id_param: Option<String>,
    /// Dot path of the upstream state in the status answer; `a|b` takes the first present.
    pub state: String,
    /// Each upstream state and the core state it means.
    pub states: IndexMap<String, String>,
    /// Dot paths of the progress the status answer reports.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub progress: Option<LifecycleProgress>,
    /// Dot path of a failed execution's error in the status answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Dot path of a completed execution's result; the whole status answer by default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<String>,
    /// The operation that cancels the execution, called with its id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cancel: Option<String>,
    /// Seconds between two polls (default 2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub poll_interval: Option<u64>,
    /// Seconds after which a running execution is given up as failed (default 3600).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout: Option<u64>,
}

/// Where a status answer reports progress.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct LifecycleProgress {
    /// Dot path of the work done.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub current: Option<String>,
    /// Dot path of the work in all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<String>,
    /// Dot path of the percentage done.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub percentage: Option<String>,
    /// Dot path of a status sentence.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// One parameter.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Param {
    /// The JSON type.
    #[serde(rename = "type")]
    pub kind: ParamType,
    /// Whether the caller must give it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub required: Option<bool>,
    /// What it means.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Value used when absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default: Option<Value>,
    /// Allowed values.
    #[serde(rename = "enum")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub allowed: Option<Vec<Value>>,
    /// Inclusive lower bound.
    #[serde(
        skip_serializing_if = "Option::is_none",
        serialize_with = "whole_when_whole"
    )]
    pub minimum: Option<f64>,
    /// Inclusive upper bound.
    #[serde(
        skip_serializing_if = "Option::is_none",
        serialize_with = "whole_when_whole"
    )]
    pub maximum: Option<f64>,
    /// Fewest characters a string may have (an aqlgen addition).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_length: Option<u64>,
    /// Most characters a string may have (an aqlgen addition).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_length: Option<u64>,
    /// Regular expression a string must match.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pattern: Option<String>,
    /// Format hint such as `date-time`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
    /// Where the value goes (an aqlgen addition); by default the path for a placeholder,
    /// else the body for a method that sends one, else the query.
    #[serde(rename = "in", skip_serializing_if = "Option::is_none")]
    pub location: Option<ParamLocation>,
    /// The upstream's name for the param, when it is not the public name (an aqlgen
    /// addition): `api-version` for the public `api_version`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wire_name: Option<String>,
    /// How an array or object is written (an aqlgen addition; OpenAPI's `style`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub style: Option<ParamStyle>,
    /// Whether an array or object is spread over several values (OpenAPI's `explode`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub explode: Option<bool>,
}

impl Param {
    /// A param of `kind` with nothing else set.
    pub fn of(kind: ParamType) -> Self {
        Self {
            kind,
            required: None,
            description: None,
            default: None,
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
}

/// `response`: open-ended; `type` names the result.
#[derive(Debug, Clone, Deserialize, Serialize)]
pub struct Response {
    /// Result type name.
    #[serde(rename = "type")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// What the result holds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Field-selection presets, by name, each a list of dot paths (an aqlgen addition the
    /// official schema allows here: `response` is open). Checked by validation.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub presets: Option<Value>,
    /// The members of the result, by name, for introspection's type details (INTRO-12; an
    /// aqlgen addition in the open `response`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fields: Option<IndexMap<String, ResponseField>>,
    /// The type of each item, when the result is a list (an aqlgen addition): its fields and
    /// computed fields apply to every item.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub items: Option<String>,
    /// Fields computed from the type's own (an aqlgen addition), by name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub computed: Option<IndexMap<String, query::Computed>>,
}

/// A member of an operation's result, under `response.fields`.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ResponseField {
    /// Its JSON type.
    #[serde(rename = "type")]
    pub kind: ParamType,
    /// Whether every result has it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub required: Option<bool>,
    /// What it holds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

/// `pagination`.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Pagination {
    /// How pages are addressed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub style: Option<PaginationStyle>,
    /// Default page size.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default_limit: Option<u64>,
    /// Largest page size.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_limit: Option<u64>,
}
