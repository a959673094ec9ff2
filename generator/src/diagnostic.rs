//! One schema problem: what, where, and how to fix it.

use std::fmt;

use anstyle::{AnsiColor, Style};
use serde::Serialize;

/// What kind of problem a [`Diagnostic`] reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub enum Code {
    /// The file is not UTF-8 text.
    InvalidEncoding,
    /// The file has no `---` fenced YAML block, and is no generator-format document either.
    MissingFrontMatter,
    /// The generator-format document's `schema_version` is one this generator does not read.
    VersionUnsupported,
    /// The generator-format document's `schema_version` is deprecated: migrate it.
    VersionDeprecated,
    /// The front matter is not YAML, or a generator-format document is not YAML or JSON.
    YamlSyntax,
    /// A required key is absent.
    MissingField,
    /// A key the format does not define.
    UnknownKey,
    /// A value of the wrong shape, or an unknown parameter type.
    InvalidType,
    /// A value outside its allowed set or format.
    InvalidValue,
    /// `version` is not semver.
    InvalidVersion,
    /// A name is not snake_case.
    InvalidName,
    /// Two operations share a name.
    DuplicateOperation,
    /// Two operations, types, params or fields of a generator-format document share a name.
    DuplicateName,
    /// A generator-format `{ref: Name}` names no entry of `types`.
    UnresolvedRef,
    /// An operation redefines a protocol operation.
    ReservedName,
    /// Two wire names map to one Rust identifier.
    IdentCollision,
    /// `maps_to` is not `METHOD /path`.
    InvalidMapsTo,
    /// A `{placeholder}` in the path is not a required declared param.
    InvalidPlaceholder,
    /// `default` does not match the type or the enum.
    InvalidDefault,
    /// An enum value does not match the type.
    InvalidEnum,
    /// `minimum` is greater than `maximum`, or a bound does not suit the type.
    InvalidRange,
    /// `pattern` is not a regular expression.
    InvalidPattern,
    /// `base_url` is not an http(s) URL.
    InvalidUrl,
    /// The category contradicts the HTTP method (a READ that deletes).
    CategoryMismatch,
    /// A valid setting this generator does not generate yet.
    Unsupported,
    /// Something aqlgen accepts that the official adapter schema rejects: a warning.
    Extension,
    /// A protocol feature the schema asks for that the operation cannot have: a warning.
    FeatureUnavailable,
    /// An operation without `danger_level` whose name implies a higher one: a warning.
    DangerInferred,
    /// A base URL whose requests travel in clear text to another machine: a warning.
    InsecureUrl,
    /// A category the method contradicts (a create mapped to DELETE, a delete to GET): a
    /// warning.
    UnlikelyMethod,
}

impl Code {
    /// The stable spelling, e.g. `SCHEMA_INVALID_TYPE`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::InvalidEncoding => "SCHEMA_INVALID_ENCODING",
            Self::MissingFrontMatter => "SCHEMA_MISSING_FRONT_MATTER",
            Self::VersionUnsupported => "SCHEMA_VERSION_UNSUPPORTED",
            Self::VersionDeprecated => "SCHEMA_VERSION_DEPRECATED",
            Self::YamlSyntax => "SCHEMA_YAML_SYNTAX",
            Self::MissingField => "SCHEMA_MISSING_FIELD",
            Self::UnknownKey => "SCHEMA_UNKNOWN_KEY",
            Self::InvalidType => "SCHEMA_INVALID_TYPE",
            Self::InvalidValue => "SCHEMA_INVALID_VALUE",
            Self::InvalidVersion => "SCHEMA_INVALID_VERSION",
            Self::InvalidName => "SCHEMA_INVALID_NAME",
            Self::DuplicateOperation => "SCHEMA_DUPLICATE_OPERATION",
            Self::DuplicateName => "SCHEMA_DUPLICATE_NAME",
            Self::UnresolvedRef => "SCHEMA_UNRESOLVED_REF",
            Self::ReservedName => "SCHEMA_RESERVED_NAME",
            Self::IdentCollision => "SCHEMA_IDENT_COLLISION",
            Self::InvalidMapsTo => "SCHEMA_INVALID_MAPS_TO",
            Self::InvalidPlaceholder => "SCHEMA_INVALID_PLACEHOLDER",
            Self::InvalidDefault => "SCHEMA_INVALID_DEFAULT",
            Self::InvalidEnum => "SCHEMA_INVALID_ENUM",
            Self::InvalidRange => "SCHEMA_INVALID_RANGE",
            Self::InvalidPattern => "SCHEMA_INVALID_PATTERN",
            Self::InvalidUrl => "SCHEMA_INVALID_URL",
            Self::CategoryMismatch => "SCHEMA_CATEGORY_MISMATCH",
            Self::Unsupported => "SCHEMA_UNSUPPORTED",
            Self::Extension => "SCHEMA_EXTENSION",
            Self::FeatureUnavailable => "SCHEMA_FEATURE_UNAVAILABLE",
            Self::DangerInferred => "SCHEMA_DANGER_INFERRED",
            Self::InsecureUrl => "SCHEMA_INSECURE_URL",
            Self::UnlikelyMethod => "SCHEMA_UNLIKELY_METHOD",
        }
    }

    /// Whether a diagnostic with this code is a warning, which leaves the schema valid.
    pub const fn is_warning(self) -> bool {
        matches!(
            self,
            Self::Extension
                | Self::FeatureUnavailable
                | Self::DangerInferred
                | Self::InsecureUrl
                | Self::UnlikelyMethod
        )
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A schema problem, located by field path and by line of the schema file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// What kind of problem.
    pub code: Code,
    /// Field path such as `operations.read[2].params.per_page.default`; empty for the file.
    pub path: String,
    /// 1-based line in the schema file, when it can be found.
    pub line: Option<usize>,
    /// One sentence saying what is wrong.
    pub message: String,
    /// What the format wants there.
    pub expected: Option<String>,
    /// What the file has there.
    pub found: Option<String>,
    /// A concrete fix, when one is obvious.
    pub suggestion: Option<String>,
}

impl Diagnostic {
    /// A diagnostic with a code, a path and a message; add the rest with the setters.
    pub fn new(code: Code, path: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            code,
            path: path.into(),
            line: None,
            message: message.into(),
            expected: None,
            found: None,
            suggestion: None,
        }
    }

    /// Says what was expected.
    pub fn expected(mut self, expected: impl Into<String>) -> Self {
        self.expected = Some(expected.into());
        self
    }

    /// Says what was found.
    pub fn found(mut self, found: impl Into<String>) -> Self {
        self.found = Some(found.into());
        self
    }

    /// Adds a suggestion, e.g. "did you mean `required`?".
    pub fn suggest(mut self, suggestion: impl Into<String>) -> Self {
        self.suggestion = Some(suggestion.into());
        self
    }

    /// Sets the line in the schema file.
    pub fn at_line(mut self, line: usize) -> Self {
        self.line = Some(line);
        self
    }

    /// Renders the diagnostic for a terminal, naming `file`.
    pub fn render(&self, file: &str) -> String {
        self.render_with(file, false)
    }

    /// [`Diagnostic::render`] with ANSI colours, as rustc colours its diagnostics; a program
    /// that prints it strips them when its output is not a terminal.
    pub fn render_ansi(&self, file: &str) -> String {
        self.render_with(file, true)
    }

    fn render_with(&self, file: &str, ansi: bool) -> String {
        let paint = |style: Style, text: &str| {
            if ansi {
                format!("{style}{text}{style:#}")
            } else {
                text.to_owned()
            }
        };
        let (severity, colour) = if self.code.is_warning() {
            ("warning", AnsiColor::Yellow)
        } else {
            ("error", AnsiColor::Red)
        };
        let bold = Style::new().bold();
        let accent = Style::new().bold().fg_color(Some(colour.into()));
        let margin = Style::new().bold().fg_color(Some(AnsiColor::Blue.into()));
        let mut text = format!(
            "{}{}\n",
            paint(accent, &format!("{severity}[{}]", self.code)),
            paint(bold, &format!(": {}", self.message)),
        );
        let arrow = paint(margin, "-->");
        match self.line {
            Some(line) => text.push_str(&format!("  {arrow} {file}:{line}\n")),
            None => text.push_str(&format!("  {arrow} {file}\n")),
        }
        if !self.path.is_empty() {
            text.push_str(&format!("   at {}\n", self.path));
        }
        if let Some(expected) = &self.expected {
            text.push_str(&format!("   expected {expected}\n"));
        }
        if let Some(found) = &self.found {
            text.push_str(&format!("   found: {found}\n"));
        }
        if let Some(suggestion) = &self.suggestion {
            let help = Style::new().bold().fg_color(Some(AnsiColor::Cyan.into()));
            text.push_str(&format!("   {} {suggestion}\n", paint(help, "help:")));
        }
        text
    }

    /// The `details[]` entry of the JSON output (REQ-GEN-9), plus line, expected and found.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "path": self.path,
            "code": self.code.as_str(),
            "message": self.message,
            "suggestion": self.suggestion,
            "line": self.line,
            "expected": self.expected,
            "found": self.found,
        })
    }
}
