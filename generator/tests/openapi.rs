//! `aqlgen import-openapi`: the fixture in tests/fixtures/openapi exercises every rule; its
//! adapter is snapshotted (refresh with `EXPECTORATE=overwrite cargo test -p aqlgen
//! --test openapi`), must validate and generate, and every warning must reach the CLI.

use std::path::Path;

use assert_cmd::Command;
use serde_json::Value;

const FIXTURE: &str = "tests/fixtures/openapi/petstore.yaml";

#[test]
fn imported_adapter_matches_snapshot_validates_and_generates() {
    let imported = aqlgen::import_openapi_file(Path::new(FIXTURE), &Default::default())
        .expect("the fixture imports");
    expectorate::assert_contents("tests/output/openapi/petstore-adapter.md", &imported.text);
    let checked = aqlgen::check_text("petstore-adapter.md", &imported.text).expect("it validates");
    let files = aqlgen::generate_crate(&checked, &aqlgen::CrateLocation::standalone("rt"))
        .expect("it generates");
    assert!(files.iter().any(|file| file.path == "src/routes.rs"));
    let again = aqlgen::import_openapi_file(Path::new(FIXTURE), &Default::default())
        .expect("imports again");
    assert_eq!(imported.text, again.text, "the bytes are deterministic");
}

#[test]
fn every_rule_that_drops_something_warns_with_the_operation() {
    let imported = aqlgen::import_openapi_file(Path::new(FIXTURE), &Default::default())
        .expect("the fixture imports");
    let expected = [
        (
            "document",
            "security scheme `oauth` (oauth2) is not supported",
        ),
        ("GET /pets", "header param `X-Request-Id`"),
        ("GET /pets", "required cookie param `session`"),
        ("POST /pets", "param `size`: non-string enum dropped"),
        ("POST /pets", "`default` on an array param"),
        (
            "PUT /pets/{pet_id}",
            "request body without JSON (image/png)",
        ),
        ("HEAD /pets/{pet_id}", "no CRUDE category"),
        (
            "POST /pets/{pet_id}/adopt",
            "oneOf/anyOf request body: its string form cannot be sent",
        ),
        (
            "POST /stores/{store_id}/forks",
            "query param `page[size]` is not a usable",
        ),
        (
            "GET /stores/{store-id}/shelves/{shelf_ref}",
            "param `labels`: accepts string or array; written as string",
        ),
        (
            "POST /stores/{store_id}/merge",
            "param `priority`: accepts string or integer; written as string",
        ),
    ];
    for (operation, reason) in expected {
        assert!(
            imported
                .warnings
                .iter()
                .any(|warning| warning.operation == operation && warning.reason.contains(reason)),
            "no warning for {operation}: {reason} in {:#?}",
            imported.warnings
        );
    }
    // A path or query value is text on the wire: an integer-or-string path param written as
    // a string loses nothing, so it is not reported.
    assert!(
        !imported
            .warnings
            .iter()
            .any(|warning| warning.reason.contains("`shelf_ref`")),
        "{:#?}",
        imported.warnings
    );
}

#[test]
fn cli_writes_the_adapter_and_reports_warnings_in_json() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let out = dir.path().join("pets.md");
    let output = Command::cargo_bin("aqlgen")
        .expect("the aqlgen binary is built")
        .args(["import-openapi", FIXTURE, "-o"])
        .arg(&out)
        .args(["--output-format", "json"])
        .output()
        .expect("aqlgen runs");
    assert!(output.status.success());
    let report: Value = serde_json::from_slice(&output.stdout).expect("JSON report");
    assert_eq!(report["operations"]["execute"], 3);
    assert_eq!(report["operations"]["delete"], 1);
    assert_eq!(report["warnings"].as_array().map(Vec::len), Some(13));
    assert_eq!(report["warnings"][0]["operation"], "document");
    aqlgen::check(&out).expect("the written file passes `aqlgen check`");

    let human = Command::cargo_bin("aqlgen")
        .expect("the aqlgen binary is built")
        .args(["import-openapi", FIXTURE, "-o"])
        .arg(&out)
        .output()
        .expect("aqlgen runs");
    let stderr = String::from_utf8_lossy(&human.stderr);
    assert!(
        stderr.contains("warning: GET /pets: header param `X-Request-Id`"),
        "{stderr}"
    );
    assert!(
        stderr.contains("note: the adapter is stamped trust level `generated`: its server runs the safe (read) operations"),
        "says what the stamp allows: {stderr}"
    );
}

#[test]
fn refuses_what_is_not_openapi_3() {
    let swagger = serde_json::json!({"swagger": "2.0", "paths": {}});
    let error =
        aqlgen::import_openapi(&swagger, &Default::default()).expect_err("Swagger 2 is refused");
    assert!(error.to_string().contains("OpenAPI 3.x"), "{error}");
}

#[test]
fn path_params_are_renamed_and_several_types_are_widened() {
    let imported = aqlgen::import_openapi_file(Path::new(FIXTURE), &Default::default())
        .expect("the fixture imports");
    let text = &imported.text;
    assert!(
        text.contains("maps_to: GET /stores/{store_id}/shelves/{shelf_ref}"),
        "the placeholder follows the renamed param:\n{text}"
    );
    let shelf = text
        .split("- name: stores_get_shelf")
        .nth(1)
        .expect("the operation is kept");
    let shelf = shelf.split("\n  - name:").next().unwrap_or(shelf);
    for expected in [
        "store_id:\n        type: string\n        required: true",
        "shelf_ref:\n        type: string\n        required: true",
        "weight:\n        type: number",
        "tag:\n        type: string",
        "per_page:\n        type: integer\n        default: 30",
    ] {
        assert!(shelf.contains(expected), "no `{expected}` in\n{shelf}");
    }
    assert!(
        !imported
            .warnings
            .iter()
            .any(|warning| ["weight", "tag", "store-id"]
                .iter()
                .any(|name| warning.reason.contains(&format!("`{name}`")))),
        "lossless mappings do not warn: {:#?}",
        imported.warnings
    );
}

#[test]
fn name_and_bearer_env_choose_what_the_document_cannot() {
    let options = aqlgen::ImportOptions {
        name: Some("pets".to_owned()),
        bearer_env: Some("PETS_TOKEN".to_owned()),
    };
    let imported =
        aqlgen::import_openapi_file(Path::new(FIXTURE), &options).expect("the fixture imports");
    assert!(
        imported.text.contains("\nname: pets\n"),
        "{}",
        imported.text
    );
    assert!(
        imported
            .text
            .contains("auth:\n  type: bearer\n  token_env: PETS_TOKEN\n"),
        "{}",
        imported.text
    );
    let checked = aqlgen::check_text("pets.md", &imported.text).expect("it validates");
    let files = aqlgen::generate_crate(&checked, &aqlgen::CrateLocation::standalone("rt"))
        .expect("it generates");
    let lib = files
        .iter()
        .find(|file| file.path == "src/lib.rs")
        .expect("a lib.rs");
    assert!(lib.contents.contains("PETS_BASE_URL"), "{}", lib.contents);
}
