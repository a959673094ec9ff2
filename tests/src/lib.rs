//! The adapters the end-to-end tests run: `fixture`, which `build.rs` generates from
//! `fixture-adapter.md` (four CRUD operations on items, the delete asking for confirmation,
//! no EXECUTE operation), served by the `fixture-adapter` binary; and the checked-in
//! generated `todo` and `github` crates, served by their own binaries here.

/// What aqlgen generates from `fixture-adapter.md`: the adapter type [`FixtureAdapter`], a
/// typed params struct per operation (`params`), the routing table (`routes`) and the
/// introspection answers (`introspection`).
///
/// [`FixtureAdapter`]: fixture::FixtureAdapter
pub mod fixture {
    include!(concat!(env!("OUT_DIR"), "/fixture_adapter.rs"));
}

pub use fixture::FixtureAdapter;
