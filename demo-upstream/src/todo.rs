//! The todo API of `adapters/todo-adapter.md`. Its errors are `{"error": "..."}`, a different
//! shape from GitHub's `{"message": "..."}`, so both ways of carrying a message get exercised.

use std::collections::BTreeMap;

use axum::http::{Method, StatusCode};
use serde_json::{Value, json};

use crate::call::{Call, Reply, apply, timestamp};

/// Fields a client may set on a todo.
const EDITABLE: &[&str] = &["title", "notes", "due", "priority", "tags"];

/// To-do items by id.
#[derive(Debug)]
pub(crate) struct Todos {
    items: BTreeMap<u64, Value>,
    next_id: u64,
    /// The logical clock behind `created_at`, `updated_at` and `completed_at`.
    clock: u64,
}

impl Todos {
    /// Three items: "Buy milk" (open, tag `shopping`), "Write the report" (open, high priority,
    /// due 2026-02-01) and "Call the plumber" (completed).
    pub(crate) fn seeded() -> Self {
        let mut todos = Self {
            items: BTreeMap::new(),
            next_id: 1,
            clock: 0,
        };
        todos.insert(&json!({ "title": "Buy milk", "tags": ["shopping"] }));
        todos.insert(
            &json!({ "title": "Write the report", "priority": "high", "due": "2026-02-01" }),
        );
        let plumber = todos.insert(&json!({ "title": "Call the plumber", "tags": ["home"] }));
        if let Some(id) = plumber["id"].as_u64() {
            todos.complete(id, None);
        }
        todos
    }

    /// Routes one call; `segments` is the decoded path after `/todos`.
    pub(crate) fn answer(&mut self, call: &Call, segments: &[&str]) -> Reply {
        let method = &call.method;
        match segments {
            [] if method == Method::GET => self.list(call),
            [] if method == Method::POST => match call.body_str("title") {
                Some(title) if !title.trim().is_empty() => {
                    Reply::created(self.insert(&Value::Object(call.body.clone())))
                }
                _ => error(StatusCode::BAD_REQUEST, "title is required"),
            },
            [] if method == Method::DELETE => {
                let deleted = self.items.len();
                self.items.clear();
                Reply::ok(json!({ "deleted": deleted }))
            }
            ["completed"] if method == Method::DELETE => {
                let before = self.items.len();
                self.items.retain(|_, todo| todo["completed"] != true);
                Reply::ok(json!({ "deleted": before - self.items.len() }))
            }
            ["tagged", tag] if method == Method::DELETE => {
                let before = self.items.len();
                self.items.retain(|_, todo| {
                    !todo["tags"]
                        .as_array()
                        .is_some_and(|tags| tags.contains(&json!(tag)))
                });
                Reply::ok(json!({ "deleted": before - self.items.len() }))
            }
            [id, rest @ ..] => {
                let Some(id) = id
                    .parse::<u64>()
                    .ok()
                    .filter(|id| self.items.contains_key(id))
                else {
                    return error(StatusCode::NOT_FOUND, &format!("todo {id} not found"));
                };
                match rest {
                    [] if method == Method::GET => Reply::ok(self.items[&id].clone()),
                    [] if method == Method::PATCH => {
                        let tick = self.tick();
                        let todo = self.item_mut(id);
                        apply(todo, &call.body, EDITABLE);
                        todo["updated_at"] = json!(timestamp(tick));
                        Reply::ok(todo.clone())
                    }
                    [] if method == Method::DELETE => {
                        self.items.remove(&id);
                        Reply::empty(StatusCode::NO_CONTENT)
                    }
                    ["complete"] if method == Method::POST => {
                        if self.items[&id]["completed"] == true {
                            return error(
                                StatusCode::CONFLICT,
                                &format!("todo {id} is already completed"),
                            );
                        }
                        Reply::ok(self.complete(id, call.body_str("note")))
                    }
                    _ => error(StatusCode::NOT_FOUND, "no such route"),
                }
            }
            _ => error(StatusCode::NOT_FOUND, "no such route"),
        }
    }

    fn list(&self, call: &Call) -> Reply {
        let completed = call
            .query("completed")
            .and_then(|value| value.parse::<bool>().ok());
        let tag = call.query("tag");
        let items: Vec<Value> = self
            .items
            .values()
            .filter(|todo| completed.is_none_or(|completed| todo["completed"] == completed))
            .filter(|todo| {
                tag.is_none_or(|tag| {
                    todo["tags"]
                        .as_array()
                        .is_some_and(|tags| tags.iter().any(|t| t == tag))
                })
            })
            .cloned()
            .collect();
        let total = items.len();
        let limit = call.query_number("limit", 20).clamp(1, 100);
        let offset = call.query_number("offset", 0);
        let items: Vec<Value> = items
            .into_iter()
            .skip(usize::try_from(offset).unwrap_or(usize::MAX))
            .take(usize::try_from(limit).unwrap_or(usize::MAX))
            .collect();
        Reply::ok(json!({ "items": items, "total": total }))
    }

    fn insert(&mut self, fields: &Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        let tick = self.tick();
        let mut todo = json!({
            "id": id,
            "title": "",
            "notes": null,
            "due": null,
            "priority": "normal",
            "tags": [],
            "completed": false,
            "completed_at": null,
            "created_at": timestamp(tick),
            "updated_at": timestamp(tick),
        });
        if let Some(fields) = fields.as_object() {
            apply(&mut todo, fields, EDITABLE);
        }
        self.items.insert(id, todo.clone());
        todo
    }

    fn complete(&mut self, id: u64, note: Option<&str>) -> Value {
        let tick = self.tick();
        let todo = self.item_mut(id);
        todo["completed"] = json!(true);
        todo["completed_at"] = json!(timestamp(tick));
        todo["updated_at"] = json!(timestamp(tick));
        if let Some(note) = note {
            let notes = match todo["notes"].as_str() {
                Some(notes) if !notes.is_empty() => format!("{notes}\n{note}"),
                _ => note.to_owned(),
            };
            todo["notes"] = json!(notes);
        }
        todo.clone()
    }

    fn tick(&mut self) -> u64 {
        self.clock += 1;
        self.clock
    }

    fn item_mut(&mut self, id: u64) -> &mut Value {
        self.items
            .get_mut(&id)
            .expect("checked: callers look the id up before changing the item")
    }
}

fn error(status: StatusCode, message: &str) -> Reply {
    Reply::json(status, json!({ "error": message }))
}
