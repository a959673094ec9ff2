//! The fixture adapter as an MCP server binary, as `aqlgen` would generate it.

fn main() -> std::process::ExitCode {
    aqlgen_runtime::run::<aqlgen_tests::FixtureAdapter>()
}
