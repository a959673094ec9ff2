//! The response cache's settings: `--cache`, `--cache-max-bytes`, `--cache-ttl`.

use std::time::Duration;

/// How READ answers are kept (docs/operating.md "Caching").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CacheConfig {
    /// Whether answers are kept at all.
    pub enabled: bool,
    /// Bytes of answers one instance keeps; the least recently used go first.
    pub max_bytes: u64,
    /// Freshness the operator gives, beside what the upstream says.
    pub ttl: CacheTtl,
}

impl Default for CacheConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            max_bytes: 16 * 1024 * 1024,
            ttl: CacheTtl::default(),
        }
    }
}

/// `--cache-ttl [OPERATION=]SECONDS,...`: a lifetime for one operation's answers, which wins
/// over the upstream's (not over its `no-store`), and one for answers whose upstream says
/// nothing about freshness.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CacheTtl {
    /// For answers the upstream gives no freshness.
    pub default: Option<Duration>,
    /// Per operation, by name.
    pub operations: Vec<(String, Duration)>,
}

/// Longest lifetime an operator may give: a day.
pub const MAX_TTL_SECONDS: u64 = 86_400;

impl CacheTtl {
    /// Parses one `[OPERATION=]SECONDS` item, as clap hands each comma-separated value.
    ///
    /// # Errors
    ///
    /// What the item should look like.
    pub fn parse_item(text: &str) -> Result<(Option<String>, Duration), String> {
        let (operation, seconds) = match text.split_once('=') {
            Some((operation, seconds)) => (Some(operation.trim()), seconds),
            None => (None, text),
        };
        if operation.is_some_and(|name| {
            name.is_empty() || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
        }) {
            return Err(format!(
                "'{text}': expected [OPERATION=]SECONDS, with an operation name of letters, digits and '_'"
            ));
        }
        let seconds: u64 = seconds
            .trim()
            .parse()
            .ok()
            .filter(|seconds| *seconds <= MAX_TTL_SECONDS)
            .ok_or_else(|| {
                format!("'{text}': expected [OPERATION=]SECONDS with 0..={MAX_TTL_SECONDS} seconds")
            })?;
        Ok((operation.map(str::to_owned), Duration::from_secs(seconds)))
    }

    /// The setting the parsed items make; a later item for the same name wins.
    pub fn from_items(items: impl IntoIterator<Item = (Option<String>, Duration)>) -> Self {
        let mut ttl = Self::default();
        for (operation, lifetime) in items {
            match operation {
                None => ttl.default = Some(lifetime),
                Some(name) => {
                    ttl.operations.retain(|(other, _)| *other != name);
                    ttl.operations.push((name, lifetime));
                }
            }
        }
        ttl
    }

    /// The lifetime the operator gives `operation`'s answers, if any.
    pub fn for_operation(&self, operation: &str) -> Option<Duration> {
        self.operations
            .iter()
            .find(|(name, _)| name == operation)
            .map(|(_, lifetime)| *lifetime)
    }
}

/// Parses `--cache-max-bytes`: a number of bytes, or of KiB, MiB or GiB with that suffix.
///
/// # Errors
///
/// What the value should look like.
pub fn parse_bytes(text: &str) -> Result<u64, String> {
    let text = text.trim();
    let (digits, unit) = [("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)]
        .into_iter()
        .find_map(|(suffix, unit)| text.strip_suffix(suffix).map(|digits| (digits, unit)))
        .unwrap_or((text, 1));
    digits
        .trim()
        .parse::<u64>()
        .ok()
        .and_then(|number| number.checked_mul(unit))
        .filter(|bytes| (1024..=(64_u64 << 30)).contains(bytes))
        .ok_or_else(|| {
            format!("'{text}': expected a size from 1KiB to 64GiB, in bytes or with a KiB, MiB or GiB suffix")
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ttl_items_name_an_operation_or_none() {
        assert_eq!(
            CacheTtl::parse_item("60"),
            Ok((None, Duration::from_secs(60)))
        );
        assert_eq!(
            CacheTtl::parse_item("list_issues=5"),
            Ok((Some("list_issues".to_owned()), Duration::from_secs(5)))
        );
        for bad in ["", "x", "=5", "a-b=5", "list=-1", "list=86401"] {
            assert!(CacheTtl::parse_item(bad).is_err(), "{bad}");
        }
        let ttl = CacheTtl::from_items([
            (None, Duration::from_secs(1)),
            (Some("a".to_owned()), Duration::from_secs(2)),
            (Some("a".to_owned()), Duration::from_secs(3)),
        ]);
        assert_eq!(ttl.default, Some(Duration::from_secs(1)));
        assert_eq!(ttl.for_operation("a"), Some(Duration::from_secs(3)));
        assert_eq!(ttl.for_operation("b"), None);
    }

    #[test]
    fn sizes_take_binary_suffixes() {
        assert_eq!(parse_bytes("4096"), Ok(4096));
        assert_eq!(parse_bytes("16MiB"), Ok(16 << 20));
        assert_eq!(parse_bytes("2 GiB"), Ok(2 << 30));
        for bad in ["", "12", "1TiB", "MiB", "-5", "65GiB"] {
            assert!(parse_bytes(bad).is_err(), "{bad}");
        }
    }
}
