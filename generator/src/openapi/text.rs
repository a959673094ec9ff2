//! The adapter file an import writes: YAML front matter, then a Markdown summary of what was
//! imported and what was not.

use std::collections::BTreeMap;

use aqlgen_model::{Category, DangerLevel, Vocabulary};

use super::classify::Meaning;
use super::{Completeness, Warning};
use crate::Error;
use crate::schema::{AdapterSchema, Operation, Operations};

/// The adapter file for `schema`, imported from the OpenAPI `version` description of the API
/// called `title`, with what the import left out, how to obtain the credential
/// (`auth_notes`, Markdown) and the operations whose words decided their category or danger
/// level.
///
/// # Errors
///
/// [`Error::Config`] when the schema cannot be written as YAML.
pub fn adapter(
    schema: &AdapterSchema,
    title: &str,
    version: &str,
    auth_notes: Option<&str>,
    readings: &[Reading],
    warnings: &[Warning],
    completeness: &Completeness,
) -> Result<String, Error> {
    let yaml = serde_yaml::to_string(schema)
        .map_err(|error| Error::Config(format!("writing the front matter: {error}")))?;
    let yaml = quote_yaml_1_1(&yaml);
    Ok(format!(
        "---\n{yaml}---\n\n{}{}{}",
        summary(
            title,
            version,
            &counts(&schema.operations),
            warnings,
            completeness
        ),
        auth_notes.unwrap_or_default(),
        decided_by_words(&schema.operations, readings)
    ))
}

/// An operation whose verb, not its method, decided its category or raised its danger
/// level: listed in the adapter's Markdown for review.
#[derive(Debug, Clone)]
pub struct Reading {
    name: String,
    maps_to: String,
    category: Category,
    danger: DangerLevel,
    why: String,
}

impl Reading {
    /// What `meaning` made of `operation`, imported into `category`.
    pub fn new(operation: &Operation, category: Category, meaning: &Meaning) -> Self {
        let danger = operation.danger_level.unwrap_or_else(|| {
            aqlgen_model::implied_danger(category, &operation.name)
                .map_or_else(|| DangerLevel::default_for(category), |(level, _)| level)
        });
        let why = match meaning.verb {
            None => String::new(),
            Some((verb, source)) => {
                let mut why = format!("`{}` in its {}", verb.word, source.as_str());
                if let Some((_, reason)) = verb.danger.filter(|_| category != Category::Read) {
                    why.push_str(&format!(": {reason}"));
                }
                why
            }
        };
        Self {
            name: operation.name.clone(),
            maps_to: operation.maps_to.clone(),
            category,
            danger,
            why,
        }
    }
}

/// The Markdown table of the `readings` whose operations are still in `operations`.
fn decided_by_words(operations: &Operations, readings: &[Reading]) -> String {
    let kept: Vec<&Reading> = readings
        .iter()
        .filter(|reading| {
            operations.families().iter().any(|(category, list)| {
                *category == reading.category
                    && list.iter().any(|operation| operation.name == reading.name)
            })
        })
        .collect();
    if kept.is_empty() {
        return String::new();
    }
    let cell = |text: &str| text.replace('|', "\\|");
    let mut text = format!(
        "\n## Decided by their words\n\n{} operations have a category or danger level their \
         method alone would not give: their verb decided. Review them.\n\n\
         | Operation | Endpoint | Category | Danger | Why |\n|---|---|---|---|---|\n",
        kept.len()
    );
    for reading in kept {
        text.push_str(&format!(
            "| {} | {} | {} | {} | {} |\n",
            reading.name,
            cell(&reading.maps_to),
            reading.category.family(),
            reading.danger.as_str(),
            cell(&reading.why)
        ));
    }
    text
}

/// Operations per category, for the summary.
pub fn counts(operations: &Operations) -> BTreeMap<&'static str, usize> {
    operations
        .families()
        .into_iter()
        .filter(|(_, list)| !list.is_empty())
        .map(|(category, list)| (category.family(), list.len()))
        .collect()
}

/// The Markdown body: what was imported, per category, and the warnings per reason.
fn summary(
    title: &str,
    version: &str,
    categories: &BTreeMap<&'static str, usize>,
    warnings: &[Warning],
    completeness: &Completeness,
) -> String {
    let mut text = format!(
        "# {title}\n\nImported by `aqlgen import-openapi` from an OpenAPI {version} description.\n\n\
         | Category | Operations |\n|---|---|\n"
    );
    for category in Category::NAMES {
        text.push_str(&format!(
            "| {category} | {} |\n",
            categories.get(category).copied().unwrap_or(0)
        ));
    }
    text.push_str(&format!(
        "\n{} of the {} operations are complete: they carry every param, body and credential \
         their description has.\n",
        completeness.complete, completeness.kept
    ));
    text.push_str(&format!("\n{} warnings", warnings.len()));
    if warnings.is_empty() {
        text.push_str(".\n");
        return text;
    }
    text.push_str(", by reason:\n\n");
    let mut by_reason: BTreeMap<String, usize> = BTreeMap::new();
    for warning in warnings {
        *by_reason.entry(reason_kind(&warning.reason)).or_default() += 1;
    }
    for (reason, count) in by_reason {
        text.push_str(&format!("- {reason}: {count}\n"));
    }
    text
}

/// A warning's reason with backquoted names removed, for counting by kind.
pub fn reason_kind(reason: &str) -> String {
    let mut out = String::new();
    let mut inside = false;
    for character in reason.chars() {
        if character == '`' {
            inside = !inside;
            if inside {
                out.push('…');
            }
        } else if !inside {
            out.push(character);
        }
    }
    out
}

/// HTML elements whose tags are markup in a description (HTML, and the DocBook-like tags of
/// AWS descriptions); any other `<word>` is kept as text, since descriptions write
/// placeholders (`<owner>/<repo>`) and XML examples that way.
const TAGS: &str = "a abbr b big blockquote body br caption center cite code col dd del \
    details dfn div dl dt em font fullname h1 h2 h3 h4 h5 h6 head hr html i img important ins \
    kbd li mark note ol p para pre q replaceable s samp section small span strike strong sub \
    summary sup table tbody td tfoot th thead tr tt u ul var wbr";

/// Tags that end a line: what follows starts a new one, so a description's first line is
/// its first paragraph.
const BLOCK_TAGS: &str = "blockquote br dd div dl dt h1 h2 h3 h4 h5 h6 hr important note ol p \
    para pre section table tr ul";

/// `text` without its HTML: tags of [`TAGS`] and comments removed (a block tag such as `<p>`
/// or `<br>` becomes a line break, a list item a line starting `- `), entities (`&amp;`,
/// `&#39;`, `&#x2014;`) decoded.
pub fn plain(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains(['<', '&']) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find('<') {
        out.push_str(&rest[..start]);
        let tail = &rest[start..];
        if let Some(comment) = tail.strip_prefix("<!--") {
            rest = comment.split_once("-->").map_or("", |(_, after)| after);
            continue;
        }
        match tag(tail) {
            Some((name, closing, length)) => {
                if BLOCK_TAGS.split_whitespace().any(|block| block == name) {
                    out.push('\n');
                } else if name == "li" && !closing {
                    out.push_str("\n- ");
                }
                rest = &tail[length..];
            }
            None => {
                out.push('<');
                rest = &tail[1..];
            }
        }
    }
    out.push_str(rest);
    std::borrow::Cow::Owned(entities(&out))
}

/// The element name, whether it closes, and the length of the tag `text` starts with
/// (`<p>`, `</a>`, `<a href="...">`, `<br/>`), when it is one of [`TAGS`].
fn tag(text: &str) -> Option<(String, bool, usize)> {
    let inner = text.strip_prefix('<')?;
    let closing = inner.starts_with('/');
    let inner = inner.strip_prefix('/').unwrap_or(inner);
    let name_length = inner
        .find(|c: char| !c.is_ascii_alphanumeric())
        .unwrap_or(inner.len());
    let name = inner[..name_length].to_ascii_lowercase();
    if !TAGS.split_whitespace().any(|known| known == name) {
        return None;
    }
    let after = &inner[name_length..];
    let end = match after.chars().next()? {
        '>' => 0,
        '/' if after.starts_with("/>") => 1,
        c if c.is_whitespace() => after.find('>')?,
        _ => return None,
    };
    Some((name, closing, text.len() - after.len() + end + 1))
}

/// `text` with its character references decoded; an unknown one is kept as written.
fn entities(text: &str) -> String {
    const NAMED: &[(&str, &str)] = &[
        ("amp", "&"),
        ("lt", "<"),
        ("gt", ">"),
        ("quot", "\""),
        ("apos", "'"),
        ("nbsp", " "),
        ("ndash", "–"),
        ("mdash", "—"),
        ("hellip", "…"),
        ("lsquo", "‘"),
        ("rsquo", "’"),
        ("ldquo", "“"),
        ("rdquo", "”"),
        ("laquo", "«"),
        ("raquo", "»"),
        ("bull", "•"),
        ("middot", "·"),
        ("times", "×"),
        ("copy", "©"),
        ("reg", "®"),
        ("trade", "™"),
    ];
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find('&') {
        out.push_str(&rest[..start]);
        let tail = &rest[start + 1..];
        let decoded = tail.find(';').filter(|end| *end <= 10).and_then(|end| {
            let name = &tail[..end];
            let character = match name.strip_prefix('#') {
                Some(number) => {
                    let code = match number.strip_prefix(['x', 'X']) {
                        Some(hex) => u32::from_str_radix(hex, 16).ok(),
                        None => number.parse().ok(),
                    };
                    char::from_u32(code?)?.to_string()
                }
                None => NAMED.iter().find(|(known, _)| *known == name)?.1.to_owned(),
            };
            Some((character, end))
        });
        match decoded {
            Some((character, end)) => {
                out.push_str(&character);
                rest = &tail[end + 1..];
            }
            None => {
                out.push('&');
                rest = tail;
            }
        }
    }
    out.push_str(rest);
    out
}

/// Plain scalars a YAML 1.1 reader (PyYAML, older js-yaml, Ruby's Psych) takes for a boolean
/// or null, compared case-insensitively.
const YAML_1_1_WORDS: &str = "y n yes no on off true false null ~";

/// `yaml` as serde_yaml writes it (YAML 1.2, which quotes the strings `true`, `false`,
/// `null` and `~` but not `yes` or `on`), with every plain key or scalar value that a YAML
/// 1.1 reader would take for a boolean or null single-quoted: `on:` becomes `'on':`, `- no`
/// becomes `- 'no'`. A plain `true`, `false` or `null` is a real boolean or null and stays;
/// block scalars (`|-` text) are left as they are.
pub fn quote_yaml_1_1(yaml: &str) -> String {
    let ambiguous = |token: &str| {
        !matches!(token, "true" | "false" | "null" | "~")
            && YAML_1_1_WORDS
                .split_whitespace()
                .any(|word| word.eq_ignore_ascii_case(token))
    };
    let mut out = String::with_capacity(yaml.len());
    // The indentation of the key that opened a block scalar, while inside one.
    let mut block: Option<usize> = None;
    for line in yaml.split_inclusive('\n') {
        let content = line.trim_end_matches('\n');
        let indent = content.len() - content.trim_start().len();
        if let Some(opened) = block {
            if content.trim().is_empty() || indent > opened {
                out.push_str(line);
                continue;
            }
            block = None;
        }
        let mut rewritten = String::with_capacity(line.len() + 4);
        rewritten.push_str(&content[..indent]);
        let mut rest = &content[indent..];
        while let Some(after) = rest.strip_prefix("- ") {
            rewritten.push_str("- ");
            rest = after;
        }
        let (key, value) = match rest.find(": ") {
            Some(colon) => (Some(&rest[..colon]), Some(&rest[colon + 2..])),
            None => match rest.strip_suffix(':') {
                Some(key) => (Some(key), None),
                None => (None, Some(rest)),
            },
        };
        if let Some(key) = key {
            if ambiguous(key) {
                rewritten.push_str(&format!("'{key}':"));
            } else {
                rewritten.push_str(key);
                rewritten.push(':');
            }
            if value.is_some() {
                rewritten.push(' ');
            }
        }
        if let Some(value) = value {
            if ambiguous(value) {
                rewritten.push_str(&format!("'{value}'"));
            } else {
                if value.starts_with(['|', '>']) {
                    block = Some(indent);
                }
                rewritten.push_str(value);
            }
        }
        out.push_str(&rewritten);
        out.push_str(&line[content.len()..]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{plain, quote_yaml_1_1};

    #[test]
    fn html_becomes_text() {
        assert_eq!(
            plain("<p>Updates the <code>customer</code>.</p><p>More.</p>"),
            "\nUpdates the customer.\n\nMore.\n"
        );
        assert_eq!(plain("One<br>two<br/>three<br />"), "One\ntwo\nthree\n");
        assert_eq!(
            plain(
                r#"See <a href="https://x.y">the docs</a> &amp; &lt;b&gt; &#39;q&#39; &#x2014; &bogus;"#
            ),
            "See the docs & <b> 'q' — &bogus;"
        );
        assert_eq!(plain("<owner>/<repo> & a < b"), "<owner>/<repo> & a < b");
        assert_eq!(plain("x<!-- hidden -->y"), "xy");
        assert_eq!(plain("<ul><li>one</li></ul>"), "\n\n- one\n");
    }

    #[test]
    fn yaml_1_1_booleans_are_quoted() {
        let written = "params:\n  on:\n    type: string\n    required: true\n    enum:\n    - yes\n    - No\n    - maybe\n    - NULL\n    default: off\n  y: 1\ndescription: |-\n  on\n  no\nnext: N\nlast: null\n";
        assert_eq!(
            quote_yaml_1_1(written),
            "params:\n  'on':\n    type: string\n    required: true\n    enum:\n    - 'yes'\n    - 'No'\n    - maybe\n    - 'NULL'\n    default: 'off'\n  'y': 1\ndescription: |-\n  on\n  no\nnext: 'N'\nlast: null\n"
        );
    }
}
