//! An upstream that takes OAuth 2 access tokens (`notes-adapter.md`, served by
//! `real-api-adapter` with `REAL_API=notes`), against a notes API and its token endpoint on
//! 127.0.0.1, through rmcp's client over stdio. The adapter obtains a token by client
//! credentials (or a refresh token while one is set), sends it as a bearer token, reuses it,
//! asks for it once when calls arrive together, replaces it once when the upstream refuses
//! it or it expires, and says clearly when the endpoint refuses its credentials, without
//! showing them.

mod support;

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use base64::Engine as _;
use serde_json::{Value, json};
use support::{Client, call, stdio_client_for};

const BIN: &str = env!("CARGO_BIN_EXE_real-api-adapter");
const CLIENT_ID: &str = "notes-client";
const CLIENT_SECRET: &str = "client-secret-5f1e";
const REFRESH: &str = "refresh-token-a9c2";

/// What the authorization server and the API saw and hold.
#[derive(Default)]
struct Server {
    /// Each token request's form.
    grants: Vec<Vec<(String, String)>>,
    /// Tokens the API accepts.
    valid: HashSet<String>,
    /// Tokens the API saw, in order.
    seen: Vec<String>,
    /// `expires_in` of the tokens handed out.
    lifetime: Option<u64>,
    /// The refresh token the endpoint takes now (it rotates).
    refresh: String,
}

type Shared = Arc<Mutex<Server>>;

async fn token(State(server): State<Shared>, headers: HeaderMap, body: String) -> Response {
    let form: Vec<(String, String)> = url::form_urlencoded::parse(body.as_bytes())
        .into_owned()
        .collect();
    let expected =
        base64::engine::general_purpose::STANDARD.encode(format!("{CLIENT_ID}:{CLIENT_SECRET}"));
    let authorized = headers
        .get("authorization")
        .and_then(|value| value.to_str().ok())
        == Some(format!("Basic {expected}").as_str());
    let mut server = server.lock().expect("server");
    server.grants.push(form.clone());
    if !authorized {
        return (
            StatusCode::UNAUTHORIZED,
            axum::Json(json!({"error": "invalid_client", "error_description": "who are you"})),
        )
            .into_response();
    }
    let field = |name: &str| {
        form.iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
    };
    let mut answer = json!({"token_type": "Bearer"});
    match field("grant_type") {
        Some("client_credentials") => {}
        Some("refresh_token") if field("refresh_token") == Some(server.refresh.as_str()) => {
            let rotated = format!("{REFRESH}-{}", server.grants.len());
            answer["refresh_token"] = rotated.clone().into();
            server.refresh = rotated;
        }
        _ => {
            return (
                StatusCode::BAD_REQUEST,
                axum::Json(json!({"error": "invalid_grant"})),
            )
                .into_response();
        }
    }
    let issued = format!("access-{}", server.grants.len());
    server.valid.insert(issued.clone());
    answer["access_token"] = issued.into();
    if let Some(lifetime) = server.lifetime {
        answer["expires_in"] = lifetime.into();
    }
    axum::Json(answer).into_response()
}

async fn note(
    State(server): State<Shared>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Response {
    let presented = headers
        .get("authorization")
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.strip_prefix("Bearer "))
        .unwrap_or_default()
        .to_owned();
    // A slow answer, so that calls sent together overlap.
    tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    let mut server = server.lock().expect("server");
    server.seen.push(presented.clone());
    if server.valid.contains(&presented) {
        axum::Json(json!({"id": id, "text": "remember the milk"})).into_response()
    } else {
        (
            StatusCode::UNAUTHORIZED,
            axum::Json(json!({"message": "bad token"})),
        )
            .into_response()
    }
}

/// The API and its token endpoint; the adapter behind rmcp's client, with `secret` as its
/// client secret and `refresh` as its refresh token when given.
async fn start(secret: &str, refresh: Option<&str>, lifetime: Option<u64>) -> (Client, Shared) {
    let shared = Shared::default();
    {
        let mut server = shared.lock().expect("server");
        server.lifetime = lifetime;
        server.refresh = REFRESH.to_owned();
    }
    let router = axum::Router::new()
        .route("/oauth/token", post(token))
        .route("/notes/{id}", get(note))
        .with_state(shared.clone());
    let base = support::serve(router).await;
    let token_url = format!("{base}/oauth/token");
    let mut env = vec![
        ("REAL_API", "notes"),
        ("NOTES_BASE_URL", base.as_str()),
        ("NOTES_TOKEN_URL", token_url.as_str()),
        ("NOTES_CLIENT_ID", CLIENT_ID),
        ("NOTES_CLIENT_SECRET", secret),
    ];
    if let Some(refresh) = refresh {
        env.push(("NOTES_REFRESH_TOKEN", refresh));
    }
    (stdio_client_for(BIN, &[], &env).await, shared)
}

async fn get_note(client: &Client, id: &str) -> (Value, bool) {
    call(
        client.peer(),
        "mcp_aql_read",
        json!({"operation": "get_note", "params": {"id": id}}),
    )
    .await
}

fn grant_types(server: &Shared) -> Vec<String> {
    let server = server.lock().expect("server");
    server
        .grants
        .iter()
        .map(|form| {
            form.iter()
                .find(|(key, _)| key == "grant_type")
                .map(|(_, value)| value.clone())
                .unwrap_or_default()
        })
        .collect()
}

/// Client credentials: one token for many calls, asked for once by calls that arrive
/// together, sent as a bearer token with the schema's scopes asked for.
#[tokio::test]
async fn one_token_serves_many_calls_and_is_asked_for_once() {
    let (client, server) = start(CLIENT_SECRET, None, None).await;
    let mut calls = tokio::task::JoinSet::new();
    for n in 0..8 {
        let peer = client.peer().clone();
        calls.spawn(async move {
            call(
                &peer,
                "mcp_aql_read",
                json!({"operation": "get_note", "params": {"id": format!("n{n}")}}),
            )
            .await
        });
    }
    while let Some(done) = calls.join_next().await {
        let (answer, failed) = done.expect("call");
        assert!(!failed, "{answer}");
        assert_eq!(answer["data"]["text"], "remember the milk");
    }
    let (answer, failed) = get_note(&client, "again").await;
    assert!(!failed, "{answer}");
    assert_eq!(grant_types(&server), ["client_credentials"]);
    let server = server.lock().expect("server");
    assert!(server.grants[0].contains(&("scope".to_owned(), "notes.read notes.write".to_owned())));
    assert_eq!(server.seen.len(), 9);
    assert!(server.seen.iter().all(|token| token == "access-1"));
}

/// A token the upstream refuses is replaced once and the call goes through; a token past its
/// `expires_in` is replaced before it is sent.
#[tokio::test]
async fn a_refused_or_expired_token_is_replaced() {
    let (client, server) = start(CLIENT_SECRET, None, Some(1)).await;
    assert!(!get_note(&client, "a").await.1);
    server.lock().expect("server").valid.clear();
    let (answer, failed) = get_note(&client, "b").await;
    assert!(!failed, "{answer}");
    assert_eq!(grant_types(&server).len(), 2, "one new token after the 401");
    tokio::time::sleep(std::time::Duration::from_millis(1_100)).await;
    assert!(!get_note(&client, "c").await.1);
    let server = server.lock().expect("server");
    assert_eq!(server.grants.len(), 3, "a new token once the old expired");
    assert_eq!(
        server.seen,
        ["access-1", "access-1", "access-2", "access-3"]
    );
}

/// With a refresh token set, the refresh token grant is used, and a rotated refresh token
/// replaces the first one.
#[tokio::test]
async fn a_refresh_token_is_used_and_its_rotation_followed() {
    let (client, server) = start(CLIENT_SECRET, Some(REFRESH), None).await;
    assert!(!get_note(&client, "a").await.1);
    server.lock().expect("server").valid.clear();
    let (answer, failed) = get_note(&client, "b").await;
    assert!(!failed, "{answer}");
    let server = server.lock().expect("server");
    let refresh_tokens: Vec<&str> = server
        .grants
        .iter()
        .map(|form| {
            form.iter()
                .find(|(key, _)| key == "refresh_token")
                .map_or("", |(_, value)| value.as_str())
        })
        .collect();
    assert_eq!(refresh_tokens, [REFRESH, &format!("{REFRESH}-1")[..]]);
}

/// Credentials the endpoint refuses: `PERMISSION_DENIED` with the OAuth error code and the
/// variables to check; neither the secret nor anything the endpoint said beyond its code.
#[tokio::test]
async fn refused_client_credentials_are_explained_without_the_secret() {
    let (client, server) = start("wrong-secret-77", None, None).await;
    let (answer, _) = get_note(&client, "a").await;
    assert_eq!(answer["success"], false, "{answer}");
    assert_eq!(answer["error"]["code"], "PERMISSION_DENIED", "{answer}");
    assert_eq!(answer["error"]["details"]["oauth_error"], "invalid_client");
    let text = answer.to_string();
    assert!(text.contains("NOTES_CLIENT_SECRET"), "{text}");
    assert!(
        !text.contains("wrong-secret-77") && !text.contains("who are you"),
        "{text}"
    );
    assert!(
        server.lock().expect("server").seen.is_empty(),
        "the API was not called"
    );
}
