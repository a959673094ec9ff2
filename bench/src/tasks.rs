//! Realistic GitHub tasks, each scripted from a fresh connection to its answer, with the
//! tokens of everything the agent reads and writes and the number of tool calls it makes: the
//! five everyday ones, and two questions about a whole collection ([`Task::QUERY`]) that the
//! query language answers in one call where others page through everything and count.
//!
//! The aqlgen script finds each operation through `introspect` (a search, then the
//! operation's details) before calling it; a peer with one tool per operation is read its
//! whole tools/list and then called directly. Upstream answers are counted as they come: the
//! same demo upstream serves every server, so what differs is what each one adds.

use anyhow::{Context as _, bail};
use serde_json::{Value, json};

use crate::client::{Client, Reply};
use crate::tokens;

/// The repository every task is about: the demo upstream's seed.
const OWNER: &str = "octo";
const REPO: &str = "hello-world";
/// The seed's open issue, labelled `bug`, with one comment.
const ISSUE: u64 = 1;
/// Items per page when walking pages.
const PAGE_SIZE: u64 = 3;
/// The organization, team and repository of the query tasks: the demo upstream's `acme`,
/// whose `tracker` has 150 issues (125 open) and whose team `platform` maintains three
/// repositories.
const ORG: &str = "acme";
const TEAM: &str = "platform";
const TRACKER: &str = "tracker";
/// The largest page GitHub serves, which an agent walking everything asks for.
const FULL_PAGE: u64 = 100;

/// A task an agent is asked to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Task {
    /// Find the open bugs in a repository.
    OpenBugs,
    /// Read one issue with its comments.
    IssueWithComments,
    /// Open a pull request.
    OpenPullRequest,
    /// Label an issue.
    LabelIssue,
    /// Walk three pages of a repository's issues.
    ThreePages,
    /// Count a repository's open issues per label.
    IssuesPerLabel,
    /// Name the repositories a team maintains, each with its count of open pull requests.
    TeamPullRequests,
}

impl Task {
    pub const ALL: [Task; 5] = [
        Task::OpenBugs,
        Task::IssueWithComments,
        Task::OpenPullRequest,
        Task::LabelIssue,
        Task::ThreePages,
    ];

    /// The questions about a whole collection.
    pub const QUERY: [Task; 2] = [Task::IssuesPerLabel, Task::TeamPullRequests];

    /// The column heading.
    pub fn title(self) -> &'static str {
        match self {
            Task::OpenBugs => "open bugs",
            Task::IssueWithComments => "issue + comments",
            Task::OpenPullRequest => "open a PR",
            Task::LabelIssue => "label an issue",
            Task::ThreePages => "three pages",
            Task::IssuesPerLabel => "open issues per label",
            Task::TeamPullRequests => "a team's repositories and their open PRs",
        }
    }

    /// The GitHub operations the task calls, in order, each with what an agent searches
    /// introspection for.
    fn operations(self) -> &'static [Operation] {
        const LIST: Operation = Operation {
            id: "issues/list-for-repo",
            family: "read",
            search: "list repository issues",
        };
        const PULLS: Operation = Operation {
            id: "pulls/list",
            family: "read",
            search: "list pull requests",
        };
        match self {
            Task::OpenBugs | Task::ThreePages | Task::IssuesPerLabel => &[LIST],
            Task::TeamPullRequests => &[
                Operation {
                    id: "teams/list-repos-in-org",
                    family: "read",
                    search: "list team repositories",
                },
                PULLS,
            ],
            Task::IssueWithComments => &[
                Operation {
                    id: "issues/get",
                    family: "read",
                    search: "get an issue",
                },
                Operation {
                    id: "issues/list-comments",
                    family: "read",
                    search: "list issue comments",
                },
            ],
            Task::OpenPullRequest => &[Operation {
                id: "pulls/create",
                family: "create",
                search: "create pull request",
            }],
            Task::LabelIssue => &[Operation {
                id: "issues/add-labels",
                family: "create",
                search: "add labels issue",
            }],
        }
    }

    /// The calls the task makes: the operation, its parameters as GitHub names them, and a
    /// text only its successful answer carries. `ThreePages` is paged by page number here;
    /// [`run_aqlgen`] walks it by cursor, as the operation's details offer.
    fn calls(self) -> Vec<(&'static str, Value, &'static str)> {
        let with = |extra: Value| {
            let mut params = json!({"owner": OWNER, "repo": REPO});
            if let (Some(params), Value::Object(extra)) = (params.as_object_mut(), extra) {
                params.extend(extra);
            }
            params
        };
        match self {
            Task::OpenBugs => vec![(
                "issues/list-for-repo",
                with(json!({"state": "open", "labels": "bug"})),
                "Found a bug",
            )],
            Task::IssueWithComments => vec![
                (
                    "issues/get",
                    with(json!({"issue_number": ISSUE})),
                    "Found a bug",
                ),
                (
                    "issues/list-comments",
                    with(json!({"issue_number": ISSUE})),
                    "Me too!",
                ),
            ],
            Task::OpenPullRequest => vec![(
                "pulls/create",
                with(
                    json!({"title": "Handle a missing config file", "head": "config-fix", "base": "main"}),
                ),
                "Handle a missing config file",
            )],
            Task::LabelIssue => vec![(
                "issues/add-labels",
                with(json!({"issue_number": ISSUE, "labels": ["triaged"]})),
                "triaged",
            )],
            Task::ThreePages => (1..=3)
                .map(|page| {
                    (
                        "issues/list-for-repo",
                        with(json!({"state": "all", "per_page": PAGE_SIZE, "page": page})),
                        "created_at",
                    )
                })
                .collect(),
            // 125 open issues: two full pages, counted by whoever reads them.
            Task::IssuesPerLabel => (1..=2)
                .map(|page| {
                    (
                        "issues/list-for-repo",
                        json!({"owner": ORG, "repo": TRACKER, "state": "open", "per_page": FULL_PAGE, "page": page}),
                        "Tracker item",
                    )
                })
                .collect(),
            // The team's three repositories, then each one's open pull requests.
            Task::TeamPullRequests => {
                let mut calls = vec![(
                    "teams/list-repos-in-org",
                    json!({"org": ORG, "team_slug": TEAM}),
                    "full_name",
                )];
                for repo in ["api", "web", TRACKER] {
                    calls.push((
                        "pulls/list",
                        json!({"owner": ORG, "repo": repo, "state": "open", "per_page": FULL_PAGE}),
                        "[",
                    ));
                }
                calls
            }
        }
    }

    /// The calls an agent makes through aqlgen's query language for the query tasks: one
    /// aggregation, or the team's repositories and then one batch of counts.
    fn query_calls(self) -> Vec<(&'static str, Value)> {
        match self {
            Task::IssuesPerLabel => vec![(
                "read",
                json!({"operation": "issues_list_for_repo", "params": {"owner": ORG, "repo": TRACKER,
                    "filter": {"state": "open"},
                    "aggregate": {"per_label": {"group_by": "labels", "count": true}}}}),
            )],
            Task::TeamPullRequests => vec![
                (
                    "read",
                    json!({"operation": "teams_list_repos_in_org", "params": {"org": ORG, "team_slug": TEAM,
                        "fields": ["full_name"]}}),
                ),
                ("read", {
                    let counts: Vec<Value> = ["api", "web", TRACKER]
                        .map(|repo| {
                            json!({"operation": "pulls_list", "params": {"owner": ORG, "repo": repo,
                                "filter": {"state": "open"}, "aggregate": {"open": {"count": true}}}})
                        })
                        .to_vec();
                    json!({ "operations": counts })
                }),
            ],
            _ => Vec::new(),
        }
    }

    /// The params of a call of `id` through aqlgen: on the lists, the GitHub params the
    /// query language owns (`state`, `labels`) go in `filter`.
    fn aqlgen_params(id: &str, params: Value) -> Value {
        let Value::Object(mut params) = params else {
            return params;
        };
        if !matches!(id, "issues/list-for-repo" | "pulls/list") {
            return Value::Object(params);
        }
        let mut filter = serde_json::Map::new();
        if let Some(state) = params.remove("state") {
            filter.insert("state".into(), state);
        }
        if let Some(labels) = params.remove("labels") {
            filter.insert("labels".into(), json!({"contains": labels}));
        }
        if !filter.is_empty() {
            params.insert("filter".into(), Value::Object(filter));
        }
        Value::Object(params)
    }
}

/// A GitHub operation as a task needs it.
struct Operation {
    /// GitHub's operationId.
    id: &'static str,
    /// The CRUDE family aqlgen files it under.
    family: &'static str,
    /// The words an agent searches introspection for.
    search: &'static str,
}

/// What one task cost, or why it could not be done.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub task: Task,
    /// Tokens read and written and tool calls made, or why the task failed.
    pub spent: Result<(usize, usize), String>,
}

/// Tokens and calls as a script goes.
#[derive(Default)]
struct Tally {
    tokens: usize,
    calls: usize,
}

impl Tally {
    fn read(&mut self, reply: &Reply) {
        self.tokens += tokens::count(&reply.request) + tokens::count(&reply.text);
    }

    fn call(&mut self, reply: &Reply) {
        self.read(reply);
        self.calls += 1;
    }
}

/// The aqlgen operation name of a GitHub operationId: `issues/list-for-repo` →
/// `issues_list_for_repo`.
fn aqlgen_name(id: &str) -> String {
    id.replace(['/', '-'], "_")
}

/// How a script reaches the operations a task needs.
#[derive(Clone, Copy)]
pub enum Script {
    /// An aqlgen server in either mode: each operation found through `introspect`, the
    /// query tasks answered with the query language.
    Aqlgen,
    /// The same server, the query tasks done without the query language: every page read,
    /// its fields selected, and counted by the agent.
    AqlgenPlain,
    /// A peer with one tool per operation.
    Discrete(DiscreteTools),
}

/// Runs `tasks` with `script`, each on a fresh connection from `connect`.
pub async fn run_all<F, Fut>(connect: F, script: Script, tasks: &[Task]) -> Vec<Outcome>
where
    F: Fn() -> Fut,
    Fut: Future<Output = anyhow::Result<Client>>,
{
    let mut outcomes = Vec::new();
    for &task in tasks {
        let spent = match connect().await {
            Ok(client) => {
                let spent = match script {
                    Script::Aqlgen => run_aqlgen(&client, task, true).await,
                    Script::AqlgenPlain => run_aqlgen(&client, task, false).await,
                    Script::Discrete(tools) => run_discrete(&client, task, tools).await,
                };
                let _ = client.close().await;
                spent
            }
            Err(error) => Err(error),
        };
        outcomes.push(Outcome {
            task,
            spent: spent.map_err(|error| format!("{error:#}")),
        });
    }
    outcomes
}

/// One task through an aqlgen server in either mode; `query` answers the query tasks with
/// the query language.
async fn run_aqlgen(client: &Client, task: Task, query: bool) -> anyhow::Result<(usize, usize)> {
    let mut tally = Tally::default();
    client.initialize().await?;
    let tools = client.request("tools/list", json!({})).await?;
    tally.read(&tools);
    let names = tools.tool_names()?;
    let tool_for = |family: &str| -> anyhow::Result<String> {
        let family_tool = format!("mcp_aql_{family}");
        names
            .iter()
            .find(|name| **name == family_tool || *name == "mcp_aql")
            .cloned()
            .with_context(|| format!("no tool for {family} operations in tools/list"))
    };

    // `introspect` is a read: the read tool in CRUDE mode, the one tool in single mode.
    let introspect_tool = tool_for("read")?;
    for operation in task.operations() {
        let tool = &introspect_tool;
        let name = aqlgen_name(operation.id);
        let search = client
            .call_tool(
                tool,
                json!({"operation": "introspect", "params": {"query": "operations",
                    "endpoint": operation.family, "search": operation.search}}),
            )
            .await?;
        search.ensure_tool_success()?;
        tally.call(&search);
        let listed = search.tool_json()["data"]["operations"]
            .as_array()
            .is_some_and(|found| found.iter().any(|entry| entry["name"] == name.as_str()));
        if !listed {
            bail!("searching \"{}\" did not list {name}", operation.search);
        }
        let details = client
            .call_tool(
                tool,
                json!({"operation": "introspect", "params": {"query": "operations", "name": name}}),
            )
            .await?;
        details.ensure_tool_success()?;
        tally.call(&details);
    }

    if query && Task::QUERY.contains(&task) {
        for (family, arguments) in task.query_calls() {
            let reply = client.call_tool(&tool_for(family)?, arguments).await?;
            reply.ensure_tool_success()?;
            tally.call(&reply);
        }
        return Ok((tally.tokens, tally.calls));
    }
    let mut after: Option<String> = None;
    for (id, params, _) in task.calls() {
        let mut params = Task::aqlgen_params(id, params);
        if task == Task::ThreePages {
            // The details offer cursor pagination: `first`, then `after` the last cursor.
            params = json!({"owner": OWNER, "repo": REPO, "filter": {"state": "all"}, "first": PAGE_SIZE});
            if let Some(cursor) = &after {
                params["after"] = json!(cursor);
            }
        }
        if task == Task::IssuesPerLabel {
            // Every page, by cursor, with only what counting needs.
            params = json!({"owner": ORG, "repo": TRACKER, "filter": {"state": "open"}, "first": FULL_PAGE,
                "fields": ["number", "labels.name"]});
            if let Some(cursor) = &after {
                params["after"] = json!(cursor);
            }
        }
        if id == "pulls/list" {
            params["fields"] = json!(["number"]);
        }
        let family = task
            .operations()
            .iter()
            .find(|operation| operation.id == id)
            .map_or("read", |operation| operation.family);
        let reply = client
            .call_tool(
                &tool_for(family)?,
                json!({"operation": aqlgen_name(id), "params": params}),
            )
            .await?;
        reply.ensure_tool_success()?;
        tally.call(&reply);
        after = reply.tool_json()["data"]["pageInfo"]["endCursor"]
            .as_str()
            .map(str::to_owned);
    }
    Ok((tally.tokens, tally.calls))
}

/// How a peer with one tool per operation names its tools and takes a request body.
#[derive(Clone, Copy)]
pub struct DiscreteTools {
    /// The tool of a GitHub operationId.
    pub tool_name: fn(&str) -> String,
    /// Where the body fields of a POST go: `Some(member)` nests them under it, `None` keeps
    /// them beside the path and query params.
    pub body_member: Option<&'static str>,
}

/// The GitHub params of the tasks' operations that travel in the path or the query; the rest
/// go in the body.
const NOT_BODY: &[&str] = &["owner", "repo", "issue_number"];

async fn run_discrete(
    client: &Client,
    task: Task,
    tools: DiscreteTools,
) -> anyhow::Result<(usize, usize)> {
    let mut tally = Tally::default();
    client.initialize().await?;
    let listed = client.request("tools/list", json!({})).await?;
    tally.read(&listed);
    let registered = listed.tool_names()?;
    for (id, params, marker) in task.calls() {
        let tool = (tools.tool_name)(id);
        if !registered.contains(&tool) {
            bail!("tools/list does not register {tool}");
        }
        let arguments = match (tools.body_member, id) {
            (Some(member), "pulls/create" | "issues/add-labels") => {
                let (mut outer, mut body) = (serde_json::Map::new(), serde_json::Map::new());
                for (key, value) in params.as_object().into_iter().flatten() {
                    let side = if NOT_BODY.contains(&key.as_str()) {
                        &mut outer
                    } else {
                        &mut body
                    };
                    side.insert(key.clone(), value.clone());
                }
                outer.insert(member.to_owned(), Value::Object(body));
                Value::Object(outer)
            }
            _ => params,
        };
        let reply = client.call_tool(&tool, arguments).await?;
        // Some peers answer an upstream failure as plain text without `isError`, so success
        // is the text only a successful answer of this call carries.
        if reply.result()["isError"] == Value::Bool(true) || !reply.text.contains(marker) {
            bail!(
                "{tool} did not succeed: {}",
                crate::client::truncate(&reply.text, 200)
            );
        }
        tally.call(&reply);
    }
    Ok((tally.tokens, tally.calls))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_each_convention() {
        assert_eq!(aqlgen_name("issues/list-for-repo"), "issues_list_for_repo");
        assert_eq!(aqlgen_name("issues/add-labels"), "issues_add_labels");
        for task in Task::ALL {
            for (id, _, _) in task.calls() {
                assert!(
                    task.operations().iter().any(|operation| operation.id == id),
                    "{task:?} calls {id} without finding it first"
                );
            }
        }
    }
}
