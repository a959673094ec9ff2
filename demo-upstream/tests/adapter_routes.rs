//! Every operation of `adapters/github-adapter.md` and `adapters/todo-adapter.md` has a route
//! here: each one, sent the way the adapter places its required params, gets a 2xx answer
//! from a freshly seeded server.

use percent_encoding::{NON_ALPHANUMERIC, utf8_percent_encode};
use serde_json::{Map, Value, json};
use serde_yaml::Value as Yaml;

/// Values for the path placeholders, naming things the seed data has.
const SEEDED: &[(&str, &str)] = &[
    ("owner", "octo"),
    ("repo", "hello-world"),
    ("username", "octo"),
    ("issue_number", "1"),
    ("pull_number", "3"),
    ("comment_id", "5"),
    ("run_id", "9"),
    ("name", "bug"),
    ("workflow_id", "ci.yml"),
    ("id", "1"),
    ("tag", "shopping"),
    ("org", "acme"),
    ("team_slug", "platform"),
];

/// A value for a required non-path param that the schema accepts.
fn sample(name: &str, param: &Yaml) -> Value {
    match (name, param["type"].as_str()) {
        ("color", _) => json!("ededed"),
        ("head" | "base" | "ref", _) => json!("main"),
        ("name", _) => json!("fresh-name"),
        (_, Some("integer")) => json!(1),
        (_, Some("number")) => json!(1.5),
        (_, Some("boolean")) => json!(false),
        (_, Some("array")) => json!([]),
        (_, Some("object")) => json!({}),
        _ => json!("crash"),
    }
}

/// The HTTP request an adapter sends for one operation called with its required params.
struct Planned {
    operation: String,
    method: String,
    path: String,
    query: Vec<(String, String)>,
    body: Option<Value>,
}

/// One planned request per operation of `file`, in schema order.
fn requests(file: &str) -> Vec<Planned> {
    let text =
        std::fs::read_to_string(format!("{}/../adapters/{file}", env!("CARGO_MANIFEST_DIR")))
            .expect("read adapter file");
    let front_matter = text.split("\n---\n").next().expect("front matter");
    let schema: Yaml = serde_yaml::from_str(front_matter.trim_start_matches("---\n"))
        .expect("front matter is YAML");
    let mut out = Vec::new();
    for (_, operations) in schema["operations"].as_mapping().expect("operations") {
        for operation in operations.as_sequence().expect("operation list") {
            let name = operation["name"].as_str().expect("name").to_owned();
            let (method, template) = operation["maps_to"]
                .as_str()
                .and_then(|maps_to| maps_to.split_once(' '))
                .expect("maps_to is METHOD /path");
            let mut path = template.to_owned();
            let mut rest = Map::new();
            let empty = serde_yaml::Mapping::new();
            let params = operation["params"].as_mapping().unwrap_or(&empty);
            for (key, param) in params {
                let key = key.as_str().expect("param name");
                let placeholder = format!("{{{key}}}");
                if path.contains(&placeholder) {
                    let value = SEEDED
                        .iter()
                        .find(|(seed, _)| *seed == key)
                        .expect("seed value")
                        .1;
                    let encoded = utf8_percent_encode(value, NON_ALPHANUMERIC).to_string();
                    path = path.replace(&placeholder, &encoded);
                } else if param["required"].as_bool() == Some(true) {
                    rest.insert(key.to_owned(), sample(key, param));
                }
            }
            let (query, body) = if matches!(method, "GET" | "DELETE") {
                let query = rest
                    .iter()
                    .map(|(key, value)| {
                        (
                            key.clone(),
                            value.as_str().map_or(value.to_string(), str::to_owned),
                        )
                    })
                    .collect();
                (query, None)
            } else {
                (Vec::new(), Some(Value::Object(rest)))
            };
            out.push(Planned {
                operation: name,
                method: method.to_owned(),
                path,
                query,
                body,
            });
        }
    }
    out
}

async fn assert_every_operation_answers(file: &str, minimum: usize) {
    let operations = requests(file);
    assert!(
        operations.len() >= minimum,
        "{file} has {} operations",
        operations.len()
    );
    let client = reqwest::Client::new();
    for Planned {
        operation: name,
        method,
        path,
        query,
        body,
    } in operations
    {
        let server = demo_upstream::spawn(demo_upstream::Options::default())
            .await
            .expect("bind 127.0.0.1:0");
        let method = reqwest::Method::from_bytes(method.as_bytes()).expect("method");
        let mut request = client
            .request(method, format!("{}{path}", server.base_url()))
            .query(&query);
        if let Some(body) = &body {
            request = request.json(body);
        }
        let response = request.send().await.expect("send");
        let status = response.status();
        let text = response.text().await.expect("body");
        // The seeded runs have completed: cancelling one is GitHub's 409, which still shows
        // the route is there (tests/long_running.rs cancels a running one).
        let completed_run = name == "cancel_workflow_run" && status.as_u16() == 409;
        assert!(
            status.is_success() || completed_run,
            "{name}: {path} answered {status}: {text}"
        );
        if !text.is_empty() {
            serde_json::from_str::<Value>(&text)
                .unwrap_or_else(|error| panic!("{name}: not JSON: {error}"));
        }
    }
}

#[tokio::test]
async fn every_github_operation_has_a_route() {
    assert_every_operation_answers("github-adapter.md", 22).await;
}

#[tokio::test]
async fn every_todo_operation_has_a_route() {
    assert_every_operation_answers("todo-adapter.md", 7).await;
}
