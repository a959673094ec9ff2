//! The Cargo workspace around a directory, as Cargo finds it: the nearest `Cargo.toml` above
//! with a `[workspace]` table whose `exclude` does not cover the directory.

use std::path::{Component, Path, PathBuf};

use toml_edit::{Array, DocumentMut, Item, Value};

/// How a directory stands to the workspace around it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Enclosing {
    /// No workspace claims it.
    None,
    /// A member of the workspace rooted at `root`.
    Member {
        /// The workspace's directory.
        root: PathBuf,
        /// Whether it declares `[workspace.lints]`.
        lints: bool,
    },
    /// Inside the workspace rooted at `root` but not one of its members: Cargo refuses to
    /// build a package there ("believes it's in a workspace when it's not").
    Unlisted {
        /// The workspace's directory.
        root: PathBuf,
        /// The directory relative to `root`, `/`-separated, as `members` would list it.
        relative: String,
        /// Whether the workspace declares `[workspace.lints]`.
        lints: bool,
    },
}

/// Why the workspace could not be read or changed.
#[derive(Debug)]
pub struct WorkspaceError(pub String);

/// How the package directory `dir` (absolute, normalized) stands to the workspaces above it.
pub fn enclosing(dir: &Path) -> Result<Enclosing, WorkspaceError> {
    for root in dir.ancestors().skip(1) {
        let manifest = root.join("Cargo.toml");
        let Ok(text) = std::fs::read_to_string(&manifest) else {
            continue;
        };
        let document = parse(&manifest, &text)?;
        let Some(workspace) = document.get("workspace").and_then(Item::as_table_like) else {
            continue;
        };
        let relative = relative_to(dir, root);
        let listed = |key: &str| -> Vec<String> {
            workspace
                .get(key)
                .and_then(Item::as_array)
                .map(|array| array.iter().filter_map(|v| v.as_str().map(clean)).collect())
                .unwrap_or_default()
        };
        if listed("exclude")
            .iter()
            .any(|excluded| dir.starts_with(root.join(excluded)))
        {
            continue;
        }
        let member = listed("members").iter().any(|member| {
            glob::Pattern::new(&root.join(member).to_string_lossy())
                .is_ok_and(|pattern| pattern.matches_path(dir))
        }) || depended_on_by_path(root, &listed("members"), dir);
        let (root, lints) = (root.to_path_buf(), workspace.get("lints").is_some());
        return Ok(if member {
            Enclosing::Member { root, lints }
        } else {
            Enclosing::Unlisted {
                root,
                relative,
                lints,
            }
        });
    }
    Ok(Enclosing::None)
}

/// Adds `relative` to `members` of the workspace manifest in `root`, keeping the rest of the
/// file as it is.
pub fn join(root: &Path, relative: &str) -> Result<(), WorkspaceError> {
    let manifest = root.join("Cargo.toml");
    let text = std::fs::read_to_string(&manifest)
        .map_err(|error| WorkspaceError(format!("reading {}: {error}", manifest.display())))?;
    let mut document = parse(&manifest, &text)?;
    let workspace = document
        .get_mut("workspace")
        .and_then(Item::as_table_like_mut)
        .ok_or_else(|| WorkspaceError(format!("{} has no [workspace]", manifest.display())))?;
    let members = workspace
        .entry("members")
        .or_insert(Item::Value(Value::Array(Array::new())));
    let Some(members) = members.as_array_mut() else {
        return Err(WorkspaceError(format!(
            "`workspace.members` in {} is not a list",
            manifest.display()
        )));
    };
    members.push(relative);
    std::fs::write(&manifest, document.to_string())
        .map_err(|error| WorkspaceError(format!("writing {}: {error}", manifest.display())))
}

/// Whether a member found by the `members` patterns depends on `dir` by path: Cargo makes
/// such a dependency a member of the workspace too.
fn depended_on_by_path(root: &Path, members: &[String], dir: &Path) -> bool {
    let member_dirs = members.iter().flat_map(|member| {
        glob::glob(&root.join(member).to_string_lossy())
            .into_iter()
            .flatten()
            .flatten()
    });
    for member in std::iter::once(root.to_path_buf()).chain(member_dirs) {
        let Ok(text) = std::fs::read_to_string(member.join("Cargo.toml")) else {
            continue;
        };
        let Ok(document) = text.parse::<DocumentMut>() else {
            continue;
        };
        let tables = ["dependencies", "dev-dependencies", "build-dependencies"];
        let paths = tables
            .iter()
            .filter_map(|table| document.get(table).and_then(Item::as_table_like))
            .flat_map(|table| table.iter().map(|(_, item)| item))
            .filter_map(|item| item.get("path").and_then(Item::as_str));
        for path in paths {
            if normalize(&member.join(path)) == dir {
                return true;
            }
        }
    }
    false
}

fn parse(manifest: &Path, text: &str) -> Result<DocumentMut, WorkspaceError> {
    text.parse::<DocumentMut>().map_err(|error| {
        WorkspaceError(format!(
            "{} is not valid TOML: {}",
            manifest.display(),
            error.message()
        ))
    })
}

/// A member or exclude entry without a trailing `/` or leading `./`.
fn clean(entry: &str) -> String {
    entry
        .trim_start_matches("./")
        .trim_end_matches('/')
        .to_owned()
}

/// `path` made absolute against the current directory, with `.` and `..` resolved by text.
pub fn absolute(path: &Path) -> std::io::Result<PathBuf> {
    let joined = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir()?.join(path)
    };
    Ok(normalize(&joined))
}

fn normalize(path: &Path) -> PathBuf {
    let mut clean = PathBuf::new();
    for component in path.components() {
        match component {
            Component::ParentDir => {
                clean.pop();
            }
            Component::CurDir => {}
            other => clean.push(other),
        }
    }
    clean
}

/// `to` relative to `from` (both absolute and normalized), `/`-separated.
pub fn relative_to(to: &Path, from: &Path) -> String {
    let common = from
        .components()
        .zip(to.components())
        .take_while(|(a, b)| a == b)
        .count();
    let ups = from.components().count() - common;
    let parts: Vec<String> = std::iter::repeat_n("..".to_owned(), ups)
        .chain(
            to.components()
                .skip(common)
                .map(|c| c.as_os_str().to_string_lossy().into_owned()),
        )
        .collect();
    if parts.is_empty() {
        ".".to_owned()
    } else {
        parts.join("/")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(files: &[(&str, &str)]) -> tempfile::TempDir {
        let root = tempfile::tempdir().expect("a temp dir");
        for (path, text) in files {
            let path = root.path().join(path);
            std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
            std::fs::write(path, text).expect("write");
        }
        root
    }

    #[test]
    fn finds_members_exclusions_and_strays() {
        let root = tree(&[
            (
                "Cargo.toml",
                "[workspace]\nmembers = [\"crates/*\", \"app\"]\nexclude = [\"bench\"]\n\
                 [workspace.lints.rust]\n",
            ),
            (
                "app/Cargo.toml",
                "[package]\nname = \"app\"\n[dependencies]\ngen = { path = \"../gen\" }\n",
            ),
            (
                "bench/Cargo.toml",
                "[workspace]\nexclude = [\n  \"work\",\n]\n",
            ),
        ]);
        let root = root.path();
        let at = |path: &str| enclosing(&root.join(path)).expect("readable");
        assert_eq!(
            at("crates/todo"),
            Enclosing::Member {
                root: root.to_path_buf(),
                lints: true
            }
        );
        assert_eq!(
            at("gen"),
            Enclosing::Member {
                root: root.to_path_buf(),
                lints: true
            }
        );
        assert_eq!(
            at("out/todo"),
            Enclosing::Unlisted {
                root: root.to_path_buf(),
                relative: "out/todo".to_owned(),
                lints: true
            }
        );
        // bench is excluded from the outer workspace and is one itself, whose `exclude`
        // covers bench/work: no workspace claims bench/work/x.
        assert_eq!(at("bench/work/x"), Enclosing::None);
        assert!(matches!(at("bench/x"), Enclosing::Unlisted { .. }));
    }

    #[test]
    fn joining_adds_the_member_and_keeps_the_file() {
        let root = tree(&[(
            "Cargo.toml",
            "# the team's workspace\n[workspace]\nresolver = \"3\"\n",
        )]);
        join(root.path(), "adapters/todo").expect("joins");
        let text = std::fs::read_to_string(root.path().join("Cargo.toml")).expect("read");
        assert!(text.starts_with("# the team's workspace\n"), "{text}");
        assert!(text.contains("members = [\"adapters/todo\"]"), "{text}");
        assert!(matches!(
            enclosing(&root.path().join("adapters/todo")),
            Ok(Enclosing::Member { lints: false, .. })
        ));
    }

    #[test]
    fn relative_paths() {
        let rel = |to: &str, from: &str| relative_to(Path::new(to), Path::new(from));
        assert_eq!(rel("/a/b/c", "/a"), "b/c");
        assert_eq!(rel("/a/rt", "/a/x/y"), "../../rt");
        assert_eq!(rel("/a", "/a"), ".");
    }
}
