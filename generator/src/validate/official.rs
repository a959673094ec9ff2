//! What aqlgen accepts beyond the official adapter schema (`adapter-schema.schema.json` of
//! the specification), reported as `SCHEMA_EXTENSION` warnings: the schema stays valid for
//! aqlgen, and its author learns what another MCP-AQL tool would refuse.
//!
//! The official schema is closed where aqlgen is more lenient in these places, and only
//! these (a test holds this list against the official schema itself):
//! * element metadata keys at the top level (`author`, `tags`, `triggers`, `created`,
//!   `modified`), which the element-type document allows;
//! * a `version` with build metadata or an upper-case or hyphenated pre-release;
//! * `trust.level` spelled with the trust-levels document's names;
//! * `enum` values that are numbers (integer and number params);
//! * a `base_url` that is not plain ASCII;
//! * where a param goes and how it is written (`in`, `wire_name`, `style`, `explode`), a
//!   string param's `min_length` and `max_length`, an
//!   operation's body `content_type`, `requires_body` and `requires_one_of`;
//! * `auth.type` `aws_sigv4` (AWS Signature Version 4) and `combined` (credentials sent
//!   together), an operation's fixed `headers`;
//! * the query language: an operation's `query` and the top-level `relationships` (a
//!   `response`'s `items` and `computed` are inside the open `response`).

use regex::Regex;
use serde_yaml::Value;

use crate::diagnostic::{Code, Diagnostic};

/// Top-level keys of the official schema.
const OFFICIAL_KEYS: [&str; 9] = [
    "name",
    "type",
    "version",
    "description",
    "target",
    "operations",
    "auth",
    "trust",
    "rate_limits",
];

/// Param keys of the official schema.
const OFFICIAL_PARAM_KEYS: [&str; 9] = [
    "type",
    "required",
    "description",
    "default",
    "enum",
    "minimum",
    "maximum",
    "pattern",
    "format",
];

/// Param keys aqlgen adds: where the value goes, how it is written, and a string's length.
const PLACEMENT_KEYS: [&str; 6] = [
    "in",
    "wire_name",
    "style",
    "explode",
    "min_length",
    "max_length",
];

/// The official schema's `auth.type` values.
const OFFICIAL_AUTH: [&str; 5] = ["none", "api_key", "bearer", "basic", "oauth2"];

/// The official schema's `trust.level` values.
const OFFICIAL_TRUST: [&str; 5] = ["untrusted", "low", "medium", "high", "verified"];

/// Every place `document`, a schema aqlgen accepted, steps outside the official schema.
pub fn extensions(document: &Value) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let Some(root) = document.as_mapping() else {
        return out;
    };
    for key in root.keys().filter_map(Value::as_str) {
        if !OFFICIAL_KEYS.contains(&key) {
            out.push(
                extension(key, format!("the official schema has no top-level `{key}`"))
                    .expected(format!("only {}", OFFICIAL_KEYS.join(", ")))
                    .suggest("move it to the Markdown body if other tools must read this file"),
            );
        }
    }
    let version = root
        .get("version")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let official_version =
        Regex::new(r"^\d+\.\d+\.\d+(-[a-z0-9.]+)?$").expect("a valid literal pattern");
    if !official_version.is_match(version) {
        out.push(
            extension("version", "the official schema wants a plainer version")
                .expected(
                    "MAJOR.MINOR.PATCH with an optional lower-case pre-release, no build metadata",
                )
                .found(format!("{version:?}")),
        );
    }
    if let Some(level) = document
        .get("trust")
        .and_then(|trust| trust.get("level"))
        .and_then(Value::as_str)
        .filter(|level| !OFFICIAL_TRUST.contains(level))
    {
        let official =
            aqlgen_model::TrustLevel::parse(level).map(aqlgen_model::TrustLevel::official_name);
        let mut diagnostic = extension(
            "trust.level",
            "the official schema spells trust levels differently",
        )
        .expected(format!("one of: {}", OFFICIAL_TRUST.join(", ")))
        .found(format!("{level:?}"));
        if let Some(official) = official {
            diagnostic = diagnostic.suggest(format!("write `{official}`, the same level"));
        }
        out.push(diagnostic);
    }
    if let Some(kind) = document
        .get("auth")
        .and_then(|auth| auth.get("type"))
        .and_then(Value::as_str)
        .filter(|kind| !OFFICIAL_AUTH.contains(kind))
    {
        out.push(
            extension("auth.type", "the official schema has no such auth type")
                .expected(format!("one of: {}", OFFICIAL_AUTH.join(", ")))
                .found(format!("{kind:?}")),
        );
    }
    if let Some(url) = document
        .get("target")
        .and_then(|target| target.get("base_url"))
        .and_then(Value::as_str)
        .filter(|url| !url.is_ascii())
    {
        out.push(
            extension("target.base_url", "the official schema wants an ASCII URI")
                .expected(
                    "a URI (RFC 3986): non-ASCII characters percent-encoded, hosts in punycode",
                )
                .found(format!("{url:?}")),
        );
    }
    let families = document.get("operations").and_then(Value::as_mapping);
    for (family, operations) in families.into_iter().flatten() {
        let family = family.as_str().unwrap_or_default();
        for (index, operation) in operations.as_sequence().into_iter().flatten().enumerate() {
            let at = format!("operations.{family}[{index}]");
            if operation.get("lifecycle").is_some() {
                out.push(
                    extension(
                        format!("{at}.lifecycle"),
                        "the official schema has no way to say how a long-running execution is followed",
                    )
                    .expected("no `lifecycle`"),
                );
            }
            if operation.get("headers").is_some() {
                out.push(
                    extension(
                        format!("{at}.headers"),
                        "the official schema has no header values fixed per operation",
                    )
                    .expected("no `headers`"),
                );
            }
            if operation.get("query").is_some() {
                out.push(
                    extension(
                        format!("{at}.query"),
                        "the official schema has no way to say how a collection is filtered, sorted or aggregated",
                    )
                    .expected("no `query`"),
                );
            }
            if operation.get("requires_body").is_some() {
                out.push(
                    extension(
                        format!("{at}.requires_body"),
                        "the official schema has no way to say that a body is always sent",
                    )
                    .expected("no `requires_body`"),
                );
            }
            if operation.get("requires_one_of").is_some() {
                out.push(
                    extension(
                        format!("{at}.requires_one_of"),
                        "the official schema has no way to say that a call needs one of several sets of params",
                    )
                    .expected("no `requires_one_of`"),
                );
            }
            if operation.get("content_type").is_some() {
                out.push(
                    extension(
                        format!("{at}.content_type"),
                        "the official schema has no body media type; its bodies are JSON",
                    )
                    .expected("no `content_type`"),
                );
            }
            let params = operation.get("params").and_then(Value::as_mapping);
            for (name, param) in params.into_iter().flatten() {
                let name = name.as_str().unwrap_or_default();
                for key in PLACEMENT_KEYS {
                    if param.get(key).is_some() {
                        out.push(
                            extension(
                                format!("{at}.params.{name}.{key}"),
                                format!("the official schema has no param `{key}`"),
                            )
                            .expected(format!("only {}", OFFICIAL_PARAM_KEYS.join(", "))),
                        );
                    }
                }
                let values = param.get("enum").and_then(Value::as_sequence);
                for (at, value) in values.into_iter().flatten().enumerate() {
                    if !value.is_string() {
                        out.push(
                            extension(
                                format!("operations.{family}[{index}].params.{name}.enum[{at}]"),
                                "the official schema allows only strings in `enum`",
                            )
                            .expected("a string")
                            .found(
                                serde_yaml::to_string(value)
                                    .unwrap_or_default()
                                    .trim()
                                    .to_owned(),
                            ),
                        );
                    }
                }
            }
        }
    }
    out
}

fn extension(path: impl Into<String>, message: impl Into<String>) -> Diagnostic {
    Diagnostic::new(Code::Extension, path, message)
}
