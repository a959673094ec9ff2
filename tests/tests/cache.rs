//! The response cache, end to end: the to-do adapter over stateless streamable HTTP in front
//! of a to-do API on 127.0.0.1 that says how its answers may be kept and records every
//! request. Fresh answers are served again without a request, a stale one is revalidated
//! with `If-None-Match` (a 304 refreshes it), any write of the adapter (an UPDATE, an
//! EXECUTE on another path) drops every kept answer, `no-store` is never kept, two callers' credentials never share an
//! answer, the size bound drops the least recently used, and instances on Redis share it.

mod support;

use std::sync::{Arc, Mutex};

use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde_json::{Value, json};
use support::{Redis, TODO_BIN, http_server_for, stateless_call};
use tokio::process::Child;

/// One request the API saw.
#[derive(Debug, Clone, PartialEq)]
struct Seen {
    method: String,
    path: String,
    key: String,
    if_none_match: Option<String>,
}

/// The to-do API: ids below 100 are `private, max-age=60`; 100 to 199 `no-cache` (always
/// revalidate); 200 and up `no-store`. Every answer has an `ETag` of the item's version,
/// which a `PATCH` raises.
#[derive(Clone, Default)]
struct Api {
    seen: Arc<Mutex<Vec<Seen>>>,
    versions: Arc<Mutex<std::collections::HashMap<u64, u64>>>,
}

impl Api {
    fn note(&self, method: &str, path: String, headers: &HeaderMap) {
        let header = |name: &str| {
            headers
                .get(name)
                .and_then(|value| value.to_str().ok())
                .map(str::to_owned)
        };
        self.seen.lock().expect("log").push(Seen {
            method: method.to_owned(),
            path,
            key: header("x-api-key").unwrap_or_default(),
            if_none_match: header("if-none-match"),
        });
    }

    /// The requests seen for `path`.
    fn requests(&self, path: &str) -> Vec<Seen> {
        let seen = self.seen.lock().expect("log");
        seen.iter()
            .filter(|seen| seen.path == path)
            .cloned()
            .collect()
    }

    fn version(&self, id: u64) -> u64 {
        self.versions
            .lock()
            .expect("versions")
            .get(&id)
            .copied()
            .unwrap_or(0)
    }

    async fn start(&self) -> String {
        async fn get_todo(
            State(api): State<Api>,
            Path(id): Path<u64>,
            headers: HeaderMap,
        ) -> Response {
            api.note("GET", format!("/todos/{id}"), &headers);
            let etag = format!("\"v{}\"", api.version(id));
            let policy = match id {
                0..100 => "private, max-age=60",
                100..200 => "no-cache",
                _ => "no-store",
            };
            if id >= 100
                && headers
                    .get("if-none-match")
                    .is_some_and(|tag| tag.as_bytes() == etag.as_bytes())
            {
                return (
                    StatusCode::NOT_MODIFIED,
                    [("etag", etag), ("cache-control", policy.to_owned())],
                )
                    .into_response();
            }
            let todo = json!({"id": id, "title": format!("version {}", api.version(id)), "completed": false});
            (
                [("etag", etag), ("cache-control", policy.to_owned())],
                axum::Json(todo),
            )
                .into_response()
        }
        async fn patch_todo(
            State(api): State<Api>,
            Path(id): Path<u64>,
            headers: HeaderMap,
        ) -> axum::Json<Value> {
            api.note("PATCH", format!("/todos/{id}"), &headers);
            *api.versions
                .lock()
                .expect("versions")
                .entry(id)
                .or_default() += 1;
            axum::Json(json!({"id": id, "title": "changed", "completed": false}))
        }
        async fn complete_todo(
            State(api): State<Api>,
            Path(id): Path<u64>,
            headers: HeaderMap,
        ) -> axum::Json<Value> {
            api.note("POST", format!("/todos/{id}/complete"), &headers);
            *api.versions
                .lock()
                .expect("versions")
                .entry(id)
                .or_default() += 1;
            axum::Json(json!({"id": id, "title": "done", "completed": true}))
        }
        async fn list_todos(State(api): State<Api>, headers: HeaderMap) -> Response {
            api.note("GET", "/todos".to_owned(), &headers);
            (
                [("cache-control", "max-age=60")],
                axum::Json(
                    json!({"items": [], "total": api.versions.lock().expect("versions").len()}),
                ),
            )
                .into_response()
        }
        let router = axum::Router::new()
            .route("/todos", get(list_todos))
            .route("/todos/{id}", get(get_todo).patch(patch_todo))
            .route("/todos/{id}/complete", axum::routing::post(complete_todo))
            .with_state(self.clone());
        support::serve(router).await
    }
}

/// The to-do adapter on `upstream` over stateless HTTP with `args`.
async fn server(upstream: &str, args: &[&str]) -> (Child, String) {
    let mut all = vec!["--stateless"];
    all.extend_from_slice(args);
    http_server_for(
        TODO_BIN,
        &all,
        &[("TODO_BASE_URL", upstream), ("TODO_API_KEY", "server-key")],
    )
    .await
}

async fn get_todo(url: &str, caller: &str, id: u64) -> Value {
    let answer = stateless_call(
        url,
        caller,
        "mcp_aql_read",
        json!({"operation": "get_todo", "params": {"id": id}}),
    )
    .await;
    assert_eq!(answer["success"], true, "{answer}");
    answer
}

async fn update_todo(url: &str, id: u64) {
    let answer = stateless_call(
        url,
        "alice",
        "mcp_aql_update",
        json!({"operation": "update_todo", "params": {"id": id, "input": {"title": "changed"}}}),
    )
    .await;
    assert_eq!(answer["success"], true, "{answer}");
}

/// The `RESPONSE_FROM_CACHE` warning of an answer, if it has one.
fn from_cache(answer: &Value) -> Option<&Value> {
    answer["warnings"]
        .as_array()?
        .iter()
        .find(|warning| warning["code"] == "RESPONSE_FROM_CACHE")
}

async fn metric(url: &str, line: &str) -> bool {
    let text = reqwest::get(url.replace("/mcp", "/metrics"))
        .await
        .expect("metrics")
        .text()
        .await
        .expect("text");
    text.lines().any(|candidate| candidate == line)
}

/// A fresh answer is served again without a request and says so; any write of the adapter
/// drops every kept answer: an update of one item those of the others too, and an EXECUTE
/// whose path is no item's (`POST /todos/2/complete`) the item it changed.
#[tokio::test]
async fn fresh_answers_are_served_until_any_write_of_the_adapter() {
    let api = Api::default();
    let upstream = api.start().await;
    let (_server, url) = server(&upstream, &[]).await;

    let first = get_todo(&url, "alice", 1).await;
    assert!(from_cache(&first).is_none(), "{first}");
    let again = get_todo(&url, "alice", 1).await;
    let warning = from_cache(&again).unwrap_or_else(|| panic!("a cache warning: {again}"));
    assert_eq!(warning["details"]["revalidated"], false);
    assert!(
        warning["details"]["age_seconds"]
            .as_u64()
            .is_some_and(|age| age < 5)
    );
    assert_eq!(again["data"], first["data"]);
    assert_eq!(
        api.requests("/todos/1").len(),
        1,
        "one request for two reads"
    );
    get_todo(&url, "alice", 2).await;
    let list = || {
        stateless_call(
            &url,
            "alice",
            "mcp_aql_read",
            json!({"operation": "list_todos", "params": {}}),
        )
    };
    list().await;
    assert!(from_cache(&list().await).is_some());
    assert_eq!(api.requests("/todos").len(), 1);

    update_todo(&url, 1).await;
    let after = get_todo(&url, "alice", 1).await;
    assert!(from_cache(&after).is_none(), "{after}");
    assert_eq!(after["data"]["title"], "version 1");
    assert_eq!(api.requests("/todos/1").len(), 3, "GET, PATCH, GET");
    assert!(
        from_cache(&list().await).is_none(),
        "the collection was dropped too"
    );
    assert_eq!(api.requests("/todos").len(), 2);
    assert!(
        from_cache(&get_todo(&url, "alice", 2).await).is_none(),
        "a write may change any item: item 2 is asked for again"
    );
    assert!(from_cache(&get_todo(&url, "alice", 2).await).is_some());

    let completed = stateless_call(
        &url,
        "alice",
        "mcp_aql_execute",
        json!({"operation": "complete_todo", "params": {"id": 2}}),
    )
    .await;
    assert_eq!(completed["success"], true, "{completed}");
    let after = get_todo(&url, "alice", 2).await;
    assert!(from_cache(&after).is_none(), "{after}");
    assert_eq!(
        after["data"]["title"], "version 1",
        "never the kept version 0"
    );
    assert!(metric(&url, r#"mcp_aql_cache_lookups_total{outcome="hit"} 3"#).await);
}

/// A `no-cache` answer is asked about each time with its `ETag`; the 304 serves the kept
/// answer and is counted, and a changed item comes back whole.
#[tokio::test]
async fn a_stale_answer_is_revalidated_with_if_none_match() {
    let api = Api::default();
    let upstream = api.start().await;
    let (_server, url) = server(&upstream, &[]).await;

    let first = get_todo(&url, "alice", 100).await;
    let again = get_todo(&url, "alice", 100).await;
    assert_eq!(again["data"], first["data"]);
    let warning = from_cache(&again).unwrap_or_else(|| panic!("a cache warning: {again}"));
    assert_eq!(warning["details"]["revalidated"], true);
    let seen = api.requests("/todos/100");
    assert_eq!(seen.len(), 2);
    assert_eq!(seen[0].if_none_match, None);
    assert_eq!(seen[1].if_none_match.as_deref(), Some("\"v0\""));
    assert!(
        metric(
            &url,
            r#"mcp_aql_cache_lookups_total{outcome="revalidated"} 1"#
        )
        .await
    );

    update_todo(&url, 100).await;
    let changed = get_todo(&url, "alice", 100).await;
    assert_eq!(changed["data"]["title"], "version 1");
    assert!(from_cache(&changed).is_none());
    let revalidated = get_todo(&url, "alice", 100).await;
    assert_eq!(revalidated["data"]["title"], "version 1");
    let seen = api.requests("/todos/100");
    assert_eq!(
        seen.last().and_then(|seen| seen.if_none_match.as_deref()),
        Some("\"v1\"")
    );
}

/// `no-store` answers are never kept, and `--cache off` keeps nothing.
#[tokio::test]
async fn no_store_and_cache_off_keep_nothing() {
    let api = Api::default();
    let upstream = api.start().await;
    let (_server, url) = server(&upstream, &[]).await;
    for _ in 0..2 {
        assert!(from_cache(&get_todo(&url, "alice", 200).await).is_none());
    }
    assert_eq!(api.requests("/todos/200").len(), 2);

    let (_off, off) = server(&upstream, &["--cache", "off"]).await;
    for _ in 0..2 {
        assert!(from_cache(&get_todo(&off, "alice", 3).await).is_none());
    }
    assert_eq!(api.requests("/todos/3").len(), 2);
}

/// With per-request credentials, each caller's answers are kept for that caller alone: the
/// second caller's first read goes upstream with their own key.
#[tokio::test]
async fn callers_with_their_own_credentials_never_share_an_answer() {
    let api = Api::default();
    let upstream = api.start().await;
    let (_server, url) = server(&upstream, &["--credential-header", "authorization"]).await;
    for caller in ["alice-key", "bob-key"] {
        assert!(
            from_cache(&get_todo(&url, caller, 5).await).is_none(),
            "{caller}"
        );
        assert!(
            from_cache(&get_todo(&url, caller, 5).await).is_some(),
            "{caller}"
        );
    }
    let keys: Vec<String> = api
        .requests("/todos/5")
        .into_iter()
        .map(|seen| seen.key)
        .collect();
    assert_eq!(keys, ["alice-key", "bob-key"]);
}

/// Past `--cache-max-bytes` the least recently used answers go first.
#[tokio::test]
async fn the_size_bound_drops_the_least_recently_used() {
    let api = Api::default();
    let upstream = api.start().await;
    let (_server, url) = server(&upstream, &["--cache-max-bytes", "4KiB"]).await;
    for id in 1..=30 {
        get_todo(&url, "alice", id).await;
    }
    assert!(
        from_cache(&get_todo(&url, "alice", 30).await).is_some(),
        "the newest stays"
    );
    assert!(
        from_cache(&get_todo(&url, "alice", 1).await).is_none(),
        "the oldest went"
    );
    assert_eq!(api.requests("/todos/1").len(), 2);
}

/// Instances on one Redis share answers and see each other's mutations.
#[tokio::test]
async fn instances_on_redis_share_the_cache() {
    let api = Api::default();
    let upstream = api.start().await;
    let redis = Redis::start().await;
    let state = redis.url();
    let (_one, one) = server(&upstream, &["--state", &state]).await;
    let (_two, two) = server(&upstream, &["--state", &state]).await;

    assert!(from_cache(&get_todo(&one, "alice", 7).await).is_none());
    assert!(
        from_cache(&get_todo(&two, "alice", 7).await).is_some(),
        "kept by the other"
    );
    update_todo(&one, 7).await;
    let after = get_todo(&two, "alice", 7).await;
    assert!(from_cache(&after).is_none(), "{after}");
    assert_eq!(after["data"]["title"], "version 1");
}
