//! A proptest strategy for adapter schemas, biased toward what breaks code generators: names
//! that are Rust keywords, prelude names or the generated code's own locals and modules;
//! names that collide after case conversion; text with quotes, backslashes, CRs, bidi
//! controls and template syntax; extreme bounds; several operations sharing param names.
//!
//! Most schemas it makes are valid; some are not (a collision, a reserved name), and then
//! `aqlgen check` must refuse them with a diagnostic rather than accept something that does
//! not build. Shared by the build script (which compiles a batch) and the crate's tests
//! (which check and generate many more).

use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use serde_json::{Map, Value, json};

/// Names that have bitten generators: keywords, prelude and std names, the generated code's
/// own locals, arguments, modules and items, and pairs that differ only in separators.
const NASTY_NAMES: &[&str] = &[
    "fields",
    "first",
    "after",
    "page",
    "per_page",
    "limit",
    "offset",
    "cursor",
    "if_match",
    "dry_run",
    "raw",
    "params",
    "value",
    "result",
    "map",
    "self",
    "type",
    "crate",
    "super",
    "ok",
    "some",
    "string",
    "text",
    "parsed",
    "path",
    "query",
    "body",
    "input_x",
    "names",
    "from_params",
    "regex",
    "lazy_lock",
    "route",
    "routes",
    "build",
    "introspection",
    "operations",
    "types",
    "new",
    "default",
    "match",
    "async",
    "await",
    "gen",
    "dyn",
    "box",
    "move",
    "loop",
    "where",
    "r",
    "s",
    "x1",
    "a_b",
    "a_b_c",
    "vec",
    "option",
    "std",
    "core",
    "alloc",
    "main",
    "serde_json",
    "aqlgen_runtime",
    "schema_params",
    "request",
    "category",
    "method",
    "info",
    "tools",
    "adapter",
    "pattern",
    "due_pattern",
    "owner",
    "id",
    "a1b2",
];

/// Schema text: descriptions, patterns, defaults.
const NASTY_TEXT: &[&str] = &[
    "",
    "Plain words.",
    "Quotes \" and 'single' and `ticks`",
    "Back\\slash \\n not a newline \\u{0}",
    "Two\nlines\nof text",
    "Carriage\rreturn",
    "Windows\r\nline",
    "Bidi \u{202e}override\u{202c} and \u{2066}isolate\u{2069}",
    "Zero\u{200b}width and soft\u{ad}hyphen",
    "*/ ends a block comment /* opens one",
    "{{ tera }} {% if x %} {# comment #}",
    "# Heading | pipe | table",
    "Emoji 🦀 and 名前 and العربية",
    "r#\"raw\"# \"#\"## hashes",
    "Tab\tseparated",
    "\u{7f} delete \u{85} next line \u{2028} line separator",
    "It said that, at last: a format",
];

fn name_from(names: &'static [&'static str]) -> impl Strategy<Value = String> {
    prop_oneof![
        3 => proptest::sample::select(names).prop_map(str::to_owned),
        2 => "[a-z][a-z0-9_]{0,12}",
    ]
}

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => proptest::sample::select(NASTY_TEXT).prop_map(str::to_owned),
        1 => "\\PC{0,40}",
    ]
}

/// A preset's dot path: nasty names, or text with quotes and controls in a member.
fn preset_path() -> impl Strategy<Value = String> {
    prop_oneof![
        name_from(NASTY_NAMES),
        (name_from(NASTY_NAMES), name_from(NASTY_NAMES)).prop_map(|(a, b)| format!("{a}.{b}")),
        text().prop_map(|text| format!("x{}", text.replace('.', "_"))),
    ]
}

fn param_type() -> impl Strategy<Value = &'static str> {
    proptest::sample::select(&["string", "integer", "number", "boolean", "array", "object"][..])
}

/// A bound: small, huge, fractional or negative.
fn bound() -> impl Strategy<Value = f64> {
    prop_oneof![
        Just(0.0),
        Just(-1.0),
        Just(1.0),
        Just(100.0),
        Just(-9_223_372_036_854_775_808.0),
        Just(9_007_199_254_740_992.0),
        Just(1e300),
        Just(0.5),
        -1000.0..1000.0f64,
    ]
}

fn pattern() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("^[a-z]+$".to_owned()),
        Just("^\"quoted\"#?$".to_owned()),
        Just("^\\d{4}-\\d{2}$".to_owned()),
        Just("^名前.*$".to_owned()),
        Just("(a|b".to_owned()),
        Just("^x\\\\y$".to_owned()),
        Just(".*".to_owned()),
    ]
}

/// One param definition for `kind`; `required` forces a required, default-free param.
fn param(kind: &'static str, required: bool) -> impl Strategy<Value = Value> {
    (
        any::<bool>(),
        proptest::option::of(text()),
        proptest::option::of(bound()),
        proptest::option::of(bound()),
        proptest::option::of(pattern()),
        any::<u8>(),
        proptest::option::of(proptest::sample::select(
            &["date-time", "date", "uuid", "email", "uri"][..],
        )),
    )
        .prop_map(
            move |(maybe_required, description, minimum, maximum, pattern, pick, format)| {
                let mut param = Map::new();
                param.insert("type".into(), kind.into());
                let required = required || (maybe_required && pick % 3 == 0);
                if required {
                    param.insert("required".into(), true.into());
                }
                if let Some(description) = description {
                    param.insert("description".into(), description.into());
                }
                if matches!(kind, "integer" | "number") {
                    let (minimum, maximum) = match (minimum, maximum) {
                        (Some(a), Some(b)) if a > b => (Some(b), Some(a)),
                        other => other,
                    };
                    let whole = |b: f64| if kind == "integer" { b.trunc() } else { b };
                    if let Some(minimum) = minimum {
                        param.insert("minimum".into(), json!(whole(minimum)));
                    }
                    if let Some(maximum) = maximum {
                        param.insert("maximum".into(), json!(whole(maximum)));
                    }
                    if pick % 4 == 1 {
                        let values: Vec<Value> = if kind == "integer" {
                            vec![json!(1), json!(2), json!(-3)]
                        } else {
                            vec![json!(0.5), json!(2)]
                        };
                        param.remove("minimum");
                        param.remove("maximum");
                        param.insert("enum".into(), values.into());
                    }
                }
                if kind == "string" {
                    if pick % 5 == 2 {
                        param.insert(
                            "enum".into(),
                            json!(["a", "B c", "quote\"d", "名前", "a\\b"]),
                        );
                    } else if let Some(pattern) = pattern {
                        param.insert("pattern".into(), pattern.into());
                    }
                    if let Some(format) = format {
                        param.insert("format".into(), format.into());
                    }
                }
                if !required && pick % 7 == 3 {
                    let default = match kind {
                        "string" => param
                            .get("enum")
                            .and_then(|values| values.get(1).cloned())
                            .unwrap_or_else(|| json!("d\"e\\f")),
                        "integer" => param
                            .get("enum")
                            .and_then(|values| values.get(0).cloned())
                            .or_else(|| param.get("minimum").cloned())
                            .unwrap_or(json!(7)),
                        "number" => param
                            .get("enum")
                            .and_then(|values| values.get(0).cloned())
                            .or_else(|| param.get("minimum").cloned())
                            .unwrap_or(json!(2.5)),
                        "boolean" => json!(pick % 2 == 0),
                        _ => Value::Null,
                    };
                    if !default.is_null() {
                        param.insert("default".into(), default);
                    }
                }
                Value::Object(param)
            },
        )
}

/// One operation of `family`, named `name`.
fn operation(family: &'static str, name: String) -> impl Strategy<Value = Value> {
    let method = match family {
        "create" => prop_oneof![Just("POST"), Just("PUT")].boxed(),
        "read" => Just("GET").boxed(),
        "update" => prop_oneof![Just("PATCH"), Just("PUT"), Just("POST")].boxed(),
        "delete" => Just("DELETE").boxed(),
        _ => prop_oneof![Just("POST"), Just("GET"), Just("DELETE")].boxed(),
    };
    (
        method,
        proptest::collection::vec(
            (
                name_from(NASTY_NAMES),
                param_type().prop_flat_map(|kind| param(kind, false)),
            ),
            0..5,
        ),
        proptest::collection::vec(name_from(NASTY_NAMES), 0..3),
        proptest::option::of(text()),
        proptest::option::of(proptest::sample::select(
            &["safe", "reversible", "destructive", "dangerous", "forbidden"][..],
        )),
        any::<bool>(),
        proptest::option::of(name_from(&["Todo", "Item", "OperationResult", "Thing"])),
        (
            any::<bool>(),
            proptest::option::of(proptest::option::of(proptest::sample::select(
                &["page", "offset", "cursor"][..],
            ))),
            proptest::option::of(proptest::collection::vec(
                (name_from(NASTY_NAMES), proptest::collection::vec(preset_path(), 1..3)),
                0..3,
            )),
        ),
        proptest::sample::select(
            &[
                "/items",
                "/v1:run",
                "/a/b/c",
                "/files/{p}.json",
                "/",
                "/x/%E5%90%8D",
                "/~user/$weird!/(x)*+,;=@",
            ][..],
        ),
    )
        .prop_map(
            move |(
                method,
                others,
                path_params,
                description,
                danger,
                confirm,
                returns,
                (fields, pagination, presets),
                base,
            )| {
                let mut params = Map::new();
                let mut path = base.to_owned();
                let mut placeholders = Vec::new();
                if base.contains("{p}") {
                    placeholders.push("p".to_owned());
                }
                for name in path_params {
                    if !placeholders.contains(&name) && name != "input" {
                        path.push_str(&format!("/{{{name}}}"));
                        placeholders.push(name);
                    }
                }
                for name in &placeholders {
                    params.insert(
                        name.clone(),
                        json!({"type": if name.len() % 2 == 0 { "string" } else { "integer" }, "required": true}),
                    );
                }
                for (name, definition) in others {
                    if !params.contains_key(&name) && name != "input" {
                        params.insert(name, definition);
                    }
                }
                let mut operation = Map::new();
                operation.insert("name".into(), name.clone().into());
                operation.insert("maps_to".into(), format!("{method} {path}").into());
                if let Some(description) = description {
                    operation.insert("description".into(), description.into());
                }
                if !params.is_empty() {
                    operation.insert("params".into(), Value::Object(params));
                }
                if let Some(danger) = danger {
                    operation.insert("danger_level".into(), danger.into());
                }
                if confirm {
                    operation.insert("requires_confirmation".into(), true.into());
                }
                let mut response = Map::new();
                if let Some(returns) = returns {
                    response.insert("type".into(), returns.into());
                    response.insert("description".into(), "What comes back.".into());
                }
                if let Some(presets) = presets {
                    let presets: Map<String, Value> = presets
                        .into_iter()
                        .map(|(name, paths)| (name, paths.into()))
                        .collect();
                    response.insert("presets".into(), Value::Object(presets));
                }
                if !response.is_empty() {
                    operation.insert("response".into(), Value::Object(response));
                }
                if fields {
                    operation.insert("supports_fields".into(), true.into());
                }
                if let Some(style) = pagination {
                    let block = match style {
                        Some(style) => json!({"style": style, "default_limit": 30, "max_limit": 100}),
                        None => json!({}),
                    };
                    operation.insert("pagination".into(), block);
                }
                Value::Object(operation)
            },
        )
}

/// The front matter of one adapter.
fn adapter() -> impl Strategy<Value = Value> {
    let operations = proptest::collection::vec(
        (
            proptest::sample::select(&["create", "read", "update", "delete", "execute"][..]),
            name_from(NASTY_NAMES),
        ),
        1..6,
    );
    (
        prop_oneof![
            Just("a".to_owned()),
            Just("routes".to_owned()),
            Just("self".to_owned()),
            Just("x-y-z".to_owned()),
            Just("a-".to_owned()),
            Just("a".repeat(64)),
            "[a-z][a-z0-9-]{0,20}",
        ],
        proptest::sample::select(
            &["1.0.0", "0.0.1-alpha.1", "10.20.30", "1.0.0+build.5", "2.0.0-RC.1"][..],
        ),
        text(),
        operations,
        proptest::option::of(proptest::sample::select(
            &["untested", "generated", "validated", "medium", "certified"][..],
        )),
        any::<u8>(),
    )
        .prop_flat_map(|(name, version, description, operations, trust, pick)| {
            let ops: Vec<BoxedStrategy<(String, Value)>> = operations
                .into_iter()
                .map(|(family, op_name)| {
                    operation(family, op_name)
                        .prop_map(move |value| (family.to_owned(), value))
                        .boxed()
                })
                .collect();
            (
                Just((name, version, description, trust, pick)),
                ops,
            )
        })
        .prop_map(|((name, version, description, trust, pick), ops)| {
            let mut operations = Map::new();
            for (family, operation) in ops {
                operations
                    .entry(family)
                    .or_insert_with(|| Value::Array(Vec::new()))
                    .as_array_mut()
                    .expect("an array")
                    .push(operation);
            }
            let auth = match pick % 6 {
                0 => json!({"type": "none"}),
                1 => json!({"type": "bearer", "token_env": "FUZZ_TOKEN"}),
                2 => json!({"type": "api_key", "key_env": "FUZZ_KEY", "header_name": "X-Key"}),
                3 => json!({"type": "api_key", "key_env": "FUZZ_KEY", "query_param": "key"}),
                4 => json!({"type": "combined", "credentials": [
                    {"type": "api_key", "key_env": "FUZZ_KEY", "header_name": "X-Key"},
                    {"type": "api_key", "key_env": "FUZZ_SECRET", "query_param": "secret"},
                ]}),
                _ => json!({"type": "basic", "username_env": "FUZZ_USER", "password_env": "FUZZ_PASS"}),
            };
            let mut front = json!({
                "name": name,
                "type": "adapter",
                "version": version,
                "description": description,
                "target": {
                    "base_url": if pick % 2 == 0 { "https://api.example.com" } else { "http://127.0.0.1:9/v1" },
                    "transport": "http",
                    "protocol": "rest",
                    "serialization": "json",
                },
                "auth": auth,
                "operations": operations,
            });
            if let Some(trust) = trust {
                front["trust"] = json!({"level": trust});
            }
            if pick % 3 == 0 {
                front["rate_limits"] = json!({"requests_per_minute": 30, "burst_limit": 5});
            }
            front
        })
}

fn rng(seed: u64) -> TestRng {
    let mut bytes = [0_u8; 32];
    bytes[..8].copy_from_slice(&seed.to_le_bytes());
    TestRng::from_seed(RngAlgorithm::ChaCha, &bytes)
}

/// `count` schema files (Markdown with YAML front matter) from `seed`, the same every time.
pub fn schemas(seed: u64, count: usize) -> Vec<String> {
    let mut runner = TestRunner::new_with_rng(Config::default(), rng(seed));
    let strategy = adapter();
    (0..count)
        .map(|_| {
            let front = strategy
                .new_tree(&mut runner)
                .map(|tree| tree.current())
                .unwrap_or(Value::Null);
            let yaml = serde_yaml::to_string(&front).unwrap_or_default();
            format!("---\n{yaml}---\n\n# Generated\n\nA schema made by the fuzz strategy.\n")
        })
        .collect()
}
