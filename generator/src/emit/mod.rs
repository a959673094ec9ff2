//! Lowered model -> Rust tokens, one module per output file.

mod introspection;
mod json;
mod params;
mod routes;

pub use introspection::emit_introspection;

pub use params::emit_params;
pub use routes::emit_routes;

use proc_macro2::TokenStream;
use quote::quote;

use crate::ir::Adapter;

/// The variant of a shared vocabulary enum as generated code names it: `Category::Read`'s
/// `Read`. The enums derive `Debug`, which prints a unit variant as its name.
pub fn variant(value: impl std::fmt::Debug) -> proc_macro2::Ident {
    quote::format_ident!("{value:?}")
}

/// One `#[doc]` per line, each with a leading space, so prettyplease prints tidy `///` lines.
/// The text is made plain to rustdoc first ([`crate::text::doc_markdown`]).
pub fn doc_lines(text: &str) -> TokenStream {
    let text = crate::text::doc_markdown(text);
    let lines = text
        .lines()
        .map(|line| format!(" {line}").trim_end().to_owned());
    quote! { #(#[doc = #lines])* }
}

/// The adapter type and its `impl Adapter`; `tools` are the rendered tool descriptions.
pub fn emit_adapter(adapter: &Adapter, tools: &crate::render::Tools) -> Vec<TokenStream> {
    let doc = format!(
        "The `{}` adapter, version {}: {}\n\nGenerated from `{}`; serve it with `aqlgen_runtime::run::<{}>()`.",
        adapter.name, adapter.version, adapter.description, adapter.schema_path, adapter.type_name
    );
    let info = emit_info(adapter);
    let server = Server {
        type_name: &adapter.type_name,
        name: &adapter.name,
        version: &adapter.version,
        description: &adapter.description,
        fingerprint: &adapter.fingerprint,
        doc: &doc,
    };
    emit_server(
        &server,
        &quote! { &[#info] },
        &quote! { routes::ROUTES },
        &quote! { routes::route(operation) },
        emit_graph(std::slice::from_ref(adapter)),
        tools,
    )
}

/// The `Graph` of the relationships of `adapters` (one, or a bundle's members, whose node
/// types are numbered on from one member to the next), if any declares some.
pub fn emit_graph(adapters: &[Adapter]) -> Option<TokenStream> {
    use crate::ir::{Hop, NamePiece};
    let graphs: Vec<&crate::ir::Graph> = adapters.iter().filter_map(|a| a.graph.as_ref()).collect();
    if graphs.is_empty() {
        return None;
    }
    let max_depth = proc_macro2::Literal::u64_unsuffixed(
        graphs
            .iter()
            .map(|graph| graph.max_depth)
            .max()
            .unwrap_or(1),
    );
    let path = |path: &str| {
        let members = path.split('.');
        quote! { &[#(#members),*] }
    };
    let hop = |hop: &Option<Hop>| match hop {
        Some(hop) => {
            let operation = &hop.operation;
            let params = hop.params.iter().map(|(param, at)| {
                let at = path(at);
                quote! { (#param, #at) }
            });
            quote! { Some(Hop { operation: #operation, params: &[#(#params),*], ..Hop::DEFAULT }) }
        }
        None => quote! { None },
    };
    let mut nodes = Vec::new();
    let mut edges = Vec::new();
    for graph in graphs {
        let offset = nodes.len();
        for node in &graph.nodes {
            let name = &node.name;
            let template = node.template.iter().map(|piece| match piece {
                NamePiece::Text(text) => quote! { NamePiece::Text(#text) },
                NamePiece::Field(field) => {
                    let field = path(field);
                    quote! { NamePiece::Field(#field) }
                }
            });
            let get = hop(&node.get);
            nodes.push(quote! { NodeType { name: #name, template: &[#(#template),*], get: #get, ..NodeType::DEFAULT } });
        }
        for edge in &graph.edges {
            let kind = &edge.kind;
            let (from, to) = (
                proc_macro2::Literal::usize_unsuffixed(offset + edge.from),
                proc_macro2::Literal::usize_unsuffixed(offset + edge.to),
            );
            let (forward, inverse) = (hop(&edge.forward), hop(&edge.inverse));
            edges.push(quote! {
                EdgeType { kind: #kind, from: #from, to: #to, forward: #forward, inverse: #inverse, ..EdgeType::DEFAULT }
            });
        }
    }
    Some(quote! {
        Some(&Graph { max_depth: #max_depth, nodes: &[#(#nodes),*], edges: &[#(#edges),*], ..Graph::DEFAULT })
    })
}

/// What a server type reports of itself, and its documentation.
pub struct Server<'a> {
    /// Rust type name.
    pub type_name: &'a str,
    /// Wire name.
    pub name: &'a str,
    /// Semver.
    pub version: &'a str,
    /// One line.
    pub description: &'a str,
    /// `sha256:<hex>`.
    pub fingerprint: &'a str,
    /// The type's doc comment.
    pub doc: &'a str,
}

/// A server type and its `impl Adapter`: `members` is the `MEMBERS` expression, `routes` the
/// `ROUTES` one, and `route` looks `operation` up.
pub fn emit_server(
    server: &Server<'_>,
    members: &TokenStream,
    routes: &TokenStream,
    route: &TokenStream,
    graph: Option<TokenStream>,
    tools: &crate::render::Tools,
) -> Vec<TokenStream> {
    let type_name = crate::ident::ident(server.type_name);
    let doc = doc_lines(server.doc);
    let (name, version, description, fingerprint) = (
        server.name,
        server.version,
        server.description,
        server.fingerprint,
    );
    let (create, read, update, delete, execute, single) = (
        &tools.create,
        &tools.read,
        &tools.update,
        &tools.delete,
        &tools.execute,
        &tools.single,
    );
    let declaration = quote! {
        #doc
        #[derive(Debug, Clone, Copy, Default)]
        pub struct #type_name;
    };
    let graph = graph.map(|graph| quote! { const GRAPH: Option<&'static Graph> = #graph; });
    let implementation = quote! {
        impl Adapter for #type_name {
            const SERVER: &'static ServerInfo = &ServerInfo {
                name: #name,
                version: #version,
                description: #description,
                schema_fingerprint: #fingerprint,
                ..ServerInfo::DEFAULT
            };
            const MEMBERS: &'static [&'static AdapterInfo] = #members;
            const ROUTES: &'static [&'static Route] = #routes;
            const INTROSPECTION: &'static Introspection = &Introspection {
                operations: introspection::OPERATIONS,
                types: introspection::TYPES,
                ..Introspection::DEFAULT
            };
            const TOOLS: &'static ToolDocs = &ToolDocs {
                create: #create,
                read: #read,
                update: #update,
                delete: #delete,
                execute: #execute,
                single: #single,
                ..ToolDocs::DEFAULT
            };
            #graph

            fn route(operation: &str) -> Option<&'static Route> {
                #route
            }
        }
    };
    vec![declaration, implementation]
}

/// The lint a generated crate allows: every literal of a runtime struct ends in
/// `..Type::DEFAULT`, which today names no field the literal leaves out but keeps the crate
/// building when a later runtime of the same `0.Y` adds one.
fn contract_allow() -> TokenStream {
    quote! {
        allow(
            clippy::needless_update,
            reason = "`..Type::DEFAULT` keeps this code building when the runtime adds a field"
        )
    }
}

/// [`contract_allow`] as the crate-level attribute of a generated `lib.rs`.
pub fn contract_lints() -> TokenStream {
    let allow = contract_allow();
    quote! { #![#allow] }
}

/// [`contract_allow`] as the attribute of one item, for a file a build script includes
/// (where a crate-level attribute cannot go): `item` with it.
pub fn with_contract_lints(item: TokenStream) -> TokenStream {
    let allow = contract_allow();
    quote! {
        #[#allow]
        #item
    }
}

/// The `&AdapterInfo { .. }` of `adapter`: its upstream, auth, trust and limits.
pub fn emit_info(adapter: &Adapter) -> TokenStream {
    let (name, version, description) = (&adapter.name, &adapter.version, &adapter.description);
    let (base_url, base_url_env, fingerprint) = (
        &adapter.base_url,
        &adapter.base_url_env,
        &adapter.fingerprint,
    );
    let auth = emit_auth(&adapter.auth);
    let trust = match adapter.trust {
        Some(level) => {
            let level = variant(level);
            quote! { Some(TrustLevel::#level) }
        }
        None => quote! { None },
    };
    let rate_limits = adapter.rate_limits.iter().map(|(window, limit)| {
        let window = variant(*window);
        quote! { RateLimit { window: Window::#window, limit: #limit, ..RateLimit::DEFAULT } }
    });
    quote! {
        &AdapterInfo {
            name: #name,
            version: #version,
            description: #description,
            base_url: #base_url,
            base_url_env: #base_url_env,
            auth: #auth,
            trust: #trust,
            rate_limits: &[#(#rate_limits),*],
            schema_fingerprint: #fingerprint,
            ..AdapterInfo::DEFAULT
        }
    }
}

fn emit_auth(auth: &crate::ir::Auth) -> TokenStream {
    use crate::ir::Auth;
    match auth {
        Auth::None => quote! { Auth::None },
        Auth::Bearer {
            token_env,
            header,
            prefix,
        } => {
            quote! { Auth::Bearer { token_env: #token_env, header: #header, prefix: #prefix } }
        }
        Auth::ApiKeyHeader { key_env, header } => {
            quote! { Auth::ApiKey { key_env: #key_env, location: ApiKeyLocation::Header(#header) } }
        }
        Auth::ApiKeyQuery { key_env, param } => {
            quote! { Auth::ApiKey { key_env: #key_env, location: ApiKeyLocation::Query(#param) } }
        }
        Auth::Basic {
            username_env,
            password_env,
        } => {
            quote! { Auth::Basic { username_env: #username_env, password_env: #password_env } }
        }
        Auth::OAuth2 {
            token_url,
            token_url_env,
            client_id_env,
            client_secret_env,
            refresh_token_env,
            scope,
        } => {
            let refresh_token_env = match refresh_token_env {
                Some(name) => quote! { Some(#name) },
                None => quote! { None },
            };
            quote! {
                Auth::OAuth2(&OAuth2 {
                    token_url: #token_url,
                    token_url_env: #token_url_env,
                    client_id_env: #client_id_env,
                    client_secret_env: #client_secret_env,
                    refresh_token_env: #refresh_token_env,
                    scope: #scope,
                })
            }
        }
        Auth::AwsSigV4(aws) => {
            let crate::ir::AwsSigV4 {
                region,
                region_env,
                service,
                access_key_id_env,
                secret_access_key_env,
                session_token_env,
            } = aws;
            quote! {
                Auth::AwsSigV4(&AwsSigV4 {
                    region: #region,
                    region_env: #region_env,
                    service: #service,
                    access_key_id_env: #access_key_id_env,
                    secret_access_key_env: #secret_access_key_env,
                    session_token_env: #session_token_env,
                })
            }
        }
        Auth::Combined(parts) => {
            let parts = parts.iter().map(emit_auth);
            quote! { Auth::Combined(&[#(#parts),*]) }
        }
    }
}

/// The `use` line the adapter items need.
pub fn adapter_uses(adapter: &Adapter) -> TokenStream {
    server_uses(std::slice::from_ref(adapter))
}

/// The `use` line of a server type whose `MEMBERS` hold the `AdapterInfo` of `adapters`, its
/// names in order.
pub fn server_uses(adapters: &[Adapter]) -> TokenStream {
    use crate::ir::Auth;
    let any = |test: fn(&Adapter) -> bool| adapters.iter().any(test);
    let optional = [
        (
            "ApiKeyLocation",
            any(|a| {
                a.auth.parts().iter().any(|auth| {
                    matches!(auth, Auth::ApiKeyHeader { .. } | Auth::ApiKeyQuery { .. })
                })
            }),
        ),
        ("OAuth2", any(|a| matches!(a.auth, Auth::OAuth2 { .. }))),
        ("AwsSigV4", any(|a| matches!(a.auth, Auth::AwsSigV4(_)))),
        ("RateLimit", any(|a| !a.rate_limits.is_empty())),
        ("TrustLevel", any(|a| a.trust.is_some())),
        ("Window", any(|a| !a.rate_limits.is_empty())),
    ];
    let graph = any(|a| a.graph.is_some());
    let graph_names = ["EdgeType", "Graph", "Hop", "NamePiece", "NodeType"]
        .into_iter()
        .filter(|_| graph);
    let mut names: Vec<&str> = ["Adapter", "AdapterInfo", "Auth", "Introspection", "Route"]
        .into_iter()
        .chain(["ServerInfo", "ToolDocs"])
        .chain(graph_names)
        .chain(
            optional
                .iter()
                .filter(|(_, used)| *used)
                .map(|(name, _)| *name),
        )
        .collect();
    names.sort_unstable();
    let names = names.into_iter().map(crate::ident::ident);
    quote! {
        use ::aqlgen_runtime::adapter::{#(#names),*};
    }
}
