//! The CRUDE category of an operation, from its method and, for POST, its last path segment.
//!
//! GET reads, PUT and PATCH update, DELETE deletes. POST creates unless the last literal path
//! segment names an action rather than a collection (`.../dispatches`, `.../merge`,
//! `.../rerun`, ...): those POSTs trigger something and go to `execute`.

/// Last path segments that make a POST an action.
pub const ACTION_SEGMENTS: &[&str] = &[
    "approve",
    "archive",
    "cancel",
    "check",
    "dispatch",
    "dispatches",
    "disable",
    "enable",
    "force-cancel",
    "forks",
    "merge",
    "merges",
    "ping",
    "redeliver",
    "rename",
    "render",
    "replay",
    "rerun",
    "rerun-failed-jobs",
    "restore",
    "retry",
    "run",
    "sync",
    "test",
    "transfer",
    "trigger",
    "unarchive",
    "update-branch",
    "validate",
    "verify",
];

/// `create`, `read`, `update`, `delete` or `execute`; `None` for methods the format lacks.
pub fn category(method: &str, path: &str) -> Option<&'static str> {
    match method {
        "get" => Some("read"),
        "put" | "patch" => Some("update"),
        "delete" => Some("delete"),
        "post" => {
            let last = path
                .rsplit('/')
                .find(|segment| !segment.is_empty() && !segment.starts_with('{'))
                .unwrap_or_default();
            let ends_in_placeholder = path.trim_end_matches('/').ends_with('}');
            if !ends_in_placeholder && ACTION_SEGMENTS.contains(&last) {
                Some("execute")
            } else {
                Some("create")
            }
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::category;

    #[test]
    fn categories() {
        let table = [
            ("get", "/repos/{owner}/{repo}", Some("read")),
            ("post", "/repos/{owner}/{repo}/issues", Some("create")),
            (
                "post",
                "/repos/{o}/{r}/actions/workflows/{id}/dispatches",
                Some("execute"),
            ),
            ("post", "/repos/{o}/{r}/merges", Some("execute")),
            ("post", "/repos/{o}/{r}/pulls/{n}/merge", Some("execute")),
            (
                "post",
                "/repos/{o}/{r}/actions/runs/{id}/rerun",
                Some("execute"),
            ),
            ("post", "/repos/{o}/{r}/forks", Some("execute")),
            (
                "post",
                "/repos/{o}/{r}/actions/runs/{id}/cancel",
                Some("execute"),
            ),
            (
                "post",
                "/repos/{o}/{r}/actions/runs/{id}/approve",
                Some("execute"),
            ),
            ("post", "/merge/{id}", Some("create")),
            ("put", "/a/{b}", Some("update")),
            ("patch", "/a/{b}", Some("update")),
            ("delete", "/a/{b}", Some("delete")),
            ("head", "/a", None),
            ("options", "/a", None),
        ];
        for (method, path, expected) in table {
            assert_eq!(category(method, path), expected, "{method} {path}");
        }
    }
}
