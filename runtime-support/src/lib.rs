//! The runtime every `aqlgen`-generated MCP-AQL adapter links.

pub mod adapter;
mod call;
mod clock;
pub mod config;
mod digest;
mod error;
mod json_scan;
pub mod params;
mod protocol;
mod redact;
mod serve;
mod state;
mod text;
mod transport;
mod warning;

pub use serve::{run, serve};

/// The JSON types generated code is written in, so that a generated crate needs no
/// dependency but this one.
pub use serde_json;
