//! From GitHub's OpenAPI description to a stripped server binary: fetch, import, generate,
//! build, each step timed.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use anyhow::{Context as _, bail};

use crate::measure::median;

/// The npm package that ships GitHub's REST description, and the file used.
const OPENAPI_PACKAGE: &str = "@octokit/openapi@23.0.2";
const OPENAPI_FILE: &str = "package/generated/api.github.com.json";

/// Timed runs of the import and of the generation; the median is reported.
const GENERATOR_RUNS: usize = 5;

/// What the pipeline produced and how long it took.
#[derive(Debug, Clone)]
pub struct Built {
    /// GitHub's OpenAPI document.
    pub openapi: PathBuf,
    /// Operations per category, in the schema's order, and their total.
    pub operations: Vec<(String, usize)>,
    /// Median seconds of `aqlgen import-openapi`.
    pub import_secs: f64,
    /// Median seconds of `aqlgen <schema> -o <dir>`.
    pub generate_secs: f64,
    /// Whether the import declared bearer auth from `GITHUB_TOKEN`.
    pub bearer_auth: bool,
    /// Cold release build seconds; `None` when an earlier binary was reused and its time
    /// is unknown.
    pub build_secs: Option<f64>,
    /// Whether the build was reused from an earlier run.
    pub build_reused: bool,
    /// The stripped server binary and its size.
    pub binary: PathBuf,
    /// Size of `binary` in bytes.
    pub binary_bytes: u64,
    /// The environment variable that overrides the upstream base URL.
    pub base_url_env: String,
}

impl Built {
    /// The total of all categories.
    pub fn total_operations(&self) -> usize {
        self.operations.iter().map(|(_, count)| count).sum()
    }
}

/// Runs the pipeline in `work` for the checkout at `root`.
pub fn run(root: &Path, work: &Path, reuse_build: bool) -> anyhow::Result<Built> {
    std::fs::create_dir_all(work)?;
    let openapi = fetch_openapi(work)?;
    let aqlgen = build_aqlgen(root)?;

    let schema = work.join("github-full.md");
    let import_help = import_help(&aqlgen)?;
    let bearer_auth = import_help.contains("--bearer-env");
    let mut import = Command::new(&aqlgen);
    import.arg("import-openapi").arg(&openapi);
    if bearer_auth {
        import.args(["--bearer-env", "GITHUB_TOKEN"]);
    }
    if import_help.contains("--name") {
        import.args(["--name", "github"]);
    }
    import.arg("-o").arg(&schema).arg("--quiet");
    eprintln!("bench: import-openapi, {GENERATOR_RUNS} timed runs");
    let import_secs = time_median(&mut import)?;
    let operations = count_operations(&std::fs::read_to_string(&schema)?);

    let crate_dir = work.join("github-full");
    let mut generate = Command::new(&aqlgen);
    generate
        .arg(&schema)
        .arg("-o")
        .arg(&crate_dir)
        .arg("--quiet");
    eprintln!("bench: generate, {GENERATOR_RUNS} timed runs");
    let generate_secs = time_median(&mut generate)?;

    let bin_name = binary_name(&std::fs::read_to_string(crate_dir.join("Cargo.toml"))?)?;
    let base_url_env = base_url_env(&std::fs::read_to_string(crate_dir.join("README.md"))?)?;
    let target_dir = work.join("target-full");
    let binary = target_dir.join("release").join(&bin_name);
    let build_record = work.join("build-seconds.txt");
    let build_reused = reuse_build && binary.exists();
    let build_secs = if build_reused {
        eprintln!("bench: reusing {}", binary.display());
        std::fs::read_to_string(&build_record)
            .ok()
            .and_then(|text| text.trim().parse().ok())
    } else {
        let secs = cold_build(&crate_dir, &target_dir)?;
        std::fs::write(&build_record, format!("{secs:.1}\n"))?;
        Some(secs)
    };
    let binary_bytes = std::fs::metadata(&binary)
        .with_context(|| format!("no binary at {}", binary.display()))?
        .len();
    Ok(Built {
        openapi,
        operations,
        import_secs,
        generate_secs,
        bearer_auth,
        build_secs,
        build_reused,
        binary,
        binary_bytes,
        base_url_env,
    })
}

/// GitHub's REST description from npm, packed and unpacked once into `work/openapi`.
fn fetch_openapi(work: &Path) -> anyhow::Result<PathBuf> {
    let dir = work.join("openapi");
    let file = dir.join(OPENAPI_FILE);
    if file.exists() {
        return Ok(file);
    }
    std::fs::create_dir_all(&dir)?;
    eprintln!("bench: npm pack {OPENAPI_PACKAGE}");
    let packed = Command::new("npm")
        .args(["pack", OPENAPI_PACKAGE, "--silent", "--pack-destination"])
        .arg(&dir)
        .output()
        .context("running npm (is Node.js installed?)")?;
    if !packed.status.success() {
        bail!(
            "npm pack failed: {}",
            String::from_utf8_lossy(&packed.stderr)
        );
    }
    let tarball = String::from_utf8(packed.stdout)?.trim().to_owned();
    run_checked(
        Command::new("tar")
            .arg("-xzf")
            .arg(dir.join(&tarball))
            .arg("-C")
            .arg(&dir)
            .arg(OPENAPI_FILE),
    )?;
    Ok(file)
}

/// `cargo build --release -p aqlgen` in the checkout; returns the binary.
fn build_aqlgen(root: &Path) -> anyhow::Result<PathBuf> {
    eprintln!("bench: cargo build --release -p aqlgen");
    run_checked(
        Command::new("cargo")
            .args(["build", "--release", "--quiet", "-p", "aqlgen"])
            .current_dir(root),
    )?;
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target"));
    Ok(root.join(target).join("release").join("aqlgen"))
}

/// `aqlgen import-openapi --help`, to pass only the flags this aqlgen has (`--bearer-env`
/// declares bearer auth, `--name` names the adapter).
fn import_help(aqlgen: &Path) -> anyhow::Result<String> {
    let help = Command::new(aqlgen)
        .args(["import-openapi", "--help"])
        .output()?;
    Ok(String::from_utf8_lossy(&help.stdout).into_owned())
}

/// Release build of the generated crate from an empty target directory (dependencies
/// included), symbols stripped; returns the seconds it took.
fn cold_build(crate_dir: &Path, target_dir: &Path) -> anyhow::Result<f64> {
    if target_dir.exists() {
        std::fs::remove_dir_all(target_dir)?;
    }
    eprintln!("bench: cold release build of the generated crate (minutes)");
    let started = Instant::now();
    run_checked(
        Command::new("cargo")
            .args(["build", "--release", "--quiet", "--manifest-path"])
            .arg(crate_dir.join("Cargo.toml"))
            .env("CARGO_TARGET_DIR", target_dir)
            .env("CARGO_PROFILE_RELEASE_STRIP", "symbols"),
    )?;
    Ok(started.elapsed().as_secs_f64())
}

/// The median wall-clock seconds of `GENERATOR_RUNS` runs of `command`.
fn time_median(command: &mut Command) -> anyhow::Result<f64> {
    let mut secs = Vec::with_capacity(GENERATOR_RUNS);
    for _ in 0..GENERATOR_RUNS {
        let started = Instant::now();
        run_checked(command)?;
        secs.push(started.elapsed().as_secs_f64());
    }
    Ok(median(&mut secs))
}

fn run_checked(command: &mut Command) -> anyhow::Result<()> {
    let output = command
        .output()
        .with_context(|| format!("running {command:?}"))?;
    if !output.status.success() {
        bail!(
            "{command:?} failed ({}): {}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        );
    }
    Ok(())
}

/// Operations per category of an adapter schema's front matter, counted from its
/// `operations:` block: a category key at two spaces, an entry per `- name:` below it.
pub fn count_operations(schema: &str) -> Vec<(String, usize)> {
    let mut counts: Vec<(String, usize)> = Vec::new();
    let mut inside = false;
    for line in schema.lines().skip(1) {
        if line == "---" {
            break;
        }
        if !line.starts_with(' ') {
            inside = line.trim_end() == "operations:";
            continue;
        }
        if !inside {
            continue;
        }
        if let Some(category) = line
            .strip_prefix("  ")
            .and_then(|rest| rest.strip_suffix(':'))
            && !category.starts_with([' ', '-'])
        {
            counts.push((category.to_owned(), 0));
        } else if line.starts_with("  - name:")
            && let Some((_, count)) = counts.last_mut()
        {
            *count += 1;
        }
    }
    counts
}

/// The `[[bin]]` name of a generated Cargo.toml.
fn binary_name(manifest: &str) -> anyhow::Result<String> {
    let bin = manifest
        .split("[[bin]]")
        .nth(1)
        .context("generated Cargo.toml has no [[bin]]")?;
    bin.lines()
        .find_map(|line| line.trim().strip_prefix("name = "))
        .map(|name| name.trim_matches('"').to_owned())
        .context("[[bin]] without a name")
}

/// The base-URL variable a generated README documents (the first `` `..._BASE_URL` ``).
fn base_url_env(readme: &str) -> anyhow::Result<String> {
    readme
        .split('`')
        .find(|word| word.ends_with("_BASE_URL") && !word.contains(' '))
        .map(str::to_owned)
        .context("the generated README names no *_BASE_URL variable")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_operations_per_category() {
        let schema = "---\nname: x\noperations:\n  read:\n  - name: a\n    params:\n      \
                      name:\n        type: string\n  - name: b\n  delete:\n  - name: c\n---\n# x\n";
        assert_eq!(
            count_operations(schema),
            [("read".to_owned(), 2), ("delete".to_owned(), 1)]
        );
    }

    #[test]
    fn reads_names_from_generated_files() {
        let manifest =
            "[package]\nname = \"a\"\n[[bin]]\nname = \"a-adapter\"\npath = \"src/main.rs\"\n";
        assert_eq!(binary_name(manifest).unwrap(), "a-adapter");
        let readme = "| `GITHUB_BASE_URL` | overrides the base URL `https://api.github.com` |";
        assert_eq!(base_url_env(readme).unwrap(), "GITHUB_BASE_URL");
    }
}
