//! `schema_version` (GEN §2.4, REQ-GSF-4): the versions of the format this generator reads.
//!
//! The document defines version `1.0` only. Its example of version handling also lists `1.1`
//! as supported and `0.9` as deprecated, but defines neither format, and it never says that a
//! generator should read a newer minor version than its own: a `1.1` may add keys a `1.0`
//! reader would misread. So `1.0` is read, `0.9` (the one version the document calls
//! deprecated) is refused with `SCHEMA_VERSION_DEPRECATED` and its migration guide, and every
//! other version with `SCHEMA_VERSION_UNSUPPORTED` and the supported list.

use serde_yaml::Value;

use super::text_of;
use crate::diagnostic::{Code, Diagnostic};

/// The versions read.
const SUPPORTED: [&str; 1] = ["1.0"];

/// The versions the document calls deprecated.
const DEPRECATED: [&str; 1] = ["0.9"];

/// Where the document sends users of a deprecated version.
const MIGRATION_GUIDE: &str = "https://mcpaql.org/docs/schema-migration";

/// Whether `text` is a decimal number: digits only.
fn is_number(text: &str) -> bool {
    !text.is_empty() && text.bytes().all(|byte| byte.is_ascii_digit())
}

/// Why the document's `schema_version` (`version`) cannot be read, if it cannot.
pub fn refusal(version: &Value) -> Option<Diagnostic> {
    let supported = format!("'{}'", SUPPORTED.join("', '"));
    let Some(text) = version.as_str() else {
        let mut diagnostic = Diagnostic::new(
            Code::InvalidType,
            "schema_version",
            "`schema_version` must be a string",
        )
        .expected(format!("a string: {supported}"))
        .found(text_of(version));
        if matches!(version, Value::Number(_)) {
            diagnostic = diagnostic.suggest(format!(
                "write the version in quotes: `schema_version: '{}'`",
                text_of(version)
            ));
        }
        return Some(diagnostic);
    };
    if SUPPORTED.contains(&text) {
        return None;
    }
    if DEPRECATED.contains(&text) {
        return Some(
            Diagnostic::new(
                Code::VersionDeprecated,
                "schema_version",
                format!("schema version '{text}' is deprecated"),
            )
            .expected(format!("a supported version: {supported}"))
            .found(format!("{text:?}"))
            .suggest(format!(
                "migrate the schema to version {} ({MIGRATION_GUIDE})",
                SUPPORTED[0]
            )),
        );
    }
    let major = text
        .split_once('.')
        .filter(|(major, minor)| is_number(major) && is_number(minor))
        .and_then(|(major, _)| major.parse::<u64>().ok());
    let current = SUPPORTED[0];
    let guidance = match major {
        Some(1) => format!(
            "this generator reads version {current}; if the schema uses nothing newer, write \
             `schema_version: '{current}'`"
        ),
        Some(0) => format!("rewrite the schema in version {current}: older versions are not read"),
        Some(_) => format!(
            "use a generator that reads version {text}, or write the schema in version {current}"
        ),
        None => format!("write the format's version as major.minor: `schema_version: '{current}'`"),
    };
    Some(
        Diagnostic::new(
            Code::VersionUnsupported,
            "schema_version",
            format!("unknown schema version '{text}'"),
        )
        .expected(format!("a supported version: {supported}"))
        .found(format!("{text:?}"))
        .suggest(guidance),
    )
}

#[cfg(test)]
mod tests {
    use super::refusal;
    use crate::diagnostic::Code;

    #[test]
    fn reads_one_zero_and_refuses_the_rest_with_guidance() {
        for (yaml, code, help) in [
            ("'1.0'", None, ""),
            ("'0.9'", Some(Code::VersionDeprecated), "migrate"),
            ("'1.1'", Some(Code::VersionUnsupported), "reads version 1.0"),
            ("'2.0'", Some(Code::VersionUnsupported), "reads version 2.0"),
            ("'0.8'", Some(Code::VersionUnsupported), "older versions"),
            ("'1.x'", Some(Code::VersionUnsupported), "major.minor"),
            ("'1'", Some(Code::VersionUnsupported), "major.minor"),
            ("'v1.0'", Some(Code::VersionUnsupported), "major.minor"),
            (
                "1.0",
                Some(Code::InvalidType),
                "in quotes: `schema_version: '1.0'`",
            ),
            ("[1]", Some(Code::InvalidType), ""),
        ] {
            let value = serde_yaml::from_str(yaml).expect("yaml");
            let refused = refusal(&value);
            assert_eq!(refused.as_ref().map(|d| d.code), code, "{yaml}");
            let suggestion = refused.and_then(|d| d.suggestion).unwrap_or_default();
            assert!(suggestion.contains(help), "{yaml}: {suggestion}");
        }
    }
}
