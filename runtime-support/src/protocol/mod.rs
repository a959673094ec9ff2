//! MCP-AQL over MCP.

pub mod batch;
pub mod envelope;
pub mod front;
pub mod introspect;
pub mod notify;
pub mod result;
pub mod server;
pub mod session;
pub mod tool_schema;
pub mod tools;
