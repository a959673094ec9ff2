//! `aqlgen import-openapi` reads what a document means beyond its shapes: which server to
//! call, what an operation does, which credential it needs. Each import here must also pass
//! `check`.

use serde_json::{Value, json};

/// Imports `document`, checks the result, and returns its text and its warnings as
/// `operation: reason` lines.
fn import(document: &Value) -> (String, Vec<String>) {
    let imported = aqlgen_build::import_openapi(document, &Default::default()).expect("it imports");
    aqlgen_build::check_text("imported.md", &imported.text).expect("it passes check");
    let warnings = imported
        .warnings
        .iter()
        .map(|w| format!("{}: {}", w.operation, w.reason))
        .collect();
    (imported.text, warnings)
}

/// A document with one operation and the given `servers`.
fn with_servers(servers: Value) -> Value {
    json!({
        "openapi": "3.0.3",
        "info": {"title": "Servers", "version": "1.0.0"},
        "servers": servers,
        "paths": {"/things": {"get": {"operationId": "listThings"}}}
    })
}

#[test]
fn https_is_preferred_and_variables_are_resolved() {
    let cases = [
        (
            json!([{"url": "http://api.example.com/v1"}, {"url": "https://api.example.com/v1"}]),
            "https://api.example.com/v1",
            Some(
                "document: base_url is `https://api.example.com/v1` (`servers[1]`): https preferred over `http://api.example.com/v1`",
            ),
        ),
        (
            json!([{
                "url": "{scheme}://{region}.example.com/{basePath}",
                "variables": {
                    "scheme": {"default": "http", "enum": ["http", "https"]},
                    "region": {"default": "eu-west-1", "enum": ["us-east-1", "eu-west-1"]},
                    "basePath": {"default": "v2"}
                }
            }]),
            "https://eu-west-1.example.com/v2",
            Some(
                "document: base_url is `https://eu-west-1.example.com/v2` (`servers[0]`): `{scheme}` is `https` (over its default `http`), `{region}` is `eu-west-1`, `{basePath}` is `v2`",
            ),
        ),
        (
            json!([{"url": "https://{tenant}.example.com", "variables": {"tenant": {"enum": ["acme", "other"]}}}]),
            "https://acme.example.com",
            Some(
                "document: base_url is `https://acme.example.com` (`servers[0]`): `{tenant}` is `acme`",
            ),
        ),
        (
            json!([
                {"url": "https://{host}/api"},
                {"url": "/relative"},
                {"url": "http://fallback.example.com:{port}/", "variables": {"port": {"default": 8080}}}
            ]),
            "http://fallback.example.com:8080",
            Some(
                "document: base_url is `http://fallback.example.com:8080` (`servers[2]`): `{port}` is `8080`",
            ),
        ),
        (
            json!([{"url": "https://api.example.com/"}]),
            "https://api.example.com",
            None,
        ),
        (
            json!([{"url": "/relative"}]),
            "http://localhost",
            Some(
                "document: no server URL can be the base URL (`servers[0]`: `/relative` is no absolute http(s) URL); base_url is http://localhost",
            ),
        ),
    ];
    for (servers, url, warning) in cases {
        let (text, warnings) = import(&with_servers(servers.clone()));
        assert!(
            text.contains(&format!("  base_url: {url}\n")),
            "{servers}: {text}"
        );
        let about_servers: Vec<&String> =
            warnings.iter().filter(|w| w.contains("base_url")).collect();
        assert_eq!(
            about_servers,
            warning.map(str::to_owned).iter().collect::<Vec<_>>(),
            "{servers}"
        );
    }
}

#[test]
fn a_document_without_paths_is_refused_for_that() {
    let refusal = |document: Value| {
        aqlgen_build::import_openapi(&document, &Default::default())
            .expect_err("refused")
            .to_string()
    };
    let info = json!({"title": "Empty", "version": "1.0.0"});
    assert_eq!(
        refusal(json!({"openapi": "3.0.0", "info": info, "servers": [{"url": "/x"}], "paths": {}})),
        "the document has no paths"
    );
    assert_eq!(
        refusal(json!({"openapi": "3.0.0", "info": info})),
        "the document has no paths"
    );
    assert_eq!(
        refusal(json!({"openapi": "3.1.0", "info": info, "webhooks": {"paid": {"post": {}}}})),
        "the document has no paths: it describes only webhooks, which the API sends and an \
         adapter cannot call"
    );
    assert_eq!(
        refusal(json!({"openapi": "3.0.0", "info": info, "paths": {"/a": {"parameters": []}}})),
        "the document has no operations: its one path declares no method"
    );
}
