//! The config file (`--config FILE`, `MCP_AQL_CONFIG`): TOML whose keys are the settings'
//! flags without their dashes, `max-sessions = 512`, a list as an array. Its values take the
//! place of the settings' defaults, so a flag or an environment variable still beats them;
//! each is checked as the flag's value would be, and an unknown key is refused.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use clap::{Arg, Command};
use toml::de::{DeTable, DeValue};

use super::settings::{self, CONFIG_ENV, CONFIG_FLAG, Value};

/// The config file named by `--config` among `args`, else by `MCP_AQL_CONFIG`.
pub(super) fn path(args: &[OsString]) -> Option<PathBuf> {
    let given = settings::given(args, CONFIG_FLAG).map(|(_, value)| PathBuf::from(value));
    given.or_else(|| {
        std::env::var_os(CONFIG_ENV)
            .filter(|value| !value.is_empty())
            .map(PathBuf::from)
    })
}

/// `command` with the settings of the file at `path` as their defaults.
///
/// # Errors
///
/// A message naming the file, the line and the key when the file cannot be read, is no TOML,
/// names no setting, or gives a value its setting does not accept.
pub(super) fn load(command: Command, path: &Path) -> Result<Command, String> {
    let shown = path.display();
    let text = std::fs::read_to_string(path)
        .map_err(|error| format!("cannot read the config file {shown}: {error}"))?;
    apply(command, &text).map_err(|problem| format!("config file {shown}{problem}"))
}

/// `command` with the settings of the TOML `text` as their defaults; an error starts with
/// where in the text it is (`:LINE: ...`).
fn apply(mut command: Command, text: &str) -> Result<Command, String> {
    let table = DeTable::parse(text).map_err(|error| format!(": {error}"))?;
    for (key, value) in table.get_ref() {
        let line = line_of(text, key.span().start);
        let key = key.get_ref().as_ref();
        let at = |problem: String| format!(":{line}: `{key}`: {problem}");
        let setting = settings::find(key).ok_or_else(|| at(unknown(key)))?;
        let values = texts(&setting.value, value.get_ref()).map_err(at)?;
        if !matches!(setting.value, Value::Switch) {
            let arg = command
                .get_arguments()
                .find(|arg| arg.get_id() == key)
                .ok_or_else(|| at(unknown(key)))?;
            for value in &values {
                check(arg, value).map_err(at)?;
            }
        }
        command = command.mut_arg(key, |arg| arg.default_values(values));
    }
    Ok(command)
}

/// The value (or, for a list, the values) of a key as the flag would be given them.
fn texts(accepts: &Value, value: &DeValue<'_>) -> Result<Vec<String>, String> {
    let scalar = |value: &DeValue<'_>| match value {
        DeValue::String(text) => Ok(text.to_string()),
        DeValue::Integer(number) => u64::from_str_radix(number.as_str(), number.radix())
            .map(|number| number.to_string())
            .map_err(|_| format!("{number} is not a whole number from 0 up")),
        _ => Err("expected a string or a whole number".to_owned()),
    };
    match (accepts, value) {
        (_, DeValue::Table(_)) => Err(
            "a section, where a value was expected: the file's keys are the flags themselves, at its top level"
                .to_owned(),
        ),
        (Value::Switch, DeValue::Boolean(on)) => Ok(vec![on.to_string()]),
        (Value::Switch, _) => Err("expected true or false".to_owned()),
        (Value::List(..), DeValue::Array(items)) => {
            items.iter().map(|item| scalar(item.get_ref())).collect()
        }
        (Value::List(..), DeValue::String(text)) => {
            Ok(text.split(',').map(str::to_owned).collect())
        }
        (_, value) => scalar(value).map(|text| vec![text]),
    }
}

/// Checks `value` as `arg`'s flag would be: what its parser says of it, without clap's
/// framing.
fn check(arg: &Arg, value: &str) -> Result<(), String> {
    let flag = format!("--{}", arg.get_id());
    Command::new(CONFIG_FLAG)
        .arg(arg.clone())
        .try_get_matches_from([CONFIG_FLAG, flag.as_str(), value])
        .map(drop)
        .map_err(|error| match std::error::Error::source(&error) {
            Some(source) => source.to_string(),
            None => format!("'{value}' is not accepted; see --help"),
        })
}

fn unknown(key: &str) -> String {
    if key == CONFIG_FLAG {
        return "a config file cannot name another one".to_owned();
    }
    let nearest = settings::all()
        .map(|setting| setting.flag)
        .min_by_key(|flag| strsim::levenshtein(flag, key))
        .filter(|flag| strsim::levenshtein(flag, key) <= 3);
    match nearest {
        Some(flag) => format!("no such setting; did you mean `{flag}`?"),
        None => "no such setting; the keys are the flags of --help without their dashes, e.g. `max-sessions`".to_owned(),
    }
}

/// The 1-based line of byte `offset` in `text`.
fn line_of(text: &str, offset: usize) -> usize {
    text.get(..offset)
        .map_or(1, |before| before.matches('\n').count() + 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Config, TEST_SERVER as INFO};

    fn config(file: &str, args: &[&str]) -> Result<Config, String> {
        let command = apply(Config::command(&INFO, &[]), file)?;
        let matches = command
            .try_get_matches_from(std::iter::once("demo").chain(args.iter().copied()))
            .map_err(|error| error.to_string())?;
        Config::from_matches(&matches)
    }

    #[test]
    fn a_file_sets_what_no_flag_gives_and_a_flag_still_wins() {
        let file = "mode = \"single\"\nmax-sessions = 512\nstateless = true\n\
                    deny = [\"forbidden\", \"dangerous\"]\ncache-max-bytes = \"4MiB\"\n";
        let config = config(file, &["--max-sessions", "64"]).expect("accepted");
        assert_eq!(config.mode, crate::config::EndpointMode::Single);
        assert_eq!(config.transport_limits.max_sessions, 64);
        assert!(config.stateless);
        assert_eq!(config.safety.deny.len(), 2);
        assert_eq!(config.cache.max_bytes, 4 << 20);
    }

    #[test]
    fn a_bad_key_or_value_is_named_with_its_line() {
        let typo = config("\n\nmax-sesions = 5\n", &[]).expect_err("refused");
        assert_eq!(
            typo,
            ":3: `max-sesions`: no such setting; did you mean `max-sessions`?"
        );
        let range = config("max-sessions = 0\n", &[]).expect_err("refused");
        assert_eq!(
            range,
            ":1: `max-sessions`: 0 is outside the allowed range 1..=100000"
        );
        let kind = config("stateless = \"yes\"\n", &[]).expect_err("refused");
        assert_eq!(kind, ":1: `stateless`: expected true or false");
        let section = config("[transport]\nport = 5\n", &[]).expect_err("refused");
        assert!(
            section.starts_with(":1: `transport`: a section"),
            "{section}"
        );
        let nested = config("config = \"other.toml\"\n", &[]).expect_err("refused");
        assert!(nested.contains("cannot name another"), "{nested}");
        let broken = config("max-sessions = \n", &[]).expect_err("refused");
        assert!(broken.starts_with(": TOML parse error"), "{broken}");
    }

    #[test]
    fn the_config_flag_is_found_before_parsing() {
        let args = |list: &[&str]| list.iter().map(OsString::from).collect::<Vec<_>>();
        assert_eq!(
            path(&args(&["demo", "--config", "a.toml"])),
            Some(PathBuf::from("a.toml"))
        );
        assert_eq!(
            path(&args(&["demo", "--config=b.toml"])),
            Some(PathBuf::from("b.toml"))
        );
    }
}
