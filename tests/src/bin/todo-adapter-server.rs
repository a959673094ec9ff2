//! The generated todo adapter's server, as its generated `main.rs` builds it; a binary of
//! this package so the end-to-end tests can find it through `CARGO_BIN_EXE_*`.

fn main() -> std::process::ExitCode {
    aqlgen_runtime::run::<todo_adapter::TodoAdapter>()
}
