//! Create → read round trips and update → read preservation checks, wherever a CREATE
//! (`POST /things`) has a READ of one item (`GET /things/{id}`), and an UPDATE of the same
//! item; the new item's id is found in the create answer.

use serde_json::{Map, Value, json};

use super::client::Client;
use crate::error::Error;
use crate::ir::{Category, Method, Operation, ParamLocation, ParamType};

/// A CREATE of a collection, the READ of one of its items, and maybe an UPDATE of it.
pub struct Pair<'a> {
    /// The CREATE.
    pub create: &'a Operation,
    /// The READ of one item.
    pub read: &'a Operation,
    /// The UPDATE of one item, if any.
    pub update: Option<&'a Operation>,
    /// The READ's last path param: the item's id.
    id_param: &'a str,
}

/// Pairs `POST /things` with `GET /things/{id}` (and `PATCH|PUT /things/{id}`).
pub fn pairs(operations: &[Operation]) -> Vec<Pair<'_>> {
    let item_of = |template: &str| -> Option<(String, String)> {
        let (collection, last) = template.rsplit_once('/')?;
        let id = last.strip_prefix('{')?.strip_suffix('}')?;
        Some((collection.to_owned(), id.to_owned()))
    };
    let mut found = Vec::new();
    for create in operations
        .iter()
        .filter(|op| op.category == Category::Create && op.method == Method::Post)
    {
        let Some(read) = operations.iter().find(|op| {
            op.category == Category::Read
                && op.method == Method::Get
                && item_of(&op.path_template)
                    .is_some_and(|(collection, _)| collection == create.path_template)
        }) else {
            continue;
        };
        let Some(id_param) = read
            .params
            .iter()
            .rev()
            .find(|param| param.placement == ParamLocation::Path)
        else {
            continue;
        };
        let update = operations.iter().find(|op| {
            op.category == Category::Update
                && matches!(op.method, Method::Patch | Method::Put)
                && op.path_template == read.path_template
                && op.input.is_some()
        });
        found.push(Pair {
            create,
            read,
            update,
            id_param: &id_param.name,
        });
    }
    found
}

/// Whether a param's values come back unchanged in a read: a scalar sent in the body.
fn echoed(ty: ParamType) -> bool {
    matches!(
        ty,
        ParamType::String | ParamType::Integer | ParamType::Number | ParamType::Boolean
    )
}

/// The sent fields as runner dot paths into the read answer, leaving out those the API
/// answers with an object or array (a branch name sent as `base` read back as
/// `base: {ref, ...}`): the API's own shape for that field, not a scalar to compare with.
fn comparable(
    read: &str,
    sent: Map<String, Value>,
    read_response: &Value,
    notes: &mut Vec<String>,
) -> Map<String, Value> {
    let mut fields = Map::new();
    for (name, value) in sent {
        if matches!(
            read_response["data"].get(&name),
            Some(Value::Object(_) | Value::Array(_))
        ) {
            notes.push(format!(
                "'{read}' answers '{name}' as a structure: it is not compared"
            ));
            continue;
        }
        fields.insert(format!("data.{name}"), value);
    }
    fields
}

/// Whether a param takes any string, so a recognisable text can be sent in it.
fn free_text(param: &crate::ir::Param) -> bool {
    param.ty == ParamType::String
        && param.allowed.is_empty()
        && param.pattern.is_none()
        && param.format.is_none()
        && param.minimum.is_none()
        && param.maximum.is_none()
}

/// An item a CREATE made: the body fields sent and the item's id.
struct Created {
    sent: Map<String, Value>,
    id: Value,
}

/// The calls of one [`Pair`], through the tools that serve it.
pub struct RoundTrip<'a> {
    /// The operations.
    pub pair: &'a Pair<'a>,
    /// The tool the CREATE is called on.
    pub create_tool: String,
    /// The tool the READ is called on.
    pub read_tool: String,
    /// Values given for params by name.
    pub values: &'a Map<String, Value>,
}

impl RoundTrip<'_> {
    fn value(&self, param: &crate::ir::Param) -> Value {
        self.values
            .get(&param.name)
            .cloned()
            .unwrap_or_else(|| param.example.clone())
    }

    /// Creates an item with every required param and every echoed body param; returns the
    /// body fields sent and the id of the new item.
    fn create(
        &self,
        client: &mut Client,
        notes: &mut Vec<String>,
    ) -> Result<Option<Created>, Error> {
        let create = self.pair.create;
        let mut params = Map::new();
        let mut sent = Map::new();
        for param in &create.params {
            let body = param.placement == ParamLocation::Body && echoed(param.ty);
            if param.required || body {
                let mut value = self.value(param);
                if body && free_text(param) {
                    value = self.values.get(&param.name).cloned().unwrap_or_else(|| {
                        json!(format!("conformance {} {}", create.name, param.name))
                    });
                }
                if body {
                    sent.insert(param.wire_name.clone(), value.clone());
                }
                params.insert(param.name.clone(), value);
            }
        }
        let created = client.call(
            &self.create_tool,
            json!({"operation": create.name, "params": params}),
        )?;
        if created["success"] != true {
            notes.push(format!(
                "no round trip through '{}': it failed: {}",
                create.name, created["error"]
            ));
            return Ok(None);
        }
        let id_param = self.pair.id_param;
        let short = id_param.rsplit('_').next().unwrap_or(id_param);
        let id = [id_param, short, "id"]
            .iter()
            .find_map(|key| created["data"].get(*key).filter(|value| !value.is_null()))
            .cloned();
        let Some(id) = id else {
            notes.push(format!(
                "no round trip through '{}': its answer has no '{id_param}', '{short}' or 'id'",
                create.name
            ));
            return Ok(None);
        };
        Ok(Some(Created { sent, id }))
    }

    /// The required params of `operation` (the READ or the UPDATE) for the item `id`.
    fn item_params(&self, operation: &Operation, id: &Value) -> Map<String, Value> {
        let mut params = Map::new();
        for param in operation.params.iter().filter(|param| param.required) {
            let value = if param.name == self.pair.id_param {
                id.clone()
            } else {
                self.value(param)
            };
            params.insert(param.name.clone(), value);
        }
        params
    }

    fn read(&self, client: &mut Client, id: &Value) -> Result<Value, Error> {
        client.call(
            &self.read_tool,
            json!({"operation": self.pair.read.name, "params": self.item_params(self.pair.read, id)}),
        )
    }

    /// A create, then a read of what it made (`round_trip_tests`).
    pub fn create_then_read(
        &self,
        client: &mut Client,
        notes: &mut Vec<String>,
    ) -> Result<Option<Value>, Error> {
        let Some(Created { sent, id }) = self.create(client, notes)? else {
            return Ok(None);
        };
        let read_response = self.read(client, &id)?;
        let expected = comparable(&self.pair.read.name, sent, &read_response, notes);
        Ok(Some(json!({
            "name": format!("{} then {}", self.pair.create.name, self.pair.read.name),
            "expected_fields": expected,
            "read_response": read_response,
        })))
    }

    /// A create, an update of one field, then a read that must keep the others
    /// (`update_preservation_tests`).
    pub fn update_then_read(
        &self,
        client: &mut Client,
        update_tool: &str,
        notes: &mut Vec<String>,
    ) -> Result<Option<Value>, Error> {
        let Some(update) = self.pair.update else {
            return Ok(None);
        };
        let Some(input) = &update.input else {
            return Ok(None);
        };
        // Change one field the create sends; every other one must survive. Found before
        // anything is created, so no item is made for a check that cannot run.
        let sends = |name: &str| {
            self.pair.create.params.iter().any(|param| {
                param.name == name && param.placement == ParamLocation::Body && echoed(param.ty)
            })
        };
        let Some(changed) = input
            .fields
            .iter()
            .find(|field| sends(&field.name) && free_text(field))
        else {
            notes.push(format!(
                "no preservation check through '{}': no free-text field of it is one '{}' sends",
                update.name, self.pair.create.name
            ));
            return Ok(None);
        };
        let Some(Created { sent, id }) = self.create(client, notes)? else {
            return Ok(None);
        };
        let mut params = self.item_params(update, &id);
        params.insert(
            "input".to_owned(),
            json!({ changed.name.clone(): format!("conformance {} {}", update.name, changed.name) }),
        );
        let updated = client.call(
            update_tool,
            json!({"operation": update.name, "params": params}),
        )?;
        if updated["success"] != true {
            notes.push(format!(
                "no preservation check through '{}': it failed: {}",
                update.name, updated["error"]
            ));
            return Ok(None);
        }
        let read_response = self.read(client, &id)?;
        let kept = sent
            .into_iter()
            .filter(|(name, _)| name != &changed.name)
            .collect();
        let preserved = comparable(&self.pair.read.name, kept, &read_response, notes);
        Ok(Some(json!({
            "name": format!("{} keeps what it was not given", update.name),
            "preserved_fields": preserved,
            "read_response": read_response,
        })))
    }

    /// A read of an item that does not exist, when the upstream says so.
    pub fn not_found(&self, client: &mut Client) -> Result<Option<Value>, Error> {
        let id_param = self
            .pair
            .read
            .params
            .iter()
            .find(|param| param.name == self.pair.id_param);
        let missing = match id_param.map(|param| param.ty) {
            Some(ParamType::Integer) => json!(987_654_321),
            _ => json!("zz-no-such-item"),
        };
        let response = self.read(client, &missing)?;
        if response["success"] != false || response["error"]["code"] != "NOT_FOUND_RESOURCE" {
            return Ok(None);
        }
        Ok(Some(json!({
            "name": format!("{}: no such item", self.pair.read.name),
            "must_mention": [],
            "response": response,
        })))
    }
}
