//! Work that outlives one request, over real HTTP: the jobs behind the todo API's key
//! (`/jobs`) and GitHub's dispatched workflow runs, each polled from start to finish and
//! canceled on the way.
//!
//! State follows wall-clock time, so the timings are short but generous, and an assertion about
//! an early state is made only when the client saw the answer soon enough for it to hold.

use std::time::{Duration, Instant};

use demo_upstream::{Options, Running, StatusCode};
use reqwest::{Client, Response};
use serde_json::{Value, json};

/// How long a poll waits for a state it expects.
const PATIENCE: Duration = Duration::from_secs(20);

async fn start(options: Options) -> (Running, Client) {
    let server = demo_upstream::spawn(options)
        .await
        .expect("bind 127.0.0.1:0");
    (server, Client::new())
}

async fn post(client: &Client, url: &str, body: Value) -> Response {
    client.post(url).json(&body).send().await.expect("send")
}

async fn get(client: &Client, url: &str) -> Response {
    client.get(url).send().await.expect("send")
}

fn header(response: &Response, name: &str) -> Option<String> {
    response
        .headers()
        .get(name)
        .map(|value| value.to_str().expect("ASCII header").to_owned())
}

/// The status and JSON body of `response`.
async fn answer(response: Response) -> (StatusCode, Value) {
    let status = response.status();
    (status, response.json().await.expect("JSON body"))
}

/// GETs `url` every 10 ms until `done` holds, and answers the distinct values of `field`
/// seen on the way, in order, and the last body.
async fn poll(client: &Client, url: &str, field: &str, done: &str) -> (Vec<String>, Value) {
    let deadline = Instant::now() + PATIENCE;
    let mut seen: Vec<String> = Vec::new();
    loop {
        let (status, body) = answer(get(client, url).await).await;
        assert_eq!(status, StatusCode::OK, "{url}: {body}");
        let value = body[field].as_str().expect("state field").to_owned();
        if seen.last() != Some(&value) {
            seen.push(value.clone());
        }
        if value == done {
            return (seen, body);
        }
        assert!(
            Instant::now() < deadline,
            "{url} never reached {done}: {seen:?}"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

#[tokio::test]
async fn a_job_is_accepted_then_queued_running_and_succeeded() {
    let (server, client) = start(Options::default()).await;
    let base = server.base_url();
    let before = Instant::now();
    let accepted = post(
        &client,
        &format!("{base}/jobs"),
        json!({ "kind": "export", "steps": 3, "step_ms": 100, "start_after_ms": 200 }),
    )
    .await;
    assert_eq!(accepted.status(), StatusCode::ACCEPTED);
    assert_eq!(
        header(&accepted, "location").as_deref(),
        Some("/jobs/job_1")
    );
    assert_eq!(
        header(&accepted, "operation-location").as_deref(),
        Some("/jobs/job_1")
    );
    let (_, body) = answer(accepted).await;
    assert_eq!(
        body,
        json!({ "id": "job_1", "state": "queued", "kind": "export" })
    );

    let url = format!("{base}/jobs/job_1");
    let (status, first) = answer(get(&client, &url).await).await;
    assert_eq!(status, StatusCode::OK);
    if before.elapsed() < Duration::from_millis(200) {
        assert_eq!(first["state"], "queued", "{first}");
        assert_eq!(
            first["progress"],
            json!({ "done": 0, "total": 3, "percent": 0 })
        );
        assert_eq!(first["message"], "step 0 of 3");
    }
    assert_eq!(first["kind"], "export");
    assert_eq!(first["finished_at"], Value::Null);
    let created_at = first["created_at"].as_str().expect("created_at");
    assert!(
        created_at.len() == 24 && created_at.ends_with('Z'),
        "{created_at}"
    );

    let (states, done) = poll(&client, &url, "state", "succeeded").await;
    assert!(
        states.ends_with(&["running".to_owned(), "succeeded".to_owned()]),
        "{states:?}"
    );
    assert!(states.len() <= 3 && states[0] != "succeeded", "{states:?}");
    assert_eq!(
        done["progress"],
        json!({ "done": 3, "total": 3, "percent": 100 })
    );
    assert_eq!(done["message"], "step 3 of 3");
    assert_eq!(done["result"], json!({ "rows": 30 }));
    assert!(done.get("error").is_none(), "{done}");
    let finished_at = done["finished_at"].as_str().expect("finished_at");
    assert!(finished_at > created_at, "{created_at} .. {finished_at}");

    // Finished for good: canceling now is a conflict, and the job stays as it was.
    let (status, body) = answer(post(&client, &format!("{url}/cancel"), json!({})).await).await;
    assert_eq!(status, StatusCode::CONFLICT);
    assert_eq!(
        body,
        json!({ "error": "job job_1 already finished (succeeded)" })
    );
    let (_, again) = answer(get(&client, &url).await).await;
    assert_eq!(again, done);
}

#[tokio::test]
async fn a_job_fails_at_fail_at() {
    let (server, client) = start(Options::default()).await;
    let base = server.base_url();
    let body = json!({ "kind": "import", "steps": 3, "step_ms": 50, "fail_at": 2 });
    let (status, _) = answer(post(&client, &format!("{base}/jobs"), body).await).await;
    assert_eq!(status, StatusCode::ACCEPTED);

    let url = format!("{base}/jobs/job_1");
    let (states, failed) = poll(&client, &url, "state", "failed").await;
    assert!(!states.contains(&"succeeded".to_owned()), "{states:?}");
    assert_eq!(
        failed["error"],
        json!({ "code": "JOB_FAILED", "message": "step 2 failed" })
    );
    assert_eq!(
        failed["progress"],
        json!({ "done": 2, "total": 3, "percent": 66 })
    );
    assert!(failed.get("result").is_none(), "{failed}");
    assert!(failed["finished_at"].is_string(), "{failed}");

    let (status, body) = answer(post(&client, &format!("{url}/cancel"), json!({})).await).await;
    assert_eq!(status, StatusCode::CONFLICT);
    assert_eq!(body["error"], "job job_1 already finished (failed)");
}

#[tokio::test]
async fn canceling_a_running_or_queued_job_freezes_it() {
    let (server, client) = start(Options::default()).await;
    let base = server.base_url();
    let jobs = format!("{base}/jobs");
    let long = json!({ "kind": "reindex", "steps": 1000, "step_ms": 50 });
    assert_eq!(
        post(&client, &jobs, long).await.status(),
        StatusCode::ACCEPTED
    );
    let running = format!("{jobs}/job_1");
    poll(&client, &running, "state", "running").await;

    let (status, body) = answer(post(&client, &format!("{running}/cancel"), json!({})).await).await;
    assert_eq!(status, StatusCode::ACCEPTED);
    assert_eq!(body, json!({ "id": "job_1", "state": "canceled" }));
    let (_, canceled) = answer(get(&client, &running).await).await;
    assert_eq!(canceled["state"], "canceled");
    assert!(canceled["finished_at"].is_string(), "{canceled}");
    assert!(canceled.get("result").is_none() && canceled.get("error").is_none());
    // Its progress no longer moves.
    tokio::time::sleep(Duration::from_millis(120)).await;
    let (_, later) = answer(get(&client, &running).await).await;
    assert_eq!(later, canceled);
    let (status, body) = answer(post(&client, &format!("{running}/cancel"), json!({})).await).await;
    assert_eq!(status, StatusCode::CONFLICT);
    assert_eq!(body["error"], "job job_1 already finished (canceled)");

    let waiting = json!({ "kind": "reindex", "start_after_ms": 60_000 });
    assert_eq!(
        post(&client, &jobs, waiting).await.status(),
        StatusCode::ACCEPTED
    );
    let queued = format!("{jobs}/job_2");
    let (_, before) = answer(get(&client, &queued).await).await;
    assert_eq!(before["state"], "queued");
    assert_eq!(
        before["progress"],
        json!({ "done": 0, "total": 5, "percent": 0 })
    );
    let (status, _) = answer(post(&client, &format!("{queued}/cancel"), json!({})).await).await;
    assert_eq!(status, StatusCode::ACCEPTED);
    let (_, after) = answer(get(&client, &queued).await).await;
    assert_eq!(after["state"], "canceled");
    assert_eq!(after["message"], "step 0 of 5");
}

#[tokio::test]
async fn bad_job_bodies_get_400_or_422_and_unknown_jobs_404() {
    let (server, client) = start(Options::default()).await;
    let base = server.base_url();
    let jobs = format!("{base}/jobs");
    let long_kind = "k".repeat(65);
    for (body, status, error) in [
        (json!({}), 400, "kind is required"),
        (json!({ "kind": 7 }), 400, "kind must be a string"),
        (
            json!({ "kind": "" }),
            422,
            "kind must be 1 to 64 characters",
        ),
        (
            json!({ "kind": long_kind }),
            422,
            "kind must be 1 to 64 characters",
        ),
        (
            json!({ "kind": "x", "steps": "5" }),
            400,
            "steps must be an integer",
        ),
        (
            json!({ "kind": "x", "steps": 2.5 }),
            400,
            "steps must be an integer",
        ),
        (
            json!({ "kind": "x", "steps": 0 }),
            422,
            "steps must be between 1 and 1000",
        ),
        (
            json!({ "kind": "x", "steps": 1001 }),
            422,
            "steps must be between 1 and 1000",
        ),
        (
            json!({ "kind": "x", "step_ms": -1 }),
            422,
            "step_ms must be between 1 and 60000",
        ),
        (
            json!({ "kind": "x", "step_ms": 60_001 }),
            422,
            "step_ms must be between 1 and 60000",
        ),
        (
            json!({ "kind": "x", "fail_at": 0 }),
            422,
            "fail_at must be between 1 and 5",
        ),
        (
            json!({ "kind": "x", "steps": 2, "fail_at": 3 }),
            422,
            "fail_at must be between 1 and 2",
        ),
        (
            json!({ "kind": "x", "start_after_ms": 60_001 }),
            422,
            "start_after_ms must be between 0 and 60000",
        ),
    ] {
        let (got, answered) = answer(post(&client, &jobs, body.clone()).await).await;
        assert_eq!(got.as_u16(), status, "{body}: {answered}");
        assert_eq!(answered, json!({ "error": error }), "{body}");
    }
    let not_json = client
        .post(&jobs)
        .body("kind=x")
        .send()
        .await
        .expect("send");
    assert_eq!(not_json.status(), StatusCode::BAD_REQUEST);
    assert!(answer(not_json).await.1["error"].is_string());

    // Nothing was created by the refused bodies; the edges of each range are accepted.
    let edges = json!({ "kind": "k".repeat(64), "steps": 1000, "step_ms": 1, "fail_at": 1000, "start_after_ms": 0 });
    let (status, body) = answer(post(&client, &jobs, edges).await).await;
    assert_eq!(status, StatusCode::ACCEPTED);
    assert_eq!(body["id"], "job_1");

    for path in ["/jobs/job_2", "/jobs/job_0", "/jobs/nope", "/jobs/2"] {
        let (status, body) = answer(get(&client, &format!("{base}{path}")).await).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{path}");
        let id = path.trim_start_matches("/jobs/");
        assert_eq!(body, json!({ "error": format!("job {id} not found") }));
        let cancel = format!("{base}{path}/cancel");
        let (status, _) = answer(post(&client, &cancel, json!({})).await).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{cancel}");
    }
    let (status, body) = answer(get(&client, &jobs).await).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(body["error"], "no such route");
}

#[tokio::test]
async fn jobs_want_the_todo_api_key_and_are_logged_without_rate_limit_headers() {
    let (server, client) = start(Options {
        api_key: Some("k3y".into()),
        bearer_token: Some("s3cret".into()),
        ..Options::default()
    })
    .await;
    let jobs = format!("{}/jobs", server.base_url());
    let denied = client
        .post(&jobs)
        .bearer_auth("s3cret")
        .json(&json!({ "kind": "export" }))
        .send()
        .await
        .expect("send");
    assert_eq!(denied.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(header(&denied, "x-ratelimit-limit"), None);
    assert_eq!(
        answer(denied).await.1,
        json!({ "error": "missing or invalid API key" })
    );
    let unknown = client
        .get(format!("{jobs}/job_1"))
        .send()
        .await
        .expect("send");
    assert_eq!(unknown.status(), StatusCode::UNAUTHORIZED);

    let accepted = client
        .post(&jobs)
        .header("x-api-key", "k3y")
        .json(&json!({ "kind": "export" }))
        .send()
        .await
        .expect("send");
    assert_eq!(accepted.status(), StatusCode::ACCEPTED);
    assert_eq!(header(&accepted, "x-ratelimit-limit"), None);

    let log = server.requests();
    assert_eq!(log.len(), 3);
    assert_eq!(
        (log[2].method.as_str(), log[2].path.as_str()),
        ("POST", "/jobs")
    );
    assert_eq!(log[2].header("x-api-key"), Some("k3y"));
    assert_eq!(log[2].body_json(), Some(json!({ "kind": "export" })));
}

#[tokio::test]
async fn a_dispatched_run_is_queued_in_progress_then_completed() {
    let (server, client) = start(Options::default()).await;
    let base = server.base_url();
    let repo = format!("{base}/repos/octo/hello-world");
    let before = Instant::now();
    let dispatched = post(
        &client,
        &format!("{repo}/actions/workflows/ci.yml/dispatches"),
        json!({ "ref": "main", "inputs": { "level": "full" }, "return_run_details": true }),
    )
    .await;
    assert_eq!(
        header(&dispatched, "x-ratelimit-used").as_deref(),
        Some("1")
    );
    let (status, details) = answer(dispatched).await;
    assert_eq!(status, StatusCode::OK);
    let id = details["workflow_run_id"]
        .as_u64()
        .expect("workflow_run_id");
    let run_url = format!("{repo}/actions/runs/{id}");
    assert_eq!(
        details,
        json!({
            "workflow_run_id": id,
            "run_url": run_url,
            "html_url": format!("https://github.com/octo/hello-world/actions/runs/{id}"),
        })
    );

    let (status, first) = answer(get(&client, &run_url).await).await;
    assert_eq!(status, StatusCode::OK);
    if before.elapsed() < Duration::from_millis(100) {
        assert_eq!(first["status"], "queued", "{first}");
    }
    assert_eq!(first["id"], id);
    assert_eq!(first["name"], "ci.yml");
    assert_eq!(first["head_branch"], "main");
    assert_eq!(first["run_attempt"], 1);
    assert_eq!(first["conclusion"], Value::Null);
    assert_eq!(first["url"], details["run_url"]);
    assert_eq!(first["html_url"], details["html_url"]);
    assert_eq!(first["run_started_at"], first["created_at"]);
    let created_at = first["created_at"].as_str().expect("created_at");
    assert!(
        created_at.len() == 20 && created_at.ends_with('Z'),
        "{created_at}"
    );

    let (statuses, done) = poll(&client, &run_url, "status", "completed").await;
    assert!(
        statuses.ends_with(&["in_progress".to_owned(), "completed".to_owned()]),
        "{statuses:?}"
    );
    assert!(
        statuses.len() <= 3 && statuses[0] != "completed",
        "{statuses:?}"
    );
    assert_eq!(done["conclusion"], "success");
    assert!(done["updated_at"].as_str() >= Some(created_at), "{done}");

    let (status, body) = answer(post(&client, &format!("{run_url}/cancel"), json!({})).await).await;
    assert_eq!(status, StatusCode::CONFLICT);
    assert_eq!(
        body["message"],
        "Cannot cancel a workflow run that is completed."
    );
}

#[tokio::test]
async fn a_dispatch_without_run_details_answers_204_and_still_starts_a_run() {
    let (server, client) = start(Options::default()).await;
    let repo = format!("{}/repos/octo/hello-world", server.base_url());
    let dispatched = post(
        &client,
        &format!("{repo}/actions/workflows/fail.yml/dispatches"),
        json!({ "ref": "release", "inputs": { "duration_ms": "150" } }),
    )
    .await;
    assert_eq!(dispatched.status(), StatusCode::NO_CONTENT);
    assert!(dispatched.bytes().await.expect("body").is_empty());

    let runs = format!("{repo}/actions/runs?branch=release");
    let (_, list) = answer(get(&client, &runs).await).await;
    assert_eq!(list["total_count"], 1);
    let run = &list["workflow_runs"][0];
    assert_eq!(run["name"], "fail.yml");
    assert_eq!(run["inputs"], json!({ "duration_ms": "150" }));
    let url = run["url"].as_str().expect("url").to_owned();

    let (_, done) = poll(&client, &url, "status", "completed").await;
    assert_eq!(done["conclusion"], "failure");
    let (_, failures) = answer(get(&client, &format!("{runs}&status=failure")).await).await;
    assert_eq!(failures["total_count"], 1);

    // `"0"` completes at once; a plain `ci.yml` succeeds.
    let instant =
        json!({ "ref": "main", "inputs": { "duration_ms": "0" }, "return_run_details": false });
    let dispatched = post(
        &client,
        &format!("{repo}/actions/workflows/ci.yml/dispatches"),
        instant,
    )
    .await;
    assert_eq!(dispatched.status(), StatusCode::NO_CONTENT);
    let (_, list) = answer(get(&client, &format!("{repo}/actions/runs?per_page=1")).await).await;
    let newest = &list["workflow_runs"][0];
    assert_eq!(
        (&newest["status"], &newest["conclusion"]),
        (&json!("completed"), &json!("success"))
    );
}

#[tokio::test]
async fn canceling_a_run_completes_it_as_cancelled_once() {
    let (server, client) = start(Options::default()).await;
    let repo = format!("{}/repos/octo/hello-world", server.base_url());
    let body =
        json!({ "ref": "main", "inputs": { "duration_ms": "60000" }, "return_run_details": true });
    let (_, details) = answer(
        post(
            &client,
            &format!("{repo}/actions/workflows/deploy.yml/dispatches"),
            body,
        )
        .await,
    )
    .await;
    let url = details["run_url"].as_str().expect("run_url").to_owned();
    poll(&client, &url, "status", "in_progress").await;

    let (status, body) = answer(post(&client, &format!("{url}/cancel"), json!({})).await).await;
    assert_eq!(status, StatusCode::ACCEPTED);
    assert_eq!(body, json!({}));
    let (_, canceled) = answer(get(&client, &url).await).await;
    assert_eq!(canceled["status"], "completed");
    assert_eq!(canceled["conclusion"], "cancelled");
    let (status, body) = answer(post(&client, &format!("{url}/cancel"), json!({})).await).await;
    assert_eq!(status, StatusCode::CONFLICT);
    assert_eq!(
        body["message"],
        "Cannot cancel a workflow run that is completed."
    );

    // A queued run can be canceled too.
    let body = json!({ "ref": "main", "return_run_details": true });
    let (_, details) = answer(
        post(
            &client,
            &format!("{repo}/actions/workflows/ci.yml/dispatches"),
            body,
        )
        .await,
    )
    .await;
    let url = details["run_url"].as_str().expect("run_url").to_owned();
    let (status, _) = answer(post(&client, &format!("{url}/cancel"), json!({})).await).await;
    assert_eq!(status, StatusCode::ACCEPTED);
    let (_, canceled) = answer(get(&client, &url).await).await;
    assert_eq!(canceled["conclusion"], "cancelled");
}

#[tokio::test]
async fn seeded_and_rerun_runs_and_unknown_runs() {
    let (server, client) = start(Options::default()).await;
    let repo = format!("{}/repos/octo/hello-world", server.base_url());
    let (status, seeded) = answer(get(&client, &format!("{repo}/actions/runs/9")).await).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(seeded["status"], "completed");
    assert_eq!(seeded["conclusion"], "success");
    assert_eq!(seeded["url"], format!("{repo}/actions/runs/9"));
    assert_eq!(
        seeded["html_url"],
        "https://github.com/octo/hello-world/actions/runs/9"
    );
    assert_eq!(seeded["updated_at"], seeded["created_at"]);
    let (status, body) =
        answer(post(&client, &format!("{repo}/actions/runs/9/cancel"), json!({})).await).await;
    assert_eq!(status, StatusCode::CONFLICT);
    assert_eq!(
        body["message"],
        "Cannot cancel a workflow run that is completed."
    );

    // A rerun starts a new attempt, which ends as the run did.
    let rerun = post(&client, &format!("{repo}/actions/runs/10/rerun"), json!({})).await;
    assert_eq!(rerun.status(), StatusCode::CREATED);
    let url = format!("{repo}/actions/runs/10");
    let (statuses, done) = poll(&client, &url, "status", "completed").await;
    assert_ne!(statuses[0], "completed", "{statuses:?}");
    assert_eq!(done["run_attempt"], 2);
    assert_eq!(done["conclusion"], "failure");
    assert_ne!(done["run_started_at"], done["created_at"]);

    for path in [
        "/actions/runs/999",
        "/actions/runs/999/cancel",
        "/actions/runs/x",
    ] {
        let url = format!("{repo}{path}");
        let response = if path.ends_with("cancel") {
            post(&client, &url, json!({})).await
        } else {
            get(&client, &url).await
        };
        let (status, body) = answer(response).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{path}");
        assert_eq!(body["message"], "Not Found");
    }
}

#[tokio::test]
async fn bad_dispatches_get_github_422s() {
    let (server, client) = start(Options::default()).await;
    let url = format!(
        "{}/repos/octo/hello-world/actions/workflows/ci.yml/dispatches",
        server.base_url()
    );
    for (body, message) in [
        (json!({}), "Invalid request.\n\n\"ref\" wasn't supplied."),
        (
            json!({ "inputs": {} }),
            "Invalid request.\n\n\"ref\" wasn't supplied.",
        ),
        (
            json!({ "ref": 5 }),
            "Invalid request.\n\nFor 'properties/ref', 5 is not a string.",
        ),
        (
            json!({ "ref": "main", "inputs": "x" }),
            "Invalid request.\n\nFor 'properties/inputs', \"x\" is not an object.",
        ),
        (
            json!({ "ref": "main", "return_run_details": "yes" }),
            "Invalid request.\n\nFor 'properties/return_run_details', \"yes\" is not a boolean.",
        ),
        (
            json!({ "ref": "main", "inputs": { "duration_ms": "soon" } }),
            "Invalid request.\n\nFor 'inputs/duration_ms', \"soon\" is not 0 to 86400000 ms.",
        ),
    ] {
        let (status, answered) = answer(post(&client, &url, body.clone()).await).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
        assert_eq!(answered["message"], message, "{body}");
    }
    let (_, list) = answer(
        get(
            &client,
            &format!("{}/repos/octo/hello-world/actions/runs", server.base_url()),
        )
        .await,
    )
    .await;
    assert_eq!(list["total_count"], 2, "no run was started");
}

#[tokio::test]
async fn runs_want_the_bearer_token_and_name_the_host_the_client_sent() {
    let (server, client) = start(Options {
        bearer_token: Some("s3cret".into()),
        ..Options::default()
    })
    .await;
    let url = format!(
        "{}/repos/octo/hello-world/actions/workflows/ci.yml/dispatches",
        server.base_url()
    );
    let body = json!({ "ref": "main", "return_run_details": true });
    let denied = post(&client, &url, body.clone()).await;
    assert_eq!(denied.status(), StatusCode::UNAUTHORIZED);
    assert!(header(&denied, "x-ratelimit-remaining").is_some());

    let (status, details) = answer(
        client
            .post(&url)
            .bearer_auth("s3cret")
            .header("host", "api.example.test")
            .json(&body)
            .send()
            .await
            .expect("send"),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let id = details["workflow_run_id"].as_u64().expect("id");
    assert_eq!(
        details["run_url"],
        format!("http://api.example.test/repos/octo/hello-world/actions/runs/{id}")
    );
    let log = server.requests();
    assert_eq!(log.len(), 2);
    assert_eq!(log[1].body_json(), Some(body));
    assert_eq!(log[1].header("authorization"), Some("Bearer s3cret"));
}
