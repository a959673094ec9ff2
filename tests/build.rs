//! Compiles `fixture-adapter.md` into `OUT_DIR/fixture_adapter.rs`, which `src/lib.rs`
//! includes: the end-to-end tests run against code the generator writes, so a change of the
//! generated contract reaches them without anything mirrored by hand.
//!
//! `wire-adapter.md` puts params in every place and style a request has (headers, cookies,
//! multipart files, path and query styles), so that every way of writing one is compiled.
//! `jobs-adapter.md` starts long-running jobs and follows them (`lifecycle`).
//! `notes-adapter.md` calls an API with OAuth 2 access tokens from its token endpoint.
//! `dynamodb-adapter.md` signs its calls with AWS Signature Version 4 and fixes the
//! `X-Amz-Target` header per operation; `iam-adapter.md` signs them too, its actions fixed
//! query values.
//! The `work` bundle serves `../adapters/todo-adapter.md` and `tasks-adapter.md` in one
//! server, each with its own upstream, credential, trust level and limits.
//!
//! It also imports the OpenAPI documents of `real-apis/` (the shapes of Azure Key Vault,
//! Stripe and Slack, the bodies real documents require, and two credentials required together) the way `aqlgen import-openapi` does, and compiles the adapters that
//! come out: the tests then call real API shapes through the importer, the generator and
//! the runtime together.

use std::path::PathBuf;

fn main() -> Result<(), aqlgen_build::Error> {
    aqlgen_build::Builder::new().compile("fixture-adapter.md")?;
    aqlgen_build::Builder::new().compile("wire-adapter.md")?;
    aqlgen_build::Builder::new().compile("jobs-adapter.md")?;
    aqlgen_build::Builder::new().compile("notes-adapter.md")?;
    aqlgen_build::Builder::new().compile("dynamodb-adapter.md")?;
    aqlgen_build::Builder::new().compile("iam-adapter.md")?;
    aqlgen_build::Builder::new()
        .compile_bundle("work", &["../adapters/todo-adapter.md", "tasks-adapter.md"])?;
    let out_dir = PathBuf::from(std::env::var_os("OUT_DIR").expect("set by Cargo"));
    for (name, document) in [
        ("azure", "real-apis/azure-keyvault.yaml"),
        ("stripe", "real-apis/stripe.yaml"),
        ("slack", "real-apis/slack.yaml"),
        ("bodies", "real-apis/bodies.yaml"),
        ("credentials", "real-apis/credentials.yaml"),
    ] {
        println!("cargo:rerun-if-changed={document}");
        // Azure's and Slack's OAuth2 schemes become a bearer token read from `<NAME>_TOKEN`.
        let options = aqlgen_build::ImportOptions {
            name: Some(name.to_owned()),
            ..Default::default()
        };
        let imported = aqlgen_build::import_openapi_file(document.as_ref(), &options)?;
        let schema = out_dir.join(format!("{name}-adapter.md"));
        std::fs::write(&schema, imported.text).map_err(|source| aqlgen_build::Error::Io {
            action: format!("writing {}", schema.display()),
            source,
        })?;
        aqlgen_build::Builder::new()
            .emit_rerun_if_changed(false)
            .compile(&schema)?;
    }
    Ok(())
}
