//! Many more generated schemas than the build script compiles: each one `aqlgen check`
//! accepts must generate a crate whose Rust files parse and whose other files are what they
//! claim to be; each one it refuses must be refused with diagnostics. Nothing may panic.

#[path = "../strategy.rs"]
mod strategy;

use std::collections::BTreeMap;

/// Schemas per run; `AQLGEN_FUZZ_MANY` raises it.
const COUNT: usize = 400;

#[test]
fn every_accepted_schema_generates_parsable_files() {
    let count = std::env::var("AQLGEN_FUZZ_MANY")
        .ok()
        .and_then(|text| text.parse().ok())
        .unwrap_or(COUNT);
    let mut accepted = 0;
    let mut refusals: BTreeMap<&'static str, usize> = BTreeMap::new();
    for (index, text) in strategy::schemas(0x5eed, count).iter().enumerate() {
        let path = format!("fuzz-{index}.md");
        let checked = match aqlgen_build::check_text(&path, text) {
            Ok(checked) => checked,
            Err(aqlgen_build::Error::Schema { diagnostics, .. }) => {
                assert!(!diagnostics.is_empty(), "{path}: refused without a reason");
                for diagnostic in &diagnostics {
                    assert!(
                        diagnostic.line.is_some(),
                        "{path}: no line for {diagnostic:?}"
                    );
                    *refusals.entry(diagnostic.code.as_str()).or_default() += 1;
                }
                continue;
            }
            Err(other) => panic!("{path}: {other}\n{text}"),
        };
        accepted += 1;
        // SCHEMA_EXTENSION warnings are exactly where the official schema refuses.
        let warned: std::collections::BTreeSet<String> = checked
            .warnings
            .iter()
            .filter(|w| w.code == aqlgen_build::Code::Extension)
            .map(|w| w.path.clone())
            .collect();
        if let Some(refused) =
            aqlgen_spec_schemas::adapter_refusals(&aqlgen_spec_schemas::front_matter(text))
        {
            assert_eq!(warned, refused, "{path}:\n{text}");
        }
        for file in aqlgen_build::generate_crate(&checked, &aqlgen_build::CrateLocation::default())
            .expect("generates")
        {
            let context = format!("{path} {}:\n{text}", file.path);
            if file.path.ends_with(".rs") {
                syn::parse_file(&file.contents)
                    .unwrap_or_else(|error| panic!("{context}\n{error}"));
                assert!(!file.contents.contains('\r'), "{context}: a bare CR");
            } else if file.path.ends_with(".json") {
                serde_json::from_str::<serde_json::Value>(&file.contents)
                    .unwrap_or_else(|error| panic!("{context}\n{error}"));
            } else if file.path == "Cargo.toml" {
                // Each value line is `key = <TOML value>`; the description is the one the
                // schema controls, and it must be one quoted line.
                let line = file
                    .contents
                    .lines()
                    .find(|line| line.starts_with("description = "))
                    .expect("a description");
                let quoted = line.trim_start_matches("description = ");
                serde_json::from_str::<String>(quoted)
                    .unwrap_or_else(|error| panic!("{context}\n{line}\n{error}"));
            }
        }
        let include = aqlgen_build::generate_include(&checked).expect("generates");
        syn::parse_file(&include.contents).expect("the include file parses");
    }
    eprintln!("{accepted} of {count} accepted; refusals by code: {refusals:?}");
    assert!(
        accepted * 2 >= count,
        "the strategy makes mostly valid schemas"
    );
}
