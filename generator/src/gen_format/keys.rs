//! The keys each object of the generator format (GEN §2.1) accepts and requires, and the
//! values that come from a closed set of names.

use aqlgen_model::{Category, DangerLevel, Method, Vocabulary};

use crate::diagnostic::Code;
use crate::schema::AuthKind;
use crate::schema::keys::{ObjectKeys, choice};

/// The document itself.
pub const ROOT: ObjectKeys = ObjectKeys {
    known: Some(&["schema_version", "adapter", "auth", "endpoints", "types"]),
    required: &["schema_version", "adapter", "endpoints"],
    choices: &[],
};

/// `adapter`.
pub const ADAPTER: ObjectKeys = ObjectKeys {
    known: Some(&[
        "name",
        "display_name",
        "version",
        "description",
        "target_api",
    ]),
    required: &[
        "name",
        "display_name",
        "version",
        "description",
        "target_api",
    ],
    choices: &[],
};

/// `adapter.target_api`.
pub const TARGET_API: ObjectKeys = ObjectKeys {
    known: Some(&["name", "base_url", "version"]),
    required: &["name", "base_url"],
    choices: &[],
};

/// `auth`.
pub const AUTH: ObjectKeys = ObjectKeys {
    known: Some(&["type", "config"]),
    required: &["type"],
    choices: &[("type", choice::<AuthKind>(Code::InvalidValue))],
};

/// `endpoints`: one list per family.
pub const ENDPOINTS: ObjectKeys = ObjectKeys {
    known: Some(<Category as Vocabulary>::NAMES),
    required: &[],
    choices: &[],
};

/// One operation.
pub const OPERATION: ObjectKeys = ObjectKeys {
    known: Some(&[
        "name",
        "description",
        "params",
        "returns",
        "danger_level",
        "http",
    ]),
    required: &["name", "description", "params", "returns"],
    choices: &[("danger_level", choice::<DangerLevel>(Code::InvalidValue))],
};

/// An operation's `http`.
pub const HTTP: ObjectKeys = ObjectKeys {
    known: Some(&["method", "path"]),
    required: &["method", "path"],
    choices: &[("method", choice::<Method>(Code::InvalidValue))],
};

/// A parameter, or a field of a type.
pub const PARAM: ObjectKeys = ObjectKeys {
    known: Some(&["name", "type", "required", "description", "default"]),
    required: &["name", "type", "required"],
    choices: &[],
};

/// An entry of `types`.
pub const TYPE: ObjectKeys = ObjectKeys {
    known: Some(&["name", "fields"]),
    required: &["name", "fields"],
    choices: &[],
};

/// The one key of a type reference that is an object.
pub const TYPE_REFERENCE: [&str; 3] = ["array", "object", "ref"];

/// The `auth.config` keys aqlgen can generate for each auth type. Credentials are read from
/// environment variables at run time: the `*_env` keys name them (by default the adapter's
/// name with a suffix, see `convert`). `oauth2` is refused before its config is read.
pub fn config_keys(kind: AuthKind) -> &'static [&'static str] {
    match kind {
        AuthKind::Bearer => &["header_name", "prefix", "token_env"],
        AuthKind::ApiKey => &["header_name", "query_param", "key_env"],
        AuthKind::Basic => &["username_env", "password_env"],
        AuthKind::None | AuthKind::Oauth2 | AuthKind::AwsSigv4 | AuthKind::Combined => &[],
    }
}
