//! Which scopes an operation needs of a caller's access token, by the operator's rules
//! (`--scope`): one home for the HTTP intake's step-up challenge, the handler's refusal and
//! what `introspect` lists for the caller.

use crate::adapter::{ExecutionOperation, Route};
use crate::call::Principal;
use crate::call::executions::execution_category;
use crate::call::safety_loop::LoopOp;
use crate::config::{ScopeRules, Scoped};
use crate::error::{AqlError, ErrorCode};

/// What the rules look at of `operation`: an adapter operation's category and danger level,
/// a runtime operation's category. `None` for `introspect`, which every token may call, and
/// for names that are no operation.
pub fn scoped(operation: &str, route: fn(&str) -> Option<&'static Route>) -> Option<Scoped<'_>> {
    if let Some(route) = route(operation) {
        return Some(Scoped {
            operation,
            category: route.category,
            danger: Some(route.danger_level),
        });
    }
    let category = LoopOp::parse(operation)
        .map(LoopOp::category)
        .or_else(|| ExecutionOperation::parse(operation).map(execution_category))?;
    Some(Scoped {
        operation,
        category,
        danger: None,
    })
}

/// The scopes `principal`'s token lacks for `operation`.
pub fn missing<'r>(
    rules: &'r ScopeRules,
    operation: &str,
    route: fn(&str) -> Option<&'static Route>,
    principal: &Principal,
) -> Vec<&'r str> {
    scoped(operation, route)
        .map(|scoped| rules.missing(scoped, &principal.scopes))
        .unwrap_or_default()
}

/// `PERMISSION_DENIED` for `operation`, whose `missing` scopes the caller's token lacks.
pub fn refusal(operation: &str, missing: &[&str]) -> AqlError {
    AqlError::new(
        ErrorCode::PermissionDenied,
        format!(
            "Permission denied: '{operation}' needs the scope '{}', which the access token does not grant; get a token with it and call again",
            missing.join(" ")
        ),
    )
    .with_detail("reason", "insufficient_scope")
    .with_detail("operation", operation.to_owned())
    .with_detail("required_scopes", missing.join(" "))
}
