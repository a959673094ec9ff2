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
                        "certificate_id": {"type": "string"},
                        "created_at": {"type": "string", "readOnly": true}
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
    assert!(
        !update.contains("created_at"),
        "a read-only member is no input:\n{update}"
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

/// Imports `document` and returns the adapter as written, parsed, and the import's report.
fn imported(document: &Value) -> (serde_yaml::Value, aqlgen_build::Imported) {
    let imported = aqlgen_build::import_openapi(document, &Default::default()).expect("it imports");
    aqlgen_build::check_text("imported.md", &imported.text).expect("it passes check");
    let front = imported
        .text
        .strip_prefix("---\n")
        .and_then(|rest| rest.split_once("\n---\n"))
        .map(|(front, _)| front)
        .expect("front matter");
    (serde_yaml::from_str(front).expect("YAML"), imported)
}

/// The operation named `name` of an imported adapter.
fn operation<'a>(adapter: &'a serde_yaml::Value, name: &str) -> &'a serde_yaml::Value {
    adapter["operations"]
        .as_mapping()
        .into_iter()
        .flatten()
        .flat_map(|(_, operations)| operations.as_sequence().into_iter().flatten())
        .find(|operation| operation["name"].as_str() == Some(name))
        .unwrap_or_else(|| panic!("operation {name}"))
}

fn yaml(text: &str) -> serde_yaml::Value {
    serde_yaml::from_str(text).expect("YAML")
}

/// The shapes of the bodies the corpus's documents require: Kubernetes' patches, Azure's tag
/// updates, Amazon's empty objects, GitHub's secret (no member required), a JSON array, and
/// a PDF answer.
fn bodies() -> Value {
    let object = |schema: Value| json!({"required": true, "content": {"application/json": {"schema": schema}}});
    json!({
        "openapi": "3.0.0",
        "info": {"title": "Bodies", "version": "1.0"},
        "servers": [{"url": "https://api.example.com"}],
        "paths": {
            "/api/v1/namespaces/{namespace}/pods/{name}": {
                "parameters": [
                    {"name": "namespace", "in": "path", "required": true, "schema": {"type": "string"}},
                    {"name": "name", "in": "path", "required": true, "schema": {"type": "string"}}
                ],
                "patch": {
                    "operationId": "patchCoreV1NamespacedPod",
                    "requestBody": {"required": true, "content": {
                        "application/apply-patch+yaml": {"schema": {"$ref": "#/components/schemas/Patch"}},
                        "application/json-patch+json": {"schema": {"$ref": "#/components/schemas/Patch"}},
                        "application/merge-patch+json": {"schema": {"$ref": "#/components/schemas/Patch"}},
                        "application/strategic-merge-patch+json": {"schema": {"$ref": "#/components/schemas/Patch"}}
                    }},
                    "responses": {"200": {"description": "OK", "content": {"application/json": {"schema": {"type": "object"}}}}}
                }
            },
            "/subscriptions/{subscriptionId}/tags": {
                "parameters": [{"name": "subscriptionId", "in": "path", "required": true, "schema": {"type": "string"}}],
                "patch": {
                    "operationId": "Vaults_UpdateTags",
                    "requestBody": object(json!({"type": "object", "additionalProperties": {"type": "string"}, "description": "The tags to set."})),
                    "responses": {"200": {"description": "OK"}}
                }
            },
            "/queues/{queue}/purge": {
                "parameters": [{"name": "queue", "in": "path", "required": true, "schema": {"type": "string"}}],
                "post": {
                    "operationId": "PurgeQueue",
                    "requestBody": object(json!({"type": "object", "properties": {}})),
                    "responses": {"200": {"description": "OK"}}
                }
            },
            "/repos/{owner}/{repo}/secrets/{secret_name}": {
                "parameters": [
                    {"name": "owner", "in": "path", "required": true, "schema": {"type": "string"}},
                    {"name": "repo", "in": "path", "required": true, "schema": {"type": "string"}},
                    {"name": "secret_name", "in": "path", "required": true, "schema": {"type": "string"}}
                ],
                "put": {
                    "operationId": "dependabot/create-or-update-repo-secret",
                    "requestBody": object(json!({"type": "object", "properties": {
                        "encrypted_value": {"type": "string"},
                        "key_id": {"type": "string"}
                    }})),
                    "responses": {"201": {"description": "Created"}}
                }
            },
            "/batch": {
                "post": {
                    "operationId": "createBatch",
                    "requestBody": object(json!({"type": "array", "items": {"type": "object"}})),
                    "responses": {"200": {"description": "OK"}}
                }
            },
            "/invoices/{id}/pdf": {
                "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "string"}}],
                "get": {
                    "operationId": "getInvoicePdf",
                    "responses": {
                        "200": {"description": "The PDF.", "content": {"application/pdf": {"schema": {"type": "string", "format": "binary"}}}},
                        "404": {"description": "No such invoice.", "content": {"application/json": {"schema": {"type": "object"}}}}
                    }
                }
            }
        },
        "components": {"schemas": {"Patch": {"type": "object", "description": "A patch of the object."}}}
    })
}

#[test]
fn every_required_body_is_sent_and_free_form_bodies_are_one_param() {
    let (adapter, report) = imported(&bodies());
    let pod = operation(&adapter, "patch_core_v1_namespaced_pod");
    assert_eq!(
        pod["params"]["body"],
        yaml("{type: object, required: true, description: A patch of the object., in: whole_body}"),
    );
    assert_eq!(
        pod["headers"],
        yaml("{Content-Type: application/merge-patch+json}"),
        "the merge patch, whose body is an object, is the form chosen"
    );
    let tags = operation(&adapter, "vaults_update_tags");
    assert_eq!(tags["params"]["body"]["in"], yaml("whole_body"));
    assert_eq!(tags["params"]["body"]["type"], yaml("object"));
    assert!(
        tags["headers"].is_null(),
        "plain JSON needs no Content-Type of its own"
    );

    let purge = operation(&adapter, "purge_queue");
    assert_eq!(purge["requires_body"], yaml("true"), "`{{}}` goes out");
    let secret = operation(&adapter, "dependabot_create_or_update_repo_secret");
    assert_eq!(
        secret["requires_body"],
        yaml("true"),
        "no member is required"
    );
    assert_eq!(
        secret["params"]["encrypted_value"]["required"],
        serde_yaml::Value::Null
    );
    let batch = operation(&adapter, "create_batch");
    assert_eq!(batch["params"]["body"]["type"], yaml("array"));
    assert!(
        batch["requires_body"].is_null(),
        "its required param sends it"
    );

    let pdf = operation(&adapter, "get_invoice_pdf");
    assert_eq!(pdf["headers"], yaml("{Accept: application/pdf}"));

    let completeness = report.completeness;
    assert_eq!(completeness.losing_required, 0, "{:?}", report.warnings);
    assert_eq!(
        (completeness.kept, completeness.complete),
        (6, 6),
        "{:?}",
        report.warnings
    );
}

#[test]
fn the_generated_code_always_sends_a_required_body() {
    let (params, _) = generated(&bodies());
    assert!(params.contains("pub body: Map<String, Value>"), "{params}");
    assert!(params.contains("pub body: Vec<Value>"), "{params}");
}

#[test]
fn a_create_needs_what_its_optional_body_requires() {
    let body = json!({"content": {"application/x-www-form-urlencoded": {"schema": {
        "type": "object",
        "required": ["Address", "Type"],
        "properties": {
            "Address": {"type": "string"},
            "Type": {"type": "string"},
            "FriendlyName": {"type": "string"}
        }
    }}}});
    let document = json!({
        "openapi": "3.0.1",
        "info": {"title": "Conversations", "version": "1.0.0"},
        "servers": [{"url": "https://conversations.example.com"}],
        "paths": {
            "/v1/Configuration/Addresses": {"post": {
                "operationId": "CreateConfigurationAddress",
                "requestBody": body.clone(),
                "responses": {"201": {"description": "Created"}}
            }},
            "/v1/Configuration/Addresses/{Sid}": {"post": {
                "operationId": "UpdateConfigurationAddress",
                "parameters": [{"name": "Sid", "in": "path", "required": true, "schema": {"type": "string"}}],
                "requestBody": body,
                "responses": {"200": {"description": "Updated"}}
            }}
        }
    });
    let (adapter, _) = imported(&document);
    let create = operation(&adapter, "create_configuration_address");
    assert_eq!(create["params"]["address"]["required"], yaml("true"));
    assert_eq!(create["params"]["type"]["required"], yaml("true"));
    assert!(create["params"]["friendly_name"]["required"].is_null());
    let update = operation(&adapter, "update_configuration_address");
    assert!(
        update["params"]["address"]["required"].is_null(),
        "an update changes what it is given"
    );
}

#[test]
fn a_required_body_whose_only_member_is_the_credential_is_still_sent() {
    let document = json!({
        "openapi": "3.0.0",
        "info": {"title": "Slack", "version": "1.0.0"},
        "servers": [{"url": "https://slack.com/api"}],
        "components": {"securitySchemes": {"token": {"type": "http", "scheme": "bearer"}}},
        "security": [{"token": []}],
        "paths": {"/users.deletePhoto": {"post": {
            "operationId": "users_deletePhoto",
            "requestBody": {"required": true, "content": {"application/x-www-form-urlencoded": {"schema": {
                "type": "object",
                "required": ["token"],
                "properties": {"token": {"type": "string", "description": "Authentication token."}}
            }}}},
            "responses": {"200": {"description": "OK"}}
        }}}
    });
    let (adapter, _) = imported(&document);
    let delete = operation(&adapter, "users_delete_photo");
    assert!(delete["params"].is_null(), "the token is the auth's");
    assert_eq!(delete["requires_body"], yaml("true"));
}

/// DigitalOcean's `POST /v2/load_balancers`: every variant requires `region` and
/// `forwarding_rules`, one `droplet_ids` and the other `tag`.
fn load_balancers() -> Value {
    let base = json!({
        "type": "object",
        "required": ["region", "forwarding_rules"],
        "properties": {
            "name": {"type": "string"},
            "region": {"type": "string"},
            "forwarding_rules": {"type": "array", "items": {"type": "object"}}
        }
    });
    let variant = |member: &str, schema: Value| {
        json!({"allOf": [
            {"$ref": "#/components/schemas/lb_base"},
            {"type": "object", "required": [member], "properties": {member: schema}}
        ]})
    };
    json!({
        "openapi": "3.0.0",
        "info": {"title": "Load balancers", "version": "2.0"},
        "servers": [{"url": "https://api.example.com"}],
        "components": {"schemas": {"lb_base": base}},
        "paths": {"/v2/load_balancers": {"post": {
            "operationId": "loadBalancers_create",
            "requestBody": {"required": true, "content": {"application/json": {"schema": {"anyOf": [
                variant("droplet_ids", json!({"type": "array", "items": {"type": "integer"}})),
                variant("tag", json!({"type": "string"}))
            ]}}}},
            "responses": {"202": {"description": "Accepted"}}
        }}}
    })
}

#[test]
fn a_variant_body_requires_what_every_variant_does_and_one_variant_whole() {
    let (adapter, _) = imported(&load_balancers());
    let create = operation(&adapter, "load_balancers_create");
    assert_eq!(create["params"]["region"]["required"], yaml("true"));
    assert_eq!(
        create["params"]["forwarding_rules"]["required"],
        yaml("true")
    );
    assert!(create["params"]["tag"]["required"].is_null());
    assert_eq!(create["requires_one_of"], yaml("[[droplet_ids], [tag]]"));
    let (params, introspection) = generated(&load_balancers());
    assert!(
        params.contains(r#"params::require_one_of(raw, &[&["droplet_ids"], &["tag"]])?;"#),
        "{params}"
    );
    assert!(
        introspection.contains("Give all of one of: `droplet_ids`; or `tag`."),
        "{introspection}"
    );
}
