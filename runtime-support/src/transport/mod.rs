//! Transports.

pub mod frame;
pub mod http;
pub mod stdio;
