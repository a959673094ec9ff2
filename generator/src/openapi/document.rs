//! A typed view of the parts of an OpenAPI 3.0 or 3.1 document the importer reads.
//!
//! Each struct holds what the importer uses; every other key, `x-*` extensions included, is
//! ignored. Real documents are messy, so reading one never fails: a field written in a shape
//! the specification does not allow reads as absent (see [`lenient`]), and a map or list is
//! read entry by entry, so one odd entry costs only itself. Maps are `BTreeMap`s: the
//! importer walks paths, properties and media types by name, never in hash order.
//!
//! Wherever the specification allows a Reference Object the field is a [`RefOr`]; the
//! [`Resolver`](super::refs::Resolver) follows it.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde::de::{DeserializeOwned, Deserializer, IgnoredAny};
use serde_json::Value;

/// The document root.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Document {
    /// `openapi`: the version of the specification, `3.0.x` or `3.1.x`.
    #[serde(deserialize_with = "lenient")]
    pub openapi: Option<String>,
    /// `info`.
    #[serde(deserialize_with = "lenient")]
    pub info: Info,
    /// `servers`; the importer takes the first one's URL.
    #[serde(deserialize_with = "entries_of_list")]
    pub servers: Vec<Server>,
    /// `paths`, by path template; `None` when the document has no paths object.
    #[serde(deserialize_with = "entries")]
    pub paths: Option<BTreeMap<String, RefOr<PathItem>>>,
    /// `components`.
    #[serde(deserialize_with = "lenient")]
    pub components: Components,
    /// `security`: the requirements of every operation that declares none of its own;
    /// `None` when the document has no `security` list.
    #[serde(deserialize_with = "requirements")]
    pub security: Option<Vec<Requirement>>,
}

/// A security requirement: the schemes it needs together, by name, with the scopes it asks
/// of each. An empty one makes auth optional.
pub type Requirement = BTreeMap<String, Vec<String>>;

/// `info`.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Info {
    /// The API's title.
    #[serde(deserialize_with = "lenient")]
    pub title: Option<String>,
    /// The version of the API (not of the specification).
    #[serde(deserialize_with = "lenient")]
    pub version: Option<String>,
    /// What the API is, in CommonMark.
    #[serde(deserialize_with = "lenient")]
    pub description: Option<String>,
}

/// One entry of `servers`.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Server {
    /// The server's URL, possibly relative or templated (`https://{region}.example.com`).
    #[serde(deserialize_with = "lenient")]
    pub url: Option<String>,
    /// What each `{name}` of the URL stands for.
    #[serde(deserialize_with = "entries")]
    pub variables: Option<BTreeMap<String, ServerVariable>>,
}

/// A server variable: the values a `{name}` in a server URL may take.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct ServerVariable {
    /// The value to use when none is given; a number reads as its text (`8080`).
    #[serde(deserialize_with = "scalar_text")]
    pub default: Option<String>,
    /// The values allowed, as text, in order.
    #[serde(rename = "enum", deserialize_with = "scalar_texts")]
    pub values: Vec<String>,
}

/// `components`: of its maps, only the security schemes are walked; the others are reached
/// through `$ref`s.
#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Components {
    /// Security schemes, by name.
    #[serde(deserialize_with = "entries")]
    pub security_schemes: Option<BTreeMap<String, RefOr<SecurityScheme>>>,
}

/// A security scheme: the fields that tell its kind and where its credential goes.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct SecurityScheme {
    /// `apiKey`, `http`, `mutualTLS`, `oauth2` or `openIdConnect`.
    #[serde(rename = "type", deserialize_with = "lenient")]
    pub kind: Option<String>,
    /// The HTTP authentication scheme of a `type: http` scheme (`bearer`, `basic`, ...).
    #[serde(deserialize_with = "lenient")]
    pub scheme: Option<String>,
    /// Where an API key goes: `header`, `query` or `cookie`.
    #[serde(rename = "in", deserialize_with = "lenient")]
    pub location: Option<String>,
    /// The header, query or cookie name of an API key.
    #[serde(deserialize_with = "lenient")]
    pub name: Option<String>,
    /// What it is.
    #[serde(deserialize_with = "lenient")]
    pub description: Option<String>,
    /// The flows of an `oauth2` scheme, by kind (`authorizationCode`, `clientCredentials`,
    /// `implicit`, `password`).
    #[serde(deserialize_with = "entries")]
    pub flows: Option<BTreeMap<String, OAuthFlow>>,
    /// Where an `openIdConnect` scheme's provider describes itself.
    #[serde(rename = "openIdConnectUrl", deserialize_with = "lenient")]
    pub open_id_connect_url: Option<String>,
    /// Amazon API Gateway's kind of authorizer (`awsSigv4`, `awsSigv2`, `awsS3`, `custom`):
    /// an `apiKey` scheme of an `aws*` kind stands for a per-request signature.
    #[serde(rename = "x-amazon-apigateway-authtype", deserialize_with = "lenient")]
    pub amazon_authtype: Option<String>,
}

/// One OAuth2 flow: where its tokens come from, and the scopes it offers.
#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct OAuthFlow {
    /// Where the user authorizes (`implicit`, `authorizationCode`).
    #[serde(deserialize_with = "lenient")]
    pub authorization_url: Option<String>,
    /// Where a token is obtained (`password`, `clientCredentials`, `authorizationCode`).
    #[serde(deserialize_with = "lenient")]
    pub token_url: Option<String>,
    /// The scopes, by name, with what each allows.
    #[serde(deserialize_with = "entries")]
    pub scopes: Option<BTreeMap<String, String>>,
}

/// A path item: the operations on one path, and the parameters they share.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct PathItem {
    /// Parameters of every operation on the path.
    #[serde(deserialize_with = "entries_of_list")]
    pub parameters: Vec<RefOr<Parameter>>,
    /// `get`.
    #[serde(deserialize_with = "lenient")]
    pub get: Option<Operation>,
    /// `put`.
    #[serde(deserialize_with = "lenient")]
    pub put: Option<Operation>,
    /// `post`.
    #[serde(deserialize_with = "lenient")]
    pub post: Option<Operation>,
    /// `delete`.
    #[serde(deserialize_with = "lenient")]
    pub delete: Option<Operation>,
    /// `patch`.
    #[serde(deserialize_with = "lenient")]
    pub patch: Option<Operation>,
    /// `head`.
    #[serde(deserialize_with = "lenient")]
    pub head: Option<Operation>,
    /// `options`.
    #[serde(deserialize_with = "lenient")]
    pub options: Option<Operation>,
    /// `trace`.
    #[serde(deserialize_with = "lenient")]
    pub trace: Option<Operation>,
}

impl PathItem {
    /// The operations the item declares, with their lowercase method, in the specification's
    /// order of the fixed fields.
    pub fn operations(&self) -> impl Iterator<Item = (&'static str, &Operation)> {
        [
            ("get", &self.get),
            ("put", &self.put),
            ("post", &self.post),
            ("delete", &self.delete),
            ("patch", &self.patch),
            ("head", &self.head),
            ("options", &self.options),
            ("trace", &self.trace),
        ]
        .into_iter()
        .filter_map(|(method, operation)| Some((method, operation.as_ref()?)))
    }
}

/// An operation.
#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Operation {
    /// Its unique name in the document.
    #[serde(deserialize_with = "lenient")]
    pub operation_id: Option<String>,
    /// A short summary.
    #[serde(deserialize_with = "lenient")]
    pub summary: Option<String>,
    /// A longer description.
    #[serde(deserialize_with = "lenient")]
    pub description: Option<String>,
    /// Its own parameters, which override the path item's of the same name and place.
    #[serde(deserialize_with = "entries_of_list")]
    pub parameters: Vec<RefOr<Parameter>>,
    /// Its request body.
    #[serde(deserialize_with = "lenient")]
    pub request_body: Option<RefOr<RequestBody>>,
    /// Its responses, by status code (`200`, `2XX`, `default`).
    #[serde(deserialize_with = "entries")]
    pub responses: Option<BTreeMap<String, RefOr<Response>>>,
    /// Its own security requirements, over the document's; `Some(empty)` needs no auth.
    #[serde(deserialize_with = "requirements")]
    pub security: Option<Vec<Requirement>>,
}

/// A parameter.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Parameter {
    /// Its name on the wire.
    #[serde(deserialize_with = "lenient")]
    pub name: Option<String>,
    /// Where it goes: `path`, `query`, `header` or `cookie`.
    #[serde(rename = "in", deserialize_with = "lenient")]
    pub location: Option<String>,
    /// Whether the caller must give it.
    #[serde(deserialize_with = "lenient")]
    pub required: bool,
    /// What it is.
    #[serde(deserialize_with = "lenient")]
    pub description: Option<String>,
    /// Its schema; a parameter described by `content` instead has none.
    #[serde(deserialize_with = "lenient")]
    pub schema: Option<RefOr<Schema>>,
    /// Its one media type and schema, for a parameter that has no `schema`.
    #[serde(deserialize_with = "entries")]
    pub content: Option<BTreeMap<String, MediaType>>,
    /// How its value is serialized (`form`, `simple`, `deepObject`, ...); by default the
    /// one of its location.
    #[serde(deserialize_with = "lenient")]
    pub style: Option<String>,
    /// Whether an array or object value is spread over several names or values.
    #[serde(deserialize_with = "lenient")]
    pub explode: Option<bool>,
}

/// A request body.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct RequestBody {
    /// Whether the request must carry it.
    #[serde(deserialize_with = "lenient")]
    pub required: bool,
    /// Its forms, by media type.
    #[serde(deserialize_with = "entries")]
    pub content: Option<BTreeMap<String, MediaType>>,
    /// What it is.
    #[serde(deserialize_with = "lenient")]
    pub description: Option<String>,
}

/// A response.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Response {
    /// Its headers, by name; only the names are read.
    #[serde(deserialize_with = "entries")]
    pub headers: Option<BTreeMap<String, IgnoredAny>>,
    /// Its forms, by media type.
    #[serde(deserialize_with = "entries")]
    pub content: Option<BTreeMap<String, MediaType>>,
    /// The operations its values lead to, by name.
    #[serde(deserialize_with = "entries")]
    pub links: Option<BTreeMap<String, RefOr<Link>>>,
}

/// A link from a response to an operation its values can be passed to.
#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Link {
    /// The `operationId` of the operation.
    #[serde(deserialize_with = "lenient")]
    pub operation_id: Option<String>,
    /// A reference to the operation, `#/paths/~1jobs~1{id}/get`.
    #[serde(deserialize_with = "lenient")]
    pub operation_ref: Option<String>,
    /// The operation's params, by name (`id` or `path.id`), each a value or a runtime
    /// expression such as `$response.body#/id`.
    #[serde(deserialize_with = "entries")]
    pub parameters: Option<BTreeMap<String, Value>>,
}

/// One form of a body.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct MediaType {
    /// The body's schema.
    #[serde(deserialize_with = "lenient")]
    pub schema: Option<RefOr<Schema>>,
    /// How each property of a form or multipart body is written, by property name.
    #[serde(deserialize_with = "entries")]
    pub encoding: Option<BTreeMap<String, Encoding>>,
}

/// How one property of a form-encoded or multipart body is written.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Encoding {
    /// `form` or `deepObject` (or the delimited styles).
    #[serde(deserialize_with = "lenient")]
    pub style: Option<String>,
    /// Whether an array or object is spread over several fields.
    #[serde(deserialize_with = "lenient")]
    pub explode: Option<bool>,
}

/// The JSON form of `content`: the first `application/json…` or `…+json` media type.
pub fn json_form(content: Option<&BTreeMap<String, MediaType>>) -> Option<&MediaType> {
    content?
        .iter()
        .find(|(media, _)| media.starts_with("application/json") || media.ends_with("+json"))
        .map(|(_, form)| form)
}

/// A schema, as far as params and answer shapes need it.
#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Schema {
    /// `type`.
    #[serde(rename = "type", deserialize_with = "types")]
    pub types: Types,
    /// Properties of an object, by name; `None` when the schema has no `properties` object.
    #[serde(deserialize_with = "entries")]
    pub properties: Option<BTreeMap<String, RefOr<Schema>>>,
    /// Names of the required properties.
    #[serde(deserialize_with = "strings")]
    pub required: Vec<String>,
    /// The items of an array.
    #[serde(deserialize_with = "lenient")]
    pub items: Option<Box<RefOr<Schema>>>,
    /// Parts the value matches all of.
    #[serde(deserialize_with = "entries_of_list")]
    pub all_of: Vec<RefOr<Schema>>,
    /// Alternatives the value matches exactly one of.
    #[serde(deserialize_with = "entries_of_list")]
    pub one_of: Vec<RefOr<Schema>>,
    /// Alternatives the value matches at least one of.
    #[serde(deserialize_with = "entries_of_list")]
    pub any_of: Vec<RefOr<Schema>>,
    /// `default`: any JSON value, kept as written (`null` included) to be checked against
    /// the param's type.
    #[serde(deserialize_with = "present")]
    pub default: Option<Value>,
    /// `enum`: any JSON values, kept as written to be checked against the param's type.
    #[serde(rename = "enum", deserialize_with = "lenient")]
    pub values: Option<Vec<Value>>,
    /// `minimum`.
    #[serde(deserialize_with = "lenient")]
    pub minimum: Option<f64>,
    /// `maximum`.
    #[serde(deserialize_with = "lenient")]
    pub maximum: Option<f64>,
    /// What the value is.
    #[serde(deserialize_with = "lenient")]
    pub description: Option<String>,
    /// `format`: `binary` marks a file's content.
    #[serde(deserialize_with = "lenient")]
    pub format: Option<String>,
    /// `contentMediaType` (OpenAPI 3.1): the media type of a string's content, a file's
    /// when it is no text.
    #[serde(deserialize_with = "lenient")]
    pub content_media_type: Option<String>,
    /// `minLength`: the fewest characters of a string.
    #[serde(deserialize_with = "lenient")]
    pub min_length: Option<u64>,
    /// `maxLength`: the most characters of a string.
    #[serde(deserialize_with = "lenient")]
    pub max_length: Option<u64>,
    /// `pattern`: a regular expression a string matches.
    #[serde(deserialize_with = "lenient")]
    pub pattern: Option<String>,
    /// `readOnly`: only ever in answers, never sent.
    #[serde(deserialize_with = "lenient")]
    pub read_only: bool,
}

impl Schema {
    /// A schema that says nothing, for what a `$ref` that leads nowhere stands for.
    pub const NOTHING: Self = Self {
        types: Types::Absent,
        properties: None,
        required: Vec::new(),
        items: None,
        all_of: Vec::new(),
        one_of: Vec::new(),
        any_of: Vec::new(),
        default: None,
        values: None,
        minimum: None,
        maximum: None,
        description: None,
        format: None,
        content_media_type: None,
        min_length: None,
        max_length: None,
        pattern: None,
        read_only: false,
    };
}

/// A schema's `type`: one name (OpenAPI 3.0, and 3.1), a list of names (3.1, where `null`
/// stands for 3.0's `nullable`), or none.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub enum Types {
    /// No `type`, or one of no known shape.
    #[default]
    Absent,
    /// `type: string`.
    One(String),
    /// `type: [string, "null"]`: the names that are strings, in order.
    Many(Vec<String>),
}

impl Types {
    /// The names; of a list, those other than `null`.
    pub fn non_null(&self) -> Vec<&str> {
        match self {
            Self::Absent => Vec::new(),
            Self::One(name) => vec![name.as_str()],
            Self::Many(names) => names
                .iter()
                .map(String::as_str)
                .filter(|name| *name != "null")
                .collect(),
        }
    }
}

/// `T` written in place, or a Reference Object pointing at one elsewhere in the document.
#[derive(Debug)]
pub enum RefOr<T> {
    /// `{"$ref": "#/components/schemas/Pet"}`: the reference as written. Keys beside `$ref`
    /// (a 3.1 `summary` or `description`) are ignored.
    Ref(String),
    /// The object itself.
    Item(T),
}

impl<T: Default> Default for RefOr<T> {
    fn default() -> Self {
        Self::Item(T::default())
    }
}

impl<'de, T: DeserializeOwned + Default> Deserialize<'de> for RefOr<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        Ok(match value.get("$ref").and_then(Value::as_str) {
            Some(target) => Self::Ref(target.to_owned()),
            None => Self::Item(T::deserialize(value).unwrap_or_default()),
        })
    }
}

/// Reads a field the document may have written in any shape: a value of a shape the
/// specification does not allow reads as `T::default()` (absent), as if it were not there.
fn lenient<'de, D: Deserializer<'de>, T: DeserializeOwned + Default>(
    deserializer: D,
) -> Result<T, D::Error> {
    let value = Value::deserialize(deserializer)?;
    Ok(T::deserialize(value).unwrap_or_default())
}

/// Reads a map entry by entry: `None` when the value is no object, and an entry of a shape
/// `T` does not allow reads as `T::default()`.
fn entries<'de, D: Deserializer<'de>, T: DeserializeOwned + Default>(
    deserializer: D,
) -> Result<Option<BTreeMap<String, T>>, D::Error> {
    Ok(match Value::deserialize(deserializer)? {
        Value::Object(map) => Some(
            map.into_iter()
                .map(|(key, value)| (key, T::deserialize(value).unwrap_or_default()))
                .collect(),
        ),
        _ => None,
    })
}

/// Reads a list entry by entry: empty when the value is no array, and an entry of a shape
/// `T` does not allow reads as `T::default()`.
fn entries_of_list<'de, D: Deserializer<'de>, T: DeserializeOwned + Default>(
    deserializer: D,
) -> Result<Vec<T>, D::Error> {
    Ok(match Value::deserialize(deserializer)? {
        Value::Array(list) => list
            .into_iter()
            .map(|value| T::deserialize(value).unwrap_or_default())
            .collect(),
        _ => Vec::new(),
    })
}

/// Reads a value that is kept as JSON, `null` included: a `default: null` is a default the
/// importer reports, not an absent one.
fn present<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(deserializer).map(Some)
}

/// Reads `type`: a string, or the strings of a list.
fn types<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Types, D::Error> {
    Ok(match Value::deserialize(deserializer)? {
        Value::String(name) => Types::One(name),
        Value::Array(names) => Types::Many(only_strings(names)),
        _ => Types::Absent,
    })
}

/// Reads a list of security requirements: `None` when the value is no list; an entry that
/// is no object is left out (it requires nothing anyone could meet), a scheme's scopes are
/// its strings.
fn requirements<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<Vec<Requirement>>, D::Error> {
    Ok(match Value::deserialize(deserializer)? {
        Value::Array(list) => Some(
            list.into_iter()
                .filter_map(|requirement| match requirement {
                    Value::Object(schemes) => Some(
                        schemes
                            .into_iter()
                            .map(|(name, scopes)| {
                                let scopes = match scopes {
                                    Value::Array(scopes) => only_strings(scopes),
                                    _ => Vec::new(),
                                };
                                (name, scopes)
                            })
                            .collect(),
                    ),
                    _ => None,
                })
                .collect(),
        ),
        _ => None,
    })
}

/// Reads a string or a number as text; anything else as absent.
fn scalar_text<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<String>, D::Error> {
    Ok(text_of(Value::deserialize(deserializer)?))
}

/// Reads a list of strings or numbers as texts, in order; nothing when the value is no list.
fn scalar_texts<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<String>, D::Error> {
    Ok(match Value::deserialize(deserializer)? {
        Value::Array(values) => values.into_iter().filter_map(text_of).collect(),
        _ => Vec::new(),
    })
}

/// A string, or a number's text.
fn text_of(value: Value) -> Option<String> {
    match value {
        Value::String(text) => Some(text),
        Value::Number(number) => Some(number.to_string()),
        _ => None,
    }
}

/// Reads a list of names: its strings, in order; nothing when the value is no list.
fn strings<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<String>, D::Error> {
    Ok(match Value::deserialize(deserializer)? {
        Value::Array(names) => only_strings(names),
        _ => Vec::new(),
    })
}

/// The strings of `values`, in order.
fn only_strings(values: Vec<Value>) -> Vec<String> {
    values
        .into_iter()
        .filter_map(|value| match value {
            Value::String(text) => Some(text),
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn odd_shapes_read_as_absent_and_cost_only_themselves() {
        let document = Document::deserialize(&json!({
            "openapi": 3.1,
            "info": "Pets",
            "servers": [7, {"url": "https://a.example"}],
            "x-logo": {"url": "logo.png"},
            "paths": {
                "/pets": {
                    "x-internal": true,
                    "parameters": [{"name": "limit", "in": "query", "required": "yes"}, "junk"],
                    "get": {"operationId": 5, "summary": "List", "responses": {"200": 7}}
                },
                "/odd": "not a path item"
            }
        }))
        .expect("a document never fails to read");
        assert_eq!(document.openapi, None);
        assert_eq!(document.info.title, None);
        assert_eq!(document.servers.len(), 2);
        assert_eq!(
            document.servers[1].url.as_deref(),
            Some("https://a.example")
        );
        let paths = document.paths.expect("paths");
        let Some(RefOr::Item(pets)) = paths.get("/pets") else {
            panic!("an inline path item");
        };
        assert_eq!(pets.parameters.len(), 2);
        let RefOr::Item(limit) = &pets.parameters[0] else {
            panic!("an inline parameter");
        };
        assert_eq!(limit.name.as_deref(), Some("limit"));
        assert!(!limit.required);
        let (method, get) = pets.operations().next().expect("the get");
        assert_eq!(method, "get");
        assert_eq!(get.operation_id, None);
        assert_eq!(get.summary.as_deref(), Some("List"));
        assert!(matches!(paths.get("/odd"), Some(RefOr::Item(item)) if item.get.is_none()));
    }

    #[test]
    fn schema_types_refs_and_values() {
        let schema = Schema::deserialize(&json!({
            "type": ["string", "null", 3],
            "default": null,
            "enum": ["a", 1],
            "items": {"$ref": "#/components/schemas/Item", "description": "beside the ref"},
            "properties": {"a": {"type": "integer"}, "b": true}
        }))
        .expect("a schema never fails to read");
        assert_eq!(schema.types.non_null(), ["string"]);
        assert_eq!(schema.default, Some(Value::Null));
        assert_eq!(schema.values, Some(vec![json!("a"), json!(1)]));
        assert!(
            matches!(schema.items.as_deref(), Some(RefOr::Ref(target)) if target == "#/components/schemas/Item")
        );
        let properties = schema.properties.expect("properties");
        assert!(matches!(&properties["b"], RefOr::Item(b) if b.types == Types::Absent));
        let plain = Schema::deserialize(&json!({"type": "object"})).expect("a schema");
        assert_eq!(plain.default, None);
        assert_eq!(plain.types, Types::One("object".to_owned()));
    }
}
