//! `--print-config CLIENT` of real generated servers: each client's configuration parses in
//! that client's format (JSON, TOML, or `claude mcp add-json`'s JSON), names the running binary
//! by a path that exists, passes on the arguments given, asks for each credential without ever
//! printing one, and says so when it does not vouch for the adapter.

use std::process::{Command, Output};

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
