//! Descriptions without their HTML: many OpenAPI documents (Stripe's, AWS's) write HTML in
//! descriptions, which an adapter schema shows as plain text.

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

#[cfg(test)]
mod tests {
    use super::plain;

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
}
