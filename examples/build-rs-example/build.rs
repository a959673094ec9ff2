//! Compiles `todo-adapter.md` into `OUT_DIR/todo_adapter.rs`, which `src/lib.rs` includes.
//! Cargo runs this again whenever the schema changes; a schema problem fails the build with
//! the same report `aqlgen check` gives.

fn main() -> Result<(), aqlgen_build::Error> {
    aqlgen_build::Builder::new().compile("todo-adapter.md")
}
