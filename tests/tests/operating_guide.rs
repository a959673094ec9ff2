//! The operating guide (docs/operating.md) against a real generated server: its settings
//! reference lists every setting `--help` prints, under the same group, with the same
//! environment variable and default, and its config file example loads.

use std::collections::BTreeMap;
use std::process::Command;

const SERVER: &str = env!("CARGO_BIN_EXE_todo-adapter-server");
const GUIDE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/operating.md");

/// One setting as a document or `--help` states it.
#[derive(Debug, PartialEq)]
struct Stated {
    group: String,
    env: String,
    /// `None` where the setting has no default value.
    default: Option<String>,
}

fn guide() -> String {
    std::fs::read_to_string(GUIDE).expect("docs/operating.md")
}

/// The text of the `## {heading}` section of `markdown`.
fn section<'a>(markdown: &'a str, heading: &str) -> &'a str {
    let start = markdown
        .find(&format!("\n## {heading}\n"))
        .unwrap_or_else(|| panic!("docs/operating.md has a section \"{heading}\""));
    let body = &markdown[start + heading.len() + 5..];
    body.find("\n## ").map_or(body, |end| &body[..end])
}

/// The settings reference's rows: flag -> group, variable, default.
fn documented() -> BTreeMap<String, Stated> {
    let guide = guide();
    let mut group = String::new();
    let mut rows = BTreeMap::new();
    for line in section(&guide, "Settings reference").lines() {
        if let Some(heading) = line.strip_prefix("### ") {
            group = heading.trim().to_owned();
            continue;
        }
        let cells: Vec<&str> = line.split(" | ").map(str::trim).collect();
        let Some(flag) = cells.first().and_then(|cell| cell.strip_prefix("| `--")) else {
            continue;
        };
        assert!(
            cells.len() >= 3,
            "a row with flag, variable and default: {line}"
        );
        let default = match cells[2].strip_prefix('`') {
            Some(rest) => Some(rest.split('`').next().unwrap_or_default().to_owned()),
            None => {
                assert!(cells[2].starts_with("none"), "a default or none: {line}");
                None
            }
        };
        let stated = Stated {
            group: group.clone(),
            env: cells[1].trim_matches('`').to_owned(),
            default,
        };
        rows.insert(flag.trim_end_matches('`').to_owned(), stated);
    }
    rows
}

/// `--help` of the server, `args` before it.
fn help(args: &[&str]) -> String {
    let output = Command::new(SERVER)
        .args(args)
        .arg("--help")
        .env_remove("MCP_AQL_CONFIG")
        .output()
        .expect("run the server");
    assert!(output.status.success(), "{output:?}");
    String::from_utf8(output.stdout).expect("UTF-8 help")
}

/// The settings `--help` prints: flag -> group, variable, default. A flag starts its line,
/// indented by six spaces; the lines wrapped after it are joined back into its entry.
fn listed(help: &str) -> BTreeMap<String, Stated> {
    let mut entries: Vec<(String, String)> = Vec::new();
    let mut group = String::new();
    for line in help.lines() {
        if let Some(heading) = line.strip_suffix(':').filter(|h| !h.starts_with(' ')) {
            group = heading.to_owned();
        } else if let Some(rest) = line.strip_prefix("      --") {
            let flag: String = rest
                .chars()
                .take_while(|c| c.is_ascii_lowercase() || *c == '-')
                .collect();
            entries.push((group.clone(), format!("{flag} {rest}")));
        } else if let Some((_, text)) = entries.last_mut() {
            text.push(' ');
            text.push_str(line.trim());
        }
    }
    let bracket = |text: &str, label: &str| {
        let start = text.find(&format!("[{label}: "))? + label.len() + 3;
        let end = start + text[start..].find(']')?;
        Some(text[start..end].to_owned())
    };
    entries
        .into_iter()
        .filter(|(group, _)| group != "Options")
        .map(|(group, text)| {
            let flag = text.split(' ').next().unwrap_or_default().to_owned();
            let env = bracket(&text, "env").map(|env| env.trim_end_matches('=').to_owned());
            let stated = Stated {
                group,
                env: env.unwrap_or_else(|| panic!("--{flag} names its variable: {text}")),
                // clap quotes a default that holds a space.
                default: bracket(&text, "default").map(|d| d.trim_matches('"').to_owned()),
            };
            (flag, stated)
        })
        .collect()
}

#[test]
fn the_settings_reference_states_every_setting_as_the_server_does() {
    let listed = listed(&help(&[]));
    let documented = documented();
    assert!(listed.len() > 60, "every setting is listed: {listed:?}");
    for (flag, stated) in &listed {
        let Some(documented) = documented.get(flag) else {
            panic!("--{flag} is missing from the settings reference of docs/operating.md");
        };
        assert_eq!(
            documented, stated,
            "--{flag} in docs/operating.md against --help"
        );
    }
    for flag in documented.keys() {
        assert!(
            listed.contains_key(flag),
            "--{flag} is documented but no server takes it"
        );
    }
}

#[test]
fn the_config_file_example_loads() {
    let guide = guide();
    let example = section(&guide, "A config file")
        .split("```toml\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .expect("a ```toml example in \"A config file\"");
    let dir = tempfile::tempdir().expect("a directory");
    let file = dir.path().join("server.toml");
    std::fs::write(&file, example).expect("write the example");
    let listed = listed(&help(&["--config", file.to_str().expect("a UTF-8 path")]));
    let mut keys = 0;
    for line in example.lines() {
        let Some((key, value)) = line.split_once(" = ") else {
            continue;
        };
        keys += 1;
        let Some(setting) = listed.get(key.trim()) else {
            panic!("{key} in the example is no setting of --help");
        };
        if matches!(value.trim(), "true" | "false") {
            // --help shows no default for a switch; the runtime's tests hold what the file
            // makes of one.
            continue;
        }
        let default = setting.default.as_deref().unwrap_or_default();
        for item in value.trim_matches(['[', ']']).split(", ") {
            let item = item.trim_matches('"');
            assert!(
                default.contains(item),
                "{key} = {value}: --help says {default}"
            );
        }
    }
    assert!(keys >= 5, "the example sets a few settings: {example}");
}
