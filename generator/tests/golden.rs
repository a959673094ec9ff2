//! `generated/` is exactly what aqlgen makes of `adapters/`: regenerate in memory and compare
//! every byte. On failure, rerun `cargo run -p aqlgen-cli -- adapters/<name>-adapter.md -o
//! generated/<name>` and commit the result with the generator change. The provenance's
//! `verification` is the conformance verdict `scripts/conformance --record` wrote: it is
//! compared by its `code_hash`, which must be that of the fresh generation.

use std::path::Path;

#[test]
fn checked_in_crates_match_regeneration() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut compared = 0;
    for name in ["github", "todo"] {
        let schema = format!("adapters/{name}-adapter.md");
        let Ok(text) = std::fs::read_to_string(root.join(&schema)) else {
            continue;
        };
        let checked =
            aqlgen_build::check_text(&schema, &text).expect("the example adapter is valid");
        let files = aqlgen_build::generate_crate(
            &checked,
            &aqlgen_build::CrateLocation::workspace_member(),
        )
        .expect("generation succeeds");
        let code_hash = aqlgen_build::verification::hash_of(&files);
        for file in files {
            let on_disk = root.join("generated").join(name).join(&file.path);
            let mut checked_in = std::fs::read_to_string(&on_disk).unwrap_or_default();
            if file.path == aqlgen_build::verification::PROVENANCE {
                // The conformance verdict scripts/conformance recorded: it must be about
                // exactly this code, and a pass.
                let (without, verification) = aqlgen_build::verification::split(&checked_in);
                let verification = verification.unwrap_or_else(|| {
                    panic!("generated/{name}: no verification; run scripts/conformance --record")
                });
                assert_eq!(
                    verification["code_hash"], code_hash,
                    "generated/{name}: the recorded verdict is about other code; run \
                     scripts/conformance --record"
                );
                assert_eq!(verification["conformance_result"], "passed");
                checked_in = without;
            }
            assert!(
                checked_in == file.contents,
                "generated/{name}/{} differs from a fresh generation of {schema}",
                file.path
            );
            compared += 1;
        }
    }
    assert!(compared > 0, "no adapters/*.md found to compare");
}

#[test]
fn generation_is_deterministic() {
    let text = std::fs::read_to_string("tests/fixtures/valid.md").expect("fixture exists");
    let once = aqlgen_build::generate_crate(
        &aqlgen_build::check_text("valid.md", &text).expect("valid"),
        &aqlgen_build::CrateLocation::default(),
    )
    .expect("generates");
    let twice = aqlgen_build::generate_crate(
        &aqlgen_build::check_text("valid.md", &text).expect("valid"),
        &aqlgen_build::CrateLocation::default(),
    )
    .expect("generates");
    assert_eq!(once, twice);
}

#[test]
fn generated_source_matches_snapshots() {
    let text = std::fs::read_to_string("tests/fixtures/valid.md").expect("fixture exists");
    let checked = aqlgen_build::check_text("tests/fixtures/valid.md", &text).expect("valid");
    for file in
        aqlgen_build::generate_crate(&checked, &aqlgen_build::CrateLocation::workspace_member())
            .expect("generates")
    {
        expectorate::assert_contents(
            Path::new("tests/output/pets").join(&file.path),
            &file.contents,
        );
    }
    let include = aqlgen_build::generate_include(&checked).expect("generates");
    expectorate::assert_contents(
        Path::new("tests/output").join(&include.path),
        &include.contents,
    );
}
