//! The query language end to end, through rmcp's client over stdio against the generated
//! GitHub adapter and demo-upstream on 127.0.0.1 (organization `acme`: its teams, its
//! repositories and the 150 issues of `acme/tracker`, whose labels, comments, authors and
//! states follow their number, see demo-upstream's `seed_org`): filter, sort and cursor
//! paging; aggregations checked against a count made directly from the upstream; computed
//! fields in `fields`, `filter` and `sort`; relationship queries with a cycle; every bound of
//! a scan and of a traversal hit once; refusals that name what is accepted and send nothing.
//! Answers are held against the official operation-result schema, introspection against the
//! introspection schema, and the query answers against the informative aggregation and
//! relationship schemas.

mod support;

use std::collections::BTreeMap;

use aqlgen_spec_schemas::Schema;
use serde_json::{Value, json};
use support::{GITHUB_TOKEN, assert_introspection, assert_result, call, demo_api, github_client};

const READ: &str = "mcp_aql_read";

/// Calls `operation` with `params` and checks the answer against operation-result.
async fn read(client: &support::Client, operation: &str, params: Value) -> Value {
    let (value, _) = call(
        client.peer(),
        READ,
        json!({"operation": operation, "params": params}),
    )
    .await;
    assert_result(&value);
    value
}

/// `value` against the `$defs` entry `definition` of an informative query schema.
fn assert_shape(schema: Schema, definition: &str, value: &Value) {
    if let Some(validator) = aqlgen_spec_schemas::definition(schema, definition) {
        let errors: Vec<String> = validator
            .iter_errors(value)
            .map(|e| e.to_string())
            .collect();
        assert!(errors.is_empty(), "{definition}: {errors:?}\n{value:#}");
    }
}

fn tracker(params: Value) -> Value {
    let mut all = json!({"owner": "acme", "repo": "tracker"});
    all.as_object_mut()
        .expect("an object")
        .extend(params.as_object().expect("an object").clone());
    all
}

/// The tracker issue numbered `n`'s seeded facts: labels, comments, author, open.
fn issue(n: u64) -> (Vec<&'static str>, u64, &'static str, bool) {
    let labels = [(3, "backend"), (4, "perf"), (5, "ui"), (7, "docs")]
        .into_iter()
        .filter(|(every, _)| n.is_multiple_of(*every))
        .map(|(_, name)| name)
        .collect();
    let author = if n.is_multiple_of(2) { "octo" } else { "hubot" };
    (labels, n % 9, author, !n.is_multiple_of(6))
}

/// Every open issue of `acme/tracker`, read from demo-upstream directly, page by page.
async fn open_tracker_issues(api: &demo_upstream::Running) -> Vec<Value> {
    let client = reqwest::Client::new();
    let mut issues = Vec::new();
    for page in 1.. {
        let batch: Vec<Value> = client
            .get(format!(
                "{}/repos/acme/tracker/issues?state=open&per_page=100&page={page}",
                api.base_url()
            ))
            .bearer_auth(GITHUB_TOKEN)
            .send()
            .await
            .expect("demo-upstream answers")
            .json()
            .await
            .expect("a JSON array");
        if batch.is_empty() {
            break;
        }
        issues.extend(batch);
    }
    issues
}

#[tokio::test]
async fn filter_sort_and_cursor_paging() {
    let api = demo_api().await;
    let client = github_client(&api, &[]).await;
    // `state` and `sort` go upstream; `author` and `comments` are done here.
    let mut query = json!({
        "filter": {"state": "all", "author": "octo", "comments": {"gte": 4}},
        "sort": {"field": "comments", "order": "desc"},
        "first": 7,
        "fields": ["number", "comments", "user.login"],
    });
    let mut seen = Vec::new();
    let mut pages = 0;
    loop {
        let answer = read(&client, "list_issues", tracker(query.clone())).await;
        let data = &answer["data"];
        assert_eq!(
            data["query"]["upstream"],
            json!(["filter.state.eq", "sort.comments"]),
            "{answer}"
        );
        assert_eq!(
            data["query"]["local"],
            json!(["filter.author.eq", "filter.comments.gte"])
        );
        assert_eq!(data["query"]["complete"], true);
        for item in data["items"].as_array().expect("items") {
            assert_eq!(item["user"]["login"], "octo");
            assert!(
                item.get("title").is_none(),
                "only the fields asked for: {item}"
            );
            seen.push((
                item["comments"].as_u64().unwrap(),
                item["number"].as_u64().unwrap(),
            ));
        }
        pages += 1;
        let info = &data["pageInfo"];
        assert_eq!(info["hasPreviousPage"], pages > 1);
        if info["hasNextPage"] == false {
            assert_eq!(
                info["totalCount"],
                seen.len(),
                "the last page knows the total"
            );
            break;
        }
        query["after"] = info["endCursor"].clone();
    }
    let mut expected: Vec<(u64, u64)> = (1..=150)
        .filter(|n| {
            let (_, comments, author, _) = issue(*n);
            author == "octo" && comments >= 4
        })
        .map(|n| (n % 9, n))
        .collect();
    expected.sort_by(|a, b| b.cmp(a));
    assert_eq!(seen, expected, "every match once, in the upstream's order");
    assert!(pages > 2);
    let sent = api.requests();
    let listed = sent
        .iter()
        .filter(|request| request.path == "/repos/acme/tracker/issues")
        .filter_map(|request| request.query.as_deref());
    for query in listed {
        for pair in ["state=all", "sort=comments", "direction=desc"] {
            assert!(query.contains(pair), "{query}");
        }
        assert!(!query.contains("author"), "{query}");
    }
    // A cursor of this query resumes this query only.
    let answer = read(
        &client,
        "list_issues",
        tracker(json!({"filter": {"author": "octo"}, "first": 2})),
    )
    .await;
    let cursor = answer["data"]["pageInfo"]["endCursor"].clone();
    let moved = read(
        &client,
        "list_issues",
        tracker(json!({"filter": {"author": "hubot"}, "first": 2, "after": cursor})),
    )
    .await;
    assert_eq!(
        moved["error"]["details"]["reason"], "cursor_mismatch",
        "{moved}"
    );
    let back = read(
        &client,
        "list_issues",
        tracker(json!({"filter": {"author": "octo"}, "last": 2, "before": cursor})),
    )
    .await;
    assert_eq!(back["error"]["code"], "VALIDATION_INVALID_TYPE", "{back}");
    assert_eq!(back["error"]["details"]["param_name"], "pagination");
    client.cancel().await.expect("close");
}

#[tokio::test]
async fn aggregations_match_a_count_made_directly() {
    let api = demo_api().await;
    let client = github_client(&api, &[]).await;
    let answer = read(
        &client,
        "list_issues",
        tracker(json!({
            "filter": {"state": "open"},
            "aggregate": {
                "per_label": {"group_by": "label", "count": true},
                "total": {"count": true},
                "comments": {"sum": "comments", "avg": "comments", "max": "comments"},
                "per_author": {"group_by": "author", "count": true, "sum": "comments"},
            },
        })),
    )
    .await;
    let data = &answer["data"];
    assert_shape(Schema::AggregationQuery, "AggregationResponse", data);
    assert!(
        data.get("items").is_none(),
        "summaries only by default: {data}"
    );
    assert_eq!(data["query"]["complete"], true);
    assert!(
        data["query"]["scanned"]["pages"].as_u64() > Some(1),
        "more than one page: {data}"
    );

    let issues = open_tracker_issues(&api).await;
    assert_eq!(issues.len(), 125);
    let mut per_label: BTreeMap<String, u64> = BTreeMap::new();
    let mut per_author: BTreeMap<String, (u64, u64)> = BTreeMap::new();
    let mut sum = 0;
    for issue in &issues {
        let labels = issue["labels"].as_array().expect("labels");
        if labels.is_empty() {
            *per_label.entry("null".into()).or_default() += 1;
        }
        for label in labels {
            *per_label
                .entry(label["name"].as_str().unwrap().into())
                .or_default() += 1;
        }
        let comments = issue["comments"].as_u64().unwrap();
        sum += comments;
        let author = per_author
            .entry(issue["user"]["login"].as_str().unwrap().into())
            .or_default();
        author.0 += 1;
        author.1 += comments;
    }
    let aggregations = &data["aggregations"];
    assert_eq!(aggregations["total"], 125);
    assert_eq!(aggregations["per_label"], json!(per_label));
    assert_eq!(aggregations["comments"]["sum"], sum);
    assert_eq!(aggregations["comments"]["max"], 8);
    assert_eq!(
        aggregations["comments"]["avg"].as_f64(),
        Some(sum as f64 / 125.0)
    );
    for (author, (count, comments)) in per_author {
        assert_eq!(
            aggregations["per_author"][&author],
            json!({"count": count, "sum": comments})
        );
    }

    // With the items: paged as a list, beside the summaries.
    let answer = read(
        &client,
        "list_issues",
        tracker(json!({
            "filter": {"label": "docs"},
            "aggregate": {"n": {"count": true}},
            "include_items": true,
            "first": 5,
            "fields": "minimal",
        })),
    )
    .await;
    assert_eq!(answer["data"]["aggregations"]["n"], 18);
    assert_eq!(answer["data"]["items"].as_array().map(Vec::len), Some(5));
    assert_eq!(answer["data"]["pageInfo"]["hasNextPage"], true);

    // A count the upstream reports itself takes one page.
    let answer = read(
        &client,
        "search_issues",
        json!({"query": "repo:acme/tracker is:open", "aggregate": {"open": {"count": true}}}),
    )
    .await;
    assert_eq!(answer["data"]["aggregations"]["open"], 125, "{answer}");
    assert_eq!(answer["data"]["query"]["scanned"]["pages"], 1);
    client.cancel().await.expect("close");
}

#[tokio::test]
async fn computed_fields_in_fields_filter_and_sort() {
    let api = demo_api().await;
    let client = github_client(&api, &[]).await;
    let one = read(
        &client,
        "get_issue",
        json!({"owner": "octo", "repo": "hello-world", "issue_number": 1,
               "fields": ["number", "created_at", "_computed.age_days", "_computed.label_count", "_computed.is_stale"]}),
    )
    .await;
    let data = &one["data"];
    let created = data["created_at"].as_str().expect("created_at");
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64;
    // 2026-01-01 is day 20454 since the epoch; demo-upstream's times are on that day.
    assert!(created.starts_with("2026-01-01T"), "{created}");
    let age = (now - 20454 * 86_400 - seconds_of_day(created)).div_euclid(86_400);
    assert_eq!(data["_computed"]["age_days"], age);
    assert_eq!(data["_computed"]["label_count"], 1);
    assert_eq!(data["_computed"]["is_stale"], age > 30);
    assert!(data.get("title").is_none());

    let listed = read(
        &client,
        "list_issues",
        tracker(json!({
            "filter": {"_computed.label_count": {"gte": 2}},
            "sort": {"field": "_computed.label_count", "order": "desc"},
            "first": 100,
            "fields": ["number", "_computed.label_count"],
        })),
    )
    .await;
    let items = listed["data"]["items"].as_array().expect("items");
    let counts: Vec<u64> = items
        .iter()
        .map(|item| item["_computed"]["label_count"].as_u64().expect("computed"))
        .collect();
    assert!(
        counts.windows(2).all(|pair| pair[0] >= pair[1]),
        "{counts:?}"
    );
    assert!(counts.iter().all(|count| *count >= 2));
    let expected = (1..=150)
        .filter(|n| {
            let (labels, _, _, open) = issue(*n);
            open && labels.len() >= 2
        })
        .count();
    assert_eq!(items.len(), expected);
    assert_eq!(
        listed["data"]["query"]["local"],
        json!([
            "filter._computed.label_count.gte",
            "sort._computed.label_count"
        ])
    );
    // Computed for the filter, and left out of items that did not ask for it.
    let plain = read(
        &client,
        "list_issues",
        tracker(json!({"filter": {"_computed.label_count": 3}, "fields": ["number"]})),
    )
    .await;
    assert!(
        plain["data"]["items"][0].get("_computed").is_none(),
        "{plain}"
    );
    client.cancel().await.expect("close");
}

fn seconds_of_day(time: &str) -> i64 {
    let hms: Vec<i64> = time[11..19]
        .split(':')
        .map(|part| part.parse().unwrap())
        .collect();
    hms[0] * 3600 + hms[1] * 60 + hms[2]
}

#[tokio::test]
async fn relationship_queries_follow_edges_and_end_at_cycles() {
    let api = demo_api().await;
    let client = github_client(&api, &[]).await;
    let answer = read(
        &client,
        "query_relationships",
        json!({"root": {"element_type": "Team", "element_name": "acme/platform"}, "direction": "both", "depth": 2}),
    )
    .await;
    let data = &answer["data"];
    assert_shape(Schema::RelationshipQuery, "RelationshipResponse", data);
    assert_eq!(
        data["root"],
        json!({"element_type": "Team", "element_name": "acme/platform"})
    );
    let nodes: Vec<&str> = data["graph"]["nodes"]
        .as_array()
        .expect("nodes")
        .iter()
        .map(|node| node["id"].as_str().expect("an id"))
        .collect();
    let mut unique = nodes.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(unique.len(), nodes.len(), "each node once: {nodes:?}");
    assert_eq!(nodes[0], "Team:acme/platform");
    for expected in [
        "Repository:acme/api",
        "Repository:acme/web",
        "Repository:acme/tracker",
        "User:octo",
        "User:hubot",
        "Team:acme/docs",
        "User:acme",
        "Repository:octo/hello-world",
    ] {
        assert!(nodes.contains(&expected), "{expected} in {nodes:?}");
    }
    let edges = data["graph"]["edges"].as_array().expect("edges");
    // The repositories lead back to the root (a cycle): linked once, not followed again.
    let back = edges
        .iter()
        .filter(|edge| {
            edge["source"] == "Team:acme/platform" && edge["target"] == "Repository:acme/web"
        })
        .count();
    assert_eq!(back, 1, "{edges:?}");
    assert_eq!(edges.len(), 10, "{edges:#?}");
    let records = data["relationships"].as_array().expect("relationships");
    assert!(records.iter().any(
        |record| record["depth"] == 2 && record["target"]["element_name"] == "octo/hello-world"
    ));
    assert!(
        records
            .iter()
            .any(|record| record["direction"] == "incoming"
                && record["target"]["element_name"] == "acme/docs")
    );

    // One relationship, outgoing only, sections asked for.
    let answer = read(
        &client,
        "query_relationships",
        json!({"root": {"element_type": "User", "element_name": "octo"}, "direction": "outgoing",
               "relationship": "owns", "include": ["graph.edges"]}),
    )
    .await;
    assert_eq!(
        answer["data"]["graph"],
        json!({"edges": [{"source": "User:octo", "target": "Repository:octo/hello-world", "type": "owns"}]})
    );
    assert!(answer["data"].get("relationships").is_none());
    assert_shape(
        Schema::RelationshipQuery,
        "RelationshipResponse",
        &answer["data"],
    );
    client.cancel().await.expect("close");
}

/// The warning a bound raised, after checking the answer says it is incomplete.
fn truncated(answer: &Value) -> &Value {
    let warning = answer["warnings"]
        .as_array()
        .and_then(|warnings| {
            warnings
                .iter()
                .find(|w| w["code"] == "VALIDATION_TRUNCATED_WARNING")
        })
        .unwrap_or_else(|| panic!("a truncation warning: {answer}"));
    assert_eq!(warning["details"]["complete"], false);
    warning
}

#[tokio::test]
async fn every_bound_is_said_and_never_silent() {
    let api = demo_api().await;
    let count = json!({"filter": {"state": "open"}, "aggregate": {"n": {"group_by": "label"}}});
    for (flag, value, bound) in [
        ("--scan-max-pages", "1", "max_pages"),
        ("--scan-max-items", "50", "max_items"),
        ("--scan-max-bytes", "1KiB", "max_bytes"),
    ] {
        let client = github_client(&api, &[flag, value]).await;
        let answer = read(&client, "list_issues", tracker(count.clone())).await;
        assert_eq!(answer["data"]["query"]["complete"], false, "{answer}");
        assert_eq!(truncated(&answer)["details"]["bound"], bound);
        client.cancel().await.expect("close");
    }
    // A slow upstream: the first page takes longer than the scan may.
    let slow = "/repos/acme/slow/issues";
    api.add_fault(
        demo_upstream::Fault::new(slow, demo_upstream::StatusCode::OK)
            .body(r#"[{"number": 1, "title": "a", "comments": 1}]"#)
            .header(
                "link",
                format!("<{}{slow}?page=2>; rel=\"next\"", api.base_url()),
            )
            .delay(std::time::Duration::from_millis(1100)),
    );
    let client = github_client(&api, &["--scan-max-seconds", "1", "--slow-query-ms", "500"]).await;
    let answer = read(
        &client,
        "list_issues",
        json!({"owner": "acme", "repo": "slow", "aggregate": {"n": {"count": true}}}),
    )
    .await;
    assert_eq!(answer["data"]["aggregations"]["n"], 1);
    assert_eq!(truncated(&answer)["details"]["bound"], "max_seconds");
    let slow_warning = answer["warnings"]
        .as_array()
        .and_then(|warnings| {
            warnings
                .iter()
                .find(|w| w["code"] == "PERFORMANCE_SLOW_QUERY_WARNING")
        })
        .unwrap_or_else(|| panic!("a slow-query warning: {answer}"));
    assert_eq!(slow_warning["details"]["threshold_ms"], 500);
    assert_eq!(slow_warning["details"]["operation"], "list_issues");
    client.cancel().await.expect("close");

    for (flag, bound) in [
        ("--graph-max-nodes", "max_nodes"),
        ("--graph-max-calls", "max_calls"),
    ] {
        let client = github_client(&api, &[flag, "2"]).await;
        let answer = read(
            &client,
            "query_relationships",
            json!({"root": {"element_type": "Team", "element_name": "acme/platform"}, "direction": "both", "depth": 3}),
        )
        .await;
        assert_eq!(truncated(&answer)["details"]["bound"], bound, "{answer}");
        assert_shape(
            Schema::RelationshipQuery,
            "RelationshipResponse",
            &answer["data"],
        );
        client.cancel().await.expect("close");
    }
}

#[tokio::test]
async fn bad_queries_name_what_is_accepted_and_send_nothing() {
    let api = demo_api().await;
    let client = github_client(&api, &[]).await;
    let before = api.requests().len();
    for (params, code, says) in [
        (
            json!({"filter": {"colour": "red"}}),
            "VALIDATION_INVALID_VALUE",
            "its keys are state, label, author, comments, created_at, updated_at, title, _computed.age_days",
        ),
        (
            json!({"filter": {"state": {"ne": "open"}}}),
            "VALIDATION_INVALID_VALUE",
            "takes the operators eq",
        ),
        (
            json!({"filter": {"comments": {"near": 3}}}),
            "VALIDATION_INVALID_VALUE",
            "eq, ne, in, gt, gte, lt, lte, exists",
        ),
        (
            json!({"filter": {"comments": "many"}}),
            "VALIDATION_INVALID_TYPE",
            "expected 'integer', got 'string'",
        ),
        (
            json!({"filter": {"updated_at": {"gt": "last week"}}}),
            "VALIDATION_INVALID_VALUE",
            "a date-time such as",
        ),
        (
            json!({"filter": "open"}),
            "VALIDATION_INVALID_TYPE",
            "'filter' expected 'object'",
        ),
        (
            json!({"sort": {"field": "colour"}}),
            "VALIDATION_INVALID_VALUE",
            "it sorts by label, author, comments, created_at, updated_at, title, _computed.age_days",
        ),
        (
            json!({"sort": {"field": "comments", "order": "down"}}),
            "VALIDATION_INVALID_VALUE",
            "'asc' or 'desc'",
        ),
        (
            json!({"sort": "comments"}),
            "VALIDATION_INVALID_TYPE",
            "'sort' expected 'object {field, order}'",
        ),
        (
            json!({"aggregate": {"x": {"median": "comments"}}}),
            "VALIDATION_INVALID_VALUE",
            "the functions are count, group_by, sum, avg, min, max",
        ),
        (
            json!({"aggregate": {"x": {"sum": "title"}}}),
            "VALIDATION_INVALID_VALUE",
            "takes a number key",
        ),
        (
            json!({"aggregate": {"x": {"group_by": "colour"}}}),
            "VALIDATION_INVALID_VALUE",
            "the keys are",
        ),
        (
            json!({"include_items": true}),
            "VALIDATION_INVALID_VALUE",
            "goes with 'aggregate'",
        ),
        (
            json!({"query": "  "}),
            "VALIDATION_INVALID_VALUE",
            "not blank",
        ),
        (
            json!({"state": "open"}),
            "VALIDATION_UNKNOWN_PARAM",
            "It is set through filter: {state: ...}",
        ),
        (
            json!({"direction": "asc"}),
            "VALIDATION_UNKNOWN_PARAM",
            "'direction'",
        ),
        (
            json!({"fields": ["colour"]}),
            "VALIDATION_INVALID_VALUE",
            "the items have no 'colour'",
        ),
        (
            json!({"fields": ["_computed.age"]}),
            "VALIDATION_INVALID_VALUE",
            "the computed fields are _computed.age_days, _computed.label_count, _computed.is_stale",
        ),
    ] {
        let answer = read(&client, "list_issues", tracker(params.clone())).await;
        assert_eq!(answer["error"]["code"], code, "{params}: {answer}");
        let message = answer["error"]["message"].as_str().expect("a message");
        assert!(message.contains(says), "{params}: {message}");
    }
    for (params, says) in [
        (
            json!({"root": {"element_type": "Team", "element_name": "acme/platform"}, "direction": "out"}),
            "incoming, outgoing or both",
        ),
        (
            json!({"root": {"element_type": "Org", "element_name": "acme"}, "direction": "both"}),
            "one of User, Repository, Team",
        ),
        (
            json!({"root": {"element_type": "Repository", "element_name": "acme"}, "direction": "both"}),
            "is written as {owner.login}/{name}",
        ),
        (
            json!({"root": {"element_type": "Team", "element_name": "acme/platform"}, "direction": "both", "depth": 4}),
            "'depth' is 1 to 3",
        ),
        (
            json!({"root": {"element_type": "Team", "element_name": "acme/platform"}, "direction": "both", "include": ["nodes"]}),
            "root, relationships, graph.nodes, graph.edges",
        ),
        (
            json!({"root": {"element_type": "Team", "element_name": "acme/platform"}, "direction": "both", "relationship": "likes"}),
            "has_member, maintains, owns",
        ),
        (
            json!({"direction": "both"}),
            "Missing required parameter 'root'",
        ),
    ] {
        let answer = read(&client, "query_relationships", params.clone()).await;
        assert_eq!(answer["success"], false, "{params}: {answer}");
        let message = answer["error"]["message"].as_str().expect("a message");
        assert!(message.contains(says), "{params}: {message}");
    }
    assert_eq!(api.requests().len(), before, "nothing reached the upstream");
    client.cancel().await.expect("close");
}

#[tokio::test]
async fn introspection_says_what_the_queries_do() {
    let api = demo_api().await;
    let client = github_client(&api, &[]).await;
    let list = read(&client, "introspect", json!({"query": "operations"})).await;
    assert_introspection(&list);
    let capabilities = &list["data"]["_protocol"]["capabilities"];
    for flag in [
        "aggregations",
        "computed_fields",
        "relationship_queries",
        "field_selection",
    ] {
        assert_eq!(capabilities[flag], true, "{flag}: {capabilities}");
    }
    let details = read(
        &client,
        "introspect",
        json!({"query": "operations", "name": "list_issues"}),
    )
    .await;
    assert_introspection(&details);
    let operation = &details["data"]["operation"];
    let names: Vec<&str> = operation["parameters"]
        .as_array()
        .expect("parameters")
        .iter()
        .filter_map(|param| param["name"].as_str())
        .collect();
    for name in [
        "query",
        "filter",
        "sort",
        "aggregate",
        "include_items",
        "fields",
        "preset",
        "first",
        "after",
    ] {
        assert!(names.contains(&name), "{name} in {names:?}");
    }
    for hidden in ["state", "labels", "sort_by", "direction", "since"] {
        assert!(
            !names.contains(&hidden),
            "{hidden} is the query's: {names:?}"
        );
    }
    assert_eq!(operation["aggregation_support"]["supported"], true);
    assert!(
        operation["aggregation_support"]["numeric_fields"]
            .as_array()
            .is_some_and(|fields| fields.contains(&json!("comments")))
    );
    assert_eq!(operation["computed_fields"][0]["name"], "age_days");
    let filter = read(
        &client,
        "introspect",
        json!({"query": "types", "name": "ListIssuesFilter"}),
    )
    .await;
    assert_introspection(&filter);
    let keys: Vec<&str> = filter["data"]["type"]["fields"]
        .as_array()
        .expect("fields")
        .iter()
        .filter_map(|field| field["name"].as_str())
        .collect();
    assert!(
        keys.contains(&"label") && keys.contains(&"_computed.is_stale"),
        "{keys:?}"
    );
    let relationships = read(
        &client,
        "introspect",
        json!({"query": "operations", "name": "query_relationships"}),
    )
    .await;
    assert_introspection(&relationships);
    assert_eq!(
        relationships["data"]["operation"]["relationship_capabilities"]["max_depth"],
        3
    );
    client.cancel().await.expect("close");

    // The todo adapter declares no query: its flags say so, and field selection still works.
    let client = support::todo_client(&api, &[]).await;
    let list = read(&client, "introspect", json!({"query": "operations"})).await;
    let capabilities = &list["data"]["_protocol"]["capabilities"];
    for flag in ["aggregations", "computed_fields", "relationship_queries"] {
        assert_eq!(capabilities[flag], false, "{flag}: {capabilities}");
    }
    let get = read(
        &client,
        "get_todo",
        json!({"id": 1, "fields": ["title"], "preset": "minimal"}),
    )
    .await;
    assert_eq!(get["warnings"][0]["code"], "DEPRECATION_WARNING", "{get}");
    assert_eq!(get["warnings"][0]["details"]["deprecated_item"], "preset");
    assert!(
        get["data"].get("title").is_some() && get["data"].get("id").is_some(),
        "{get}"
    );
    let query = read(&client, "list_todos", json!({"filter": {"title": "x"}})).await;
    assert_eq!(
        query["error"]["code"], "VALIDATION_UNKNOWN_PARAM",
        "no query here: {query}"
    );
    client.cancel().await.expect("close");
}
