//! The todo API of `adapters/todo-adapter.md`, plus `GET /activity`, a cursor-paginated log of
//! what happened to the items. Its errors are `{"error": "..."}`, a different shape from
//! GitHub's `{"message": "..."}`, so both ways of carrying a message get exercised.

use std::collections::BTreeMap;

use axum::http::{Method, StatusCode};
use serde_json::{Value, json};

use crate::call::{Call, Reply, apply, etag, timestamp};

/// Fields a client may set on a todo.
const EDITABLE: &[&str] = &["title", "notes", "due", "priority", "tags"];

/// Mixed into activity cursors, so they read as opaque strings rather than positions.
const CURSOR_KEY: u64 = 0x5eed_ac71_7e10_900d;

/// To-do items by id.
#[derive(Debug)]
pub(crate) struct Todos {
    items: BTreeMap<u64, Value>,
    next_id: u64,
    /// The logical clock behind `created_at`, `updated_at`, `completed_at` and activity `at`.
    clock: u64,
    /// One entry per event, oldest first; entry `n` (1-based) has id `n`.
    activity: Vec<Value>,
}

impl Todos {
    /// Three items: "Buy milk" (open, tag `shopping`), "Write the report" (open, high priority,
    /// due 2026-02-01) and "Call the plumber" (completed); so four activity entries, three
    /// `created` and one `completed`.
    pub(crate) fn seeded() -> Self {
        let mut todos = Self {
            items: BTreeMap::new(),
            next_id: 1,
            clock: 0,
            activity: Vec::new(),
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

    /// Routes one call; `segments` is the decoded path.
    pub(crate) fn answer(&mut self, call: &Call, segments: &[&str]) -> Reply {
        match segments {
            ["activity"] if call.method == Method::GET => self.activity(call),
            ["todos", rest @ ..] => self.answer_todos(call, rest),
            _ => error(StatusCode::NOT_FOUND, "no such route"),
        }
    }

    /// Routes below `/todos`; `segments` is the decoded path after it.
    fn answer_todos(&mut self, call: &Call, segments: &[&str]) -> Reply {
        let method = &call.method;
        match segments {
            [] if method == Method::GET => self.list(call),
            [] if method == Method::POST => match call.body_str("title") {
                Some(title) if !title.trim().is_empty() => {
                    Reply::created(self.insert(&Value::Object(call.body.clone())))
                }
                _ => error(StatusCode::BAD_REQUEST, "title is required"),
            },
            [] if method == Method::DELETE => self.remove_where(|_| true),
            ["completed"] if method == Method::DELETE => {
                self.remove_where(|todo| todo["completed"] == true)
            }
            ["tagged", tag] if method == Method::DELETE => self.remove_where(|todo| {
                todo["tags"]
                    .as_array()
                    .is_some_and(|tags| tags.contains(&json!(tag)))
            }),
            [id, rest @ ..] => {
                let Some(id) = id
                    .parse::<u64>()
                    .ok()
                    .filter(|id| self.items.contains_key(id))
                else {
                    return error(StatusCode::NOT_FOUND, &format!("todo {id} not found"));
                };
                match rest {
                    [] if method == Method::GET => Reply::tagged(self.items[&id].clone()),
                    [] if (method == Method::PATCH || method == Method::DELETE)
                        && !call.if_match(&etag(&self.items[&id])) =>
                    {
                        error(
                            StatusCode::PRECONDITION_FAILED,
                            &format!("todo {id} has changed: If-Match is not its ETag"),
                        )
                    }
                    [] if method == Method::PATCH => self.update(id, call),
                    [] if method == Method::DELETE => {
                        self.remove(&[id]);
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

    /// `GET /activity`: `limit` entries (default 2, at most 50) from `cursor` on, and the
    /// cursor of the next page, `null` on the last.
    fn activity(&self, call: &Call) -> Reply {
        let start = match call.query("cursor").map(|cursor| self.entry_at(cursor)) {
            None => 0,
            Some(Some(start)) => start,
            Some(None) => return error(StatusCode::BAD_REQUEST, "invalid cursor"),
        };
        let limit = call.query_number("limit", 2).clamp(1, 50);
        let end = self
            .activity
            .len()
            .min(start.saturating_add(usize::try_from(limit).unwrap_or(usize::MAX)));
        let next = (end < self.activity.len()).then(|| cursor(end));
        Reply::ok(json!({ "entries": &self.activity[start..end], "next_cursor": next }))
    }

    /// The index of the entry `cursor` points at; `None` when it is not the [`cursor`] of an
    /// entry the log holds.
    fn entry_at(&self, cursor: &str) -> Option<usize> {
        if cursor.len() != 16 || !cursor.bytes().all(|byte| byte.is_ascii_hexdigit()) {
            return None;
        }
        let index = u64::from_str_radix(cursor, 16).ok()? ^ CURSOR_KEY;
        usize::try_from(index)
            .ok()
            .filter(|index| *index < self.activity.len())
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
        self.record("created", id, tick);
        todo
    }

    /// `PATCH /todos/{id}` of an item that exists.
    fn update(&mut self, id: u64, call: &Call) -> Reply {
        let tick = self.tick();
        let todo = self.item_mut(id);
        apply(todo, &call.body, EDITABLE);
        todo["updated_at"] = json!(timestamp(tick));
        let todo = todo.clone();
        self.record("updated", id, tick);
        Reply::tagged(todo)
    }

    /// Deletes every item `doomed` picks and answers how many went.
    fn remove_where(&mut self, doomed: impl Fn(&Value) -> bool) -> Reply {
        let ids: Vec<u64> = self
            .items
            .iter()
            .filter(|(_, todo)| doomed(todo))
            .map(|(id, _)| *id)
            .collect();
        self.remove(&ids);
        Reply::ok(json!({ "deleted": ids.len() }))
    }

    /// Deletes the items `ids` at one tick, with a `deleted` entry each.
    fn remove(&mut self, ids: &[u64]) {
        let tick = self.tick();
        for id in ids {
            self.items.remove(id);
            self.record("deleted", *id, tick);
        }
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
        let todo = todo.clone();
        self.record("completed", id, tick);
        todo
    }

    /// Appends an entry to the activity log.
    fn record(&mut self, kind: &str, todo_id: u64, tick: u64) {
        let id = self.activity.len() + 1;
        self.activity.push(json!({
            "id": id,
            "kind": kind,
            "todo_id": todo_id,
            "at": timestamp(tick),
        }));
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

/// The opaque cursor of the activity entry at `index`.
fn cursor(index: usize) -> String {
    format!(
        "{:016x}",
        u64::try_from(index).unwrap_or(u64::MAX) ^ CURSOR_KEY
    )
}

fn error(status: StatusCode, message: &str) -> Reply {
    Reply::json(status, json!({ "error": message }))
}
