//! Generates the adapters this crate compiles: the hand-picked schemas under
//! `generator/tests/fixtures/nasty/`, the schemas of the directory `AQLGEN_FUZZ_EXTRA` when it
//! is set (e.g. adapters imported from real OpenAPI documents by `scripts/import-corpus`),
//! then a batch from the proptest strategy (`AQLGEN_FUZZ_SCHEMAS`, default 60;
//! `AQLGEN_FUZZ_SEED` picks another batch). Every
//! schema `aqlgen check` accepts becomes a module of this crate, which is compiled under
//! `#![deny(warnings)]`; a schema it refuses must be refused with diagnostics, never a panic.

#[path = "strategy.rs"]
mod strategy;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

const DEFAULT_COUNT: usize = 60;
const DEFAULT_SEED: u64 = 0x00a9_1ce5;

fn main() {
    println!("cargo:rerun-if-changed=strategy.rs");
    println!("cargo:rerun-if-changed=../../generator/tests/fixtures/nasty");
    println!("cargo:rerun-if-env-changed=AQLGEN_FUZZ_SCHEMAS");
    println!("cargo:rerun-if-env-changed=AQLGEN_FUZZ_SEED");
    println!("cargo:rerun-if-env-changed=AQLGEN_FUZZ_EXTRA");
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let count = env_number("AQLGEN_FUZZ_SCHEMAS").map_or(DEFAULT_COUNT, |n| n as usize);
    let seed = env_number("AQLGEN_FUZZ_SEED").unwrap_or(DEFAULT_SEED);

    let mut sources: Vec<(String, String)> = Vec::new();
    let nasty = Path::new("../../generator/tests/fixtures/nasty");
    let mut files: Vec<PathBuf> = std::fs::read_dir(nasty)
        .expect("the nasty fixtures exist")
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "md"))
        .collect();
    files.sort();
    for file in files {
        let text = std::fs::read_to_string(&file).expect("a readable fixture");
        let stem = file.file_stem().expect("a file name").to_string_lossy();
        sources.push((format!("nasty/{stem}.md"), text));
    }
    let nasty_count = sources.len();
    if let Some(extra) = std::env::var_os("AQLGEN_FUZZ_EXTRA") {
        let mut files: Vec<PathBuf> = std::fs::read_dir(&extra)
            .expect("AQLGEN_FUZZ_EXTRA is a directory")
            .map(|entry| entry.expect("a directory entry").path())
            .filter(|path| path.extension().is_some_and(|ext| ext == "md"))
            .collect();
        files.sort();
        for file in files {
            let text = std::fs::read_to_string(&file).expect("a readable schema");
            sources.push((format!("extra/{}", file.display()), text));
        }
    }
    for (index, text) in strategy::schemas(seed, count).into_iter().enumerate() {
        sources.push((format!("fuzz/{seed:x}-{index}.md"), text));
    }

    let mut modules = String::new();
    let mut arms = String::new();
    let mut infos = String::new();
    let mut names = String::new();
    let mut accepted = 0;
    for (index, (path, text)) in sources.iter().enumerate() {
        let checked = match aqlgen_build::check_text(path, text) {
            Ok(checked) => checked,
            Err(aqlgen_build::Error::Schema { diagnostics, .. }) if !diagnostics.is_empty() => {
                assert!(
                    index >= nasty_count,
                    "the nasty fixture {path} must be valid:\n{}",
                    diagnostics
                        .iter()
                        .map(|d| d.render(path))
                        .collect::<String>()
                );
                continue;
            }
            Err(other) => panic!("{path}: check failed without a diagnostic: {other}\n{text}"),
        };
        let file = aqlgen_build::generate_include(&checked).expect("an accepted schema generates");
        let module = format!("schema_{index:04}");
        std::fs::write(out.join(format!("{module}.rs")), &file.contents).expect("write");
        std::fs::write(out.join(format!("{module}.md")), text).expect("write");
        let type_name = file
            .contents
            .split("pub struct ")
            .filter_map(|rest| rest.split(';').next())
            .find(|name| name.ends_with("Adapter"))
            .expect("the adapter type")
            .to_owned();
        let _ = writeln!(
            modules,
            "/// Generated from `{path}`.\npub mod {module} {{ include!(concat!(env!(\"OUT_DIR\"), \"/{module}.rs\")); }}"
        );
        let _ = writeln!(
            arms,
            "        {accepted} => Some(::aqlgen_runtime::run::<{module}::{type_name}>()),"
        );
        let _ = writeln!(
            infos,
            "        {accepted} => Some(<{module}::{type_name} as Adapter>::MEMBERS[0]),"
        );
        let _ = writeln!(names, "    {path:?},");
        accepted += 1;
    }
    assert!(
        accepted >= nasty_count + count / 2,
        "the strategy makes mostly valid schemas: {accepted} of {} accepted",
        sources.len()
    );
    let adapters = format!(
        "{modules}
/// The schema each adapter was generated from, by index.
pub const SCHEMAS: &[&str] = &[
{names}];

/// How many of them are hand-picked fixtures, which come first.
pub const NASTY: usize = {nasty_count};

/// Serves adapter `index` over the process's arguments, as its generated `main` would.
pub fn serve(index: usize) -> Option<std::process::ExitCode> {{
    match index {{
{arms}        _ => None,
    }}
}}

/// The static facts of adapter `index`.
pub fn info(index: usize) -> Option<&'static ::aqlgen_runtime::adapter::AdapterInfo> {{
    use ::aqlgen_runtime::adapter::Adapter;
    match index {{
{infos}        _ => None,
    }}
}}
"
    );
    std::fs::write(out.join("adapters.rs"), adapters).expect("write adapters.rs");
}

fn env_number(name: &str) -> Option<u64> {
    std::env::var(name).ok().and_then(|text| text.parse().ok())
}
