//! Checks of single flag values: each takes the text the operator wrote and returns the value
//! or a sentence saying what was expected.

use aqlgen_model::{DangerLevel, TrustLevel, Vocabulary};

use super::EndpointMode;

pub fn parse_mode(value: &str) -> Result<EndpointMode, String> {
    match value {
        "crude" | "semantic" => Ok(EndpointMode::Crude),
        "single" => Ok(EndpointMode::Single),
        "all" => Ok(EndpointMode::All),
        other => Err(format!(
            "'{other}' is not an endpoint mode; use one of: crude, semantic, single, all"
        )),
    }
}

/// Checks a tool-name prefix (seed mcp-integration §6.4): lowercase letters, digits and
/// underscores, ending in `_`. An empty value means no prefix.
pub fn parse_prefix(value: &str) -> Result<String, String> {
    if value.is_empty() {
        return Ok(String::new());
    }
    if !value
        .bytes()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
    {
        return Err(format!(
            "tool prefix '{value}' may contain only lowercase letters, digits and underscores"
        ));
    }
    if !value.ends_with('_') {
        return Err(format!(
            "tool prefix '{value}' must end with '_', e.g. '{value}_'"
        ));
    }
    Ok(value.to_owned())
}

pub fn parse_trust(value: &str) -> Result<TrustLevel, String> {
    TrustLevel::parse(value).ok_or_else(|| {
        format!(
            "'{value}' is not a trust level; use one of: {} (or the official schema's {})",
            TrustLevel::NAMES.join(", "),
            TrustLevel::ALIASES.join(", ")
        )
    })
}

pub fn parse_danger(value: &str) -> Result<DangerLevel, String> {
    DangerLevel::parse(value).ok_or_else(|| {
        format!(
            "'{value}' is not a danger level; use one of: {}",
            DangerLevel::NAMES.join(", ")
        )
    })
}

/// Checks a `--credential-header` name; returns it in lowercase, as HTTP/1.1 compares it.
pub fn parse_header_name(value: &str) -> Result<String, String> {
    http::HeaderName::from_bytes(value.as_bytes())
        .map(|name| name.as_str().to_owned())
        .map_err(|_| format!("'{value}' is not an HTTP header name"))
}

/// An authorization server's issuer or this server's resource identifier: an `https` URL,
/// or `http` on a loopback host (for trying it out), without a query or fragment.
pub fn parse_oauth_url(value: &str) -> Result<String, String> {
    let url = url::Url::parse(value).map_err(|_| format!("'{value}' is no URL"))?;
    let loopback = match url.host() {
        Some(url::Host::Domain(name)) => name == "localhost",
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    };
    let secure = url.scheme() == "https" || (url.scheme() == "http" && loopback);
    if !secure || url.query().is_some() || url.fragment().is_some() {
        return Err(format!(
            "'{value}': expected an https URL (http only on a loopback host) without a query or fragment"
        ));
    }
    Ok(value.to_owned())
}

/// Checks an `--allowed-origin`: `scheme://host` with an optional `:port` or `:*`, the way a
/// browser's `Origin` header spells it (no path, no trailing slash).
pub fn parse_origin(value: &str) -> Result<String, String> {
    let expected = "expected scheme://host, scheme://host:port or scheme://host:*";
    let Some((scheme, authority)) = value.split_once("://") else {
        return Err(format!("origin '{value}' has no scheme: {expected}"));
    };
    if !matches!(scheme, "http" | "https") {
        return Err(format!("origin '{value}' is not http or https: {expected}"));
    }
    let (host, port) = match authority.rsplit_once(':') {
        Some((host, port)) if !port.contains(']') => (host, Some(port)),
        _ => (authority, None),
    };
    let host_ok = !host.is_empty()
        && host
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-.[]:".contains(&b));
    let port_ok = port.is_none_or(|port| port == "*" || port.parse::<u16>().is_ok());
    if !host_ok || !port_ok {
        return Err(format!("origin '{value}' is malformed: {expected}"));
    }
    // Without a port rmcp matches any port; the operator who wrote none means the default one.
    Ok(match port {
        Some(_) => value.to_owned(),
        None if scheme == "https" => format!("{value}:443"),
        None => format!("{value}:80"),
    })
}

/// Checks a setting that is `on` or `off`.
pub fn parse_on_off(text: &str) -> Result<bool, String> {
    match text {
        "on" => Ok(true),
        "off" => Ok(false),
        other => Err(format!("'{other}' is neither on nor off")),
    }
}

pub fn parse_number(text: &str, min: u64, max: u64, seconds: bool) -> Result<u64, String> {
    let unit = if seconds { " seconds" } else { "" };
    let value: u64 = text.parse().map_err(|_| {
        format!(
            "'{text}' is not a whole number{}",
            if seconds { " of seconds" } else { "" }
        )
    })?;
    if !(min..=max).contains(&value) {
        return Err(format!(
            "{value} is outside the allowed range {min}..={max}{unit}"
        ));
    }
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes_follow_the_format_rules() {
        let table = [
            ("", Ok("")),
            ("github_", Ok("github_")),
            ("db2_", Ok("db2_")),
            ("GitHub_", Err(())),
            ("github", Err(())),
            ("git-hub_", Err(())),
        ];
        for (input, expected) in table {
            let got = parse_prefix(input).map_err(|_| ());
            assert_eq!(got.as_deref(), expected.as_ref().map(|s| *s), "{input}");
        }
    }

    #[test]
    fn modes_accept_semantic_as_crude() {
        assert_eq!(parse_mode("semantic"), Ok(EndpointMode::Crude));
        assert_eq!(parse_mode("crude"), Ok(EndpointMode::Crude));
        assert_eq!(parse_mode("single"), Ok(EndpointMode::Single));
        assert_eq!(parse_mode("all"), Ok(EndpointMode::All));
        assert!(parse_mode("CRUDE").is_err());
    }
}
