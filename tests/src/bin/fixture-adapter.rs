//! The fixture adapter's server, as a generated `main.rs` builds it; the end-to-end tests
//! find it through `CARGO_BIN_EXE_fixture-adapter`.

fn main() -> std::process::ExitCode {
    aqlgen_runtime::run::<aqlgen_tests::FixtureAdapter>()
}
