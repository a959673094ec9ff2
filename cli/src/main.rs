//! The `aqlgen` command line: parse arguments, call the library, report, and exit with the
//! code of REQ-GEN-8.

mod location;
mod report;
mod workspace;

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use aqlgen_build::Error;
use clap::{CommandFactory, Parser, Subcommand, ValueEnum};

use location::WorkspacePolicy;
use report::Report;

/// Compiles MCP-AQL adapter schemas into typed Rust MCP server crates.
#[derive(Debug, Parser)]
#[command(name = "aqlgen", version, args_conflicts_with_subcommands = true)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// Adapter schema files: Markdown with YAML front matter, or the generator document's
    /// YAML or JSON with `schema_version`.
    #[arg(value_name = "SCHEMA")]
    schemas: Vec<PathBuf>,
    /// Schema file; the spec's spelling of the positional argument.
    #[arg(short = 's', long = "schema", value_name = "SCHEMA")]
    schema_flags: Vec<PathBuf>,
    /// Output directory; with several schemas, each crate goes in `<dir>/<name>` (one crate
    /// in `<dir>` with `--bundle`).
    #[arg(short, long, default_value = "generated")]
    output: PathBuf,
    /// Compile every schema into one crate and one server of this name, each operation named
    /// `<adapter>__<operation>`.
    #[arg(long, value_name = "NAME")]
    bundle: Option<String>,
    /// Target language.
    #[arg(short, long, value_enum, default_value = "rust")]
    target: Target,
    /// List what would be written without writing.
    #[arg(long)]
    dry_run: bool,
    /// Take `aqlgen-runtime` from this directory (a checkout of aqlgen's `runtime-support`)
    /// as well as by version: for working on aqlgen itself.
    #[arg(long, value_name = "DIR")]
    runtime_path: Option<PathBuf>,
    #[command(flatten)]
    placement: Placement,
    #[command(flatten)]
    common: Common,
}

#[derive(Debug, clap::Args)]
struct Common {
    /// `human` or `json`.
    #[arg(long, value_enum, default_value = "human", global = true)]
    output_format: Format,
    /// More output.
    #[arg(short, long, global = true)]
    verbose: bool,
    /// Errors only.
    #[arg(short, long, global = true)]
    quiet: bool,
}

/// What to do when the output lies in a Cargo workspace that does not list it.
#[derive(Debug, Clone, Copy, clap::Args)]
struct Placement {
    /// Add the new crate to the `members` of the workspace around it.
    #[arg(long, conflicts_with = "standalone")]
    join_workspace: bool,
    /// Give the new crate a `[workspace]` table of its own, apart from the workspace around it.
    #[arg(long)]
    standalone: bool,
}

impl Placement {
    fn policy(self) -> WorkspacePolicy {
        match (self.join_workspace, self.standalone) {
            (true, _) => WorkspacePolicy::Join,
            (_, true) => WorkspacePolicy::Standalone,
            _ => WorkspacePolicy::Refuse,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Target {
    /// A Rust crate.
    Rust,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ExportMode {
    /// The five CRUDE family tools.
    Crude,
    /// The single `mcp_aql` tool.
    Single,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    Human,
    Json,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Validate schemas without writing anything.
    Check {
        /// Adapter schema files.
        #[arg(required = true)]
        schemas: Vec<PathBuf>,
        /// Check that the schemas can be bundled under this name, too.
        #[arg(long, value_name = "NAME")]
        bundle: Option<String>,
    },
    /// Create an adapter project whose build.rs compiles its schema.
    ///
    /// Example: aqlgen new weather-server --from weather-adapter.md
    New {
        /// The project's directory; it must not exist yet, or be empty.
        dir: PathBuf,
        /// The schema to compile; without it, a commented starter schema.
        #[arg(long, value_name = "SCHEMA")]
        from: Option<PathBuf>,
        /// The package name; by default the directory's name.
        #[arg(long)]
        name: Option<String>,
        #[command(flatten)]
        placement: Placement,
    },
    /// Convert an OpenAPI 3.x document (JSON or YAML) into an adapter schema.
    ImportOpenapi {
        /// The OpenAPI document.
        openapi: PathBuf,
        /// Where to write the adapter schema.
        #[arg(short, long, value_name = "ADAPTER_MD")]
        output: PathBuf,
        /// Adapter name (lowercase, hyphens); also the prefix of its environment variables,
        /// e.g. `github` gives GITHUB_BASE_URL. Default: derived from `info.title`.
        #[arg(long, value_name = "NAME")]
        name: Option<String>,
        /// Send `Authorization: Bearer $VAR` upstream, whatever the document's
        /// securitySchemes say (for documents that declare none usable).
        #[arg(long, value_name = "VAR")]
        bearer_env: Option<String>,
    },
    /// Gather conformance evidence from a running adapter, or record the runner's verdict.
    #[command(subcommand)]
    Conformance(Conformance),
    /// Print a completion script for a shell, e.g. `aqlgen completions bash > ~/.local/share/bash-completion/completions/aqlgen`.
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
}

#[derive(Debug, Subcommand)]
enum Conformance {
    /// Drive an adapter binary over MCP (stdio) against its live upstream and write the
    /// evidence bundle the specification's conformance runner scores.
    ///
    /// Example: aqlgen conformance export github-adapter.md -o evidence.json
    ///   --value owner=octo --value repo=hello-world -- ./github-adapter --trust-level validated
    Export {
        /// The schema the adapter was generated from.
        schema: PathBuf,
        /// Where to write the bundle.
        #[arg(short, long, value_name = "EVIDENCE_JSON")]
        output: PathBuf,
        /// A value for a param wherever a call needs one, as NAME=JSON (or NAME=text), e.g.
        /// ids that exist upstream. Repeatable.
        #[arg(long = "value", value_name = "NAME=VALUE", value_parser = parse_value)]
        values: Vec<(String, serde_json::Value)>,
        /// Seconds to wait for any one answer.
        #[arg(long, default_value_t = 30)]
        timeout: u64,
        /// The endpoint mode to probe the server in (set through MCP_AQL_ENDPOINT_MODE);
        /// both modes are checked for `endpoint_modes` whatever this is.
        #[arg(long, value_enum)]
        mode: Option<ExportMode>,
        /// The adapter's command line; it must serve MCP on stdio.
        #[arg(last = true, required = true, value_name = "SERVER")]
        server: Vec<OsString>,
    },
    /// Write the runner's verdict into a generated crate's MCPAQL-PROVENANCE.json, bound to
    /// the crate's code by `verification.code_hash`.
    Record {
        /// The schema the crate was generated from.
        schema: PathBuf,
        /// The generated crate.
        #[arg(long = "crate", value_name = "DIR")]
        crate_dir: PathBuf,
        /// A JSON report of the runner (`--format json --output <file>`). Repeatable, one per
        /// level and endpoint mode run; a level counts only when each of its runs passed.
        #[arg(long = "report", value_name = "REPORT_JSON", required = true)]
        reports: Vec<PathBuf>,
    },
}

fn parse_value(text: &str) -> Result<(String, serde_json::Value), String> {
    let (name, value) = text
        .split_once('=')
        .ok_or_else(|| format!("'{text}' is not NAME=VALUE"))?;
    let value = serde_json::from_str(value).unwrap_or_else(|_| value.into());
    Ok((name.to_owned(), value))
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) => {
            let _ = error.print();
            return ExitCode::from(if error.use_stderr() { 3 } else { 0 });
        }
    };
    let format = cli.common.output_format;
    match run(&cli) {
        Ok(None) => ExitCode::SUCCESS,
        Ok(Some(report)) => {
            match format {
                Format::Json => report::print_json(&report),
                Format::Human if !cli.common.quiet => report.print_human(cli.common.verbose),
                Format::Human => {}
            }
            ExitCode::SUCCESS
        }
        Err(error) => {
            match format {
                Format::Json => report::print_json(&report::Failure::of(&error)),
                Format::Human => report::print_error(&error),
            }
            ExitCode::from(error.exit_code())
        }
    }
}

/// Runs the command; `None` when it printed its own output.
fn run(cli: &Cli) -> Result<Option<Report>, Error> {
    if cli.common.verbose && cli.common.quiet {
        return Err(Error::Config(
            "--verbose and --quiet cannot be used together".to_owned(),
        ));
    }
    let report = match &cli.command {
        Some(Command::Completions { shell }) => {
            let mut script = Vec::new();
            clap_complete::generate(*shell, &mut Cli::command(), "aqlgen", &mut script);
            // A closed pipe ends the output, not the program.
            let _ = std::io::Write::write_all(&mut std::io::stdout(), &script);
            return Ok(None);
        }
        Some(Command::Check { schemas, bundle }) => check(schemas, bundle.as_deref()),
        Some(Command::New {
            dir,
            from,
            name,
            placement,
        }) => new(dir, from.as_deref(), name.as_deref(), placement.policy()),
        Some(Command::ImportOpenapi {
            openapi,
            output,
            name,
            bearer_env,
        }) => {
            let options = aqlgen_build::ImportOptions {
                name: name.clone(),
                bearer_env: bearer_env.clone(),
            };
            import_openapi(openapi, output, &options)
        }
        Some(Command::Conformance(command)) => conformance(command),
        None => generate(cli),
    };
    report.map(Some)
}

/// `aqlgen SCHEMA... -o DIR`: a crate per schema.
fn generate(cli: &Cli) -> Result<Report, Error> {
    let Target::Rust = cli.target;
    let schemas: Vec<&PathBuf> = cli.schemas.iter().chain(&cli.schema_flags).collect();
    if schemas.is_empty() {
        return Err(Error::Config(
            "no schema given: aqlgen <schema.md>... -o <dir>".to_owned(),
        ));
    }
    let checked = schemas
        .iter()
        .map(|schema| aqlgen_build::check(schema))
        .collect::<Result<Vec<_>, _>>()?;
    let mut planned = Vec::new();
    if let Some(name) = &cli.bundle {
        let bundle = aqlgen_build::Bundle::new(name, &checked)?;
        let placement = location::place(
            &cli.output,
            cli.placement.policy(),
            cli.runtime_path.as_deref(),
        )?;
        let files = aqlgen_build::generate_bundle(&bundle, &placement.location)?;
        planned.push((cli.output.clone(), placement, files));
    }
    for adapter in checked.iter().filter(|_| cli.bundle.is_none()) {
        let dir = if checked.len() == 1 {
            cli.output.clone()
        } else {
            cli.output.join(&adapter.name)
        };
        let placement = location::place(&dir, cli.placement.policy(), cli.runtime_path.as_deref())?;
        let mut files = aqlgen_build::generate_crate(adapter, &placement.location)?;
        aqlgen_build::verification::carry_over(&dir, &mut files);
        planned.push((dir, placement, files));
    }
    let mut files_generated = Vec::new();
    for (dir, placement, files) in &planned {
        if !cli.dry_run {
            aqlgen_build::write_if_changed(dir, files)?;
            placement.join_workspace()?;
        }
        files_generated.extend(
            files
                .iter()
                .map(|file| dir.join(&file.path).display().to_string()),
        );
    }
    let fingerprints: Vec<&str> = checked.iter().map(|c| c.fingerprint.as_str()).collect();
    Ok(Report::Generated(report::Generated {
        success: true,
        dry_run: cli.dry_run,
        output_directory: cli.output.display().to_string(),
        files_generated,
        provenance: report::Provenance {
            schema_fingerprint: fingerprints.join(","),
            generator_version: env!("CARGO_PKG_VERSION"),
        },
        warnings: Vec::new(),
        schema_warnings: schemas
            .iter()
            .zip(&checked)
            .flat_map(|(path, checked)| report::SchemaWarning::of(path, checked))
            .collect(),
        notes: checked
            .iter()
            .flat_map(aqlgen_build::Checked::notes)
            .collect(),
    }))
}

/// `aqlgen check SCHEMA... [--bundle NAME]`.
fn check(schemas: &[PathBuf], bundle: Option<&str>) -> Result<Report, Error> {
    let mut report = report::Checked {
        success: true,
        files_generated: Vec::new(),
        schemas: Vec::new(),
        warnings: Vec::new(),
        schema_warnings: Vec::new(),
        notes: Vec::new(),
    };
    let mut all = Vec::new();
    for schema in schemas {
        let checked = aqlgen_build::check(schema)?;
        report.schemas.push(report::Fingerprint {
            schema: schema.display().to_string(),
            fingerprint: checked.fingerprint.clone(),
        });
        report.notes.extend(checked.notes());
        report
            .schema_warnings
            .extend(report::SchemaWarning::of(schema, &checked));
        all.push(checked);
    }
    if let Some(name) = bundle {
        aqlgen_build::Bundle::new(name, &all)?;
    }
    Ok(Report::Checked(report))
}

/// `aqlgen new DIR [--from SCHEMA]`.
fn new(
    dir: &Path,
    from: Option<&Path>,
    name: Option<&str>,
    policy: WorkspacePolicy,
) -> Result<Report, Error> {
    if std::fs::read_dir(dir).is_ok_and(|mut entries| entries.next().is_some()) {
        return Err(Error::Config(format!(
            "{} already exists and is not empty: `aqlgen new` creates a project in a new \
             directory",
            dir.display()
        )));
    }
    let package = match name {
        Some(name) => name.to_owned(),
        None => workspace::absolute(dir)
            .ok()
            .and_then(|dir| {
                dir.file_name()
                    .map(|name| name.to_string_lossy().into_owned())
            })
            .ok_or_else(|| {
                Error::Config(format!(
                    "{} has no directory name to name the package after; pass --name",
                    dir.display()
                ))
            })?,
    };
    let schema = match from {
        Some(path) => Some(aqlgen_build::ProjectSchema {
            file_name: path
                .file_name()
                .map(|name| name.to_string_lossy().into_owned())
                .ok_or_else(|| Error::Config(format!("{} is not a file", path.display())))?,
            text: read_text(path)?,
        }),
        None => None,
    };
    if let Some(schema) = &schema {
        // The same report a check of the file itself gives, naming the file as given.
        aqlgen_build::check_text(&path_text(from), &schema.text)?;
    }
    let placement = location::place(dir, policy, None)?;
    let project = aqlgen_build::new_project(&package, schema, placement.location.workspace)?;
    aqlgen_build::write_if_changed(dir, &project.files)?;
    placement.join_workspace()?;
    let schema_file = project
        .files
        .last()
        .map_or(String::new(), |file| file.path.clone());
    Ok(Report::Created(report::Created {
        success: true,
        output_directory: dir.display().to_string(),
        files_generated: project
            .files
            .iter()
            .map(|file| dir.join(&file.path).display().to_string())
            .collect(),
        notes: project.notes,
        next: vec![
            format!("cd {}", dir.display()),
            format!("aqlgen check {schema_file}"),
            "cargo build".to_owned(),
            format!("./target/debug/{package} --help"),
        ],
    }))
}

fn path_text(path: Option<&Path>) -> String {
    path.map(|path| path.display().to_string())
        .unwrap_or_default()
}

/// Imports `openapi`, checks the result as `aqlgen check` would, writes it to `output`.
fn import_openapi(
    openapi: &Path,
    output: &Path,
    options: &aqlgen_build::ImportOptions,
) -> Result<Report, Error> {
    let imported = aqlgen_build::import_openapi_file(openapi, options)?;
    aqlgen_build::check_text(&output.to_string_lossy(), &imported.text)?;
    write_text(output, &imported.text)?;
    Ok(Report::Imported(report::Imported {
        success: true,
        files_generated: vec![output.display().to_string()],
        operations: imported.categories.clone(),
        operations_complete: imported.completeness.complete,
        operations_losing_required: imported.completeness.losing_required,
        operations_long_running: imported.long_running,
        warnings: imported
            .warnings
            .iter()
            .map(|warning| report::ImportWarning {
                operation: warning.operation.clone(),
                reason: warning.reason.clone(),
            })
            .collect(),
        notes: vec![
            "the adapter is stamped trust level `generated`: its server runs the safe (read) \
             operations and refuses every other until you have tested it against the API and \
             raised `trust.level` (or the operator vouches with --trust-level validated)"
                .to_owned(),
        ],
    }))
}

/// `aqlgen conformance export|record`.
fn conformance(command: &Conformance) -> Result<Report, Error> {
    match command {
        Conformance::Export {
            schema,
            output,
            values,
            timeout,
            mode,
            server,
        } => {
            let checked = aqlgen_build::check(schema)?;
            let options = aqlgen_build::conformance::ExportOptions {
                server: server.clone(),
                mode: mode.map(|mode| match mode {
                    ExportMode::Crude => aqlgen_build::conformance::Mode::Crude,
                    ExportMode::Single => aqlgen_build::conformance::Mode::Single,
                }),
                values: values.iter().cloned().collect(),
                timeout: Duration::from_secs(*timeout),
                show_logs: false,
            };
            let export = aqlgen_build::conformance::export(&checked, &options)?;
            let bundle = &export.bundle;
            write_text(output, &format!("{bundle:#}\n"))?;
            let count = |key: &str| {
                bundle
                    .pointer(key)
                    .and_then(|v| v.as_array())
                    .map_or(0, Vec::len)
            };
            let summary = format!(
                "wrote {}: {} operations, {} missing-param and {} unknown-param probes, {} error \
                 tests, {} round trips, {} preservation checks; measured: field selection {}, \
                 batches {}, endpoint modes {}",
                output.display(),
                count("/introspection/operation_details"),
                count("/parameter_tests/missing_required"),
                count("/parameter_tests/unknown_parameter"),
                count("/error_tests"),
                count("/round_trip_tests"),
                count("/update_preservation_tests"),
                bundle["capabilities"]["field_selection"],
                bundle["capabilities"]["batch_operations"],
                bundle["endpoint_modes"],
            );
            Ok(Report::Conformance(report::Conformance {
                success: true,
                files_generated: vec![output.display().to_string()],
                summary,
                untested: export.untested,
                verification: None,
            }))
        }
        Conformance::Record {
            schema,
            crate_dir,
            reports,
        } => record(schema, crate_dir, reports),
    }
}

/// `aqlgen conformance record`: the verdict of `reports` into the provenance of
/// `crate_dir`, which must be exactly what `schema` generates.
fn record(schema: &Path, crate_dir: &Path, reports: &[PathBuf]) -> Result<Report, Error> {
    let checked = aqlgen_build::check(schema)?;
    let files = aqlgen_build::generate_crate(&checked, &location::existing(crate_dir)?)?;
    let stale: Vec<&str> = files
        .iter()
        .filter(|file| file.path != aqlgen_build::verification::PROVENANCE)
        .filter(|file| {
            std::fs::read(crate_dir.join(&file.path)).ok().as_deref()
                != Some(file.contents.as_bytes())
        })
        .map(|file| file.path.as_str())
        .collect();
    if !stale.is_empty() {
        return Err(Error::Config(format!(
            "{} is not what {} generates ({}): regenerate it, rebuild and rerun the \
             conformance runner before recording",
            crate_dir.display(),
            schema.display(),
            stale.join(", ")
        )));
    }
    let reports = reports
        .iter()
        .map(|path| {
            serde_json::from_str(&read_text(path)?)
                .map_err(|error| Error::Config(format!("{} is not JSON: {error}", path.display())))
        })
        .collect::<Result<Vec<serde_json::Value>, _>>()?;
    let verdict = aqlgen_build::verification::verdict(
        &aqlgen_build::verification::hash_of(&files),
        &reports,
    )?;
    let provenance = files
        .iter()
        .find(|file| file.path == aqlgen_build::verification::PROVENANCE)
        .map(|file| aqlgen_build::verification::with(&file.contents, &verdict))
        .unwrap_or_default();
    let path = crate_dir.join(aqlgen_build::verification::PROVENANCE);
    write_text(&path, &provenance)?;
    let summary = format!(
        "recorded conformance {} (level {}) in {}",
        verdict["conformance_result"].as_str().unwrap_or_default(),
        verdict["conformance_level"],
        path.display()
    );
    Ok(Report::Conformance(report::Conformance {
        success: true,
        files_generated: vec![path.display().to_string()],
        summary,
        untested: Vec::new(),
        verification: Some(verdict),
    }))
}

fn read_text(path: &Path) -> Result<String, Error> {
    std::fs::read_to_string(path).map_err(|source| Error::Io {
        action: format!("reading {}", path.display()),
        source,
    })
}

fn write_text(path: &Path, text: &str) -> Result<(), Error> {
    std::fs::write(path, text).map_err(|source| Error::Io {
        action: format!("writing {}", path.display()),
        source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_command_line_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn placement_flags_pick_one_policy() {
        let policy = |args: &[&str]| {
            let mut argv = vec!["aqlgen", "x.md"];
            argv.extend(args);
            Cli::try_parse_from(argv).map(|cli| cli.placement.policy())
        };
        assert_eq!(policy(&[]).ok(), Some(WorkspacePolicy::Refuse));
        assert_eq!(
            policy(&["--join-workspace"]).ok(),
            Some(WorkspacePolicy::Join)
        );
        assert_eq!(
            policy(&["--standalone"]).ok(),
            Some(WorkspacePolicy::Standalone)
        );
        assert!(policy(&["--standalone", "--join-workspace"]).is_err());
    }
}
