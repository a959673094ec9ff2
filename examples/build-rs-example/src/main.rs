//! The `todo` MCP server: `--help` lists its options.

fn main() -> std::process::ExitCode {
    aqlgen_runtime::run::<build_rs_example::adapter::TodoAdapter>()
}
