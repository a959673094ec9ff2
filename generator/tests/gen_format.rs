//! The generator document's format (GEN §2): its own example passes `check` and generates a
//! crate, in YAML and in JSON with one fingerprint, and each invalid fixture of
//! `tests/fixtures/gen-format/invalid/` reports its code at a path of the document with a line
//! (snapshots in `tests/output/gen-format/diagnostics/`; rewrite with
//! `EXPECTORATE=overwrite cargo test -p aqlgen-build`).

use std::path::Path;

const FIXTURES: &str = "tests/fixtures/gen-format";

fn check(name: &str) -> Result<aqlgen_build::Checked, aqlgen_build::Error> {
    let path = format!("{FIXTURES}/{name}");
    let text = std::fs::read_to_string(&path).expect("fixture exists");
    aqlgen_build::check_text(&path, &text)
}

#[test]
fn the_documents_example_passes_check_and_generates_a_crate_that_parses() {
    let checked = check("github_api.yaml").unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(checked.name, "github-api");
    assert!(checked.warnings.is_empty(), "{:?}", checked.warnings);
    // The format has no `trust`, so the note does not tell its author to declare one.
    assert!(
        checked.notes()[0].contains("the generator format cannot declare one"),
        "{:?}",
        checked.notes()
    );
    let files =
        aqlgen_build::generate_crate(&checked, &aqlgen_build::CrateLocation::workspace_member())
            .expect("generates");
    for file in &files {
        if file.path.ends_with(".rs") {
            syn::parse_file(&file.contents)
                .unwrap_or_else(|error| panic!("{} does not parse: {error}", file.path));
        }
        expectorate::assert_contents(
            Path::new("tests/output/gen-format/github_api").join(&file.path),
            &file.contents,
        );
    }
    let provenance = files
        .iter()
        .find(|file| file.path == "MCPAQL-PROVENANCE.json")
        .expect("a provenance file");
    let provenance: serde_json::Value =
        serde_json::from_str(&provenance.contents).expect("provenance is JSON");
    assert_eq!(provenance["schema"]["filename"], "github_api.yaml");
    // GEN §5.1: the schema version of the provenance is `adapter.version`.
    assert_eq!(provenance["schema"]["version"], "1.0.0");
    assert_eq!(provenance["schema"]["fingerprint"], checked.fingerprint);
    let include = aqlgen_build::generate_include(&checked).expect("generates");
    assert_eq!(include.path, "github_api_adapter.rs");
    syn::parse_file(&include.contents).expect("the include file parses");
}

#[test]
fn yaml_and_json_of_one_document_are_one_schema() {
    let yaml = check("github_api.yaml").unwrap_or_else(|error| panic!("{error}"));
    let json = check("github_api.json").unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(yaml.fingerprint, json.fingerprint);
    assert!(yaml.fingerprint.starts_with("sha256:"));
    let location = aqlgen_build::CrateLocation::default();
    let yaml_files = aqlgen_build::generate_crate(&yaml, &location).expect("generates");
    let json_files = aqlgen_build::generate_crate(&json, &location).expect("generates");
    // The same crate but for the schema path each file names.
    for (from_yaml, from_json) in yaml_files.iter().zip(&json_files) {
        assert_eq!(from_yaml.path, from_json.path);
        assert_eq!(
            from_yaml
                .contents
                .replace("github_api.yaml", "github_api.json"),
            from_json.contents,
            "{}",
            from_yaml.path
        );
    }
}

/// The diagnostics of an invalid fixture, and their snapshot: the human report, then JSON.
fn report(name: &str) -> (Vec<aqlgen_build::Diagnostic>, String) {
    let error = match check(&format!("invalid/{name}")) {
        Ok(_) => panic!("{name}: the fixture is valid"),
        Err(error) => error,
    };
    assert_eq!(error.exit_code(), 2, "{name}: {error}");
    let aqlgen_build::Error::Schema { diagnostics, .. } = &error else {
        panic!("{name}: expected a schema error, got {error}");
    };
    let json: Vec<serde_json::Value> = diagnostics
        .iter()
        .map(aqlgen_build::Diagnostic::to_json)
        .collect();
    let snapshot = format!(
        "{error}\n\n{}\n",
        serde_json::to_string_pretty(&json).expect("JSON serializes")
    );
    (diagnostics.clone(), snapshot)
}

#[test]
fn every_invalid_fixture_reports_its_code_at_a_document_path_and_line() {
    let mut missing = Vec::new();
    for (name, code, path, line) in [
        (
            "version_unsupported.yaml",
            "SCHEMA_VERSION_UNSUPPORTED",
            "schema_version",
            1,
        ),
        (
            "version_deprecated.yaml",
            "SCHEMA_VERSION_DEPRECATED",
            "schema_version",
            1,
        ),
        (
            "version_unquoted.yaml",
            "SCHEMA_INVALID_TYPE",
            "schema_version",
            1,
        ),
        ("yaml_syntax.yaml", "SCHEMA_YAML_SYNTAX", "", 5),
        ("json_syntax.json", "SCHEMA_YAML_SYNTAX", "", 6),
        (
            "repeated_key.json",
            "SCHEMA_YAML_SYNTAX",
            "endpoints.read[0].name",
            18,
        ),
        (
            "missing_field.yaml",
            "SCHEMA_MISSING_FIELD",
            "adapter.display_name",
            2,
        ),
        (
            "missing_field.yaml",
            "SCHEMA_MISSING_FIELD",
            "endpoints.read[0].returns",
            11,
        ),
        (
            "missing_field.yaml",
            "SCHEMA_MISSING_FIELD",
            "endpoints.read[0].params[0].required",
            14,
        ),
        (
            "unknown_key.yaml",
            "SCHEMA_UNKNOWN_KEY",
            "endpoints.read[0].descripton",
            13,
        ),
        (
            "unknown_key.yaml",
            "SCHEMA_MISSING_FIELD",
            "endpoints.read[0].description",
            12,
        ),
        (
            "unknown_key.yaml",
            "SCHEMA_INVALID_TYPE",
            "endpoints.read[0].params[0].type",
            16,
        ),
        (
            "unknown_key.yaml",
            "SCHEMA_UNKNOWN_KEY",
            "endpoints.read[0].returns.reference",
            18,
        ),
        (
            "invalid_type.yaml",
            "SCHEMA_INVALID_TYPE",
            "adapter.version",
            5,
        ),
        (
            "invalid_type.yaml",
            "SCHEMA_INVALID_TYPE",
            "types[0].fields[0].type",
            14,
        ),
        (
            "invalid_type.yaml",
            "SCHEMA_INVALID_TYPE",
            "endpoints.read[0].params[0].required",
            23,
        ),
        (
            "invalid_type.yaml",
            "SCHEMA_INVALID_TYPE",
            "endpoints.read[0].returns",
            24,
        ),
        (
            "invalid_type.yaml",
            "SCHEMA_INVALID_TYPE",
            "endpoints.read[1].params",
            30,
        ),
        (
            "invalid_type.yaml",
            "SCHEMA_INVALID_TYPE",
            "endpoints.read[1].returns.array",
            32,
        ),
        (
            "invalid_type.yaml",
            "SCHEMA_INVALID_TYPE",
            "endpoints.read[1].http",
            33,
        ),
        (
            "invalid_value.yaml",
            "SCHEMA_INVALID_VALUE",
            "auth.type",
            11,
        ),
        (
            "invalid_value.yaml",
            "SCHEMA_INVALID_VALUE",
            "endpoints.delete[0].danger_level",
            21,
        ),
        (
            "invalid_value.yaml",
            "SCHEMA_INVALID_VALUE",
            "endpoints.delete[0].http.method",
            23,
        ),
        (
            "unresolved_ref.yaml",
            "SCHEMA_UNRESOLVED_REF",
            "types[0].fields[0].type.ref",
            14,
        ),
        (
            "unresolved_ref.yaml",
            "SCHEMA_UNRESOLVED_REF",
            "endpoints.read[0].returns.ref",
            28,
        ),
        (
            "duplicate_name.yaml",
            "SCHEMA_DUPLICATE_NAME",
            "types[1].name",
            16,
        ),
        (
            "duplicate_name.yaml",
            "SCHEMA_DUPLICATE_NAME",
            "endpoints.read[0].params[1].name",
            26,
        ),
        (
            "duplicate_name.yaml",
            "SCHEMA_DUPLICATE_NAME",
            "endpoints.read[1].name",
            33,
        ),
        (
            "invalid_name.yaml",
            "SCHEMA_INVALID_NAME",
            "adapter.name",
            3,
        ),
        (
            "invalid_name.yaml",
            "SCHEMA_INVALID_NAME",
            "types[0].name",
            11,
        ),
        (
            "invalid_name.yaml",
            "SCHEMA_INVALID_NAME",
            "types[0].fields[0].name",
            13,
        ),
        (
            "invalid_name.yaml",
            "SCHEMA_INVALID_NAME",
            "endpoints.read[0].name",
            18,
        ),
        (
            "invalid_name.yaml",
            "SCHEMA_INVALID_NAME",
            "endpoints.read[0].params[2].name",
            27,
        ),
        (
            "invalid_name.json",
            "SCHEMA_INVALID_NAME",
            "endpoints.read[0].params[2].name",
            42,
        ),
        (
            "missing_http.yaml",
            "SCHEMA_UNSUPPORTED",
            "endpoints.read[0].http",
            12,
        ),
        (
            "missing_http.yaml",
            "SCHEMA_UNSUPPORTED",
            "endpoints.execute[0].http",
            20,
        ),
        (
            "unsupported_auth.yaml",
            "SCHEMA_UNSUPPORTED",
            "auth.config.prefix",
            13,
        ),
        (
            "unsupported_auth.yaml",
            "SCHEMA_UNSUPPORTED",
            "auth.config.in",
            14,
        ),
        (
            "unsupported_auth.yaml",
            "SCHEMA_MISSING_FIELD",
            "auth.config.header_name",
            12,
        ),
        ("oauth2.yaml", "SCHEMA_UNSUPPORTED", "auth.type", 11),
        (
            "invalid_http.yaml",
            "SCHEMA_INVALID_MAPS_TO",
            "endpoints.read[0].http.path",
            21,
        ),
        (
            "invalid_http.yaml",
            "SCHEMA_INVALID_PLACEHOLDER",
            "endpoints.read[1].http.path",
            31,
        ),
        (
            "invalid_default.yaml",
            "SCHEMA_INVALID_DEFAULT",
            "endpoints.read[0].params[0].default",
            18,
        ),
        (
            "no_operations.json",
            "SCHEMA_INVALID_VALUE",
            "endpoints",
            13,
        ),
        (
            "shared_checks.yaml",
            "SCHEMA_INVALID_VERSION",
            "adapter.version",
            6,
        ),
        (
            "shared_checks.yaml",
            "SCHEMA_INVALID_URL",
            "adapter.target_api.base_url",
            10,
        ),
        (
            "shared_checks.yaml",
            "SCHEMA_UNSUPPORTED",
            "endpoints.read[0].params[1].default",
            22,
        ),
        (
            "shared_checks.yaml",
            "SCHEMA_IDENT_COLLISION",
            "endpoints.read[1].name",
            27,
        ),
        (
            "shared_checks.yaml",
            "SCHEMA_RESERVED_NAME",
            "endpoints.read[1].returns",
            30,
        ),
        (
            "shared_checks.yaml",
            "SCHEMA_RESERVED_NAME",
            "endpoints.update[0].name",
            35,
        ),
        (
            "shared_checks.yaml",
            "SCHEMA_RESERVED_NAME",
            "endpoints.update[0].params[0].name",
            38,
        ),
        (
            "shared_checks.yaml",
            "SCHEMA_INVALID_DEFAULT",
            "endpoints.update[0].params[1].default",
            44,
        ),
    ] {
        let (diagnostics, snapshot) = report(name);
        if !diagnostics
            .iter()
            .any(|d| d.code.as_str() == code && d.path == path && d.line == Some(line))
        {
            missing.push(format!("{name}: no {code} at `{path}`, line {line}"));
        }
        let lines: Vec<usize> = diagnostics.iter().filter_map(|d| d.line).collect();
        assert_eq!(
            lines.len(),
            diagnostics.len(),
            "{name}: a diagnostic without a line"
        );
        assert!(lines.is_sorted(), "{name}: {lines:?}");
        // No path of the converted front-matter model, as the path or quoted in the text.
        let quoted = ["create", "read", "update", "delete", "execute"]
            .iter()
            .any(|family| snapshot.contains(&format!("operations.{family}[")));
        let converted = diagnostics.iter().any(|diagnostic| {
            ["operations", "target", "name", "version", "description"]
                .iter()
                .any(|key| diagnostic.path.split(['.', '[']).next() == Some(key))
        });
        assert!(
            !quoted && !converted,
            "{name}: a path of the converted model in\n{snapshot}"
        );
        let snapshot_name = name.replace('.', "_");
        expectorate::assert_contents(
            Path::new("tests/output/gen-format/diagnostics").join(format!("{snapshot_name}.txt")),
            &snapshot,
        );
    }
    assert!(missing.is_empty(), "{}", missing.join("\n"));
}

#[test]
fn suggestions_name_the_fix() {
    for (name, suggestion) in [
        ("invalid_name.yaml", "use `user_name`"),
        (
            "invalid_type.yaml",
            "use `required: true` instead of `required: \"true\"`",
        ),
        ("invalid_type.yaml", "write it in quotes: `version: '1.0'`"),
        ("invalid_type.yaml", "did you mean `string`?"),
        (
            "invalid_type.yaml",
            "write `{ref: Item}` to use the type `Item` of `types`",
        ),
        ("unresolved_ref.yaml", "did you mean `Repository`?"),
        (
            "unresolved_ref.yaml",
            "define `User` under `types`: `- {name: User, fields: [...]}`",
        ),
        (
            "missing_http.yaml",
            "add `http: {method: GET, path: /...}` to the operation",
        ),
        (
            "missing_http.yaml",
            "add `http: {method: POST, path: /...}` to the operation",
        ),
        ("unknown_key.yaml", "did you mean `description`?"),
        ("unknown_key.yaml", "did you mean `ref`?"),
        (
            "invalid_http.yaml",
            "write `required: true` on the param `id`",
        ),
        (
            "invalid_http.yaml",
            "add `{name: part, type: string, required: true}` to `params`",
        ),
        (
            "invalid_default.yaml",
            "write `required: false`: a parameter with a default is optional",
        ),
        (
            "version_unquoted.yaml",
            "write the version in quotes: `schema_version: '1.0'`",
        ),
    ] {
        let (diagnostics, snapshot) = report(name);
        assert!(
            diagnostics
                .iter()
                .any(|d| d.suggestion.as_deref() == Some(suggestion)),
            "{name}: no `{suggestion}` in\n{snapshot}"
        );
    }
}

#[test]
fn markdown_without_front_matter_is_still_refused_as_before() {
    let text = "# Pets\n\nNo front matter, and no `schema_version:` key either.\n";
    let Err(aqlgen_build::Error::Schema { diagnostics, .. }) =
        aqlgen_build::check_text("pets.md", text)
    else {
        panic!("refused");
    };
    assert_eq!(diagnostics[0].code.as_str(), "SCHEMA_MISSING_FRONT_MATTER");
}

/// Every way of breaking one line of the valid YAML document (dropping it, or giving its key
/// another kind of value), and every value of the JSON one replaced by another kind, is
/// refused with located diagnostics or accepted, never a panic; whatever is accepted
/// generates Rust that parses.
#[test]
fn any_one_line_change_is_checked_without_a_panic() {
    let text = std::fs::read_to_string(format!("{FIXTURES}/github_api.yaml")).expect("fixture");
    let lines: Vec<&str> = text.lines().collect();
    let mut variants = Vec::new();
    for (index, line) in lines.iter().enumerate() {
        let mut dropped = lines.clone();
        dropped.remove(index);
        variants.push(dropped.join("\n"));
        let Some((key, _)) = line.split_once(": ") else {
            continue;
        };
        for value in [
            "null", "1", "1.5", "[]", "{}", "'x'", "true", "[{a: 1}]", "{ref: X}",
        ] {
            let mut changed = lines.clone();
            let replaced = format!("{key}: {value}");
            changed[index] = &replaced;
            variants.push(changed.join("\n"));
        }
    }
    // The same in JSON: each value of the document replaced by another kind of value.
    let json: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(format!("{FIXTURES}/github_api.json")).expect("fixture"),
    )
    .expect("JSON");
    let mut pointers = Vec::new();
    collect_pointers(&json, String::new(), &mut pointers);
    for pointer in &pointers {
        for value in [
            serde_json::json!(null),
            serde_json::json!(7),
            serde_json::json!([]),
            serde_json::json!({}),
        ] {
            let mut changed = json.clone();
            if let Some(slot) = changed.pointer_mut(pointer) {
                *slot = value;
            }
            variants.push(serde_json::to_string_pretty(&changed).expect("JSON"));
        }
    }
    let mut accepted = 0;
    for variant in &variants {
        match aqlgen_build::check_text("variant", variant) {
            Ok(checked) => {
                accepted += 1;
                let files = aqlgen_build::generate_crate(&checked, &Default::default())
                    .expect("an accepted schema generates");
                for file in files.iter().filter(|file| file.path.ends_with(".rs")) {
                    syn::parse_file(&file.contents).expect("generated Rust parses");
                }
            }
            Err(aqlgen_build::Error::Schema { diagnostics, .. }) => {
                assert!(!diagnostics.is_empty(), "{variant}");
                assert!(diagnostics.iter().all(|d| d.line.is_some()), "{variant}");
                // The format's own checks catch what the serde model would refuse.
                assert!(
                    diagnostics
                        .iter()
                        .all(|d| d.message != "a value has the wrong shape"),
                    "{diagnostics:?}\n{variant}"
                );
            }
            Err(other) => panic!("{other}\n{variant}"),
        }
    }
    assert!(accepted > 0 && accepted < variants.len(), "{accepted}");
}

/// The JSON pointer of every value under `value`, `value` itself excepted.
fn collect_pointers(value: &serde_json::Value, at: String, out: &mut Vec<String>) {
    let children: Vec<(String, &serde_json::Value)> = match value {
        serde_json::Value::Object(members) => members
            .iter()
            .map(|(key, member)| (format!("{at}/{key}"), member))
            .collect(),
        serde_json::Value::Array(items) => items
            .iter()
            .enumerate()
            .map(|(index, item)| (format!("{at}/{index}"), item))
            .collect(),
        _ => Vec::new(),
    };
    for (pointer, child) in children {
        out.push(pointer.clone());
        collect_pointers(child, pointer, out);
    }
}
