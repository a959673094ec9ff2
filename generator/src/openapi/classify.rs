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

use aqlgen_model::Category;

/// The category of `method` on `path`; `None` for methods the format lacks.
pub fn category(method: &str, path: &str) -> Option<Category> {
    match method {
        "get" => Some(Category::Read),
        "put" | "patch" => Some(Category::Update),
        "delete" => Some(Category::Delete),
        "post" => {
            let last = path
                .rsplit('/')
                .find(|segment| !segment.is_empty() && !segment.starts_with('{'))
                .unwrap_or_default();
            let ends_in_placeholder = path.trim_end_matches('/').ends_with('}');
            if !ends_in_placeholder && ACTION_SEGMENTS.contains(&last) {
                Some(Category::Execute)
            } else {
                Some(Category::Create)
            }
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use aqlgen_model::Category;

    use super::category;

    #[test]
    fn categories() {
        let table = [
            ("get", "/repos/{owner}/{repo}", Some(Category::Read)),
            (
                "post",
                "/repos/{owner}/{repo}/issues",
                Some(Category::Create),
            ),
            (
                "post",
                "/repos/{o}/{r}/actions/workflows/{id}/dispatches",
                Some(Category::Execute),
            ),
            ("post", "/repos/{o}/{r}/merges", Some(Category::Execute)),
            (
                "post",
                "/repos/{o}/{r}/pulls/{n}/merge",
                Some(Category::Execute),
            ),
            (
                "post",
                "/repos/{o}/{r}/actions/runs/{id}/rerun",
                Some(Category::Execute),
            ),
            ("post", "/repos/{o}/{r}/forks", Some(Category::Execute)),
            (
                "post",
                "/repos/{o}/{r}/actions/runs/{id}/cancel",
                Some(Category::Execute),
            ),
            (
                "post",
                "/repos/{o}/{r}/actions/runs/{id}/approve",
                Some(Category::Execute),
            ),
            ("post", "/merge/{id}", Some(Category::Create)),
            ("put", "/a/{b}", Some(Category::Update)),
            ("patch", "/a/{b}", Some(Category::Update)),
            ("delete", "/a/{b}", Some(Category::Delete)),
            ("head", "/a", None),
            ("options", "/a", None),
        ];
        for (method, path, expected) in table {
            assert_eq!(category(method, path), expected, "{method} {path}");
        }
    }
}
