//! `aqlgen check` warns (`SCHEMA_EXTENSION`) exactly where the official adapter schema of the
//! specification, `adapter-schema.schema.json`, rejects a schema aqlgen accepts: for every
//! valid schema in the repository, taken without its `extensions` declaration, the places
//! the official schema refuses and the places aqlgen warns about are the same set. With the
//! declaration, the official schema refuses the declaration too and aqlgen warns of none of
//! what it declares.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use aqlgen_spec_schemas::{adapter_refusals, front_matter};

/// `text` without its top-level `extensions` declaration, as a front matter document.
fn undeclared(text: &str) -> String {
    let mut document = front_matter(text);
    if let Some(root) = document.as_object_mut() {
        root.remove("extensions");
    }
    let yaml = serde_yaml::to_string(&document).expect("YAML");
    format!("---\n{yaml}---\n")
}

/// The text of `file`, which `check` accepts without a warning.
fn checks_clean(file: &str) -> String {
    let text = std::fs::read_to_string(file).expect("a readable schema");
    let checked = aqlgen_build::check_text(file, &text).expect("valid for aqlgen");
    assert!(
        checked.warnings.is_empty(),
        "{file}: {:?}",
        checked.warnings
    );
    text
}

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
        let text = undeclared(&std::fs::read_to_string(&file).expect("a readable schema"));
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
/// GitHub example's `lifecycle`, its `query` blocks and `relationships`), which they declare:
/// aqlgen warns of nothing, and the official schema refuses the declaration and exactly what
/// aqlgen warns of without it.
#[test]
fn the_example_adapters_pass_both_but_for_their_declared_extensions() {
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
        let text = checks_clean(file);
        let undeclared = aqlgen_build::check_text(file, &undeclared(&text)).expect("valid");
        let warned: BTreeSet<String> = undeclared
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
        if let Some(mut refused) = adapter_refusals(&front_matter(&text)) {
            if !expected.is_empty() {
                assert!(
                    refused.remove("extensions"),
                    "{file}: the declaration is refused"
                );
            }
            assert_eq!(refused, expected, "{file}");
        }
    }
}

/// What aqlgen writes, an import or `aqlgen new`'s starter, passes its own check with no
/// warning: the importer declares the extensions it used.
#[test]
fn an_import_declares_what_it_uses() {
    for file in [
        "tests/output/openapi/petstore-adapter.md",
        "tests/output/openapi/wire-adapter.md",
    ] {
        let text = checks_clean(file);
        assert!(
            text.contains("\nextensions:\n"),
            "{file} declares its extensions"
        );
    }
}

/// A declared extension the schema does not use is said, so the declaration stays true.
#[test]
fn an_unused_declaration_is_warned() {
    let text = "---\nname: tiny\ntype: adapter\nversion: 1.0.0\ndescription: Tiny.\n\
                target: {base_url: 'https://api.example.com', transport: http, protocol: rest, serialization: json}\n\
                extensions: [lifecycle]\n\
                operations:\n  read:\n    - {name: get_thing, maps_to: 'GET /things/{id}', description: A thing., params: {id: {type: string, required: true}}}\n---\n";
    let checked = aqlgen_build::check_text("tiny.md", text).expect("valid for aqlgen");
    let paths: Vec<&str> = checked.warnings.iter().map(|w| w.path.as_str()).collect();
    assert_eq!(paths, ["extensions[0]"], "{:?}", checked.warnings);
    assert!(checked.warnings[0].message.contains("`lifecycle`"));
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
