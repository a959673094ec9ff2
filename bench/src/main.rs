//! `scripts/bench`: imports GitHub's REST description, builds the full adapter, measures it
//! and its peers, and writes the figures between the markers of docs/benchmarks.md (the full
//! results, the shaping, cache, bundle and fleet tables) and README.md (the summary table).
//!
//! ```text
//! scripts/bench [--reuse-build] [--skip-peers] [--shaping-only] [--cache-only] [--bundle-only] [--fleet-only] [--print-only] [--quick]
//! ```

mod agent;
mod bundle;
mod cache;
mod client;
mod figures;
mod fleet;
mod measure;
mod ours;
mod peers;
mod pipeline;
mod proc;
mod report;
mod shaping;
mod tasks;
mod tokens;

use std::path::{Path, PathBuf};

use anyhow::{Context as _, bail};

use crate::figures::Figures;

const USAGE: &str = "usage: scripts/bench [--reuse-build] [--skip-peers] [--shaping-only] [--cache-only] [--bundle-only] [--fleet-only] [--print-only] [--quick]

Writes the full results, the shaping table and the fleet table between their markers in
docs/benchmarks.md, and the summary table between the bench-summary markers of README.md
(only where the README has them). Every section is also printed.

  --reuse-build  keep the generated server binary from an earlier run instead of a cold build
  --skip-peers   measure aqlgen and the direct floor only
  --shaping-only measure only what field selection and pagination save, and write only that
  --cache-only   measure only what the response cache saves on a repeated-read task, and
                 write only that
  --bundle-only  measure only what a bundle of the GitHub import and the two examples costs
                 in tokens against three separate servers, and write only that
  --fleet-only   measure only the state stores and two instances (needs redis-server), and
                 write only that
  --print-only   print the sections without writing any file (--no-readme is the old name)
  --quick        fewer spawns and calls, for trying the harness (not for the published
                 figures)";

/// Command-line switches.
#[derive(Debug, Default)]
struct Options {
    reuse_build: bool,
    skip_peers: bool,
    shaping_only: bool,
    cache_only: bool,
    bundle_only: bool,
    fleet_only: bool,
    print_only: bool,
    quick: bool,
}

impl Options {
    fn parse() -> anyhow::Result<Options> {
        let mut options = Options::default();
        for arg in std::env::args().skip(1) {
            match arg.as_str() {
                "--reuse-build" => options.reuse_build = true,
                "--skip-peers" => options.skip_peers = true,
                "--shaping-only" => options.shaping_only = true,
                "--cache-only" => options.cache_only = true,
                "--bundle-only" => options.bundle_only = true,
                "--fleet-only" => options.fleet_only = true,
                "--print-only" | "--no-readme" => options.print_only = true,
                "--quick" => options.quick = true,
                "-h" | "--help" => {
                    println!("{USAGE}");
                    std::process::exit(0);
                }
                other => bail!("unknown argument {other}\n{USAGE}"),
            }
        }
        Ok(options)
    }
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let options = Options::parse()?;
    let root: PathBuf = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .context("bench/ has a parent")?
        .to_owned();
    let work = root.join("bench").join("work");

    let built = {
        let (root, work) = (root.clone(), work.clone());
        let reuse = options.reuse_build;
        tokio::task::spawn_blocking(move || pipeline::run(&root, &work, reuse)).await??
    };
    eprintln!(
        "bench: {} operations, binary {} ({} bytes)",
        built.total_operations(),
        built.binary.display(),
        built.binary_bytes
    );

    let load_average = proc::load_average();
    // The load runs far more calls than GitHub's 5,000 an hour, which demo-upstream enforces
    // by default.
    let upstream = demo_upstream::spawn(demo_upstream::Options {
        github_rate_limit: Some(u64::from(u32::MAX)),
        ..demo_upstream::Options::default()
    })
    .await?;
    let url = format!("{}/repos/octo/hello-world", upstream.base_url());
    let setup = ours::Setup {
        binary: built.binary.clone(),
        env: vec![
            (built.base_url_env.clone(), upstream.base_url()),
            // The demo upstream, started without a token, accepts any.
            ("GITHUB_TOKEN".to_owned(), "bench-token".to_owned()),
        ],
        cold_runs: if options.quick { 5 } else { 20 },
        warmup_calls: if options.quick { 100 } else { 500 },
        calls_c1: if options.quick { 500 } else { 5_000 },
        calls_c32: if options.quick { 2_000 } else { 20_000 },
        floor_url: url.clone(),
        overhead_rounds: 20,
    };
    let doc = root.join("docs").join("benchmarks.md");
    let readme = root.join("README.md");
    if !options.fleet_only && !options.cache_only && !options.shaping_only {
        eprintln!("bench: a bundle against three servers, in tokens");
        let inputs = bundle::Inputs {
            root: &root,
            work: &work,
            aqlgen: &built.aqlgen,
            openapi: &built.openapi,
            import_binary: &built.binary,
            import_base_url_env: &built.base_url_env,
            upstream: &upstream.base_url(),
        };
        let sides = bundle::measure(&inputs).await?;
        let bundle_section = bundle::render(&sides, &report::utc_date());
        println!("{bundle_section}");
        if !options.print_only {
            report::write_bundle(&doc, &bundle_section)?;
        }
    }
    if options.bundle_only {
        return Ok(());
    }
    if !options.fleet_only && !options.cache_only {
        eprintln!("bench: field selection and pagination");
        let shaping = shaping::measure(setup.command("crude"), &upstream.base_url()).await?;
        let shaping_section = shaping::render(&shaping, &report::utc_date());
        println!("{shaping_section}");
        if !options.print_only {
            report::write_shaping(&doc, &shaping_section)?;
        }
    }
    if options.shaping_only {
        return Ok(());
    }
    if !options.fleet_only {
        eprintln!("bench: the response cache on a repeated-read task");
        let runs = cache::measure(&setup, &built.base_url_env).await?;
        let cache_section = cache::render(&runs, &report::utc_date());
        println!("{cache_section}");
        if !options.print_only {
            report::write_cache(&doc, &cache_section)?;
        }
    }
    if options.cache_only {
        return Ok(());
    }
    let rows = fleet::measure(&setup, &work).await?;
    let cores = std::thread::available_parallelism().map_or(0, usize::from);
    let fleet_section = fleet::render(&rows, setup.calls_c32, cores, &report::utc_date());
    println!("{fleet_section}");
    if !options.print_only {
        report::write_fleet(&doc, &fleet_section)?;
    }
    if options.fleet_only {
        return Ok(());
    }
    let crude = ours::measure(&setup, "crude").await?;
    let single = ours::measure(&setup, "single").await?;

    eprintln!("bench: direct reqwest floor");
    measure::direct(&url, 32, setup.warmup_calls).await?;
    let direct = Figures {
        name: "direct reqwest (floor)".to_owned(),
        load_c1: Some(measure::direct(&url, 1, setup.calls_c1).await?),
        load_c32: Some(measure::direct(&url, 32, setup.calls_c32).await?),
        ..Figures::default()
    };

    let peers = if options.skip_peers {
        Vec::new()
    } else {
        let context = peers::Context {
            openapi: built.openapi.clone(),
            upstream_base_url: upstream.base_url(),
            work_dir: work.clone(),
        };
        peers::measure_all(&context).await
    };

    let measured_at = report::utc_now();
    let run = report::Run {
        built: &built,
        crude: &crude,
        single: &single,
        direct: &direct,
        peers: &peers,
        peers_skipped: options.skip_peers,
        load_average,
        measured_at: &measured_at,
    };
    let section = report::render(&run);
    let summary = report::render_summary(&run);
    println!("{section}");
    println!("{summary}");
    if !options.print_only {
        report::write_results(&doc, &section)?;
        eprintln!("bench: wrote the results into {}", doc.display());
        if report::write_summary(&readme, &summary)? {
            eprintln!("bench: wrote the summary into {}", readme.display());
        } else {
            eprintln!(
                "bench: {} has no bench-summary markers; its summary is left as it is",
                readme.display()
            );
        }
    }
    Ok(())
}
