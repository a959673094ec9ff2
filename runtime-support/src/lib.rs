//! The runtime every `aqlgen`-generated MCP-AQL adapter links.
//!
//! Generated code implements [`adapter::Adapter`]; everything that is the same for every
//! adapter (request envelope, limits, results and error codes, introspection serving, the MCP
//! server on stdio or streamable HTTP, the upstream HTTP client) lives here.

pub mod adapter;
mod clock;
pub mod config;
pub mod envelope;
pub mod error;
pub mod gate;
pub mod introspect;
pub mod params;
pub mod result;
mod serve;
pub mod server;
pub mod session;
mod stdio;
pub mod tools;
pub mod upstream;
pub mod warning;

pub use serve::{run, serve};
