//! Compiles `fixture-adapter.md` into `OUT_DIR/fixture_adapter.rs`, which `src/lib.rs`
//! includes: the end-to-end tests run against code the generator writes, so a change of the
//! generated contract reaches them without anything mirrored by hand.

fn main() -> Result<(), aqlgen_build::Error> {
    aqlgen_build::Builder::new().compile("fixture-adapter.md")
}
