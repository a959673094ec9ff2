//! Computed fields (computed-fields §2): small typed expressions over a type's fields, read
//! ([`parse`]) and compiled to Rust ([`compile`]) at generation time, so the server runs them
//! as code and holds no interpreter.

pub mod compile;
pub mod parse;

pub use compile::{Fields, compile};
pub use parse::parse;
