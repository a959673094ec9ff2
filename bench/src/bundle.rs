//! A bundle against separate servers, in tokens: GitHub's whole REST API (imported again as
//! `github-rest`, since the example adapter is `github`), the github example and the todo
//! example, served by one bundle, and by three servers an agent's client connects to side
//! by side. The figures are what a model reads: the `tools/list` answers, and the scripted
//! first call (find and call `issues_list_for_repo`) plus the other servers' `tools/list`.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context as _, bail};
use serde_json::json;

use crate::client::Client;
use crate::{agent, tokens};

/// What a model reads of one setup.
#[derive(Debug, Clone)]
pub struct Side {
    /// `one bundle` or `three servers`.
    pub name: &'static str,
    /// Tools registered, over every server.
    pub tools: usize,
    /// Tokens of every `tools/list` answer.
    pub tools_list_tokens: usize,
    /// Tokens from connecting to the first successful call, every `tools/list` included.
    pub first_call_tokens: usize,
}

/// Paths the measurement needs.
pub struct Inputs<'a> {
    /// The checkout.
    pub root: &'a Path,
    /// `bench/work`.
    pub work: &'a Path,
    /// The release `aqlgen`.
    pub aqlgen: &'a Path,
    /// GitHub's OpenAPI document.
    pub openapi: &'a Path,
    /// The GitHub import's server binary, as the pipeline built it.
    pub import_binary: &'a Path,
    /// The variable pointing it at its upstream.
    pub import_base_url_env: &'a str,
    /// demo-upstream's base URL: it plays GitHub and the todo API.
    pub upstream: &'a str,
}

/// Builds the bundle and the two example servers, then measures both setups.
pub async fn measure(inputs: &Inputs<'_>) -> anyhow::Result<[Side; 2]> {
    let bundle = build_bundle(inputs)?;
    let examples = build_examples(inputs.root)?;
    let env = |pairs: &[(&str, &str)]| -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(key, value)| ((*key).to_owned(), (*value).to_owned()))
            .collect()
    };
    let upstream = inputs.upstream;
    let bundle_env = env(&[
        ("GITHUB_REST_BASE_URL", upstream),
        ("GITHUB_REST_TOKEN", "bench-token"),
        ("GITHUB_BASE_URL", upstream),
        ("GITHUB_TOKEN", "bench-token"),
        ("TODO_BASE_URL", upstream),
        ("TODO_API_KEY", "bench-key"),
    ]);
    let one = side("one bundle", &bundle, &bundle_env, &[]).await?;
    let import_env = env(&[
        (inputs.import_base_url_env, upstream),
        ("GITHUB_TOKEN", "bench-token"),
    ]);
    let others = [
        (
            examples.join("github-adapter"),
            env(&[
                ("GITHUB_BASE_URL", upstream),
                ("GITHUB_TOKEN", "bench-token"),
            ]),
        ),
        (
            examples.join("todo-adapter"),
            env(&[("TODO_BASE_URL", upstream), ("TODO_API_KEY", "bench-key")]),
        ),
    ];
    let three = side("three servers", inputs.import_binary, &import_env, &others).await?;
    Ok([one, three])
}

/// The first call on `binary`, and the `tools/list` of it and of every one of `others`.
async fn side(
    name: &'static str,
    binary: &Path,
    env: &[(String, String)],
    others: &[(PathBuf, Vec<(String, String)>)],
) -> anyhow::Result<Side> {
    let command = |binary: &Path, env: &[(String, String)]| {
        let mut command = tokio::process::Command::new(binary);
        command.envs(env.iter().cloned());
        command
    };
    let client = Client::stdio(command(binary, env))?;
    let first = agent::list_open_issues(&client, "octo", "hello-world").await?;
    client.close().await?;
    let mut side = Side {
        name,
        tools: 0,
        tools_list_tokens: 0,
        first_call_tokens: first.tokens(),
    };
    let (tools, listed) = tools_list(command(binary, env)).await?;
    side.tools += tools;
    side.tools_list_tokens += listed;
    for (other, env) in others {
        let (tools, listed) = tools_list(command(other, env)).await?;
        side.tools += tools;
        side.tools_list_tokens += listed;
        side.first_call_tokens += listed;
    }
    Ok(side)
}

/// The tool count and tokens of one server's `tools/list` answer.
async fn tools_list(command: tokio::process::Command) -> anyhow::Result<(usize, usize)> {
    let client = Client::stdio(command)?;
    client.initialize().await?;
    let tools = client.request("tools/list", json!({})).await?;
    let counted = (tools.tool_names()?.len(), tokens::count(&tools.text));
    client.close().await?;
    Ok(counted)
}

/// Imports GitHub's description as `github-rest` and builds the bundle of it and the two
/// examples in release mode, beside the import's own build; the binary.
fn build_bundle(inputs: &Inputs<'_>) -> anyhow::Result<PathBuf> {
    let schema = inputs.work.join("github-rest.md");
    run(Command::new(inputs.aqlgen)
        .arg("import-openapi")
        .arg(inputs.openapi)
        .args([
            "--name",
            "github-rest",
            "--bearer-env",
            "GITHUB_REST_TOKEN",
            "--quiet",
            "-o",
        ])
        .arg(&schema))?;
    let adapters = inputs.root.join("adapters");
    let crate_dir = inputs.work.join("bundle");
    run(Command::new(inputs.aqlgen)
        .arg(&schema)
        .arg(adapters.join("github-adapter.md"))
        .arg(adapters.join("todo-adapter.md"))
        .args(["--bundle", "work", "--quiet", "-o"])
        .arg(&crate_dir)
        .arg("--runtime-path")
        .arg(inputs.root.join("runtime-support")))?;
    let target = inputs.work.join("target-full");
    eprintln!("bench: cargo build --release of the bundle");
    run(Command::new("cargo")
        .args(["build", "--release", "--quiet", "--manifest-path"])
        .arg(crate_dir.join("Cargo.toml"))
        .arg("--target-dir")
        .arg(&target))?;
    Ok(target.join("release").join("work-bundle"))
}

/// Builds the checked-in github and todo examples in release mode; their directory.
fn build_examples(root: &Path) -> anyhow::Result<PathBuf> {
    eprintln!("bench: cargo build --release of the two examples");
    run(Command::new("cargo").current_dir(root).args([
        "build",
        "--release",
        "--quiet",
        "-p",
        "github-adapter",
        "-p",
        "todo-adapter",
    ]))?;
    let target =
        std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), PathBuf::from);
    Ok(target.join("release"))
}

fn run(command: &mut Command) -> anyhow::Result<()> {
    let status = command
        .status()
        .with_context(|| format!("running {command:?}"))?;
    if !status.success() {
        bail!("{command:?} failed: {status}");
    }
    Ok(())
}

/// The section of docs/benchmarks.md.
pub fn render(sides: &[Side; 2], date: &str) -> String {
    let mut text = format!(
        "Measured {date} by `scripts/bench --bundle-only`: GitHub's REST API (imported as \
         `github-rest`), the github example and the todo example, as one bundle and as three \
         servers. Tokens are o200k_base. The first call is the scripted agent's way to \
         `issues_list_for_repo` (tools/list, introspect searches, its details, the call), plus \
         the `tools/list` of the servers it did not call, which a client loads as well.\n\n\
         | setup | tools | tools/list tokens | first-call tokens |\n|---|---:|---:|---:|\n"
    );
    for side in sides {
        let _ = writeln!(
            text,
            "| {} | {} | {} | {} |",
            side.name, side.tools, side.tools_list_tokens, side.first_call_tokens
        );
    }
    let [one, three] = sides;
    let fewer = |ours: usize, theirs: usize| 100 - (ours * 100).div_ceil(theirs.max(1));
    let _ = write!(
        text,
        "\nThe bundle's tools/list takes {}% fewer tokens than the three servers' together, and the first call {}% fewer: one set of five tool descriptions instead of three. The search for \"issues list\" in the bundle also lists the github example's issue operations, which the import's own server does not have.\n",
        fewer(one.tools_list_tokens, three.tools_list_tokens),
        fewer(one.first_call_tokens, three.first_call_tokens)
    );
    text
}
