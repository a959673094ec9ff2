//! npm `openapi-mcp-generator`: generates a TypeScript MCP server project from the OpenAPI
//! file, one tool per operation; the project is installed, built with its own `npm run build`
//! (`tsc`) and run over stdio with `node build/index.js`.

use std::path::Path;

use anyhow::Context as _;
use tokio::process::Command;

use super::{Context, DiscreteStdio, failed_row, measure_discrete_stdio, npm_install, run_step};
use crate::figures::Figures;
use crate::tasks::DiscreteTools;

const PACKAGE: &str = "openapi-mcp-generator";
const VERSION: &str = "4.0.1";

/// Tool names: `<tag>_<operationId after the slash>`; a request body goes in `requestBody`.
const TOOLS: DiscreteTools = DiscreteTools {
    tool_name: |id| id.replacen('/', "_", 1),
    body_member: Some("requestBody"),
};

pub async fn measure(ctx: &Context) -> Figures {
    let name = format!("{PACKAGE} {VERSION}");
    let dir = ctx.peers_dir().join(PACKAGE);
    let (entry, mut notes) = match prepare(ctx, &dir).await {
        Ok(prepared) => prepared,
        Err(error) => return failed_row(&name, &error),
    };
    let base_url = ctx.upstream_base_url.clone();
    // The generated server reads its upstream from API_BASE_URL (default https://api.github.com).
    let spawn = move || {
        let mut command = Command::new("node");
        command.arg(&entry).env("API_BASE_URL", &base_url);
        command
    };
    let mut figures = Figures {
        name,
        ..Figures::default()
    };
    figures.notes.append(&mut notes);
    let peer = DiscreteStdio {
        spawn: &spawn,
        tools: TOOLS,
    };
    measure_discrete_stdio(&peer, &mut figures).await;
    figures
}

/// Installs the generator, generates the server into `<dir>/server` and builds it, each step
/// skipped when its output is already there for this version. Returns the built entry point
/// and notes on the build.
async fn prepare(ctx: &Context, dir: &Path) -> anyhow::Result<(std::path::PathBuf, Vec<String>)> {
    let package = npm_install(dir, PACKAGE, VERSION).await?;
    let server = dir.join("server");
    let stamp = server.join(".generated-by");
    let wanted = format!("{VERSION} {}", ctx.openapi.display());
    if std::fs::read_to_string(&stamp).ok().as_deref() != Some(wanted.as_str()) {
        let _ = std::fs::remove_dir_all(&server);
        let mut generate = Command::new("node");
        // -i: the OpenAPI file; -o: the project directory; --force: overwrite without asking.
        // Transport stays the default, stdio.
        generate
            .arg(package.join("bin/openapi-mcp-generator.js"))
            .arg("-i")
            .arg(&ctx.openapi)
            .arg("-o")
            .arg(&server)
            .arg("--force");
        run_step(generate, &dir.join("generate.log"), false).await?;
        let mut install = Command::new("npm");
        install
            .args(["install", "--no-audit", "--no-fund"])
            .current_dir(&server);
        run_step(install, &dir.join("generate.log"), false).await?;
        let _ = std::fs::remove_file(dir.join("build.log"));
        let mut build = Command::new("npm");
        build.args(["run", "build"]).current_dir(&server);
        // tsc may report type errors on the 2 MB source yet still emit JavaScript; the
        // emitted server is what a user would run, so a failed build is a note, not an end.
        run_step(build, &dir.join("build.log"), true).await?;
        std::fs::write(&stamp, &wanted)?;
    }
    let entry = server.join("build/index.js");
    anyhow::ensure!(entry.exists(), "the build emitted no {}", entry.display());

    let mut notes = Vec::new();
    let build_log = std::fs::read_to_string(dir.join("build.log")).unwrap_or_default();
    let errors: Vec<&str> = build_log
        .lines()
        .filter(|line| line.contains("error TS"))
        .collect();
    if !errors.is_empty() {
        notes.push(format!(
            "npm run build (tsc) failed with {} type error(s) but emitted build/index.js, \
             which is measured: {}",
            errors.len(),
            errors[0].trim()
        ));
    }
    let sdk = super::npm_version(&server.join("node_modules/@modelcontextprotocol/sdk"))
        .context("the generated project has no @modelcontextprotocol/sdk")?;
    notes.push(format!(
        "generated project's dependencies resolved by npm install: @modelcontextprotocol/sdk {sdk}"
    ));
    Ok((entry, notes))
}
