//! Streamable HTTP.

pub mod intake;
pub mod listener;
pub mod probes;
pub mod sessions;
