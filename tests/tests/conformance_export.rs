//! The conformance exporter claims only what it measured: against the todo adapter it shows
//! both endpoint modes, field selection and batches from live calls; against a server that
//! ignores the mode it is started in, it claims no mode and says why.

use std::ffi::OsString;
use std::time::Duration;

use aqlgen_build::conformance::{ExportOptions, Mode, export};

const TODO_BIN: &str = env!("CARGO_BIN_EXE_todo-adapter-server");
const KEY: &str = "todo-test-key";

fn options(base_url: &str, args: &[&str]) -> ExportOptions {
    // The server reads its environment from a wrapper: `env` with the upstream and key.
    let mut server: Vec<OsString> = vec![
        "env".into(),
        format!("TODO_BASE_URL={base_url}").into(),
        format!("TODO_API_KEY={KEY}").into(),
        TODO_BIN.into(),
    ];
    server.extend(args.iter().map(OsString::from));
    ExportOptions {
        server,
        mode: Some(Mode::Single),
        values: serde_json::Map::new(),
        timeout: Duration::from_secs(30),
        show_logs: false,
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn claims_are_measured_not_declared() {
    let api = demo_upstream::spawn(demo_upstream::Options {
        api_key: Some(KEY.into()),
        ..demo_upstream::Options::default()
    })
    .await
    .expect("start demo-upstream");
    let base_url = api.base_url();
    let schema = concat!(env!("CARGO_MANIFEST_DIR"), "/../adapters/todo-adapter.md");
    let checked = aqlgen_build::check(std::path::Path::new(schema)).expect("valid");

    let honest = options(&base_url, &["--trust-level", "validated"]);
    let exported = tokio::task::block_in_place(|| export(&checked, &honest)).expect("exports");
    let bundle = &exported.bundle;
    assert_eq!(
        bundle["endpoint_modes"],
        serde_json::json!(["crude", "single"])
    );
    assert_eq!(bundle["capabilities"]["field_selection"], true);
    assert_eq!(bundle["capabilities"]["batch_operations"], true);
    assert!(
        bundle["round_trip_tests"]
            .as_array()
            .is_some_and(|t| !t.is_empty())
    );
    let accepted = &bundle["accepted_parameters"]["list_todos"];
    assert!(
        accepted
            .as_array()
            .is_some_and(|names| names.contains(&"first".into())),
        "{accepted}"
    );

    // `--mode all` on the command line beats the environment: the server is never in one
    // mode alone, so neither mode is claimed.
    let stubborn = options(&base_url, &["--trust-level", "validated", "--mode", "all"]);
    let exported = tokio::task::block_in_place(|| export(&checked, &stubborn)).expect("exports");
    assert_eq!(exported.bundle["endpoint_modes"], serde_json::json!([]));
    assert!(
        exported
            .untested
            .iter()
            .any(|line| line.starts_with("endpoint mode crude:")),
        "{:?}",
        exported.untested
    );
}
