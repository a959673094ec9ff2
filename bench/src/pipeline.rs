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
    /// The release `aqlgen` that imported and generated it.
    pub aqlgen: PathBuf,
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
    /// Build times of the generated crate; `None` when an earlier binary was reused and its
    /// times are unknown.
    pub builds: Option<BuildTimes>,
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
    // The crate takes this checkout's runtime, not the registry's.
    let runtime = root.join("runtime-support");
    let mut generate = Command::new(&aqlgen);
    generate
        .arg(&schema)
        .arg("-o")
        .arg(&crate_dir)
        .arg("--runtime-path")
        .arg(&runtime)
        .arg("--quiet");
    eprintln!("bench: generate, {GENERATOR_RUNS} timed runs");
    let generate_secs = time_median(&mut generate)?;

    let bin_name = binary_name(&std::fs::read_to_string(crate_dir.join("Cargo.toml"))?)?;
    let base_url_env = base_url_env(&std::fs::read_to_string(crate_dir.join("README.md"))?)?;
    let target_dir = work.join("target-full");
    let binary = target_dir.join("release").join(&bin_name);
    let build_record = work.join("build-seconds.txt");
    let build_reused = reuse_build && binary.exists();
    let builds = if build_reused {
        eprintln!("bench: reusing {}", binary.display());
        std::fs::read_to_string(&build_record)
            .ok()
            .and_then(|text| BuildTimes::parse(&text))
    } else {
        let builds = BuildTimes::measure(&aqlgen, &runtime, &schema, &crate_dir, &target_dir)?;
        std::fs::write(&build_record, builds.record())?;
        Some(builds)
    };
    let binary_bytes = std::fs::metadata(&binary)
        .with_context(|| format!("no binary at {}", binary.display()))?
        .len();
    Ok(Built {
        aqlgen,
        openapi,
        operations,
        import_secs,
        generate_secs,
        bearer_auth,
        builds,
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

/// `cargo build --release -p aqlgen-cli` in the checkout; returns the binary.
fn build_aqlgen(root: &Path) -> anyhow::Result<PathBuf> {
    eprintln!("bench: cargo build --release -p aqlgen-cli");
    run_checked(
        Command::new("cargo")
            .args(["build", "--release", "--quiet", "-p", "aqlgen-cli"])
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
/// Build times of the generated crate, in seconds: cold (dependencies included, from an empty
/// target directory) and incremental (after a one-operation schema change, regenerated,
/// dependencies already built), for each profile; release also with Cargo's incremental
/// compilation switched on, as one would while iterating on a schema.
#[derive(Debug, Clone, Copy)]
pub struct BuildTimes {
    pub release_cold: f64,
    pub release_incremental: f64,
    /// The release rebuild with `CARGO_PROFILE_RELEASE_INCREMENTAL=true`.
    pub release_incremental_cached: f64,
    pub debug_cold: f64,
    pub debug_incremental: f64,
}

/// The operation whose description the incremental builds change.
const EDITED_LINE: &str = "    description: Get a repository\n";

impl BuildTimes {
    /// Builds release cold, then release after a one-operation change and after its undo (the
    /// incremental figure is their mean), the same pair with incremental compilation on, then
    /// debug cold and its pair. The release binary left behind is the unchanged schema's,
    /// built with the default profile.
    fn measure(
        aqlgen: &Path,
        runtime: &Path,
        schema: &Path,
        crate_dir: &Path,
        target_dir: &Path,
    ) -> anyhow::Result<BuildTimes> {
        if target_dir.exists() {
            std::fs::remove_dir_all(target_dir)?;
        }
        let original = std::fs::read_to_string(schema)?;
        if !original.contains(EDITED_LINE) {
            bail!("{} has no line {EDITED_LINE:?} to edit", schema.display());
        }
        let edited = original.replacen(EDITED_LINE, "    description: Get one repository\n", 1);
        let regenerate = |text: &str| -> anyhow::Result<()> {
            std::fs::write(schema, text)?;
            run_checked(
                Command::new(aqlgen)
                    .arg(schema)
                    .arg("-o")
                    .arg(crate_dir)
                    .arg("--runtime-path")
                    .arg(runtime)
                    .arg("--quiet"),
            )
        };
        // The mean of a build after the change and one after its undo.
        let one_change = |build: &dyn Fn() -> anyhow::Result<f64>| -> anyhow::Result<f64> {
            let mut secs = 0.0;
            for text in [&edited, &original] {
                regenerate(text)?;
                secs += build()? / 2.0;
            }
            Ok(secs)
        };
        let release =
            |incremental: bool| build(crate_dir, target_dir, Profile::Release, incremental);
        let debug = || build(crate_dir, target_dir, Profile::Debug, false);

        eprintln!("bench: cold release build of the generated crate (minutes)");
        let release_cold = release(false)?;
        eprintln!("bench: release builds after a one-operation change and its undo");
        let release_incremental = one_change(&|| release(false))?;
        eprintln!("bench: the same with incremental compilation, then the default again");
        release(true)?;
        let release_incremental_cached = one_change(&|| release(true))?;
        release(false)?;
        eprintln!("bench: cold debug build, then after a one-operation change and its undo");
        let debug_cold = debug()?;
        let debug_incremental = one_change(&debug)?;
        Ok(BuildTimes {
            release_cold,
            release_incremental,
            release_incremental_cached,
            debug_cold,
            debug_incremental,
        })
    }

    /// The figures on one line, as [`BuildTimes::parse`] reads them.
    fn record(&self) -> String {
        format!(
            "{:.1} {:.1} {:.1} {:.1} {:.1}\n",
            self.release_cold,
            self.release_incremental,
            self.release_incremental_cached,
            self.debug_cold,
            self.debug_incremental
        )
    }

    fn parse(text: &str) -> Option<BuildTimes> {
        let figures: Vec<f64> = text
            .split_whitespace()
            .map(str::parse)
            .collect::<Result<_, _>>()
            .ok()?;
        let [
            release_cold,
            release_incremental,
            release_incremental_cached,
            debug_cold,
            debug_incremental,
        ] = figures.try_into().ok()?;
        Some(BuildTimes {
            release_cold,
            release_incremental,
            release_incremental_cached,
            debug_cold,
            debug_incremental,
        })
    }
}

#[derive(Debug, Clone, Copy)]
enum Profile {
    Release,
    Debug,
}

/// One timed `cargo build` of the generated crate, with Cargo's incremental compilation on
/// when `incremental`; the release binary is stripped, as shipped.
fn build(
    crate_dir: &Path,
    target_dir: &Path,
    profile: Profile,
    incremental: bool,
) -> anyhow::Result<f64> {
    let mut cargo = Command::new("cargo");
    cargo.args(["build", "--quiet"]);
    if let Profile::Release = profile {
        cargo.arg("--release");
    }
    cargo
        .arg("--manifest-path")
        .arg(crate_dir.join("Cargo.toml"))
        .env("CARGO_TARGET_DIR", target_dir)
        .env("CARGO_PROFILE_RELEASE_STRIP", "symbols")
        .env(
            "CARGO_PROFILE_RELEASE_INCREMENTAL",
            if incremental { "true" } else { "false" },
        );
    let started = Instant::now();
    run_checked(&mut cargo)?;
    Ok(started.elapsed().as_secs_f64())
}

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
