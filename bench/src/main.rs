//! `scripts/bench`: imports GitHub's REST description, builds the full adapter, measures it
//! and its peers, and writes the table into the README.

mod figures;

fn main() {}
