//! The generator format's own checks (GEN §2.2, REQ-GSF-3) on the raw document, all of them
//! at once: every key known and every required one present, values of the right type, type
//! references that resolve, operation, type, param and field names well-formed and unique, and
//! for each operation an `http` request aqlgen can build. Paths and wording are the format's
//! own (`endpoints.read[0].params[2].name`).

use std::collections::BTreeMap;

use aqlgen_model::{Category, Method, Vocabulary};
use heck::ToUpperCamelCase;
use regex::Regex;
use serde_yaml::{Mapping, Value};

use super::{keys, text_of};
use crate::diagnostic::{Code, Diagnostic};
use crate::schema::keys::{ObjectKeys, TYPE_SYNONYMS};
use crate::schema::maps_to::{self, PathPiece};
use crate::schema::{AuthKind, ParamType};
use crate::validate::names::check_snake_case;
use crate::validate::nearest;
use crate::validate::structure::check_keys;

/// What a parameter's `type` may be, in words.
const TYPE_EXPECTED: &str = "one of: string, integer, number, boolean, object, array; or \
                             `{array: T}`, `{object: {name: T}}`, `{ref: Name}`";

/// Every problem of `document`, a mapping with `schema_version`. Unknown keys are removed on
/// the way (so a repeated look does not report them twice); the document is refused anyway.
pub fn check(document: &mut Value) -> Vec<Diagnostic> {
    let mut checker = Checker {
        types: defined_types(document),
        out: Vec::new(),
    };
    if let Some(root) = document.as_mapping_mut() {
        checker.root(root);
    }
    checker.out
}

/// The names `types` defines, for resolving `{ref: Name}`.
fn defined_types(document: &Value) -> Vec<String> {
    document
        .get("types")
        .and_then(Value::as_sequence)
        .into_iter()
        .flatten()
        .filter_map(|entry| entry.get("name")?.as_str())
        .map(str::to_owned)
        .collect()
}

/// What is known about one param once checked: whether it is required, when that is a boolean.
type Declared = BTreeMap<String, Option<bool>>;

struct Checker {
    types: Vec<String>,
    out: Vec<Diagnostic>,
}

impl Checker {
    fn root(&mut self, root: &mut Mapping) {
        self.keys(root, "", &keys::ROOT);
        if let Some(adapter) = self.object(root.get_mut("adapter"), "adapter") {
            self.adapter(adapter);
        }
        if let Some(auth) = self.object(root.get_mut("auth"), "auth") {
            self.auth(auth);
        }
        if let Some(types) = self.list(root.get_mut("types"), "types") {
            self.types(types);
        }
        if let Some(endpoints) = self.object(root.get_mut("endpoints"), "endpoints") {
            self.endpoints(endpoints);
        }
    }

    fn adapter(&mut self, adapter: &mut Mapping) {
        self.keys(adapter, "adapter", &keys::ADAPTER);
        if let Some(name) = self.string(adapter, "name", "adapter.name") {
            check_snake_case("adapter.name", "adapter", name, &mut self.out);
        }
        for key in ["display_name", "version", "description"] {
            self.string(adapter, key, &format!("adapter.{key}"));
        }
        let path = "adapter.target_api";
        if let Some(target) = self.object(adapter.get_mut("target_api"), path) {
            self.keys(target, path, &keys::TARGET_API);
            for key in ["name", "base_url", "version"] {
                self.string(target, key, &format!("{path}.{key}"));
            }
        }
    }

    fn auth(&mut self, auth: &mut Mapping) {
        let kind = auth
            .get("type")
            .and_then(Value::as_str)
            .and_then(AuthKind::parse);
        self.keys(auth, "auth", &keys::AUTH);
        let config = self.object(auth.get_mut("config"), "auth.config");
        match kind {
            // Missing or unknown: reported with the keys.
            None => {}
            Some(AuthKind::Oauth2) => self.out.push(
                Diagnostic::new(
                    Code::Unsupported,
                    "auth.type",
                    "`oauth2` auth is not read from this format",
                )
                .expected("none, api_key, bearer or basic")
                .found("\"oauth2\"")
                .suggest("write the adapter as an aqlgen schema, whose `auth` of type `oauth2` takes `token_url`, `client_id_env` and `client_secret_env`"),
            ),
            Some(AuthKind::AwsSigv4) => self.out.push(
                Diagnostic::new(
                    Code::Unsupported,
                    "auth.type",
                    "`aws_sigv4` auth is not read from this format",
                )
                .expected("none, api_key, bearer or basic")
                .found("\"aws_sigv4\"")
                .suggest("write the adapter as an aqlgen schema, whose `auth` of type `aws_sigv4` takes `region` and `service`"),
            ),
            Some(AuthKind::Combined) => self.out.push(
                Diagnostic::new(
                    Code::Unsupported,
                    "auth.type",
                    "`combined` auth is not read from this format",
                )
                .expected("none, api_key, bearer or basic")
                .found("\"combined\"")
                .suggest("write the adapter as an aqlgen schema, whose `auth` of type `combined` lists its `credentials`"),
            ),
            Some(kind) => self.auth_config(kind, config),
        }
    }

    /// `auth.config`: only keys aqlgen can generate for `kind`, each a string.
    fn auth_config(&mut self, kind: AuthKind, config: Option<&mut Mapping>) {
        let allowed = keys::config_keys(kind);
        let mut given = Vec::new();
        for (key, value) in config.into_iter().flatten() {
            let key = key.as_str().map_or_else(|| text_of(key), str::to_owned);
            let path = format!("auth.config.{key}");
            if !allowed.contains(&key.as_str()) {
                let expected = if allowed.is_empty() {
                    format!("no `config` for `{kind}` auth")
                } else {
                    format!("one of: {}", allowed.join(", "))
                };
                let mut diagnostic = Diagnostic::new(
                    Code::Unsupported,
                    path,
                    format!("aqlgen cannot generate `{key}` for `{kind}` auth"),
                )
                .expected(expected)
                .found(text_of(value));
                if let Some(candidate) = nearest(&key, allowed.iter().copied()) {
                    diagnostic = diagnostic.suggest(format!("did you mean `{candidate}`?"));
                }
                self.out.push(diagnostic);
                continue;
            }
            if !value.is_string() {
                self.wrong_type(&path, "a string", value);
            }
            given.push(key);
        }
        let says_where = given
            .iter()
            .any(|key| key == "header_name" || key == "query_param");
        if kind == AuthKind::ApiKey && !says_where {
            self.out.push(
                Diagnostic::new(
                    Code::MissingField,
                    "auth.config.header_name",
                    "`api_key` auth needs to know where the key goes",
                )
                .expected(
                    "`header_name` (a request header) or `query_param` (a query parameter) \
                     under `auth.config`",
                )
                .found("neither")
                .suggest("add `config: {header_name: X-Api-Key}` with the header the API reads"),
            );
        }
    }

    fn types(&mut self, types: &mut [Value]) {
        let mut seen = BTreeMap::new();
        for (index, entry) in types.iter_mut().enumerate() {
            let path = format!("types[{index}]");
            let Some(entry) = self.object(Some(entry), &path) else {
                continue;
            };
            self.keys(entry, &path, &keys::TYPE);
            let name_path = format!("{path}.name");
            if let Some(name) = self.string(entry, "name", &name_path) {
                let name = name.to_owned();
                self.type_name(&name, &name_path);
                self.unique(&mut seen, ("type", "in `types`"), &name, &name_path, &path);
            }
            let fields_path = format!("{path}.fields");
            if let Some(fields) = self.list(entry.get_mut("fields"), &fields_path) {
                self.params(fields, &fields_path, ("field", "within the type"));
            }
        }
    }

    /// A type's name: an identifier, such as the document's own `Repository`. The format's
    /// snake_case rule is for what reaches the wire (operations, params, fields); a type name
    /// is what `introspect` lists, and the document writes those in UpperCamelCase.
    fn type_name(&mut self, name: &str, path: &str) {
        let identifier = Regex::new("^[A-Za-z][A-Za-z0-9_]*$").expect("a valid literal pattern");
        let problem = if !identifier.is_match(name) {
            "is not an identifier"
        } else if ParamType::parse(name).is_some() {
            "is the name of a JSON type"
        } else {
            return;
        };
        let mut diagnostic = Diagnostic::new(
            Code::InvalidName,
            path,
            format!("type name `{name}` {problem}"),
        )
        .expected(
            "letters, digits and `_`, starting with a letter, other than a JSON type's name \
             (e.g. `Repository`)",
        )
        .found(format!("{name:?}"));
        let camel = name.to_upper_camel_case();
        if identifier.is_match(&camel) && camel != name {
            diagnostic = diagnostic.suggest(format!("use `{camel}`"));
        }
        self.out.push(diagnostic);
    }

    fn endpoints(&mut self, endpoints: &mut Mapping) {
        self.keys(endpoints, "endpoints", &keys::ENDPOINTS);
        let mut names = BTreeMap::new();
        for &category in Category::ALL {
            let path = format!("endpoints.{category}");
            let Some(list) = self.list(endpoints.get_mut(category.as_str()), &path) else {
                continue;
            };
            for (index, operation) in list.iter_mut().enumerate() {
                let path = format!("{path}[{index}]");
                if let Some(operation) = self.object(Some(operation), &path) {
                    self.operation(category, operation, &path, &mut names);
                }
            }
        }
    }

    fn operation(
        &mut self,
        category: Category,
        operation: &mut Mapping,
        path: &str,
        names: &mut BTreeMap<String, String>,
    ) {
        self.keys(operation, path, &keys::OPERATION);
        let name_path = format!("{path}.name");
        let name = self
            .string(operation, "name", &name_path)
            .map(str::to_owned);
        if let Some(name) = &name {
            check_snake_case(&name_path, "operation", name, &mut self.out);
            self.unique(
                names,
                ("operation", "across all endpoints"),
                name,
                &name_path,
                path,
            );
        }
        self.string(operation, "description", &format!("{path}.description"));
        let params_path = format!("{path}.params");
        let declared = self
            .list(operation.get_mut("params"), &params_path)
            .map(|params| self.params(params, &params_path, ("parameter", "within the operation")));
        if let Some(returns) = operation.get("returns") {
            self.type_reference(returns, &format!("{path}.returns"));
        }
        let http_path = format!("{path}.http");
        match operation.get_mut("http") {
            Some(http) => {
                if let Some(http) = self.object(Some(http), &http_path) {
                    self.http(http, &http_path, declared.as_ref());
                }
            }
            None => {
                let method = match category {
                    Category::Read => Method::Get,
                    Category::Create | Category::Execute => Method::Post,
                    Category::Update => Method::Patch,
                    Category::Delete => Method::Delete,
                };
                let which = name.map_or_else(String::new, |name| format!(" `{name}`"));
                self.out.push(
                    Diagnostic::new(
                        Code::Unsupported,
                        http_path,
                        format!(
                            "operation{which} has no `http` request, so aqlgen cannot generate it"
                        ),
                    )
                    .expected(
                        "`http: {method, path}`: aqlgen generates HTTP adapters, which send each \
                         operation as one request",
                    )
                    .found("no `http`")
                    .suggest(format!(
                        "add `http: {{method: {method}, path: /...}}` to the operation"
                    )),
                );
            }
        }
    }

    /// An operation's `http`: a path every request can be built from, whose placeholders are
    /// required params.
    fn http(&mut self, http: &mut Mapping, path: &str, declared: Option<&Declared>) {
        let method = http
            .get("method")
            .and_then(Value::as_str)
            .and_then(Method::parse);
        self.keys(http, path, &keys::HTTP);
        let template_path = format!("{path}.path");
        let template = self.string(http, "path", &template_path);
        let (Some(method), Some(template)) = (method, template) else {
            return;
        };
        let maps_to = format!("{method} {template}");
        let parsed = match maps_to::parse(&maps_to) {
            Ok(parsed) => parsed,
            Err(refusal) => {
                let mut diagnostic = Diagnostic::new(
                    Code::InvalidMapsTo,
                    template_path,
                    "`http.path` is not a path every request can be built from",
                )
                .expected(refusal.expected)
                .found(format!("{template:?}"));
                if let Some(help) = refusal.help {
                    diagnostic = diagnostic.suggest(help);
                }
                self.out.push(diagnostic);
                return;
            }
        };
        let Some(declared) = declared else { return };
        for piece in &parsed.pieces {
            let PathPiece::Placeholder(name) = piece else {
                continue;
            };
            let (found, help) = match declared.get(*name) {
                // Required, or a `required` already reported as not a boolean.
                Some(Some(true) | None) => continue,
                Some(Some(false)) => (
                    "an optional param",
                    format!("write `required: true` on the param `{name}`"),
                ),
                None => (
                    "no such param",
                    format!("add `{{name: {name}, type: string, required: true}}` to `params`"),
                ),
            };
            self.out.push(
                Diagnostic::new(
                    Code::InvalidPlaceholder,
                    template_path.clone(),
                    format!("path placeholder `{{{name}}}` is not a required param"),
                )
                .expected(format!("a param `{name}` with `required: true`"))
                .found(found)
                .suggest(help),
            );
        }
    }

    /// The params of an operation or the fields of a type (`what`: the word for one, and where
    /// its name must be unique); returns the well-named ones.
    fn params(&mut self, list: &mut [Value], path: &str, what: (&str, &str)) -> Declared {
        let mut seen = BTreeMap::new();
        let mut declared = Declared::new();
        for (index, param) in list.iter_mut().enumerate() {
            let path = format!("{path}[{index}]");
            let Some(param) = self.object(Some(param), &path) else {
                continue;
            };
            self.keys(param, &path, &keys::PARAM);
            let name_path = format!("{path}.name");
            let name = self.string(param, "name", &name_path).map(str::to_owned);
            if let Some(kind) = param.get("type") {
                self.type_reference(kind, &format!("{path}.type"));
            }
            let required = self.boolean(param, "required", &format!("{path}.required"));
            self.string(param, "description", &format!("{path}.description"));
            if let (Some(true), Some(default)) = (required, param.get("default")) {
                self.out.push(
                    Diagnostic::new(
                        Code::InvalidDefault,
                        format!("{path}.default"),
                        format!("a required {} never falls back to its default", what.0),
                    )
                    .expected("`required: false` beside a `default`")
                    .found(format!("required: true and default: {}", text_of(default)))
                    .suggest(format!(
                        "write `required: false`: a {} with a default is optional",
                        what.0
                    )),
                );
            }
            if let Some(name) = name {
                check_snake_case(&name_path, what.0, &name, &mut self.out);
                self.unique(&mut seen, what, &name, &name_path, &path);
                declared.entry(name).or_insert(required);
            }
        }
        declared
    }

    /// A `TypeReference`: a JSON type's name, or `{array: T}`, `{object: {...}}`, `{ref: Name}`.
    fn type_reference(&mut self, value: &Value, path: &str) {
        let map = match value {
            Value::String(name) => {
                if ParamType::parse(name).is_none() {
                    self.unknown_type(name, path);
                }
                return;
            }
            Value::Mapping(map) => map,
            other => return self.wrong_type(path, "a type name or a one-key object", other),
        };
        let mut entries = map.iter();
        let (Some((key, inner)), None) = (entries.next(), entries.next()) else {
            self.out.push(
                Diagnostic::new(
                    Code::InvalidType,
                    path,
                    "a type written as an object has exactly one key",
                )
                .expected("`{array: T}`, `{object: {name: T}}` or `{ref: Name}`")
                .found(text_of(value)),
            );
            return;
        };
        match key.as_str() {
            Some("array") => self.type_reference(inner, &format!("{path}.array")),
            Some("object") => {
                let object_path = format!("{path}.object");
                let Some(members) = inner.as_mapping() else {
                    return self.wrong_type(&object_path, "an object of member types", inner);
                };
                for (member, kind) in members {
                    let member = member
                        .as_str()
                        .map_or_else(|| text_of(member), str::to_owned);
                    let member_path = format!("{object_path}.{member}");
                    check_snake_case(&member_path, "field", &member, &mut self.out);
                    self.type_reference(kind, &member_path);
                }
            }
            Some("ref") => match inner.as_str() {
                Some(name) => self.resolve(name, &format!("{path}.ref")),
                None => self.wrong_type(&format!("{path}.ref"), "a type name", inner),
            },
            _ => {
                let key = key.as_str().map_or_else(|| text_of(key), str::to_owned);
                let mut diagnostic = Diagnostic::new(
                    Code::UnknownKey,
                    format!("{path}.{key}"),
                    format!("unknown key `{key}` in a type"),
                )
                .expected(format!("one of: {}", keys::TYPE_REFERENCE.join(", ")))
                .found(format!("{key:?}"));
                if let Some(candidate) = nearest(&key, keys::TYPE_REFERENCE) {
                    diagnostic = diagnostic.suggest(format!("did you mean `{candidate}`?"));
                }
                self.out.push(diagnostic);
            }
        }
    }

    fn unknown_type(&mut self, name: &str, path: &str) {
        let synonym = TYPE_SYNONYMS
            .iter()
            .find(|(other, _)| *other == name)
            .map(|(_, json)| *json);
        let suggestion = if self.types.iter().any(|defined| defined == name) {
            Some(format!(
                "write `{{ref: {name}}}` to use the type `{name}` of `types`"
            ))
        } else if let Some(json) =
            synonym.or_else(|| nearest(name, ParamType::NAMES.iter().copied()))
        {
            Some(format!("did you mean `{json}`?"))
        } else {
            nearest(name, self.types.iter().map(String::as_str))
                .map(|defined| format!("did you mean `{{ref: {defined}}}`?"))
        };
        let mut diagnostic = Diagnostic::new(
            Code::InvalidType,
            path,
            format!("`{name}` is not a known type"),
        )
        .expected(TYPE_EXPECTED)
        .found(format!("{name:?}"));
        if let Some(suggestion) = suggestion {
            diagnostic = diagnostic.suggest(suggestion);
        }
        self.out.push(diagnostic);
    }

    /// A `{ref: Name}` names an entry of `types`.
    fn resolve(&mut self, name: &str, path: &str) {
        if self.types.iter().any(|defined| defined == name) {
            return;
        }
        let expected = if self.types.is_empty() {
            "the name of an entry of `types` (the document defines none)".to_owned()
        } else {
            format!("the name of an entry of `types`: {}", self.types.join(", "))
        };
        let suggestion = match nearest(name, self.types.iter().map(String::as_str)) {
            Some(defined) => format!("did you mean `{defined}`?"),
            None => format!("define `{name}` under `types`: `- {{name: {name}, fields: [...]}}`"),
        };
        self.out.push(
            Diagnostic::new(
                Code::UnresolvedRef,
                path,
                format!("type reference `{name}` is not defined in `types`"),
            )
            .expected(expected)
            .found(format!("{name:?}"))
            .suggest(suggestion),
        );
    }

    /// Records `name` at `item`, or reports it when `seen` has it: `what` is the word for the
    /// thing named and where its name must be unique.
    fn unique(
        &mut self,
        seen: &mut BTreeMap<String, String>,
        what: (&str, &str),
        name: &str,
        name_path: &str,
        item: &str,
    ) {
        if let Some(first) = seen.get(name) {
            self.out.push(
                Diagnostic::new(
                    Code::DuplicateName,
                    name_path,
                    format!("{} `{name}` is defined twice", what.0),
                )
                .expected(format!("{} names unique {}", what.0, what.1))
                .found(format!("a second `{name}` (the first is at {first})")),
            );
        } else {
            seen.insert(name.to_owned(), item.to_owned());
        }
    }

    fn keys(&mut self, object: &mut Mapping, path: &str, keys: &ObjectKeys) {
        check_keys(object, path, keys, "the document", &mut self.out);
    }

    /// The object at `path`, when present and an object.
    fn object<'v>(&mut self, value: Option<&'v mut Value>, path: &str) -> Option<&'v mut Mapping> {
        match value? {
            Value::Mapping(object) => Some(object),
            other => {
                self.wrong_type(path, "an object", other);
                None
            }
        }
    }

    /// The list at `path`, when present and a list.
    fn list<'v>(&mut self, value: Option<&'v mut Value>, path: &str) -> Option<&'v mut Vec<Value>> {
        match value? {
            Value::Sequence(list) => Some(list),
            other => {
                self.wrong_type(path, "a list", other);
                None
            }
        }
    }

    /// `object[key]` at `path`, when present and a string.
    fn string<'v>(&mut self, object: &'v Mapping, key: &str, path: &str) -> Option<&'v str> {
        let value = object.get(key)?;
        let text = value.as_str();
        if text.is_none() {
            self.wrong_type(path, "a string", value);
        }
        text
    }

    /// `object[key]` at `path`, when present and a boolean.
    fn boolean(&mut self, object: &Mapping, key: &str, path: &str) -> Option<bool> {
        let value = object.get(key)?;
        let flag = value.as_bool();
        if flag.is_none() {
            self.wrong_type(path, "a boolean", value);
        }
        flag
    }

    /// A value of the wrong type at `path`, with the fix when it is a matter of quotes.
    fn wrong_type(&mut self, path: &str, expected: &str, found: &Value) {
        let key = path.rsplit('.').next().unwrap_or(path);
        let mut diagnostic = Diagnostic::new(
            Code::InvalidType,
            path,
            format!("`{key}` must be {expected}, not {}", kind_of(found)),
        )
        .expected(expected)
        .found(text_of(found));
        let quoted = found
            .as_str()
            .filter(|text| expected == "a boolean" && matches!(*text, "true" | "false"));
        if let Some(flag) = quoted {
            diagnostic = diagnostic.suggest(format!(
                "use `{key}: {flag}` instead of `{key}: \"{flag}\"`"
            ));
        } else if expected == "a string" && matches!(found, Value::Number(_) | Value::Bool(_)) {
            diagnostic =
                diagnostic.suggest(format!("write it in quotes: `{key}: '{}'`", text_of(found)));
        }
        self.out.push(diagnostic);
    }
}

/// What kind of value `value` is, in the format's words (an object, not a mapping).
fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Sequence(_) => "a list",
        Value::Mapping(_) => "an object",
        Value::Tagged(_) => "a tagged value",
    }
}
