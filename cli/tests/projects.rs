//! Where aqlgen writes: `aqlgen new`, the example project it scaffolds, Cargo workspaces
//! around the output, and packages it must not overwrite.

use std::path::{Path, PathBuf};

use assert_cmd::Command;

fn aqlgen(dir: &Path) -> Command {
    let mut command = Command::cargo_bin("aqlgen").expect("the aqlgen binary is built");
    command.current_dir(dir);
    command
}

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn stderr_of(assert: &assert_cmd::assert::Assert) -> String {
    String::from_utf8_lossy(&assert.get_output().stderr).into_owned()
}

/// Every file under `dir` but `target/`, relative and sorted.
fn files(dir: &Path) -> Vec<String> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(next) = pending.pop() {
        for entry in std::fs::read_dir(&next).expect("a readable directory") {
            let path = entry.expect("an entry").path();
            if path.is_dir() {
                if path.file_name().is_some_and(|name| name != "target") {
                    pending.push(path);
                }
            } else {
                let relative = path.strip_prefix(dir).expect("under dir");
                found.push(relative.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    found.sort();
    found
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
    std::fs::write(path, text).expect("write");
}

#[test]
fn the_example_is_what_aqlgen_new_scaffolds() {
    let temp = tempfile::tempdir().expect("a temp dir");
    let fresh = temp.path().join("build-rs-example");
    aqlgen(&repository())
        .arg("new")
        .arg(&fresh)
        .args(["--from", "adapters/todo-adapter.md", "-q"])
        .assert()
        .code(0);
    let example = repository().join("examples/build-rs-example");
    assert_eq!(files(&example), files(&fresh));
    for file in files(&fresh) {
        assert!(
            std::fs::read(example.join(&file)).ok() == std::fs::read(fresh.join(&file)).ok(),
            "examples/build-rs-example/{file} differs from what `aqlgen new \
             examples/build-rs-example --from adapters/todo-adapter.md` writes: rerun it"
        );
    }
}

#[test]
fn new_writes_a_starter_that_checks_and_refuses_a_used_directory() {
    let temp = tempfile::tempdir().expect("a temp dir");
    let output = aqlgen(temp.path())
        .args(["new", "weather-server", "--output-format", "json"])
        .assert()
        .code(0);
    let report: serde_json::Value =
        serde_json::from_slice(&output.get_output().stdout).expect("JSON");
    assert_eq!(report["success"], true);
    assert_eq!(report["files_generated"].as_array().map(Vec::len), Some(7));
    let project = temp.path().join("weather-server");
    let checked = aqlgen(&project)
        .args(["check", "weather-server-adapter.md"])
        .assert()
        .code(0);
    // The starter passes its own check with no warning, only the note on its trust level.
    assert!(
        !stderr_of(&checked).contains("warning"),
        "{}",
        stderr_of(&checked)
    );
    let main = std::fs::read_to_string(project.join("src/main.rs")).expect("main.rs");
    assert!(
        main.contains("weather_server::adapter::WeatherServerAdapter"),
        "{main}"
    );

    let again = aqlgen(temp.path())
        .args(["new", "weather-server"])
        .assert()
        .code(3);
    assert!(
        stderr_of(&again).contains("not empty"),
        "{}",
        stderr_of(&again)
    );
    let named = aqlgen(temp.path())
        .args(["new", "x", "--name", "2x"])
        .assert()
        .code(3);
    assert!(
        stderr_of(&named).contains("must start with an ASCII letter"),
        "{}",
        stderr_of(&named)
    );
    assert!(!temp.path().join("x").exists());
}

#[test]
fn new_from_an_invalid_schema_writes_nothing() {
    let temp = tempfile::tempdir().expect("a temp dir");
    let schema = repository().join("generator/tests/fixtures/invalid/unknown_key.md");
    let refused = aqlgen(temp.path())
        .args(["new", "pets"])
        .arg("--from")
        .arg(&schema)
        .assert()
        .code(2);
    assert!(stderr_of(&refused).contains("SCHEMA_UNKNOWN_KEY"));
    assert!(!temp.path().join("pets").exists());
}

#[test]
fn a_workspace_that_does_not_list_the_crate_is_named_with_the_fix() {
    let temp = tempfile::tempdir().expect("a temp dir");
    let root = temp.path();
    let manifest = "# our services\n[workspace]\nmembers = [\"app\"]\n";
    write(&root.join("Cargo.toml"), manifest);
    let schema = repository().join("adapters/todo-adapter.md");

    let refused = aqlgen(root)
        .arg(&schema)
        .args(["-o", "adapters/todo"])
        .assert()
        .code(3);
    let stderr = stderr_of(&refused);
    assert!(
        stderr.contains("add \"adapters/todo\" to `members`")
            && stderr.contains("--join-workspace")
            && stderr.contains("--standalone"),
        "{stderr}"
    );
    assert!(!root.join("adapters").exists(), "nothing is written");

    aqlgen(root)
        .arg(&schema)
        .args(["-o", "adapters/todo", "--join-workspace", "-q"])
        .assert()
        .code(0);
    let joined = std::fs::read_to_string(root.join("Cargo.toml")).expect("manifest");
    assert_eq!(
        joined,
        "# our services\n[workspace]\nmembers = [\"app\", \"adapters/todo\"]\n"
    );
    // Now a member: generating again needs no flag.
    aqlgen(root)
        .arg(&schema)
        .args(["-o", "adapters/todo", "-q"])
        .assert()
        .code(0);

    aqlgen(root)
        .arg(&schema)
        .args(["-o", "apart", "--standalone", "-q"])
        .assert()
        .code(0);
    let apart = std::fs::read_to_string(root.join("apart/Cargo.toml")).expect("manifest");
    assert!(apart.trim_end().ends_with("[workspace]"), "{apart}");
    // The crate's own workspace is kept when it is generated again.
    aqlgen(root)
        .arg(&schema)
        .args(["-o", "apart", "-q"])
        .assert()
        .code(0);
}

#[test]
fn a_package_aqlgen_did_not_write_is_never_overwritten() {
    let temp = tempfile::tempdir().expect("a temp dir");
    let manifest = "[package]\nname = \"mine\"\nversion = \"0.1.0\"\n";
    write(&temp.path().join("Cargo.toml"), manifest);
    let schema = repository().join("adapters/todo-adapter.md");
    let refused = aqlgen(temp.path())
        .arg(&schema)
        .args(["-o", "."])
        .assert()
        .code(3);
    assert!(
        stderr_of(&refused).contains("was not written by aqlgen"),
        "{}",
        stderr_of(&refused)
    );
    assert_eq!(
        std::fs::read_to_string(temp.path().join("Cargo.toml")).expect("manifest"),
        manifest
    );
    assert!(!temp.path().join("src").exists());
}

#[test]
fn a_runtime_path_is_relative_to_the_crate() {
    let temp = tempfile::tempdir().expect("a temp dir");
    let schema = repository().join("adapters/todo-adapter.md");
    std::fs::create_dir_all(temp.path().join("rt")).expect("mkdir");
    aqlgen(temp.path())
        .arg(&schema)
        .args(["-o", "a/b/todo", "--runtime-path", "rt", "-q"])
        .assert()
        .code(0);
    let manifest =
        std::fs::read_to_string(temp.path().join("a/b/todo/Cargo.toml")).expect("manifest");
    let dependency = format!(
        "aqlgen-runtime = {{ version = \"{}\", path = \"../../../rt\" }}",
        env!("CARGO_PKG_VERSION")
    );
    assert!(manifest.contains(&dependency), "{manifest}");
}
