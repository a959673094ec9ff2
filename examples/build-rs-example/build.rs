//! Compiles the todo adapter schema into `OUT_DIR/todo_adapter.rs`.

fn main() -> Result<(), aqlgen::Error> {
    aqlgen::Builder::new().compile("../../adapters/todo-adapter.md")
}
