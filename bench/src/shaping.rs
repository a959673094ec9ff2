//! What Level 2 response shaping saves an agent on the GitHub import: the tokens of a
//! `repos_get` and an `issues_list_for_repo` answer with and without `fields: "minimal"`,
//! and the tokens and calls of walking three pages of issues with `first`/`after`.

use std::fmt::Write as _;

use anyhow::{Context as _, bail};
use serde_json::{Value, json};

use crate::client::{Client, Reply};
use crate::tokens;

/// Issues the walk pages through: three pages of [`PAGE`], on top of the two seeded ones.
const EXTRA_ISSUES: usize = 7;
/// Issues per page of the walk.
const PAGE: u64 = 3;

/// The figures.
#[derive(Debug, Clone, Default)]
pub struct Shaping {
    /// `repos_get` answer tokens: full, minimal.
    pub repo: (usize, usize),
    /// `issues_list_for_repo` (state all, first page of 30) answer tokens: full, minimal.
    pub issues: (usize, usize),
    /// Issues in the repository when measuring.
    pub issue_count: usize,
    /// The three-page walk: calls, then request + answer tokens with the default preset and
    /// with `minimal`.
    pub walk: (usize, usize, usize),
}

/// Seeds the upstream with issues, then measures over one connection to `command`'s server.
pub async fn measure(command: tokio::process::Command, upstream: &str) -> anyhow::Result<Shaping> {
    let http = reqwest::Client::new();
    for n in 0..EXTRA_ISSUES {
        let response = http
            .post(format!("{upstream}/repos/octo/hello-world/issues"))
            .json(&json!({"title": format!("Bench issue {n}"), "body": "Seeded by scripts/bench so the walk has pages.", "labels": ["bug"]}))
            .send()
            .await?;
        if !response.status().is_success() {
            bail!("seeding an issue: HTTP {}", response.status());
        }
    }
    let client = Client::stdio(command)?;
    client.initialize().await?;
    let repo = json!({"owner": "octo", "repo": "hello-world"});
    let issues = json!({"owner": "octo", "repo": "hello-world", "filter": {"state": "all"}});
    let mut figures = Shaping {
        repo: (
            answer_tokens(&client, "repos_get", repo.clone(), None).await?,
            answer_tokens(&client, "repos_get", repo, Some("minimal")).await?,
        ),
        issues: (
            answer_tokens(&client, "issues_list_for_repo", issues.clone(), None).await?,
            answer_tokens(&client, "issues_list_for_repo", issues, Some("minimal")).await?,
        ),
        issue_count: 2 + EXTRA_ISSUES,
        ..Shaping::default()
    };
    let (calls, full) = walk(&client, None).await?;
    let (_, minimal) = walk(&client, Some("minimal")).await?;
    figures.walk = (calls, full, minimal);
    client.close().await?;
    Ok(figures)
}

/// The tokens of the MCP-AQL answer text of one call.
async fn answer_tokens(
    client: &Client,
    operation: &str,
    mut params: Value,
    fields: Option<&str>,
) -> anyhow::Result<usize> {
    if let Some(fields) = fields {
        params["fields"] = fields.into();
    }
    let reply = call(client, json!({"operation": operation, "params": params})).await?;
    Ok(tokens::count(&reply.tool_json().to_string()))
}

/// Three pages of issues, each asked for with the previous page's `endCursor`: the calls
/// made and the tokens of every request and answer text.
async fn walk(client: &Client, fields: Option<&str>) -> anyhow::Result<(usize, usize)> {
    let (mut calls, mut spent) = (0, 0);
    let mut after: Option<Value> = None;
    for _ in 0..3 {
        let mut params = json!({"owner": "octo", "repo": "hello-world", "filter": {"state": "all"}, "first": PAGE});
        if let Some(fields) = fields {
            params["fields"] = fields.into();
        }
        if let Some(after) = after.take() {
            params["after"] = after;
        }
        let arguments = json!({"operation": "issues_list_for_repo", "params": params});
        let reply = call(client, arguments.clone()).await?;
        calls += 1;
        let answer = reply.tool_json();
        spent += tokens::count(&arguments.to_string()) + tokens::count(&answer.to_string());
        let info = &answer["data"]["pageInfo"];
        if info["hasNextPage"] != true {
            break;
        }
        after = Some(info["endCursor"].clone()).filter(|cursor| cursor.is_string());
        if after.is_none() {
            bail!("a page with more to come carries no endCursor: {info}");
        }
    }
    Ok((calls, spent))
}

async fn call(client: &Client, arguments: Value) -> anyhow::Result<Reply> {
    let reply = client
        .call_tool("mcp_aql_read", arguments)
        .await
        .context("tools/call")?;
    reply.ensure_tool_success()?;
    Ok(reply)
}

/// The shaping paragraph and table, for docs/benchmarks.md; `date` is the day measured,
/// `YYYY-MM-DD`.
pub fn render(figures: &Shaping, date: &str) -> String {
    let saved = |(full, minimal): (usize, usize)| {
        if full == 0 {
            "–".to_owned()
        } else {
            format!("{:.0} %", 100.0 * (1.0 - minimal as f64 / full as f64))
        }
    };
    let mut out = format!(
        "Level 2 shaping on the same GitHub import against `demo-upstream`, measured by \
         `scripts/bench` on {date}, in o200k_base tokens of the MCP-AQL answer text \
         (`scripts/bench --shaping-only` refreshes this part):\n\n\
         | call | default | `fields: \"minimal\"` | saved |\n|---|---:|---:|---:|\n",
    );
    let _ = writeln!(
        out,
        "| `repos_get` (one repository) | {} | {} | {} |",
        figures.repo.0,
        figures.repo.1,
        saved(figures.repo)
    );
    let _ = writeln!(
        out,
        "| `issues_list_for_repo`, state all ({} issues, one page) | {} | {} | {} |",
        figures.issue_count,
        figures.issues.0,
        figures.issues.1,
        saved(figures.issues)
    );
    let (calls, full, minimal) = figures.walk;
    let _ = writeln!(
        out,
        "| walking three pages of {PAGE} issues with `first`/`after` ({calls} calls, requests and answers) | {full} | {minimal} | {} |",
        saved((full, minimal))
    );
    out.push_str(
        "\nA list's default is the `standard` preset the importer derived from GitHub's \
         response schema, a single item's is every field. `demo-upstream`'s items are small \
         (a repository has 13 fields, GitHub's own close to 100), so on the real API the share \
         saved is larger. Each page of the walk also carries its `pageInfo` cursors.\n",
    );
    out
}
