//! Five realistic GitHub tasks, each scripted from a fresh connection to its answer, with the
//! tokens of everything the agent reads and writes and the number of tool calls it makes.
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
}

impl Task {
    pub const ALL: [Task; 5] = [
        Task::OpenBugs,
        Task::IssueWithComments,
        Task::OpenPullRequest,
        Task::LabelIssue,
        Task::ThreePages,
    ];

    /// The column heading.
    pub fn title(self) -> &'static str {
        match self {
            Task::OpenBugs => "open bugs",
            Task::IssueWithComments => "issue + comments",
            Task::OpenPullRequest => "open a PR",
            Task::LabelIssue => "label an issue",
            Task::ThreePages => "three pages",
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
        match self {
            Task::OpenBugs | Task::ThreePages => &[LIST],
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
        }
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
    /// An aqlgen server in either mode: each operation found through `introspect`.
    Aqlgen,
    /// A peer with one tool per operation.
    Discrete(DiscreteTools),
}

/// Runs every task with `script`, each on a fresh connection from `connect`.
pub async fn run_all<F, Fut>(connect: F, script: Script) -> Vec<Outcome>
where
    F: Fn() -> Fut,
    Fut: Future<Output = anyhow::Result<Client>>,
{
    let mut outcomes = Vec::new();
    for task in Task::ALL {
        let spent = match connect().await {
            Ok(client) => {
                let spent = match script {
                    Script::Aqlgen => run_aqlgen(&client, task).await,
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

/// One task through an aqlgen server in either mode.
async fn run_aqlgen(client: &Client, task: Task) -> anyhow::Result<(usize, usize)> {
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

    let mut after: Option<String> = None;
    for (id, mut params, _) in task.calls() {
        if task == Task::ThreePages {
            // The details offer cursor pagination: `first`, then `after` the last cursor.
            params = json!({"owner": OWNER, "repo": REPO, "state": "all", "first": PAGE_SIZE});
            if let Some(cursor) = &after {
                params["after"] = json!(cursor);
            }
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
