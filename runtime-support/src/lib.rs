//! The runtime every `aqlgen`-generated MCP-AQL adapter links.
//!
//! Generated code implements [`adapter::Adapter`] with the help of [`params`], and its `main`
//! calls [`run`] (or [`serve`] with a [`config::Config`] of its own). Everything that is the
//! same for every adapter (request envelope, limits, results and error codes, introspection
//! serving, the safety gate, the MCP server on stdio or streamable HTTP, the upstream HTTP
//! client) lives here, private to the crate.

pub mod adapter;
mod batch;
mod clock;
pub mod config;
mod envelope;
mod error;
mod gate;
mod idle_sessions;
mod intake;
mod introspect;
mod json_scan;
mod listener;
mod metrics;
mod notify;
pub mod params;
mod probes;
mod redact;
mod result;
mod serve;
mod server;
mod session;
mod shape;
mod state;
mod stdio;
mod tool_schema;
mod tools;
mod upstream;
mod warning;

pub use serve::{run, serve};

/// The JSON types generated code is written in, so that a generated crate needs no
/// dependency but this one.
pub use serde_json;
