//! Serves one of the crate's adapters: `AQLGEN_FUZZ_ADAPTER=<index> schema-fuzz-server
//! [adapter flags...]`.

fn main() -> std::process::ExitCode {
    let index = std::env::var("AQLGEN_FUZZ_ADAPTER")
        .ok()
        .and_then(|text| text.parse().ok());
    let Some(code) = index.and_then(aqlgen_schema_fuzz::serve) else {
        eprintln!(
            "set AQLGEN_FUZZ_ADAPTER to an index below {}",
            aqlgen_schema_fuzz::SCHEMAS.len()
        );
        return std::process::ExitCode::from(2);
    };
    code
}
