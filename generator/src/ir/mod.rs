//! The lowered model: everything emission needs, decided. Emitters only spell it out.

mod example;
mod lower;
mod query;

pub use lower::lower;
pub use query::{ComputedField, Graph, Hop, NamePiece, QueryField, QueryPlan, TextPlan};

pub use aqlgen_model::{
    Category, ContentType, DangerLevel, Method, ParamLocation, ParamStyle, StringFormat,
    TrustLevel, Window,
};
use serde_json::Value;

pub use crate::features::{Features, PageStyle};
pub use crate::schema::ParamType;
pub use crate::schema::lifecycle::{IdCall, Poll, Resolved as Lifecycle};

/// A schema's description as the generated code shows it: trimmed, empty when there is none.
fn described(text: Option<&str>) -> String {
    text.unwrap_or_default().trim().to_owned()
}

/// Which input format a schema was written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SchemaFormat {
    /// Markdown with YAML front matter: the fingerprint covers the front matter.
    FrontMatter,
    /// The generator document's YAML or JSON format: the fingerprint covers all of it.
    GeneratorDocument,
}

/// Where an adapter comes from: what lowering takes besides the schema model.
#[derive(Debug, Clone)]
pub struct Origin {
    /// Schema path as given, `/`-separated.
    pub schema_path: String,
    /// The format of the schema file.
    pub format: SchemaFormat,
    /// The Markdown body of the schema file, or what a generator-format document says that
    /// the schema model has no place for.
    pub documentation: String,
    /// `sha256:<hex>` of the front matter, or of the whole generator-format document.
    pub fingerprint: String,
}

/// A validated adapter, ready to emit.
#[derive(Debug, Clone)]
pub struct Adapter {
    /// Wire name, e.g. `github`.
    pub name: String,
    /// Package name of the generated crate: `github-adapter`.
    pub package: String,
    /// Lib crate name: `github_adapter`.
    pub lib_name: String,
    /// Adapter type: `GithubAdapter`.
    pub type_name: String,
    /// Semver of the schema.
    pub version: String,
    /// One-line description.
    pub description: String,
    /// Base URL without a trailing `/`.
    pub base_url: String,
    /// Variable overriding the base URL: `GITHUB_BASE_URL`.
    pub base_url_env: String,
    /// How requests authenticate.
    pub auth: Auth,
    /// The schema's `trust.level`, if it declares one.
    pub trust: Option<TrustLevel>,
    /// The schema's `rate_limits`: calls per window, shortest window first.
    pub rate_limits: Vec<(Window, u64)>,
    /// Schema path as given, `/`-separated.
    pub schema_path: String,
    /// The format of the schema file.
    pub format: SchemaFormat,
    /// `sha256:<hex>` of the front matter, or of the whole generator-format document.
    pub fingerprint: String,
    /// The Markdown body of the schema file (see [`Origin::documentation`]).
    pub documentation: String,
    /// Operations in CRUDE order, schema order within a family.
    pub operations: Vec<Operation>,
    /// Its place among the adapters of its server: 0 alone, a bundle's order otherwise.
    pub member: usize,
    /// The types relationship queries visit and the edges between them.
    pub graph: Option<Graph>,
}

impl Adapter {
    /// The file a build script writes the adapter into: `<name>_adapter.rs`.
    pub fn include_file(&self) -> String {
        format!("{}_adapter.rs", self.name.replace('-', "_"))
    }

    /// This adapter as member `member` of a bundle: every operation named
    /// `<adapter>__<operation>` (the adapter's name in snake_case), every named type prefixed
    /// with the adapter's name in UpperCamelCase, and the lifecycle operations it calls
    /// renamed to match.
    pub fn namespaced(mut self, member: usize) -> Self {
        let prefix = self.namespace();
        let camel = crate::ident::type_name(&self.name, "");
        let operation = |name: &mut String| *name = format!("{prefix}__{name}");
        let named_type = |name: &mut String| *name = format!("{camel}{name}");
        for op in &mut self.operations {
            operation(&mut op.name);
            named_type(&mut op.returns);
            if let Some(input) = &mut op.input {
                named_type(&mut input.struct_name);
                input.fields.iter_mut().for_each(|field| {
                    field.enum_type.as_mut().map(named_type);
                });
            }
            op.params.iter_mut().for_each(|param| {
                param.enum_type.as_mut().map(named_type);
            });
            if let Some(lifecycle) = &mut op.lifecycle {
                if let Poll::Operation(call) = &mut lifecycle.poll {
                    operation(&mut call.operation);
                }
                if let Some(call) = &mut lifecycle.cancel {
                    operation(&mut call.operation);
                }
            }
            if let Some(query) = &mut op.query {
                named_type(&mut query.filter_type);
                named_type(&mut query.sort_type);
            }
            for field in &mut op.computed {
                field.fn_name = format!("{prefix}_{}", field.fn_name);
            }
        }
        if let Some(graph) = &mut self.graph {
            for node in &mut graph.nodes {
                named_type(&mut node.name);
                node.get
                    .iter_mut()
                    .for_each(|hop| operation(&mut hop.operation));
            }
            for edge in &mut graph.edges {
                edge.forward
                    .iter_mut()
                    .for_each(|hop| operation(&mut hop.operation));
                edge.inverse
                    .iter_mut()
                    .for_each(|hop| operation(&mut hop.operation));
            }
        }
        self.member = member;
        self
    }

    /// The prefix of its operations in a bundle: its name in snake_case.
    pub fn namespace(&self) -> String {
        self.name.replace('-', "_")
    }

    /// Every introspection type name it declares.
    pub fn type_names(&self) -> impl Iterator<Item = &str> {
        self.operations.iter().flat_map(|op| {
            let enums = op
                .all_params()
                .filter_map(|param| param.enum_type.as_deref());
            let input = op.input.as_ref().map(|input| input.struct_name.as_str());
            let query = op
                .query
                .iter()
                .flat_map(|query| [query.filter_type.as_str(), query.sort_type.as_str()]);
            enums.chain(input).chain(query).chain([op.returns.as_str()])
        })
    }

    /// Whether any param has a checked `format`, so `params.rs` uses `StringFormat`.
    pub fn uses_formats(&self) -> bool {
        self.operations
            .iter()
            .flat_map(Operation::all_params)
            .any(|param| param.checked_format.is_some())
    }

    /// Whether any param has a `pattern`, so `params.rs` uses the runtime's `Pattern`.
    pub fn uses_patterns(&self) -> bool {
        self.operations
            .iter()
            .flat_map(Operation::all_params)
            .any(|param| param.pattern.is_some())
    }
}

/// Upstream authentication, by environment variable names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Auth {
    /// No credentials.
    None,
    /// A token in a header.
    Bearer {
        /// Variable holding the token.
        token_env: String,
        /// Header name.
        header: String,
        /// Text before the token.
        prefix: String,
    },
    /// An API key in a header.
    ApiKeyHeader {
        /// Variable holding the key.
        key_env: String,
        /// Header name.
        header: String,
    },
    /// An API key in the query string.
    ApiKeyQuery {
        /// Variable holding the key.
        key_env: String,
        /// Query parameter name.
        param: String,
    },
    /// HTTP basic auth.
    Basic {
        /// Variable holding the user name.
        username_env: String,
        /// Variable holding the password.
        password_env: String,
    },
    /// An OAuth 2 access token from a token endpoint, sent as `Authorization: Bearer`.
    OAuth2 {
        /// The token endpoint.
        token_url: String,
        /// Variable overriding the token endpoint: `GITHUB_TOKEN_URL`.
        token_url_env: String,
        /// Variable holding the client id.
        client_id_env: String,
        /// Variable holding the client secret.
        client_secret_env: String,
        /// Variable holding a refresh token, for the refresh token grant.
        refresh_token_env: Option<String>,
        /// Scopes asked for, space-separated.
        scope: String,
    },
    /// AWS Signature Version 4.
    AwsSigV4(AwsSigV4),
    /// Several credentials sent together: bearer tokens and API keys.
    Combined(Vec<Auth>),
}

/// How an AWS API's requests are signed (`aws_sigv4`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AwsSigV4 {
    /// The region signed for.
    pub region: String,
    /// Variable overriding the region: `DYNAMODB_REGION`.
    pub region_env: String,
    /// The service's signing name.
    pub service: String,
    /// Variable holding the access key id.
    pub access_key_id_env: String,
    /// Variable holding the secret access key.
    pub secret_access_key_env: String,
    /// Variable holding a session token, sent when set.
    pub session_token_env: String,
}

impl Auth {
    /// The environment variables the server reads for credentials.
    pub fn env_vars(&self) -> Vec<&str> {
        self.credentials().into_iter().map(|(env, _)| env).collect()
    }

    /// The variables holding its credentials, each with whether a call needs it (an OAuth
    /// refresh token and an AWS session token are used when set).
    pub fn credentials(&self) -> Vec<(&str, bool)> {
        match self {
            Self::None => Vec::new(),
            Self::Bearer { token_env, .. } => vec![(token_env, true)],
            Self::ApiKeyHeader { key_env, .. } | Self::ApiKeyQuery { key_env, .. } => {
                vec![(key_env, true)]
            }
            Self::Basic {
                username_env,
                password_env,
            } => vec![(username_env, true), (password_env, true)],
            Self::OAuth2 {
                client_id_env,
                client_secret_env,
                refresh_token_env,
                ..
            } => [(client_id_env, true), (client_secret_env, true)]
                .into_iter()
                .chain(refresh_token_env.iter().map(|env| (env, false)))
                .map(|(env, required)| (env.as_str(), required))
                .collect(),
            Self::AwsSigV4(aws) => vec![
                (&aws.access_key_id_env, true),
                (&aws.secret_access_key_env, true),
                (&aws.session_token_env, false),
            ],
            Self::Combined(parts) => parts.iter().flat_map(Self::credentials).collect(),
        }
    }

    /// The credentials it sends: itself, or each of several sent together.
    pub fn parts(&self) -> &[Auth] {
        match self {
            Self::Combined(parts) => parts,
            single => std::slice::from_ref(single),
        }
    }
}

/// One operation.
#[derive(Debug, Clone)]
pub struct Operation {
    /// Wire name.
    pub name: String,
    /// Category and family.
    pub category: Category,
    /// Upstream method.
    pub method: Method,
    /// `/repos/{owner}/{repo}`.
    pub path_template: String,
    /// The path as literal text and params.
    pub path: Vec<PathSegment>,
    /// Query pairs the template fixes, decoded, sent on every call before the params.
    pub fixed_query: Vec<(String, String)>,
    /// Header values every call sends (the schema's `headers`), after the params'.
    pub fixed_headers: Vec<(String, String)>,
    /// The media type of the body.
    pub content_type: ContentType,
    /// Whether every call sends a body, an empty one when no body param is given.
    pub requires_body: bool,
    /// Sets of params, by name, one of which a call must give in full.
    pub requires_one_of: Vec<Vec<String>>,
    /// From the schema; may be empty.
    pub description: String,
    /// Declared or defaulted by category.
    pub danger: DangerLevel,
    /// Whether a confirmation token is needed.
    pub requires_confirmation: bool,
    /// Params struct: `GetRepoParams`.
    pub struct_name: String,
    /// Request builder: `build_get_repo`.
    pub build_fn: String,
    /// Route static: `GET_REPO_ROUTE`.
    pub route_static: String,
    /// The name of `from_params`' argument: `raw`, or `raw_` when a param is called `raw`.
    pub raw_arg: String,
    /// Top-level params in schema order (for UPDATE: the path params only).
    pub params: Vec<Param>,
    /// UPDATE only: the fields of the required `input` object (SPEC §4.5).
    pub input: Option<Input>,
    /// Name of the returned type in introspection.
    pub returns: String,
    /// What the result holds.
    pub returns_description: String,
    /// The members of the result, as `response.fields` declares them.
    pub returns_fields: Vec<ResultField>,
    /// Field selection, pagination and the feature params offered.
    pub features: Features,
    /// How the execution it starts is followed (EXECUTE only).
    pub lifecycle: Option<Lifecycle>,
    /// How its collection is queried (READ only).
    pub query: Option<QueryPlan>,
    /// The computed fields of the items it answers.
    pub computed: Vec<ComputedField>,
    /// The declared members of the items it answers, which `fields` is checked against;
    /// empty when none are declared.
    pub known_fields: Vec<String>,
}

/// A member of an operation's result.
#[derive(Debug, Clone, PartialEq)]
pub struct ResultField {
    /// Its name, as the API spells it.
    pub name: String,
    /// Its JSON type.
    pub ty: ParamType,
    /// Whether every result has it.
    pub required: bool,
    /// What it holds; may be empty.
    pub description: String,
}

impl Operation {
    /// The description, and the sets of params one of which a call must give, as callers
    /// read them: "Give all of one of: `droplet_ids`; or `tag`."
    pub fn described(&self) -> String {
        if self.requires_one_of.is_empty() {
            return self.description.clone();
        }
        let sets: Vec<String> = self
            .requires_one_of
            .iter()
            .map(|set| format!("`{}`", set.join("`, `")))
            .collect();
        let note = format!("Give all of one of: {}.", sets.join("; or "));
        if self.description.is_empty() {
            note
        } else {
            format!("{} {note}", self.description)
        }
    }

    /// Top-level params and `input` fields.
    pub fn all_params(&self) -> impl Iterator<Item = &Param> {
        self.params
            .iter()
            .chain(self.input.iter().flat_map(|input| &input.fields))
    }

    /// Names callers may give at the top level, in order: the schema's params but those the
    /// query sends, `input` for UPDATE, then the feature params.
    pub fn top_level_names(&self) -> Vec<&str> {
        let mut names: Vec<&str> = self
            .params
            .iter()
            .filter(|param| !param.hidden)
            .map(|param| param.name.as_str())
            .collect();
        if self.input.is_some() {
            names.push("input");
        }
        names.extend(self.features.params.iter().map(|param| param.as_str()));
        names
    }
}

/// The `input` object of an UPDATE operation.
#[derive(Debug, Clone)]
pub struct Input {
    /// Struct name: `UpdateIssueInput`, also the introspection type name.
    pub struct_name: String,
    /// Updatable fields, each optional unless the schema says required.
    pub fields: Vec<Param>,
}

/// A piece of the upstream path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PathSegment {
    /// Sent as written.
    Literal(String),
    /// Index into `Operation::params` of a path param, percent-encoded when sent.
    Param(usize),
}

/// One param or `input` field.
#[derive(Debug, Clone)]
pub struct Param {
    /// Public name, snake_case: what a request's `params` and introspection call it.
    pub name: String,
    /// Name reported in errors: `per_page`, or `input.title` for an input field.
    pub label: String,
    /// Rust field name, keyword-escaped.
    pub field: String,
    /// JSON type.
    pub ty: ParamType,
    /// Whether the caller must give it.
    pub required: bool,
    /// From the schema; may be empty.
    pub description: String,
    /// The document's value for the param when it is left out, and who applies it.
    pub default: Option<Fallback>,
    /// Allowed values; empty when unconstrained.
    pub allowed: Vec<Value>,
    /// Introspection name of the enum type when `allowed` is not empty.
    pub enum_type: Option<String>,
    /// Inclusive lower bound.
    pub minimum: Option<f64>,
    /// Inclusive upper bound.
    pub maximum: Option<f64>,
    /// Fewest and most characters of a string.
    pub lengths: (Option<u64>, Option<u64>),
    /// Regular expression for strings.
    pub pattern: Option<String>,
    /// Format hint, as the schema gives it.
    pub format: Option<String>,
    /// The format the server checks: a string param's `format` among [`StringFormat`]'s.
    pub checked_format: Option<StringFormat>,
    /// Where the value goes.
    pub placement: ParamLocation,
    /// Its name there: the upstream's, which may differ from the public [`Param::name`].
    pub wire_name: String,
    /// How an array or object is written there.
    pub style: ParamStyle,
    /// Whether an array or object is spread over several values.
    pub explode: bool,
    /// An optional UPDATE `input` field: an explicit `null` is kept and sent, to clear the
    /// field upstream (SPEC §4.5.2).
    pub clearable: bool,
    /// Sent by the operation's query (`query`, `filter`, `sort`) only: callers do not give it.
    pub hidden: bool,
    /// A value that passes the param's checks, for examples.
    pub example: Value,
}

impl Param {
    /// Whether the struct field is `Option<T>` (or `Patch<T>` when clearable): neither
    /// required nor filled in by the server.
    pub fn is_optional(&self) -> bool {
        !self.required && self.filled_default().is_none()
    }

    /// What documentation says of a default the upstream applies: the server sends nothing.
    pub fn upstream_default_note(&self) -> Option<String> {
        match &self.default {
            Some(Fallback::Upstream(default)) => Some(format!(
                "Left out, it is not sent and the API keeps its value (its default: `{default}`)."
            )),
            Some(Fallback::Filled(_)) | None => None,
        }
    }

    /// Whether the param is a file's content, or a list of files, in base64 (`format:
    /// binary`): a multipart body sends each as a file part.
    pub fn is_file(&self) -> bool {
        matches!(self.ty, ParamType::String | ParamType::Array)
            && self.format.as_deref() == Some("binary")
    }

    /// The value the server fills in when the caller leaves the param out.
    pub fn filled_default(&self) -> Option<&Value> {
        match &self.default {
            Some(Fallback::Filled(value)) => Some(value),
            Some(Fallback::Upstream(_)) | None => None,
        }
    }
}

/// A param's default, and who applies it when the caller leaves the param out.
#[derive(Debug, Clone, PartialEq)]
pub enum Fallback {
    /// The server sends this value: the upstream would apply the same one.
    Filled(Value),
    /// The server sends nothing and the upstream keeps what it has. A partial update's
    /// members: sending the document's default would overwrite a value nobody mentioned.
    Upstream(Value),
}
