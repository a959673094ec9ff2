//! `aqlgen_build::Error` and the exit codes of REQ-GEN-8.

use std::fmt;

use crate::diagnostic::Diagnostic;

/// Why generation failed.
pub enum Error {
    /// The schema file at this path has problems; every one is listed.
    Schema {
        /// The schema path as given.
        path: String,
        /// Every problem, sorted by line.
        diagnostics: Vec<Diagnostic>,
    },
    /// Reading a schema or writing output failed.
    Io {
        /// What was being done, e.g. "reading adapters/x.md".
        action: String,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// A usage or configuration problem, e.g. `OUT_DIR` unset or an unknown target.
    Config(String),
    /// A template failed to render.
    Template(String),
    /// A server under a conformance export did not start, answer or speak MCP-AQL.
    Conformance(String),
}

impl Error {
    /// The process exit code (REQ-GEN-8): 2 schema, 3 configuration, 4 I/O, 5 template.
    pub fn exit_code(&self) -> u8 {
        match self {
            Self::Schema { .. } => 2,
            Self::Config(_) => 3,
            Self::Io { .. } => 4,
            Self::Template(_) => 5,
            Self::Conformance(_) => 1,
        }
    }

    /// The error `type` of the JSON output.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Schema { .. } => "SCHEMA_VALIDATION_ERROR",
            Self::Config(_) => "CONFIGURATION_ERROR",
            Self::Io { .. } => "IO_ERROR",
            Self::Template(_) => "TEMPLATE_ERROR",
            Self::Conformance(_) => "CONFORMANCE_ERROR",
        }
    }

    /// A one-line summary.
    pub fn summary(&self) -> String {
        match self {
            Self::Schema { path, diagnostics } => {
                format!(
                    "{path}: {} in the schema",
                    aqlgen_model::counted(diagnostics.len(), "problem")
                )
            }
            Self::Io { action, source } => format!("{action}: {source}"),
            Self::Config(message) => message.clone(),
            Self::Template(message) => format!("template error: {message}"),
            Self::Conformance(message) => format!("conformance export: {message}"),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Self::Schema { path, diagnostics } = self {
            for diagnostic in diagnostics {
                writeln!(f, "{}", diagnostic.render(path))?;
            }
        }
        write!(f, "{}", self.summary())
    }
}

/// The same report as `Display`, so a build script's `main` prints something readable.
impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}
