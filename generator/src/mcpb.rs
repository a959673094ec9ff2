//! `mcpb/manifest.json` of a generated crate (an adapter's or a bundle's): the MCP Bundle
//! manifest (version 0.3) that
//! installs the server in one click in a client that takes `.mcpb` files. The binary goes at
//! `mcpb/server/<binary>`; `mcpb pack mcpb` then writes the bundle. The client asks the person
//! installing it for each credential (stored as a secret and passed as the variable the server
//! reads), and for the base URL and the trust level they vouch for when they want to set them.

use aqlgen_model::{Category, TrustLevel};
use serde_json::{Map, Value, json};

use crate::ir::Adapter;

/// Operation names a tool's description lists before it counts the rest.
const LISTED: usize = 8;

/// A server a manifest describes: one adapter, or a bundle's members.
pub struct Server<'a> {
    /// The Cargo package, which names the binary too.
    pub package: &'a str,
    /// The adapter's name, or the bundle's.
    pub name: &'a str,
    /// The server's version.
    pub version: &'a str,
    /// What it is for.
    pub description: &'a str,
    /// The adapters it serves.
    pub members: &'a [Adapter],
}

impl<'a> Server<'a> {
    /// The server of one adapter.
    pub fn of(adapter: &'a Adapter) -> Self {
        Self {
            package: &adapter.package,
            name: &adapter.name,
            version: &adapter.version,
            description: &adapter.description,
            members: std::slice::from_ref(adapter),
        }
    }
}

/// The manifest of `server`.
pub fn manifest(server: &Server<'_>) -> String {
    let mut user_config = Map::new();
    let mut env = Map::new();
    let mut setting = |key: String, env_name: &str, config: Value| {
        env.insert(
            env_name.to_owned(),
            Value::String(format!("${{user_config.{key}}}")),
        );
        user_config.insert(key, config);
    };
    let bundled = server.members.len() > 1;
    for adapter in server.members {
        for (variable, required) in adapter.auth.credentials() {
            setting(
                variable.to_ascii_lowercase(),
                variable,
                json!({
                    "type": "string",
                    "title": variable,
                    "description": format!("The {} API credential the server sends, read from {variable}", adapter.name),
                    "sensitive": true,
                    "required": required,
                }),
            );
        }
        let key = if bundled {
            format!("{}_base_url", adapter.name.replace('-', "_"))
        } else {
            "base_url".to_owned()
        };
        setting(
            key,
            &adapter.base_url_env,
            json!({
                "type": "string",
                "title": format!("{} API base URL", adapter.name),
                "description": format!("Where the {} API is reached", adapter.name),
                "default": adapter.base_url,
                "required": false,
            }),
        );
    }
    let untested: Vec<String> = server
        .members
        .iter()
        .filter(|adapter| {
            adapter
                .trust
                .is_none_or(|level| level < TrustLevel::Validated)
        })
        .map(|adapter| {
            format!(
                "{} declares {}",
                adapter.name,
                adapter.trust.map_or("no trust level", TrustLevel::as_str)
            )
        })
        .collect();
    if !untested.is_empty() {
        setting(
            "trust_level".to_owned(),
            "MCP_AQL_TRUST_LEVEL",
            json!({
                "type": "string",
                "title": "Trust level you vouch for",
                "description": format!(
                    "The schema ({}) lets the server run only some operations. Give `validated` once the adapter has passed your tests against the API; leave it empty otherwise.",
                    untested.join("; ")
                ),
                "required": false,
            }),
        );
    }
    let entry = format!("server/{}", server.package);
    let manifest = json!({
        "manifest_version": "0.3",
        "name": server.package,
        "display_name": format!("{} (MCP-AQL)", server.name),
        "version": server.version,
        "description": server.description,
        "author": { "name": "aqlgen" },
        "server": {
            "type": "binary",
            "entry_point": entry,
            "mcp_config": {
                "command": format!("${{__dirname}}/{entry}"),
                "args": [],
                "env": env,
                "platform_overrides": {
                    "win32": { "command": format!("${{__dirname}}/{entry}.exe") },
                },
            },
        },
        "user_config": user_config,
        "tools": tools(server),
        "compatibility": { "platforms": ["darwin", "linux", "win32"] },
    });
    serde_json::to_string_pretty(&manifest).unwrap_or_default() + "\n"
}

/// The five CRUDE tools, each with the operations it serves.
fn tools(server: &Server<'_>) -> Vec<Value> {
    let of = match server.members {
        [_] => format!("the {} API", server.name),
        _ => format!("the {} bundle", server.name),
    };
    Category::ALL
        .iter()
        .map(|category| {
            let names: Vec<&str> = server
                .members
                .iter()
                .flat_map(|adapter| &adapter.operations)
                .filter(|operation| operation.category == *category)
                .map(|operation| operation.name.as_str())
                .collect();
            let listed = match names.len() {
                0 => "none; introspect lists what the adapter has".to_owned(),
                count if count > LISTED => {
                    format!("{} and {} more", names[..LISTED].join(", "), count - LISTED)
                }
                _ => names.join(", "),
            };
            json!({
                "name": format!("mcp_aql_{}", category.as_str()),
                "description": format!(
                    "{} operations of {of}: {listed}",
                    category.as_str().to_ascii_uppercase()
                ),
            })
        })
        .collect()
}
