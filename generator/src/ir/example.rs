//! Example values for params: what introspection's `examples` and the tool descriptions'
//! quick starts show, chosen so the example request passes the param's own checks.

use regex_syntax::hir::{Class, Hir, HirKind};
use serde_json::{Value, json};

use aqlgen_model::StringFormat;

use crate::schema::ParamType;

/// A value of `ty` that passes the param's checks: the first enum value, else the default,
/// else a placeholder within `minimum..=maximum`, matching `pattern` when one can be built,
/// else of the checked `format`, of a length within `lengths`.
pub fn example(
    name: &str,
    ty: ParamType,
    allowed: &[Value],
    default: Option<&Value>,
    (minimum, maximum): (Option<f64>, Option<f64>),
    lengths: (Option<u64>, Option<u64>),
    (pattern, format): (Option<&str>, Option<StringFormat>),
) -> Value {
    if let Some(value) = allowed.first().or(default) {
        return value.clone();
    }
    let within = |value: f64| {
        let value = minimum.map_or(value, |minimum| value.max(minimum));
        maximum.map_or(value, |maximum| value.min(maximum))
    };
    match ty {
        ParamType::String => {
            // The pattern's shortest match, unless the format refuses it (`0000-00-00` is
            // no date); then the format's sample, when the pattern takes it.
            let fits_format = |text: &String| format.is_none_or(|format| format.matches(text));
            let fits_pattern = |text: &&str| {
                pattern.is_none_or(|pattern| {
                    regex::Regex::new(pattern).is_ok_and(|regex| regex.is_match(text))
                })
            };
            let fits_length = |text: &String| aqlgen_model::length_within(text, lengths);
            pattern
                .and_then(shortest_match)
                .filter(fits_format)
                .or_else(|| {
                    format
                        .map(StringFormat::sample)
                        .filter(fits_pattern)
                        .map(str::to_owned)
                })
                .filter(fits_length)
                .or_else(|| {
                    // A plain placeholder, stretched or cut to the lengths it must have.
                    let mut text = format!("<{name}>");
                    let min = lengths.0.unwrap_or(0) as usize;
                    let max = lengths.1.map_or(usize::MAX, |max| max as usize);
                    while text.chars().count() < min {
                        text.push('x');
                    }
                    let text: String = text.chars().take(max).collect();
                    (pattern.is_none() && format.is_none()).then_some(text)
                })
                .map_or_else(|| Value::from(format!("<{name}>")), Value::from)
        }
        ParamType::Integer => Value::from(within(1.0).round() as i64),
        ParamType::Number => json!(within(1.0)),
        ParamType::Boolean => Value::from(true),
        ParamType::Array => json!([]),
        ParamType::Object => json!({}),
    }
}

/// A short string `pattern` matches, when the pattern's shape allows building one directly
/// (literals, classes, repetitions, alternations), checked against the compiled regex.
fn shortest_match(pattern: &str) -> Option<String> {
    let hir = regex_syntax::parse(pattern).ok()?;
    let mut text = String::new();
    build(&hir, &mut text)?;
    let regex = regex::Regex::new(pattern).ok()?;
    regex.is_match(&text).then_some(text)
}

fn build(hir: &Hir, text: &mut String) -> Option<()> {
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => Some(()),
        HirKind::Literal(literal) => {
            text.push_str(std::str::from_utf8(&literal.0).ok()?);
            Some(())
        }
        HirKind::Class(Class::Unicode(class)) => {
            let range = class.ranges().first()?;
            // A letter or digit reads better than the class's first code point, when the
            // class holds one.
            let readable = ['a', 'A', '0'].into_iter().find(|c| {
                class
                    .ranges()
                    .iter()
                    .any(|r| r.start() <= *c && *c <= r.end())
            });
            text.push(readable.unwrap_or(range.start()));
            Some(())
        }
        HirKind::Class(Class::Bytes(class)) => {
            let byte = class.ranges().first()?.start();
            text.push(char::from(byte).is_ascii().then_some(char::from(byte))?);
            Some(())
        }
        HirKind::Repetition(repetition) => {
            for _ in 0..repetition.min {
                build(&repetition.sub, text)?;
            }
            Some(())
        }
        HirKind::Capture(capture) => build(&capture.sub, text),
        HirKind::Concat(parts) => parts.iter().try_for_each(|part| build(part, text)),
        HirKind::Alternation(branches) => build(branches.first()?, text),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn examples_pass_their_checks() {
        for (pattern, expected) in [
            ("^[A-Za-z0-9-]+$", Some("a")),
            ("^[0-9]{4}-[0-9]{2}-[0-9]{2}$", Some("0000-00-00")),
            ("^(open|closed)$", Some("open")),
            ("^v\\d+(\\.\\d+)*$", Some("v0")),
            ("^名前.*$", Some("名前")),
        ] {
            assert_eq!(shortest_match(pattern).as_deref(), expected, "{pattern}");
        }
        let bounded = example(
            "n",
            ParamType::Integer,
            &[],
            None,
            (Some(5.0), Some(9.0)),
            (None, None),
            (None, None),
        );
        assert_eq!(bounded, json!(5));
        let below = example(
            "n",
            ParamType::Integer,
            &[],
            None,
            (None, Some(-3.0)),
            (None, None),
            (None, None),
        );
        assert_eq!(below, json!(-3));
        let fallback = example(
            "id",
            ParamType::String,
            &[],
            None,
            (None, None),
            (None, None),
            (None, None),
        );
        let date = example(
            "due",
            ParamType::String,
            &[],
            None,
            (None, None),
            (None, None),
            (
                Some("^[0-9]{4}-[0-9]{2}-[0-9]{2}$"),
                Some(StringFormat::Date),
            ),
        );
        assert_eq!(
            date,
            json!("2026-01-01"),
            "a date the pattern and the format take"
        );
        assert_eq!(fallback, json!("<id>"));
        let listed = example(
            "k",
            ParamType::String,
            &[json!("x")],
            Some(&json!("y")),
            (None, None),
            (None, None),
            (None, None),
        );
        assert_eq!(listed, json!("x"));
        let sized = example(
            "sid",
            ParamType::String,
            &[],
            None,
            (None, None),
            (Some(10), Some(12)),
            (None, None),
        );
        assert_eq!(sized, json!("<sid>xxxxx"));
        let cut = example(
            "account_sid",
            ParamType::String,
            &[],
            None,
            (None, None),
            (None, Some(4)),
            (None, None),
        );
        assert_eq!(cut, json!("<acc"));
    }
}
