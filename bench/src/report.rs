//! The benchmark report: the full results for docs/benchmarks.md (machine, pipeline figures,
//! the table, ratios, tasks and targets), the short summary table for README.md, and the
//! writing of both between their markers.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::Context as _;

use crate::figures::{Figures, Load};
use crate::measure::{median, percentile};
use crate::pipeline::Built;
use crate::tasks::Task;

/// The markers around the full results in docs/benchmarks.md.
const BEGIN: &str = "<!-- bench:begin -->";
const END: &str = "<!-- bench:end -->";
/// The markers around the shaping table in docs/benchmarks.md.
const SHAPING: (&str, &str) = ("<!-- bench-shaping:begin -->", "<!-- bench-shaping:end -->");
/// The markers around the cache table in docs/benchmarks.md.
const CACHE: (&str, &str) = ("<!-- bench-cache:begin -->", "<!-- bench-cache:end -->");
/// The markers around the fleet table in docs/benchmarks.md.
const FLEET: (&str, &str) = ("<!-- bench-fleet:begin -->", "<!-- bench-fleet:end -->");
/// The markers of the bundle section.
const BUNDLE: (&str, &str) = ("<!-- bench-bundle:begin -->", "<!-- bench-bundle:end -->");
/// The markers around the summary table in README.md's "In numbers" section.
const SUMMARY: (&str, &str) = ("<!-- bench-summary:begin -->", "<!-- bench-summary:end -->");

/// Everything one run measured.
pub struct Run<'a> {
    /// The pipeline's figures.
    pub built: &'a Built,
    /// Our server in crude mode.
    pub crude: &'a Figures,
    /// Our server in single mode.
    pub single: &'a Figures,
    /// The upstream called directly.
    pub direct: &'a Figures,
    /// The peers measured.
    pub peers: &'a [Figures],
    /// Whether the peers were skipped on request.
    pub peers_skipped: bool,
    /// The machine's 1-minute load average before the measurements.
    pub load_average: Option<f64>,
    /// When the run ended, `YYYY-MM-DD HH:MM` in UTC (see [`utc_now`]): the results and the
    /// summary carry the same date.
    pub measured_at: &'a str,
}

/// The markdown section, without the markers.
pub fn render(run: &Run<'_>) -> String {
    let mut out = String::new();
    let built = run.built;
    let _ = writeln!(
        out,
        "Measured by `scripts/bench` on {}.\n",
        machine(run.measured_at, run.load_average)
    );

    let per_category: Vec<String> = built
        .operations
        .iter()
        .map(|(category, count)| format!("{category} {count}"))
        .collect();
    let build = match (built.builds, built.build_reused) {
        (Some(builds), reused) => format!(
            "release {:.0} s cold, {:.1} s incremental ({:.1} s with \
             `CARGO_PROFILE_RELEASE_INCREMENTAL=true`); debug {:.0} s cold, {:.1} s \
             incremental{}",
            builds.release_cold,
            builds.release_incremental,
            builds.release_incremental_cached,
            builds.debug_cold,
            builds.debug_incremental,
            if reused {
                " (an earlier run; binary reused)"
            } else {
                ""
            }
        ),
        (None, _) => "not timed (binary reused)".to_owned(),
    };
    let _ = writeln!(
        out,
        "Pipeline on GitHub's REST description (`@octokit/openapi` 23.0.2, 1,223 operations): \
         the adapter keeps {} operations ({}){}; `aqlgen import-openapi` {:.2} s and generation \
         {:.2} s (medians of 5); builds of the generated crate (cold: dependencies included, \
         from an empty target directory; incremental: after a one-operation schema change, \
         regenerated, the mean of the change and its undo) {build}; stripped binary {:.1} MB.\n",
        thousands(built.total_operations()),
        per_category.join(", "),
        if built.bearer_auth {
            ", bearer auth from `GITHUB_TOKEN`"
        } else {
            ""
        },
        built.import_secs,
        built.generate_secs,
        built.binary_bytes as f64 / 1e6,
    );

    out.push_str(
        "| server | tools | tools/list tokens (bytes) | first-call tokens | cold start ms: \
         initialize / tools/list | c1 calls/s | c1 p50 / p99 µs | c32 calls/s | \
         c32 p50 / p99 µs | peak RSS MiB |\n|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n",
    );
    let rows = [run.crude, run.single, run.direct]
        .into_iter()
        .chain(run.peers.iter());
    for figures in rows {
        out.push_str(&row(figures));
    }
    let _ = writeln!(
        out,
        "\nTokens are o200k_base. `get_repo` is GitHub's `repos_get` through the server over \
         stdio against the in-process demo upstream on 127.0.0.1; c32 keeps 32 requests in \
         flight on the one connection. The first call is a scripted agent's: tools/list, \
         `introspect` with `endpoint`/`search`, the operation's details, then \
         `issues_list_for_repo`; every request and answer counted, the last answer with the \
         upstream's `data` replaced by null."
    );

    out.push('\n');
    out.push_str(&overheads(run));
    if run.peers_skipped {
        out.push_str("\nPeers: skipped (`--skip-peers`).\n");
    } else if !run.peers.is_empty() {
        out.push('\n');
        for peer in run.peers {
            out.push_str(&ratios(peer, run.crude));
        }
    }

    out.push_str(&task_table(run));
    out.push_str(&query_table(run));

    out.push_str("\n| target | figure | |\n|---|--:|---|\n");
    for (target, figure, met) in targets(run) {
        let verdict = match met {
            Some(true) => "met",
            Some(false) => "**missed**",
            None => "not measured",
        };
        let _ = writeln!(out, "| {target} | {figure} | {verdict} |");
    }

    let notes: Vec<String> = [run.crude, run.single, run.direct]
        .into_iter()
        .chain(run.peers.iter())
        .flat_map(|figures| {
            figures
                .notes
                .iter()
                .map(move |note| format!("- {}: {note}", figures.name))
        })
        .collect();
    if !notes.is_empty() {
        let _ = writeln!(out, "\n{}", notes.join("\n"));
    }
    out
}

/// The summary for README.md: the headline figures of aqlgen's two modes and of each peer,
/// with the date of the run. The full results in docs/benchmarks.md carry the same figures.
pub fn render_summary(run: &Run<'_>) -> String {
    let cores = std::thread::available_parallelism().map_or(0, usize::from);
    let date = run.measured_at.get(..10).unwrap_or(run.measured_at);
    let mut out = format!(
        "Measured by `scripts/bench` on {date} ({cores} cores), each server given GitHub's \
         REST description (`@octokit/openapi` 23.0.2, 1,223 operations). Tokens are \
         o200k_base.\n\n| server | tools | tools/list tokens | tokens to a first successful \
         call | cold start to tools/list | calls/s at concurrency 32 | peak RSS |\n\
         |---|--:|--:|--:|--:|--:|--:|\n"
    );
    let rows = [run.crude, run.single].into_iter().chain(run.peers.iter());
    for figures in rows {
        let cold = opt(figures.cold_start_tools_list_ms, |value| {
            format!("{} ms", ms(value))
        });
        let c32 = opt(figures.load_c32, |load| {
            thousands(load.calls_per_sec.round() as usize)
        });
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {cold} | {c32} | {} |",
            figures.name,
            opt(figures.tools, thousands),
            opt(figures.tools_list_tokens, thousands),
            opt(figures.first_call_tokens, thousands),
            opt(figures.peak_rss_mib, |mib| format!("{mib:.1} MiB")),
        );
    }
    if run.peers_skipped {
        out.push_str("\nPeers: skipped (`--skip-peers`).\n");
    }
    out
}

/// Writes the full results between the results markers of `doc` (docs/benchmarks.md),
/// adding the markers at the end of the file, or the file itself, when missing.
pub fn write_results(doc: &Path, section: &str) -> anyhow::Result<()> {
    let text = read_doc(doc)?;
    let updated = replace_between(&text, (BEGIN, END), section)
        .unwrap_or_else(|| format!("{}\n\n{BEGIN}\n{section}{END}\n", text.trim_end()));
    std::fs::write(doc, updated).with_context(|| doc.display().to_string())
}

/// Writes `section` between the shaping markers of `doc` (docs/benchmarks.md), added after
/// the results when missing.
pub fn write_shaping(doc: &Path, section: &str) -> anyhow::Result<()> {
    write_after_results(doc, SHAPING, section)
}

/// Writes `section` between the cache markers of `doc` (docs/benchmarks.md), added after the
/// results when missing.
pub fn write_cache(doc: &Path, section: &str) -> anyhow::Result<()> {
    write_after_results(doc, CACHE, section)
}

/// Writes `section` between the bundle markers of `doc` (docs/benchmarks.md), added after
/// the results when missing.
pub fn write_bundle(doc: &Path, section: &str) -> anyhow::Result<()> {
    write_after_results(doc, BUNDLE, section)
}

/// Writes `section` between the fleet markers of `doc` (docs/benchmarks.md), added after the
/// results when missing.
pub fn write_fleet(doc: &Path, section: &str) -> anyhow::Result<()> {
    write_after_results(doc, FLEET, section)
}

/// Writes the summary between the summary markers of `readme` (README.md's Benchmarks
/// section). The README is a guide written by hand: without both markers nothing is added,
/// and the answer is `false`.
pub fn write_summary(readme: &Path, section: &str) -> anyhow::Result<bool> {
    let text = std::fs::read_to_string(readme).with_context(|| readme.display().to_string())?;
    let Some(updated) = replace_between(&text, SUMMARY, section) else {
        return Ok(false);
    };
    std::fs::write(readme, updated).with_context(|| readme.display().to_string())?;
    Ok(true)
}

fn write_after_results(
    doc: &Path,
    (begin, end): (&str, &str),
    section: &str,
) -> anyhow::Result<()> {
    let text = read_doc(doc)?;
    let updated = replace_between(&text, (begin, end), section).unwrap_or_else(|| {
        let at = text.find(END).map_or(text.len(), |found| found + END.len());
        format!("{}\n\n{begin}\n{section}{end}{}", &text[..at], &text[at..])
    });
    std::fs::write(doc, updated).with_context(|| doc.display().to_string())
}

/// `text` with what lies between `begin` and `end` replaced by `section`; `None` unless both
/// markers are there, in that order.
fn replace_between(text: &str, (begin, end): (&str, &str), section: &str) -> Option<String> {
    let from = text.find(begin)?;
    let to = from + text[from..].find(end)?;
    Some(format!(
        "{}{begin}\n{section}{}",
        &text[..from],
        &text[to..]
    ))
}

/// The benchmark document, or a bare heading when it does not exist yet.
fn read_doc(doc: &Path) -> anyhow::Result<String> {
    match std::fs::read_to_string(doc) {
        Ok(text) => Ok(text),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            Ok("# Benchmarks\n".to_owned())
        }
        Err(error) => Err(error).with_context(|| doc.display().to_string()),
    }
}

fn row(figures: &Figures) -> String {
    let tokens = match (figures.tools_list_tokens, figures.tools_list_bytes) {
        (Some(tokens), Some(bytes)) => format!("{} ({})", thousands(tokens), thousands(bytes)),
        (Some(tokens), None) => thousands(tokens),
        _ => "–".to_owned(),
    };
    let cold = match (
        figures.cold_start_initialize_ms,
        figures.cold_start_tools_list_ms,
    ) {
        (None, None) => "–".to_owned(),
        (init, list) => format!("{} / {}", opt(init, ms), opt(list, ms)),
    };
    let (c1_rate, c1_latency) = load_cells(figures.load_c1);
    let (c32_rate, c32_latency) = load_cells(figures.load_c32);
    format!(
        "| {} | {} | {tokens} | {} | {cold} | {c1_rate} | {c1_latency} | {c32_rate} | \
         {c32_latency} | {} |\n",
        figures.name,
        opt(figures.tools, thousands),
        opt(figures.first_call_tokens, thousands),
        opt(figures.peak_rss_mib, |mib| format!("{mib:.1}")),
    )
}

fn load_cells(load: Option<Load>) -> (String, String) {
    match load {
        Some(load) => (
            thousands(load.calls_per_sec.round() as usize),
            format!("{:.0} / {:.0}", load.p50_us, load.p99_us),
        ),
        None => ("–".to_owned(), "–".to_owned()),
    }
}

/// Per-call overhead of each mode: at c1 the paired rounds' median, at c32 the p50
/// difference of the long runs; then where a c1 call's time goes.
fn overheads(run: &Run<'_>) -> String {
    let mut out = String::from(
        "Per-call overhead over the direct call at c1, the median of paired rounds (calls \
         through the server, then as many direct calls; the difference of their p50s) so that \
         the shared machine's drift cancels out, with the rounds' quartiles:",
    );
    for ours in [run.crude, run.single] {
        let _ = write!(
            out,
            " {} {},",
            ours.name,
            paired(&ours.overhead_c1_rounds_us)
        );
    }
    out.pop();
    out.push_str(". At c32, the p50 difference of the long runs:");
    for ours in [run.crude, run.single] {
        let c32 = overhead(ours.load_c32, run.direct.load_c32);
        let _ = write!(
            out,
            " {} {} µs,",
            ours.name,
            opt(c32, |us| format!("{us:.0}"))
        );
    }
    out.pop();
    out.push_str(".\n");
    for ours in [run.crude, run.single] {
        if let (Some(call), Some(ping), Some(direct), Some(cpu)) = (
            ours.load_c1,
            ours.ping_c1,
            run.direct.load_c1,
            ours.cpu_us_per_call,
        ) {
            let _ = writeln!(
                out,
                "\n{}, where a c1 call's {:.0} µs (p50) go: an MCP `ping` over the same pipe \
                 {:.0} µs, the upstream called directly {:.0} µs, the remaining {:.0} µs in the \
                 tool call inside the server, which spends {cpu:.0} µs of CPU per call (user + \
                 system).",
                ours.name,
                call.p50_us,
                ping.p50_us,
                direct.p50_us,
                call.p50_us - ping.p50_us - direct.p50_us,
            );
        }
    }
    out
}

/// The five tasks: tokens and tool calls per task for each server that ran them, and a note
/// per task a server could not do.
fn task_table(run: &Run<'_>) -> String {
    let rows: Vec<(String, &[crate::tasks::Outcome])> = [run.crude, run.single]
        .into_iter()
        .chain(run.peers.iter())
        .filter(|figures| !figures.tasks.is_empty())
        .map(|figures| (figures.name.clone(), figures.tasks.as_slice()))
        .collect();
    outcome_table(
        "Five tasks, each scripted from a fresh connection to its answer: o200k_base tokens \
         of every request and answer (upstream data included), and tool calls. aqlgen finds \
         each operation with an `introspect` search and reads its details before calling it; \
         a peer with a tool per operation is read its whole tools/list first.",
        &Task::ALL,
        &rows,
    )
}

/// The query tasks: tokens and tool calls through aqlgen with and without the query
/// language, and through the peers.
fn query_table(run: &Run<'_>) -> String {
    let mut rows: Vec<(String, &[crate::tasks::Outcome])> = Vec::new();
    for figures in [run.crude, run.single] {
        if !figures.query_tasks.is_empty() {
            rows.push((figures.name.clone(), &figures.query_tasks));
        }
    }
    if !run.crude.plain_query_tasks.is_empty() {
        rows.push((
            format!("{}, without the query language", run.crude.name),
            &run.crude.plain_query_tasks,
        ));
    }
    for figures in run.peers {
        if !figures.query_tasks.is_empty() {
            rows.push((figures.name.clone(), &figures.query_tasks));
        }
    }
    outcome_table(
        "Two questions about a whole collection, each scripted from a fresh connection to its \
         answer, tokens and tool calls counted as above: how many of `acme/tracker`'s open \
         issues (125, two pages of 100) carry each label, and which repositories team \
         `acme/platform` maintains with each one's count of open pull requests. With the query \
         language, aqlgen answers the first with one aggregation (`filter` and \
         `aggregate: {group_by: labels, count: true}`) and the second with the team's \
         repositories (`fields: [full_name]`) and one batch of counts; without it, the agent \
         reads every page (its fields selected) and counts; a peer reads every page whole.",
        &Task::QUERY,
        &rows,
    )
}

/// A table of `tasks` with a row per server and what each spent, after `intro`, and a note
/// per task a server could not do.
fn outcome_table(
    intro: &str,
    tasks: &[Task],
    rows: &[(String, &[crate::tasks::Outcome])],
) -> String {
    if rows.is_empty() {
        return String::new();
    }
    let mut out = format!("\n{intro}\n\n| server |");
    for task in tasks {
        let _ = write!(out, " {}: tokens / calls |", task.title());
    }
    out.push_str("\n|---|");
    out.push_str(&"--:|".repeat(tasks.len()));
    out.push('\n');
    let mut failures = Vec::new();
    for (name, outcomes) in rows {
        let _ = write!(out, "| {name} |");
        for outcome in *outcomes {
            match &outcome.spent {
                Ok((tokens, calls)) => {
                    let _ = write!(out, " {} / {calls} |", thousands(*tokens));
                }
                Err(why) => {
                    out.push_str(" – |");
                    failures.push(format!(
                        "- {name}, {}: not done: {}",
                        outcome.task.title(),
                        crate::client::truncate(why, 300)
                    ));
                }
            }
        }
        out.push('\n');
    }
    if !failures.is_empty() {
        let _ = writeln!(out, "\n{}", failures.join("\n"));
    }
    out
}

/// The median of paired overhead rounds with their quartiles: `138 µs (121–152 µs, 20
/// rounds)`.
fn paired(rounds_us: &[f64]) -> String {
    let Some(median) = paired_median(rounds_us) else {
        return "–".to_owned();
    };
    let mut sorted = rounds_us.to_vec();
    sorted.sort_by(f64::total_cmp);
    format!(
        "{median:.0} µs ({:.0}–{:.0} µs, {} rounds)",
        percentile(&sorted, 0.25),
        percentile(&sorted, 0.75),
        sorted.len()
    )
}

fn paired_median(rounds_us: &[f64]) -> Option<f64> {
    (!rounds_us.is_empty()).then(|| median(&mut rounds_us.to_vec()))
}

fn overhead(server: Option<Load>, direct: Option<Load>) -> Option<f64> {
    Some(server?.p50_us - direct?.p50_us)
}

/// A peer against our default (crude) mode: how many times more it costs.
fn ratios(peer: &Figures, ours: &Figures) -> String {
    let ratio = |theirs: Option<f64>, ours: Option<f64>| match (theirs, ours) {
        (Some(theirs), Some(ours)) if ours > 0.0 => format!("{:.1}×", theirs / ours),
        _ => "–".to_owned(),
    };
    let as_f64 = |value: Option<usize>| value.map(|value| value as f64);
    format!(
        "- {} / aqlgen crude: tools/list tokens {}, first-call tokens {}, cold start to \
         tools/list {}, peak RSS {}.\n",
        peer.name,
        ratio(
            as_f64(peer.tools_list_tokens),
            as_f64(ours.tools_list_tokens)
        ),
        ratio(
            as_f64(peer.first_call_tokens),
            as_f64(ours.first_call_tokens)
        ),
        ratio(peer.cold_start_tools_list_ms, ours.cold_start_tools_list_ms),
        ratio(peer.peak_rss_mib, ours.peak_rss_mib),
    )
}

/// The targets: what, the figure, met or not.
fn targets(run: &Run<'_>) -> Vec<(String, String, Option<bool>)> {
    let mut out = Vec::new();
    let at_most = |figure: Option<f64>, bound: f64| figure.map(|figure| figure <= bound);
    let tokens = |figure: Option<usize>| opt(figure, thousands);
    let as_f64 = |value: Option<usize>| value.map(|value| value as f64);
    let ours = [run.crude, run.single];
    out.push((
        "single tools/list ≤ 1,000 tokens".to_owned(),
        tokens(run.single.tools_list_tokens),
        at_most(as_f64(run.single.tools_list_tokens), 1000.0),
    ));
    out.push((
        "crude tools/list ≤ 2,500 tokens".to_owned(),
        tokens(run.crude.tools_list_tokens),
        at_most(as_f64(run.crude.tools_list_tokens), 2500.0),
    ));
    out.push((
        "connect to first successful call ≤ 1,500 tokens (aqlgen single)".to_owned(),
        tokens(run.single.first_call_tokens),
        at_most(as_f64(run.single.first_call_tokens), 1500.0),
    ));
    out.push((
        "connect to first successful call ≤ 5,000 tokens (aqlgen crude)".to_owned(),
        tokens(run.crude.first_call_tokens),
        at_most(as_f64(run.crude.first_call_tokens), 5000.0),
    ));
    for ours in ours {
        let c1 = paired_median(&ours.overhead_c1_rounds_us);
        out.push((
            format!("overhead ≤ 60 µs p50 at c1 ({})", ours.name),
            opt(c1, |us| format!("{us:.0} µs")),
            at_most(c1, 60.0),
        ));
    }
    for ours in ours {
        let share = match (ours.load_c32, run.direct.load_c32) {
            (Some(ours), Some(direct)) if direct.calls_per_sec > 0.0 => {
                Some(ours.calls_per_sec / direct.calls_per_sec)
            }
            _ => None,
        };
        out.push((
            format!("c32 throughput ≥ 80% of the direct floor ({})", ours.name),
            opt(share, |share| format!("{:.0}%", share * 100.0)),
            share.map(|share| share >= 0.8),
        ));
    }
    for ours in ours {
        out.push((
            format!("cold start to tools/list ≤ 5 ms median ({})", ours.name),
            opt(ours.cold_start_tools_list_ms, ms),
            at_most(ours.cold_start_tools_list_ms, 5.0),
        ));
    }
    for ours in ours {
        out.push((
            format!("peak RSS under the c32 load ≤ 10 MB ({})", ours.name),
            opt(ours.peak_rss_mib, |mib| {
                format!("{:.1} MB", mib * 1024.0 * 1024.0 / 1e6)
            }),
            at_most(ours.peak_rss_mib.map(|mib| mib * 1024.0 * 1024.0), 10e6),
        ));
    }
    let binary_mb = run.built.binary_bytes as f64 / 1e6;
    out.push((
        "stripped release binary ≤ 8 MB".to_owned(),
        format!("{binary_mb:.1} MB"),
        Some(binary_mb <= 8.0),
    ));
    for (how, incremental) in [
        (
            "",
            run.built.builds.map(|builds| builds.release_incremental),
        ),
        (
            ", with Cargo's incremental compilation",
            run.built
                .builds
                .map(|builds| builds.release_incremental_cached),
        ),
    ] {
        out.push((
            format!("release build after a one-operation change ≤ 20 s{how}"),
            opt(incremental, |secs| format!("{secs:.1} s")),
            at_most(incremental, 20.0),
        ));
    }
    out.push((
        "generation ≤ 2 s".to_owned(),
        format!("{:.2} s", run.built.generate_secs),
        Some(run.built.generate_secs <= 2.0),
    ));
    out
}

/// The UTC date, CPU model, cores and load, kernel and rustc.
fn machine(measured_at: &str, load: Option<f64>) -> String {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let cpu = cpuinfo
        .lines()
        .find_map(|line| line.strip_prefix("model name"))
        .and_then(|rest| rest.split_once(':'))
        .map_or("unknown CPU", |(_, model)| model.trim());
    let cores = std::thread::available_parallelism().map_or(0, usize::from);
    let rustc = std::process::Command::new("rustc")
        .arg("--version")
        .output()
        .ok()
        .and_then(|output| String::from_utf8(output.stdout).ok())
        .map(|version| version.trim().to_owned())
        .unwrap_or_else(|| "rustc (unknown version)".to_owned());
    let load = load.map_or_else(String::new, |load| {
        format!(" (1-minute load average {load:.1} when measuring began)")
    });
    format!("{measured_at} UTC, {cpu}, {cores} cores{load}, Linux, {rustc}")
}

/// `YYYY-MM-DD` today, in UTC.
pub fn utc_date() -> String {
    utc_now()[..10].to_owned()
}

/// `YYYY-MM-DD HH:MM` now, in UTC.
pub fn utc_now() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_secs());
    let (days, rest) = (secs / 86_400, secs % 86_400);
    let (year, month, day) = civil_date(days as i64);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02}",
        rest / 3600,
        rest % 3600 / 60
    )
}

/// The proleptic Gregorian date `days` after 1970-01-01.
fn civil_date(days: i64) -> (i64, u32, u32) {
    // Count from 0000-03-01 in 400-year eras, so leap days fall at the end of a year.
    let days = days + 719_468;
    let era = days.div_euclid(146_097);
    let day_of_era = days.rem_euclid(146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_from_march = (5 * day_of_year + 2) / 153;
    let day = (day_of_year - (153 * month_from_march + 2) / 5 + 1) as u32;
    let month = if month_from_march < 10 {
        month_from_march + 3
    } else {
        month_from_march - 9
    } as u32;
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

fn opt<T>(value: Option<T>, show: impl Fn(T) -> String) -> String {
    value.map_or_else(|| "–".to_owned(), show)
}

fn ms(value: f64) -> String {
    if value < 100.0 {
        format!("{value:.1}")
    } else {
        thousands(value.round() as usize)
    }
}

/// `1234567` as `1,234,567`.
pub fn thousands(value: usize) -> String {
    let digits = value.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (index, digit) in digits.chars().enumerate() {
        if index > 0 && (digits.len() - index).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_numbers_and_dates() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(1223), "1,223");
        assert_eq!(thousands(3_047_364), "3,047,364");
        assert_eq!(civil_date(0), (1970, 1, 1));
        assert_eq!(civil_date(20_415), (2025, 11, 23));
        assert_eq!(civil_date(11_016), (2000, 2, 29));
    }

    #[test]
    fn paired_rounds_give_median_and_quartiles() {
        let rounds = [150.0, 110.0, 130.0, 120.0, 140.0];
        assert_eq!(paired(&rounds), "130 µs (120–140 µs, 5 rounds)");
        assert_eq!(paired_median(&rounds), Some(130.0));
        assert_eq!(paired(&[]), "–");
    }

    #[test]
    fn replaces_only_between_markers() {
        let text = format!("# x\n\n{BEGIN}\nold\n{END}\n\nafter\n");
        assert_eq!(
            replace_between(&text, (BEGIN, END), "new\n").unwrap(),
            format!("# x\n\n{BEGIN}\nnew\n{END}\n\nafter\n")
        );
        assert_eq!(replace_between("# x\n", (BEGIN, END), "new\n"), None);
        let reversed = format!("{END}\n{BEGIN}\n");
        assert_eq!(replace_between(&reversed, (BEGIN, END), "new\n"), None);
    }

    #[test]
    fn results_go_to_the_document_and_the_summary_only_between_its_markers() {
        let dir = std::env::temp_dir().join(format!("bench-report-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let doc = dir.join("benchmarks.md");
        write_results(&doc, "table\n").unwrap();
        write_fleet(&doc, "fleet\n").unwrap();
        let (fleet_begin, fleet_end) = FLEET;
        assert_eq!(
            std::fs::read_to_string(&doc).unwrap(),
            format!("# Benchmarks\n\n{BEGIN}\ntable\n{END}\n\n{fleet_begin}\nfleet\n{fleet_end}\n")
        );

        let readme = dir.join("README.md");
        std::fs::write(&readme, "# x\n").unwrap();
        assert!(!write_summary(&readme, "summary\n").unwrap());
        assert_eq!(std::fs::read_to_string(&readme).unwrap(), "# x\n");
        let (begin, end) = SUMMARY;
        std::fs::write(&readme, format!("# x\n{begin}\nold\n{end}\nafter\n")).unwrap();
        assert!(write_summary(&readme, "summary\n").unwrap());
        assert_eq!(
            std::fs::read_to_string(&readme).unwrap(),
            format!("# x\n{begin}\nsummary\n{end}\nafter\n")
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
