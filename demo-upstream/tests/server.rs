//! The demo upstream over real HTTP: state round-trips, the request log, auth and faults.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::Duration;

use demo_upstream::{Fault, Options, Running, StatusCode};
use serde_json::{Value, json};

async fn start(options: Options) -> (Running, reqwest::Client) {
    let server = demo_upstream::spawn(options)
        .await
        .expect("bind 127.0.0.1:0");
    (server, reqwest::Client::new())
}

#[tokio::test]
async fn created_issue_can_be_read_back_and_the_log_shows_what_was_sent() {
    let (server, client) = start(Options::default()).await;
    let base = server.base_url();

    let created: Value = client
        .post(format!("{base}/repos/octo/hello-world/issues"))
        .header("authorization", "Bearer anything")
        .json(&json!({ "title": "Docs are thin", "labels": ["docs"] }))
        .send()
        .await
        .expect("send")
        .json()
        .await
        .expect("json");
    let number = created["number"].as_u64().expect("number");

    let url = format!("{base}/repos/octo/hello-world/issues/{number}");
    let fetched: Value = client
        .get(url)
        .send()
        .await
        .expect("send")
        .json()
        .await
        .expect("json");
    assert_eq!(fetched["title"], "Docs are thin");
    assert_eq!(fetched["labels"], json!([{ "name": "docs" }]));

    let open: Value = client
        .get(format!(
            "{base}/repos/octo/hello-world/issues?state=open&labels=docs&per_page=5"
        ))
        .send()
        .await
        .expect("send")
        .json()
        .await
        .expect("json");
    assert_eq!(open.as_array().map(Vec::len), Some(1));

    let log = server.take_requests();
    assert_eq!(log.len(), 3);
    assert_eq!(log[0].method, "POST");
    assert_eq!(log[0].path, "/repos/octo/hello-world/issues");
    assert_eq!(log[0].query, None);
    assert_eq!(log[0].header("Authorization"), Some("Bearer anything"));
    assert_eq!(
        log[0].body_json(),
        Some(json!({ "title": "Docs are thin", "labels": ["docs"] }))
    );
    assert_eq!(log[1].method, "GET");
    assert!(log[1].body.is_empty());
    assert_eq!(
        log[2].query.as_deref(),
        Some("state=open&labels=docs&per_page=5")
    );
    assert_eq!(log[2].query_pairs()[1], ("labels".into(), "docs".into()));
    assert!(server.requests().is_empty());
}

#[tokio::test]
async fn encoded_path_values_are_logged_raw_and_decoded_for_routing() {
    let (server, client) = start(Options::default()).await;
    let base = server.base_url();
    let label = client
        .post(format!("{base}/repos/octo/hello-world/labels"))
        .json(&json!({ "name": "good first issue", "color": "7057ff" }))
        .send()
        .await
        .expect("send");
    assert_eq!(label.status(), StatusCode::CREATED);

    let deleted = client
        .delete(format!(
            "{base}/repos/octo/hello-world/labels/good%20first%20issue"
        ))
        .send()
        .await
        .expect("send");
    assert_eq!(deleted.status(), StatusCode::NO_CONTENT);
    assert_eq!(deleted.bytes().await.expect("body").len(), 0);

    // An encoded `/` is one segment: there is no repository named "a/b".
    let slash = client
        .get(format!("{base}/repos/octo/a%2Fb"))
        .send()
        .await
        .expect("send");
    assert_eq!(slash.status(), StatusCode::NOT_FOUND);
    let paths: Vec<String> = server.requests().into_iter().map(|r| r.path).collect();
    assert_eq!(
        paths[1..],
        [
            "/repos/octo/hello-world/labels/good%20first%20issue",
            "/repos/octo/a%2Fb"
        ]
    );
}

#[tokio::test]
async fn wrong_credentials_get_401_in_each_api_shape() {
    let (server, client) = start(Options {
        bearer_token: Some("s3cret".into()),
        api_key: Some("k3y".into()),
        ..Options::default()
    })
    .await;
    let base = server.base_url();

    let denied = client
        .get(format!("{base}/users/octo"))
        .bearer_auth("wrong")
        .send()
        .await
        .expect("send");
    assert_eq!(denied.status(), StatusCode::UNAUTHORIZED);
    let body: Value = denied.json().await.expect("json");
    assert_eq!(body["message"], "Bad credentials");
    let allowed = client
        .get(format!("{base}/users/octo"))
        .bearer_auth("s3cret")
        .send()
        .await
        .expect("send");
    assert_eq!(allowed.status(), StatusCode::OK);

    let no_key = client
        .get(format!("{base}/todos/1"))
        .send()
        .await
        .expect("send");
    assert_eq!(no_key.status(), StatusCode::UNAUTHORIZED);
    let body: Value = no_key.json().await.expect("json");
    assert_eq!(body["error"], "missing or invalid API key");
    let todo: Value = client
        .get(format!("{base}/todos/1"))
        .header("x-api-key", "k3y")
        .send()
        .await
        .expect("send")
        .json()
        .await
        .expect("json");
    assert_eq!(todo["title"], "Buy milk");
}

#[tokio::test]
async fn faults_replace_the_answer_until_cleared() {
    let (server, client) = start(Options {
        faults: vec![
            Fault::new("/todos", StatusCode::TOO_MANY_REQUESTS)
                .header("retry-after", "7")
                .body(r#"{"error":"slow down"}"#),
        ],
        ..Options::default()
    })
    .await;
    let base = server.base_url();
    server.add_fault(
        Fault::new("/users/octo", StatusCode::BAD_GATEWAY)
            .header("content-type", "text/html")
            .body("<html>bad gateway</html>"),
    );

    let limited = client
        .get(format!("{base}/todos"))
        .send()
        .await
        .expect("send");
    assert_eq!(limited.status(), StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(limited.headers()["retry-after"], "7");
    assert_eq!(limited.headers()["content-type"], "application/json");
    assert_eq!(
        limited.text().await.expect("text"),
        r#"{"error":"slow down"}"#
    );

    let html = client
        .get(format!("{base}/users/octo"))
        .send()
        .await
        .expect("send");
    assert_eq!(html.status(), StatusCode::BAD_GATEWAY);
    assert_eq!(html.headers()["content-type"], "text/html");

    server.clear_faults();
    let normal = client
        .get(format!("{base}/todos"))
        .send()
        .await
        .expect("send");
    assert_eq!(normal.status(), StatusCode::OK);
    assert_eq!(server.requests().len(), 3);
}

#[tokio::test]
async fn a_delayed_fault_outlasts_a_short_client_timeout() {
    let (server, client) = start(Options::default()).await;
    server.add_fault(Fault::new("/users/octo", StatusCode::OK).delay(Duration::from_secs(5)));
    let outcome = client
        .get(format!("{}/users/octo", server.base_url()))
        .timeout(Duration::from_millis(200))
        .send()
        .await;
    assert!(outcome.is_err_and(|error| error.is_timeout()));
}

#[tokio::test]
async fn dropping_the_handle_stops_the_server() {
    let (server, client) = start(Options::default()).await;
    let url = format!("{}/users/octo", server.base_url());
    assert!(client.get(&url).send().await.is_ok());
    drop(server);
    // Shutdown completes in the server task; give it a bounded number of chances.
    let fresh = reqwest::Client::builder()
        .pool_max_idle_per_host(0)
        .build()
        .expect("client");
    let mut refused = false;
    for _ in 0..100 {
        if fresh.get(&url).send().await.is_err() {
            refused = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(
        refused,
        "server still answering after its handle was dropped"
    );
}

#[test]
fn the_binary_prints_only_its_base_url() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_demo-upstream"))
        .args(["--port", "0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn demo-upstream");
    let stdout = child.stdout.take().expect("piped stdout");
    let mut line = String::new();
    BufReader::new(stdout)
        .read_line(&mut line)
        .expect("read first line");
    let base = line.trim_end().to_owned();

    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let repo: Result<Value, reqwest::Error> = runtime.block_on(async {
        reqwest::get(format!("{base}/repos/octo/hello-world"))
            .await?
            .json()
            .await
    });
    child.kill().expect("kill");
    child.wait().expect("wait");

    assert!(
        base.starts_with("http://127.0.0.1:"),
        "first line: {line:?}"
    );
    assert_eq!(repo.expect("repository")["full_name"], "octo/hello-world");
}

#[tokio::test]
async fn a_streamed_fault_body_has_no_length_up_front() {
    let (server, client) = start(Options::default()).await;
    let huge = vec![b'x'; 11 * 1024 * 1024];
    server.add_fault(Fault::new("/huge", StatusCode::OK).body(huge.clone()));
    server.add_fault(
        Fault::new("/huge-streamed", StatusCode::OK)
            .body(huge.clone())
            .streamed(),
    );

    let sized = client
        .get(format!("{}/huge", server.base_url()))
        .send()
        .await
        .expect("send");
    assert_eq!(sized.content_length(), Some(huge.len() as u64));

    let streamed = client
        .get(format!("{}/huge-streamed", server.base_url()))
        .send()
        .await
        .expect("send");
    assert_eq!(streamed.content_length(), None);
    assert_eq!(streamed.bytes().await.expect("body"), huge);
}
