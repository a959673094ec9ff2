//! `aqlgen import-openapi`: the fixture in tests/fixtures/openapi exercises every rule; its
//! adapter is snapshotted (refresh with `EXPECTORATE=overwrite cargo test -p aqlgen
//! --test openapi`), must validate and generate, and every warning must reach the CLI.

use std::path::Path;

const FIXTURE: &str = "tests/fixtures/openapi/petstore.yaml";

#[test]
fn imported_adapter_matches_snapshot_validates_and_generates() {
    let imported = aqlgen_build::import_openapi_file(Path::new(FIXTURE), &Default::default())
        .expect("the fixture imports");
    expectorate::assert_contents("tests/output/openapi/petstore-adapter.md", &imported.text);
    let checked =
        aqlgen_build::check_text("petstore-adapter.md", &imported.text).expect("it validates");
    let files = aqlgen_build::generate_crate(&checked, &aqlgen_build::CrateLocation::default())
        .expect("it generates");
    assert!(files.iter().any(|file| file.path == "src/routes.rs"));
    let again = aqlgen_build::import_openapi_file(Path::new(FIXTURE), &Default::default())
        .expect("imports again");
    assert_eq!(imported.text, again.text, "the bytes are deterministic");
}

#[test]
fn every_rule_that_drops_something_warns_with_the_operation() {
    let imported = aqlgen_build::import_openapi_file(Path::new(FIXTURE), &Default::default())
        .expect("the fixture imports");
    let expected = [
        ("POST /pets", "param `size`: non-string enum dropped"),
        ("POST /pets", "`default` on an array param"),
        ("HEAD /pets/{pet_id}", "no CRUDE category"),
        (
            "POST /pets/{pet_id}/adopt",
            "oneOf/anyOf request body: its string form cannot be sent",
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
fn refuses_what_is_not_openapi_3() {
    let swagger = serde_json::json!({"swagger": "2.0", "paths": {}});
    let error = aqlgen_build::import_openapi(&swagger, &Default::default())
        .expect_err("Swagger 2 is refused");
    assert!(error.to_string().contains("OpenAPI 3.x"), "{error}");
}

#[test]
fn path_params_are_renamed_and_several_types_are_widened() {
    let imported = aqlgen_build::import_openapi_file(Path::new(FIXTURE), &Default::default())
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
    let options = aqlgen_build::ImportOptions {
        name: Some("pets".to_owned()),
        bearer_env: Some("PETS_TOKEN".to_owned()),
    };
    let imported = aqlgen_build::import_openapi_file(Path::new(FIXTURE), &options)
        .expect("the fixture imports");
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
    let checked = aqlgen_build::check_text("pets.md", &imported.text).expect("it validates");
    let files = aqlgen_build::generate_crate(&checked, &aqlgen_build::CrateLocation::default())
        .expect("it generates");
    let lib = files
        .iter()
        .find(|file| file.path == "src/lib.rs")
        .expect("a lib.rs");
    assert!(lib.contents.contains("PETS_BASE_URL"), "{}", lib.contents);
}

/// Shapes of real public descriptions that once made the import fail as a whole: each is now
/// repaired or its operation dropped, with a warning naming the operation.
#[test]
fn odd_documents_still_import_into_adapters_that_pass_check() {
    let document = serde_json::json!({
        "openapi": "3.0.3",
        "info": {"title": "An API whose title is far too long to be the name of an adapter crate", "version": "01.2"},
        "servers": [{"url": "https://api.example.com/v1"}],
        "paths": {
            "/items/{id}": {
                "parameters": [{"$ref": "#/paths/~1items~1%7Bid%7D/get/parameters/0"}],
                "get": {
                    "operationId": "getItem",
                    "parameters": [{"name": "id", "in": "path", "required": false, "schema": {"type": "string", "default": "x"}}]
                }
            },
            "/things": {"get": {"operationId": "introspect", "parameters": [
                {"name": "sort", "in": "query", "schema": {"type": "string", "enum": ["a", "b"], "default": "c"}},
                {"name": "huge", "in": "query", "schema": {"type": "integer", "minimum": 1e300}}
            ]}},
            "/search#byName": {"get": {"operationId": "searchByName"}},
            "/#X-Amz-Target=Service.Do": {"post": {"operationId": "do"}},
            "/#X-Amz-Target=Service.Get": {"post": {"operationId": "get", "parameters": [
                {"name": "X-Amz-Target", "in": "header", "required": true, "schema": {"type": "string", "enum": ["Service.Get", "Service.Do"]}}
            ]}},
            "/report?format=csv": {"get": {"operationId": "getReport"}},
            "/upload?mode=fast": {"post": {"operationId": "upload"}},
            "/städte/{stadt}/{undeclared}": {"get": {"operationId": "getCity", "parameters": [
                {"name": "stadt", "in": "path", "required": true, "schema": {"type": "string"}}
            ]}}
        }
    });
    let imported =
        aqlgen_build::import_openapi(&document, &Default::default()).expect("it imports");
    let checked =
        aqlgen_build::check_text("odd-adapter.md", &imported.text).expect("it passes check");
    let reasons: Vec<String> = imported
        .warnings
        .iter()
        .map(|w| format!("{}: {}", w.operation, w.reason))
        .collect();
    let text = reasons.join("\n");
    for expected in [
        "document: the title makes a name longer than 64 characters; cut to `an-api-whose-title-is-far-too-long-to-be-the-name-of-an-adapter`",
        "document: `info.version` is not semantic; written as 1.0.0",
        "GET /items/{id}: path param `id` is optional or defaulted in the document; made required",
        "GET /things: param `sort`: its default dropped",
        "GET /things: param `huge`: its bounds dropped",
        "GET /search#byName: `#byName` dropped from the path: it is never sent",
        "POST /#X-Amz-Target=Service.Do: the path fixes `X-Amz-Target=Service.Do` after its `#`, a value no param of the operation sends; operation dropped",
        "POST /#X-Amz-Target=Service.Get: `#X-Amz-Target=Service.Get` dropped from the path: the params it names send its values",
        "GET /städte/{stadt}/{undeclared}: path characters percent-encoded: `/st%C3%A4dte/{stadt}/{undeclared}`",
        "GET /städte/{stadt}/{undeclared}: path placeholder `{undeclared}` is not declared; added as a required string",
    ] {
        assert!(text.contains(expected), "missing {expected:?} in\n{text}");
    }
    assert_eq!(
        checked.name,
        "an-api-whose-title-is-far-too-long-to-be-the-name-of-an-adapter"
    );
    // A query the path fixes is sent as written, whatever the method.
    for fixed in [
        "maps_to: GET /report?format=csv",
        "maps_to: POST /upload?mode=fast",
    ] {
        assert!(
            imported.text.contains(fixed),
            "no {fixed:?} in {}",
            imported.text
        );
    }
    assert!(
        imported.text.contains("name: introspect_2"),
        "a reserved name is renamed"
    );
    assert!(
        imported.text.contains(
            "x_amz_target:\n        type: string\n        default: Service.Get\n        enum:\n        - Service.Get\n        in: header\n        wire_name: X-Amz-Target\n"
        ),
        "the value the fragment fixes is the header param's: {}",
        imported.text
    );
}

#[test]
fn a_document_with_nothing_expressible_is_refused_with_the_reason() {
    let document = serde_json::json!({
        "openapi": "3.0.0",
        "info": {"title": "Query protocol", "version": "1.0.0"},
        "paths": {"/#Action=Stop": {"post": {"operationId": "stop"}}}
    });
    let error = aqlgen_build::import_openapi(&document, &Default::default()).expect_err("refused");
    let message = error.to_string();
    assert!(
        message.contains("none of the document's operations can be expressed")
            && message.contains(
                "most of them because the path fixes … after its …, a value no param of the operation sends (1 of 1 dropped)"
            )
            && message.contains("POST /#Action=Stop"),
        "{message}"
    );
}

/// What `check` would refuse is left out before anything is written, each piece once: a
/// server URL and a security scheme the rules refuse give way to the next choice, and a param
/// whose two bounds are both unusable loses its bounds, not its operation.
#[test]
fn what_check_would_refuse_is_left_out_before_writing() {
    let document = serde_json::json!({
        "openapi": "3.1.0",
        "info": {"title": "Refusals", "version": "1.0.0"},
        "servers": [{"url": "https://api.example.com/v1?key=1"}],
        "components": {"securitySchemes": {
            "bad": {"type": "apiKey", "in": "header", "name": "X Key"},
            "good": {"type": "http", "scheme": "bearer"}
        }},
        "paths": {"/things": {"get": {"operationId": "listThings", "parameters": [
            {"name": "n", "in": "query", "schema": {"type": "integer", "minimum": -1e300, "maximum": 1e300}}
        ]}}}
    });
    let imported =
        aqlgen_build::import_openapi(&document, &Default::default()).expect("it imports");
    aqlgen_build::check_text("refusals.md", &imported.text).expect("it passes check");
    let reasons: Vec<String> = imported
        .warnings
        .iter()
        .map(|w| format!("{}: {}", w.operation, w.reason))
        .collect();
    assert_eq!(
        reasons,
        [
            "document: no server URL can be the base URL (`servers[0]`: the base URL has a query or a fragment); base_url is http://localhost",
            "document: security scheme `bad` (apiKey): this is not an HTTP header name; skipped",
            "GET /things: param `n`: its bounds dropped (`minimum` does not suit the parameter type `integer`)",
        ]
    );
    for expected in [
        "base_url: http://localhost\n",
        "auth:\n  type: bearer\n  token_env: REFUSALS_TOKEN\n",
        "name: list_things",
    ] {
        assert!(
            imported.text.contains(expected),
            "no {expected:?} in {}",
            imported.text
        );
    }
}

/// Options the document cannot overrule are the caller's to get right: one `check` refuses
/// stops the import with the rule's reason.
#[test]
fn an_option_check_refuses_stops_the_import() {
    let options = aqlgen_build::ImportOptions {
        name: Some("Pet Store".to_owned()),
        bearer_env: None,
    };
    let error = aqlgen_build::import_openapi_file(Path::new(FIXTURE), &options)
        .expect_err("the name is refused");
    assert_eq!(
        error.to_string(),
        "the imported adapter would not pass check: the adapter name is not lowercase kebab-case at name"
    );
}

/// Real documents write fields in shapes the specification does not allow; each such field
/// reads as absent and costs only itself.
#[test]
fn fields_of_odd_shapes_cost_only_themselves() {
    let document = serde_json::json!({
        "openapi": "3.0.0",
        "info": {"title": ["not", "text"], "version": 2},
        "servers": "https://api.example.com",
        "components": {"securitySchemes": [], "schemas": {"Item": "junk", "Kind": {"type": "string", "enum": ["a", "b"]}}},
        "paths": {
            "/items": {
                "parameters": "none",
                "get": {
                    "operationId": "listItems",
                    "summary": 7,
                    "parameters": [
                        "junk",
                        {"name": "limit", "in": "query", "schema": {"type": "integer", "maximum": "100"}},
                        {"name": "q", "in": "query", "required": "yes", "schema": {"$ref": "#/components/schemas/Item"}}
                    ],
                    "responses": {"200": {"content": {"application/json": {"schema": {"type": "array", "items": 3}}}}}
                },
                "post": {"operationId": "makeItem", "requestBody": {"content": {"application/json": {"schema": {
                    "properties": {
                        "name": {"type": "string"},
                        "size": null,
                        "kind": {"allOf": [{"$ref": "#/components/schemas/Kind"}, {"description": "The kind."}]}
                    },
                    "required": "name"
                }}}}}
            },
            "/x": "not a path item"
        }
    });
    let imported =
        aqlgen_build::import_openapi(&document, &Default::default()).expect("it imports");
    aqlgen_build::check_text("odd-shapes.md", &imported.text).expect("it passes check");
    let text = &imported.text;
    for expected in [
        "name: api\n",
        "base_url: http://localhost\n",
        "name: list_items\n",
        "limit:\n        type: integer\n",
        // A query value is text whatever its schema says.
        "q:\n        type: string\n",
        "name: make_item\n",
        "name:\n        type: string\n",
        // A property that is its `allOf`'s typed part, described by another.
        "kind:\n        type: string\n        description: The kind.\n        enum:\n        - a\n        - b\n",
    ] {
        assert!(text.contains(expected), "no {expected:?} in {text}");
    }
    let reasons: Vec<&str> = imported
        .warnings
        .iter()
        .map(|w| w.reason.as_str())
        .collect();
    for expected in [
        " param `` cannot be expressed; dropped",
        "body param `size`: its schema has no type; dropped",
    ] {
        assert!(
            reasons.contains(&expected),
            "no {expected:?} in {reasons:#?}"
        );
    }
}

const WIRE: &str = "tests/fixtures/openapi/wire.yaml";

/// Every param is kept under a snake_case name, with the upstream's name and place beside it
/// when they differ: query names that are no identifiers, headers, cookies, form and
/// multipart bodies, styles, and queries the path fixes.
#[test]
fn every_param_goes_where_the_document_says_under_its_own_name() {
    let imported = aqlgen_build::import_openapi_file(Path::new(WIRE), &Default::default())
        .expect("the fixture imports");
    expectorate::assert_contents("tests/output/openapi/wire-adapter.md", &imported.text);
    let checked =
        aqlgen_build::check_text("wire-adapter.md", &imported.text).expect("it validates");
    aqlgen_build::generate_crate(&checked, &aqlgen_build::CrateLocation::default())
        .expect("it generates");
    let reasons: Vec<String> = imported
        .warnings
        .iter()
        .map(|w| format!("{}: {}", w.operation, w.reason))
        .collect();
    let text = reasons.join("\n");
    for expected in [
        // The adapter sends an API key in `X-Api-Key`: the user token the lock requires in
        // `Authorization` cannot be sent, so the operation is not kept.
        "POST /vaults/{vault-name}/lock: required header param `Authorization` cannot be sent: only the adapter's auth can send `Authorization`; operation dropped",
        "GET /vaults/{vault-name}/secrets: header param `X-Api-Key` is the credential the adapter's auth sends; not a param",
        "POST /vaults/{vault-name}/secrets: header param `Content-Type`: HTTP sends it from the request itself; not a param",
        "GET /StopPoint/Arrivals?station={station}&format=json: query param `format` is set by the path's own query; dropped",
    ] {
        assert!(text.contains(expected), "missing {expected:?} in\n{text}");
    }
    assert!(!text.contains("internal error"), "{text}");
    assert!(
        !text.contains("DELETE /vaults/{vault-name}/secrets"),
        "a DELETE keeps its body: {text}"
    );
    assert!(
        !text.contains("GET /v1/customers"),
        "a body of no properties loses nothing: {text}"
    );
    let completeness = imported.completeness;
    assert_eq!(
        (
            completeness.kept,
            completeness.complete,
            completeness.losing_required
        ),
        (13, 13, 0),
        "the upload keeps its list of files and the raw PUT its bytes; nothing is lost"
    );
    assert!(
        imported
            .text
            .contains("      attachments:\n        type: array\n        format: binary\n"),
        "a list of files is one param of files"
    );
}

/// An operation that requires credentials the adapter cannot send is not kept, unless the
/// operation asks for none or `--bearer-env` gives the adapter a token.
#[test]
fn an_operation_needing_credentials_the_adapter_lacks_is_dropped() {
    let document = serde_json::json!({
        "openapi": "3.0.3",
        "info": {"title": "Locked", "version": "1.0.0"},
        "servers": [{"url": "https://api.example.com"}],
        "components": {"securitySchemes": {"digest": {"type": "http", "scheme": "digest"}}},
        "security": [{"digest": []}],
        "paths": {
            "/private": {"get": {"operationId": "getPrivate"}},
            "/public": {"get": {"operationId": "getPublic", "security": []}},
            "/either": {"get": {"operationId": "getEither", "security": [{"digest": []}, {}]}}
        }
    });
    let imported =
        aqlgen_build::import_openapi(&document, &Default::default()).expect("it imports");
    assert!(imported.text.contains("name: get_public"));
    assert!(imported.text.contains("name: get_either"));
    assert!(!imported.text.contains("name: get_private"));
    assert!(
        imported
            .warnings
            .iter()
            .any(|w| w.operation == "GET /private"
                && w.reason
                    == "it requires credentials (`digest`) and the adapter sends none: no security \
                    scheme of the document is supported (`--bearer-env` sends a bearer token); \
                    operation dropped"),
        "{:#?}",
        imported.warnings
    );
    let options = aqlgen_build::ImportOptions {
        name: None,
        bearer_env: Some("LOCKED_TOKEN".to_owned()),
    };
    let imported = aqlgen_build::import_openapi(&document, &options).expect("it imports");
    assert_eq!(imported.completeness.kept, 3);
    assert_eq!(imported.completeness.complete, 3);
}
