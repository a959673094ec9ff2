//! `mcpb/manifest.json` of a generated crate: the MCP Bundle manifest (version 0.3) that
//! installs the server in one click in a client that takes `.mcpb` files. The binary goes at
//! `mcpb/server/<binary>`; `mcpb pack mcpb` then writes the bundle. The client asks the person
//! installing it for each credential (stored as a secret and passed as the variable the server
//! reads), and for the base URL and the trust level they vouch for when they want to set them.

use aqlgen_model::{Category, TrustLevel};
use serde_json::{Map, Value, json};

use crate::ir::Adapter;

/// Operation names a tool's description lists before it counts the rest.
const LISTED: usize = 8;

/// The manifest of `adapter`'s server, whose binary is `binary`.
pub fn manifest(adapter: &Adapter, binary: &str) -> String {
    let mut user_config = Map::new();
    let mut env = Map::new();
    let mut setting = |key: String, env_name: &str, config: Value| {
        env.insert(
            env_name.to_owned(),
            Value::String(format!("${{user_config.{key}}}")),
        );
        user_config.insert(key, config);
    };
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
    setting(
        "base_url".to_owned(),
        &adapter.base_url_env,
        json!({
            "type": "string",
            "title": "Base URL",
            "description": format!("Where the {} API is reached", adapter.name),
            "default": adapter.base_url,
            "required": false,
        }),
    );
    if adapter
        .trust
        .is_none_or(|level| level < TrustLevel::Validated)
    {
        setting(
            "trust_level".to_owned(),
            "MCP_AQL_TRUST_LEVEL",
            json!({
                "type": "string",
                "title": "Trust level you vouch for",
                "description": format!(
                    "The schema declares {}, which lets the server run only some operations. Give `validated` once the adapter has passed your tests against the API; leave it empty otherwise.",
                    adapter.trust.map_or("no trust level", TrustLevel::as_str)
                ),
                "required": false,
            }),
        );
    }
    let entry = format!("server/{binary}");
    let manifest = json!({
        "manifest_version": "0.3",
        "name": adapter.package,
        "display_name": format!("{} (MCP-AQL)", adapter.name),
        "version": adapter.version,
        "description": adapter.description,
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
        "tools": tools(adapter),
        "compatibility": { "platforms": ["darwin", "linux", "win32"] },
    });
    serde_json::to_string_pretty(&manifest).unwrap_or_default() + "\n"
}

/// The five CRUDE tools, each with the operations it serves.
fn tools(adapter: &Adapter) -> Vec<Value> {
    Category::ALL
        .iter()
        .map(|category| {
            let names: Vec<&str> = adapter
                .operations
                .iter()
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
                    "{} operations of the {} API: {listed}",
                    category.as_str().to_ascii_uppercase(),
                    adapter.name
                ),
            })
        })
        .collect()
}
