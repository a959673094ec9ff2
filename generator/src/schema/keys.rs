//! The keys each object of the format accepts and requires, and which values come from a
//! closed set of names, for shape checks that report every problem at once.

use aqlgen_model::{
    Category, ContentType, DangerLevel, FieldKind, Operator, ParamLocation, ParamStyle, TrustLevel,
    Vocabulary,
};

use super::{
    AuthKind, ElementType, PaginationStyle, ParamType, Protocol, Serialization, Transport,
};
use crate::diagnostic::Code;

/// Keys of one kind of object.
#[derive(Debug)]
pub struct ObjectKeys {
    /// Every key the object accepts, or `None` when it accepts any key.
    pub known: Option<&'static [&'static str]>,
    /// Keys that must be present.
    pub required: &'static [&'static str],
    /// Keys whose value is a name from a closed set.
    pub choices: &'static [(&'static str, Choice)],
}

/// A closed set of names a value must come from: one of the schema's enums.
#[derive(Debug)]
pub struct Choice {
    /// What a value is called: `danger level`.
    pub what: &'static str,
    /// The canonical names.
    pub names: &'static [&'static str],
    /// Other accepted spellings.
    pub aliases: &'static [&'static str],
    /// Common spellings from elsewhere and the name they mean: `int` for `integer`.
    pub synonyms: &'static [(&'static str, &'static str)],
    /// The names aqlgen generates, when it generates fewer than the format names: only these
    /// are suggested for a misspelt value.
    pub generated: Option<&'static [&'static str]>,
    /// The code of the diagnostic for a value outside the set.
    pub code: Code,
    /// Whether `text` names a value.
    pub accepts: fn(&str) -> bool,
}

/// The closed set of `T`'s names; a value outside it is reported with `code`.
pub const fn choice<T: Vocabulary>(code: Code) -> Choice {
    Choice {
        what: T::WHAT,
        names: T::NAMES,
        aliases: T::ALIASES,
        synonyms: &[],
        generated: None,
        code,
        accepts: accepts::<T>,
    }
}

/// [`choice`] of which aqlgen generates only `generated`.
const fn generated_choice<T: Vocabulary>(generated: &'static [&'static str]) -> Choice {
    Choice {
        generated: Some(generated),
        ..choice::<T>(Code::InvalidValue)
    }
}

/// Param types as other languages and formats spell them.
pub const TYPE_SYNONYMS: &[(&str, &str)] = &[
    ("str", "string"),
    ("text", "string"),
    ("int", "integer"),
    ("i64", "integer"),
    ("float", "number"),
    ("double", "number"),
    ("bool", "boolean"),
    ("list", "array"),
    ("map", "object"),
    ("dict", "object"),
];

fn accepts<T: Vocabulary>(text: &str) -> bool {
    T::parse(text).is_some()
}

/// The front matter itself.
pub const ADAPTER: ObjectKeys = ObjectKeys {
    known: Some(&[
        "name",
        "type",
        "version",
        "description",
        "target",
        "auth",
        "trust",
        "rate_limits",
        "operations",
        "author",
        "tags",
        "triggers",
        "created",
        "modified",
        "relationships",
        "extensions",
    ]),
    required: &[
        "name",
        "type",
        "version",
        "description",
        "target",
        "operations",
    ],
    choices: &[("type", choice::<ElementType>(Code::InvalidValue))],
};

/// `target`.
pub const TARGET: ObjectKeys = ObjectKeys {
    known: Some(&["base_url", "transport", "protocol", "serialization"]),
    required: &["base_url", "transport", "protocol", "serialization"],
    choices: &[
        ("transport", generated_choice::<Transport>(&["http"])),
        ("protocol", generated_choice::<Protocol>(&["rest"])),
        (
            "serialization",
            generated_choice::<Serialization>(&["json"]),
        ),
    ],
};

/// `auth`.
pub const AUTH: ObjectKeys = ObjectKeys {
    known: Some(&[
        "type",
        "token_env",
        "header",
        "prefix",
        "key_env",
        "header_name",
        "query_param",
        "username_env",
        "password_env",
        "token_url",
        "client_id_env",
        "client_secret_env",
        "refresh_token_env",
        "scopes",
        "region",
        "service",
        "access_key_id_env",
        "secret_access_key_env",
        "session_token_env",
        "credentials",
    ]),
    required: &["type"],
    choices: &[("type", choice::<AuthKind>(Code::InvalidValue))],
};

/// `trust`.
pub const TRUST: ObjectKeys = ObjectKeys {
    known: Some(&["level", "verified_by", "verification_date"]),
    required: &[],
    choices: &[("level", choice::<TrustLevel>(Code::InvalidValue))],
};

/// `rate_limits`.
pub const RATE_LIMITS: ObjectKeys = ObjectKeys {
    known: Some(&[
        "requests_per_minute",
        "requests_per_hour",
        "requests_per_day",
        "burst_limit",
    ]),
    required: &[],
    choices: &[],
};

/// `operations`: one list per family.
pub const OPERATIONS: ObjectKeys = ObjectKeys {
    known: Some(<Category as Vocabulary>::NAMES),
    required: &[],
    choices: &[],
};

/// One operation.
pub const OPERATION: ObjectKeys = ObjectKeys {
    known: Some(&[
        "name",
        "maps_to",
        "description",
        "params",
        "response",
        "pagination",
        "supports_fields",
        "danger_level",
        "requires_confirmation",
        "non_idempotent",
        "content_type",
        "requires_body",
        "requires_one_of",
        "lifecycle",
        "headers",
        "query",
    ]),
    required: &["name", "maps_to"],
    choices: &[
        ("danger_level", choice::<DangerLevel>(Code::InvalidValue)),
        ("content_type", choice::<ContentType>(Code::InvalidValue)),
    ],
};

/// An operation's `lifecycle` (an aqlgen addition).
pub const LIFECYCLE: ObjectKeys = ObjectKeys {
    known: Some(&[
        "poll",
        "id",
        "id_param",
        "state",
        "states",
        "progress",
        "error",
        "result",
        "cancel",
        "poll_interval",
        "timeout",
    ]),
    required: &["poll", "state", "states"],
    choices: &[],
};

/// A lifecycle's `progress`.
pub const LIFECYCLE_PROGRESS: ObjectKeys = ObjectKeys {
    known: Some(&["current", "total", "percentage", "message"]),
    required: &[],
    choices: &[],
};

/// One parameter.
pub const PARAM: ObjectKeys = ObjectKeys {
    known: Some(&[
        "type",
        "required",
        "description",
        "default",
        "enum",
        "minimum",
        "maximum",
        "min_length",
        "max_length",
        "pattern",
        "format",
        "in",
        "wire_name",
        "style",
        "explode",
    ]),
    required: &["type"],
    choices: &[
        (
            "type",
            Choice {
                synonyms: TYPE_SYNONYMS,
                ..choice::<ParamType>(Code::InvalidType)
            },
        ),
        ("in", choice::<ParamLocation>(Code::InvalidValue)),
        ("style", choice::<ParamStyle>(Code::InvalidValue)),
    ],
};

/// One member under `response.fields`.
pub const RESPONSE_FIELD: ObjectKeys = ObjectKeys {
    known: Some(&["type", "required", "description"]),
    required: &["type"],
    choices: &[(
        "type",
        Choice {
            synonyms: TYPE_SYNONYMS,
            ..choice::<ParamType>(Code::InvalidType)
        },
    )],
};

/// `response` accepts any key.
pub const RESPONSE: ObjectKeys = ObjectKeys {
    known: None,
    required: &[],
    choices: &[],
};

/// `pagination`.
pub const PAGINATION: ObjectKeys = ObjectKeys {
    known: Some(&["style", "default_limit", "max_limit"]),
    required: &[],
    choices: &[("style", choice::<PaginationStyle>(Code::InvalidValue))],
};

/// An operation's `query` (an aqlgen addition).
pub const QUERY: ObjectKeys = ObjectKeys {
    known: Some(&["text", "fields", "scan"]),
    required: &[],
    choices: &[],
};

/// `query.text`.
pub const QUERY_TEXT: ObjectKeys = ObjectKeys {
    known: Some(&["param", "paths"]),
    required: &[],
    choices: &[],
};

/// One field under `query.fields`.
pub const QUERY_FIELD: ObjectKeys = ObjectKeys {
    known: Some(&["path", "type", "description", "enum", "filter", "sort"]),
    required: &[],
    choices: &[("type", choice::<FieldKind>(Code::InvalidType))],
};

/// A query field's upstream `filter`.
pub const QUERY_FILTER: ObjectKeys = ObjectKeys {
    known: Some(&["param", "operator"]),
    required: &["param"],
    choices: &[("operator", choice::<Operator>(Code::InvalidValue))],
};

/// A query field's upstream `sort`.
pub const QUERY_SORT: ObjectKeys = ObjectKeys {
    known: Some(&["param", "value", "order", "asc", "desc"]),
    required: &["param"],
    choices: &[],
};

/// `query.scan`.
pub const QUERY_SCAN: ObjectKeys = ObjectKeys {
    known: Some(&["max_pages", "max_items", "max_bytes", "max_seconds"]),
    required: &[],
    choices: &[],
};

/// One computed field under `response.computed`.
pub const COMPUTED: ObjectKeys = ObjectKeys {
    known: Some(&["type", "expr", "description"]),
    required: &["type", "expr"],
    choices: &[(
        "type",
        Choice {
            synonyms: TYPE_SYNONYMS,
            ..choice::<ParamType>(Code::InvalidType)
        },
    )],
};

/// The adapter's `relationships` (an aqlgen addition).
pub const RELATIONSHIPS: ObjectKeys = ObjectKeys {
    known: Some(&["max_depth", "nodes", "edges"]),
    required: &["nodes", "edges"],
    choices: &[],
};

/// A node type under `relationships.nodes`.
pub const NODE: ObjectKeys = ObjectKeys {
    known: Some(&["name", "get"]),
    required: &["name"],
    choices: &[],
};

/// A call from an item: a node's `get`, an edge's `inverse`.
pub const HOP: ObjectKeys = ObjectKeys {
    known: Some(&["operation", "params"]),
    required: &["operation"],
    choices: &[],
};

/// An edge under `relationships.edges`.
pub const EDGE: ObjectKeys = ObjectKeys {
    known: Some(&["type", "from", "to", "operation", "params", "inverse"]),
    required: &["type", "from", "to"],
    choices: &[],
};
