//! The official JSON Schemas of the MCP-AQL specification, for the tests that validate what
//! aqlgen emits against them.
//!
//! The schemas are not part of this repository. They are looked for, in order:
//!
//! 1. in `AQLGEN_SPEC_SCHEMAS`, when it is set (a missing file there is an error);
//! 2. in `shared/spec-schemas` beside the checkout;
//! 3. in `target/spec-schemas`, the pinned copy `scripts/setup` fetches where the network
//!    allows it (the public spec repository at a fixed commit, checked by digest).
//!
//! Where none is found, each check against them is skipped: the first skip in a test binary
//! prints one line saying so and how to run them, every skip is counted in the file
//! `AQLGEN_SPEC_SCHEMA_SKIPS` names (`scripts/test` sums it), and the test's other assertions
//! still run. `AQLGEN_SPEC_SCHEMAS_REQUIRED=1` (CI sets it) turns a skip into a failure.

use std::collections::BTreeSet;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::{Once, OnceLock};

pub use jsonschema::Validator;
use serde_json::Value;

/// One of the official schemas the tests validate against.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Schema {
    /// `adapter-schema.schema.json`: the front matter of an adapter schema file.
    Adapter,
    /// `operation-result.schema.json`: every answer of an operation.
    OperationResult,
    /// `introspection-response.schema.json`: every answer of `introspect`.
    IntrospectionResponse,
    /// `batch-operation.schema.json`: the answer of a batch.
    BatchOperation,
    /// `aggregation-query.schema.json`: an aggregation's request and answer (informative).
    AggregationQuery,
    /// `relationship-query.schema.json`: a relationship query's request and answer
    /// (informative).
    RelationshipQuery,
}

impl Schema {
    /// The schema's file name in the specification's `schemas/` directory.
    pub fn file_name(self) -> &'static str {
        match self {
            Schema::Adapter => "adapter-schema.schema.json",
            Schema::OperationResult => "operation-result.schema.json",
            Schema::IntrospectionResponse => "introspection-response.schema.json",
            Schema::BatchOperation => "batch-operation.schema.json",
            Schema::AggregationQuery => "aggregation-query.schema.json",
            Schema::RelationshipQuery => "relationship-query.schema.json",
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// The checkout this crate belongs to.
fn checkout() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

/// Where the schemas are, if anywhere.
pub fn dir() -> Option<&'static Path> {
    static DIR: OnceLock<Option<PathBuf>> = OnceLock::new();
    DIR.get_or_init(|| {
        if let Some(dir) = std::env::var_os("AQLGEN_SPEC_SCHEMAS") {
            return Some(PathBuf::from(dir));
        }
        [
            checkout().join("../shared/spec-schemas"),
            checkout().join("target/spec-schemas"),
        ]
        .into_iter()
        .find(|dir| dir.join(Schema::Adapter.file_name()).is_file())
    })
    .as_deref()
}

/// The schema's JSON, or `None` (and the skip reported) where the schemas are not found.
fn document(schema: Schema) -> Option<Value> {
    let Some(dir) = dir() else {
        skipped(schema);
        return None;
    };
    let path = dir.join(schema.file_name());
    let text = std::fs::read_to_string(&path).unwrap_or_else(|error| {
        panic!(
            "cannot read the official schema {} (from AQLGEN_SPEC_SCHEMAS or beside the checkout): {error}",
            path.display()
        )
    });
    Some(serde_json::from_str(&text).unwrap_or_else(|error| {
        panic!(
            "the official schema {} is not JSON: {error}",
            path.display()
        )
    }))
}

/// Reports a check that could not run: a line on the first skip in this test binary, and a
/// line per skip in the count file.
fn skipped(schema: Schema) {
    if std::env::var_os("AQLGEN_SPEC_SCHEMAS_REQUIRED").is_some_and(|value| value == "1") {
        panic!(
            "AQLGEN_SPEC_SCHEMAS_REQUIRED=1 but the official schemas are not found: set \
             AQLGEN_SPEC_SCHEMAS to their directory"
        );
    }
    let binary = std::env::args()
        .next()
        .map(|path| {
            let name = Path::new(&path)
                .file_name()
                .map(|name| name.to_string_lossy().into_owned());
            name.unwrap_or(path)
        })
        .unwrap_or_default();
    static NOTICE: Once = Once::new();
    NOTICE.call_once(|| {
        // Straight to the process's stderr, past the test harness's capture: the line is
        // about the whole binary, not one test.
        let _ = writeln!(
            std::io::stderr(),
            "note: {binary}: checks against the official MCP-AQL schemas are skipped (the \
             schemas are not beside this checkout); set AQLGEN_SPEC_SCHEMAS to their directory, \
             or run scripts/setup where github.com is reachable, to run them"
        );
    });
    if let Some(log) = std::env::var_os("AQLGEN_SPEC_SCHEMA_SKIPS") {
        let line = format!("{binary} {}\n", schema.file_name());
        // Appends of one short line each: concurrent tests do not interleave them.
        if let Ok(mut file) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(log)
        {
            let _ = file.write_all(line.as_bytes());
        }
    }
}

/// The validator of `schema`, compiled once per test binary; `None` where the schemas are not
/// found (the skip is reported).
pub fn validator(schema: Schema) -> Option<&'static Validator> {
    static VALIDATORS: [OnceLock<Validator>; 6] = [
        OnceLock::new(),
        OnceLock::new(),
        OnceLock::new(),
        OnceLock::new(),
        OnceLock::new(),
        OnceLock::new(),
    ];
    let slot = &VALIDATORS[schema.index()];
    if let Some(validator) = slot.get() {
        return Some(validator);
    }
    let document = document(schema)?;
    // The adapter schema's `format`s (URIs, e-mail addresses) are part of what it refuses.
    let validator = jsonschema::draft202012::options()
        .should_validate_formats(schema == Schema::Adapter)
        .build(&document)
        .unwrap_or_else(|error| panic!("{} compiles: {error}", schema.file_name()));
    Some(slot.get_or_init(|| validator))
}

/// A validator for one `$defs` entry of `schema`; `None` where the schemas are not found.
pub fn definition(schema: Schema, name: &str) -> Option<Validator> {
    let mut document = document(schema)?;
    let object = document.as_object_mut().expect("a schema is an object");
    for key in [
        "type",
        "properties",
        "required",
        "oneOf",
        "anyOf",
        "allOf",
        "additionalProperties",
    ] {
        object.remove(key);
    }
    object.insert("$ref".into(), format!("#/$defs/{name}").into());
    Some(
        jsonschema::draft202012::new(&document)
            .unwrap_or_else(|error| panic!("{name} of {} compiles: {error}", schema.file_name())),
    )
}

/// Where `value` breaks `schema`, one line per error; `None` where the check was skipped.
pub fn errors(schema: Schema, value: &Value) -> Option<Vec<String>> {
    let validator = validator(schema)?;
    Some(
        validator
            .iter_errors(value)
            .map(|error| format!("{error} in {}", error.instance_path))
            .collect(),
    )
}

/// Fails unless `value`, described by `what`, is valid against `schema` (or the check is
/// skipped).
pub fn assert_valid(schema: Schema, value: &Value, what: &str) {
    if let Some(errors) = errors(schema, value) {
        assert!(
            errors.is_empty(),
            "{what} breaks {}: {errors:?}\n{value:#}",
            schema.file_name()
        );
    }
}

/// The front matter of a schema file, as JSON.
pub fn front_matter(text: &str) -> Value {
    let yaml: String = text
        .lines()
        .skip(1)
        .take_while(|line| line.trim_end() != "---")
        .map(|line| format!("{line}\n"))
        .collect();
    serde_yaml::from_str(&yaml).expect("front matter is YAML")
}

/// A JSON pointer in aqlgen's path syntax: `/operations/read/0/name` -> `operations.read[0].name`.
fn path_of(pointer: &str) -> String {
    let mut path = String::new();
    for segment in pointer.split('/').skip(1) {
        if !segment.is_empty() && segment.bytes().all(|b| b.is_ascii_digit()) {
            path.push_str(&format!("[{segment}]"));
        } else {
            if !path.is_empty() {
                path.push('.');
            }
            path.push_str(&segment.replace("~1", "/").replace("~0", "~"));
        }
    }
    path
}

/// Where the official adapter schema refuses the front matter `document`, in aqlgen's path
/// syntax; `None` where the check was skipped.
pub fn adapter_refusals(document: &Value) -> Option<BTreeSet<String>> {
    let validator = validator(Schema::Adapter)?;
    let mut paths = BTreeSet::new();
    for error in validator.iter_errors(document) {
        let at = path_of(&error.instance_path.to_string());
        match &error.kind {
            jsonschema::error::ValidationErrorKind::AdditionalProperties { unexpected } => {
                for key in unexpected {
                    paths.insert(if at.is_empty() {
                        key.clone()
                    } else {
                        format!("{at}.{key}")
                    });
                }
            }
            _ => {
                paths.insert(at);
            }
        }
    }
    Some(paths)
}
