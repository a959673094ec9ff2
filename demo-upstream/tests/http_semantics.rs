//! The HTTP around the JSON: GitHub's `Link` header on lists, `ETag`s and `If-Match`, `null`
//! in a `PATCH`, GitHub's caching headers and 304s on request, and the cursor-paginated
//! `GET /activity` of the todo API.

use demo_upstream::{Options, Running, StatusCode};
use reqwest::{Client, Response};
use serde_json::{Value, json};

async fn start() -> (Running, Client) {
    let server = demo_upstream::spawn(Options::default())
        .await
        .expect("bind 127.0.0.1:0");
    (server, Client::new())
}

async fn get(client: &Client, url: &str) -> Response {
    client.get(url).send().await.expect("send")
}

async fn post(client: &Client, url: &str, body: Value) {
    let response = client.post(url).json(&body).send().await.expect("send");
    assert!(response.status().is_success(), "POST {url}");
}

async fn patch(client: &Client, url: &str, if_match: Option<&str>, body: Value) -> Response {
    let mut request = client.patch(url).json(&body);
    if let Some(tag) = if_match {
        request = request.header("if-match", tag);
    }
    request.send().await.expect("send")
}

fn header(response: &Response, name: &str) -> Option<String> {
    response
        .headers()
        .get(name)
        .map(|value| value.to_str().expect("ASCII header").to_owned())
}

async fn json(response: Response) -> Value {
    response.json().await.expect("json")
}

/// The ETag of `url`, checked to be `W/"` and 16 hex digits.
async fn etag(client: &Client, url: &str) -> String {
    let tag = header(&get(client, url).await, "etag").expect("ETag");
    let digits = tag
        .strip_prefix("W/\"")
        .and_then(|rest| rest.strip_suffix('"'))
        .expect("weak ETag");
    assert!(
        digits.len() == 16 && digits.bytes().all(|b| b.is_ascii_hexdigit()),
        "{tag}"
    );
    tag
}

#[tokio::test]
async fn list_pages_link_to_each_other_with_absolute_urls() {
    let (server, client) = start().await;
    let base = server.base_url();
    let comments = format!("{base}/repos/octo/hello-world/issues/1/comments");
    for n in 0..4 {
        post(
            &client,
            &comments,
            json!({ "body": format!("comment {n}") }),
        )
        .await;
    }

    let first = get(&client, &format!("{comments}?per_page=2")).await;
    assert_eq!(
        header(&first, "link"),
        Some(format!(
            r#"<{comments}?per_page=2&page=2>; rel="next", <{comments}?per_page=2&page=3>; rel="last""#
        ))
    );
    assert_eq!(json(first).await.as_array().map(Vec::len), Some(2));

    // `page` is replaced where it stood; the other params keep their place.
    let middle = get(&client, &format!("{comments}?page=2&per_page=2")).await;
    let expected = [(1, "prev"), (3, "next"), (3, "last"), (1, "first")]
        .map(|(page, rel)| format!(r#"<{comments}?page={page}&per_page=2>; rel="{rel}""#))
        .join(", ");
    assert_eq!(header(&middle, "link"), Some(expected));

    let last = get(&client, &format!("{comments}?per_page=2&page=3")).await;
    assert_eq!(
        header(&last, "link"),
        Some(format!(
            r#"<{comments}?per_page=2&page=2>; rel="prev", <{comments}?per_page=2&page=1>; rel="first""#
        ))
    );
    assert_eq!(json(last).await.as_array().map(Vec::len), Some(1));

    // Past the end, `prev` leads back to the last page.
    let beyond = get(&client, &format!("{comments}?per_page=2&page=9")).await;
    let link = header(&beyond, "link").expect("Link");
    assert!(link.starts_with(&format!("<{comments}?per_page=2&page=3>; rel=\"prev\"")));
    assert_eq!(json(beyond).await, json!([]));

    // Five comments fit in the default 30 and in a `per_page` above 100, clamped to 100.
    for query in ["", "?per_page=500"] {
        let one_page = get(&client, &format!("{comments}{query}")).await;
        assert_eq!(header(&one_page, "link"), None, "{query}");
        assert_eq!(json(one_page).await.as_array().map(Vec::len), Some(5));
    }
}

#[tokio::test]
async fn every_paginated_github_route_sends_link() {
    let (server, client) = start().await;
    let base = server.base_url();
    let repo = format!("{base}/repos/octo/hello-world");
    post(
        &client,
        &format!("{base}/user/repos"),
        json!({ "name": "second" }),
    )
    .await;
    post(
        &client,
        &format!("{repo}/issues/1/comments"),
        json!({ "body": "again" }),
    )
    .await;
    let pull = json!({ "title": "More", "head": "more", "base": "main" });
    post(&client, &format!("{repo}/pulls"), pull).await;

    for path in [
        "/users/octo/repos",
        "/repos/octo/hello-world/issues?state=all",
        "/repos/octo/hello-world/issues/1/comments",
        "/repos/octo/hello-world/pulls",
        "/repos/octo/hello-world/actions/runs",
        "/search/issues?q=repo%3Aocto%2Fhello-world",
    ] {
        let separator = if path.contains('?') { '&' } else { '?' };
        let url = format!("{base}{path}{separator}per_page=1");
        let response = get(&client, &url).await;
        assert_eq!(response.status(), StatusCode::OK, "{path}");
        assert_eq!(
            header(&response, "link"),
            Some(format!(
                r#"<{url}&page=2>; rel="next", <{url}&page=2>; rel="last""#
            )),
            "{path}"
        );
    }
}

#[tokio::test]
async fn link_urls_use_the_host_the_client_sent_and_keep_the_query_as_sent() {
    let (server, client) = start().await;
    let query = "q=repo%3Aocto%2Fhello-world&extra=a+b%20c&per_page=1";
    let response = client
        .get(format!("{}/search/issues?{query}", server.base_url()))
        .header("host", "api.example.test")
        .send()
        .await
        .expect("send");
    let url = format!("http://api.example.test/search/issues?{query}&page=2");
    assert_eq!(
        header(&response, "link"),
        Some(format!(r#"<{url}>; rel="next", <{url}>; rel="last""#))
    );
}

#[tokio::test]
async fn single_resources_carry_an_etag_that_if_match_checks() {
    let (server, client) = start().await;
    let base = server.base_url();
    for path in [
        "/repos/octo/hello-world",
        "/repos/octo/hello-world/issues/1",
        "/repos/octo/hello-world/pulls/3",
        "/todos/1",
    ] {
        let url = format!("{base}{path}");
        assert_eq!(
            etag(&client, &url).await,
            etag(&client, &url).await,
            "{path}"
        );
    }

    let issue = format!("{base}/repos/octo/hello-world/issues/1");
    let before = etag(&client, &issue).await;
    let stale = patch(
        &client,
        &issue,
        Some("W/\"0000000000000000\""),
        json!({ "title": "x" }),
    )
    .await;
    assert_eq!(stale.status(), StatusCode::PRECONDITION_FAILED);
    assert_eq!(
        json(stale).await,
        json!({ "message": "Precondition Failed", "documentation_url": "https://docs.github.com/rest" })
    );
    assert_eq!(etag(&client, &issue).await, before, "a 412 changes nothing");

    let changed = patch(
        &client,
        &issue,
        Some(&before),
        json!({ "title": "Renamed" }),
    )
    .await;
    assert_eq!(changed.status(), StatusCode::OK);
    let after = header(&changed, "etag").expect("ETag on PATCH");
    assert_ne!(after, before);
    assert_eq!(etag(&client, &issue).await, after);
    let stale = patch(&client, &issue, Some(&before), json!({ "title": "Again" })).await;
    assert_eq!(stale.status(), StatusCode::PRECONDITION_FAILED);
    let listed = format!("W/\"1\", {after}");
    // Each PATCH stamps `updated_at`, so only the first may name the version.
    for if_match in [Some(listed.as_str()), Some("*"), None] {
        let response = patch(&client, &issue, if_match, json!({})).await;
        assert_eq!(response.status(), StatusCode::OK, "{if_match:?}");
    }

    let repo = format!("{base}/repos/octo/hello-world");
    let stale = patch(
        &client,
        &repo,
        Some("\"nope\""),
        json!({ "name": "renamed" }),
    )
    .await;
    assert_eq!(stale.status(), StatusCode::PRECONDITION_FAILED);
    assert_eq!(get(&client, &repo).await.status(), StatusCode::OK);
}

#[tokio::test]
async fn todo_patch_and_delete_honour_if_match() {
    let (server, client) = start().await;
    let todo = format!("{}/todos/1", server.base_url());
    let current = etag(&client, &todo).await;

    let stale = patch(&client, &todo, Some("W/\"stale\""), json!({ "title": "x" })).await;
    assert_eq!(stale.status(), StatusCode::PRECONDITION_FAILED);
    let body = json(stale).await;
    assert!(body["error"].is_string(), "{body}");
    let deleted = client
        .delete(&todo)
        .header("if-match", "W/\"stale\"")
        .send()
        .await
        .expect("send");
    assert_eq!(deleted.status(), StatusCode::PRECONDITION_FAILED);
    assert_eq!(etag(&client, &todo).await, current, "a 412 changes nothing");

    let changed = patch(
        &client,
        &todo,
        Some(&current),
        json!({ "priority": "high" }),
    )
    .await;
    assert_eq!(changed.status(), StatusCode::OK);
    let current = header(&changed, "etag").expect("ETag on PATCH");
    let deleted = client
        .delete(&todo)
        .header("if-match", &current)
        .send()
        .await
        .expect("send");
    assert_eq!(deleted.status(), StatusCode::NO_CONTENT);
    assert_eq!(get(&client, &todo).await.status(), StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn null_in_a_patch_clears_the_field() {
    let (server, client) = start().await;
    let base = server.base_url();

    let todo = format!("{base}/todos/2");
    patch(&client, &todo, None, json!({ "notes": "call Bob" })).await;
    let cleared = json!({ "notes": null, "due": null, "tags": null });
    let answer = json(patch(&client, &todo, None, cleared).await).await;
    let stored = json(get(&client, &todo).await).await;
    assert_eq!(answer, stored);
    for field in ["notes", "due", "tags"] {
        assert_eq!(stored[field], Value::Null, "{field}");
    }
    assert_eq!(stored["title"], "Write the report");

    let issue = format!("{base}/repos/octo/hello-world/issues/1");
    patch(&client, &issue, None, json!({ "milestone": 1 })).await;
    patch(
        &client,
        &issue,
        None,
        json!({ "body": null, "milestone": null }),
    )
    .await;
    let stored = json(get(&client, &issue).await).await;
    assert_eq!(
        (&stored["body"], &stored["milestone"]),
        (&Value::Null, &Value::Null)
    );
    assert_eq!(stored["title"], "Found a bug");

    let repo = format!("{base}/repos/octo/hello-world");
    patch(
        &client,
        &repo,
        None,
        json!({ "homepage": "https://example.test" }),
    )
    .await;
    assert_eq!(
        json(get(&client, &repo).await).await["homepage"],
        "https://example.test"
    );
    patch(
        &client,
        &repo,
        None,
        json!({ "description": null, "homepage": null }),
    )
    .await;
    let stored = json(get(&client, &repo).await).await;
    assert_eq!(
        (&stored["description"], &stored["homepage"]),
        (&Value::Null, &Value::Null)
    );
}

/// Every page of `/activity` with `limit`, following `next_cursor`.
async fn activity_pages(client: &Client, base: &str, limit: &str) -> Vec<Value> {
    let mut pages = Vec::new();
    let mut url = format!("{base}/activity{limit}");
    loop {
        let page = json(get(client, &url).await).await;
        let next = page["next_cursor"].as_str().map(str::to_owned);
        pages.push(page);
        let Some(cursor) = next else {
            return pages;
        };
        let separator = if limit.is_empty() { '?' } else { '&' };
        url = format!("{base}/activity{limit}{separator}cursor={cursor}");
    }
}

#[tokio::test]
async fn activity_pages_by_cursor_from_the_seed_on() {
    let (server, client) = start().await;
    let base = server.base_url();

    let pages = activity_pages(&client, &base, "").await;
    assert_eq!(pages.len(), 2, "the default limit is 2: {pages:?}");
    assert!(pages[0]["next_cursor"].is_string());
    assert_eq!(pages[1]["next_cursor"], Value::Null);
    let entries: Vec<Value> = pages
        .iter()
        .flat_map(|page| page["entries"].as_array().expect("entries").clone())
        .collect();
    assert_eq!(
        entries,
        [
            (1, "created", 1, 1),
            (2, "created", 2, 2),
            (3, "created", 3, 3),
            (4, "completed", 3, 4),
        ]
        .map(|(id, kind, todo_id, second)| json!({
            "id": id,
            "kind": kind,
            "todo_id": todo_id,
            "at": format!("2026-01-01T00:00:{second:02}Z"),
        }))
    );

    patch(
        &client,
        &format!("{base}/todos/1"),
        None,
        json!({ "title": "Buy oat milk" }),
    )
    .await;
    let refused = patch(
        &client,
        &format!("{base}/todos/2"),
        Some("W/\"old\""),
        json!({}),
    )
    .await;
    assert_eq!(refused.status(), StatusCode::PRECONDITION_FAILED);
    client
        .delete(format!("{base}/todos/2"))
        .send()
        .await
        .expect("send");
    client
        .delete(format!("{base}/todos/completed"))
        .send()
        .await
        .expect("send");
    let all = json(get(&client, &format!("{base}/activity?limit=50")).await).await;
    let kinds: Vec<(&str, u64)> = all["entries"]
        .as_array()
        .expect("entries")
        .iter()
        .map(|entry| {
            (
                entry["kind"].as_str().unwrap_or_default(),
                entry["todo_id"].as_u64().unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(kinds[4..], [("updated", 1), ("deleted", 2), ("deleted", 3)]);
    assert_eq!(all["next_cursor"], Value::Null);
}

#[tokio::test]
async fn activity_limit_is_clamped_to_50() {
    let (server, client) = start().await;
    let base = server.base_url();
    for n in 0..50 {
        post(
            &client,
            &format!("{base}/todos"),
            json!({ "title": format!("todo {n}") }),
        )
        .await;
    }
    let pages = activity_pages(&client, &base, "?limit=1000").await;
    let sizes: Vec<usize> = pages
        .iter()
        .map(|page| page["entries"].as_array().map_or(0, Vec::len))
        .collect();
    assert_eq!(sizes, [50, 4]);
    assert_eq!(pages[1]["entries"][3]["id"], 54);
}

#[tokio::test]
async fn a_cursor_the_server_did_not_make_is_refused() {
    let (server, client) = start().await;
    let base = server.base_url();
    let page = json(get(&client, &format!("{base}/activity")).await).await;
    let cursor = page["next_cursor"].as_str().expect("cursor").to_owned();
    assert_eq!(
        get(&client, &format!("{base}/activity?cursor={cursor}"))
            .await
            .status(),
        StatusCode::OK
    );

    for bad in ["", "nope", "c2", "ffffffffffffffff", &format!("{cursor}0")] {
        let response = get(&client, &format!("{base}/activity?cursor={bad}")).await;
        assert_eq!(response.status(), StatusCode::BAD_REQUEST, "{bad:?}");
        assert_eq!(json(response).await, json!({ "error": "invalid cursor" }));
    }
}

#[tokio::test]
async fn activity_is_a_todo_route() {
    let server = demo_upstream::spawn(Options {
        api_key: Some("k3y".into()),
        ..Options::default()
    })
    .await
    .expect("bind 127.0.0.1:0");
    let client = Client::new();
    let url = format!("{}/activity", server.base_url());
    let denied = get(&client, &url).await;
    assert_eq!(denied.status(), StatusCode::UNAUTHORIZED);
    let allowed = client
        .get(&url)
        .header("x-api-key", "k3y")
        .send()
        .await
        .expect("send");
    assert_eq!(allowed.status(), StatusCode::OK);
    assert_eq!(
        header(&allowed, "x-ratelimit-limit"),
        None,
        "not GitHub's budget"
    );
}

#[tokio::test]
async fn adding_labels_keeps_the_issue_s_own_and_answers_them_all() {
    let (server, client) = start().await;
    let labels = format!(
        "{}/repos/octo/hello-world/issues/1/labels",
        server.base_url()
    );
    let added = client
        .post(&labels)
        .json(&json!({"labels": ["bug", "triaged"]}))
        .send()
        .await
        .expect("send");
    assert_eq!(added.status(), StatusCode::OK);
    let names: Vec<Value> = json(added)
        .await
        .as_array()
        .expect("an array of labels")
        .iter()
        .map(|label| label["name"].clone())
        .collect();
    assert_eq!(names, [json!("bug"), json!("triaged")]);
    let issue = json(get(&client, &labels.replace("/labels", "")).await).await;
    assert_eq!(issue["labels"].as_array().map(Vec::len), Some(2));

    let refused = client
        .post(&labels)
        .json(&json!({"names": ["bug"]}))
        .send()
        .await
        .expect("send");
    assert_eq!(refused.status(), StatusCode::UNPROCESSABLE_ENTITY);
}

/// With `github_caching`, GETs say how GitHub lets them be kept, and a matching
/// `If-None-Match` gets 304 until the resource changes.
#[tokio::test]
async fn github_caching_answers_304_while_unchanged() {
    let server = demo_upstream::spawn(Options {
        github_caching: true,
        ..Options::default()
    })
    .await
    .expect("bind 127.0.0.1:0");
    let client = Client::new();
    let url = format!("{}/repos/octo/hello-world/issues/1", server.base_url());
    let first = get(&client, &url).await;
    assert_eq!(
        header(&first, "cache-control").as_deref(),
        Some("private, max-age=60, s-maxage=60")
    );
    let etag = header(&first, "etag").expect("an ETag");
    let ask = |tag: String| client.get(&url).header("if-none-match", tag).send();
    let unchanged = ask(etag.clone()).await.expect("send");
    assert_eq!(unchanged.status(), StatusCode::NOT_MODIFIED);
    assert_eq!(unchanged.text().await.expect("body"), "");
    let changed = patch(&client, &url, None, json!({"title": "Renamed"})).await;
    assert_eq!(changed.status(), StatusCode::OK);
    assert_eq!(ask(etag).await.expect("send").status(), StatusCode::OK);
}
