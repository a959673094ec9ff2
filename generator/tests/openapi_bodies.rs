//! What `aqlgen import-openapi` makes of request bodies, read as the document means them,
//! and what the generated crate then sends: a member the caller leaves out of a partial
//! update is never sent, whatever the document's `default`.

use serde_json::{Value, json};

/// Imports `document`, checks it, and returns the generated `src/params.rs` and
/// `src/introspection.rs`.
fn generated(document: &Value) -> (String, String) {
    let imported = aqlgen_build::import_openapi(document, &Default::default()).expect("it imports");
    let checked = aqlgen_build::check_text("imported.md", &imported.text).expect("it passes check");
    let files = aqlgen_build::generate_crate(&checked, &Default::default()).expect("generates");
    let file = |path: &str| {
        files
            .iter()
            .find(|file| file.path == path)
            .map(|file| file.contents.clone())
            .expect(path)
    };
    (file("src/params.rs"), file("src/introspection.rs"))
}

/// DigitalOcean's `PUT /v2/cdn/endpoints/{cdn_id}`, whose `ttl` defaults to 3600.
fn cdn_update() -> Value {
    json!({
        "openapi": "3.0.0",
        "info": {"title": "CDN", "version": "2.0"},
        "servers": [{"url": "https://api.example.com"}],
        "paths": {"/v2/cdn/endpoints/{cdn_id}": {
            "parameters": [{"name": "cdn_id", "in": "path", "required": true, "schema": {"type": "string"}}],
            "put": {
                "operationId": "cdn_update_endpoints",
                "requestBody": {"required": true, "content": {"application/json": {"schema": {
                    "type": "object",
                    "properties": {
                        "ttl": {"type": "integer", "default": 3600, "enum": [60, 600, 3600, 86400, 604800]},
                        "certificate_id": {"type": "string"}
                    }
                }}}},
                "responses": {"200": {"description": "The endpoint."}}
            },
            "post": {
                "operationId": "cdn_create_endpoint",
                "requestBody": {"required": true, "content": {"application/json": {"schema": {
                    "type": "object",
                    "required": ["origin"],
                    "properties": {
                        "origin": {"type": "string"},
                        "ttl": {"type": "integer", "default": 3600}
                    }
                }}}},
                "responses": {"201": {"description": "The endpoint."}}
            }
        }}
    })
}

#[test]
fn an_update_never_fills_in_a_default() {
    let (params, introspection) = generated(&cdn_update());
    let update = section(
        &params,
        "pub struct CdnUpdateEndpointsInput",
        "impl CdnUpdateEndpointsInput",
    );
    assert!(
        update.contains("pub ttl: params::Patch<i64>"),
        "ttl is left out unless given:\n{update}"
    );
    assert_eq!(
        params.matches("unwrap_or(3600)").count(),
        1,
        "only the create fills in 3600:\n{params}"
    );
    let create = section(
        &params,
        "pub struct CdnCreateEndpoint",
        "impl CdnCreateEndpoint",
    );
    assert!(
        create.contains("pub ttl: i64"),
        "a create sends the default:\n{create}"
    );
    assert!(
        introspection.contains(
            "Left out, it is not sent and the API keeps its value (its default: `3600`)."
        ),
        "introspection says the update does not send it"
    );
}

fn section<'a>(text: &'a str, from: &str, to: &str) -> &'a str {
    let start = text
        .find(from)
        .unwrap_or_else(|| panic!("{from} in\n{text}"));
    let end = text[start..].find(to).map_or(text.len(), |end| start + end);
    &text[start..end]
}
