//! `--print-config CLIENT`: what installs this server in an MCP client, in that client's own
//! format, naming the running binary by its absolute path and passing on the other arguments
//! the operator gave. Secrets are never printed: a credential is a placeholder to fill in (VS
//! Code asks for it through an input); a non-secret override is passed on only when it is set.

use serde_json::{Map, Value, json};

use crate::adapter::{AdapterInfo, Variable};

aqlgen_model::vocabulary! {
    /// An MCP client whose configuration `--print-config` writes.
    pub enum Client ("MCP client") {
        /// `claude_desktop_config.json`'s `mcpServers`.
        ClaudeDesktop = "claude-desktop",
        /// `claude mcp add-json NAME '<json>'`.
        ClaudeCode = "claude-code",
        /// `.cursor/mcp.json`'s `mcpServers`.
        Cursor = "cursor",
        /// `.vscode/mcp.json`: `servers`, with `inputs` for the credentials.
        Vscode = "vscode",
        /// `~/.codex/config.toml`'s `[mcp_servers.NAME]`.
        Codex = "codex",
        /// `~/.codeium/windsurf/mcp_config.json`'s `mcpServers`.
        Windsurf = "windsurf",
    }
}

impl Client {
    /// Parses a `--print-config` value.
    ///
    /// # Errors
    ///
    /// A sentence naming the clients when `text` is none of them.
    pub fn parse_flag(text: &str) -> Result<Self, String> {
        Self::parse(text).ok_or_else(|| {
            format!(
                "'{text}' is no client this server writes a configuration for; use one of: {}",
                <Self as aqlgen_model::Vocabulary>::NAMES.join(", ")
            )
        })
    }
}

/// The server as a client starts it.
pub struct Launch<'a> {
    /// The name the client lists it under: the adapter's (or bundle's).
    pub name: &'a str,
    /// The binary's absolute path.
    pub command: String,
    /// The arguments it is started with.
    pub args: Vec<String>,
    /// What the server reads from its environment, with the values to set: a placeholder for
    /// each credential, the current value of each override that is set.
    pub env: Vec<(Variable, Option<String>)>,
}

impl<'a> Launch<'a> {
    /// `name` served by `command args`, reading the variables of `members`; `current` says
    /// what an override is set to in this process.
    pub fn new(
        name: &'a str,
        command: String,
        args: Vec<String>,
        members: &[&AdapterInfo],
        current: impl Fn(&str) -> Option<String>,
    ) -> Self {
        let env = members
            .iter()
            .flat_map(|member| member.variables())
            .filter_map(|variable| {
                if variable.secret {
                    variable.required.then_some((variable, None))
                } else {
                    current(variable.env).map(|value| (variable, Some(value)))
                }
            })
            .collect();
        Self {
            name,
            command,
            args,
            env,
        }
    }

    /// The configuration `client` reads, as its file or command line holds it.
    pub fn snippet(&self, client: Client) -> String {
        match client {
            Client::ClaudeDesktop | Client::Cursor | Client::Windsurf => {
                let mut servers = Map::new();
                servers.insert(self.name.to_owned(), Value::Object(self.stdio(placeholder)));
                pretty(&json!({ "mcpServers": servers }))
            }
            Client::ClaudeCode => {
                let mut server = self.stdio(placeholder);
                server.insert("type".to_owned(), json!("stdio"));
                let text = serde_json::to_string(&server).unwrap_or_default();
                format!(
                    "claude mcp add-json {} '{}'\n",
                    self.name,
                    text.replace('\'', r"'\''")
                )
            }
            Client::Vscode => {
                let inputs: Vec<Value> = self
                    .env
                    .iter()
                    .filter(|(_, value)| value.is_none())
                    .map(|(variable, _)| {
                        json!({
                            "type": "promptString",
                            "id": input_id(variable),
                            "description": variable.holds,
                            "password": variable.secret,
                        })
                    })
                    .collect();
                let mut server = self.stdio(|v| format!("${{input:{}}}", input_id(v)));
                server.insert("type".to_owned(), json!("stdio"));
                let mut servers = Map::new();
                servers.insert(self.name.to_owned(), Value::Object(server));
                pretty(&json!({ "inputs": inputs, "servers": servers }))
            }
            Client::Codex => {
                let key = toml_key(self.name);
                let mut text = format!(
                    "[mcp_servers.{key}]\ncommand = {}\nargs = [{}]\n",
                    quoted(&self.command),
                    self.args
                        .iter()
                        .map(|arg| quoted(arg))
                        .collect::<Vec<_>>()
                        .join(", ")
                );
                if !self.env.is_empty() {
                    text.push_str(&format!("\n[mcp_servers.{key}.env]\n"));
                    for (variable, value) in &self.env {
                        let value = value.clone().unwrap_or_else(|| placeholder(variable));
                        text.push_str(&format!("{} = {}\n", variable.env, quoted(&value)));
                    }
                }
                text
            }
        }
    }

    /// `{command, args, env}`, a credential written by `secret`.
    fn stdio(&self, secret: impl Fn(&Variable) -> String) -> Map<String, Value> {
        let env: Map<String, Value> = self
            .env
            .iter()
            .map(|(variable, value)| {
                let value = value.clone().unwrap_or_else(|| secret(variable));
                (variable.env.to_owned(), Value::String(value))
            })
            .collect();
        let mut server = Map::new();
        server.insert("command".to_owned(), json!(self.command));
        server.insert("args".to_owned(), json!(self.args));
        if !env.is_empty() {
            server.insert("env".to_owned(), Value::Object(env));
        }
        server
    }
}

/// What stands for a credential the operator fills in.
fn placeholder(variable: &Variable) -> String {
    format!("<{}>", variable.holds)
}

/// A VS Code input id: the variable's name in lower case.
fn input_id(variable: &Variable) -> String {
    variable.env.to_ascii_lowercase()
}

fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_default() + "\n"
}

/// A TOML basic string: JSON's string escapes are TOML's.
fn quoted(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_default()
}

/// A TOML key: bare when it can be, quoted otherwise.
fn toml_key(name: &str) -> String {
    if !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    {
        name.to_owned()
    } else {
        quoted(name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn launch(args: &[&str]) -> Launch<'static> {
        Launch {
            name: "demo",
            command: "/opt/demo adapter/bin".to_owned(),
            args: args.iter().map(|arg| (*arg).to_owned()).collect(),
            env: Vec::new(),
        }
    }

    /// What an operator gave survives the client's quoting: a shell's single quotes, TOML's
    /// strings.
    #[test]
    fn arguments_survive_each_quoting() {
        let tricky = launch(&["--config", "it's \"here\".toml"]);
        let shell = tricky.snippet(Client::ClaudeCode);
        assert_eq!(
            shell,
            "claude mcp add-json demo '{\"args\":[\"--config\",\"it'\\''s \\\"here\\\".toml\"],\"command\":\"/opt/demo adapter/bin\",\"type\":\"stdio\"}'\n"
        );
        let toml = tricky.snippet(Client::Codex);
        toml::de::DeTable::parse(&toml).expect("TOML");
        assert!(
            toml.contains(r#"args = ["--config", "it's \"here\".toml"]"#),
            "{toml}"
        );
    }
}
