//! A scripted agent that connects to an aqlgen server and lists the open issues of a
//! repository, counting the tokens of everything it reads and writes on the way.
//!
//! The script plays a model that knows only MCP and what the server tells it: every tool and
//! operation name it uses appears in an earlier answer.

use anyhow::{Context as _, bail};
use serde_json::{Value, json};

use crate::client::{Client, Reply};
use crate::tokens;

/// The operation the agent is looking for, as GitHub's description names it.
const WANTED: &str = "issues_list_for_repo";

/// Tokens spent from connect to the first successful call.
#[derive(Debug, Clone, Default)]
pub struct FirstCall {
    /// Every step: what it was and its request + response tokens.
    pub steps: Vec<(String, usize)>,
}

impl FirstCall {
    /// The sum over all steps.
    pub fn tokens(&self) -> usize {
        self.steps.iter().map(|(_, tokens)| tokens).sum()
    }

    fn add(&mut self, step: impl Into<String>, request: &str, response: &str) {
        let spent = tokens::count(request) + tokens::count(response);
        self.steps.push((step.into(), spent));
    }
}

/// Runs the script on a fresh, uninitialized connection. `initialize` is not counted: it
/// carries no tool or operation text a model reads.
pub async fn list_open_issues(
    client: &Client,
    owner: &str,
    repo: &str,
) -> anyhow::Result<FirstCall> {
    let mut spent = FirstCall::default();
    client.initialize().await?;

    // 1. tools/list: the agent learns the tool names and their descriptions.
    let tools = client.request("tools/list", json!({})).await?;
    spent.add("tools/list", &tools.request, &tools.text);
    let names = tools.tool_names()?;
    // Listing issues is a read: the CRUDE read tool if there is one, else the single tool.
    let tool = names
        .iter()
        .find(|name| name.ends_with("_read"))
        .or_else(|| names.iter().find(|name| name.ends_with("mcp_aql")))
        .context("no read tool and no single tool in tools/list")?
        .to_string();

    // 2. introspect, narrowed to read operations about listing issues, as the tool
    //    description suggests. If the terms must appear together and nothing matches, the
    //    agent retries with the one word it is sure of.
    let mut found = None;
    for search in ["issues list", "issues"] {
        let arguments = json!({"operation": "introspect",
            "params": {"query": "operations", "endpoint": "read", "search": search}});
        let reply = client.call_tool(&tool, arguments).await?;
        reply.ensure_tool_success()?;
        spent.add(
            format!("introspect search \"{search}\""),
            &reply.request,
            &reply.text,
        );
        if let Some(name) = operation_names(&reply).into_iter().find(|n| is_wanted(n)) {
            found = Some(name);
            break;
        }
    }
    // 3. The list names `issues_list_for_repo` ("List repository issues"): the agent asks
    //    for its parameters.
    let Some(operation) = found else {
        bail!("introspection never listed {WANTED}");
    };
    let arguments = json!({"operation": "introspect",
        "params": {"query": "operations", "name": operation}});
    let details = client.call_tool(&tool, arguments).await?;
    details.ensure_tool_success()?;
    spent.add(
        format!("introspect name \"{operation}\""),
        &details.request,
        &details.text,
    );
    let params = &details.tool_json()["data"];
    for param in ["owner", "repo", "filter"] {
        if !params.to_string().contains(&format!("\"{param}\"")) {
            bail!("{operation}'s details do not mention the parameter {param}");
        }
    }

    // 4. The call itself, with the parameters the details named.
    let arguments = json!({"operation": operation,
        "params": {"owner": owner, "repo": repo, "filter": {"state": "open"}}});
    let call = client.call_tool(&tool, arguments).await?;
    call.ensure_tool_success()?;
    spent.add(
        format!("{operation} (data as null)"),
        &call.request,
        &without_data(&call),
    );
    Ok(spent)
}

/// Whether `name` is the wanted operation: itself, or a bundle's `<adapter>__` name of it.
fn is_wanted(name: &str) -> bool {
    name == WANTED
        || name
            .strip_suffix(WANTED)
            .is_some_and(|adapter| adapter.ends_with("__"))
}

/// The operation names in an `introspect` operations list.
fn operation_names(reply: &Reply) -> Vec<String> {
    reply.tool_json()["data"]["operations"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|entry| entry["name"].as_str().map(str::to_owned))
        .collect()
}

/// The response text with the envelope's `data` (the upstream's payload) replaced by null.
fn without_data(reply: &Reply) -> String {
    let mut envelope = reply.tool_json();
    if let Some(data) = envelope.get_mut("data") {
        *data = Value::Null;
    }
    let mut message = reply.value.clone();
    message["result"]["content"][0]["text"] = Value::String(envelope.to_string());
    message.to_string()
}
