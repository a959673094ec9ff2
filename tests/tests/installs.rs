//! How users install a generated server, tried with real servers and real tools.
//!
//! `--print-config CLIENT`: each client's configuration parses in that client's format (JSON,
//! TOML, or `claude mcp add-json`'s JSON), names the running binary by a path that exists,
//! passes on the arguments given, asks for each credential without ever printing one, and
//! says so when it does not vouch for the adapter.
//!
//! MCP Bundles: the manifest a generated crate holds passes `mcpb validate`, `mcpb pack`
//! makes a bundle of it and the server binary, and the binary unpacked from the bundle serves
//! `tools/list`.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;

const TODO: &str = env!("CARGO_BIN_EXE_todo-adapter-server");
/// Serves the `work` bundle with `REAL_API=work`: the todo adapter and a `low` one.
const REAL: &str = env!("CARGO_BIN_EXE_real-api-adapter");
/// What the todo adapter's key is set to while its configuration is printed.
const KEY: &str = "sekrit-todo-key-1234";

fn print(binary: &str, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(binary);
    command
        .args(args)
        .env("TODO_API_KEY", KEY)
        .env_remove("MCP_AQL_CONFIG");
    for (key, value) in env {
        command.env(key, value);
    }
    let output = command.output().expect("run the server");
    assert!(output.status.success(), "{args:?}: {output:?}");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        !stdout.contains(KEY),
        "a credential is never printed: {stdout}"
    );
    output
}

/// The `{command, args, env}` of the server named `todo` in `client`'s configuration.
fn todo_server(client: &str, text: &str) -> Value {
    match client {
        "claude-desktop" | "cursor" | "windsurf" => {
            let config: Value = serde_json::from_str(text).expect("JSON");
            config["mcpServers"]["todo"].clone()
        }
        "vscode" => {
            let config: Value = serde_json::from_str(text).expect("JSON");
            let server = config["servers"]["todo"].clone();
            assert_eq!(server["type"], "stdio");
            let inputs = config["inputs"].as_array().expect("inputs");
            assert_eq!(inputs.len(), 1, "{config}");
            assert_eq!(inputs[0]["id"], "todo_api_key");
            assert_eq!(inputs[0]["password"], true);
            assert_eq!(server["env"]["TODO_API_KEY"], "${input:todo_api_key}");
            server
        }
        "claude-code" => {
            let json = text
                .strip_prefix("claude mcp add-json todo '")
                .and_then(|rest| rest.trim_end().strip_suffix('\''))
                .expect("claude mcp add-json todo '<json>'");
            let server: Value = serde_json::from_str(json).expect("JSON");
            assert_eq!(server["type"], "stdio");
            server
        }
        "codex" => {
            let config: toml::Table = text.parse().expect("TOML");
            let server = &config["mcp_servers"]["todo"];
            serde_json::to_value(server).expect("TOML as JSON")
        }
        other => panic!("no client {other}"),
    }
}

#[test]
fn each_client_gets_a_configuration_it_reads_naming_the_binary() {
    for client in [
        "claude-desktop",
        "claude-code",
        "cursor",
        "vscode",
        "codex",
        "windsurf",
    ] {
        let output = print(
            TODO,
            &["--mode", "single", "--print-config", client],
            &[("TODO_BASE_URL", "http://127.0.0.1:9")],
        );
        let text = String::from_utf8(output.stdout).expect("UTF-8");
        let server = todo_server(client, &text);
        let command = server["command"].as_str().expect("a command");
        assert!(
            std::path::Path::new(command).is_absolute(),
            "{client}: {command}"
        );
        assert!(
            std::path::Path::new(command).exists(),
            "{client}: {command}"
        );
        assert_eq!(
            server["args"],
            serde_json::json!(["--mode", "single"]),
            "{client}"
        );
        assert_eq!(
            server["env"]["TODO_BASE_URL"], "http://127.0.0.1:9",
            "{client}"
        );
        let key = server["env"]["TODO_API_KEY"]
            .as_str()
            .expect("the key is asked for");
        assert_ne!(key, KEY, "{client}");
        // The todo schema declares `medium`: nothing to say about trust.
        assert!(
            output.stderr.is_empty(),
            "{client}: {:?}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
}

#[test]
fn a_configuration_that_does_not_vouch_says_so_and_one_that_does_is_quiet() {
    let env = [("REAL_API", "work")];
    let unvouched = print(REAL, &["--print-config", "claude-desktop"], &env);
    let note = String::from_utf8_lossy(&unvouched.stderr);
    assert!(note.contains("--trust-level"), "{note}");
    let vouched = print(
        REAL,
        &[
            "--trust-level",
            "medium",
            "--print-config",
            "claude-desktop",
        ],
        &env,
    );
    assert!(
        vouched.stderr.is_empty(),
        "{:?}",
        String::from_utf8_lossy(&vouched.stderr)
    );
    let config: Value = serde_json::from_slice(&vouched.stdout).expect("JSON");
    let server = &config["mcpServers"]["work"];
    assert_eq!(
        server["args"],
        serde_json::json!(["--trust-level", "medium"])
    );
    let env = server["env"].as_object().expect("env");
    assert!(
        env.contains_key("TODO_API_KEY") && env.len() >= 2,
        "{config}"
    );
}

#[test]
fn an_unknown_client_is_refused_with_the_known_ones() {
    let output = Command::new(TODO)
        .args(["--print-config", "emacs"])
        .output()
        .expect("run the server");
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("claude-desktop, claude-code, cursor, vscode, codex, windsurf"),
        "{stderr}"
    );
}

/// The MCP Bundles CLI `scripts/setup` installs.
fn mcpb() -> PathBuf {
    let ts = std::env::var_os("AQLGEN_TS_DIR").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/ts-mcp"),
        PathBuf::from,
    );
    ts.join("node_modules/.bin/mcpb")
}

/// The `name` of each tool in `tools`.
fn names(tools: &Value) -> Vec<&str> {
    tools
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|tool| tool["name"].as_str())
        .collect()
}

fn run(command: &mut Command) -> String {
    let output = command.output().expect("run");
    assert!(output.status.success(), "{command:?}: {output:?}");
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn the_generated_bundle_manifest_validates_packs_and_serves() {
    let manifest =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../generated/todo/mcpb/manifest.json");
    let work = tempfile::tempdir().expect("a directory");
    let bundle = work.path().join("bundle");
    std::fs::create_dir_all(bundle.join("server")).expect("server/");
    std::fs::copy(&manifest, bundle.join("manifest.json")).expect("the manifest");
    std::fs::copy(TODO, bundle.join("server/todo-adapter")).expect("the binary");
    let said = run(Command::new(mcpb())
        .arg("validate")
        .arg(bundle.join("manifest.json")));
    assert!(said.contains("passes"), "{said}");
    let packed = work.path().join("todo.mcpb");
    run(Command::new(mcpb()).arg("pack").arg(&bundle).arg(&packed));
    let unpacked = work.path().join("unpacked");
    run(Command::new("python3")
        .args(["-m", "zipfile", "-e"])
        .arg(&packed)
        .arg(&unpacked));
    let binary = unpacked.join("server/todo-adapter");
    let mut permissions = std::fs::metadata(&binary)
        .expect("the unpacked binary")
        .permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut permissions, 0o755);
    std::fs::set_permissions(&binary, permissions).expect("executable");

    // As the client starts it: the manifest's command, with the user_config as variables.
    let mut server = Command::new(&binary)
        .env("TODO_API_KEY", KEY)
        .env("TODO_BASE_URL", "http://127.0.0.1:9")
        .env("RUST_LOG", "error")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("start the unpacked server");
    let mut stdin = server.stdin.take().expect("stdin");
    for message in [
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"installs","version":"1"}}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
    ] {
        writeln!(stdin, "{message}").expect("write");
    }
    let answers = BufReader::new(server.stdout.take().expect("stdout"));
    let listed = answers
        .lines()
        .map(|line| serde_json::from_str::<Value>(&line.expect("a line")).expect("JSON-RPC"))
        .find(|answer| answer["id"] == 2)
        .expect("an answer to tools/list");
    drop(stdin);
    let _ = server.wait();
    let manifest: Value =
        serde_json::from_str(&std::fs::read_to_string(&manifest).expect("read")).expect("JSON");
    assert_eq!(
        names(&listed["result"]["tools"]),
        names(&manifest["tools"]),
        "the manifest lists the tools the server serves"
    );
}

#[test]
fn a_server_over_http_is_given_by_url_not_by_a_command() {
    let output = Command::new(TODO)
        .args([
            "--transport",
            "http",
            "--port",
            "9300",
            "--print-config",
            "cursor",
        ])
        .output()
        .expect("run the server");
    assert_eq!(output.status.code(), Some(2));
    assert!(output.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("http://127.0.0.1:9300/mcp"), "{stderr}");
}

/// A bundle's manifest, generated here from the todo adapter and `tasks-adapter.md`, passes
/// `mcpb validate`, asks for every member's credentials and base URL, and lists every
/// member's operations.
#[test]
fn a_bundle_crate_manifest_validates_and_covers_every_member() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let members = ["../adapters/todo-adapter.md", "tasks-adapter.md"]
        .map(|schema| aqlgen_build::check(&root.join(schema)).expect("a valid schema"));
    let bundle = aqlgen_build::Bundle::new("work", &members).expect("a bundle");
    let files = aqlgen_build::generate_bundle(&bundle, &aqlgen_build::CrateLocation::default())
        .expect("generated");
    let manifest = files
        .iter()
        .find(|file| file.path == "mcpb/manifest.json")
        .expect("a manifest");
    let work = tempfile::tempdir().expect("a directory");
    let path = work.path().join("manifest.json");
    std::fs::write(&path, &manifest.contents).expect("write");
    let said = run(Command::new(mcpb()).arg("validate").arg(&path));
    assert!(said.contains("passes"), "{said}");
    let manifest: Value = serde_json::from_str(&manifest.contents).expect("JSON");
    let env = manifest["server"]["mcp_config"]["env"]
        .as_object()
        .expect("env");
    for variable in [
        "TODO_API_KEY",
        "TODO_BASE_URL",
        "TASKS_TOKEN",
        "TASKS_BASE_URL",
    ] {
        assert!(env.contains_key(variable), "{variable}: {manifest}");
    }
    // tasks declares `low`: the person installing it may vouch.
    assert!(env.contains_key("MCP_AQL_TRUST_LEVEL"), "{manifest}");
    let read = manifest["tools"][1]["description"].as_str().expect("read");
    assert!(
        read.contains("todo__get_todo") && read.contains("tasks__"),
        "{read}"
    );
}
