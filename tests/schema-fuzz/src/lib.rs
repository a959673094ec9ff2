//! Every adapter the build script generated, each in its own module, compiled with every
//! warning denied: the generator's promise that what `aqlgen check` accepts builds cleanly.
#![deny(warnings)]

include!(concat!(env!("OUT_DIR"), "/adapters.rs"));

/// The include file of `generator/tests/output`, the `build.rs` form of the pets fixture.
///
/// Params structs are plain typed values a caller can build and read:
///
/// ```
/// use aqlgen_schema_fuzz::pets_include::params::GetPetParams;
///
/// let params = GetPetParams { pet_id: "7".to_owned() };
/// assert_eq!(GetPetParams::NAMES, ["pet_id", "fields", "preset"]);
/// assert_eq!(params.pet_id, "7");
/// ```
///
/// A required field cannot be left out:
///
/// ```compile_fail,E0063
/// let params = aqlgen_schema_fuzz::pets_include::params::GetPetParams {};
/// ```
///
/// and a string param does not take a number:
///
/// ```compile_fail,E0308
/// let params = aqlgen_schema_fuzz::pets_include::params::GetPetParams { pet_id: 7 };
/// ```
pub mod pets_include {
    include!("../../../generator/tests/output/pets_adapter.rs");
}
