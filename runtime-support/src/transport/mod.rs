//! Transports: bytes in, JSON-RPC messages to rmcp; answers out.
//!
//! Every message is judged by [`frame`] before rmcp parses it (size, depth, encoding,
//! JSON-RPC shape), on stdio ([`stdio`]) and streamable HTTP (`http`, feature `http`) alike,
//! so a hostile message is answered, or dropped, by the same rules on both.

pub mod frame;
#[cfg(feature = "http")]
pub mod http;
pub mod stdio;
