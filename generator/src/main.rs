//! The `aqlgen` command line: parse arguments, call the library, render diagnostics, exit
//! with the code of REQ-GEN-8.

use std::path::{Component, Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use serde_json::json;

/// Compiles MCP-AQL adapter schemas into typed Rust MCP server crates.
#[derive(Debug, Parser)]
#[command(name = "aqlgen", version, args_conflicts_with_subcommands = true)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// Adapter schema files (Markdown with YAML front matter).
    #[arg(value_name = "SCHEMA")]
    schemas: Vec<PathBuf>,
    /// Schema file; the spec's spelling of the positional argument.
    #[arg(short = 's', long = "schema", value_name = "SCHEMA")]
    schema_flags: Vec<PathBuf>,
    /// Output directory; with several schemas, each crate goes in `<dir>/<name>`.
    #[arg(short, long, default_value = "generated")]
    output: PathBuf,
    /// Target language; only `rust` is generated.
    #[arg(short, long, default_value = "rust")]
    target: String,
    /// List what would be written without writing.
    #[arg(long)]
    dry_run: bool,
    #[command(flatten)]
    common: Common,
}

#[derive(Debug, clap::Args)]
struct Common {
    /// `human` or `json` (REQ-GEN-9).
    #[arg(long, value_enum, default_value = "human", global = true)]
    output_format: Format,
    /// More output.
    #[arg(short, long, global = true)]
    verbose: bool,
    /// Errors only.
    #[arg(short, long, global = true)]
    quiet: bool,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Validate schemas without writing anything.
    Check {
        /// Adapter schema files.
        #[arg(required = true)]
        schemas: Vec<PathBuf>,
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
        /// The adapter's command line; it must serve MCP on stdio.
        #[arg(last = true, required = true, value_name = "SERVER")]
        server: Vec<std::ffi::OsString>,
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
        /// level run.
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

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    Human,
    Json,
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
        Ok(Report { json, warnings }) => {
            match format {
                Format::Json => println!("{json:#}"),
                Format::Human if !cli.common.quiet => {
                    for warning in &warnings {
                        eprintln!("{warning}");
                    }
                    print_human(&json, cli.common.verbose);
                }
                Format::Human => {}
            }
            ExitCode::SUCCESS
        }
        Err(error) => {
            match format {
                Format::Json => println!("{:#}", failure_json(&error)),
                Format::Human => eprintln!("{error}"),
            }
            ExitCode::from(error.exit_code())
        }
    }
}

/// Imports `openapi`, checks the result as `aqlgen check` would, writes it to `output`.
fn import_openapi(
    openapi: &Path,
    output: &Path,
    options: &aqlgen::ImportOptions,
) -> Result<serde_json::Value, aqlgen::Error> {
    let imported = aqlgen::import_openapi_file(openapi, options)?;
    aqlgen::check_text(&output.to_string_lossy(), &imported.text)?;
    let notes = [
        "the adapter is stamped trust level `generated`: its server runs the safe (read) \
         operations and refuses every other until you have tested it against the API and \
         raised `trust.level` (or the operator vouches with --trust-level validated)",
    ];
    std::fs::write(output, &imported.text).map_err(|source| aqlgen::Error::Io {
        action: format!("writing {}", output.display()),
        source,
    })?;
    let warnings: Vec<serde_json::Value> = imported
        .warnings
        .iter()
        .map(|warning| json!({"operation": warning.operation, "reason": warning.reason}))
        .collect();
    Ok(json!({
        "success": true,
        "files_generated": [output.display().to_string()],
        "operations": imported.categories,
        "warnings": warnings,
        "notes": notes,
    }))
}

fn read_json(path: &Path) -> Result<serde_json::Value, aqlgen::Error> {
    let text = std::fs::read_to_string(path).map_err(|source| aqlgen::Error::Io {
        action: format!("reading {}", path.display()),
        source,
    })?;
    serde_json::from_str(&text)
        .map_err(|error| aqlgen::Error::Config(format!("{} is not JSON: {error}", path.display())))
}

fn write_text(path: &Path, text: &str) -> Result<(), aqlgen::Error> {
    std::fs::write(path, text).map_err(|source| aqlgen::Error::Io {
        action: format!("writing {}", path.display()),
        source,
    })
}

/// `aqlgen conformance export|record`.
fn conformance(command: &Conformance) -> Result<serde_json::Value, aqlgen::Error> {
    match command {
        Conformance::Export {
            schema,
            output,
            values,
            timeout,
            server,
        } => {
            let checked = aqlgen::check(schema)?;
            let options = aqlgen::conformance::ExportOptions {
                server: server.clone(),
                values: values.iter().cloned().collect(),
                timeout: std::time::Duration::from_secs(*timeout),
                show_logs: false,
            };
            let bundle = aqlgen::conformance::export(&checked, &options)?;
            write_text(output, &format!("{bundle:#}\n"))?;
            let count = |key: &str| {
                bundle
                    .pointer(key)
                    .and_then(|v| v.as_array())
                    .map_or(0, Vec::len)
            };
            let summary = format!(
                "wrote {}: {} operations, {} missing-param and {} unknown-param probes, {} error \
                 tests, {} round trips, {} preservation checks",
                output.display(),
                count("/introspection/operation_details"),
                count("/parameter_tests/missing_required"),
                count("/parameter_tests/unknown_parameter"),
                count("/error_tests"),
                count("/round_trip_tests"),
                count("/update_preservation_tests"),
            );
            Ok(
                json!({"success": true, "files_generated": [output.display().to_string()], "summary": summary}),
            )
        }
        Conformance::Record {
            schema,
            crate_dir,
            reports,
        } => {
            let checked = aqlgen::check(schema)?;
            let location = aqlgen::CrateLocation {
                runtime_path: runtime_path_from(crate_dir)?,
                workspace_lints: in_workspace_with_lints(crate_dir),
            };
            let files = aqlgen::generate_crate(&checked, &location)?;
            let stale: Vec<&str> = files
                .iter()
                .filter(|file| file.path != aqlgen::verification::PROVENANCE)
                .filter(|file| {
                    std::fs::read(crate_dir.join(&file.path)).ok().as_deref()
                        != Some(file.contents.as_bytes())
                })
                .map(|file| file.path.as_str())
                .collect();
            if !stale.is_empty() {
                return Err(aqlgen::Error::Config(format!(
                    "{} is not what {} generates ({}): regenerate it, rebuild and rerun the \
                     conformance runner before recording",
                    crate_dir.display(),
                    schema.display(),
                    stale.join(", ")
                )));
            }
            let reports = reports
                .iter()
                .map(|path| read_json(path))
                .collect::<Result<Vec<_>, _>>()?;
            let verdict =
                aqlgen::verification::verdict(&aqlgen::verification::hash_of(&files), &reports)?;
            let provenance = files
                .iter()
                .find(|file| file.path == aqlgen::verification::PROVENANCE)
                .map(|file| aqlgen::verification::with(&file.contents, &verdict))
                .unwrap_or_default();
            let path = crate_dir.join(aqlgen::verification::PROVENANCE);
            write_text(&path, &provenance)?;
            let summary = format!(
                "recorded conformance {} (level {}) in {}",
                verdict["conformance_result"].as_str().unwrap_or_default(),
                verdict["conformance_level"],
                path.display()
            );
            Ok(json!({
                "success": true,
                "files_generated": [path.display().to_string()],
                "verification": verdict,
                "summary": summary,
            }))
        }
    }
}

/// A line per checked schema, or a summary of the files written (each file with `-v`).
fn print_human(report: &serde_json::Value, verbose: bool) {
    if let Some(summary) = report["summary"].as_str() {
        println!("{summary}");
        return;
    }
    for warning in report["warnings"].as_array().into_iter().flatten() {
        eprintln!(
            "warning: {}: {}",
            warning["operation"].as_str().unwrap_or_default(),
            warning["reason"].as_str().unwrap_or_default()
        );
    }
    for note in report["notes"].as_array().into_iter().flatten() {
        eprintln!("note: {}", note.as_str().unwrap_or_default());
    }
    if let Some(operations) = report["operations"].as_object() {
        let counts: Vec<String> = operations
            .iter()
            .map(|(category, count)| format!("{category} {count}"))
            .collect();
        println!(
            "wrote {} ({}; {} warnings)",
            report["files_generated"][0].as_str().unwrap_or_default(),
            counts.join(", "),
            report["warnings"].as_array().map_or(0, Vec::len)
        );
        return;
    }
    for schema in report["schemas"].as_array().into_iter().flatten() {
        println!(
            "ok: {} ({})",
            schema["schema"].as_str().unwrap_or_default(),
            schema["fingerprint"].as_str().unwrap_or_default()
        );
    }
    let Some(files) = report["files_generated"]
        .as_array()
        .filter(|files| !files.is_empty())
    else {
        return;
    };
    if verbose {
        for file in files {
            println!("{}", file.as_str().unwrap_or_default());
        }
    }
    let verb = if report["dry_run"] == true {
        "would write"
    } else {
        "wrote"
    };
    println!(
        "{verb} {} files to {} ({})",
        files.len(),
        report["output_directory"].as_str().unwrap_or_default(),
        report["provenance"]["schema_fingerprint"]
            .as_str()
            .unwrap_or_default()
    );
}

/// What a successful run says: the JSON report (REQ-GEN-9), and the schema warnings as a
/// terminal shows them.
struct Report {
    json: serde_json::Value,
    warnings: Vec<String>,
}

impl Report {
    fn new(json: serde_json::Value) -> Self {
        Self {
            json,
            warnings: Vec::new(),
        }
    }
}

/// The schema warnings of `checked`: rendered for a terminal, and as JSON objects.
fn schema_warnings(
    path: &Path,
    checked: &aqlgen::Checked,
) -> (Vec<String>, Vec<serde_json::Value>) {
    let display = path.display().to_string();
    checked
        .warnings
        .iter()
        .map(|warning| {
            let mut json = warning.to_json();
            json["schema"] = display.clone().into();
            (warning.render(&display), json)
        })
        .unzip()
}

fn run(cli: &Cli) -> Result<Report, aqlgen::Error> {
    if cli.common.verbose && cli.common.quiet {
        return Err(aqlgen::Error::Config(
            "--verbose and --quiet cannot be used together".to_owned(),
        ));
    }
    if let Some(Command::ImportOpenapi {
        openapi,
        output,
        name,
        bearer_env,
    }) = &cli.command
    {
        let options = aqlgen::ImportOptions {
            name: name.clone(),
            bearer_env: bearer_env.clone(),
        };
        return import_openapi(openapi, output, &options).map(Report::new);
    }
    if let Some(Command::Conformance(command)) = &cli.command {
        return conformance(command).map(Report::new);
    }
    if let Some(Command::Check { schemas }) = &cli.command {
        let mut fingerprints = Vec::new();
        let mut notes = Vec::new();
        let (mut rendered, mut warnings) = (Vec::new(), Vec::new());
        for schema in schemas {
            let checked = aqlgen::check(schema)?;
            fingerprints.push(
                json!({"schema": schema.display().to_string(), "fingerprint": checked.fingerprint}),
            );
            notes.extend(checked.notes());
            let (text, json) = schema_warnings(schema, &checked);
            rendered.extend(text);
            warnings.extend(json);
        }
        return Ok(Report {
            json: json!({"success": true, "files_generated": [], "schemas": fingerprints, "warnings": [], "schema_warnings": warnings, "notes": notes}),
            warnings: rendered,
        });
    }
    if cli.target != "rust" {
        return Err(aqlgen::Error::Config(format!(
            "target `{}` is not supported: only `rust` is generated",
            cli.target
        )));
    }
    let schemas: Vec<&PathBuf> = cli.schemas.iter().chain(&cli.schema_flags).collect();
    if schemas.is_empty() {
        return Err(aqlgen::Error::Config(
            "no schema given: aqlgen <schema.md>... -o <dir>".to_owned(),
        ));
    }
    let checked = schemas
        .iter()
        .map(|schema| aqlgen::check(schema))
        .collect::<Result<Vec<_>, _>>()?;
    let (mut rendered, mut schema_warnings_json) = (Vec::new(), Vec::new());
    for (schema, adapter) in schemas.iter().zip(&checked) {
        let (text, json) = schema_warnings(schema, adapter);
        rendered.extend(text);
        schema_warnings_json.extend(json);
    }
    let mut files_generated = Vec::new();
    let mut fingerprints = Vec::new();
    let notes: Vec<String> = checked.iter().flat_map(aqlgen::Checked::notes).collect();
    for adapter in &checked {
        let dir = if checked.len() == 1 {
            cli.output.clone()
        } else {
            cli.output.join(&adapter.name)
        };
        let location = aqlgen::CrateLocation {
            runtime_path: runtime_path_from(&dir)?,
            workspace_lints: in_workspace_with_lints(&dir),
        };
        let mut files = aqlgen::generate_crate(adapter, &location)?;
        aqlgen::verification::carry_over(&dir, &mut files);
        if !cli.dry_run {
            aqlgen::write_if_changed(&dir, &files)?;
        }
        files_generated.extend(
            files
                .iter()
                .map(|file| dir.join(&file.path).display().to_string()),
        );
        fingerprints.push(adapter.fingerprint.clone());
    }
    Ok(Report {
        json: json!({
            "success": true,
            "dry_run": cli.dry_run,
            "output_directory": cli.output.display().to_string(),
            "files_generated": files_generated,
            "provenance": {"schema_fingerprint": fingerprints.join(","), "generator_version": env!("CARGO_PKG_VERSION")},
            "warnings": [],
            "schema_warnings": schema_warnings_json,
            "notes": notes,
        }),
        warnings: rendered,
    })
}

fn failure_json(error: &aqlgen::Error) -> serde_json::Value {
    let details: Vec<serde_json::Value> = match error {
        aqlgen::Error::Schema { diagnostics, .. } => diagnostics
            .iter()
            .map(aqlgen::Diagnostic::to_json)
            .collect(),
        _ => Vec::new(),
    };
    json!({
        "success": false,
        "error": {"code": error.exit_code(), "type": error.kind(), "message": error.summary(), "details": details},
    })
}

/// Whether `out_dir` sits in a Cargo workspace that declares `[workspace.lints]`: a crate
/// there must be a member of that workspace, and then inherits its lints. As Cargo does, a
/// workspace whose `exclude` covers the directory is passed over for the next one up.
fn in_workspace_with_lints(out_dir: &Path) -> bool {
    let start = std::env::current_dir()
        .map(|cwd| cwd.join(out_dir))
        .unwrap_or_else(|_| out_dir.to_path_buf());
    for dir in start.ancestors().skip(1) {
        let Ok(manifest) = std::fs::read_to_string(dir.join("Cargo.toml")) else {
            continue;
        };
        if !manifest.contains("[workspace]") {
            continue;
        }
        let excluded = workspace_excludes(&manifest)
            .iter()
            .any(|excluded| start.starts_with(dir.join(excluded)));
        if !excluded {
            return manifest.contains("[workspace.lints");
        }
    }
    false
}

/// The paths of a workspace manifest's `exclude = [...]` in its `[workspace]` table, read as
/// quoted strings.
fn workspace_excludes(manifest: &str) -> Vec<String> {
    let table: Vec<&str> = manifest
        .lines()
        .skip_while(|line| line.trim() != "[workspace]")
        .skip(1)
        .take_while(|line| !line.trim_start().starts_with("[workspace.") && !line.starts_with('['))
        .collect();
    let Some(at) = table
        .iter()
        .position(|line| line.trim_start().starts_with("exclude"))
    else {
        return Vec::new();
    };
    let rest = table[at..].join("\n");
    let inside = rest
        .split_once('[')
        .and_then(|(_, list)| list.split_once(']'))
        .map_or("", |(inside, _)| inside);
    inside
        .split('"')
        .skip(1)
        .step_by(2)
        .map(str::to_owned)
        .collect()
}

/// runtime-support's directory relative to `out_dir`, `/`-separated.
fn runtime_path_from(out_dir: &Path) -> Result<String, aqlgen::Error> {
    let runtime = Path::new(env!("CARGO_MANIFEST_DIR")).join("../runtime-support");
    let absolute = |path: &Path| -> Result<PathBuf, aqlgen::Error> {
        let joined = if path.is_absolute() {
            path.to_path_buf()
        } else {
            std::env::current_dir()
                .map_err(|source| aqlgen::Error::Io {
                    action: "reading the current directory".to_owned(),
                    source,
                })?
                .join(path)
        };
        let mut clean = PathBuf::new();
        for component in joined.components() {
            match component {
                Component::ParentDir => {
                    clean.pop();
                }
                Component::CurDir => {}
                other => clean.push(other),
            }
        }
        Ok(clean)
    };
    let (from, to) = (absolute(out_dir)?, absolute(&runtime)?);
    let common = from
        .components()
        .zip(to.components())
        .take_while(|(a, b)| a == b)
        .count();
    let ups = from.components().count() - common;
    let parts: Vec<String> = std::iter::repeat_n("..".to_owned(), ups)
        .chain(
            to.components()
                .skip(common)
                .map(|c| c.as_os_str().to_string_lossy().into_owned()),
        )
        .collect();
    Ok(parts.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn excluded_directories_are_in_no_workspace() {
        let root = tempfile::tempdir().expect("a temp dir");
        let write = |path: &str, text: &str| {
            let path = root.path().join(path);
            std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
            std::fs::write(path, text).expect("write");
        };
        write(
            "Cargo.toml",
            "[workspace]\nmembers = [\"a\"]\nexclude = [\"bench\"]\n[workspace.lints.rust]\n",
        );
        write(
            "bench/Cargo.toml",
            "[workspace]\nexclude = [\n  \"work\",\n]\n",
        );
        assert!(in_workspace_with_lints(&root.path().join("a/x")));
        assert!(!in_workspace_with_lints(&root.path().join("bench/work/x")));
        assert!(!in_workspace_with_lints(&root.path().join("bench/x")));
        assert_eq!(
            workspace_excludes("[package]\nexclude = [\"p\"]\n[workspace]\nmembers = [\"m\"]"),
            Vec::<String>::new()
        );
    }
}
