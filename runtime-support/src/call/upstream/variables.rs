//! Credential variables: read from the environment on each use, checked so that a value
//! that cannot be sent is refused with the variable's name, never shown.

use crate::error::{AqlError, ErrorCode};

/// Reads one credential variable.
pub(crate) fn read_secret(
    env: &dyn Fn(&str) -> Option<std::ffi::OsString>,
    var: &'static str,
) -> Result<String, AqlError> {
    let Some(raw) = env(var).filter(|value| !value.is_empty()) else {
        return Err(AqlError::new(
            ErrorCode::PermissionDenied,
            format!(
                "Permission denied: missing credential. Set the environment variable '{var}' \
                 for the adapter process and call again"
            ),
        )
        .with_detail("reason", "AUTH_CREDENTIAL_MISSING")
        .with_detail("env_var", var));
    };
    let Ok(value) = raw.into_string() else {
        return Err(credential_invalid(var, "its value is not valid UTF-8"));
    };
    if value.chars().any(char::is_control) {
        return Err(credential_invalid(
            var,
            "its value contains a line break or another control character",
        ));
    }
    Ok(value)
}

/// `PERMISSION_DENIED`: variable `var` holds a value that cannot be used, for `why`.
pub(crate) fn credential_invalid(var: &'static str, why: &str) -> AqlError {
    AqlError::new(
        ErrorCode::PermissionDenied,
        format!("Permission denied: the environment variable '{var}' is unusable: {why}"),
    )
    .with_detail("reason", "AUTH_CONFIG_INVALID")
    .with_detail("env_var", var)
}
