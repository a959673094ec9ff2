//! The `aqlgen` binary: exit codes 0-4 (REQ-GEN-8), JSON output (REQ-GEN-9), `--dry-run`,
//! colours, completions, `import-openapi`.

use assert_cmd::Command;
use serde_json::Value;

/// `aqlgen`, run from the generator's directory, where the schema fixtures are.
fn aqlgen() -> Command {
    let mut command = Command::cargo_bin("aqlgen").expect("the aqlgen binary is built");
    command.current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../generator"));
    command
}

fn json_of(output: &[u8]) -> Value {
    serde_json::from_slice(output).expect("stdout is JSON")
}

#[test]
fn check_accepts_a_valid_schema() {
    aqlgen()
        .args(["check", "tests/fixtures/valid.md"])
        .assert()
        .code(0);
}

#[test]
fn a_schema_without_a_trust_level_gets_a_note() {
    let untrusted = aqlgen()
        .args(["check", "tests/fixtures/valid.md"])
        .assert()
        .code(0);
    let stderr = String::from_utf8_lossy(&untrusted.get_output().stderr).into_owned();
    assert!(
        stderr.contains("note: `pets` declares no trust level, so its server starts untested"),
        "{stderr}"
    );
    let trusted = aqlgen()
        .args(["check", "../adapters/todo-adapter.md"])
        .assert()
        .code(0);
    let stderr = String::from_utf8_lossy(&trusted.get_output().stderr).into_owned();
    assert!(!stderr.contains("note:"), "{stderr}");
}

#[test]
fn check_refuses_an_invalid_schema_with_exit_2_and_every_problem() {
    let assert = aqlgen()
        .args(["check", "tests/fixtures/invalid/many_problems.md"])
        .assert()
        .code(2);
    let stderr = String::from_utf8_lossy(&assert.get_output().stderr).into_owned();
    assert_eq!(stderr.matches("error[SCHEMA_").count(), 4, "{stderr}");
    assert!(
        stderr.contains("--> tests/fixtures/invalid/many_problems.md:32"),
        "{stderr}"
    );
}

#[test]
fn json_failure_has_the_spec_shape() {
    let assert = aqlgen()
        .args([
            "check",
            "--output-format",
            "json",
            "tests/fixtures/invalid/unknown_key.md",
        ])
        .assert()
        .code(2);
    let report = json_of(&assert.get_output().stdout);
    assert_eq!(report["success"], false);
    assert_eq!(report["error"]["code"], 2);
    assert_eq!(report["error"]["type"], "SCHEMA_VALIDATION_ERROR");
    let details = report["error"]["details"]
        .as_array()
        .expect("details is a list");
    let detail = details
        .iter()
        .find(|d| d["code"] == "SCHEMA_UNKNOWN_KEY")
        .expect("the unknown key is reported");
    assert_eq!(detail["path"], "operations.read[0].params.pet_id.requred");
    assert_eq!(detail["code"], "SCHEMA_UNKNOWN_KEY");
    assert_eq!(detail["suggestion"], "did you mean `required`?");
}

#[test]
fn dry_run_lists_files_and_writes_nothing() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let out = dir.path().join("pets");
    let assert = aqlgen()
        .args(["-s", "tests/fixtures/valid.md", "--output"])
        .arg(&out)
        .args(["--target", "rust", "--dry-run", "--output-format", "json"])
        .assert()
        .code(0);
    let report = json_of(&assert.get_output().stdout);
    assert_eq!(report["success"], true);
    assert_eq!(report["files_generated"].as_array().map(Vec::len), Some(9));
    assert!(
        report["provenance"]["schema_fingerprint"]
            .as_str()
            .is_some_and(|f| f.starts_with("sha256:"))
    );
    assert!(!out.exists());
}

#[test]
fn generation_writes_the_crate() {
    let dir = tempfile::tempdir().expect("a temp dir");
    aqlgen()
        .arg("tests/fixtures/valid.md")
        .arg("-o")
        .arg(dir.path())
        .arg("-q")
        .assert()
        .code(0);
    for file in [
        "Cargo.toml",
        "README.md",
        "MCPAQL-PROVENANCE.json",
        "src/lib.rs",
        "src/main.rs",
    ] {
        assert!(dir.path().join(file).is_file(), "{file}");
    }
}

#[test]
fn usage_and_configuration_errors_exit_3() {
    aqlgen()
        .args(["tests/fixtures/valid.md", "-v", "-q", "--dry-run"])
        .assert()
        .code(3);
    aqlgen()
        .args(["tests/fixtures/valid.md", "--target", "go", "--dry-run"])
        .assert()
        .code(3);
    aqlgen().args(["--no-such-flag"]).assert().code(3);
}

#[test]
fn unreadable_schema_exits_4() {
    aqlgen()
        .args(["check", "tests/fixtures/does-not-exist.md"])
        .assert()
        .code(4);
}

#[test]
fn a_schema_that_is_not_utf8_is_a_schema_error() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("latin1-adapter.md");
    std::fs::write(&path, b"---\nname: caf\xe9\n---\n").expect("write");
    let assert = aqlgen().arg("check").arg(&path).assert().code(2);
    let stderr = String::from_utf8_lossy(&assert.get_output().stderr).into_owned();
    assert!(
        stderr.contains("error[SCHEMA_INVALID_ENCODING]: the file is not UTF-8 text")
            && stderr.contains("latin1-adapter.md:2")
            && stderr.contains("0xE9"),
        "{stderr}"
    );
}

#[test]
fn cli_writes_the_adapter_and_reports_warnings_in_json() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let out = dir.path().join("pets.md");
    let output = aqlgen()
        .args([
            "import-openapi",
            "tests/fixtures/openapi/petstore.yaml",
            "-o",
        ])
        .arg(&out)
        .args(["--output-format", "json"])
        .output()
        .expect("aqlgen runs");
    assert!(output.status.success());
    let report: Value = serde_json::from_slice(&output.stdout).expect("JSON report");
    assert_eq!(report["operations"]["execute"], 3);
    assert_eq!(report["operations"]["delete"], 1);
    assert_eq!(report["warnings"].as_array().map(Vec::len), Some(8));
    assert_eq!(report["operations_complete"], 10);
    assert_eq!(report["operations_losing_required"], 0);
    assert_eq!(report["warnings"][0]["operation"], "POST /pets");
    aqlgen().arg("check").arg(&out).assert().code(0);

    let human = aqlgen()
        .args([
            "import-openapi",
            "tests/fixtures/openapi/petstore.yaml",
            "-o",
        ])
        .arg(&out)
        .output()
        .expect("aqlgen runs");
    let stderr = String::from_utf8_lossy(&human.stderr);
    assert!(
        stderr.contains("warning: POST /pets: param `size`: non-string enum dropped"),
        "{stderr}"
    );
    let stdout = String::from_utf8_lossy(&human.stdout);
    assert!(
        stdout.contains("; 10 of 11 operations complete; 8 warnings)"),
        "{stdout}"
    );
    assert!(
        stderr.contains("note: the adapter is stamped trust level `generated`: its server runs the safe (read) operations"),
        "says what the stamp allows: {stderr}"
    );
}

#[test]
fn colours_only_where_asked() {
    let run = |force: bool| {
        let mut command = aqlgen();
        command.args(["check", "tests/fixtures/invalid/unknown_key.md"]);
        command.env_remove("NO_COLOR").env_remove("CLICOLOR_FORCE");
        if force {
            command.env("CLICOLOR_FORCE", "1");
        }
        let output = command.assert().code(2);
        String::from_utf8_lossy(&output.get_output().stderr).into_owned()
    };
    let piped = run(false);
    assert!(!piped.contains('\u{1b}'), "plain when piped: {piped}");
    assert!(piped.contains("error[SCHEMA_UNKNOWN_KEY]"), "{piped}");
    let forced = run(true);
    assert!(forced.contains("\u{1b}["), "coloured when forced: {forced}");
}

#[test]
fn completions_for_each_shell() {
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let output = aqlgen().args(["completions", shell]).assert().code(0);
        let script = String::from_utf8_lossy(&output.get_output().stdout).into_owned();
        assert!(
            script.contains("aqlgen") && script.contains("import-openapi"),
            "{shell}"
        );
    }
    aqlgen().args(["completions", "tcsh"]).assert().code(3);
}

#[test]
fn a_closed_pipe_ends_the_output_quietly() {
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("aqlgen"))
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../generator"))
        .args([
            "check",
            "--output-format",
            "json",
            "tests/fixtures/valid.md",
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("aqlgen starts");
    drop(child.stdout.take());
    let output = child.wait_with_output().expect("aqlgen ends");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(output.status.code(), Some(0), "{stderr}");
}
