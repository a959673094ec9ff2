//! What each command reports: one typed value, serialized once as the JSON of REQ-GEN-9 or
//! printed for a terminal (coloured there, plain when piped or under `NO_COLOR`).

use std::collections::BTreeMap;
use std::path::Path;

use std::io::Write as _;

use anstyle::{AnsiColor, Style};
use serde::Serialize;

/// A line on stdout; a closed pipe (`aqlgen ... | head`) ends the output, not the program.
macro_rules! out {
    ($($arg:tt)*) => {{
        let _ = writeln!(anstream::stdout(), $($arg)*);
    }};
}

/// A line on stderr, with the same care.
macro_rules! err {
    ($($arg:tt)*) => {{
        let _ = writeln!(anstream::stderr(), $($arg)*);
    }};
}

/// A successful run's report.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum Report {
    /// Crates generated (or listed with `--dry-run`).
    Generated(Generated),
    /// Schemas checked.
    Checked(Checked),
    /// An OpenAPI document imported.
    Imported(Imported),
    /// A project scaffolded by `aqlgen new`.
    Created(Created),
    /// A conformance bundle exported or a verdict recorded.
    Conformance(Conformance),
}

/// `aqlgen SCHEMA... -o DIR`.
#[derive(Debug, Serialize)]
pub struct Generated {
    pub success: bool,
    pub dry_run: bool,
    pub output_directory: String,
    pub files_generated: Vec<String>,
    pub provenance: Provenance,
    /// Generator warnings (REQ-GEN-9); schema warnings are in `schema_warnings`.
    pub warnings: Vec<String>,
    pub schema_warnings: Vec<SchemaWarning>,
    pub notes: Vec<String>,
}

/// Fingerprints and generator, REQ-GEN-9's `provenance`.
#[derive(Debug, Serialize)]
pub struct Provenance {
    /// The schemas' fingerprints, comma-separated.
    pub schema_fingerprint: String,
    pub generator_version: &'static str,
}

/// `aqlgen check SCHEMA...`.
#[derive(Debug, Serialize)]
pub struct Checked {
    pub success: bool,
    pub files_generated: Vec<String>,
    pub schemas: Vec<Fingerprint>,
    pub warnings: Vec<String>,
    pub schema_warnings: Vec<SchemaWarning>,
    pub notes: Vec<String>,
}

/// One checked schema.
#[derive(Debug, Serialize)]
pub struct Fingerprint {
    pub schema: String,
    pub fingerprint: String,
}

/// A schema warning: the diagnostic's JSON with the schema's path.
#[derive(Debug, Serialize)]
pub struct SchemaWarning {
    pub schema: String,
    #[serde(flatten)]
    pub detail: serde_json::Value,
    /// As a terminal shows it.
    #[serde(skip)]
    pub rendered: String,
}

impl SchemaWarning {
    /// The warnings of a checked schema at `path`.
    pub fn of(path: &Path, checked: &aqlgen_build::Checked) -> Vec<Self> {
        let display = path.display().to_string();
        checked
            .warnings
            .iter()
            .map(|warning| Self {
                schema: display.clone(),
                detail: warning.to_json(),
                rendered: warning.render_ansi(&display),
            })
            .collect()
    }
}

/// `aqlgen import-openapi`.
#[derive(Debug, Serialize)]
pub struct Imported {
    pub success: bool,
    pub files_generated: Vec<String>,
    /// Operations written, per category.
    pub operations: BTreeMap<&'static str, usize>,
    /// Operations written that carry every param, body and credential their description
    /// has.
    pub operations_complete: usize,
    /// Operations written that lost a param, body or credential their description
    /// requires: always 0, as such an operation is not written.
    pub operations_losing_required: usize,
    /// Operations written with a `lifecycle`: they start work upstream that the server
    /// follows until it ends.
    pub operations_long_running: usize,
    pub warnings: Vec<ImportWarning>,
    pub notes: Vec<String>,
}

/// What the import could not carry for one operation.
#[derive(Debug, Serialize)]
pub struct ImportWarning {
    pub operation: String,
    pub reason: String,
}

/// `aqlgen new`.
#[derive(Debug, Serialize)]
pub struct Created {
    pub success: bool,
    pub output_directory: String,
    pub files_generated: Vec<String>,
    pub notes: Vec<String>,
    /// What to run next, for a terminal.
    #[serde(skip)]
    pub next: Vec<String>,
}

/// `aqlgen conformance export|record`.
#[derive(Debug, Serialize)]
pub struct Conformance {
    pub success: bool,
    pub files_generated: Vec<String>,
    pub summary: String,
    /// What the export could not measure, and so does not claim.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub untested: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verification: Option<serde_json::Value>,
}

/// A failed run, REQ-GEN-9's failure shape.
#[derive(Debug, Serialize)]
pub struct Failure {
    pub success: bool,
    pub error: FailureDetail,
}

/// The error of a [`Failure`].
#[derive(Debug, Serialize)]
pub struct FailureDetail {
    /// The exit code.
    pub code: u8,
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub message: String,
    pub details: Vec<serde_json::Value>,
}

impl Failure {
    /// The report of `error`.
    pub fn of(error: &aqlgen_build::Error) -> Self {
        let details = match error {
            aqlgen_build::Error::Schema { diagnostics, .. } => diagnostics
                .iter()
                .map(aqlgen_build::Diagnostic::to_json)
                .collect(),
            _ => Vec::new(),
        };
        Self {
            success: false,
            error: FailureDetail {
                code: error.exit_code(),
                kind: error.kind(),
                message: error.summary(),
                details,
            },
        }
    }
}

/// Prints `value` as pretty JSON on stdout.
pub fn print_json(value: &impl Serialize) {
    match serde_json::to_string_pretty(value) {
        Ok(text) => out!("{text}"),
        Err(error) => err!("error: the report is not JSON: {error}"),
    }
}

/// Prints `error` for a terminal, every schema problem with its colours.
pub fn print_error(error: &aqlgen_build::Error) {
    if let aqlgen_build::Error::Schema { path, diagnostics } = error {
        for diagnostic in diagnostics {
            err!("{}", diagnostic.render_ansi(path));
        }
    }
    let label = Style::new().bold().fg_color(Some(AnsiColor::Red.into()));
    err!("{label}error{label:#}: {}", error.summary());
}

impl Report {
    /// Prints the report for a terminal: results on stdout, warnings and notes on stderr.
    pub fn print_human(&self, verbose: bool) {
        match self {
            Self::Generated(report) => {
                warnings(&report.schema_warnings);
                notes(&report.notes);
                if verbose {
                    for file in &report.files_generated {
                        out!("{file}");
                    }
                }
                if !report.files_generated.is_empty() {
                    out!(
                        "{} {} files to {} ({})",
                        if report.dry_run {
                            "would write"
                        } else {
                            "wrote"
                        },
                        report.files_generated.len(),
                        report.output_directory,
                        report.provenance.schema_fingerprint
                    );
                }
            }
            Self::Checked(report) => {
                warnings(&report.schema_warnings);
                notes(&report.notes);
                for schema in &report.schemas {
                    out!("ok: {} ({})", schema.schema, schema.fingerprint);
                }
            }
            Self::Imported(report) => {
                let label = Style::new().bold().fg_color(Some(AnsiColor::Yellow.into()));
                for warning in &report.warnings {
                    err!(
                        "{label}warning{label:#}: {}: {}",
                        warning.operation,
                        warning.reason
                    );
                }
                notes(&report.notes);
                let counts: Vec<String> = report
                    .operations
                    .iter()
                    .map(|(category, count)| format!("{category} {count}"))
                    .collect();
                let long_running = match report.operations_long_running {
                    0 => String::new(),
                    count => format!("; {count} long-running"),
                };
                out!(
                    "wrote {} ({}; {} of {} operations complete{long_running}; {})",
                    report.files_generated.first().map_or("", String::as_str),
                    counts.join(", "),
                    report.operations_complete,
                    report.operations.values().sum::<usize>(),
                    aqlgen_model::counted(report.warnings.len(), "warning")
                );
            }
            Self::Created(report) => {
                notes(&report.notes);
                if verbose {
                    for file in &report.files_generated {
                        out!("{file}");
                    }
                }
                out!("created {}; next:", report.output_directory);
                for step in &report.next {
                    out!("    {step}");
                }
            }
            Self::Conformance(report) => {
                out!("{}", report.summary);
                for untested in &report.untested {
                    err!("not tested: {untested}");
                }
            }
        }
    }
}

fn warnings(warnings: &[SchemaWarning]) {
    for warning in warnings {
        err!("{}", warning.rendered);
    }
}

fn notes(notes: &[String]) {
    let label = Style::new().bold().fg_color(Some(AnsiColor::Cyan.into()));
    for note in notes {
        err!("{label}note{label:#}: {note}");
    }
}
