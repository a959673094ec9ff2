//! The contract between generated code and the runtime.
//!
//! `aqlgen` emits, per adapter schema, one zero-sized type implementing [`Adapter`]: static
//! metadata, a compile-time routing table and pre-serialized introspection answers. The
//! runtime is generic over that trait and never sees YAML.

use std::borrow::Cow;

use serde_json::{Map, Value};

pub use aqlgen_model::{
    AggregateFunction, Category, ContentType, DangerLevel, Direction, ExecutionOperation,
    ExecutionState, FeatureParam, FieldKind, GraphSection, Method, Operator, Preset, SortOrder,
    TrustLevel, Window,
};

use crate::params::ParamError;

/// At most `limit` calls per `window`: a schema's `rate_limits`, or the operator's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateLimit {
    /// The window.
    pub window: Window,
    /// Calls allowed in one window.
    pub limit: u64,
}

/// What a generated adapter crate provides to the runtime.
pub trait Adapter: Send + Sync + 'static {
    /// What the server calls itself: the adapter's name and version, or the bundle's.
    const SERVER: &'static ServerInfo;
    /// The adapters served, each with its own upstream, credentials, trust level and limits:
    /// the one of a schema, or a bundle's members in the order they were given.
    /// [`Route::member`] indexes it.
    const MEMBERS: &'static [&'static AdapterInfo];
    /// Every operation, in schema order (CREATE, READ, UPDATE, DELETE, EXECUTE families);
    /// a bundle's member by member.
    const ROUTES: &'static [&'static Route];
    /// Introspection answers, pre-serialized.
    const INTROSPECTION: &'static Introspection;
    /// MCP tool descriptions rendered from the templates.
    const TOOLS: &'static ToolDocs;
    /// The types relationship queries visit and the edges between them; `None` serves no
    /// `query_relationships`.
    const GRAPH: Option<&'static Graph> = None;

    /// Looks an operation up by its wire name: a `match` fixed at compile time.
    fn route(operation: &str) -> Option<&'static Route>;
}

/// What a server reports of itself in its MCP `serverInfo`, logs and introspection.
#[derive(Debug)]
pub struct ServerInfo {
    /// The adapter's name, or the bundle's, e.g. `github`.
    pub name: &'static str,
    /// Its version (semver).
    pub version: &'static str,
    /// One-line description.
    pub description: &'static str,
    /// `sha256:<hex>` fingerprint of the schema's front matter; a bundle's covers every
    /// member's.
    pub schema_fingerprint: &'static str,
}

/// Static facts about an adapter: one schema's upstream.
#[derive(Debug)]
pub struct AdapterInfo {
    /// Adapter name from the schema, e.g. `github`.
    pub name: &'static str,
    /// Adapter version from the schema (semver).
    pub version: &'static str,
    /// One-line description from the schema.
    pub description: &'static str,
    /// Base URL of the target API, without a trailing `/`.
    pub base_url: &'static str,
    /// Environment variable that overrides `base_url`, e.g. `GITHUB_BASE_URL`.
    pub base_url_env: &'static str,
    /// How requests authenticate; secrets come from the environment only.
    pub auth: Auth,
    /// The schema's `trust.level`; `None` means untested unless the operator vouches.
    pub trust: Option<TrustLevel>,
    /// The schema's `rate_limits`, one per window.
    pub rate_limits: &'static [RateLimit],
    /// `sha256:<hex>` fingerprint of the schema's front matter.
    pub schema_fingerprint: &'static str,
}

/// Upstream authentication. Holds names of environment variables, never secrets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Auth {
    /// No credentials are sent.
    None,
    /// `<header>: <prefix><$token_env>`, by default `Authorization: Bearer <token>`.
    Bearer {
        /// Variable holding the token.
        token_env: &'static str,
        /// Header name.
        header: &'static str,
        /// Text before the token, e.g. `"Bearer "`.
        prefix: &'static str,
    },
    /// An API key in a header or a query parameter.
    ApiKey {
        /// Variable holding the key.
        key_env: &'static str,
        /// Where the key goes.
        location: ApiKeyLocation,
    },
    /// HTTP basic auth.
    Basic {
        /// Variable holding the user name.
        username_env: &'static str,
        /// Variable holding the password.
        password_env: &'static str,
    },
    /// An OAuth 2 access token from a token endpoint, sent as `Authorization: Bearer`.
    OAuth2(&'static OAuth2),
    /// AWS Signature Version 4: every request signed with an access key.
    AwsSigV4(&'static AwsSigV4),
    /// Several credentials sent together on every request, each a bearer token or an API
    /// key (VTEX's app key and app token headers).
    Combined(&'static [Auth]),
}

/// How requests to an AWS API are signed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AwsSigV4 {
    /// The region signed for, e.g. `us-east-1`.
    pub region: &'static str,
    /// Environment variable that overrides `region`, e.g. `DYNAMODB_REGION`.
    pub region_env: &'static str,
    /// The service's signing name, e.g. `dynamodb`.
    pub service: &'static str,
    /// Variable holding the access key id.
    pub access_key_id_env: &'static str,
    /// Variable holding the secret access key.
    pub secret_access_key_env: &'static str,
    /// Variable holding the session token of temporary credentials, sent when it is set.
    pub session_token_env: &'static str,
}

/// Where and how an OAuth 2 access token is obtained.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OAuth2 {
    /// The authorization server's token endpoint.
    pub token_url: &'static str,
    /// Environment variable that overrides `token_url`, e.g. `GITHUB_TOKEN_URL`.
    pub token_url_env: &'static str,
    /// Variable holding the client id.
    pub client_id_env: &'static str,
    /// Variable holding the client secret.
    pub client_secret_env: &'static str,
    /// Variable holding a refresh token: the refresh token grant while it is set; the client
    /// credentials grant otherwise.
    pub refresh_token_env: Option<&'static str>,
    /// Scopes asked for, space-separated; empty asks for the client's default.
    pub scope: &'static str,
}

/// An environment variable an adapter reads, as an operator sets it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Variable {
    /// Its name, e.g. `GITHUB_TOKEN`.
    pub env: &'static str,
    /// What it holds, e.g. `token, sent in the Authorization header`.
    pub holds: String,
    /// Whether it holds a secret, never to be printed.
    pub secret: bool,
    /// Whether a call needs it set; the others override a default or are used when set.
    pub required: bool,
}

impl Variable {
    fn secret(env: &'static str, holds: impl Into<String>) -> Self {
        Self {
            env,
            holds: holds.into(),
            secret: true,
            required: true,
        }
    }

    fn optional(mut self) -> Self {
        self.required = false;
        self
    }

    fn setting(env: &'static str, holds: String) -> Self {
        Self {
            env,
            holds,
            secret: false,
            required: false,
        }
    }
}

impl Auth {
    /// The environment variables this auth reads, in the order an operator sets them.
    pub fn variables(&self) -> Vec<Variable> {
        match *self {
            Self::None => Vec::new(),
            Self::Bearer {
                token_env, header, ..
            } => vec![Variable::secret(
                token_env,
                format!("token, sent in the {header} header"),
            )],
            Self::ApiKey { key_env, location } => vec![Variable::secret(
                key_env,
                match location {
                    ApiKeyLocation::Header(name) => format!("key, sent in the {name} header"),
                    ApiKeyLocation::Query(name) => {
                        format!("key, sent as the {name} query parameter")
                    }
                },
            )],
            Self::Basic {
                username_env,
                password_env,
            } => vec![
                Variable::secret(username_env, "user name (basic auth)"),
                Variable::secret(password_env, "password (basic auth)"),
            ],
            Self::OAuth2(oauth) => {
                let mut variables = vec![
                    Variable::secret(oauth.client_id_env, "OAuth client id"),
                    Variable::secret(oauth.client_secret_env, "OAuth client secret"),
                ];
                if let Some(refresh) = oauth.refresh_token_env {
                    variables.push(
                        Variable::secret(refresh, "OAuth refresh token, when the client has one")
                            .optional(),
                    );
                }
                variables.push(Variable::setting(
                    oauth.token_url_env,
                    format!("OAuth token endpoint [default: {}]", oauth.token_url),
                ));
                variables
            }
            Self::AwsSigV4(aws) => vec![
                Variable::secret(aws.access_key_id_env, "AWS access key id"),
                Variable::secret(aws.secret_access_key_env, "AWS secret access key"),
                Variable::secret(
                    aws.session_token_env,
                    "AWS session token, with temporary credentials",
                )
                .optional(),
                Variable::setting(
                    aws.region_env,
                    format!("AWS region [default: {}]", aws.region),
                ),
            ],
            Self::Combined(parts) => parts.iter().flat_map(Self::variables).collect(),
        }
    }
}

impl AdapterInfo {
    /// Every environment variable the adapter reads: its base URL's, then its auth's.
    pub fn variables(&self) -> Vec<Variable> {
        let mut variables = vec![Variable::setting(
            self.base_url_env,
            format!("{} API base URL [default: {}]", self.name, self.base_url),
        )];
        variables.extend(self.auth.variables().into_iter().map(|mut variable| {
            variable.holds = format!("{} API {}", self.name, variable.holds);
            variable
        }));
        variables
    }
}

/// Where an API key is sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ApiKeyLocation {
    /// In this request header.
    Header(&'static str),
    /// In this query parameter.
    Query(&'static str),
}

/// One operation of the routing table.
#[derive(Debug)]
pub struct Route {
    /// Wire name, snake_case; in a bundle, prefixed with its adapter's name and `__`.
    pub operation: &'static str,
    /// The adapter it belongs to: an index into [`Adapter::MEMBERS`].
    pub member: usize,
    /// What the operation does, from the schema; confirmation messages quote it.
    pub description: &'static str,
    /// Semantic category, which is also the CRUDE family.
    pub category: Category,
    /// Declared (or defaulted) danger level.
    pub danger_level: DangerLevel,
    /// Whether a confirmation token must be presented before the call runs.
    pub requires_confirmation: bool,
    /// Parses and checks the resolved params (unknown -> missing -> types -> constraints ->
    /// defaults), then builds the upstream request.
    pub build: fn(&Map<String, Value>) -> Result<UpstreamRequest, ParamError>,
    /// The protocol's params this operation takes besides its own (operations §4.4.1): those
    /// its category and schema allow, less any name one of its own params already has.
    pub features: &'static [FeatureParam],
    /// Field selection, when the operation takes `fields`.
    pub fields: Option<&'static FieldSelection>,
    /// How `first` and `after` map onto the upstream's paging, when the operation takes them.
    pub paging: Option<&'static Paging>,
    /// How the execution an EXECUTE operation starts is followed, when it outlives the call.
    pub lifecycle: Option<&'static Lifecycle>,
    /// How its collection is queried (`query`, `filter`, `sort`, `aggregate`), when it can be.
    pub query: Option<&'static Query>,
    /// The computed fields of the items it answers (`_computed.<name>` in `fields`).
    pub computed: &'static [ComputedField],
}

/// How one operation's collection is queried (collection-querying §2-§6, aggregations): its
/// query fields, where each is filtered and sorted (by the upstream, or here over a bounded
/// scan of upstream pages), and where its text query goes.
#[derive(Debug)]
pub struct Query {
    /// The text query `query`, when the operation takes one.
    pub text: Option<TextQuery>,
    /// The query fields, by the names `filter`, `sort` and `aggregate` use.
    pub fields: &'static [QueryField],
    /// How much one request may read upstream to do what the upstream cannot.
    pub scan: ScanLimits,
    /// The params callers give: the operation's own but those the query sends.
    pub valid: &'static [&'static str],
    /// The operation's params the query sends, which callers do not give.
    pub hidden: &'static [&'static str],
}

/// Where a text query goes.
#[derive(Debug, Clone, Copy)]
pub enum TextQuery {
    /// Into an upstream param.
    Param {
        /// The param.
        param: &'static str,
        /// Whether the operation requires it.
        required: bool,
    },
    /// Matched here, word by word, against these item fields.
    Paths(&'static [JsonPath]),
}

/// One query field.
#[derive(Debug)]
pub struct QueryField {
    /// Its name.
    pub name: &'static str,
    /// Where each item holds it; `None` when only the upstream filters or sorts by it.
    pub path: Option<JsonPath>,
    /// What its values are compared as.
    pub kind: FieldKind,
    /// The upstream param one operator goes to.
    pub filter: Option<UpstreamFilter>,
    /// The upstream params that sort by it.
    pub sort: Option<UpstreamSort>,
}

/// A filter the upstream does: one operator, sent in one param.
#[derive(Debug, Clone, Copy)]
pub struct UpstreamFilter {
    /// The operation's param.
    pub param: &'static str,
    /// The operator.
    pub operator: Operator,
    /// Whether the param takes a list as a list; otherwise a list is joined with commas.
    pub list: bool,
}

/// A sort the upstream does.
#[derive(Debug, Clone, Copy)]
pub struct UpstreamSort {
    /// The param that names the key.
    pub param: &'static str,
    /// The key's value there.
    pub value: &'static str,
    /// The param that takes the order, and its values for ascending and descending.
    pub order: Option<(&'static str, &'static str, &'static str)>,
}

/// How much one request may read upstream (collection-querying §5.5); the operator's
/// ceilings apply on top.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScanLimits {
    /// Upstream pages.
    pub max_pages: u64,
    /// Items.
    pub max_items: u64,
    /// Bytes of upstream answers.
    pub max_bytes: u64,
    /// Seconds.
    pub max_seconds: u64,
}

/// A computed field (computed-fields §2), compiled from the schema's expression.
#[derive(Debug)]
pub struct ComputedField {
    /// Its name under `_computed`.
    pub name: &'static str,
    /// What its values are compared as.
    pub kind: FieldKind,
    /// Its value for one item at `now` (Unix seconds); null where the item lacks what it
    /// needs.
    pub compute: fn(&Value, i64) -> Value,
}

/// The types a relationship query visits and the edges between them (relationship-queries).
#[derive(Debug)]
pub struct Graph {
    /// The deepest query.
    pub max_depth: u64,
    /// The node types.
    pub nodes: &'static [NodeType],
    /// The edge types.
    pub edges: &'static [EdgeType],
}

/// A node type.
#[derive(Debug)]
pub struct NodeType {
    /// Its type name, the `element_type` of its nodes.
    pub name: &'static str,
    /// How an item's `element_name` is written, and read back into fields.
    pub template: &'static [NamePiece],
    /// How one is read by the fields its name holds.
    pub get: Option<Hop>,
}

/// A piece of a node's name.
#[derive(Debug, Clone, Copy)]
pub enum NamePiece {
    /// Text as written.
    Text(&'static str),
    /// The value of a field of the item.
    Field(JsonPath),
}

/// A READ operation called from an item, each param from one of the item's fields.
#[derive(Debug, Clone, Copy)]
pub struct Hop {
    /// The operation.
    pub operation: &'static str,
    /// Each param and the item field it takes.
    pub params: &'static [(&'static str, JsonPath)],
}

/// An edge type.
#[derive(Debug)]
pub struct EdgeType {
    /// The relationship's type, e.g. `owns`.
    pub kind: &'static str,
    /// The source node type: an index into [`Graph::nodes`].
    pub from: usize,
    /// The target node type.
    pub to: usize,
    /// From a source to its targets.
    pub forward: Option<Hop>,
    /// From a target back to its sources.
    pub inverse: Option<Hop>,
}

/// A path into a JSON answer: object members by name.
pub type JsonPath = &'static [&'static str];

/// How the execution a long-running EXECUTE operation starts upstream is followed (SPEC §8.4):
/// where its state is read, how upstream states map onto the core ones, and how it is cancelled.
#[derive(Debug)]
pub struct Lifecycle {
    /// Where the state is read.
    pub poll: Poll,
    /// Where the start answer holds the execution's upstream id, when an operation polls or
    /// cancels it.
    pub id: Option<JsonPath>,
    /// Where the status answer holds the upstream state; the first present, non-null one wins.
    pub state: &'static [JsonPath],
    /// Upstream state to core state; an upstream state not listed leaves the state as it was.
    pub states: &'static [(&'static str, ExecutionState)],
    /// Where the status answer holds progress, when it reports any.
    pub progress: Option<&'static ProgressPaths>,
    /// Where a failed execution's status answer holds its error.
    pub error: Option<JsonPath>,
    /// Where a completed execution's status answer holds its result; the whole answer when
    /// absent.
    pub result: Option<JsonPath>,
    /// The operation that cancels it, when the upstream can.
    pub cancel: Option<IdCall>,
    /// Seconds between two polls of the upstream.
    pub poll_interval: u64,
    /// Seconds after which an execution still running is given up as failed.
    pub timeout: u64,
}

/// Where an execution's state is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Poll {
    /// The URL of the start answer's `Operation-Location` (else `Location`) header, on the
    /// upstream's own origin.
    Location,
    /// An operation of the adapter, called with the execution's id.
    Operation(IdCall),
}

/// An operation called with an execution's id in one of its params, its other params taken
/// from the start call's params of the same name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IdCall {
    /// The operation.
    pub operation: &'static str,
    /// The param the id goes in.
    pub id_param: &'static str,
    /// The start call's params it is called with as well.
    pub params: &'static [&'static str],
}

/// Where a status answer reports progress (SPEC §8.4.3): any of the four.
#[derive(Debug)]
pub struct ProgressPaths {
    /// Work done so far.
    pub current: Option<JsonPath>,
    /// Work in all.
    pub total: Option<JsonPath>,
    /// Percent done, 0 to 100.
    pub percentage: Option<JsonPath>,
    /// A sentence on where it is.
    pub message: Option<JsonPath>,
}

/// The field-selection presets of one operation (field-selection §3).
#[derive(Debug)]
pub struct FieldSelection {
    /// Presets the schema declares, by name, each a list of dot paths. An undeclared
    /// `standard` is every field; an undeclared `minimal` is the identifying fields an item has.
    pub presets: &'static [(&'static str, &'static [&'static str])],
    /// The preset applied when a request names none: `minimal` for a search, `standard` for
    /// a collection, `full` for a single item (field-selection §3.2).
    pub default: Preset,
    /// The members an item of the answer has, as the schema declares them: a path must start
    /// with one of these (or `_computed`, `_etag`). Empty when none are declared.
    pub known: &'static [&'static str],
}

/// Cursor pagination of one operation over its upstream's own paging (pagination §2-§4).
#[derive(Debug)]
pub struct Paging {
    /// The upstream params a page is addressed with.
    pub style: PageStyle,
    /// Page size when `first` is not given.
    pub default_limit: u64,
    /// Largest page size; a larger `first` is clamped to it with a warning.
    pub max_limit: u64,
}

/// How the upstream addresses a page: the names of its params.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PageStyle {
    /// Page numbers from 1 and a page size (`page`, `per_page`).
    Page {
        /// The page-number param.
        page: &'static str,
        /// The page-size param.
        size: &'static str,
    },
    /// A count of items to skip and a page size (`offset`, `limit`).
    Offset {
        /// The offset param.
        offset: &'static str,
        /// The page-size param.
        size: &'static str,
    },
    /// The upstream's own cursor, found in its answer or its `Link` header.
    Cursor {
        /// The param the upstream's cursor goes back in.
        cursor: &'static str,
        /// The page-size param.
        size: &'static str,
    },
}

impl PageStyle {
    /// The upstream params that address a page; a request giving them with `first` or
    /// `after` mixes two styles.
    pub const fn upstream_params(self) -> [&'static str; 2] {
        match self {
            Self::Page { page, size } => [page, size],
            Self::Offset { offset, size } => [offset, size],
            Self::Cursor { cursor, size } => [cursor, size],
        }
    }
}

/// The HTTP request an operation sends, before base URL and auth are applied.
#[derive(Debug, Clone, PartialEq)]
pub struct UpstreamRequest {
    /// HTTP method.
    pub method: Method,
    /// Path with every substituted value percent-encoded, starting with `/`.
    pub path: String,
    /// Query pairs by wire name, not yet encoded (see [`crate::wire`]).
    pub query: Vec<(Cow<'static, str>, String)>,
    /// Headers from header params, by wire name.
    pub headers: Vec<(&'static str, String)>,
    /// Cookies from cookie params, sent as one `Cookie` header.
    pub cookies: Vec<(Cow<'static, str>, String)>,
    /// The body; `None` when no body param was given.
    pub body: Option<Body>,
}

/// A request body, in the operation's `content_type`.
#[derive(Debug, Clone, PartialEq)]
pub enum Body {
    /// `application/json`: an object of the body params.
    Json(Value),
    /// `application/x-www-form-urlencoded`: pairs, not yet encoded.
    Form(Vec<(Cow<'static, str>, String)>),
    /// `multipart/form-data`: one part per body param.
    Multipart(Vec<Part>),
    /// `application/octet-stream`, or the media type the operation fixes: the bytes as they
    /// are.
    Bytes(Vec<u8>),
}

impl Body {
    /// A JSON body of `members`; `None` when there are none.
    pub fn json(members: Map<String, Value>) -> Option<Self> {
        (!members.is_empty()).then_some(Self::Json(Value::Object(members)))
    }

    /// A form-encoded body of `pairs`; `None` when there are none.
    pub fn form(pairs: Vec<(Cow<'static, str>, String)>) -> Option<Self> {
        (!pairs.is_empty()).then_some(Self::Form(pairs))
    }

    /// A multipart body of `parts`; `None` when there are none.
    pub fn multipart(parts: Vec<Part>) -> Option<Self> {
        (!parts.is_empty()).then_some(Self::Multipart(parts))
    }
}

/// One part of a multipart body, by the wire name of its param.
#[derive(Debug, Clone, PartialEq)]
pub enum Part {
    /// A scalar as text.
    Text {
        /// Part name.
        name: &'static str,
        /// Its text.
        text: String,
    },
    /// An array or object as JSON text, `Content-Type: application/json`.
    Json {
        /// Part name.
        name: &'static str,
        /// Compact JSON.
        text: String,
    },
    /// A file: the decoded bytes of a base64 value, `application/octet-stream`.
    File {
        /// Part name, also its file name.
        name: &'static str,
        /// The bytes.
        bytes: Vec<u8>,
    },
}

/// Pre-serialized introspection answers.
#[derive(Debug)]
pub struct Introspection {
    /// Every adapter operation in schema order; `introspect` itself is added by the runtime.
    pub operations: &'static [OperationDoc],
    /// Named types of the adapter; protocol types are added by the runtime.
    pub types: &'static [TypeDoc],
}

/// Introspection documents of one operation.
#[derive(Debug)]
pub struct OperationDoc {
    /// Wire name.
    pub name: &'static str,
    /// Semantic category.
    pub category: Category,
    /// Description from the schema, used by the `search` filter.
    pub description: &'static str,
    /// The `OperationInfo` list entry as JSON.
    pub summary_json: &'static str,
    /// `OperationDetails` as a JSON object without `mcpTool`, which depends on the endpoint
    /// mode and tool prefix: the runtime inserts `"mcpTool":"…",` after the opening brace.
    pub details_json: &'static str,
}

/// Introspection documents of one named type.
#[derive(Debug)]
pub struct TypeDoc {
    /// Type name.
    pub name: &'static str,
    /// The adapter it belongs to: an index into [`Adapter::MEMBERS`].
    pub member: usize,
    /// The `TypeInfo` list entry as JSON.
    pub summary_json: &'static str,
    /// `TypeDetails` as JSON.
    pub details_json: &'static str,
}

/// MCP tool descriptions, rendered from `templates/` at generation time. Each names
/// `introspect` (seed mcp-integration §2.1). `None` marks a family with no operations.
#[derive(Debug)]
pub struct ToolDocs {
    /// `mcp_aql_create`.
    pub create: &'static str,
    /// `mcp_aql_read` (it carries `introspect`).
    pub read: &'static str,
    /// `mcp_aql_update`.
    pub update: &'static str,
    /// `mcp_aql_delete`.
    pub delete: &'static str,
    /// `mcp_aql_execute`.
    pub execute: &'static str,
    /// `mcp_aql` in single mode.
    pub single: &'static str,
}

/// The values of the contract's structs that a generated crate does not name.
///
/// Generated code writes each of these structs with every field it knows and then
/// `..Type::DEFAULT`, so a field a later runtime of the same `0.Y` adds takes its `DEFAULT`
/// value in a crate generated before it existed, which keeps building unchanged. A field
/// added to one of them must therefore have a `DEFAULT` that means "as before".
macro_rules! defaults {
    ($($ty:ident { $($field:ident: $value:expr),* $(,)? })*) => {
        $(impl $ty {
            #[doc = concat!("The value each field of a `", stringify!($ty), "` takes unless a crate names it.")]
            pub const DEFAULT: Self = Self { $($field: $value),* };
        })*
    };
}

defaults! {
    RateLimit { window: Window::Minute, limit: 0 }
    ServerInfo { name: "", version: "", description: "", schema_fingerprint: "" }
    AdapterInfo {
        name: "",
        version: "",
        description: "",
        base_url: "",
        base_url_env: "",
        auth: Auth::None,
        trust: None,
        rate_limits: &[],
        schema_fingerprint: "",
    }
    Route {
        operation: "",
        member: 0,
        description: "",
        category: Category::Read,
        danger_level: DangerLevel::Safe,
        requires_confirmation: false,
        build: |_| Ok(UpstreamRequest::DEFAULT),
        features: &[],
        fields: None,
        paging: None,
        lifecycle: None,
        query: None,
        computed: &[],
    }
    Query { text: None, fields: &[], scan: ScanLimits::DEFAULT, valid: &[], hidden: &[] }
    QueryField { name: "", path: None, kind: FieldKind::String, filter: None, sort: None }
    UpstreamFilter { param: "", operator: Operator::Eq, list: false }
    UpstreamSort { param: "", value: "", order: None }
    ScanLimits { max_pages: 0, max_items: 0, max_bytes: 0, max_seconds: 0 }
    ComputedField { name: "", kind: FieldKind::String, compute: |_, _| Value::Null }
    Graph { max_depth: 0, nodes: &[], edges: &[] }
    NodeType { name: "", template: &[], get: None }
    Hop { operation: "", params: &[] }
    EdgeType { kind: "", from: 0, to: 0, forward: None, inverse: None }
    Lifecycle {
        poll: Poll::Location,
        id: None,
        state: &[],
        states: &[],
        progress: None,
        error: None,
        result: None,
        cancel: None,
        poll_interval: 0,
        timeout: 0,
    }
    IdCall { operation: "", id_param: "", params: &[] }
    ProgressPaths { current: None, total: None, percentage: None, message: None }
    FieldSelection { presets: &[], default: Preset::Standard, known: &[] }
    Paging { style: PageStyle::Page { page: "", size: "" }, default_limit: 0, max_limit: 0 }
    UpstreamRequest {
        method: Method::Get,
        path: String::new(),
        query: Vec::new(),
        headers: Vec::new(),
        cookies: Vec::new(),
        body: None,
    }
    Introspection { operations: &[], types: &[] }
    OperationDoc {
        name: "",
        category: Category::Read,
        description: "",
        summary_json: "",
        details_json: "",
    }
    TypeDoc { name: "", member: 0, summary_json: "", details_json: "" }
    ToolDocs { create: "", read: "", update: "", delete: "", execute: "", single: "" }
}
