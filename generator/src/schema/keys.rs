//! The keys each object of the format accepts and requires, for unknown-key and
//! missing-field checks that report every problem at once.

/// Keys of one kind of object.
#[derive(Debug)]
pub struct ObjectKeys {
    /// Every key the object accepts, or `None` when it accepts any key.
    pub known: Option<&'static [&'static str]>,
    /// Keys that must be present.
    pub required: &'static [&'static str],
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
    ]),
    required: &[
        "name",
        "type",
        "version",
        "description",
        "target",
        "operations",
    ],
};

/// `target`.
pub const TARGET: ObjectKeys = ObjectKeys {
    known: Some(&["base_url", "transport", "protocol", "serialization"]),
    required: &["base_url", "transport", "protocol", "serialization"],
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
    ]),
    required: &["type"],
};

/// `trust`.
pub const TRUST: ObjectKeys = ObjectKeys {
    known: Some(&["level", "verified_by", "verification_date"]),
    required: &[],
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
};

/// `operations`.
pub const OPERATIONS: ObjectKeys = ObjectKeys {
    known: Some(&["create", "read", "update", "delete", "execute"]),
    required: &[],
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
    ]),
    required: &["name", "maps_to"],
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
        "pattern",
        "format",
    ]),
    required: &["type"],
};

/// `response` accepts any key.
pub const RESPONSE: ObjectKeys = ObjectKeys {
    known: None,
    required: &[],
};

/// `pagination`.
pub const PAGINATION: ObjectKeys = ObjectKeys {
    known: Some(&["style", "default_limit", "max_limit"]),
    required: &[],
};
