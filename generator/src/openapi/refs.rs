//! `$ref` resolution, in one place.
//!
//! A `$ref` is a JSON pointer into the document as written, and real documents point
//! anywhere with it: at a component, but also at another path's parameter or at a schema
//! inside a response. So a reference is followed in the raw JSON, and what it points at is
//! read into the typed model ([`super::document`]) on first use, once per reference and
//! kind, and kept for the rest of the import.

use std::cell::OnceCell;
use std::collections::BTreeMap;

use serde::de::DeserializeOwned;
use serde_json::Value;

use super::document::{
    Link, Parameter, PathItem, RefOr, RequestBody, Response, Schema, SecurityScheme,
};

/// The longest chain of `$ref`s followed.
const MAX_LINKS: usize = 32;

/// Follows the `$ref`s of one document.
#[derive(Debug)]
pub struct Resolver<'a> {
    raw: &'a Value,
    /// What each `$ref` written in the document points at, read as each kind it is used as.
    targets: BTreeMap<&'a str, Targets>,
}

/// What one `$ref` points at, read as the kinds it has been used as so far.
#[derive(Debug, Default)]
pub struct Targets {
    schema: OnceCell<Schema>,
    parameter: OnceCell<Parameter>,
    request_body: OnceCell<RequestBody>,
    response: OnceCell<Response>,
    path_item: OnceCell<PathItem>,
    security_scheme: OnceCell<SecurityScheme>,
    link: OnceCell<Link>,
}

/// A kind of object a `$ref` may point at.
pub trait Target: DeserializeOwned + Default {
    /// Where a [`Targets`] keeps the object read as this kind.
    fn cell(targets: &Targets) -> &OnceCell<Self>;
}

macro_rules! target {
    ($($kind:ty => $field:ident),* $(,)?) => {$(
        impl Target for $kind {
            fn cell(targets: &Targets) -> &OnceCell<Self> {
                &targets.$field
            }
        }
    )*};
}

target! {
    Schema => schema,
    Parameter => parameter,
    RequestBody => request_body,
    Response => response,
    PathItem => path_item,
    SecurityScheme => security_scheme,
    Link => link,
}

impl<'a> Resolver<'a> {
    /// A resolver for `raw`, the document the typed model was read from.
    pub fn new(raw: &'a Value) -> Self {
        let mut targets = BTreeMap::new();
        collect_refs(raw, &mut targets);
        Self { raw, targets }
    }

    /// `item` itself, or what its `$ref` chain points at, read as a `T`; `Err` says why the
    /// reference leads nowhere.
    pub fn resolve<'r, T: Target>(&'r self, item: &'r RefOr<T>) -> Result<&'r T, String> {
        let reference = match item {
            RefOr::Item(item) => return Ok(item),
            RefOr::Ref(reference) => reference,
        };
        let value = self.follow(reference)?;
        let targets = self
            .targets
            .get(reference.as_str())
            .ok_or_else(|| format!("`$ref` {reference} is not in the document"))?;
        Ok(T::cell(targets).get_or_init(|| T::deserialize(value).unwrap_or_default()))
    }

    /// The raw value a chain of `$ref`s starting at `reference` ends at (`#/...` pointers
    /// only).
    fn follow(&self, reference: &str) -> Result<&'a Value, String> {
        let mut target = reference;
        for _ in 0..MAX_LINKS {
            let pointer = target
                .strip_prefix('#')
                .ok_or_else(|| format!("`$ref` {target} points outside the document"))?;
            // A `$ref` is a URI: its fragment may percent-encode the pointer (`%7Bid%7D`).
            let value = self
                .raw
                .pointer(&percent_decoded(pointer))
                .ok_or_else(|| format!("`$ref` {target} points at nothing"))?;
            match value.get("$ref").and_then(Value::as_str) {
                Some(next) => target = next,
                None => return Ok(value),
            }
        }
        Err(format!("a `$ref` chain is longer than {MAX_LINKS} links"))
    }
}

/// Adds every `$ref` string written in `value` to `targets`.
fn collect_refs<'a>(value: &'a Value, targets: &mut BTreeMap<&'a str, Targets>) {
    match value {
        Value::Object(map) => {
            if let Some(Value::String(reference)) = map.get("$ref") {
                targets.entry(reference.as_str()).or_default();
            }
            map.values().for_each(|value| collect_refs(value, targets));
        }
        Value::Array(list) => list.iter().for_each(|value| collect_refs(value, targets)),
        _ => {}
    }
}

/// `text` with `%XX` escapes decoded; invalid escapes and invalid UTF-8 stay as written.
fn percent_decoded(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut index = 0;
    while index < bytes.len() {
        let hex = bytes
            .get(index + 1..index + 3)
            .and_then(|hex| std::str::from_utf8(hex).ok())
            .and_then(|hex| u8::from_str_radix(hex, 16).ok());
        match (bytes[index], hex) {
            (b'%', Some(byte)) => {
                out.push(byte);
                index += 3;
            }
            (byte, _) => {
                out.push(byte);
                index += 1;
            }
        }
    }
    String::from_utf8(out).unwrap_or_else(|_| text.to_owned())
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;
    use serde_json::json;

    use super::*;

    fn parameter(value: Value) -> RefOr<Parameter> {
        RefOr::deserialize(value).expect("a parameter or a reference")
    }

    #[test]
    fn follows_chains_and_percent_encoded_pointers() {
        let raw = json!({
            "paths": {"/a/{id}": {"parameters": [{"name": "id"}]}},
            "components": {"parameters": {
                "Id": {"$ref": "#/paths/~1a~1%7Bid%7D/parameters/0"},
                "Loop": {"$ref": "#/components/parameters/Loop"}
            }},
            "refs": [
                {"$ref": "#/components/parameters/Id"},
                {"$ref": "#/components/parameters/Loop"},
                {"$ref": "#/nowhere"},
                {"$ref": "other.yaml#/Id"}
            ]
        });
        let resolver = Resolver::new(&raw);
        let id = parameter(json!({"$ref": "#/components/parameters/Id"}));
        let resolved = resolver.resolve(&id).expect("it resolves");
        assert_eq!(resolved.name.as_deref(), Some("id"));
        let again = resolver.resolve(&id).expect("it resolves");
        assert!(std::ptr::eq(resolved, again), "read once, then kept");
        for (reference, reason) in [
            (
                "#/components/parameters/Loop",
                "a `$ref` chain is longer than 32 links",
            ),
            ("#/nowhere", "`$ref` #/nowhere points at nothing"),
            (
                "other.yaml#/Id",
                "`$ref` other.yaml#/Id points outside the document",
            ),
        ] {
            let item = parameter(json!({ "$ref": reference }));
            assert_eq!(resolver.resolve(&item).map(|_| ()), Err(reason.to_owned()));
        }
        assert_eq!(percent_decoded("%zz%41"), "%zzA");
    }
}
