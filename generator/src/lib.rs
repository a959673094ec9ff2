//! `aqlgen`: compiles MCP-AQL adapter schemas into typed Rust crates.
