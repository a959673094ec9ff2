//! Upstream credentials: read from the environment on every call, never from the schema.
//!
//! The schema names environment variables; [`AuthPlan`] checks those names once, when the
//! client is built, and [`AuthPlan::resolve`] reads the values per request. A server therefore
//! starts without credentials, and the first call that needs a missing one fails with a
//! `PERMISSION_DENIED` naming the variable. Every value read is also remembered in
//! [`Secrets`], which scrubs it from any text that could reach a client or a log.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use reqwest::header::{AUTHORIZATION, HeaderName, HeaderValue};

use std::sync::Arc;

use super::oauth::TokenSource;
use super::sigv4::SigningKey;
use super::variables::{credential_invalid, read_secret};
use crate::adapter::{ApiKeyLocation, Auth, AwsSigV4};
use crate::error::{AqlError, ErrorCode};

/// What stands in for a secret in any text we pass on.
/// How requests authenticate, with header names already checked.
#[derive(Debug, Clone)]
pub(crate) enum AuthPlan {
    /// No credentials.
    None,
    /// `<name>: <prefix><value of env>`: bearer tokens and API keys sent in a header.
    Header {
        env: &'static str,
        name: HeaderName,
        prefix: &'static str,
    },
    /// `?<name>=<value of env>`: an API key in the query string.
    Query {
        env: &'static str,
        name: &'static str,
    },
    /// `Authorization: Basic base64(user:password)`.
    Basic {
        username_env: &'static str,
        password_env: &'static str,
    },
    /// `Authorization: Bearer <token>`, the token from an OAuth 2 token endpoint.
    OAuth2(Arc<TokenSource>),
    /// Each request signed with AWS Signature Version 4.
    AwsSigV4(&'static AwsSigV4),
    /// Several header and query credentials, all sent.
    Combined(Vec<AuthPlan>),
}

/// Where one upstream request's credential comes from.
pub enum Credential<'a> {
    /// The variables the schema names, in the server's environment.
    Environment,
    /// The value the MCP request brought (`--credential-header`).
    Request(&'a str),
}

/// Credentials for one request.
#[derive(Debug, Default)]
pub(crate) struct Credentials {
    /// Headers to send, marked sensitive so they never show in `Debug` output.
    pub headers: Vec<(HeaderName, HeaderValue)>,
    /// Query pairs to append.
    pub query: Vec<(&'static str, String)>,
    /// Everything secret this request carries, for redaction.
    pub secrets: Secrets,
    /// The key the request is signed with, once built, when the API wants signed requests.
    pub signing: Option<SigningKey>,
}

impl AuthPlan {
    /// Checks the static parts of `auth` (header names, prefixes).
    ///
    /// # Errors
    ///
    /// `INTERNAL_ERROR` when a header name or prefix from the schema cannot be sent.
    pub(crate) fn new(auth: &Auth, user_agent: &str) -> Result<Self, AqlError> {
        match *auth {
            Auth::OAuth2(config) => Ok(Self::OAuth2(Arc::new(TokenSource::new(
                config, user_agent,
            )?))),
            Auth::None => Ok(Self::None),
            Auth::AwsSigV4(config) => Ok(Self::AwsSigV4(config)),
            Auth::Bearer {
                token_env,
                header,
                prefix,
            } => Ok(Self::Header {
                env: token_env,
                name: header_name(header)?,
                prefix: header_prefix(prefix)?,
            }),
            Auth::ApiKey {
                key_env,
                location: ApiKeyLocation::Header(header),
            } => Ok(Self::Header {
                env: key_env,
                name: header_name(header)?,
                prefix: "",
            }),
            Auth::ApiKey {
                key_env,
                location: ApiKeyLocation::Query(name),
            } => {
                if name.is_empty() {
                    return Err(config_error(
                        "the API key query parameter name in the schema is empty",
                    ));
                }
                Ok(Self::Query { env: key_env, name })
            }
            Auth::Basic {
                username_env,
                password_env,
            } => Ok(Self::Basic {
                username_env,
                password_env,
            }),
            Auth::Combined(parts) => parts
                .iter()
                .map(|part| match Self::new(part, user_agent)? {
                    plan @ (Self::Header { .. } | Self::Query { .. }) => Ok(plan),
                    _ => Err(config_error(
                        "credentials sent together are bearer tokens and API keys only",
                    )),
                })
                .collect::<Result<_, _>>()
                .map(Self::Combined),
        }
    }

    /// Whether requests carry credentials.
    pub(crate) fn sends_credentials(&self) -> bool {
        !matches!(self, Self::None)
    }

    /// Where access tokens come from, when requests carry OAuth 2 tokens.
    pub(crate) fn token_source(&self) -> Option<&TokenSource> {
        match self {
            Self::OAuth2(source) => Some(source),
            _ => None,
        }
    }

    /// Whether one value is the whole credential (a bearer token or an API key), so a
    /// request can bring it in place of the environment variable.
    pub(crate) fn takes_one_value(&self) -> bool {
        matches!(self, Self::Header { .. } | Self::Query { .. })
    }

    /// The credentials for `credential`: the environment's, or the value a request brought
    /// in place of the schema's variable.
    ///
    /// # Errors
    ///
    /// As [`resolve`](Self::resolve).
    pub(crate) fn resolve_for(&self, credential: &Credential<'_>) -> Result<Credentials, AqlError> {
        match credential {
            Credential::Environment => self.resolve(),
            Credential::Request(value) => self.resolve_with(&|_| Some((*value).into())),
        }
    }

    /// Reads the credentials from the environment.
    ///
    /// # Errors
    ///
    /// `PERMISSION_DENIED` naming the variable when it is unset or empty, holds text that is
    /// not valid Unicode, or holds a control character (CR or LF would split the header).
    pub(crate) fn resolve(&self) -> Result<Credentials, AqlError> {
        self.resolve_with(&|name| std::env::var_os(name))
    }

    /// [`resolve`](Self::resolve) with the environment passed in, so tests need not mutate
    /// the process environment.
    pub(crate) fn resolve_with(
        &self,
        env: &dyn Fn(&str) -> Option<std::ffi::OsString>,
    ) -> Result<Credentials, AqlError> {
        match self {
            Self::None => Ok(Credentials::default()),
            // The token is asked for before the request is built: see `bearer`.
            Self::OAuth2(_) => Err(config_error(
                "an OAuth 2 request was built without its access token",
            )),
            Self::Header {
                env: var,
                name,
                prefix,
            } => {
                let value = read_secret(env, var)?;
                let header = sensitive_header(&format!("{prefix}{value}"), var)?;
                Ok(Credentials {
                    headers: vec![(name.clone(), header)],
                    query: Vec::new(),
                    secrets: Secrets(vec![value]),
                    signing: None,
                })
            }
            Self::Query { env: var, name } => {
                let value = read_secret(env, var)?;
                Ok(Credentials {
                    headers: Vec::new(),
                    query: vec![(name, value.clone())],
                    secrets: Secrets(vec![value]),
                    signing: None,
                })
            }
            Self::Basic {
                username_env,
                password_env,
            } => {
                let username = read_secret(env, username_env)?;
                if username.contains(':') {
                    // RFC 7617: the user-id cannot contain a colon.
                    return Err(credential_invalid(
                        username_env,
                        "a basic-auth user name cannot contain ':'",
                    ));
                }
                let password = read_secret(env, password_env)?;
                let encoded = BASE64.encode(format!("{username}:{password}"));
                let header = sensitive_header(&format!("Basic {encoded}"), password_env)?;
                Ok(Credentials {
                    headers: vec![(AUTHORIZATION, header)],
                    query: Vec::new(),
                    secrets: Secrets(vec![password, encoded, username]),
                    signing: None,
                })
            }
            Self::AwsSigV4(config) => {
                let access_key_id = read_secret(env, config.access_key_id_env)?;
                let secret_access_key = read_secret(env, config.secret_access_key_env)?;
                let session_token = env(config.session_token_env)
                    .filter(|value| !value.is_empty())
                    .map(|_| read_secret(env, config.session_token_env))
                    .transpose()?;
                let region = env(config.region_env)
                    .and_then(|value| value.into_string().ok())
                    .filter(|value| !value.is_empty())
                    .unwrap_or_else(|| config.region.to_owned());
                let mut secrets = vec![secret_access_key.clone()];
                secrets.extend(session_token.clone());
                Ok(Credentials {
                    headers: Vec::new(),
                    query: Vec::new(),
                    secrets: Secrets(secrets),
                    signing: Some(SigningKey {
                        access_key_id,
                        secret_access_key,
                        session_token,
                        region,
                        service: config.service,
                    }),
                })
            }
            Self::Combined(plans) => {
                let mut all = Credentials::default();
                for plan in plans {
                    let one = plan.resolve_with(env)?;
                    all.headers.extend(one.headers);
                    all.query.extend(one.query);
                    all.secrets.0.extend(one.secrets.0);
                }
                Ok(all)
            }
        }
    }
}

impl Credentials {
    /// `Authorization: Bearer <token>` for an access token.
    ///
    /// # Errors
    ///
    /// `PERMISSION_DENIED` when the token cannot be sent in a header.
    pub(crate) fn bearer(token: &str) -> Result<Self, AqlError> {
        let mut header = HeaderValue::from_str(&format!("Bearer {token}")).map_err(|_| {
            AqlError::new(
                ErrorCode::PermissionDenied,
                "Permission denied: the OAuth 2 access token cannot be sent in an HTTP header",
            )
            .with_detail("reason", "AUTH_TOKEN_REFUSED")
        })?;
        header.set_sensitive(true);
        Ok(Self {
            headers: vec![(AUTHORIZATION, header)],
            query: Vec::new(),
            secrets: Secrets(vec![token.to_owned()]),
            signing: None,
        })
    }
}

/// The secret values of one request; [`redact`](Secrets::redact) scrubs them from text.
#[derive(Debug, Default, Clone)]
pub(crate) struct Secrets(Vec<String>);

impl Secrets {
    /// `text` with every secret, in each of its [spellings](crate::redact::spellings),
    /// replaced by `[REDACTED]`.
    pub(crate) fn redact(&self, text: &str) -> String {
        let mut spellings: Vec<String> = self
            .0
            .iter()
            .flat_map(|secret| crate::redact::spellings(secret))
            .collect();
        // Longest first: one secret's spelling can hold another's (base64 of `user:pass`).
        spellings.sort_by_key(|spelling| std::cmp::Reverse(spelling.len()));
        crate::redact::scrub(text, &spellings)
    }

    /// Adds these secrets to what every log line is scrubbed of.
    pub(crate) fn keep_out_of_logs(&self) {
        for secret in &self.0 {
            crate::redact::register(secret);
        }
    }
}

/// A header value that hyper and `Debug` never print.
fn sensitive_header(value: &str, var: &'static str) -> Result<HeaderValue, AqlError> {
    // `read_secret` already refused control characters; this catches anything else the
    // header grammar forbids.
    let mut header = HeaderValue::from_str(value)
        .map_err(|_| credential_invalid(var, "its value cannot be sent in an HTTP header"))?;
    header.set_sensitive(true);
    Ok(header)
}

fn header_name(name: &'static str) -> Result<HeaderName, AqlError> {
    HeaderName::from_bytes(name.as_bytes()).map_err(|_| {
        config_error(&format!(
            "the auth header name '{name}' in the schema is not a valid HTTP header name"
        ))
    })
}

fn header_prefix(prefix: &'static str) -> Result<&'static str, AqlError> {
    if prefix.chars().any(char::is_control) {
        return Err(config_error(
            "the auth header prefix in the schema contains a control character",
        ));
    }
    Ok(prefix)
}

fn config_error(what: &str) -> AqlError {
    AqlError::new(
        ErrorCode::InternalError,
        format!("Internal error: adapter configuration is invalid: {what}"),
    )
    .with_detail("reason", "AUTH_CONFIG_INVALID")
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;
    use std::ffi::OsString;

    use super::*;

    fn plan_for(auth: &Auth) -> Result<AuthPlan, AqlError> {
        AuthPlan::new(auth, "test")
    }

    fn env_of(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<OsString> {
        let map: HashMap<String, OsString> = pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), OsString::from(v)))
            .collect();
        move |name| map.get(name).cloned()
    }

    #[test]
    fn bearer_builds_prefixed_sensitive_header() {
        let plan = plan_for(&Auth::Bearer {
            token_env: "T",
            header: "Authorization",
            prefix: "Bearer ",
        })
        .expect("valid plan");
        let creds = plan
            .resolve_with(&env_of(&[("T", "tok123")]))
            .expect("resolves");
        let (name, value) = creds.headers.into_iter().next().expect("header");
        assert_eq!(name, AUTHORIZATION);
        assert_eq!(value.to_str().expect("ascii"), "Bearer tok123");
        assert!(value.is_sensitive());
        assert!(!format!("{value:?}").contains("tok123"));
    }

    #[test]
    fn combined_credentials_are_all_sent_and_all_secret() {
        const PARTS: &[Auth] = &[
            Auth::ApiKey {
                key_env: "APP_KEY",
                location: ApiKeyLocation::Header("X-VTEX-API-AppKey"),
            },
            Auth::ApiKey {
                key_env: "APP_TOKEN",
                location: ApiKeyLocation::Query("token"),
            },
        ];
        let plan = plan_for(&Auth::Combined(PARTS)).expect("valid plan");
        assert!(!plan.takes_one_value(), "one value cannot stand for both");
        let creds = plan
            .resolve_with(&env_of(&[("APP_KEY", "key-1"), ("APP_TOKEN", "tok-2")]))
            .expect("resolves");
        let (name, value) = &creds.headers[0];
        assert_eq!(name.as_str(), "x-vtex-api-appkey");
        assert_eq!(value.to_str().expect("ascii"), "key-1");
        assert_eq!(creds.query, vec![("token", "tok-2".to_owned())]);
        assert_eq!(creds.secrets.redact("key-1 tok-2"), "[REDACTED] [REDACTED]");
        let missing = plan
            .resolve_with(&env_of(&[("APP_KEY", "key-1")]))
            .expect_err("both are needed");
        assert!(missing.message.contains("APP_TOKEN"), "{}", missing.message);
        let basic = [Auth::Basic {
            username_env: "U",
            password_env: "P",
        }];
        let leaked: &'static [Auth] = Box::leak(Box::new(basic));
        assert!(plan_for(&Auth::Combined(leaked)).is_err());
    }

    #[test]
    fn basic_encodes_user_and_password() {
        let plan = plan_for(&Auth::Basic {
            username_env: "U",
            password_env: "P",
        })
        .expect("valid plan");
        let creds = plan
            .resolve_with(&env_of(&[("U", "alice"), ("P", "s3cret")]))
            .expect("resolves");
        let (_, value) = creds.headers.into_iter().next().expect("header");
        assert_eq!(value.to_str().expect("ascii"), "Basic YWxpY2U6czNjcmV0");
        assert_eq!(
            creds.secrets.redact("x YWxpY2U6czNjcmV0 s3cret"),
            "x [REDACTED] [REDACTED]"
        );
    }

    #[test]
    fn missing_and_empty_variables_are_permission_denied_naming_the_variable() {
        let plan = plan_for(&Auth::ApiKey {
            key_env: "MY_KEY",
            location: ApiKeyLocation::Query("api_key"),
        })
        .expect("valid plan");
        for env in [env_of(&[]), env_of(&[("MY_KEY", "")])] {
            let err = plan.resolve_with(&env).expect_err("missing");
            assert_eq!(err.code, ErrorCode::PermissionDenied);
            assert!(err.message.contains("'MY_KEY'"), "{}", err.message);
            assert_eq!(err.details["env_var"], "MY_KEY");
        }
    }

    #[test]
    fn control_characters_in_credentials_are_refused_without_echoing_them() {
        let plan = plan_for(&Auth::Bearer {
            token_env: "T",
            header: "Authorization",
            prefix: "Bearer ",
        })
        .expect("valid plan");
        for bad in ["abc\r\nX-Injected: 1", "abc\n", "a\rb", "a\0b"] {
            let err = plan
                .resolve_with(&env_of(&[("T", bad)]))
                .expect_err("refused");
            assert_eq!(err.code, ErrorCode::PermissionDenied);
            assert!(!err.to_json().to_string().contains("abc"));
            assert!(!err.to_json().to_string().contains("Injected"));
        }
    }

    #[test]
    fn basic_user_name_with_colon_is_refused() {
        let plan = plan_for(&Auth::Basic {
            username_env: "U",
            password_env: "P",
        })
        .expect("valid plan");
        let err = plan
            .resolve_with(&env_of(&[("U", "a:b"), ("P", "pw")]))
            .expect_err("refused");
        assert_eq!(err.details["env_var"], "U");
    }

    #[test]
    fn schema_header_names_and_prefixes_are_checked_up_front() {
        let bad_name = Auth::ApiKey {
            key_env: "K",
            location: ApiKeyLocation::Header("X Bad\r\n"),
        };
        assert_eq!(
            plan_for(&bad_name).expect_err("bad").code,
            ErrorCode::InternalError
        );
        let bad_prefix = Auth::Bearer {
            token_env: "T",
            header: "Authorization",
            prefix: "Bearer\r\n",
        };
        assert!(plan_for(&bad_prefix).is_err());
    }

    #[test]
    fn redaction_covers_the_percent_encoded_spelling() {
        let secrets = Secrets(vec!["a b/c+d".to_owned()]);
        assert_eq!(
            secrets.redact("echo a%20b%2Fc%2Bd, a+b%2Fc%2Bd and a b/c+d"),
            "echo [REDACTED], [REDACTED] and [REDACTED]"
        );
        assert_eq!(Secrets(vec!["ab".to_owned()]).redact("abc"), "abc");
    }
}
