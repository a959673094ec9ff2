//! `aqlgen_build::Builder`: generation from `build.rs`, in the manner of prost-build.

use std::path::{Path, PathBuf};

use crate::error::Error;

/// Compiles adapter schemas into `OUT_DIR` for `include!`.
#[derive(Debug, Clone, Default)]
pub struct Builder {
    out_dir: Option<PathBuf>,
    emit_rerun_if_changed: Option<bool>,
}

impl Builder {
    /// A builder writing to `OUT_DIR`.
    pub fn new() -> Self {
        Self::default()
    }

    /// Writes into `dir` instead of `OUT_DIR`.
    pub fn out_dir(&mut self, dir: impl Into<PathBuf>) -> &mut Self {
        self.out_dir = Some(dir.into());
        self
    }

    /// Whether to print `cargo:rerun-if-changed=<schema>`; by default only under Cargo.
    pub fn emit_rerun_if_changed(&mut self, emit: bool) -> &mut Self {
        self.emit_rerun_if_changed = Some(emit);
        self
    }

    /// Validates `schema` and writes `<name>_adapter.rs` into the output directory; include
    /// it with `include!(concat!(env!("OUT_DIR"), "/<name>_adapter.rs"))`.
    ///
    /// # Errors
    ///
    /// [`Error::Config`] when no output directory is set and `OUT_DIR` is unset; the errors
    /// of [`crate::check`] and [`crate::generate_include`]; [`Error::Io`] when writing fails.
    pub fn compile(&self, schema: impl AsRef<Path>) -> Result<(), Error> {
        let schema = schema.as_ref();
        let out_dir = self.target()?;
        let checked = self.checked(schema)?;
        let file = crate::generate_include(&checked)?;
        crate::write_if_changed(&out_dir, &[file])?;
        Ok(())
    }

    /// Validates `schemas` and writes them as one bundle named `name` into the output
    /// directory: `<name>_bundle.rs`, whose `<Name>Bundle` serves every one of them, each
    /// operation named `<adapter>__<operation>`. Include it with
    /// `include!(concat!(env!("OUT_DIR"), "/<name>_bundle.rs"))`.
    ///
    /// # Errors
    ///
    /// As [`Self::compile`], and [`Error::Config`] when the schemas cannot be bundled (see
    /// [`crate::Bundle::new`]).
    pub fn compile_bundle(&self, name: &str, schemas: &[impl AsRef<Path>]) -> Result<(), Error> {
        let out_dir = self.target()?;
        let checked = schemas
            .iter()
            .map(|schema| self.checked(schema.as_ref()))
            .collect::<Result<Vec<_>, _>>()?;
        let bundle = crate::Bundle::new(name, &checked)?;
        let file = crate::generate_bundle_include(&bundle)?;
        crate::write_if_changed(&out_dir, &[file])?;
        Ok(())
    }

    /// The output directory.
    fn target(&self) -> Result<PathBuf, Error> {
        match &self.out_dir {
            Some(dir) => Ok(dir.clone()),
            None => std::env::var_os("OUT_DIR")
                .map(PathBuf::from)
                .ok_or_else(|| {
                    Error::Config(
                        "OUT_DIR is not set: call Builder::out_dir or run from build.rs".to_owned(),
                    )
                }),
        }
    }

    /// `schema`, checked, with Cargo told to watch it and shown its notes when under Cargo.
    fn checked(&self, schema: &Path) -> Result<crate::Checked, Error> {
        let under_cargo = std::env::var_os("CARGO").is_some();
        if self.emit_rerun_if_changed.unwrap_or(under_cargo) {
            println!("cargo:rerun-if-changed={}", schema.display());
        }
        let checked = crate::check(schema)?;
        if under_cargo {
            for note in checked.notes() {
                println!("cargo:warning={note}");
            }
        }
        Ok(checked)
    }
}
