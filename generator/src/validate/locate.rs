//! Finds the line of a field path (`operations.read[2].params.owner`) in block-style YAML.
//!
//! Used for semantic diagnostics, whose paths come from the typed model rather than from the
//! parser. When part of a path cannot be found (flow style, say), the deepest line found wins.

/// One line of front matter, measured.
struct Line<'a> {
    /// Column of the key or scalar after any `- ` markers.
    column: usize,
    /// Column of the first `- ` marker, when the line starts a list item.
    dash: Option<usize>,
    /// The key, when the line holds `key:`.
    key: Option<&'a str>,
}

fn measure(text: &str) -> Option<Line<'_>> {
    let trimmed = text.trim_start();
    if trimmed.is_empty() || trimmed.starts_with('#') {
        return None;
    }
    let indent = text.len() - trimmed.len();
    let mut rest = trimmed;
    let mut column = indent;
    let mut dash = None;
    while let Some(after) = rest
        .strip_prefix("- ")
        .or(if rest == "-" { Some("") } else { None })
    {
        dash.get_or_insert(column);
        let inner = after.trim_start();
        column += rest.len() - inner.len();
        rest = inner;
    }
    let key = rest
        .split_once(':')
        .filter(|(_, after)| after.is_empty() || after.starts_with(' '))
        .map(|(key, _)| key.trim().trim_matches(['"', '\'']));
    Some(Line { column, dash, key })
}

enum Segment<'a> {
    Key(&'a str),
    Index(usize),
}

fn segments(path: &str) -> Vec<Segment<'_>> {
    let mut out = Vec::new();
    for part in path.split('.').filter(|p| !p.is_empty()) {
        let (key, indices) = part
            .split_once('[')
            .map_or((part, ""), |(k, rest)| (k, rest));
        if !key.is_empty() {
            out.push(Segment::Key(key));
        }
        for index in indices.split('[') {
            if let Ok(i) = index.trim_end_matches(']').parse() {
                out.push(Segment::Index(i));
            }
        }
    }
    out
}

/// The 0-based line index of `path` in `yaml`, or of its deepest ancestor found.
pub fn line_of(yaml: &str, path: &str) -> Option<usize> {
    let lines: Vec<Option<Line<'_>>> = yaml.lines().map(measure).collect();
    let mut range = 0..lines.len();
    let mut found = None;
    for segment in segments(path) {
        let measured = || {
            range
                .clone()
                .filter_map(|i| lines[i].as_ref().map(|l| (i, l)))
        };
        let (start, column) = match segment {
            Segment::Key(key) => {
                let Some(block) = measured().map(|(_, l)| l.column).min() else {
                    break;
                };
                let Some((i, _)) =
                    measured().find(|(_, l)| l.column == block && l.key == Some(key))
                else {
                    break;
                };
                (i, block)
            }
            Segment::Index(index) => {
                let Some(dash) = measured().filter_map(|(_, l)| l.dash).min() else {
                    break;
                };
                let Some((i, _)) = measured().filter(|(_, l)| l.dash == Some(dash)).nth(index)
                else {
                    break;
                };
                (i, dash)
            }
        };
        found = Some(start);
        // A key's block may hold a compact list whose dashes sit at the key's column; an
        // item ends at the next dash of its own column.
        let is_item = matches!(segment, Segment::Index(_));
        let end = measured()
            .skip_while(|(i, _)| *i <= start)
            .find(|(_, l)| l.column <= column || is_item && l.dash.is_some_and(|d| d <= column))
            .map_or(range.end, |(i, _)| i);
        range = if is_item { start..end } else { start + 1..end };
    }
    found
}

#[cfg(test)]
mod tests {
    use super::line_of;

    const YAML: &str = "\
name: x
operations:
  read:
    - name: a
      maps_to: GET /a
    - name: b
      params:
        per_page:
          type: integer
          default: 30
  update:
  - name: c
";

    #[test]
    fn finds_nested_paths() {
        for (path, line) in [
            ("name", 0),
            ("operations.read", 2),
            ("operations.read[0].maps_to", 4),
            ("operations.read[1]", 5),
            ("operations.read[1].name", 5),
            ("operations.read[1].params.per_page.default", 9),
            ("operations.update[0].name", 11),
            ("operations.read[1].params.missing", 6),
        ] {
            assert_eq!(line_of(YAML, path), Some(line), "{path}");
        }
    }
}
