//! Prism (the npm package `@stoplight/prism-cli`) on 127.0.0.1 as the upstream of an imported
//! adapter: a mock of an OpenAPI document that checks every request against it and answers
//! 422 to one the document does not allow (a missing required body, a media type it does not
//! take, an `Accept` it cannot answer). A check of what the importer and generator made that
//! neither of them wrote.

use std::net::TcpListener;
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::Child;

use super::sdk::ts_dir;

/// A running Prism mock; stopped when dropped.
pub struct Prism {
    _child: Child,
    pub base: String,
}

/// Prism mocking `document`, ready.
pub async fn mock(document: &Path) -> Prism {
    let port = TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free port")
        .port();
    let mut child = tokio::process::Command::new(ts_dir().join("node_modules/.bin/prism"))
        .args([
            "mock",
            "--errors",
            "-h",
            "127.0.0.1",
            "-p",
            &port.to_string(),
        ])
        .arg(document)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("prism runs (scripts/setup installs @stoplight/prism-cli)");
    let mut lines = BufReader::new(child.stdout.take().expect("piped stdout")).lines();
    tokio::time::timeout(Duration::from_secs(60), async {
        while let Some(line) = lines.next_line().await.expect("read prism's output") {
            if line.contains("Prism is listening") {
                return;
            }
        }
        panic!("prism ended before it listened");
    })
    .await
    .expect("prism listens within 60 s");
    // Its log goes on; nobody reads it.
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    Prism {
        _child: child,
        base: format!("http://127.0.0.1:{port}"),
    }
}
