//! What one server (ours or a peer) measured: every field is optional because not every peer
//! can run every measurement; the report prints a dash and the reason for a missing one.

/// Latency and throughput of one load run.
#[derive(Debug, Clone, Copy, Default)]
pub struct Load {
    /// Completed calls per second.
    pub calls_per_sec: f64,
    /// Median latency in microseconds.
    pub p50_us: f64,
    /// 99th-percentile latency in microseconds.
    pub p99_us: f64,
}

/// The figures of one server configuration, e.g. "aqlgen (crude)" or "openapi-mcp-generator".
#[derive(Debug, Clone, Default)]
pub struct Figures {
    /// Row label, with the version measured.
    pub name: String,
    /// Tools registered by tools/list.
    pub tools: Option<usize>,
    /// The tools/list result as JSON text, in bytes.
    pub tools_list_bytes: Option<usize>,
    /// The same text in o200k_base tokens.
    pub tools_list_tokens: Option<usize>,
    /// Tokens from connect to the first successful "list the open issues of a repository"
    /// call: tools/list, the discovery calls and the call itself, requests and answers,
    /// without the upstream's payload.
    pub first_call_tokens: Option<usize>,
    /// Median milliseconds from process spawn to the initialize answer.
    pub cold_start_initialize_ms: Option<f64>,
    /// Median milliseconds from process spawn to the tools/list answer.
    pub cold_start_tools_list_ms: Option<f64>,
    /// `get_repo` through the server at concurrency 1.
    pub load_c1: Option<Load>,
    /// `get_repo` through the server at concurrency 32.
    pub load_c32: Option<Load>,
    /// Peak resident set size of the server process in MiB (VmHWM).
    pub peak_rss_mib: Option<f64>,
    /// MCP `ping` round trips on the load connection at concurrency 1: the transport and the
    /// server's JSON-RPC loop alone.
    pub ping_c1: Option<Load>,
    /// Per-call overhead at concurrency 1, one figure per paired round: p50 through the server
    /// minus p50 of the direct call measured right after it (see `measure::paired_overhead`).
    pub overhead_c1_rounds_us: Vec<f64>,
    /// CPU time (user + system) of the server process per `get_repo` call, in microseconds.
    pub cpu_us_per_call: Option<f64>,
    /// The five scripted tasks, each from a fresh connection.
    pub tasks: Vec<crate::tasks::Outcome>,
    /// The query tasks, each from a fresh connection: through aqlgen, with the query
    /// language.
    pub query_tasks: Vec<crate::tasks::Outcome>,
    /// The query tasks through aqlgen without the query language (crude mode only).
    pub plain_query_tasks: Vec<crate::tasks::Outcome>,
    /// Why a figure is missing or how it was bounded; printed under the table.
    pub notes: Vec<String>,
}
