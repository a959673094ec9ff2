//! The OAuth 2.1 resource server's settings: `--authorization-server`, `--resource`,
//! `--scope`, `--token-clock-skew`, and which scopes an operation needs.

use std::path::PathBuf;
use std::time::Duration;

use aqlgen_model::{Category, DangerLevel};

/// Who may call over HTTP: bearer access tokens from the operator's authorization servers,
/// issued for this resource (docs/operating.md "Deploying behind an authorization server").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourceConfig {
    /// Issuer identifiers of the authorization servers whose tokens are taken, exactly as
    /// their `iss` claims spell them.
    pub issuers: Vec<String>,
    /// This server's resource identifier (RFC 8707): the audience a token must name, and the
    /// `resource` of its protected resource metadata (RFC 9728).
    pub resource: String,
    /// The scopes operations need.
    pub scopes: ScopeRules,
    /// How far `exp` and `nbf` may be off this server's clock.
    pub clock_skew: Duration,
    /// The operator's file of upstream credentials by token subject; none means the server's
    /// own credential.
    pub user_credentials: Option<PathBuf>,
    /// Where opaque tokens are checked; none means only JWTs are taken.
    pub introspection: Option<Introspection>,
    /// The longest the authorization servers' signing keys are kept before they are read
    /// again, whatever their answer's `Cache-Control` says.
    pub keys_max_age: Duration,
}

/// Opaque access tokens, checked at one authorization server's introspection endpoint
/// (RFC 7662), the only one they and this server's client secret are sent to. The secret is
/// read from the environment only.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Introspection {
    /// The issuer whose endpoint is asked: one of [`ResourceConfig::issuers`].
    pub issuer: String,
    /// This server's client id there.
    pub client: String,
}

/// What an operation is picked by in a scope rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Selector {
    /// Every operation of a category (`read`, `create`, ...).
    Category(Category),
    /// Every operation at a danger level (`safe`, `destructive`, ...).
    Danger(DangerLevel),
    /// One operation, by name.
    Operation(String),
}

/// `--scope SELECTOR=SCOPE,...`: an operation needs the scope of every rule that picks it.
/// An operation no rule picks needs no scope beyond a valid token; `introspect` needs none.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ScopeRules {
    /// The rules, in the order given.
    pub rules: Vec<(Selector, String)>,
}

/// What a rule looks at of an operation.
#[derive(Debug, Clone, Copy)]
pub struct Scoped<'a> {
    /// Its name.
    pub operation: &'a str,
    /// Its category.
    pub category: Category,
    /// Its danger level; `None` for the runtime's own operations, which have none.
    pub danger: Option<DangerLevel>,
}

impl ScopeRules {
    /// Parses one `SELECTOR=SCOPE` item, as clap hands each comma-separated value.
    ///
    /// # Errors
    ///
    /// What the item should look like.
    pub fn parse_item(text: &str) -> Result<(Selector, String), String> {
        let expected = "expected SELECTOR=SCOPE, the selector a category (read, create, update, delete, execute), a danger level (safe, reversible, destructive, dangerous, forbidden) or an operation name";
        let Some((selector, scope)) = text.split_once('=') else {
            return Err(format!("'{text}': {expected}"));
        };
        let (selector, scope) = (selector.trim(), scope.trim());
        let printable = |c: char| c.is_ascii_graphic() && c != '"' && c != '\\';
        if scope.is_empty() || !scope.chars().all(printable) {
            return Err(format!(
                "'{text}': a scope is printable ASCII without spaces, quotes or backslashes"
            ));
        }
        let selector = if let Some(category) = Category::ALL
            .iter()
            .find(|category| category.family() == selector)
        {
            Selector::Category(*category)
        } else if let Some(danger) = DangerLevel::parse(selector) {
            Selector::Danger(danger)
        } else if !selector.is_empty()
            && selector
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
        {
            Selector::Operation(selector.to_owned())
        } else {
            return Err(format!("'{text}': {expected}"));
        };
        Ok((selector, scope.to_owned()))
    }

    /// The scopes `operation` needs, each once, in rule order.
    pub fn required(&self, operation: Scoped<'_>) -> Vec<&str> {
        let mut scopes: Vec<&str> = Vec::new();
        for (selector, scope) in &self.rules {
            let picked = match selector {
                Selector::Category(category) => *category == operation.category,
                Selector::Danger(danger) => Some(*danger) == operation.danger,
                Selector::Operation(name) => name == operation.operation,
            };
            if picked && !scopes.contains(&scope.as_str()) {
                scopes.push(scope);
            }
        }
        scopes
    }

    /// The scopes of `operation` that `granted` lacks.
    pub fn missing<'a>(&'a self, operation: Scoped<'_>, granted: &[String]) -> Vec<&'a str> {
        self.required(operation)
            .into_iter()
            .filter(|scope| !granted.iter().any(|held| held == scope))
            .collect()
    }

    /// Every scope a rule names, each once: `scopes_supported` of the metadata.
    pub fn all(&self) -> Vec<&str> {
        let mut all: Vec<&str> = Vec::new();
        for (_, scope) in &self.rules {
            if !all.contains(&scope.as_str()) {
                all.push(scope);
            }
        }
        all
    }

    /// The operation names the rules pick by name.
    pub fn operations(&self) -> impl Iterator<Item = &str> {
        self.rules
            .iter()
            .filter_map(|(selector, _)| match selector {
                Selector::Operation(name) => Some(name.as_str()),
                Selector::Category(_) | Selector::Danger(_) => None,
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(items: &[&str]) -> ScopeRules {
        ScopeRules {
            rules: items
                .iter()
                .map(|item| ScopeRules::parse_item(item).expect("a valid rule"))
                .collect(),
        }
    }

    #[test]
    fn an_operation_needs_every_scope_that_picks_it() {
        let rules = rules(&[
            "read=todo.read",
            "delete=todo.write",
            "destructive=todo.admin",
            "purge_all=todo.root",
        ]);
        let delete = Scoped {
            operation: "delete_todo",
            category: Category::Delete,
            danger: Some(DangerLevel::Destructive),
        };
        assert_eq!(rules.required(delete), ["todo.write", "todo.admin"]);
        let granted = vec!["todo.write".to_owned()];
        assert_eq!(rules.missing(delete, &granted), ["todo.admin"]);
        let purge = Scoped {
            operation: "purge_all",
            ..delete
        };
        assert_eq!(
            rules.required(purge),
            ["todo.write", "todo.admin", "todo.root"]
        );
        assert_eq!(
            rules.all(),
            ["todo.read", "todo.write", "todo.admin", "todo.root"]
        );
    }

    #[test]
    fn a_rule_says_what_is_wrong() {
        for bad in ["read", "=x", "read=", "Read Me=x", "read=a b", "read=\"x\""] {
            assert!(ScopeRules::parse_item(bad).is_err(), "{bad}");
        }
    }
}
