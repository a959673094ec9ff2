//! MCP-AQL over MCP: what a client sees.
//!
//! [`server`] is the rmcp handler: `initialize`, `tools/list` ([`tools`], with the input
//! schema of [`tool_schema`]) and `tools/call`, which parses the [`envelope`] (or a
//! [`batch`]), finds the route, answers `introspect` from [`introspect`] and hands every
//! other operation to the call line; [`result`] wraps what comes back. [`session`] names the
//! session and the caller, [`notify`] sends log and progress notifications, [`person`] asks
//! the client's user to confirm, [`tasks`] answers MCP Tasks for long-running executions,
//! [`scopes`] says which access-token scopes an operation needs, and [`front`] reads what the
//! HTTP front hands the handler.

pub mod batch;
pub mod envelope;
pub mod front;
pub mod introspect;
pub mod notify;
pub mod person;
pub mod result;
pub mod scopes;
pub mod server;
pub mod session;
pub mod tasks;
pub mod tool_schema;
pub mod tools;
