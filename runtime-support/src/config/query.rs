//! How far the query language may go on one request: the operator's ceilings on a scan of
//! upstream pages (collection-querying §5.5) and on a relationship traversal, and when an
//! answer is slow enough to say so.

use std::time::Duration;

use crate::adapter::ScanLimits;

/// The operator's query settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QueryConfig {
    /// Ceilings on every operation's scan bounds: the lower of the schema's and these apply.
    pub scan: ScanLimits,
    /// Nodes one relationship query visits.
    pub graph_max_nodes: u64,
    /// Upstream calls one relationship query makes.
    pub graph_max_calls: u64,
    /// An answer that took longer carries `PERFORMANCE_SLOW_QUERY_WARNING`.
    pub slow: Duration,
}

impl Default for QueryConfig {
    fn default() -> Self {
        Self {
            scan: ScanLimits {
                max_pages: 20,
                max_items: 5000,
                max_bytes: 32 * 1024 * 1024,
                max_seconds: 30,
            },
            graph_max_nodes: 100,
            graph_max_calls: 50,
            slow: Duration::from_secs(5),
        }
    }
}

impl QueryConfig {
    /// The bounds of a scan of an operation whose schema sets `declared`.
    pub fn scan_limits(&self, declared: ScanLimits) -> ScanLimits {
        ScanLimits {
            max_pages: declared.max_pages.min(self.scan.max_pages),
            max_items: declared.max_items.min(self.scan.max_items),
            max_bytes: declared.max_bytes.min(self.scan.max_bytes),
            max_seconds: declared.max_seconds.min(self.scan.max_seconds),
        }
    }
}
