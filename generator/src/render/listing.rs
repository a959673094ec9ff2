//! How a tool description names a set of operations (seed mcp-integration §2.1: "for large
//! operation sets, prefer introspection over enumeration"), and which operation it features.

use serde_json::{Value, json};

use crate::ir::{Category, DangerLevel, Operation};

/// A family names every operation while it has at most this many...
const LIST_ALL_MAX_OPERATIONS: usize = 25;
/// ...and their names, joined by `", "`, take at most this many characters.
const LIST_ALL_MAX_CHARS: usize = 400;
/// Name-prefix groups a grouped CRUDE family tool shows before "and N more groups".
pub const FAMILY_GROUPS_SHOWN: usize = 20;
/// Name-prefix groups each category of the single tool shows: one tool carries all five.
pub const SINGLE_GROUPS_SHOWN: usize = 8;

/// How a tool description names a set of operations (seed mcp-integration §2.1: "for large
/// operation sets, prefer introspection over enumeration").
///
/// Every name, when there are at most [`LIST_ALL_MAX_OPERATIONS`] and they fit in
/// [`LIST_ALL_MAX_CHARS`]. Otherwise the count and the groups by name prefix (the first
/// snake_case word: `repos_*`), biggest first, ties by prefix, the first `shown` of them.
#[derive(Debug, Clone, PartialEq)]
pub struct Listing {
    pub grouped: bool,
    pub names: Vec<String>,
    pub total: usize,
    /// `(pattern, count, prefix)`, biggest first.
    pub groups: Vec<(String, usize, String)>,
    pub more_groups: usize,
}

impl Listing {
    pub fn new(operations: &[&Operation], shown: usize) -> Self {
        let names: Vec<String> = operations.iter().map(|op| op.name.clone()).collect();
        let joined =
            names.iter().map(String::len).sum::<usize>() + 2 * names.len().saturating_sub(1);
        let grouped = names.len() > LIST_ALL_MAX_OPERATIONS || joined > LIST_ALL_MAX_CHARS;
        if !grouped {
            // What the safety gate may stop carries its danger level.
            let labelled = operations
                .iter()
                .map(|op| {
                    if op.danger >= DangerLevel::Destructive {
                        format!("{} ({})", op.name, op.danger)
                    } else {
                        op.name.clone()
                    }
                })
                .collect();
            return Self {
                grouped,
                total: names.len(),
                names: labelled,
                groups: Vec::new(),
                more_groups: 0,
            };
        }
        // prefix -> (count, whether a name is the bare prefix)
        let mut counts: std::collections::BTreeMap<&str, (usize, bool)> =
            std::collections::BTreeMap::new();
        for name in &names {
            let prefix = name_prefix(name);
            let entry = counts.entry(prefix).or_default();
            entry.0 += 1;
            entry.1 |= prefix.len() == name.len();
        }
        let mut groups: Vec<(String, usize, String)> = counts
            .into_iter()
            .map(|(prefix, (count, bare))| {
                let pattern = if bare {
                    format!("{prefix}*")
                } else {
                    format!("{prefix}_*")
                };
                (pattern, count, prefix.to_owned())
            })
            .collect();
        // Stable: equal counts stay in prefix order.
        groups.sort_by_key(|group| std::cmp::Reverse(group.1));
        let more_groups = groups.len().saturating_sub(shown);
        groups.truncate(shown);
        Self {
            grouped,
            total: names.len(),
            names: Vec::new(),
            groups,
            more_groups,
        }
    }

    /// The operation a description shows as its example: the first one, or in a grouped
    /// listing one of the biggest group, preferring names with one of `verbs` as a word, then
    /// the shortest name (`repos_get`), which tends to be the plainest.
    pub fn featured<'a>(
        &self,
        operations: &[&'a Operation],
        verbs: &[&str],
    ) -> Option<&'a Operation> {
        let prefix = match self.groups.first() {
            Some((_, _, prefix)) if self.grouped => prefix.as_str(),
            _ => return operations.first().copied(),
        };
        operations
            .iter()
            .copied()
            .filter(|op| name_prefix(&op.name) == prefix)
            .min_by_key(|op| {
                let has_verb = op.name.split('_').any(|word| verbs.contains(&word));
                (!has_verb, op.name.len())
            })
    }

    pub fn context(&self) -> Value {
        let groups: Vec<String> = self
            .groups
            .iter()
            .map(|(pattern, count, _)| format!("{pattern} ({count})"))
            .collect();
        json!({
            "grouped": self.grouped, "names": self.names, "total": self.total,
            "groups": groups, "more_groups": self.more_groups,
        })
    }
}

/// Name words that say what an operation of `category` does, for picking an example.
pub fn verbs(category: Category) -> &'static [&'static str] {
    match category {
        Category::Create => &["create"],
        Category::Read => &["get", "list"],
        Category::Update => &["update"],
        Category::Delete => &["delete"],
        Category::Execute => &[],
    }
}

/// The first snake_case word of an operation name: `repos` of `repos_get`.
fn name_prefix(name: &str) -> &str {
    name.split('_').next().unwrap_or(name)
}

/// A `search` value that finds `operation`: the first two words of its name, and more while
/// the last one is shorter than three letters (`actions re run`).
pub fn search_words(operation: &Operation) -> String {
    let mut words: Vec<&str> = Vec::new();
    for word in operation.name.split('_').filter(|word| !word.is_empty()) {
        if words.len() >= 2 && words.last().is_some_and(|last| last.len() >= 3) {
            break;
        }
        words.push(word);
    }
    words.join(" ")
}

#[cfg(test)]
mod tests {
    use super::{Listing, search_words};
    use crate::ir::{Category, Operation};
    use crate::render::test_schemas::{names, schema};

    fn operations(read: &[String], execute: &[String]) -> Vec<Operation> {
        crate::check_text("big.md", &schema(read, execute))
            .expect("the test schema is valid")
            .lowered
            .operations
    }

    #[test]
    fn small_families_list_every_name() {
        // (operations, name length) -> grouped
        let table: &[(usize, &str, bool)] = &[
            (1, "a", false),
            (25, "r", false),
            (26, "r", true),
            // 12 names of 30 characters: 12 * 30 + 11 * 2 = 382 characters
            (12, "a_twenty_three_letters_ab", false),
            // 13 names: 13 * 30 + 12 * 2 = 414 characters, over the budget of 400
            (13, "a_twenty_three_letters_ab", true),
        ];
        for (count, prefix, grouped) in table {
            let read = names(prefix, *count);
            let operations = operations(&read, &[]);
            let refs: Vec<&Operation> = operations.iter().collect();
            let listing = Listing::new(&refs, 20);
            assert_eq!(listing.grouped, *grouped, "{count} x {prefix}");
            assert_eq!(listing.total, *count);
            if !grouped {
                assert_eq!(listing.names, read);
            }
        }
    }

    #[test]
    fn large_families_group_by_first_word_biggest_first() {
        let mut read = names("repos", 8);
        read.extend(names("issues", 6));
        read.extend(names("pulls", 6));
        read.extend(names("actions", 4));
        read.extend((0..20).map(|i| format!("g{i:02}_get")));
        read.push("zen".to_owned());
        read.push("zen_quote".to_owned());
        let operations = operations(&read, &[]);
        let refs: Vec<&Operation> = operations.iter().collect();
        let listing = Listing::new(&refs, 6);
        assert!(listing.grouped);
        assert_eq!(listing.total, 46);
        let shown: Vec<(&str, usize)> = listing
            .groups
            .iter()
            .map(|(pattern, count, _)| (pattern.as_str(), *count))
            .collect();
        // Ties keep prefix order; a bare `zen` makes the pattern `zen*`.
        assert_eq!(
            shown,
            [
                ("repos_*", 8),
                ("issues_*", 6),
                ("pulls_*", 6),
                ("actions_*", 4),
                ("zen*", 2),
                ("g00_*", 1)
            ]
        );
        assert_eq!(listing.more_groups, 19);
    }

    #[test]
    fn the_featured_operation_is_a_plain_one_of_the_biggest_group() {
        let read: Vec<String> = [
            "issues_list_for_repo",
            "repos_list_for_org",
            "repos_get_branch",
            "repos_get",
            "repos_check_x",
        ]
        .iter()
        .map(|name| (*name).to_owned())
        .chain(names("issues", 25))
        .chain(names("repos", 25))
        .collect();
        let operations = operations(&read, &[]);
        let refs: Vec<&Operation> = operations.iter().collect();
        let listing = Listing::new(&refs, 20);
        let featured = listing
            .featured(&refs, super::verbs(Category::Read))
            .expect("a featured operation");
        assert_eq!(featured.name, "repos_get");
        // An ungrouped listing features its first operation, as small adapters always did.
        let small = Listing::new(&refs[..3], 20);
        assert_eq!(
            small.featured(&refs[..3], &[]).map(|op| op.name.as_str()),
            Some("issues_list_for_repo")
        );
    }

    #[test]
    fn search_words_come_from_the_name() {
        let table = [
            ("repos_get", "repos get"),
            ("issues_list_for_repo", "issues list"),
            ("actions_re_run_workflow", "actions re run"),
            ("zen", "zen"),
        ];
        for (name, expected) in table {
            let read = vec![name.to_owned()];
            let operations = operations(&read, &[]);
            assert_eq!(search_words(&operations[0]), expected, "{name}");
        }
    }
}
