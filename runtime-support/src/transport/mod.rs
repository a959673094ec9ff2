//! Transports.

pub mod frame;
#[cfg(feature = "http")]
pub mod http;
pub mod stdio;
