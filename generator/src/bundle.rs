//! Bundles: several adapter schemas compiled into one crate and one server.
//!
//! Each member keeps its own upstream, credentials, trust level and limits; its operations
//! and types are namespaced by its name (`github__list_issues`, `GithubIssue`), so names
//! that two schemas share cannot collide. What the namespace cannot settle is refused here:
//! two members with one namespace, a namespaced type name both produce, and an environment
//! variable both read (one API's secret would reach the other).

use std::collections::HashMap;

use proc_macro2::TokenStream;
use quote::quote;

use crate::error::Error;
use crate::ident::{field_name, ident, type_name};
use crate::ir::Adapter;
use crate::output::{self, GeneratedFile};
use crate::{Checked, CrateLocation, emit, mcpb, render};

/// Validated members under one name, ready to generate.
#[derive(Debug)]
pub struct Bundle {
    /// Wire name of the server, e.g. `work`.
    pub name: String,
    /// `sha256:<hex>` over the members' fingerprints, in order.
    pub fingerprint: String,
    /// The members, namespaced, in the order given.
    members: Vec<Adapter>,
}

/// The Rust module of `member`, under `adapters`: `github`, `r#type`.
fn module(member: &Adapter) -> String {
    field_name(&member.namespace())
}

impl Bundle {
    /// The bundle `name` of `members`, in the order given.
    ///
    /// # Errors
    ///
    /// [`Error::Config`] for a name that is no adapter name, fewer than two members, two
    /// members with one namespace, a type name two members produce, or an environment
    /// variable two members read.
    pub fn new(name: &str, members: &[Checked]) -> Result<Self, Error> {
        let valid = name.starts_with(|c: char| c.is_ascii_lowercase())
            && name
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
        if !valid {
            return Err(Error::Config(format!(
                "bundle name '{name}' is not an adapter name: lowercase letters, digits and '-', starting with a letter"
            )));
        }
        if members.len() < 2 {
            return Err(Error::Config(format!(
                "bundle '{name}' needs at least two schemas, got {}",
                members.len()
            )));
        }
        let adapters: Vec<Adapter> = members
            .iter()
            .enumerate()
            .map(|(member, checked)| checked.lowered.clone().namespaced(member))
            .collect();
        check_unique(&adapters, "namespace", |adapter| vec![adapter.namespace()])?;
        check_unique(&adapters, "introspection type", |adapter| {
            let mut names: Vec<String> = adapter.type_names().map(str::to_owned).collect();
            names.sort_unstable();
            names.dedup();
            names
        })?;
        check_unique(&adapters, "environment variable", |adapter| {
            let mut names: Vec<String> = adapter
                .auth
                .env_vars()
                .into_iter()
                .map(str::to_owned)
                .chain([adapter.base_url_env.clone()])
                .collect();
            if let crate::ir::Auth::OAuth2 { token_url_env, .. } = &adapter.auth {
                names.push(token_url_env.clone());
            }
            names
        })?;
        let fingerprints: Vec<&str> = adapters.iter().map(|a| a.fingerprint.as_str()).collect();
        let fingerprint = crate::fingerprint::fingerprint(&serde_json::json!(fingerprints));
        Ok(Self {
            name: name.to_owned(),
            fingerprint,
            members: adapters,
        })
    }

    /// Package name of the generated crate: `work-bundle`.
    pub fn package(&self) -> String {
        format!("{}-bundle", self.name)
    }

    /// The server type: `WorkBundle`.
    fn type_name(&self) -> String {
        type_name(&self.name, "Bundle")
    }

    /// The schemas, comma-separated, for file headers.
    fn sources(&self) -> String {
        let paths: Vec<&str> = self
            .members
            .iter()
            .map(|member| member.schema_path.as_str())
            .collect();
        paths.join(", ")
    }

    /// Every member's operations as one adapter, for the tool descriptions.
    /// What the bundle is, for its manifest and server info.
    fn description(&self) -> String {
        let names: Vec<&str> = self.members.iter().map(|m| m.name.as_str()).collect();
        format!("The {} APIs in one MCP-AQL server.", names.join(", "))
    }

    fn combined(&self) -> Adapter {
        let mut combined = self.members[0].clone();
        combined.name.clone_from(&self.name);
        combined.operations = self
            .members
            .iter()
            .flat_map(|member| member.operations.iter().cloned())
            .collect();
        combined
    }

    /// The server type and its `impl Adapter`, its modules referred to by `path` (`adapters`
    /// in a crate, the same inline in an include file).
    fn server_items(&self, tools: &render::Tools) -> Vec<TokenStream> {
        let names: Vec<&str> = self.members.iter().map(|m| m.name.as_str()).collect();
        let doc = format!(
            "The `{}` bundle of the {} adapters: one server, each operation named `<adapter>__<operation>`.\n\nGenerated from {}; serve it with `aqlgen_runtime::run::<{}>()`.",
            self.name,
            names.join(", "),
            self.sources(),
            self.type_name()
        );
        let description = self.description();
        let infos = self.members.iter().map(emit::emit_info);
        let routes = self.members.iter().flat_map(|member| {
            let module = ident(&module(member));
            member.operations.iter().map(move |op| {
                let route = ident(&op.route_static);
                quote! { &adapters::#module::routes::#route }
            })
        });
        let arms = self.members.iter().map(|member| {
            let (module, namespace) = (ident(&module(member)), member.namespace());
            quote! { Some((#namespace, _)) => adapters::#module::routes::route(operation), }
        });
        let server = emit::Server {
            type_name: &self.type_name(),
            name: &self.name,
            version: BUNDLE_VERSION,
            description: &description,
            fingerprint: &self.fingerprint,
            doc: &doc,
        };
        emit::emit_server(
            &server,
            &quote! { &[#(#infos),*] },
            &quote! { &[#(#routes),*] },
            &quote! {
                match operation.split_once("__") {
                    #(#arms)*
                    _ => None,
                }
            },
            emit::emit_graph(&self.members),
            tools,
        )
    }
}

/// The version a bundle's server reports and its crate has.
const BUNDLE_VERSION: &str = "0.1.0";

/// Refuses `adapters` when two of them have a name of `kind` in common.
fn check_unique(
    adapters: &[Adapter],
    kind: &str,
    names: impl Fn(&Adapter) -> Vec<String>,
) -> Result<(), Error> {
    let mut seen: HashMap<String, &Adapter> = HashMap::new();
    for adapter in adapters {
        for name in names(adapter) {
            if let Some(first) = seen.insert(name.clone(), adapter) {
                return Err(Error::Config(format!(
                    "{} ('{}') and {} ('{}') both have the {kind} '{name}', which a bundle cannot tell apart; rename it in one of them",
                    first.schema_path, first.name, adapter.schema_path, adapter.name
                )));
            }
        }
    }
    Ok(())
}

/// The files of a crate for `bundle` at `location`.
///
/// # Errors
///
/// [`Error::Template`] when a text artifact fails to render.
pub fn generate_bundle(
    bundle: &Bundle,
    location: &CrateLocation,
) -> Result<Vec<GeneratedFile>, Error> {
    let renderer = render::Renderer::new()?;
    let package = bundle.package();
    let combined = bundle.combined();
    let tools = renderer.tools(&combined)?;
    let sources = bundle.sources();
    let rust = |items: &[TokenStream], doc: &str| {
        output::rust_file(&sources, &bundle.fingerprint, Some(doc), items)
    };
    let modules = bundle.members.iter().map(|m| ident(&module(m)));
    let mut lib_items = vec![
        emit::contract_lints(),
        quote! {
            pub mod introspection;
            /// One module per adapter: its typed params and its routes.
            pub mod adapters {
                #(pub mod #modules;)*
            }
        },
    ];
    lib_items.push(emit::server_uses(&bundle.members));
    lib_items.extend(bundle.server_items(&tools));
    let lib_name = ident(&package.replace('-', "_"));
    let type_name = ident(&bundle.type_name());
    let main = quote! {
        fn main() -> std::process::ExitCode {
            ::aqlgen_runtime::run::<::#lib_name::#type_name>()
        }
    };
    let file = |path: String, contents: String| GeneratedFile { path, contents };
    let mut files = vec![
        file(
            "Cargo.toml".to_owned(),
            renderer.bundle_cargo_toml(&bundle.name, &package, BUNDLE_VERSION, location)?,
        ),
        file(
            "README.md".to_owned(),
            renderer.bundle_readme(&bundle.name, &package, &bundle.fingerprint, &bundle.members)?,
        ),
        file(
            "mcpb/manifest.json".to_owned(),
            mcpb::manifest(&mcpb::Server {
                package: &package,
                name: &bundle.name,
                version: BUNDLE_VERSION,
                description: &bundle.description(),
                members: &bundle.members,
            }),
        ),
        file(
            "src/introspection.rs".to_owned(),
            rust(
                &emit::emit_introspection(&bundle.members),
                "Introspection answers of every adapter, pre-serialized.",
            ),
        ),
        file(
            "src/lib.rs".to_owned(),
            rust(
                &lib_items,
                &format!(
                    "The `{}` MCP-AQL bundle.\n\nGenerated by aqlgen; serve it with `aqlgen_runtime::run::<{}>()`.",
                    bundle.name,
                    bundle.type_name()
                ),
            ),
        ),
        file(
            "src/main.rs".to_owned(),
            rust(&[main], &format!("The `{package}` MCP server binary.")),
        ),
    ];
    for adapter in &bundle.members {
        let dir = format!("src/adapters/{}", module(adapter).trim_start_matches("r#"));
        let member_rust = |items: &[TokenStream], doc: &str| {
            output::rust_file(&adapter.schema_path, &adapter.fingerprint, Some(doc), items)
        };
        files.push(file(
            format!("{dir}/mod.rs"),
            member_rust(
                &[quote! { pub mod params; pub mod routes; }],
                &format!("The `{}` adapter: {}", adapter.name, adapter.description),
            ),
        ));
        files.push(file(
            format!("{dir}/params.rs"),
            member_rust(
                &emit::emit_params(adapter),
                "Typed params of every operation.",
            ),
        ));
        files.push(file(
            format!("{dir}/routes.rs"),
            member_rust(
                &emit::emit_routes(adapter),
                "The routing table and the upstream request builders.",
            ),
        ));
    }
    Ok(files)
}

/// One Rust file holding the whole bundle, for `include!` from a build script's `OUT_DIR`:
/// `<name>_bundle.rs`.
///
/// # Errors
///
/// [`Error::Template`] when a tool description fails to render.
pub fn generate_bundle_include(bundle: &Bundle) -> Result<GeneratedFile, Error> {
    let tools = render::Renderer::new()?.tools(&bundle.combined())?;
    let members = bundle.members.iter().map(|member| {
        let module = ident(&module(member));
        let params = emit::emit_params(member);
        let routes = emit::emit_routes(member);
        let doc = format!(" The `{}` adapter: {}", member.name, member.description);
        quote! {
            #[doc = #doc]
            pub mod #module {
                /// Typed params of every operation.
                pub mod params { #(#params)* }
                /// The routing table and the upstream request builders.
                pub mod routes { #(#routes)* }
            }
        }
    });
    let introspection = emit::emit_introspection(&bundle.members);
    let mut items = vec![
        emit::with_contract_lints(quote! {
            /// Introspection answers of every adapter, pre-serialized.
            pub mod introspection { #(#introspection)* }
        }),
        emit::with_contract_lints(quote! {
            /// One module per adapter: its typed params and its routes.
            pub mod adapters { #(#members)* }
        }),
        emit::server_uses(&bundle.members),
    ];
    items.extend(
        bundle
            .server_items(&tools)
            .into_iter()
            .map(emit::with_contract_lints),
    );
    Ok(GeneratedFile {
        path: format!("{}_bundle.rs", bundle.name.replace('-', "_")),
        contents: output::rust_file(&bundle.sources(), &bundle.fingerprint, None, &items),
    })
}

#[cfg(test)]
mod tests {
    use super::Bundle;
    use crate::Error;

    fn checked(path: &str) -> crate::Checked {
        crate::check(std::path::Path::new(path)).expect("a valid schema")
    }

    fn refusal(name: &str, members: &[crate::Checked]) -> String {
        match Bundle::new(name, members) {
            Err(Error::Config(message)) => message,
            other => panic!("refused as configuration: {other:?}"),
        }
    }

    #[test]
    fn members_are_namespaced_in_order() {
        let members = [
            checked("../adapters/todo-adapter.md"),
            checked("../adapters/github-adapter.md"),
        ];
        let bundle = Bundle::new("work", &members).expect("bundled");
        assert_eq!(bundle.package(), "work-bundle");
        let combined = bundle.combined();
        assert!(
            combined
                .operations
                .iter()
                .any(|op| op.name == "todo__get_todo")
        );
        assert!(
            combined
                .operations
                .iter()
                .any(|op| op.name == "github__list_issues")
        );
        let github = &bundle.members[1];
        assert_eq!(github.member, 1);
        assert!(github.type_names().all(|name| name.starts_with("Github")));
    }

    #[test]
    fn what_the_namespace_cannot_settle_is_refused() {
        let todo = || checked("../adapters/todo-adapter.md");
        let twice = refusal("work", &[todo(), todo()]);
        assert!(twice.contains("both have the namespace 'todo'"), "{twice}");
        assert!(
            refusal("Work", &[todo(), checked("../adapters/github-adapter.md")])
                .contains("is not an adapter name")
        );
        assert!(refusal("work", &[todo()]).contains("at least two schemas"));

        let dir = std::env::temp_dir().join(format!("aqlgen-bundle-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a temporary directory");
        let schema = std::fs::read_to_string("../tests/tasks-adapter.md").expect("tasks schema");
        let shared = dir.join("tasks-adapter.md");
        std::fs::write(&shared, schema.replace("TASKS_TOKEN", "TODO_API_KEY")).expect("write");
        let shared = checked(shared.to_str().expect("a UTF-8 path"));
        let secret = refusal("work", &[todo(), shared]);
        assert!(
            secret.contains("both have the environment variable 'TODO_API_KEY'"),
            "{secret}"
        );
        std::fs::remove_dir_all(&dir).ok();
    }
}
