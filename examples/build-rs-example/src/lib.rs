//! The `todo` MCP-AQL adapter, compiled from `todo-adapter.md` by `build.rs`.

/// What aqlgen generates from the schema: the adapter type [`TodoAdapter`], a typed params
/// struct per operation (`params`), the routing table (`routes`) and the introspection
/// answers (`introspection`).
///
/// [`TodoAdapter`]: adapter::TodoAdapter
pub mod adapter {
    include!(concat!(env!("OUT_DIR"), "/todo_adapter.rs"));
}
