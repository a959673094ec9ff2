//! `aqlgen-build` compiles an MCP-AQL adapter schema (Markdown with YAML front matter, or the
//! generator document's YAML or JSON format) into typed Rust that builds into one MCP server
//! binary linked against `aqlgen-runtime`. It is the library behind the `aqlgen` command
//! (crate `aqlgen-cli`) and the one build scripts use.
//!
//! From a build script, with `aqlgen-build` as a build dependency and `aqlgen-runtime` as a
//! dependency:
//!
//! ```no_run
//! // build.rs
//! fn main() -> Result<(), aqlgen_build::Error> {
//!     aqlgen_build::Builder::new().compile("todo-adapter.md")
//! }
//! // src/lib.rs:
//! // pub mod adapter { include!(concat!(env!("OUT_DIR"), "/todo_adapter.rs")); }
//! // src/main.rs:
//! // fn main() -> std::process::ExitCode {
//! //     aqlgen_runtime::run::<my_server::adapter::TodoAdapter>()
//! // }
//! ```
//!
//! The pipeline runs one way: front-matter split -> schema model -> validation -> lowered
//! model -> emitted Rust and rendered text -> [`GeneratedFile`]s -> disk. A generator-format
//! document joins it at the schema model, after checks of its own.
#![deny(missing_docs)]

mod builder;
mod bundle;
mod computed;
pub mod conformance;
mod diagnostic;
mod emit;
mod error;
mod features;
mod fingerprint;
mod gen_format;
mod ident;
mod ir;
mod mcpb;
mod openapi;
mod output;
mod render;
mod scaffold;
mod schema;
mod source;
mod text;
mod validate;
pub mod verification;

use std::path::Path;

pub use builder::Builder;
pub use bundle::{Bundle, generate_bundle, generate_bundle_include};
pub use diagnostic::{Code, Diagnostic};
pub use error::Error;
pub use openapi::{
    Completeness as ImportCompleteness, Imported, Options as ImportOptions,
    Warning as ImportWarning, import as import_openapi, import_file as import_openapi_file,
    reason_kind as import_reason_kind,
};
pub use output::{GeneratedFile, write_if_changed};
pub use scaffold::{Project, ProjectSchema, new_project};

use quote::quote;

/// A schema that passed validation.
#[derive(Debug)]
pub struct Checked {
    /// Adapter name.
    pub name: String,
    /// `sha256:<hex>` of the front matter, or of the whole generator-format document.
    pub fingerprint: String,
    /// What the schema uses beyond the official adapter schema (`SCHEMA_EXTENSION`), and
    /// features it asks for that an operation cannot have (`SCHEMA_FEATURE_UNAVAILABLE`).
    pub warnings: Vec<Diagnostic>,
    lowered: ir::Adapter,
}

impl Checked {
    /// Things worth knowing about a valid schema, one sentence each: what its server will do
    /// that its author may not expect.
    pub fn notes(&self) -> Vec<String> {
        let mut notes = Vec::new();
        if self.lowered.trust.is_none() {
            notes.push(match self.lowered.format {
                ir::SchemaFormat::FrontMatter => format!(
                    "`{}` declares no trust level, so its server starts untested and answers \
                     only 'introspect' (trust-levels §6.1); declare `trust: {{level: medium}}` (validated) \
                     once it passes your tests against the API, or let the operator vouch with \
                     --trust-level",
                    self.name
                ),
                ir::SchemaFormat::GeneratorDocument => format!(
                    "`{}` has no trust level (the generator format cannot declare one), so its \
                     server starts untested and answers only 'introspect' (trust-levels §6.1); \
                     once it passes your tests against the API, let the operator vouch with \
                     --trust-level validated",
                    self.name
                ),
            });
        }
        notes
    }
}

/// Reads `path` and validates it.
///
/// # Errors
///
/// [`Error::Io`] when the file cannot be read; [`Error::Schema`] with every problem found.
pub fn check(path: &Path) -> Result<Checked, Error> {
    let bytes = std::fs::read(path).map_err(|source| Error::Io {
        action: format!("reading {}", path.display()),
        source,
    })?;
    let display = path.to_string_lossy();
    match String::from_utf8(bytes) {
        Ok(text) => check_text(&display, &text),
        Err(error) => {
            let valid = &error.as_bytes()[..error.utf8_error().valid_up_to()];
            let offset = valid.len();
            let line = valid.iter().filter(|byte| **byte == b'\n').count() + 1;
            let byte = error.as_bytes()[offset];
            Err(Error::Schema {
                path: display.replace('\\', "/"),
                diagnostics: vec![
                    Diagnostic::new(Code::InvalidEncoding, "", "the file is not UTF-8 text")
                        .expected("an adapter schema encoded as UTF-8")
                        .found(format!("the byte 0x{byte:02X} (byte offset {offset})"))
                        .suggest("save the file as UTF-8")
                        .at_line(line),
                ],
            })
        }
    }
}

/// Validates schema `text`, reporting it as `display_path`.
///
/// # Errors
///
/// [`Error::Schema`] with every problem found.
pub fn check_text(display_path: &str, text: &str) -> Result<Checked, Error> {
    let schema_error = |diagnostics| Error::Schema {
        path: display_path.replace('\\', "/"),
        diagnostics,
    };
    // A Markdown file with front matter is the primary format; a file without is read as the
    // generator document's format when its top level has `schema_version`.
    let (schema, schema_path, format, documentation, fingerprint, warnings) =
        match source::Source::parse(display_path, text) {
            Ok(source) => {
                let valid = validate::validate(&source).map_err(schema_error)?;
                let fingerprint = fingerprint::of_yaml(&valid.document);
                (
                    valid.schema,
                    source.path,
                    ir::SchemaFormat::FrontMatter,
                    source.body,
                    fingerprint,
                    valid.warnings,
                )
            }
            Err(no_front_matter) => {
                let valid = gen_format::check(text)
                    .unwrap_or(Err(no_front_matter))
                    .map_err(schema_error)?;
                (
                    valid.schema,
                    display_path.replace('\\', "/"),
                    ir::SchemaFormat::GeneratorDocument,
                    valid.documentation,
                    valid.fingerprint,
                    valid.warnings,
                )
            }
        };
    let lowered = ir::lower(
        &schema,
        ir::Origin {
            schema_path,
            format,
            documentation,
            fingerprint: fingerprint.clone(),
        },
    );
    Ok(Checked {
        name: lowered.name.clone(),
        fingerprint,
        warnings,
        lowered,
    })
}

/// The version of `aqlgen-runtime` that generated code is written against: this crate's own.
///
/// Generator and runtime are released together under one version. A generated crate requires
/// `aqlgen-runtime = "<this version>"`, a caret requirement: any runtime of the same minor
/// release (`0.x` before 1.0) at least as new as the generator. Runtime releases keep every
/// item generated code of their minor release uses, so a runtime fix reaches a crate without
/// regenerating it, and code from a newer generator never builds against an older runtime.
pub const RUNTIME_VERSION: &str = env!("CARGO_PKG_VERSION");

/// Where a generated crate will live, as far as its `Cargo.toml` cares.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CrateLocation {
    /// How the crate names `aqlgen-runtime`.
    pub runtime: RuntimeSource,
    /// How the crate stands to a Cargo workspace around it.
    pub workspace: Workspace,
}

/// Where a generated crate takes `aqlgen-runtime` from.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum RuntimeSource {
    /// `aqlgen-runtime = "<RUNTIME_VERSION>"`: the registry, or whatever a `[patch]` puts in
    /// its place. The crate builds wherever it is copied.
    #[default]
    Registry,
    /// The same version requirement and a `path` to a checkout of the runtime, relative to
    /// the crate and `/`-separated: for working on aqlgen itself.
    Path(String),
}

/// How a generated crate stands to the Cargo workspace around its directory.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Workspace {
    /// No workspace claims the directory: the crate is built on its own.
    #[default]
    Outside,
    /// A member of the enclosing workspace; `lints` when that workspace declares
    /// `[workspace.lints]`, which the crate then inherits.
    Member {
        /// Whether the workspace declares `[workspace.lints]`.
        lints: bool,
    },
    /// A workspace of its own (an empty `[workspace]` table), inside a directory that an
    /// enclosing workspace would otherwise claim.
    Root,
}

impl CrateLocation {
    /// A member of a workspace with `[workspace.lints]`, taking the runtime by version.
    pub fn workspace_member() -> Self {
        Self {
            runtime: RuntimeSource::Registry,
            workspace: Workspace::Member { lints: true },
        }
    }
}

/// The files of a crate for `checked` at `location`.
///
/// # Errors
///
/// [`Error::Template`] when a text artifact fails to render.
pub fn generate_crate(
    checked: &Checked,
    location: &CrateLocation,
) -> Result<Vec<GeneratedFile>, Error> {
    let adapter = &checked.lowered;
    let renderer = render::Renderer::new()?;
    let tools = renderer.tools(adapter)?;
    let rust = |items: &[proc_macro2::TokenStream], doc: Option<&str>| {
        output::rust_file(&adapter.schema_path, &adapter.fingerprint, doc, items)
    };
    let lib_doc = format!(
        "The `{}` MCP-AQL adapter: {}\n\nGenerated by aqlgen; serve it with `aqlgen_runtime::run::<{}>()`.",
        adapter.name, adapter.description, adapter.type_name
    );
    let mut lib_items = vec![
        emit::contract_lints(),
        quote! {
            pub mod introspection;
            pub mod params;
            pub mod routes;
        },
    ];
    lib_items.push(emit::adapter_uses(adapter));
    lib_items.extend(emit::emit_adapter(adapter, &tools));
    let lib_name = crate::ident::ident(&adapter.lib_name);
    let type_name = crate::ident::ident(&adapter.type_name);
    let main = quote! {
        fn main() -> std::process::ExitCode {
            ::aqlgen_runtime::run::<::#lib_name::#type_name>()
        }
    };
    let file = |path: &str, contents: String| GeneratedFile {
        path: path.to_owned(),
        contents,
    };
    Ok(vec![
        file("Cargo.toml", renderer.cargo_toml(adapter, location)?),
        file("MCPAQL-PROVENANCE.json", renderer.provenance(adapter)?),
        file(
            "mcpb/manifest.json",
            mcpb::manifest(&mcpb::Server::of(adapter)),
        ),
        file("README.md", renderer.readme(adapter)?),
        file(
            "src/introspection.rs",
            rust(
                &emit::emit_introspection(std::slice::from_ref(adapter)),
                Some("Introspection answers, pre-serialized."),
            ),
        ),
        file("src/lib.rs", rust(&lib_items, Some(&lib_doc))),
        file(
            "src/main.rs",
            rust(
                &[main],
                Some(&format!("The `{}` MCP server binary.", adapter.package)),
            ),
        ),
        file(
            "src/params.rs",
            rust(
                &emit::emit_params(adapter),
                Some("Typed params of every operation."),
            ),
        ),
        file(
            "src/routes.rs",
            rust(
                &emit::emit_routes(adapter),
                Some("The routing table and the upstream request builders."),
            ),
        ),
    ])
}

/// One Rust file holding the whole adapter, for `include!` from a build script's `OUT_DIR`:
/// `params`, `routes` and `introspection` as inline modules beside the adapter type.
///
/// # Errors
///
/// [`Error::Template`] when a tool description fails to render.
pub fn generate_include(checked: &Checked) -> Result<GeneratedFile, Error> {
    let adapter = &checked.lowered;
    let tools = render::Renderer::new()?.tools(adapter)?;
    let module = |name: &str, doc: &str, items: Vec<proc_macro2::TokenStream>| {
        let name = quote::format_ident!("{}", name);
        emit::with_contract_lints(quote! {
            #[doc = #doc]
            pub mod #name { #(#items)* }
        })
    };
    let mut items = vec![
        module(
            "introspection",
            " Introspection answers, pre-serialized.",
            emit::emit_introspection(std::slice::from_ref(adapter)),
        ),
        module(
            "params",
            " Typed params of every operation.",
            emit::emit_params(adapter),
        ),
        module(
            "routes",
            " The routing table and the upstream request builders.",
            emit::emit_routes(adapter),
        ),
        emit::adapter_uses(adapter),
    ];
    items.extend(
        emit::emit_adapter(adapter, &tools)
            .into_iter()
            .map(emit::with_contract_lints),
    );
    Ok(GeneratedFile {
        path: adapter.include_file(),
        contents: output::rust_file(&adapter.schema_path, &adapter.fingerprint, None, &items),
    })
}
