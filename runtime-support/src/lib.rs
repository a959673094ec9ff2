//! The runtime every `aqlgen`-generated MCP-AQL adapter links.
//!
//! Generated code implements [`adapter::Adapter`] with the help of [`params`], [`wire`] and
//! [`computed`],
//! and its `main` calls [`run`] (or [`serve()`] with a [`config::Config`] of its own).
//! Everything that is the same for every adapter lives here, private to the crate.
//!
//! # Floor plan
//!
//! Folders follow a request down the line; a module imports from its own layer and the ones
//! below it, never from one above (a test over the module graph keeps it so):
//!
//! ```text
//! serve        process start: logging, settings, the state store, the start-up report
//!   |
//! transport/   bytes to JSON-RPC messages and back
//!   |            frame: judges each message before rmcp reads it
//!   |            stdio/: one session on the standard streams
//!   |            http/: streamable HTTP, listener, idle sessions, probes, handover of
//!   |                   the listening socket to a new binary              (feature `http`)
//!   |
//! protocol/    MCP-AQL over MCP: the rmcp handler (server), tools and their input schema,
//!   |            the envelope and batches, introspection, results, sessions, notifications,
//!   |            person (elicitation now, or input_required and the retry's answer)
//!   |
//! call/        one call once its route is known (line): params, the safety gate (gate/:
//!   |            policy, limits, tokens, confirm by a person, verify codes out of band,
//!   |            sealed requestState, audit), the execution safety loop (safety_loop/), the
//!   |            response cache (cache/), the upstream client (upstream/: auth, OAuth 2
//!   |            tokens), shaping (shape/: pages, fields, cursors), traces (trace/: OTLP),
//!   |            metrics                                                  (feature `metrics`)
//!   |
//! state/       what outlives a request: memory, a journal file, Redis   (feature `redis`)
//!
//! foundation, used by every layer and importing none:
//!   adapter (the contract with generated code), params, wire (values onto the request),
//!   computed (what compiled computed fields are built from),
//!   config (settings as data), error, warning, text, digest, clock, redact, json_scan,
//!   sync (locks that outlive a panic)
//! ```
//!
//! # Features
//!
//! None is on by default, so a stdio server links neither an HTTP server, nor a Redis
//! client, nor a metrics registry. `http` adds the streamable HTTP transport, `redis` the
//! shared state store of a fleet, `metrics` Prometheus counters on `/metrics` (with `http`).
//! Generated crates turn all three on by default.

pub mod adapter;
mod call;
mod clock;
pub mod computed;
pub mod config;
mod digest;
mod error;
mod json_scan;
pub mod params;
mod protocol;
mod redact;
mod serve;
mod state;
mod sync;
mod text;
mod transport;
mod warning;
pub mod wire;

pub use serve::{run, serve};

/// The JSON types generated code is written in, so that a generated crate needs no
/// dependency but this one.
pub use serde_json;
