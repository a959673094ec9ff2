//! Field selection (field-selection §2-§4): `fields` as a preset name or a list of dot paths
//! (`preset`, a deprecated alias of a preset name, extended by a list in `fields`), checked
//! against the item type's declared members and computed fields, applied to an object, to
//! each element of an array, and through arrays on the way down.

use serde_json::{Map, Value};

use aqlgen_model::{COMPUTED_MEMBER, IDENTIFYING_FIELDS, MAX_FIELD_PATH_BYTES};

use crate::adapter::{ComputedField, FieldSelection, Preset};
use crate::error::{AqlError, ErrorCode};
use crate::params::json_type;
use crate::text::shorten;
use crate::warning::Warning;

/// Most paths one request selects.
pub const MAX_PATHS: usize = 100;
/// The member an ETag travels in (SPEC §9.3.2).
pub const ETAG_MEMBER: &str = "_etag";

/// What a request asked to keep.
#[derive(Debug, Clone, PartialEq)]
pub enum Selection {
    /// Every field.
    Full,
    /// These paths; `explicit` paths that match nothing are warned about, preset paths are not.
    Paths {
        /// Dot paths, each split into its members.
        paths: Vec<Vec<String>>,
        /// Whether the caller listed them (not a preset).
        explicit: bool,
    },
}

/// What `fields` and `preset` ask of one request.
#[derive(Debug, Clone)]
pub struct Chosen {
    /// The fields kept.
    pub selection: Selection,
    /// Whether the request named its fields, rather than taking the default.
    pub given: bool,
    /// The computed fields it asked for (`_computed.<name>`), to compute before selecting.
    pub computed: Vec<&'static ComputedField>,
}

impl Chosen {
    /// The selection `fields` and its alias `preset` ask for on an operation with `presets`
    /// and `computed` fields; a `preset` adds a `DEPRECATION_WARNING`.
    ///
    /// # Errors
    ///
    /// What [`Selection::parse`] refuses; a `preset` that is not a preset name, or given with
    /// a preset name in `fields`; a path the item type does not declare, or a computed field
    /// it does not have.
    pub fn parse(
        fields: Option<Value>,
        preset: Option<Value>,
        presets: &FieldSelection,
        computed: &'static [ComputedField],
        warnings: &mut Vec<Warning>,
    ) -> Result<Self, AqlError> {
        let fields = fields.filter(|value| !value.is_null());
        let preset = match preset.filter(|value| !value.is_null()) {
            None => None,
            Some(Value::String(name)) => {
                let selection = preset_named(presets, &name)
                    .ok_or_else(|| unknown_preset(presets, &name, "preset"))?;
                warnings.push(
                    Warning::new(
                        "DEPRECATION_WARNING",
                        "preset is deprecated: pass the preset name in 'fields' instead",
                    )
                    .with_severity(crate::warning::Severity::Low)
                    .with_detail("type", "parameter")
                    .with_detail("deprecated_item", "preset")
                    .with_detail("replacement", "fields"),
                );
                Some(selection)
            }
            Some(other) => {
                return Err(AqlError::new(
                    ErrorCode::ValidationInvalidType,
                    format!(
                        "Parameter 'preset' expected 'string', got '{}'",
                        json_type(&other)
                    ),
                )
                .with_detail("param_name", "preset")
                .with_detail("expected_type", "string")
                .with_detail("actual_type", json_type(&other)));
            }
        };
        let given = fields.is_some() || preset.is_some();
        let listed = match (&fields, preset) {
            (Some(Value::String(_)), Some(_)) => {
                return Err(AqlError::new(
                    ErrorCode::ValidationInvalidValue,
                    "Parameters 'fields' and 'preset' both name a preset; give the preset in 'fields' alone, or a list of paths in 'fields' to add to 'preset'",
                )
                .with_detail("param_name", "preset"));
            }
            (None, Some(preset)) => {
                return Ok(Self {
                    selection: preset,
                    given,
                    computed: Vec::new(),
                });
            }
            (_, preset) => (Selection::parse(fields, presets)?, preset),
        };
        let (selection, preset) = listed;
        let computed_asked = check_paths(&selection, presets, computed)?;
        let selection = match (preset, selection) {
            (Some(Selection::Full), _) => Selection::Full,
            (
                Some(Selection::Paths {
                    paths: mut base, ..
                }),
                Selection::Paths { paths, .. },
            ) => {
                base.extend(paths);
                Selection::Paths {
                    paths: base,
                    explicit: true,
                }
            }
            (_, selection) => selection,
        };
        Ok(Self {
            selection,
            given,
            computed: computed_asked,
        })
    }
}

/// The computed fields an explicit list names; refuses a path whose first member the item
/// type does not declare (when it declares its members) and an unknown computed field.
fn check_paths(
    selection: &Selection,
    presets: &FieldSelection,
    computed: &'static [ComputedField],
) -> Result<Vec<&'static ComputedField>, AqlError> {
    let Selection::Paths {
        paths,
        explicit: true,
    } = selection
    else {
        return Ok(Vec::new());
    };
    let mut asked = Vec::new();
    for path in paths {
        let first = path[0].as_str();
        if first == COMPUTED_MEMBER {
            let names: Vec<String> = computed
                .iter()
                .map(|field| format!("{COMPUTED_MEMBER}.{}", field.name))
                .collect();
            let found = path
                .get(1)
                .filter(|_| path.len() == 2)
                .and_then(|name| computed.iter().find(|field| field.name == name));
            match found {
                Some(field) => asked.push(field),
                None => {
                    return Err(AqlError::new(
                        ErrorCode::ValidationInvalidValue,
                        format!(
                            "Parameter 'fields' names '{}', which is no computed field here; the computed fields are {}",
                            shorten(&path.join("."), 80),
                            if names.is_empty() { "none".to_owned() } else { names.join(", ") }
                        ),
                    )
                    .with_detail("param_name", "fields")
                    .with_detail("computed_fields", names));
                }
            }
        } else if !presets.known.is_empty()
            && first != ETAG_MEMBER
            && !presets.known.contains(&first)
        {
            return Err(AqlError::new(
                ErrorCode::ValidationInvalidValue,
                format!(
                    "Parameter 'fields' names '{}', and the items have no '{}'; their fields are {}",
                    shorten(&path.join("."), 80),
                    shorten(first, 64),
                    presets.known.join(", ")
                ),
            )
            .with_detail("param_name", "fields")
            .with_detail("valid_fields", presets.known.to_vec()));
        }
    }
    Ok(asked)
}

fn unknown_preset(presets: &FieldSelection, name: &str, param: &str) -> AqlError {
    AqlError::new(
        ErrorCode::ValidationInvalidValue,
        format!(
            "Parameter '{param}' names no preset: '{}'. Presets: {}; or pass a list of dot paths such as [\"id\", \"owner.login\"] in 'fields'",
            shorten(name, 80),
            preset_names(presets).join(", ")
        ),
    )
    .with_detail("param_name", param)
    .with_detail("presets", preset_names(presets))
}

/// Adds the `computed` fields' values to each item of `data` (an item or an array of them),
/// under `_computed`, at `now`.
pub fn add_computed(data: &mut Value, computed: &[&'static ComputedField], now: i64) {
    match data {
        Value::Array(items) => items
            .iter_mut()
            .for_each(|item| add_computed(item, computed, now)),
        Value::Object(object) if !computed.is_empty() => {
            let item = Value::Object(std::mem::take(object));
            let values: Map<String, Value> = computed
                .iter()
                .map(|field| (field.name.to_owned(), (field.compute)(&item, now)))
                .collect();
            let Value::Object(mut restored) = item else {
                unreachable!("an object was taken")
            };
            let mut all = match restored.remove(COMPUTED_MEMBER) {
                Some(Value::Object(already)) => already,
                _ => Map::new(),
            };
            all.extend(values);
            restored.insert(COMPUTED_MEMBER.to_owned(), Value::Object(all));
            *object = restored;
        }
        _ => {}
    }
}

impl Selection {
    /// The selection `fields` asks for on an operation with `presets`; no `fields` is the
    /// operation's default preset.
    ///
    /// # Errors
    ///
    /// `VALIDATION_INVALID_TYPE` when `fields` is neither a string nor a list of strings,
    /// `VALIDATION_INVALID_VALUE` for an unknown preset or a malformed or too long list.
    pub fn parse(fields: Option<Value>, presets: &FieldSelection) -> Result<Self, AqlError> {
        match fields {
            None | Some(Value::Null) => Ok(preset_named(presets, presets.default.as_str())
                .unwrap_or(Self::Full)),
            Some(Value::String(name)) => {
                preset_named(presets, &name).ok_or_else(|| unknown_preset(presets, &name, "fields"))
            }
            Some(Value::Array(items)) => {
                if items.len() > MAX_PATHS {
                    return Err(bad_list(format!(
                        "no more than {MAX_PATHS} paths, found {}",
                        items.len()
                    )));
                }
                let mut paths = Vec::with_capacity(items.len());
                for (index, item) in items.iter().enumerate() {
                    let Value::String(path) = item else {
                        return Err(AqlError::new(
                            ErrorCode::ValidationInvalidType,
                            format!(
                                "Parameter 'fields[{index}]' expected 'string', got '{}'",
                                json_type(item)
                            ),
                        )
                        .with_detail("param_name", format!("fields[{index}]"))
                        .with_detail("expected_type", "string")
                        .with_detail("actual_type", json_type(item)));
                    };
                    paths.push(split(path).ok_or_else(|| {
                        bad_list(format!(
                            "'{}' is not a dot path (members separated by '.', none empty, up to {MAX_FIELD_PATH_BYTES} bytes)",
                            shorten(path, 80)
                        ))
                    })?);
                }
                Ok(Self::Paths {
                    paths,
                    explicit: true,
                })
            }
            Some(other) => Err(AqlError::new(
                ErrorCode::ValidationInvalidType,
                format!(
                    "Parameter 'fields' expected 'string | string[]' (a preset name or a list of dot paths), got '{}'",
                    json_type(&other)
                ),
            )
            .with_detail("param_name", "fields")
            .with_detail("expected_type", "string | string[]")
            .with_detail("actual_type", json_type(&other))),
        }
    }

    /// Keeps the selected fields of `data` (each element, when it is an array); a warning
    /// names the explicit paths that matched nothing in a non-empty answer.
    pub fn apply(&self, data: &mut Value, warnings: &mut Vec<Warning>) {
        let Self::Paths { paths, explicit } = self else {
            return;
        };
        let mut matched = vec![false; paths.len()];
        let mut seen_item = false;
        select_items(data, paths, &mut matched, &mut seen_item);
        if *explicit && seen_item {
            let unmatched: Vec<String> = paths
                .iter()
                .zip(&matched)
                .filter(|(_, matched)| !**matched)
                .map(|(path, _)| path.join("."))
                .collect();
            if !unmatched.is_empty() {
                warnings.push(
                    Warning::new(
                        "FIELD_SELECTION_UNMATCHED",
                        format!(
                            "No item has the field(s) {}; they are left out. Call 'introspect' on the operation for its presets",
                            unmatched
                                .iter()
                                .map(|path| format!("'{}'", shorten(path, 80)))
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                    )
                    .with_detail("fields", unmatched),
                );
            }
        }
    }
}

/// The preset called `name`: declared, else built in.
fn preset_named(presets: &FieldSelection, name: &str) -> Option<Selection> {
    if let Some((_, paths)) = presets
        .presets
        .iter()
        .find(|(declared, _)| *declared == name)
    {
        return Some(Selection::Paths {
            paths: paths.iter().filter_map(|path| split(path)).collect(),
            explicit: false,
        });
    }
    match Preset::parse(name)? {
        Preset::Full | Preset::Standard => Some(Selection::Full),
        Preset::Minimal => Some(Selection::Paths {
            paths: IDENTIFYING_FIELDS
                .iter()
                .map(|name| vec![(*name).to_owned()])
                .collect(),
            explicit: false,
        }),
    }
}

/// Every preset name an operation knows: the built-in three, then its own.
fn preset_names(presets: &FieldSelection) -> Vec<&'static str> {
    let mut names: Vec<&'static str> = Preset::ALL.iter().map(|preset| preset.as_str()).collect();
    for (name, _) in presets.presets {
        if !names.contains(name) {
            names.push(name);
        }
    }
    names
}

fn split(path: &str) -> Option<Vec<String>> {
    if path.len() > MAX_FIELD_PATH_BYTES {
        return None;
    }
    let members: Vec<String> = path.split('.').map(str::to_owned).collect();
    members
        .iter()
        .all(|member| !member.is_empty())
        .then_some(members)
}

fn bad_list(what: String) -> AqlError {
    AqlError::new(
        ErrorCode::ValidationInvalidValue,
        format!("Parameter 'fields' must be a preset name or a list of dot paths: {what}"),
    )
    .with_detail("param_name", "fields")
}

/// Applies `paths` to `data`, an item or an array of items.
fn select_items(data: &mut Value, paths: &[Vec<String>], matched: &mut [bool], seen: &mut bool) {
    match data {
        Value::Array(items) => {
            for item in items {
                select_items(item, paths, matched, seen);
            }
        }
        Value::Object(object) => {
            *seen = true;
            let tails: Vec<(usize, &[String])> = paths
                .iter()
                .enumerate()
                .map(|(index, path)| (index, path.as_slice()))
                .collect();
            select_object(object, &tails, matched);
        }
        _ => {}
    }
}

/// Keeps the members of `object` that some path in `tails` reaches; `tails` pairs each
/// path's index with what is left of it at this depth.
fn select_object(
    object: &mut Map<String, Value>,
    tails: &[(usize, &[String])],
    matched: &mut [bool],
) {
    let taken = std::mem::take(object);
    for (key, mut value) in taken {
        let reaching: Vec<(usize, &[String])> = tails
            .iter()
            .filter(|(_, tail)| tail.first() == Some(&key))
            .map(|(index, tail)| (*index, &tail[1..]))
            .collect();
        if reaching.is_empty() {
            continue;
        }
        if reaching.iter().any(|(_, rest)| rest.is_empty()) {
            for (index, rest) in &reaching {
                if rest.is_empty() {
                    matched[*index] = true;
                }
            }
            object.insert(key, value);
            continue;
        }
        if select_nested(&mut value, &reaching, matched) {
            object.insert(key, value);
        }
    }
}

/// Applies deeper paths to a member's value; whether anything was kept.
fn select_nested(value: &mut Value, tails: &[(usize, &[String])], matched: &mut [bool]) -> bool {
    match value {
        Value::Object(object) => {
            select_object(object, tails, matched);
            !object.is_empty()
        }
        Value::Array(items) => {
            for item in items.iter_mut() {
                select_nested(item, tails, matched);
            }
            true
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    static DECLARED: FieldSelection = FieldSelection {
        presets: &[("minimal", &["id", "owner.login"]), ("contact", &["email"])],
        default: Preset::Full,
        known: &[],
    };
    static BARE: FieldSelection = FieldSelection {
        presets: &[],
        default: Preset::Standard,
        known: &[],
    };
    static TYPED: FieldSelection = FieldSelection {
        presets: &[],
        default: Preset::Full,
        known: &["id", "title", "created_at"],
    };
    static COMPUTED: &[ComputedField] = &[ComputedField {
        name: "title_length",
        kind: aqlgen_model::FieldKind::Integer,
        compute: |item, _| {
            item["title"]
                .as_str()
                .map_or(Value::Null, |t| t.len().into())
        },
    }];

    fn choose(fields: Value, preset: Value) -> Result<(Chosen, Vec<Warning>), AqlError> {
        let mut warnings = Vec::new();
        let chosen = Chosen::parse(Some(fields), Some(preset), &TYPED, COMPUTED, &mut warnings)?;
        Ok((chosen, warnings))
    }

    #[test]
    fn declared_fields_computed_fields_and_the_preset_alias() {
        let (chosen, warnings) =
            choose(json!(["title", "_computed.title_length"]), Value::Null).unwrap();
        assert_eq!(chosen.computed.len(), 1);
        assert!(warnings.is_empty());
        let mut item = json!({"id": 1, "title": "abc", "created_at": "x"});
        add_computed(&mut item, &chosen.computed, 0);
        chosen.selection.apply(&mut item, &mut Vec::new());
        assert_eq!(
            item,
            json!({"title": "abc", "_computed": {"title_length": 3}})
        );
        let error = choose(json!(["colour"]), Value::Null).unwrap_err();
        assert_eq!(
            error.message,
            "Parameter 'fields' names 'colour', and the items have no 'colour'; their fields are id, title, created_at"
        );
        let error = choose(json!(["_computed.age"]), Value::Null).unwrap_err();
        assert!(
            error
                .message
                .contains("the computed fields are _computed.title_length")
        );
        let (chosen, warnings) = choose(json!(["title"]), json!("minimal")).unwrap();
        assert_eq!(warnings[0].code, "DEPRECATION_WARNING");
        assert_eq!(warnings[0].details["deprecated_item"], "preset");
        let Selection::Paths { paths, .. } = chosen.selection else {
            panic!("paths")
        };
        assert!(
            paths.contains(&vec!["title".to_owned()]) && paths.contains(&vec!["id".to_owned()])
        );
        assert!(choose(json!("minimal"), json!("full")).is_err());
    }

    fn select(fields: Value, presets: &FieldSelection, mut data: Value) -> (Value, Vec<Warning>) {
        let selection = Selection::parse(Some(fields), presets).expect("a valid selection");
        let mut warnings = Vec::new();
        selection.apply(&mut data, &mut warnings);
        (data, warnings)
    }

    #[test]
    fn paths_keep_nested_structure_through_arrays() {
        let data = json!([
            {"id": 1, "owner": {"login": "a", "id": 9}, "labels": [{"name": "x", "color": "f"}], "_etag": "W/\"1\""},
            {"id": 2, "owner": null, "labels": []}
        ]);
        let (kept, warnings) = select(
            json!(["id", "owner.login", "labels.name"]),
            &BARE,
            data.clone(),
        );
        // Only what was asked for: `_etag` too goes unless it is listed.
        assert_eq!(
            kept,
            json!([
                {"id": 1, "owner": {"login": "a"}, "labels": [{"name": "x"}]},
                {"id": 2, "labels": []}
            ])
        );
        assert!(warnings.is_empty());
        let (kept, _) = select(json!(["id", "_etag"]), &BARE, data);
        assert_eq!(kept, json!([{"id": 1, "_etag": "W/\"1\""}, {"id": 2}]));
    }

    #[test]
    fn unmatched_explicit_paths_warn_once() {
        let (kept, warnings) = select(
            json!(["id", "nope", "owner.nope"]),
            &BARE,
            json!([{"id": 1, "owner": {"login": "a"}}]),
        );
        assert_eq!(kept, json!([{"id": 1}]));
        assert_eq!(warnings.len(), 1);
        assert_eq!(warnings[0].details["fields"], json!(["nope", "owner.nope"]));
        let (_, quiet) = select(json!(["nope"]), &BARE, json!([]));
        assert!(quiet.is_empty(), "an empty answer has nothing to match");
    }

    #[test]
    fn presets_declared_built_in_and_default() {
        let item = json!({"id": 1, "name": "n", "email": "e", "owner": {"login": "a", "id": 2}});
        assert_eq!(
            select(json!("minimal"), &DECLARED, item.clone()).0,
            json!({"id": 1, "owner": {"login": "a"}})
        );
        assert_eq!(
            select(json!("contact"), &DECLARED, item.clone()).0,
            json!({"email": "e"})
        );
        assert_eq!(select(json!("full"), &DECLARED, item.clone()).0, item);
        assert_eq!(
            select(json!("minimal"), &BARE, item.clone()).0,
            json!({"id": 1, "name": "n"})
        );
        assert_eq!(select(json!("standard"), &BARE, item.clone()).0, item);
        assert_eq!(Selection::parse(None, &BARE), Ok(Selection::Full));
    }

    #[test]
    fn bad_fields_are_refused_with_the_param_named() {
        for (fields, code) in [
            (json!("everything"), ErrorCode::ValidationInvalidValue),
            (json!(5), ErrorCode::ValidationInvalidType),
            (json!([1]), ErrorCode::ValidationInvalidType),
            (json!(["a..b"]), ErrorCode::ValidationInvalidValue),
            (json!([""]), ErrorCode::ValidationInvalidValue),
            (
                Value::Array(vec![json!("a"); MAX_PATHS + 1]),
                ErrorCode::ValidationInvalidValue,
            ),
        ] {
            let error = Selection::parse(Some(fields.clone()), &DECLARED).expect_err("refused");
            assert_eq!(error.code, code, "{fields}");
        }
        let error = Selection::parse(Some(json!("everything")), &DECLARED).expect_err("refused");
        assert_eq!(
            error.details["presets"],
            json!(["minimal", "standard", "full", "contact"])
        );
    }
}
