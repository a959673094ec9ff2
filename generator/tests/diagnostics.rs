//! One invalid fixture per diagnostic code: the human and JSON reports are snapshots in
//! `tests/output/diagnostics/` (rewrite with `EXPECTORATE=overwrite cargo test -p aqlgen`).

use std::path::Path;

fn report(name: &str) -> (aqlgen_build::Error, String) {
    let path = format!("tests/fixtures/invalid/{name}.md");
    let text = std::fs::read_to_string(&path).expect("fixture exists");
    let error = aqlgen_build::check_text(&path, &text).expect_err("the fixture is invalid");
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
    (error, snapshot)
}

#[test]
fn every_invalid_fixture_reports_its_code_path_and_line() {
    for (name, code, path) in [
        ("missing_front_matter", "SCHEMA_MISSING_FRONT_MATTER", ""),
        ("yaml_syntax", "SCHEMA_YAML_SYNTAX", ""),
        ("missing_field", "SCHEMA_MISSING_FIELD", "description"),
        (
            "unknown_key",
            "SCHEMA_UNKNOWN_KEY",
            "operations.read[0].params.pet_id.requred",
        ),
        (
            "invalid_type",
            "SCHEMA_INVALID_TYPE",
            "operations.read[1].params.limit.type",
        ),
        ("invalid_value", "SCHEMA_INVALID_VALUE", "type"),
        ("invalid_version", "SCHEMA_INVALID_VERSION", "version"),
        (
            "invalid_name",
            "SCHEMA_INVALID_NAME",
            "operations.read[1].params.pageLimit",
        ),
        (
            "duplicate_operation",
            "SCHEMA_DUPLICATE_OPERATION",
            "operations.read[1].name",
        ),
        (
            "reserved_name",
            "SCHEMA_RESERVED_NAME",
            "operations.read[1].name",
        ),
        (
            "ident_collision",
            "SCHEMA_IDENT_COLLISION",
            "operations.read[1].name",
        ),
        (
            "invalid_maps_to",
            "SCHEMA_INVALID_MAPS_TO",
            "operations.read[1].maps_to",
        ),
        (
            "invalid_placeholder",
            "SCHEMA_INVALID_PLACEHOLDER",
            "operations.read[1].maps_to",
        ),
        (
            "invalid_placeholder",
            "SCHEMA_INVALID_PLACEHOLDER",
            "operations.delete[1].maps_to",
        ),
        (
            "invalid_default",
            "SCHEMA_INVALID_DEFAULT",
            "operations.read[1].params.kind.default",
        ),
        (
            "required_default",
            "SCHEMA_INVALID_DEFAULT",
            "operations.read[1].params.limit.default",
        ),
        (
            "invalid_enum",
            "SCHEMA_INVALID_ENUM",
            "operations.read[1].params.kind.enum[1]",
        ),
        (
            "invalid_range",
            "SCHEMA_INVALID_RANGE",
            "operations.read[1].params.limit.minimum",
        ),
        (
            "invalid_pattern",
            "SCHEMA_INVALID_PATTERN",
            "operations.update[0].params.name.pattern",
        ),
        ("invalid_url", "SCHEMA_INVALID_URL", "target.base_url"),
        ("invalid_oauth2", "SCHEMA_INVALID_URL", "auth.token_url"),
        ("invalid_oauth2", "SCHEMA_INVALID_VALUE", "auth.scopes[1]"),
        (
            "invalid_oauth2",
            "SCHEMA_MISSING_FIELD",
            "auth.client_secret_env",
        ),
        ("invalid_aws", "SCHEMA_INVALID_VALUE", "auth.region"),
        ("invalid_aws", "SCHEMA_MISSING_FIELD", "auth.service"),
        (
            "invalid_aws",
            "SCHEMA_INVALID_VALUE",
            "operations.read[0].headers.X-Amz-Target",
        ),
        (
            "invalid_aws",
            "SCHEMA_INVALID_VALUE",
            "operations.read[0].headers.Authorization",
        ),
        ("unsupported", "SCHEMA_UNSUPPORTED", "target.protocol"),
        ("refused_unbuildable", "SCHEMA_INVALID_NAME", "name"),
        ("refused_unbuildable", "SCHEMA_INVALID_VERSION", "version"),
        (
            "refused_unbuildable",
            "SCHEMA_INVALID_MAPS_TO",
            "operations.read[0].maps_to",
        ),
        (
            "refused_unbuildable",
            "SCHEMA_INVALID_MAPS_TO",
            "operations.read[1].maps_to",
        ),
        (
            "refused_unbuildable",
            "SCHEMA_INVALID_RANGE",
            "operations.read[1].params.limit.minimum",
        ),
        (
            "refused_unbuildable",
            "SCHEMA_INVALID_RANGE",
            "operations.read[1].params.limit.maximum",
        ),
        (
            "refused_unbuildable",
            "SCHEMA_INVALID_RANGE",
            "operations.read[1].params.offset.maximum",
        ),
        (
            "refused_unbuildable",
            "SCHEMA_INVALID_MAPS_TO",
            "operations.read[2].maps_to",
        ),
        (
            "refused_unservable",
            "SCHEMA_INVALID_URL",
            "target.base_url",
        ),
        (
            "refused_unservable",
            "SCHEMA_INVALID_VALUE",
            "auth.token_env",
        ),
        ("refused_unservable", "SCHEMA_INVALID_VALUE", "auth.header"),
        (
            "refused_unservable",
            "SCHEMA_CATEGORY_MISMATCH",
            "operations.read[1].maps_to",
        ),
        (
            "refused_placement",
            "SCHEMA_INVALID_VALUE",
            "operations.read[0].content_type",
        ),
        (
            "refused_placement",
            "SCHEMA_INVALID_VALUE",
            "operations.read[0].params.kind.in",
        ),
        (
            "refused_placement",
            "SCHEMA_INVALID_VALUE",
            "operations.read[0].params.key",
        ),
        (
            "refused_placement",
            "SCHEMA_INVALID_VALUE",
            "operations.read[0].params.length",
        ),
        (
            "refused_placement",
            "SCHEMA_INVALID_VALUE",
            "operations.read[0].params.id.in",
        ),
        (
            "refused_placement",
            "SCHEMA_DUPLICATE_NAME",
            "operations.read[0].params.output",
        ),
        (
            "refused_placement",
            "SCHEMA_INVALID_VALUE",
            "operations.read[0].params.tags.style",
        ),
        (
            "refused_placement",
            "SCHEMA_INVALID_VALUE",
            "operations.create[0].params.title.style",
        ),
        (
            "refused_query",
            "SCHEMA_INVALID_VALUE",
            "operations.read[0].query.text.param",
        ),
        (
            "refused_query",
            "SCHEMA_MISSING_FIELD",
            "operations.read[0].query.fields.words.type",
        ),
        (
            "refused_query",
            "SCHEMA_INVALID_ENUM",
            "operations.read[0].query.fields.created.sort.value",
        ),
        (
            "refused_query",
            "SCHEMA_INVALID_TYPE",
            "operations.read[1].response.computed.tagged.expr",
        ),
        (
            "refused_query",
            "SCHEMA_INVALID_VALUE",
            "operations.read[1].response.computed.broken.expr",
        ),
        (
            "refused_query",
            "SCHEMA_CATEGORY_MISMATCH",
            "operations.create[0].query",
        ),
        (
            "refused_query",
            "SCHEMA_INVALID_VALUE",
            "relationships.nodes.Note.name",
        ),
        (
            "refused_query",
            "SCHEMA_UNRESOLVED_REF",
            "relationships.edges[0].to",
        ),
        ("invalid_safety", "SCHEMA_INVALID_VALUE", "trust.level"),
        (
            "invalid_safety",
            "SCHEMA_INVALID_VALUE",
            "rate_limits.requests_per_hour",
        ),
        (
            "invalid_safety",
            "SCHEMA_UNKNOWN_KEY",
            "rate_limits.api_limits",
        ),
        (
            "invalid_safety",
            "SCHEMA_INVALID_VALUE",
            "operations.read[0].danger_level",
        ),
    ] {
        let (error, snapshot) = report(name);
        let aqlgen_build::Error::Schema { diagnostics, .. } = &error else {
            unreachable!()
        };
        assert!(
            diagnostics
                .iter()
                .any(|d| d.code.as_str() == code && d.path == path && d.line.is_some()),
            "{name}: no {code} at `{path}` with a line in\n{snapshot}"
        );
        assert_eq!(error.exit_code(), 2);
        expectorate::assert_contents(
            Path::new("tests/output/diagnostics").join(format!("{name}.txt")),
            &snapshot,
        );
    }
}

#[test]
fn all_problems_are_reported_together_sorted_by_line() {
    let (error, snapshot) = report("many_problems");
    let aqlgen_build::Error::Schema { diagnostics, .. } = &error else {
        unreachable!()
    };
    let codes: Vec<&str> = diagnostics.iter().map(|d| d.code.as_str()).collect();
    assert_eq!(
        codes,
        [
            "SCHEMA_INVALID_VALUE",
            "SCHEMA_INVALID_PLACEHOLDER",
            "SCHEMA_INVALID_DEFAULT",
            "SCHEMA_INVALID_TYPE",
        ],
        "{snapshot}"
    );
    let lines: Vec<usize> = diagnostics.iter().filter_map(|d| d.line).collect();
    assert!(lines.is_sorted(), "{lines:?}");
    expectorate::assert_contents("tests/output/diagnostics/many_problems.txt", &snapshot);
}

#[test]
fn suggestions_name_the_fix() {
    for (name, suggestion) in [
        ("unknown_key", "did you mean `required`?"),
        ("invalid_type", "did you mean `string`?"),
        ("invalid_name", "use `page_limit`"),
    ] {
        let (error, _) = report(name);
        let aqlgen_build::Error::Schema { diagnostics, .. } = &error else {
            unreachable!()
        };
        assert!(
            diagnostics
                .iter()
                .any(|d| d.suggestion.as_deref() == Some(suggestion)),
            "{name}: {diagnostics:?}"
        );
    }
}

/// Warnings leave a schema valid and say what a writer should know: the danger a name
/// implies when none is declared (an explicit level stands), clear text to another host, and
/// a method that contradicts the category (a delete by GET, an update by DELETE).
#[test]
fn warnings_name_inferred_danger_clear_text_and_unlikely_methods() {
    let path = "tests/fixtures/warned-adapter.md";
    let text = std::fs::read_to_string(path).expect("fixture exists");
    let checked = aqlgen_build::check_text(path, &text).expect("valid, with warnings");
    let warned: Vec<(&str, &str)> = checked
        .warnings
        .iter()
        .map(|w| (w.code.as_str(), w.path.as_str()))
        .collect();
    assert_eq!(
        warned,
        [
            ("SCHEMA_INSECURE_URL", "target.base_url"),
            ("SCHEMA_DANGER_INFERRED", "operations.execute[0].name"),
            ("SCHEMA_DANGER_INFERRED", "operations.delete[0].name"),
            ("SCHEMA_UNLIKELY_METHOD", "operations.delete[1].maps_to"),
            ("SCHEMA_UNLIKELY_METHOD", "operations.update[0].maps_to"),
        ]
    );
    let rendered: Vec<String> = checked.warnings.iter().map(|w| w.render(path)).collect();
    expectorate::assert_contents(
        "tests/output/diagnostics/warnings.txt",
        &rendered.join("\n"),
    );
}

/// A value the format names but aqlgen does not generate is never suggested.
#[test]
fn suggestions_name_only_what_is_generated() {
    let text = std::fs::read_to_string("tests/fixtures/valid.md")
        .expect("fixture exists")
        .replacen("transport: http", "transport: native_", 1);
    let error = aqlgen_build::check_text("valid.md", &text).expect_err("refused");
    let aqlgen_build::Error::Schema { diagnostics, .. } = &error else {
        unreachable!()
    };
    let transport = diagnostics
        .iter()
        .find(|d| d.path == "target.transport")
        .expect("the transport is refused");
    assert_eq!(
        transport.suggestion.as_deref(),
        Some("use `http`"),
        "{error}"
    );
}

/// `combined` auth: each credential a bearer token or an API key, checked at its own path,
/// no header or variable twice, and at least two of them.
#[test]
fn combined_credentials_are_checked_each_at_its_path() {
    let schema = |auth: &str| {
        format!(
            "---\nname: pair\ntype: adapter\nversion: 1.0.0\ndescription: Pair.\n\
             target: {{base_url: https://api.example.com, transport: http, protocol: rest, serialization: json}}\n\
             auth:\n{auth}\noperations:\n  read:\n    - {{name: list_orders, maps_to: GET /orders}}\n---\n"
        )
    };
    let paths = |auth: &str| -> Vec<(String, String)> {
        match aqlgen_build::check_text("pair-adapter.md", &schema(auth)) {
            Ok(_) => Vec::new(),
            Err(aqlgen_build::Error::Schema { diagnostics, .. }) => diagnostics
                .iter()
                .filter(|d| !d.code.is_warning())
                .map(|d| (d.code.as_str().to_owned(), d.path.clone()))
                .collect(),
            Err(other) => panic!("{other}"),
        }
    };
    let good = "  type: combined\n  credentials:\n    - {type: api_key, key_env: APP_KEY, header_name: X-App-Key}\n    - {type: bearer, token_env: APP_TOKEN}";
    assert_eq!(paths(good), Vec::<(String, String)>::new());
    let bad = "  type: combined\n  credentials:\n    - {type: api_key, key_env: APP_KEY, header_name: X-App-Key}\n    - {type: api_key, key_env: APP_KEY, header_name: x-app-key}\n    - {type: basic, username_env: U, password_env: P}\n    - {type: api_key, key_env: K}";
    let found = paths(bad);
    for (code, path) in [
        ("SCHEMA_DUPLICATE_NAME", "auth.credentials[1]"),
        ("SCHEMA_INVALID_VALUE", "auth.credentials[2].type"),
        ("SCHEMA_MISSING_FIELD", "auth.credentials[3].header_name"),
    ] {
        assert!(
            found.contains(&(code.to_owned(), path.to_owned())),
            "{code} at {path} in {found:?}"
        );
    }
    assert!(paths("  type: combined\n  credentials: []").contains(&(
        "SCHEMA_MISSING_FIELD".to_owned(),
        "auth.credentials".to_owned()
    )),);
}
