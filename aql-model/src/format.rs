//! Whether a string has the shape its param's `format` declares: the JSON Schema formats
//! `date-time`, `date`, `email`, `uri` and `uuid` ([`StringFormat`]). The generator checks
//! defaults and examples with it, the server every value.

use crate::StringFormat;

impl StringFormat {
    /// Whether `text` is a value of this format.
    pub fn matches(self, text: &str) -> bool {
        match self {
            Self::DateTime => is_date_time(text),
            Self::Date => is_date(text),
            Self::Email => is_email(text),
            Self::Uri => is_uri(text),
            Self::Uuid => is_uuid(text),
        }
    }
}

/// `full-date` of RFC 3339 §5.6: `YYYY-MM-DD`, a day the month has.
fn is_date(text: &str) -> bool {
    let bytes = text.as_bytes();
    if bytes.len() != 10 || bytes[4] != b'-' || bytes[7] != b'-' {
        return false;
    }
    let (Some(year), Some(month), Some(day)) = (
        number(&text[..4]),
        number(&text[5..7]),
        number(&text[8..10]),
    ) else {
        return false;
    };
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let days = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days).contains(&day)
}

/// `date-time` of RFC 3339 §5.6: a full date, `T`, `HH:MM:SS`, an optional fraction, and
/// `Z` or an offset `±HH:MM`. A leap second (`:60`) is allowed.
fn is_date_time(text: &str) -> bool {
    let Some((date, time)) = text.split_once(['T', 't']) else {
        return false;
    };
    if !is_date(date) {
        return false;
    }
    let (time, offset) = match time.find(['Z', 'z', '+', '-']) {
        Some(at) => time.split_at(at),
        None => return false,
    };
    let offset_ok = match offset.as_bytes() {
        [b'Z' | b'z'] => true,
        [b'+' | b'-', ..] => clock(&offset[1..], false),
        _ => false,
    };
    let (clock_part, fraction) = match time.split_once('.') {
        Some((clock_part, fraction)) => (clock_part, Some(fraction)),
        None => (time, None),
    };
    offset_ok
        && clock(clock_part, true)
        && fraction.is_none_or(|f| !f.is_empty() && f.bytes().all(|b| b.is_ascii_digit()))
}

/// `HH:MM:SS` (with `seconds`) or `HH:MM`.
fn clock(text: &str, seconds: bool) -> bool {
    let parts: Vec<&str> = text.split(':').collect();
    let expected = if seconds { 3 } else { 2 };
    if parts.len() != expected || parts.iter().any(|part| part.len() != 2) {
        return false;
    }
    let limits = [23, 59, 60];
    parts
        .iter()
        .zip(limits)
        .all(|(part, limit)| number(part).is_some_and(|n| n <= limit))
}

/// The decimal number `text` is, when it is only ASCII digits.
fn number(text: &str) -> Option<u32> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

/// An address with one `@`, a local part and a dotted domain of letters, digits and `-`,
/// without spaces: what mail APIs accept, short of RFC 5321's quoted forms.
fn is_email(text: &str) -> bool {
    let Some((local, domain)) = text.rsplit_once('@') else {
        return false;
    };
    let local_ok = !local.is_empty()
        && local.len() <= 64
        && !local.contains([
            '@', ' ', '\t', '\r', '\n', '<', '>', '(', ')', ',', ';', ':',
        ])
        && !local.starts_with('.')
        && !local.ends_with('.');
    let labels: Vec<&str> = domain.split('.').collect();
    local_ok
        && labels.len() >= 2
        && labels.iter().all(|label| {
            !label.is_empty()
                && label.len() <= 63
                && !label.starts_with('-')
                && !label.ends_with('-')
                && label.chars().all(|c| c.is_alphanumeric() || c == '-')
        })
}

/// An absolute URI (RFC 3986 §4.3): a scheme (a letter, then letters, digits, `+`, `-`,
/// `.`), `:`, and a rest of printable characters without spaces; a `//` authority, when
/// there is one, names a host.
fn is_uri(text: &str) -> bool {
    let Some((scheme, rest)) = text.split_once(':') else {
        return false;
    };
    let scheme_ok = scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    let rest_ok = !rest.is_empty() && !rest.contains(|c: char| c.is_whitespace() || c.is_control());
    let authority_ok = rest.strip_prefix("//").is_none_or(|after| {
        let authority = after.split(['/', '?', '#']).next().unwrap_or_default();
        let host = authority
            .rsplit_once('@')
            .map_or(authority, |(_, host)| host);
        !host.is_empty() && !host.starts_with(':')
    });
    scheme_ok && rest_ok && authority_ok
}

/// `8-4-4-4-12` hexadecimal digits.
fn is_uuid(text: &str) -> bool {
    let groups: Vec<&str> = text.split('-').collect();
    groups.len() == 5
        && groups.iter().zip([8, 4, 4, 4, 12]).all(|(group, length)| {
            group.len() == length && group.bytes().all(|b| b.is_ascii_hexdigit())
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_format_accepts_its_shape_and_nothing_else() {
        for (format, good, bad) in [
            (
                StringFormat::DateTime,
                &[
                    "2026-11-25T18:00:00Z",
                    "2026-11-25t18:00:00.123+01:00",
                    "2016-12-31T23:59:60Z",
                ][..],
                &[
                    "not-a-date",
                    "2026-11-25",
                    "2026-11-25T18:00Z",
                    "2026-11-25T18:00:00",
                    "2026-13-01T00:00:00Z",
                    "2026-11-25T24:00:00Z",
                    "2026-11-25T18:00:00.Z",
                    "2026-11-25T18:00:00+1:00",
                ][..],
            ),
            (
                StringFormat::Date,
                &["2026-11-25", "2024-02-29"][..],
                &[
                    "2026-2-1",
                    "2025-02-29",
                    "2026-04-31",
                    "26-11-25",
                    "2026-11-25T00:00:00Z",
                ][..],
            ),
            (
                StringFormat::Email,
                &["someone@example.com", "a.b+tag@sub.example.co.uk"][..],
                &[
                    "someone",
                    "a@b",
                    "@example.com",
                    "a b@example.com",
                    "a@-x.com",
                ][..],
            ),
            (
                StringFormat::Uri,
                &[
                    "https://example.com/x?y=1",
                    "urn:isbn:0451450523",
                    "mailto:a@b.c",
                ][..],
                &[
                    "example.com",
                    "/relative/path",
                    "https://exa mple.com",
                    "",
                    "https://",
                    "1http://x",
                ][..],
            ),
            (
                StringFormat::Uuid,
                &[
                    "0b5a3e52-6d2f-4b2c-9a6f-2b1f3c4d5e6f",
                    "0B5A3E52-6D2F-4B2C-9A6F-2B1F3C4D5E6F",
                ][..],
                &[
                    "0b5a3e526d2f4b2c9a6f2b1f3c4d5e6f",
                    "0b5a3e52-6d2f-4b2c-9a6f-2b1f3c4d5e6",
                    "g0000000-0000-0000-0000-000000000000",
                ][..],
            ),
        ] {
            for text in good {
                assert!(format.matches(text), "{format:?} refuses {text:?}");
            }
            for text in bad {
                assert!(!format.matches(text), "{format:?} accepts {text:?}");
            }
        }
    }
}
