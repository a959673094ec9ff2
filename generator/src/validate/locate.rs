//! Finds the line of a field path (`operations.read[2].params.owner`) in block-style YAML.
//!
//! Used for semantic diagnostics, whose paths come from the typed model rather than from the
//! parser. When part of a path cannot be found (flow style, say), the deepest line found wins.

use std::cell::RefCell;
use std::collections::HashMap;
use std::ops::Range;
use std::rc::Rc;

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

/// The children of one block of lines: keys at the block's column and list items at its
/// dash column, each with the range of lines it spans.
struct Block<'a> {
    keys: HashMap<&'a str, (usize, Range<usize>)>,
    items: Vec<(usize, Range<usize>)>,
}

/// Front matter measured once, with each block's children indexed the first time a path goes
/// through it, so that locating many diagnostics stays linear in the size of the file.
pub struct Locator<'a> {
    lines: Vec<Option<Line<'a>>>,
    blocks: RefCell<HashMap<(usize, usize), Rc<Block<'a>>>>,
}

impl<'a> Locator<'a> {
    /// Measures every line of `yaml`.
    pub fn new(yaml: &'a str) -> Self {
        Self {
            lines: yaml.lines().map(measure).collect(),
            blocks: RefCell::new(HashMap::new()),
        }
    }

    /// The 0-based line index of `path`, or of its deepest ancestor found.
    pub fn line_of(&self, path: &str) -> Option<usize> {
        let mut range = 0..self.lines.len();
        let mut found = None;
        for segment in segments(path) {
            let block = self.block(range.clone());
            let child = match segment {
                Segment::Key(key) => block.keys.get(key).cloned(),
                Segment::Index(index) => block.items.get(index).cloned(),
            };
            let Some((start, span)) = child else { break };
            found = Some(start);
            range = span;
        }
        found
    }

    fn block(&self, range: Range<usize>) -> Rc<Block<'a>> {
        let key = (range.start, range.end);
        if let Some(block) = self.blocks.borrow().get(&key) {
            return Rc::clone(block);
        }
        let block = Rc::new(self.index(range));
        self.blocks.borrow_mut().insert(key, Rc::clone(&block));
        block
    }

    fn index(&self, range: Range<usize>) -> Block<'a> {
        let measured: Vec<(usize, &Line<'a>)> = range
            .clone()
            .filter_map(|i| self.lines[i].as_ref().map(|line| (i, line)))
            .collect();
        let mut keys = HashMap::new();
        let mut items = Vec::new();
        if let Some(column) = measured.iter().map(|(_, line)| line.column).min() {
            // A key's block ends at the next line at its column or left of it; it may hold a
            // compact list whose dashes sit at the key's own column.
            let starts: Vec<usize> = measured
                .iter()
                .filter(|(_, line)| line.column <= column)
                .map(|(i, _)| *i)
                .collect();
            for (n, &start) in starts.iter().enumerate() {
                let end = starts.get(n + 1).copied().unwrap_or(range.end);
                if let Some(key) = self.lines[start].as_ref().and_then(|line| line.key) {
                    keys.entry(key).or_insert((start, start + 1..end));
                }
            }
        }
        if let Some(dash) = measured.iter().filter_map(|(_, line)| line.dash).min() {
            // An item ends at the next dash of its own column, or a line left of it.
            let starts: Vec<usize> = measured
                .iter()
                .filter(|(_, line)| line.column <= dash || line.dash.is_some_and(|d| d <= dash))
                .map(|(i, _)| *i)
                .collect();
            for (n, &start) in starts.iter().enumerate() {
                if self.lines[start].as_ref().and_then(|line| line.dash) == Some(dash) {
                    let end = starts.get(n + 1).copied().unwrap_or(range.end);
                    items.push((start, start..end));
                }
            }
        }
        Block { keys, items }
    }
}

/// The 0-based line index of `path` in `yaml`, or of its deepest ancestor found.
#[cfg(test)]
pub fn line_of(yaml: &str, path: &str) -> Option<usize> {
    Locator::new(yaml).line_of(path)
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
