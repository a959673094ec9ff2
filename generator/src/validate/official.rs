//! What aqlgen accepts beyond the official adapter schema (`adapter-schema.schema.json` of
//! the specification), reported as `SCHEMA_EXTENSION` warnings: the schema stays valid for
//! aqlgen, and its author learns what another MCP-AQL tool would refuse. A schema that means
//! to use an [`Extension`] declares it once (`extensions: [placement]`) and is not warned at
//! each key; what is only spelt differently (a version, a trust level, a URL) is always
//! warned, with the official spelling.
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
use crate::schema::Extension;

/// The top-level key that declares extensions.
const DECLARATION: &str = "extensions";

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
const PARAM_KEYS: [(&str, Extension); 6] = [
    ("in", Extension::Placement),
    ("wire_name", Extension::Placement),
    ("style", Extension::Placement),
    ("explode", Extension::Placement),
    ("min_length", Extension::Lengths),
    ("max_length", Extension::Lengths),
];

/// Operation keys aqlgen adds, each with what the official schema lacks.
const OPERATION_KEYS: [(&str, Extension, &str); 6] = [
    (
        "lifecycle",
        Extension::Lifecycle,
        "the official schema has no way to say how a long-running execution is followed",
    ),
    (
        "headers",
        Extension::Headers,
        "the official schema has no header values fixed per operation",
    ),
    (
        "query",
        Extension::Query,
        "the official schema has no way to say how a collection is filtered, sorted or aggregated",
    ),
    (
        "requires_body",
        Extension::Bodies,
        "the official schema has no way to say that a body is always sent",
    ),
    (
        "requires_one_of",
        Extension::Bodies,
        "the official schema has no way to say that a call needs one of several sets of params",
    ),
    (
        "content_type",
        Extension::Bodies,
        "the official schema has no body media type; its bodies are JSON",
    ),
];

/// The official schema's `auth.type` values.
const OFFICIAL_AUTH: [&str; 5] = ["none", "api_key", "bearer", "basic", "oauth2"];

/// The official schema's `trust.level` values.
const OFFICIAL_TRUST: [&str; 5] = ["untrusted", "low", "medium", "high", "verified"];

/// The warnings for `document`, a schema aqlgen accepted: every place it steps outside the
/// official schema by an extension it did not declare or by a spelling, and every declared
/// extension it does not use.
pub fn extensions(document: &Value) -> Vec<Diagnostic> {
    let declared: Vec<Extension> = document
        .get(DECLARATION)
        .and_then(Value::as_sequence)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .filter_map(Extension::parse)
        .collect();
    let found = findings(document);
    let mut out: Vec<Diagnostic> = Vec::new();
    for (kind, diagnostic) in &found {
        match kind {
            Some(kind) if declared.contains(kind) => {}
            Some(kind) => out.push(diagnostic.clone().suggest(format!(
                "declare it once at the top, `{DECLARATION}: [{kind}]`, if other MCP-AQL tools need not read this file"
            ))),
            None => out.push(diagnostic.clone()),
        }
    }
    for (index, kind) in declared.iter().enumerate() {
        if !found.iter().any(|(used, _)| *used == Some(*kind)) {
            out.push(
                Diagnostic::new(
                    Code::Extension,
                    format!("{DECLARATION}[{index}]"),
                    format!("the schema declares `{kind}` but uses none of it"),
                )
                .expected("only the extensions the schema uses")
                .suggest("remove it, so that the declaration says what other tools would refuse"),
            );
        }
    }
    out
}

/// The extensions `document` uses, in declaration order: what its `extensions` should say.
pub fn used(document: &Value) -> Vec<Extension> {
    let mut used: Vec<Extension> = findings(document)
        .into_iter()
        .filter_map(|(kind, _)| kind)
        .collect();
    used.sort();
    used.dedup();
    used
}

/// Every place `document` steps outside the official schema, with the extension it belongs
/// to, or none for a spelling.
fn findings(document: &Value) -> Vec<(Option<Extension>, Diagnostic)> {
    let mut out = Vec::new();
    let Some(root) = document.as_mapping() else {
        return out;
    };
    for key in root.keys().filter_map(Value::as_str) {
        let kind = match key {
            _ if OFFICIAL_KEYS.contains(&key) || key == DECLARATION => continue,
            "relationships" => Extension::Query,
            _ => Extension::Metadata,
        };
        out.push((
            Some(kind),
            extension(key, format!("the official schema has no top-level `{key}`"))
                .expected(format!("only {}", OFFICIAL_KEYS.join(", "))),
        ));
    }
    let version = root
        .get("version")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let official_version =
        Regex::new(r"^\d+\.\d+\.\d+(-[a-z0-9.]+)?$").expect("a valid literal pattern");
    if !official_version.is_match(version) {
        out.push((
            None,
            extension("version", "the official schema wants a plainer version")
                .expected(
                    "MAJOR.MINOR.PATCH with an optional lower-case pre-release, no build metadata",
                )
                .found(format!("{version:?}")),
        ));
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
        out.push((None, diagnostic));
    }
    if let Some(kind) = document
        .get("auth")
        .and_then(|auth| auth.get("type"))
        .and_then(Value::as_str)
        .filter(|kind| !OFFICIAL_AUTH.contains(kind))
    {
        out.push((
            Some(Extension::Auth),
            extension("auth.type", "the official schema has no such auth type")
                .expected(format!("one of: {}", OFFICIAL_AUTH.join(", ")))
                .found(format!("{kind:?}")),
        ));
    }
    if let Some(url) = document
        .get("target")
        .and_then(|target| target.get("base_url"))
        .and_then(Value::as_str)
        .filter(|url| !url.is_ascii())
    {
        out.push((
            None,
            extension("target.base_url", "the official schema wants an ASCII URI")
                .expected(
                    "a URI (RFC 3986): non-ASCII characters percent-encoded, hosts in punycode",
                )
                .found(format!("{url:?}")),
        ));
    }
    let families = document.get("operations").and_then(Value::as_mapping);
    for (family, operations) in families.into_iter().flatten() {
        let family = family.as_str().unwrap_or_default();
        for (index, operation) in operations.as_sequence().into_iter().flatten().enumerate() {
            let at = format!("operations.{family}[{index}]");
            for (key, kind, message) in OPERATION_KEYS {
                if operation.get(key).is_some() {
                    out.push((
                        Some(kind),
                        extension(format!("{at}.{key}"), message).expected(format!("no `{key}`")),
                    ));
                }
            }
            let params = operation.get("params").and_then(Value::as_mapping);
            for (name, param) in params.into_iter().flatten() {
                let name = name.as_str().unwrap_or_default();
                for (key, kind) in PARAM_KEYS {
                    if param.get(key).is_some() {
                        out.push((
                            Some(kind),
                            extension(
                                format!("{at}.params.{name}.{key}"),
                                format!("the official schema has no param `{key}`"),
                            )
                            .expected(format!("only {}", OFFICIAL_PARAM_KEYS.join(", "))),
                        ));
                    }
                }
                let values = param.get("enum").and_then(Value::as_sequence);
                for (at, value) in values.into_iter().flatten().enumerate() {
                    if !value.is_string() {
                        out.push((
                            Some(Extension::NumericEnums),
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
                        ));
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
