//! Upstream text made fit to show a client (seed universal-adapter-runtime §11.3): one line,
//! no control characters, at most [`PREVIEW_CHARS`] characters, secrets redacted, and
//! withheld when it looks like a stack trace or a file path. HTML pages are reduced to their
//! text first.

use super::auth::Secrets;

/// How many characters of upstream text an error quotes (seed §7.3 uses 200).
pub(crate) const PREVIEW_CHARS: usize = 200;

/// How much of a non-JSON body is scanned to build its preview.
const PREVIEW_SCAN_CHARS: usize = 16 * 1024;

pub(crate) fn is_html(content_type: &str) -> bool {
    let lower = content_type.to_ascii_lowercase();
    lower.contains("text/html") || lower.contains("application/xhtml")
}

/// A short, safe rendering of a non-JSON body: HTML loses its tags, whitespace collapses.
pub(crate) fn preview(text: &str, content_type: Option<&str>, secrets: &Secrets) -> String {
    // A preview needs the first few hundred characters; bounding the input keeps tag
    // stripping and redaction cheap on a 10 MB page.
    let text = match text.char_indices().nth(PREVIEW_SCAN_CHARS) {
        Some((cut, _)) => &text[..cut],
        None => text,
    };
    let looks_html = content_type.is_some_and(is_html)
        || text.trim_start().starts_with('<') && text.contains('>');
    let plain = if looks_html {
        html_text(text)
    } else {
        text.to_owned()
    };
    let collapsed = plain.split_whitespace().collect::<Vec<_>>().join(" ");
    safe_line(&collapsed, secrets)
}

/// Text of an HTML page: tags, comments, scripts and styles removed, common entities decoded.
fn html_text(html: &str) -> String {
    // ASCII lowercasing keeps byte offsets, so `lower` indexes `html` too.
    let lower = html.to_ascii_lowercase();
    let mut out = String::with_capacity(html.len());
    let mut pos = 0;
    while let Some(found) = lower[pos..].find('<') {
        let start = pos + found;
        out.push_str(&html[pos..start]);
        out.push(' ');
        let tag = &lower[start..];
        let closing = if tag.starts_with("<!--") {
            "-->"
        } else if tag.starts_with("<script") {
            "</script>"
        } else if tag.starts_with("<style") {
            "</style>"
        } else {
            ">"
        };
        match tag.find(closing) {
            Some(end) => pos = start + end + closing.len(),
            None => {
                pos = html.len();
                break;
            }
        }
    }
    out.push_str(&html[pos..]);
    out.replace("&nbsp;", " ")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

/// One line of upstream text fit to show a client: the first line, no control characters,
/// at most [`PREVIEW_CHARS`] characters, secrets redacted, withheld if it looks like a stack
/// trace or a file path.
pub(crate) fn safe_line(text: &str, secrets: &Secrets) -> String {
    let redacted = secrets.redact(text);
    let first_line = redacted
        .lines()
        .find(|line| !line.trim().is_empty())
        .unwrap_or("");
    if looks_internal(first_line) || looks_internal(&redacted) {
        return "(upstream detail withheld: it looked like internal diagnostics)".to_owned();
    }
    let clean: String = first_line
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let clean = clean.trim();
    let mut cut: String = clean.chars().take(PREVIEW_CHARS).collect();
    if cut.len() < clean.len() {
        cut.push('…');
    }
    cut
}

/// Stack traces and file paths (seed §11.3): Java/JS frames, Python tracebacks, Rust panics,
/// absolute Unix and Windows paths, source-file line references.
fn looks_internal(text: &str) -> bool {
    const MARKERS: &[&str] = &[
        "Traceback (most recent call last)",
        "panicked at",
        "stack backtrace",
        "\tat ",
        "    at ",
        "Exception in thread",
        "/home/",
        "/usr/",
        "/var/",
        "/etc/",
        "/opt/",
        "/srv/",
        "/tmp/",
        ":\\",
    ];
    const SOURCE_EXTENSIONS: &[&str] = &[
        ".rs:", ".py\"", ".py:", ".java:", ".js:", ".ts:", ".go:", ".rb:", ".php", ".cs:",
    ];
    MARKERS.iter().any(|m| text.contains(m)) || SOURCE_EXTENSIONS.iter().any(|m| text.contains(m))
}
