//! The server of one adapter imported from `real-apis/`, or of `wire-adapter.md`,
//! `jobs-adapter.md`, `notes-adapter.md`, `dynamodb-adapter.md` or `iam-adapter.md`, or of
//! the `work` bundle, chosen by `REAL_API` (`azure`, `stripe`, `slack`, `bodies`,
//! `credentials`, `wire`, `jobs`,
//! `notes`, `dynamodb`, `iam` or `work`); the
//! end-to-end tests find it through `CARGO_BIN_EXE_real-api-adapter`.

use aqlgen_tests::dynamodb::DynamodbAdapter;
use aqlgen_tests::iam::IamAdapter;
use aqlgen_tests::jobs::JobsAdapter;
use aqlgen_tests::notes::NotesAdapter;
use aqlgen_tests::real::{azure, bodies, credentials, slack, stripe};
use aqlgen_tests::wire::WireAdapter;
use aqlgen_tests::work::WorkBundle;

fn main() -> std::process::ExitCode {
    match std::env::var("REAL_API").as_deref() {
        Ok("azure") => aqlgen_runtime::run::<azure::AzureAdapter>(),
        Ok("stripe") => aqlgen_runtime::run::<stripe::StripeAdapter>(),
        Ok("slack") => aqlgen_runtime::run::<slack::SlackAdapter>(),
        Ok("bodies") => aqlgen_runtime::run::<bodies::BodiesAdapter>(),
        Ok("credentials") => aqlgen_runtime::run::<credentials::CredentialsAdapter>(),
        Ok("wire") => aqlgen_runtime::run::<WireAdapter>(),
        Ok("jobs") => aqlgen_runtime::run::<JobsAdapter>(),
        Ok("notes") => aqlgen_runtime::run::<NotesAdapter>(),
        Ok("work") => aqlgen_runtime::run::<WorkBundle>(),
        Ok("dynamodb") => aqlgen_runtime::run::<DynamodbAdapter>(),
        Ok("iam") => aqlgen_runtime::run::<IamAdapter>(),
        _ => {
            eprintln!(
                "set REAL_API to azure, stripe, slack, bodies, credentials, wire, jobs, notes, dynamodb, iam or work"
            );
            std::process::ExitCode::from(2)
        }
    }
}
