//! Every adapter the build script generated, each in its own module, compiled with every
//! warning denied: the generator's promise that what `aqlgen check` accepts builds cleanly.
#![deny(warnings)]

include!(concat!(env!("OUT_DIR"), "/adapters.rs"));

/// The include file of `generator/tests/output`, the `build.rs` form of the pets fixture.
pub mod pets_include {
    include!("../../../generator/tests/output/pets_adapter.rs");
}
