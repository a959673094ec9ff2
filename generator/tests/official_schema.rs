//! `aqlgen check` warns (`SCHEMA_EXTENSION`) exactly where the official adapter schema of the
//! specification, `adapter-schema.schema.json`, rejects a schema aqlgen accepts: for every
//! valid schema in the repository, the places the official schema refuses and the places
//! aqlgen warns about are the same set.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use aqlgen_spec_schemas::{adapter_refusals, front_matter};

fn schema_files() -> Vec<PathBuf> {
    let mut files = vec![
        PathBuf::from("../adapters/github-adapter.md"),
        PathBuf::from("../adapters/todo-adapter.md"),
        PathBuf::from("tests/fixtures/valid.md"),
        PathBuf::from("tests/fixtures/extensions.md"),
        PathBuf::from("tests/output/openapi/petstore-adapter.md"),
    ];
    let nasty = Path::new("tests/fixtures/nasty");
    let mut more: Vec<PathBuf> = std::fs::read_dir(nasty)
        .expect("the nasty fixtures")
        .map(|entry| entry.expect("an entry").path())
        .collect();
    more.sort();
    files.extend(more);
    files
}

#[test]
fn warnings_are_where_the_official_schema_refuses() {
    let mut warned_somewhere = false;
    for file in schema_files() {
        let text = std::fs::read_to_string(&file).expect("a readable schema");
        let checked = aqlgen_build::check_text(&file.to_string_lossy(), &text)
            .unwrap_or_else(|error| panic!("{} is valid for aqlgen: {error}", file.display()));
        // Other warnings (an inferred danger level, clear text) are about the adapter, not
        // about the format.
        let warned: BTreeSet<String> = checked
            .warnings
            .iter()
            .filter(|warning| warning.code == aqlgen_build::Code::Extension)
            .map(|warning| warning.path.clone())
            .collect();
        if let Some(refused) = adapter_refusals(&front_matter(&text)) {
            assert_eq!(warned, refused, "{}", file.display());
        }
        warned_somewhere |= !warned.is_empty();
    }
    assert!(warned_somewhere, "some fixture uses an extension");
}

/// The example adapters are valid for both, but for the extensions they use on purpose (the
/// GitHub example's `lifecycle`, its `query` blocks and `relationships`): aqlgen warns of
/// exactly what the official schema refuses.
#[test]
fn the_example_adapters_pass_both_but_for_their_extensions() {
    for (file, extensions) in [
        (
            "../adapters/github-adapter.md",
            &[
                "relationships",
                "operations.read[1].query",
                "operations.read[2].query",
                "operations.read[5].query",
                "operations.read[7].query",
                "operations.execute[2].lifecycle",
            ][..],
        ),
        ("../adapters/todo-adapter.md", &[][..]),
    ] {
        let text = std::fs::read_to_string(file).expect("a readable schema");
        let checked = aqlgen_build::check_text(file, &text).expect("valid for aqlgen");
        let warned: BTreeSet<String> = checked
            .warnings
            .iter()
            .map(|warning| {
                assert_eq!(
                    warning.code,
                    aqlgen_build::Code::Extension,
                    "{file}: {warning:?}"
                );
                warning.path.clone()
            })
            .collect();
        let expected: BTreeSet<String> = extensions.iter().map(|path| (*path).to_owned()).collect();
        assert_eq!(warned, expected, "{file}");
        if let Some(refused) = adapter_refusals(&front_matter(&text)) {
            assert_eq!(refused, expected, "{file}");
        }
    }
}

#[test]
fn extension_warnings_read_well() {
    let file = "tests/fixtures/extensions.md";
    let text = std::fs::read_to_string(file).expect("a readable schema");
    let checked = aqlgen_build::check_text(file, &text).expect("valid for aqlgen");
    let rendered: String = checked
        .warnings
        .iter()
        .map(|warning| warning.render(file) + "\n")
        .collect();
    expectorate::assert_contents("tests/output/diagnostics/extensions.txt", &rendered);
}
