//! Wall-clock times as the protocol writes them.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// `2026-11-23T01:02:03Z`.
pub fn rfc3339(time: SystemTime) -> String {
    let seconds = unix_seconds(time);
    let days = i64::try_from(seconds / 86_400).unwrap_or(0);
    let rest = seconds % 86_400;
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60
    )
}

/// Whole seconds since 1970-01-01T00:00:00Z; 0 for earlier times.
pub fn unix_seconds(time: SystemTime) -> u64 {
    time.duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

/// The time `seconds` after the epoch.
pub fn from_unix_seconds(seconds: u64) -> SystemTime {
    UNIX_EPOCH + Duration::from_secs(seconds)
}

/// Seconds since 1970-01-01T00:00:00Z of an RFC 3339 date-time (`2026-11-29T05:00:00Z`,
/// `...+01:00`, with or without fractions of a second) or a date (`2026-11-29`, midnight UTC);
/// `None` for anything else.
pub fn parse_instant(text: &str) -> Option<i64> {
    let text = text.trim();
    let number = |range: std::ops::Range<usize>| -> Option<i64> {
        let digits = text.get(range)?;
        digits
            .bytes()
            .all(|b| b.is_ascii_digit())
            .then(|| digits.parse().ok())?
    };
    let (year, month, day) = (number(0..4)?, number(5..7)?, number(8..10)?);
    if text.get(4..5)? != "-" || text.get(7..8)? != "-" || !(1..=12).contains(&month) {
        return None;
    }
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let days_in_month = [
        31,
        if leap { 29 } else { 28 },
        31,
        30,
        31,
        30,
        31,
        31,
        30,
        31,
        30,
        31,
    ];
    if day < 1 || day > days_in_month[(month - 1) as usize] {
        return None;
    }
    // Days since 1970-01-01 of a civil date (Howard Hinnant's algorithm).
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    if text.len() == 10 {
        return Some(days * 86_400);
    }
    if !matches!(text.get(10..11)?, "T" | "t" | " ") || text.get(13..14)? != ":" {
        return None;
    }
    let (hour, minute) = (number(11..13)?, number(14..16)?);
    let (second, mut rest) = if text.get(16..17) == Some(":") {
        (number(17..19)?, text.get(19..)?)
    } else {
        (0, text.get(16..)?)
    };
    if hour > 23 || minute > 59 || second > 60 {
        return None;
    }
    if let Some(fraction) = rest.strip_prefix('.') {
        let digits = fraction.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            return None;
        }
        rest = &fraction[digits..];
    }
    let offset = match rest {
        "Z" | "z" => 0,
        _ => {
            let sign = match rest.get(0..1)? {
                "+" => 1,
                "-" => -1,
                _ => return None,
            };
            let zone = rest.get(1..)?;
            let (hours, minutes) = zone.split_once(':')?;
            if hours.len() != 2 || minutes.len() != 2 {
                return None;
            }
            sign * (hours.parse::<i64>().ok()? * 3600 + minutes.parse::<i64>().ok()? * 60)
        }
    };
    Some(days * 86_400 + hour * 3600 + minute * 60 + second - offset)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instants_are_read() {
        assert_eq!(parse_instant("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(parse_instant("2024-02-29T23:59:59Z"), Some(1_709_251_199));
        assert_eq!(parse_instant("2024-02-29"), Some(1_709_164_800));
        assert_eq!(
            parse_instant("2024-03-01T00:59:59.123+01:00"),
            Some(1_709_251_199)
        );
        assert_eq!(parse_instant("1969-12-31T23:00:00-01:00"), Some(0));
        for bad in [
            "2023-02-29",
            "2024-13-01",
            "2024-01-01T25:00:00Z",
            "24-01-01",
            "2024-01-01T00:00:00",
            "x",
            "",
        ] {
            assert_eq!(parse_instant(bad), None, "{bad}");
        }
    }

    #[test]
    fn rfc3339_dates() {
        assert_eq!(rfc3339(UNIX_EPOCH), "1970-01-01T00:00:00Z");
        assert_eq!(
            rfc3339(from_unix_seconds(1_709_251_199)),
            "2024-02-29T23:59:59Z"
        );
        assert_eq!(unix_seconds(from_unix_seconds(42)), 42);
    }
}
