//! The todo adapter, generated at build time by `aqlgen::Builder` and included here.
//!
//! The include sits in its own module so names of this crate cannot shadow generated ones.

/// The generated todo adapter: `TodoAdapter`, its `params`, `routes` and `introspection`.
///
/// Params structs are plain typed values a caller can build and read:
///
/// ```
/// use build_rs_example::todo::params::GetTodoParams;
///
/// let params = GetTodoParams { id: 7 };
/// assert_eq!(GetTodoParams::NAMES, ["id", "fields"]);
/// assert_eq!(params.id, 7);
/// ```
///
/// A required field cannot be left out:
///
/// ```compile_fail,E0063
/// let params = build_rs_example::todo::params::GetTodoParams {};
/// ```
///
/// and an integer param does not take text:
///
/// ```compile_fail,E0308
/// let params = build_rs_example::todo::params::GetTodoParams { id: "7" };
/// ```
pub mod todo {
    include!(concat!(env!("OUT_DIR"), "/todo_adapter.rs"));
}

#[cfg(test)]
mod tests {
    use runtime_support::adapter::{Adapter, Method};
    use serde_json::{Map, Value, json};

    use super::todo::TodoAdapter;

    fn params(value: Value) -> Map<String, Value> {
        value.as_object().cloned().expect("an object")
    }

    #[test]
    fn routes_every_operation_by_name() {
        for route in TodoAdapter::ROUTES {
            let found = TodoAdapter::route(route.operation).expect("every route is found by name");
            assert_eq!(found.operation, route.operation);
        }
        assert!(TodoAdapter::route("no_such_operation").is_none());
        assert_eq!(TodoAdapter::INFO.name, "todo");
        assert!(TodoAdapter::TOOLS.read.contains("introspect"));
    }

    #[test]
    fn builds_requests_from_params() {
        let get = TodoAdapter::route("get_todo").expect("get_todo is defined");
        let request = (get.build)(&params(json!({"id": 7}))).expect("valid params");
        assert_eq!(
            (request.method, request.path.as_str()),
            (Method::Get, "/todos/7")
        );

        let create = TodoAdapter::route("create_todo").expect("create_todo is defined");
        let request = (create.build)(&params(json!({"title": "a/b"}))).expect("valid params");
        assert_eq!(request.body.expect("a JSON body")["title"], "a/b");

        let error =
            (get.build)(&params(json!({"id": "x", "bogus": 1}))).expect_err("unknown param");
        assert!(format!("{error:?}").contains("bogus"));
    }
}
