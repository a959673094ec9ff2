//! A JWT access token (RFC 9068), taken apart and checked: the algorithm against an
//! allow-list, the signature against the issuer's key, then `iss`, `aud`, `exp` and `nbf`.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use ring::signature::{self, UnparsedPublicKey, VerificationAlgorithm};
use serde::Deserialize;
use serde_json::Value;

/// Why a token is not taken; the client learns only `invalid_token` and a sentence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rejected {
    /// Not three base64url parts of JSON, or without the claims every access token has.
    Malformed,
    /// Signed with an algorithm outside the allow-list (`none` and HMAC among them).
    Algorithm,
    /// No key of its issuer has its `kid`, or the issuer's keys cannot be read.
    UnknownKey,
    /// The signature does not verify.
    Signature,
    /// Issued by an authorization server this server does not take tokens from.
    Issuer,
    /// Issued for another resource.
    Audience,
    /// Past its `exp`.
    Expired,
    /// Before its `nbf`.
    NotYetValid,
    /// An opaque token the introspection endpoint does not know as active.
    Inactive,
    /// An opaque token not kept, while this server already asks the introspection endpoint
    /// as often as it may: the token is not judged, and the client is to retry.
    Throttled,
}

impl Rejected {
    /// The `error_description` of the challenge.
    pub fn description(self) -> &'static str {
        match self {
            Self::Malformed => "the access token is not a well-formed JWT access token",
            Self::Algorithm => "the access token's signing algorithm is not accepted",
            Self::UnknownKey => "the access token is signed with a key its issuer does not publish",
            Self::Signature => "the access token's signature does not verify",
            Self::Issuer => {
                "the access token comes from an authorization server this server does not trust"
            }
            Self::Audience => "the access token was issued for another resource",
            Self::Expired => "the access token has expired",
            Self::NotYetValid => "the access token is not valid yet",
            Self::Inactive => "the access token is not active: unknown, expired or revoked",
            Self::Throttled => {
                "too many new access tokens are being checked by the authorization server; retry in a second"
            }
        }
    }
}

/// The signing algorithms taken: asymmetric ones only.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
pub enum Algorithm {
    RS256,
    RS384,
    RS512,
    PS256,
    PS384,
    PS512,
    ES256,
    ES384,
    EdDSA,
}

/// A token's JOSE header.
#[derive(Debug)]
pub struct Header {
    /// Its algorithm.
    pub alg: Algorithm,
    /// The key it names, if any.
    pub kid: Option<String>,
}

/// A token taken apart, its signature not yet checked.
pub struct Parsed<'a> {
    /// Its header.
    pub header: Header,
    /// Its claims.
    pub claims: Value,
    /// `header.payload`, what the signature covers.
    pub signed: &'a [u8],
    /// The signature.
    pub signature: Vec<u8>,
}

/// What a valid token says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Claims {
    /// `sub`: who the token is for.
    pub subject: String,
    /// `scope` (space-separated) or `scp` (an array).
    pub scopes: Vec<String>,
}

/// One key of a JWK Set (RFC 7517), as far as verification needs it.
#[derive(Debug, Clone, Deserialize)]
pub struct Jwk {
    /// `RSA`, `EC` or `OKP`.
    pub kty: String,
    /// Its id.
    pub kid: Option<String>,
    /// The algorithm it is for, when it says.
    pub alg: Option<String>,
    /// `sig` or `enc`, when it says.
    #[serde(rename = "use")]
    pub usage: Option<String>,
    /// RSA modulus.
    pub n: Option<String>,
    /// RSA exponent.
    pub e: Option<String>,
    /// Curve of an EC or OKP key.
    pub crv: Option<String>,
    /// EC x coordinate, or the OKP public key.
    pub x: Option<String>,
    /// EC y coordinate.
    pub y: Option<String>,
}

#[derive(Deserialize)]
struct RawHeader {
    alg: String,
    kid: Option<String>,
}

/// Takes `token` apart.
///
/// # Errors
///
/// [`Rejected::Malformed`], or [`Rejected::Algorithm`] for an algorithm not taken.
pub fn parse(token: &str) -> Result<Parsed<'_>, Rejected> {
    let mut parts = token.split('.');
    let (Some(header), Some(payload), Some(signature), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(Rejected::Malformed);
    };
    let decode = |part: &str| {
        URL_SAFE_NO_PAD
            .decode(part)
            .map_err(|_| Rejected::Malformed)
    };
    let raw: RawHeader =
        serde_json::from_slice(&decode(header)?).map_err(|_| Rejected::Malformed)?;
    let alg = serde_json::from_value(Value::String(raw.alg)).map_err(|_| Rejected::Algorithm)?;
    let claims: Value =
        serde_json::from_slice(&decode(payload)?).map_err(|_| Rejected::Malformed)?;
    if !claims.is_object() {
        return Err(Rejected::Malformed);
    }
    Ok(Parsed {
        header: Header { alg, kid: raw.kid },
        claims,
        signed: &token.as_bytes()[..header.len() + 1 + payload.len()],
        signature: decode(signature)?,
    })
}

/// Whether `key` can verify tokens signed with `alg`.
pub fn fits(key: &Jwk, alg: Algorithm) -> bool {
    let kty = match alg {
        Algorithm::RS256
        | Algorithm::RS384
        | Algorithm::RS512
        | Algorithm::PS256
        | Algorithm::PS384
        | Algorithm::PS512 => "RSA",
        Algorithm::ES256 | Algorithm::ES384 => "EC",
        Algorithm::EdDSA => "OKP",
    };
    let named = format!("{alg:?}");
    key.kty == kty
        && key.usage.as_deref().is_none_or(|usage| usage == "sig")
        && key.alg.as_deref().is_none_or(|alg| alg == named)
}

/// Checks the signature of `parsed` with `key`.
///
/// # Errors
///
/// [`Rejected::Signature`] when it does not verify, or the key is not one for its algorithm.
pub fn verify(parsed: &Parsed<'_>, key: &Jwk) -> Result<(), Rejected> {
    let field = |value: &Option<String>| {
        value
            .as_deref()
            .and_then(|text| URL_SAFE_NO_PAD.decode(text).ok())
            .ok_or(Rejected::Signature)
    };
    let (message, signature) = (parsed.signed, parsed.signature.as_slice());
    let rsa = |parameters: &'static signature::RsaParameters| -> Result<(), Rejected> {
        let (n, e) = (field(&key.n)?, field(&key.e)?);
        signature::RsaPublicKeyComponents { n: &n, e: &e }
            .verify(parameters, message, signature)
            .map_err(|_| Rejected::Signature)
    };
    let point = |algorithm: &'static dyn VerificationAlgorithm, curve: &str| {
        if key.crv.as_deref() != Some(curve) {
            return Err(Rejected::Signature);
        }
        let mut point = vec![0x04];
        point.extend(field(&key.x)?);
        point.extend(field(&key.y)?);
        UnparsedPublicKey::new(algorithm, point)
            .verify(message, signature)
            .map_err(|_| Rejected::Signature)
    };
    if !fits(key, parsed.header.alg) {
        return Err(Rejected::Signature);
    }
    match parsed.header.alg {
        Algorithm::RS256 => rsa(&signature::RSA_PKCS1_2048_8192_SHA256),
        Algorithm::RS384 => rsa(&signature::RSA_PKCS1_2048_8192_SHA384),
        Algorithm::RS512 => rsa(&signature::RSA_PKCS1_2048_8192_SHA512),
        Algorithm::PS256 => rsa(&signature::RSA_PSS_2048_8192_SHA256),
        Algorithm::PS384 => rsa(&signature::RSA_PSS_2048_8192_SHA384),
        Algorithm::PS512 => rsa(&signature::RSA_PSS_2048_8192_SHA512),
        Algorithm::ES256 => point(&signature::ECDSA_P256_SHA256_FIXED, "P-256"),
        Algorithm::ES384 => point(&signature::ECDSA_P384_SHA384_FIXED, "P-384"),
        Algorithm::EdDSA => {
            if key.crv.as_deref() != Some("Ed25519") {
                return Err(Rejected::Signature);
            }
            UnparsedPublicKey::new(&signature::ED25519, field(&key.x)?)
                .verify(message, signature)
                .map_err(|_| Rejected::Signature)
        }
    }
}

/// The claims of a verified token issued by `issuer` for `resource`, at `now` (Unix seconds)
/// give or take `skew` seconds.
///
/// # Errors
///
/// The first claim that does not hold.
pub fn check(
    claims: &Value,
    issuer: &str,
    resource: &str,
    now: u64,
    skew: u64,
) -> Result<Claims, Rejected> {
    if claims["iss"].as_str() != Some(issuer) {
        return Err(Rejected::Issuer);
    }
    let audience = match &claims["aud"] {
        Value::String(one) => one == resource,
        Value::Array(many) => many.iter().any(|aud| aud.as_str() == Some(resource)),
        _ => false,
    };
    if !audience {
        return Err(Rejected::Audience);
    }
    let expires = numeric_date(claims, "exp")?.ok_or(Rejected::Malformed)?;
    if now > expires.saturating_add(skew) {
        return Err(Rejected::Expired);
    }
    for name in ["nbf", "iat"] {
        if numeric_date(claims, name)?.is_some_and(|from| now.saturating_add(skew) < from) {
            return Err(Rejected::NotYetValid);
        }
    }
    let subject = claims["sub"]
        .as_str()
        .filter(|sub| !sub.is_empty())
        .ok_or(Rejected::Malformed)?;
    let scopes = match (&claims["scope"], &claims["scp"]) {
        (Value::String(scope), _) => scope.split_whitespace().map(str::to_owned).collect(),
        (_, Value::Array(scp)) => scp
            .iter()
            .filter_map(|scope| scope.as_str().map(str::to_owned))
            .collect(),
        _ => Vec::new(),
    };
    Ok(Claims {
        subject: subject.to_owned(),
        scopes,
    })
}

/// The time claim `name` (RFC 7519 NumericDate: seconds since the epoch, maybe with a
/// fraction), in whole seconds; `None` when absent.
///
/// # Errors
///
/// [`Rejected::Malformed`] when present as anything but a non-negative number: a time that
/// cannot be read is not taken for no time.
fn numeric_date(claims: &Value, name: &str) -> Result<Option<u64>, Rejected> {
    match &claims[name] {
        Value::Null if claims.get(name).is_none() => Ok(None),
        Value::Number(number) => match number.as_u64() {
            Some(seconds) => Ok(Some(seconds)),
            None => number
                .as_f64()
                .filter(|seconds| seconds.is_finite() && *seconds >= 0.0)
                // Whole seconds: a fraction never moves a bound by a second.
                .map(|seconds| Some(seconds as u64))
                .ok_or(Rejected::Malformed),
        },
        _ => Err(Rejected::Malformed),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const RESOURCE: &str = "https://mcp.example/mcp";

    fn claims(extra: Value) -> Value {
        let mut claims = json!({"iss": "https://as.example", "aud": RESOURCE, "sub": "alice",
            "exp": 1_000, "scope": "todo.read todo.write"});
        if let (Value::Object(claims), Value::Object(extra)) = (&mut claims, extra) {
            claims.extend(extra);
        }
        claims
    }

    #[test]
    fn claims_hold_or_say_which_does_not() {
        let check = |claims: &Value, now| check(claims, "https://as.example", RESOURCE, now, 30);
        let valid = check(&claims(json!({})), 900).expect("valid");
        assert_eq!(valid.subject, "alice");
        assert_eq!(valid.scopes, ["todo.read", "todo.write"]);
        assert_eq!(check(&claims(json!({})), 1_031), Err(Rejected::Expired));
        assert!(check(&claims(json!({})), 1_030).is_ok(), "within the skew");
        assert_eq!(
            check(&claims(json!({"nbf": 950})), 900),
            Err(Rejected::NotYetValid)
        );
        assert_eq!(
            check(&claims(json!({"aud": ["https://other.example"]})), 900),
            Err(Rejected::Audience)
        );
        assert_eq!(
            check(&claims(json!({"iss": "https://evil.example"})), 900),
            Err(Rejected::Issuer)
        );
        let scp = check(&claims(json!({"scope": null, "scp": ["a", "b"]})), 900).expect("valid");
        assert_eq!(scp.scopes, ["a", "b"]);
    }

    #[test]
    fn times_of_the_wrong_type_are_refused() {
        let check = |extra| check(&claims(extra), "https://as.example", RESOURCE, 900, 30);
        for bad in [
            json!({"nbf": "950"}),
            json!({"nbf": null}),
            json!({"iat": "0"}),
            json!({"iat": -1}),
            json!({"exp": "1000"}),
            json!({"exp": [1000]}),
        ] {
            assert_eq!(check(bad.clone()), Err(Rejected::Malformed), "{bad}");
        }
        assert!(check(json!({"exp": 1000.5, "nbf": 899.9, "iat": 800})).is_ok());
        assert_eq!(check(json!({"iat": 1_000})), Err(Rejected::NotYetValid));
    }

    #[test]
    fn unsigned_and_symmetric_tokens_are_refused() {
        let part = |value: Value| URL_SAFE_NO_PAD.encode(value.to_string());
        for alg in ["none", "HS256", "rs256"] {
            let token = format!("{}.{}.", part(json!({"alg": alg})), part(claims(json!({}))));
            assert!(
                matches!(parse(&token), Err(Rejected::Algorithm)),
                "{alg} is refused"
            );
        }
        assert!(matches!(parse("a.b"), Err(Rejected::Malformed)));
        assert!(matches!(parse("not a token"), Err(Rejected::Malformed)));
    }
}
