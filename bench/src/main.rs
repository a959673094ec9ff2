//! `scripts/bench`: imports GitHub's REST description, builds the full adapter, measures it
//! and its peers, and writes the table into the README.

mod client;
mod figures;
mod measure;
mod proc;
mod tokens;

fn main() {}
