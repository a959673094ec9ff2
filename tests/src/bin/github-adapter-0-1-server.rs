//! The github adapter as aqlgen 0.1 generated it (`tests/compat/github-0.1`, kept unchanged),
//! served by the current runtime: the crate a user generated before a runtime release.

fn main() -> std::process::ExitCode {
    aqlgen_runtime::run::<github_adapter_0_1::GithubAdapter>()
}
