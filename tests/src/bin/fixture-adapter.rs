//! The fixture adapter as an MCP server binary, as `aqlgen` would generate it.

fn main() -> std::process::ExitCode {
    runtime_support::run::<aqlgen_tests::FixtureAdapter>()
}
