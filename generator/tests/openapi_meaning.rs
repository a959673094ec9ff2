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
            json!([{"url": "https://console.example.com/{basePath}", "variables": {"basePath": {"default": "/api/catalog/v1.0"}}}]),
            "https://console.example.com/api/catalog/v1.0",
            Some(
                "document: base_url is `https://console.example.com/api/catalog/v1.0` (`servers[0]`): `{basePath}` is `/api/catalog/v1.0`",
            ),
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

/// An OAuth2-only API in Slack's style: a token param on every operation, which the
/// adapter's auth carries.
#[test]
fn oauth2_is_a_bearer_token_and_its_params_are_auth() {
    let document = json!({
        "openapi": "3.0.0",
        "info": {"title": "Chat", "version": "1.0.0"},
        "servers": [{"url": "https://chat.example.com/api"}],
        "components": {"securitySchemes": {"chatAuth": {
            "type": "oauth2",
            "flows": {"authorizationCode": {
                "authorizationUrl": "https://chat.example.com/oauth/authorize",
                "tokenUrl": "https://chat.example.com/oauth/token",
                "scopes": {"chat:write": "Post messages", "channels:read": "channels:read", "admin": "Administer"}
            }}
        }}},
        "paths": {
            "/conversations.list": {"get": {
                "operationId": "conversations_list",
                "security": [{"chatAuth": ["channels:read"]}],
                "parameters": [
                    {"name": "token", "in": "query", "required": true, "description": "Authentication token. Requires scope: `channels:read`", "schema": {"type": "string"}},
                    {"name": "limit", "in": "query", "schema": {"type": "integer"}}
                ]
            }},
            "/chat.delete": {"post": {
                "operationId": "chat_delete",
                "security": [{"chatAuth": ["chat:write"]}],
                "parameters": [{"name": "token", "in": "header", "required": true, "description": "Authentication token. Requires scope: `chat:write`", "schema": {"type": "string"}}],
                "requestBody": {"content": {"application/json": {"schema": {"properties": {
                    "ts": {"type": "string"}, "channel": {"type": "string"}
                }}}}}
            }},
            "/reports/{id}": {"get": {
                "operationId": "reports_get",
                "security": [{"chatAuth": []}],
                "parameters": [
                    {"name": "id", "in": "path", "required": true, "schema": {"type": "string"}},
                    {"name": "access_token", "in": "query", "description": "OAuth access token.", "schema": {"type": "string"}}
                ]
            }},
            "/reports/{id}/download": {"post": {
                "operationId": "reports_download",
                "security": [{"chatAuth": []}],
                "parameters": [
                    {"name": "id", "in": "path", "required": true, "schema": {"type": "string"}},
                    {"name": "access_token", "in": "query", "description": "OAuth access token.", "schema": {"type": "string"}}
                ],
                "requestBody": {"content": {"application/json": {"schema": {"properties": {
                    "token": {"type": "string", "description": "Delivered with each notification."}
                }}}}}
            }},
            "/api.test": {"get": {"operationId": "api_test", "security": []}}
        }
    });
    let (text, warnings) = import(&document);
    assert!(
        text.contains("auth:\n  type: bearer\n  token_env: CHAT_TOKEN\n"),
        "{text}"
    );
    assert!(
        !text.contains("\n      token:\n        type: string\n        required"),
        "no credential param is left: {text}"
    );
    assert!(!text.contains("access_token:"), "{text}");
    assert!(
        text.contains("      token:\n        type: string\n        description: Delivered"),
        "a JSON field named token is data: {text}"
    );
    assert_eq!(warnings.len(), 5, "nothing else is said: {warnings:#?}");
    for expected in [
        "document: security scheme `chatAuth` (oauth2) is imported as a bearer token read from \
         `CHAT_TOKEN`; obtain it through its authorizationCode flow (authorize at \
         <https://chat.example.com/oauth/authorize>, tokens from \
         <https://chat.example.com/oauth/token>) with the scopes `chat:write`, `channels:read`",
        "POST /chat.delete: header param `token` is the credential the adapter's auth sends; not a param",
        "GET /conversations.list: query param `token` is the credential the adapter's auth sends; not a param",
        "GET /reports/{id}: query param `access_token` is the credential the adapter's auth sends; not a param",
    ] {
        assert!(
            warnings.iter().any(|w| w == expected),
            "no {expected:?} in {warnings:#?}"
        );
    }
    for expected in [
        "## Auth\n\nThe document's OAuth2 scheme `chatAuth` is imported as a bearer token: the server sends `Authorization: Bearer $CHAT_TOKEN`",
        "The operations ask for 2 scopes:\n\n- `chat:write`: Post messages\n- `channels:read`\n",
        "| chat_delete | POST /chat.delete | delete | destructive | `delete` in its path |",
    ] {
        assert!(text.contains(expected), "no {expected:?} in {text}");
    }
}

/// A key's own param is auth; a body field of the same name is data. A signing scheme is
/// not a key, and an operation whose required auth the adapter cannot send is reported.
#[test]
fn api_keys_signatures_and_missing_auth() {
    let document = json!({
        "openapi": "3.0.0",
        "info": {"title": "Keys", "version": "1.0.0"},
        "servers": [{"url": "https://keys.example.com"}],
        "security": [{"key": []}],
        "components": {"securitySchemes": {
            "key": {"type": "apiKey", "in": "query", "name": "key"},
            "partner": {"type": "apiKey", "in": "header", "name": "X-Partner"}
        }},
        "paths": {
            "/things": {
                "get": {"operationId": "listThings", "parameters": [
                    {"name": "key", "in": "query", "schema": {"type": "string"}},
                    {"name": "q", "in": "query", "schema": {"type": "string"}}
                ]},
                "post": {"operationId": "addThing", "requestBody": {"content": {"application/json": {"schema": {"properties": {
                    "key": {"type": "string"}, "value": {"type": "string"}
                }}}}}}
            },
            "/partner": {"get": {"operationId": "partnerStats", "security": [{"partner": []}]}}
        }
    });
    let (text, warnings) = import(&document);
    assert!(
        text.contains("auth:\n  type: api_key\n  key_env: KEYS_API_KEY\n  query_param: key\n"),
        "the scheme most operations accept: {text}"
    );
    let list = text.split("- name: list_things").nth(1).expect("listed");
    let list = list.split("- name:").next().unwrap_or(list);
    assert!(!list.contains("key:"), "the query key is auth: {list}");
    let add = text.split("- name: add_thing").nth(1).expect("added");
    let add = add.split("- name:").next().unwrap_or(add);
    assert!(
        add.contains("key:\n"),
        "a body field named key is data: {add}"
    );
    assert!(
        warnings.contains(
            &"GET /partner: it requires credentials (`partner`) other than the `key` the \
              adapter sends; operation dropped"
                .to_owned()
        ),
        "{warnings:#?}"
    );

    let signed = json!({
        "openapi": "3.0.0",
        "info": {"title": "Signed", "version": "1.0.0", "x-providerName": "amazonaws.com"},
        "servers": [{"url": "https://signed.us-east-1.amazonaws.com"}],
        "security": [{"hmac": []}],
        "components": {"securitySchemes": {"hmac": {
            "type": "apiKey", "in": "header", "name": "Authorization",
            "x-amazon-apigateway-authtype": "awsSigv4"
        }}},
        "paths": {"/things": {"get": {"operationId": "ListThings"}, "delete": {"operationId": "DeleteThings"}}}
    });
    // Signature Version 4 is the adapter's own auth, for the region and service of the host.
    let (text, _) = import(&signed);
    assert!(
        text.contains("auth:\n  type: aws_sigv4\n  region: us-east-1\n  service: signed\n"),
        "{text}"
    );
    // Version 2 is not: every operation needs it, so none can be called.
    let mut older = signed.clone();
    older["components"]["securitySchemes"]["hmac"]["x-amazon-apigateway-authtype"] =
        json!("awsSigv2");
    let refused = aqlgen_build::import_openapi(&older, &Default::default())
        .expect_err("no operation can be called");
    let message = refused.to_string();
    assert!(
        message.contains("requires credentials (`hmac`)"),
        "{message}"
    );
}

/// Of schemes every operation accepts, the simplest credential wins: Stripe's bearer over
/// its basic auth.
#[test]
fn the_simplest_of_equal_schemes_is_chosen() {
    let document = json!({
        "openapi": "3.0.0",
        "info": {"title": "Payments", "version": "1.0.0"},
        "servers": [{"url": "https://pay.example.com"}],
        "security": [{"basicAuth": []}, {"bearerAuth": []}],
        "components": {"securitySchemes": {
            "basicAuth": {"type": "http", "scheme": "basic"},
            "bearerAuth": {"type": "http", "scheme": "bearer"}
        }},
        "paths": {"/v1/charges": {"get": {"operationId": "GetCharges"}}}
    });
    let (text, warnings) = import(&document);
    assert!(
        text.contains("auth:\n  type: bearer\n  token_env: PAYMENTS_TOKEN\n"),
        "{text}"
    );
    assert!(warnings.is_empty(), "{warnings:#?}");
}

/// With `--bearer-env` the document says nothing of its `token` params: they stay data.
#[test]
fn a_chosen_bearer_leaves_token_params_alone() {
    let document = json!({
        "openapi": "3.0.0",
        "info": {"title": "Apps", "version": "1.0.0"},
        "servers": [{"url": "https://apps.example.com"}],
        "paths": {"/applications/{client_id}/token": {"post": {
            "operationId": "apps/check-token",
            "summary": "Check a token",
            "parameters": [{"name": "client_id", "in": "path", "required": true, "schema": {"type": "string"}}],
            "requestBody": {"content": {"application/json": {"schema": {"properties": {
                "access_token": {"type": "string"}
            }}}}}
        }}}
    });
    let options = aqlgen_build::ImportOptions {
        name: None,
        bearer_env: Some("APPS_TOKEN".to_owned()),
    };
    let imported = aqlgen_build::import_openapi(&document, &options).expect("it imports");
    assert!(
        imported.text.contains("access_token:\n"),
        "{}",
        imported.text
    );
    assert!(imported.warnings.is_empty(), "{:#?}", imported.warnings);
}

/// Google names two OAuth2 flows and requires both together: one bearer token meets both,
/// so its operations are kept. Two different API keys required together (VTEX's app key and
/// app token) are both sent, each from a variable of its own; where one of them cannot be
/// sent (a cookie), the operations are dropped, and the refusal says "and".
#[test]
fn one_token_meets_every_token_scheme_a_requirement_names() {
    let flow = json!({"implicit": {"authorizationUrl": "https://accounts.example.com/o/oauth2/auth", "scopes": {"s": "scope"}}});
    let document = json!({
        "openapi": "3.0.0",
        "info": {"title": "Drive", "version": "1.0.0"},
        "servers": [{"url": "https://drive.example.com"}],
        "security": [{"Oauth2": ["s"], "Oauth2c": ["s"]}],
        "components": {"securitySchemes": {
            "Oauth2": {"type": "oauth2", "flows": flow},
            "Oauth2c": {"type": "oauth2", "flows": flow}
        }},
        "paths": {"/files": {"get": {"operationId": "listFiles"}}}
    });
    let (text, _) = import(&document);
    assert!(text.contains("name: list_files"), "{text}");

    let two_keys = json!({
        "openapi": "3.0.0",
        "info": {"title": "Pair", "version": "1.0.0"},
        "servers": [{"url": "https://pair.example.com"}],
        "security": [{"appKey": [], "appToken": []}],
        "components": {"securitySchemes": {
            "appKey": {"type": "apiKey", "in": "header", "name": "X-App-Key"},
            "appToken": {"type": "apiKey", "in": "header", "name": "X-App-Token"}
        }},
        "paths": {"/orders": {"get": {"operationId": "listOrders"}}}
    });
    let (text, warnings) = import(&two_keys);
    assert!(
        text.contains(
            "auth:\n  type: combined\n  credentials:\n  - type: api_key\n    key_env: PAIR_APP_KEY\n    header_name: X-App-Key\n  - type: api_key\n    key_env: PAIR_APP_TOKEN\n    header_name: X-App-Token\n"
        ),
        "{text}"
    );
    assert!(text.contains("name: list_orders"), "{text}");
    assert!(
        warnings.contains(
            &"document: security schemes `appKey` and `appToken` are required together: the adapter sends all of them".to_owned()
        ),
        "{warnings:?}"
    );

    let mut with_cookie = two_keys.clone();
    with_cookie["components"]["securitySchemes"]["appToken"]["in"] = json!("cookie");
    let refused = aqlgen_build::import_openapi(&with_cookie, &Default::default())
        .expect_err("a key in a cookie cannot be sent");
    assert!(
        refused
            .to_string()
            .contains("requires credentials (`appKey` and `appToken`)"),
        "{refused}"
    );
}

#[test]
fn express_segments_are_placeholders_and_paths_after_a_fragment_are_refused() {
    let document = json!({
        "openapi": "3.0.3",
        "info": {"title": "Paths", "version": "1.0.0"},
        "servers": [{"url": "https://api.example.com"}],
        "paths": {
            "/v1/integrations/webhooks/:id": {"delete": {"operationId": "deleteWebhook"}},
            "/send/#env/v1/partners/{partnerId}/transfers": {"post": {"operationId": "sendTransfer"}},
            "/files/{file_id}#add_shared_link": {"put": {"operationId": "addSharedLink"}}
        }
    });
    let (text, warnings) = import(&document);
    assert!(
        text.contains("maps_to: DELETE /v1/integrations/webhooks/{id}"),
        "{text}"
    );
    assert!(
        warnings.contains(
            &"DELETE /v1/integrations/webhooks/:id: path segment `:id` is a placeholder: written as `{id}`"
                .to_owned()
        ),
        "{warnings:?}"
    );
    assert!(!text.contains("/send/"), "{text}");
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("its path goes on after a `#`")),
        "{warnings:?}"
    );
    // A fragment that names what tells an operation apart (Box, AWS) is only dropped.
    assert!(text.contains("maps_to: PUT /files/{file_id}"), "{text}");
}

/// Twilio's account sids: a path param keeps its pattern and lengths, which the server checks
/// and the example matches; a date-time query param keeps its format; a pattern the server's regex
/// cannot run (a look-ahead) is dropped with a warning.
#[test]
fn patterns_and_formats_are_kept_and_checked() {
    let document = json!({
        "openapi": "3.0.1",
        "info": {"title": "Calls", "version": "1.0.0"},
        "servers": [{"url": "https://api.example.com"}],
        "paths": {"/2010-04-01/Accounts/{AccountSid}/Calls.json": {"get": {
            "operationId": "ListCall",
            "parameters": [
                {"name": "AccountSid", "in": "path", "required": true,
                 "schema": {"type": "string", "minLength": 34, "maxLength": 34, "pattern": "^AC[0-9a-fA-F]{32}$"}},
                {"name": "StartTime", "in": "query", "schema": {"type": "string", "format": "date-time"}},
                {"name": "To", "in": "query", "schema": {"type": "string", "pattern": "^(?!sip:).*$"}}
            ]
        }}}
    });
    let (text, warnings) = import(&document);
    assert!(text.contains("pattern: ^AC[0-9a-fA-F]{32}$"), "{text}");
    assert!(
        text.contains("min_length: 34\n        max_length: 34"),
        "{text}"
    );
    assert!(text.contains("format: date-time"), "{text}");
    assert!(
        warnings.iter().any(|w| w.contains(
            "param `To`: its pattern is no regular expression the server can check; dropped"
        )),
        "{warnings:?}"
    );
    let checked = aqlgen_build::check_text("calls-adapter.md", &text).expect("it checks");
    let files = aqlgen_build::generate_crate(&checked, &Default::default()).expect("generates");
    let introspection = &files
        .iter()
        .find(|file| file.path == "src/introspection.rs")
        .expect("introspection")
        .contents;
    let example = regex::Regex::new(r#""account_sid": "AC[0-9a-fA-F]{32}""#).expect("regex");
    assert!(
        example.is_match(introspection),
        "the example matches the pattern"
    );
    assert!(
        introspection.contains(r#""minLength": 34"#),
        "introspection gives the lengths"
    );
    let params = &files
        .iter()
        .find(|file| file.path == "src/params.rs")
        .expect("params")
        .contents;
    let check: String = params.split_whitespace().collect();
    assert!(
        check.contains(r#"params::length_within("account_sid",Some(account_sid.as_str()),Some(34),Some(34),)?;"#),
        "the server checks them"
    );
}
