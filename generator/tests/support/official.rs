//! The official adapter schema of the specification, and where it refuses a schema file; shared
//! by the generator's tests and the schema fuzz crate's.

use std::collections::BTreeSet;
use std::path::PathBuf;

use serde_json::Value;

pub fn official_schema() -> jsonschema::Validator {
    // `shared/spec-schemas` beside the repository checkout, found from the crate running
    // the test, unless AQLGEN_SPEC_SCHEMAS says where.
    let dir = std::env::var_os("AQLGEN_SPEC_SCHEMAS").map_or_else(
        || {
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .ancestors()
                .map(|dir| dir.join("shared/spec-schemas"))
                .find(|dir| dir.is_dir())
                .unwrap_or_default()
        },
        PathBuf::from,
    );
    let path = dir.join("adapter-schema.schema.json");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|error| panic!("{} (set AQLGEN_SPEC_SCHEMAS): {error}", path.display()));
    let schema: Value = serde_json::from_str(&text).expect("the schema is JSON");
    jsonschema::draft202012::options()
        .should_validate_formats(true)
        .build(&schema)
        .expect("the schema compiles")
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

/// Where the official schema refuses `document`.
pub fn official_refusals(validator: &jsonschema::Validator, document: &Value) -> BTreeSet<String> {
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
    paths
}
