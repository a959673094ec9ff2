//! A real OpenID provider on 127.0.0.1 (the npm package `oidc-provider`,
//! `tests/ts/oidc_provider.mjs`) for the tests of an adapter behind an authorization server.

use std::process::Stdio;
use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::Child;

use super::command_for;
use super::sdk::{ts_dir, workspace};

/// The openid provider, started by node from the TypeScript SDK's `node_modules`.
pub struct Provider {
    _child: Child,
    pub issuer: String,
}

/// The provider on `port` (0: any free one), ready.
pub async fn provider(port: u16) -> Provider {
    let mut child = tokio::process::Command::new("node")
        .arg(workspace().join("tests/ts/oidc_provider.mjs"))
        .arg(port.to_string())
        .env("AQLGEN_TS_DIR", ts_dir())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("node runs (scripts/setup installs oidc-provider)");
    let stdout = child.stdout.take().expect("piped stdout");
    let issuer = tokio::time::timeout(
        Duration::from_secs(30),
        BufReader::new(stdout).lines().next_line(),
    )
    .await
    .expect("the provider starts within 30 s")
    .expect("read its stdout")
    .expect("it prints its issuer");
    Provider {
        _child: child,
        issuer,
    }
}

impl Provider {
    /// The port it listens on.
    pub fn port(&self) -> u16 {
        self.issuer
            .rsplit(':')
            .next()
            .and_then(|port| port.parse().ok())
            .expect("the issuer names its port")
    }

    /// An access token by the client credentials grant for `client`, with `scope`, for
    /// `resource` (none: the provider's opaque token).
    pub async fn token(&self, client: &str, scope: &str, resource: Option<&str>) -> String {
        let configuration: Value =
            reqwest::get(format!("{}/.well-known/openid-configuration", self.issuer))
                .await
                .expect("discovery answers")
                .json()
                .await
                .expect("discovery is JSON");
        let endpoint = configuration["token_endpoint"]
            .as_str()
            .expect("a token endpoint");
        let mut form = vec![("grant_type", "client_credentials"), ("scope", scope)];
        if let Some(resource) = resource {
            form.push(("resource", resource));
        }
        let answer: Value = reqwest::Client::new()
            .post(endpoint)
            .basic_auth(client, Some(format!("{client}-secret")))
            .form(&form)
            .send()
            .await
            .expect("the token endpoint answers")
            .json()
            .await
            .expect("a JSON answer");
        answer["access_token"]
            .as_str()
            .unwrap_or_else(|| panic!("a token: {answer}"))
            .to_owned()
    }
}

/// The `kid` of a JWT's header.
pub fn kid(token: &str) -> String {
    use base64::Engine as _;
    let header = token.split('.').next().expect("a header");
    let header: Value = serde_json::from_slice(
        &base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(header)
            .expect("base64url"),
    )
    .expect("JSON");
    header["kid"].as_str().expect("a kid").to_owned()
}

/// An adapter behind an authorization server on a free port of 127.0.0.1: its `/mcp` URL,
/// which is also its resource identifier.
pub struct Behind {
    pub child: Child,
    pub url: String,
}

/// `binary` over HTTP taking the access tokens of `issuers` (comma-separated) for its own
/// URL, with `extra` arguments and `env`, once it listens.
pub async fn behind(issuers: &str, binary: &str, extra: &[&str], env: &[(&str, &str)]) -> Behind {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free port")
        .port();
    let url = format!("http://127.0.0.1:{port}/mcp");
    let port = port.to_string();
    let mut args = vec![
        "--transport",
        "http",
        "--port",
        &port,
        "--authorization-server",
        issuers,
        "--resource",
        &url,
        "--token-clock-skew",
        "0",
    ];
    args.extend_from_slice(extra);
    let mut env = env.to_vec();
    env.push(("RUST_LOG", "info"));
    let mut child = command_for(binary, &args, &env)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the adapter starts");
    let mut lines = BufReader::new(child.stderr.take().expect("stderr")).lines();
    loop {
        let line = tokio::time::timeout(Duration::from_secs(30), lines.next_line())
            .await
            .expect("listening within 30 s")
            .expect("stderr")
            .expect("the server listens before it exits");
        if line.contains("streamable HTTP endpoint listening") {
            break;
        }
    }
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    Behind { child, url }
}
