//! Every message a client sends passes here before rmcp sees it, on both transports: the
//! byte limit first, then a streaming check of syntax and bounds ([`crate::json_scan`]),
//! then the shape of a JSON-RPC message. What fails is answered here, by its `id` whenever
//! one was read; what passes is handed on.
//!
//! The answers follow JSON-RPC 2.0: `-32700` with `id: null` for text that is not JSON,
//! `-32600` for a message that is not a valid request, `-32602` for a known method whose
//! params are malformed; unknown methods reach rmcp, which answers `-32601`. A `tools/call`
//! too large to read is answered as a tool would be, with `VALIDATION_PAYLOAD_TOO_LARGE`.
//! Notifications get no answer.

use rmcp::model::{
    CallToolRequest, CallToolRequestMethod, CallToolRequestParams, CancelTaskMethod,
    ClientJsonRpcMessage, ClientRequest, CompleteRequestMethod, ConstString, DiscoverRequestMethod,
    GetPromptRequestMethod, GetSkillRequestMethod, GetTaskMethod, InitializeResultMethod,
    JsonObject, JsonRpcRequest, ListPromptsRequestMethod, ListResourceTemplatesRequestMethod,
    ListResourcesRequestMethod, ListSkillsRequestMethod, ListToolsRequestMethod, PingRequestMethod,
    ProtocolVersion, ReadResourceDirectoryRequestMethod, ReadResourceRequestMethod, RequestId,
    SetLevelRequestMethod, SubscribeRequestMethod, SubscriptionsListenRequestMethod,
    UnsubscribeRequestMethod, UpdateTaskMethod,
};

use crate::config::Limits;
use crate::error::{AqlError, ErrorCode};
use crate::json_scan::{Bounds, Fault, Kind, Scanner, Top};
use crate::protocol::envelope::too_large;
use crate::protocol::result;

/// Room for the JSON-RPC envelope around the largest accepted tool arguments.
const ENVELOPE_BYTES: usize = 64 * 1024;
/// Values of any kind in one message: ten of the largest arrays the payload limits allow.
const VALUES_PER_ARRAY_LIMIT: usize = 10;
/// Nesting of one message: under serde_json's limit of 128, and far enough above the largest
/// nesting limit (64) plus the envelope's two levels that arguments too deep reach the
/// payload check and get its MCP-AQL error.
const MAX_FRAME_DEPTH: usize = 100;

/// Request methods of the MCP client, whose params rmcp parses into typed requests.
const CLIENT_METHODS: [&str; 21] = [
    InitializeResultMethod::VALUE,
    PingRequestMethod::VALUE,
    DiscoverRequestMethod::VALUE,
    CompleteRequestMethod::VALUE,
    SetLevelRequestMethod::VALUE,
    GetPromptRequestMethod::VALUE,
    ListPromptsRequestMethod::VALUE,
    ListResourcesRequestMethod::VALUE,
    ListResourceTemplatesRequestMethod::VALUE,
    ReadResourceRequestMethod::VALUE,
    SubscriptionsListenRequestMethod::VALUE,
    SubscribeRequestMethod::VALUE,
    UnsubscribeRequestMethod::VALUE,
    CallToolRequestMethod::VALUE,
    ListToolsRequestMethod::VALUE,
    GetTaskMethod::VALUE,
    UpdateTaskMethod::VALUE,
    CancelTaskMethod::VALUE,
    ListSkillsRequestMethod::VALUE,
    GetSkillRequestMethod::VALUE,
    ReadResourceDirectoryRequestMethod::VALUE,
];

/// Methods protocol revision 2026-07-28 has no more: a request of that revision for one is
/// answered `-32601` (over HTTP with 404), on every transport alike.
const REMOVED_IN_STATELESS_REVISION: [&str; 5] = [
    InitializeResultMethod::VALUE,
    PingRequestMethod::VALUE,
    SetLevelRequestMethod::VALUE,
    SubscribeRequestMethod::VALUE,
    UnsubscribeRequestMethod::VALUE,
];

/// JSON-RPC 2.0 error codes this layer answers with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RpcCode {
    ParseError,
    InvalidRequest,
    MethodNotFound,
    InvalidParams,
    /// Implementation-defined server error: the server is at a capacity limit.
    #[cfg(feature = "http")]
    ServerBusy,
}

impl RpcCode {
    const fn number(self) -> i32 {
        match self {
            Self::ParseError => -32700,
            Self::InvalidRequest => -32600,
            Self::MethodNotFound => -32601,
            Self::InvalidParams => -32602,
            #[cfg(feature = "http")]
            Self::ServerBusy => -32000,
        }
    }
}

/// How large and deep one message may be, from the payload limits.
#[derive(Debug, Clone, Copy)]
pub struct FrameLimits {
    /// Bytes of one message: a stdio line, an HTTP body.
    pub max_bytes: usize,
    pub bounds: Bounds,
    /// The payload limit the byte limit derives from, for the MCP-AQL error.
    max_request_size: usize,
    /// The most operations a batch may hold: a longer one is refused before it is parsed.
    max_batch_size: usize,
}

impl FrameLimits {
    pub fn new(limits: &Limits) -> Self {
        Self {
            max_bytes: limits.max_request_size + ENVELOPE_BYTES,
            bounds: Bounds {
                max_depth: MAX_FRAME_DEPTH,
                max_values: limits.max_array_elements * VALUES_PER_ARRAY_LIMIT,
            },
            max_request_size: limits.max_request_size,
            max_batch_size: limits.max_batch_size,
        }
    }
}

/// What becomes of one message.
#[derive(Debug)]
pub enum Verdict {
    /// A well-formed message for rmcp.
    Pass(Box<ClientJsonRpcMessage>),
    /// A plain `tools/call` (params exactly `name` and `arguments`), parsed straight into
    /// its parts. rmcp's own parse of a message buffers it through serde's untagged and
    /// flattened enums, several times its parsed size; this one does not.
    Call(PlainCall),
    /// Answered here.
    Reply(Reply),
    /// Dropped without an answer (a malformed notification or response): why, for the log.
    Ignore(String),
}

/// A `tools/call` whose params hold nothing but `name` and `arguments`.
#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlainCall {
    #[serde(rename = "jsonrpc")]
    _jsonrpc: serde::de::IgnoredAny,
    pub id: RequestId,
    #[serde(rename = "method")]
    _method: serde::de::IgnoredAny,
    pub params: PlainParams,
}

#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlainParams {
    pub name: String,
    #[serde(default)]
    pub arguments: Option<JsonObject>,
}

impl PlainCall {
    /// The message rmcp would have parsed.
    pub fn into_message(self) -> ClientJsonRpcMessage {
        let mut params = CallToolRequestParams::new(self.params.name);
        if let Some(arguments) = self.params.arguments {
            params = params.with_arguments(arguments);
        }
        ClientJsonRpcMessage::Request(JsonRpcRequest::new(
            self.id,
            ClientRequest::CallToolRequest(CallToolRequest::new(params)),
        ))
    }
}

/// An answer made here: a JSON-RPC error, or a tool result for a `tools/call`.
#[derive(Debug)]
pub struct Reply {
    /// The request's `id` as JSON text; `None` answers with `id: null`.
    pub id: Option<String>,
    pub body: ReplyBody,
}

#[derive(Debug)]
pub enum ReplyBody {
    Error { code: RpcCode, message: String },
    Tool(Box<rmcp::model::CallToolResult>),
}

impl Reply {
    pub fn error(id: Option<String>, code: RpcCode, message: impl Into<String>) -> Self {
        Self {
            id,
            body: ReplyBody::Error {
                code,
                message: message.into(),
            },
        }
    }

    /// The JSON-RPC code, when the answer is an error.
    pub fn code(&self) -> Option<RpcCode> {
        match self.body {
            ReplyBody::Error { code, .. } => Some(code),
            ReplyBody::Tool(_) => None,
        }
    }

    /// The whole JSON-RPC response as text.
    pub fn to_json(&self) -> String {
        let id = self.id.as_deref().unwrap_or("null");
        let (key, value) = match &self.body {
            ReplyBody::Error { code, message } => (
                "error",
                serde_json::json!({"code": code.number(), "message": message}).to_string(),
            ),
            ReplyBody::Tool(result) => (
                "result",
                serde_json::to_string(result).unwrap_or_else(|_| "{}".to_owned()),
            ),
        };
        format!(r#"{{"jsonrpc":"2.0","id":{id},"{key}":{value}}}"#)
    }
}

/// Judges one whole message of at most [`FrameLimits::max_bytes`] bytes; `stateless` when
/// the transport already says the message is of protocol revision 2026-07-28 (HTTP's
/// `MCP-Protocol-Version`), which its own `_meta` may say too.
pub fn judge(bytes: &[u8], limits: &FrameLimits, stateless: bool) -> Verdict {
    if let Err(error) = std::str::from_utf8(bytes) {
        // What can be read of it, with the undecodable bytes replaced, to find its id.
        let mut scanner = Scanner::new(limits.bounds);
        scanner.feed(String::from_utf8_lossy(bytes).as_bytes());
        let why = format!(
            "the request holds a byte sequence which is not UTF-8 (byte offset {})",
            error.valid_up_to()
        );
        return match scanner.finish() {
            Ok(()) => undecodable_call(scanner.top(), &why),
            Err(_) => None,
        }
        .unwrap_or_else(|| {
            Verdict::Reply(Reply::error(
                None,
                RpcCode::ParseError,
                "Parse error: the message is not valid UTF-8",
            ))
        });
    }
    let mut scanner = Scanner::new(limits.bounds);
    scanner.feed(bytes);
    if let Err(fault) = scanner.finish() {
        return refused(&scanner, &fault);
    }
    let top = scanner.top();
    if top.root != Some(Kind::Object) {
        let why = if top.root == Some(Kind::Array) {
            "Invalid request: batches are not supported; send one JSON-RPC message per line or request"
        } else {
            "Invalid request: a JSON-RPC message is an object"
        };
        return Verdict::Reply(Reply::error(None, RpcCode::InvalidRequest, why));
    }
    if let Some(member) = top.repeated {
        // Which of two ids to answer is anyone's guess: neither.
        return Verdict::Reply(Reply::error(
            None,
            RpcCode::InvalidRequest,
            format!("Invalid request: the member '{member}' appears more than once"),
        ));
    }
    let id = match request_id(top) {
        Ok(id) => id,
        Err(reply) => return Verdict::Reply(reply),
    };
    // A notification or a response gets no answer, even when broken; anything else does,
    // by `id: null` when it has none (`{}` is no notification).
    let notification = top.response
        || top
            .method
            .as_ref()
            .is_some_and(|method| method.kind == Kind::String);
    let answer = |code, message: &str| match &id {
        None if notification => Verdict::Ignore(message.to_owned()),
        _ => Verdict::Reply(Reply::error(id.clone(), code, message)),
    };
    if top
        .jsonrpc
        .as_ref()
        .and_then(|member| member.raw.as_deref())
        != Some("\"2.0\"")
    {
        return answer(
            RpcCode::InvalidRequest,
            "Invalid request: 'jsonrpc' must be \"2.0\"",
        );
    }
    let method = match &top.method {
        None if top.response => None,
        None => return answer(RpcCode::InvalidRequest, "Invalid request: no 'method'"),
        Some(member) if member.kind != Kind::String => {
            return answer(
                RpcCode::InvalidRequest,
                "Invalid request: 'method' must be a string",
            );
        }
        Some(member) => member
            .raw
            .as_deref()
            .and_then(|raw| serde_json::from_str::<String>(raw).ok()),
    };
    if let Some(name) = method.as_deref()
        && REMOVED_IN_STATELESS_REVISION.contains(&name)
        && (stateless || declares_stateless_revision(bytes))
    {
        return answer(
            RpcCode::MethodNotFound,
            &format!(
                "Method not found: '{name}' is not part of protocol revision {}",
                ProtocolVersion::V_2026_07_28.as_str()
            ),
        );
    }
    let known = method
        .as_deref()
        .and_then(|name| CLIENT_METHODS.iter().find(|known| **known == name));
    if known == Some(&CallToolRequestMethod::VALUE)
        && let Some(id) = &id
    {
        // A batch longer than the limit is refused before its items are parsed: counted
        // alone, ten thousand of them cost nothing.
        if let Some(len) = batch_len(bytes)
            && len > limits.max_batch_size
        {
            // A batch-level failure: `{code, message}` only, as every batch refusal (S:batch).
            let error = crate::protocol::batch::too_many(len, limits.max_batch_size);
            return Verdict::Reply(Reply {
                id: Some(id.clone()),
                body: ReplyBody::Tool(Box::new(result::bare_failure(&error))),
            });
        }
        if let Ok(call) = serde_json::from_slice::<PlainCall>(bytes) {
            return Verdict::Call(call);
        }
    }
    match serde_json::from_slice::<ClientJsonRpcMessage>(bytes) {
        Ok(ClientJsonRpcMessage::Request(request))
            if matches!(request.request, ClientRequest::CustomRequest(_))
                && let Some(known) = known =>
        {
            Verdict::Reply(Reply::error(id, RpcCode::InvalidParams, params_hint(known)))
        }
        Ok(message) => Verdict::Pass(Box::new(message)),
        Err(_) => match known {
            Some(known) => answer(RpcCode::InvalidParams, &params_hint(known)),
            None => answer(
                RpcCode::InvalidRequest,
                "Invalid request: not a JSON-RPC 2.0 request, notification or response",
            ),
        },
    }
}

/// Whether the message's `params._meta` declares protocol revision 2026-07-28 or later.
fn declares_stateless_revision(bytes: &[u8]) -> bool {
    #[derive(serde::Deserialize)]
    struct Message {
        params: Option<Params>,
    }
    #[derive(serde::Deserialize)]
    struct Params {
        #[serde(rename = "_meta")]
        meta: Option<Meta>,
    }
    #[derive(serde::Deserialize)]
    struct Meta {
        #[serde(rename = "io.modelcontextprotocol/protocolVersion")]
        version: Option<String>,
    }
    serde_json::from_slice::<Message>(bytes)
        .ok()
        .and_then(|message| message.params?.meta?.version)
        .is_some_and(|version| version.as_str() >= ProtocolVersion::V_2026_07_28.as_str())
}

/// How many items `params.arguments.operations` of a `tools/call` holds, counted without
/// keeping them; `None` when it holds no such list.
fn batch_len(bytes: &[u8]) -> Option<usize> {
    use serde::de::{Deserializer, IgnoredAny, SeqAccess, Visitor};

    #[derive(serde::Deserialize)]
    struct Message {
        params: Params,
    }
    #[derive(serde::Deserialize)]
    struct Params {
        #[serde(default)]
        arguments: Option<Arguments>,
    }
    #[derive(serde::Deserialize)]
    struct Arguments {
        #[serde(default)]
        operations: Option<Count>,
    }
    /// The length of a list; nothing for any other value.
    struct Count(Option<usize>);
    impl<'de> serde::Deserialize<'de> for Count {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            struct Counter;
            impl<'de> Visitor<'de> for Counter {
                type Value = Count;
                fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                    f.write_str("any value")
                }
                fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Count, A::Error> {
                    let mut len = 0;
                    while seq.next_element::<IgnoredAny>()?.is_some() {
                        len += 1;
                    }
                    Ok(Count(Some(len)))
                }
                fn visit_map<A: serde::de::MapAccess<'de>>(
                    self,
                    mut map: A,
                ) -> Result<Count, A::Error> {
                    while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                    Ok(Count(None))
                }
                fn visit_bool<E>(self, _: bool) -> Result<Count, E> {
                    Ok(Count(None))
                }
                fn visit_i64<E>(self, _: i64) -> Result<Count, E> {
                    Ok(Count(None))
                }
                fn visit_u64<E>(self, _: u64) -> Result<Count, E> {
                    Ok(Count(None))
                }
                fn visit_f64<E>(self, _: f64) -> Result<Count, E> {
                    Ok(Count(None))
                }
                fn visit_str<E>(self, _: &str) -> Result<Count, E> {
                    Ok(Count(None))
                }
                fn visit_unit<E>(self) -> Result<Count, E> {
                    Ok(Count(None))
                }
            }
            deserializer.deserialize_any(Counter)
        }
    }
    serde_json::from_slice::<Message>(bytes)
        .ok()?
        .params
        .arguments?
        .operations?
        .0
}

/// The answer to a `tools/call` whose text cannot be decoded (`why`): the tool's own
/// `VALIDATION_INVALID_ENCODING` (SPEC §4.7), when `top` shows a `tools/call` with an `id`.
/// `None` for anything else.
fn undecodable_call(top: &Top, why: &str) -> Option<Verdict> {
    let id = request_id(top).ok().flatten()?;
    let method = top.method.as_ref()?.raw.as_deref()?;
    if method != format!("\"{}\"", CallToolRequestMethod::VALUE) {
        return None;
    }
    let error = AqlError::new(
        ErrorCode::ValidationInvalidEncoding,
        format!("Invalid character encoding in request: {why}"),
    )
    .with_detail("reason", "not_unicode");
    Some(Verdict::Reply(Reply {
        id: Some(id),
        body: ReplyBody::Tool(Box::new(result::failure_in_session(&error, None))),
    }))
}

/// Judges a message that outgrew [`FrameLimits::max_bytes`] from what was read of it.
pub fn judge_oversize(top: &Top, limits: &FrameLimits, size: Option<usize>) -> Verdict {
    let Ok(Some(id)) = request_id(top) else {
        return Verdict::Reply(Reply::error(
            None,
            RpcCode::InvalidRequest,
            format!(
                "Invalid request: the message is larger than {} bytes",
                limits.max_bytes
            ),
        ));
    };
    let is_call = top.method.as_ref().and_then(|member| member.raw.as_deref())
        == Some(&format!("\"{}\"", CallToolRequestMethod::VALUE));
    if is_call {
        let actual = size.unwrap_or(limits.max_bytes + 1);
        let error = too_large(
            "request_size",
            limits.max_request_size,
            actual
                .saturating_sub(ENVELOPE_BYTES)
                .max(limits.max_request_size + 1),
            "bytes",
        );
        return Verdict::Reply(Reply {
            id: Some(id),
            body: ReplyBody::Tool(Box::new(result::failure_in_session(&error, None))),
        });
    }
    Verdict::Reply(Reply::error(
        Some(id),
        RpcCode::InvalidRequest,
        format!(
            "Invalid request: the message is larger than {} bytes",
            limits.max_bytes
        ),
    ))
}

/// The answer to a message the scanner refused.
fn refused(scanner: &Scanner, fault: &Fault) -> Verdict {
    if fault.is_syntax() {
        return Verdict::Reply(Reply::error(
            None,
            RpcCode::ParseError,
            format!("Parse error: {}", fault.describe()),
        ));
    }
    let top = scanner.top();
    if matches!(fault, Fault::Surrogate)
        && let Some(verdict) = undecodable_call(
            top,
            "a string holds an escaped UTF-16 surrogate without its pair, which is no character",
        )
    {
        return verdict;
    }
    let id = request_id(top).ok().flatten();
    let (code, label) = if scanner.fault_in_params() {
        (RpcCode::InvalidParams, "Invalid params")
    } else {
        (RpcCode::InvalidRequest, "Invalid request")
    };
    let message = format!("{label}: {}", fault.describe());
    match (&id, &top.method) {
        // Most likely a notification: no answer.
        (None, Some(_)) => Verdict::Ignore(message),
        _ => Verdict::Reply(Reply::error(id, code, message)),
    }
}

/// The `id` to answer with: `Ok(None)` for a notification, an error for an `id` that
/// cannot be echoed or is not a string or an integer.
fn request_id(top: &Top) -> Result<Option<String>, Reply> {
    let Some(member) = &top.id else {
        return Ok(None);
    };
    let invalid = |why: &str| Reply::error(None, RpcCode::InvalidRequest, why);
    match (member.kind, &member.raw) {
        (Kind::String, Some(raw)) => Ok(Some(raw.clone())),
        (Kind::Number, Some(raw)) if raw.parse::<i64>().is_ok() => Ok(Some(raw.clone())),
        (Kind::Number, Some(raw)) => Err(Reply::error(
            Some(raw.clone()),
            RpcCode::InvalidRequest,
            "Invalid request: a numeric 'id' must be an integer",
        )),
        (Kind::String, None) => Err(invalid(
            "Invalid request: 'id' is longer than 254 characters",
        )),
        _ => Err(invalid(
            "Invalid request: 'id' must be a string or an integer",
        )),
    }
}

fn params_hint(method: &str) -> String {
    if method == CallToolRequestMethod::VALUE {
        format!(
            "Invalid params for '{method}': expected an object with 'name' (a string) and optionally 'arguments' (an object)"
        )
    } else {
        format!("Invalid params for '{method}'")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits() -> FrameLimits {
        FrameLimits::new(&Limits::default())
    }

    fn reply(text: &str) -> (Option<String>, Option<RpcCode>) {
        match judge(text.as_bytes(), &limits(), false) {
            Verdict::Reply(reply) => (reply.id.clone(), reply.code()),
            other => panic!("{text}: {other:?}"),
        }
    }

    #[test]
    fn well_formed_messages_pass() {
        for text in [
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
            r#"{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"t","arguments":{"x":1}}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            r#"{"jsonrpc":"2.0","id":2,"method":"no/such/method"}"#,
        ] {
            assert!(
                matches!(
                    judge(text.as_bytes(), &limits(), false),
                    Verdict::Pass(_) | Verdict::Call(_)
                ),
                "{text}"
            );
        }
        let call = r#"{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"t","arguments":{"x":1}}}"#;
        let Verdict::Call(plain) = judge(call.as_bytes(), &limits(), false) else {
            panic!("a plain call");
        };
        let rebuilt = serde_json::to_value(plain.into_message()).unwrap();
        assert_eq!(
            rebuilt,
            serde_json::from_str::<serde_json::Value>(call).unwrap()
        );
        let with_meta = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","_meta":{"progressToken":1}}}"#;
        assert!(matches!(
            judge(with_meta.as_bytes(), &limits(), false),
            Verdict::Pass(_)
        ));
    }

    #[test]
    fn broken_requests_are_answered_by_their_id() {
        let id = |s: &str| Some(s.to_owned());
        for params in [
            "\"x\"",
            "7",
            "true",
            "[1]",
            "{}",
            r#"{"name":3}"#,
            r#"{"name":"t","arguments":[]}"#,
        ] {
            let text =
                format!(r#"{{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{params}}}"#);
            assert_eq!(
                reply(&text),
                (id("9"), Some(RpcCode::InvalidParams)),
                "{text}"
            );
        }
        assert_eq!(
            reply(r#"{"jsonrpc":"2.0","id":"q","method":"tools/call"}"#),
            (id("\"q\""), Some(RpcCode::InvalidParams))
        );
        assert_eq!(
            reply(r#"{"jsonrpc":"2.0","id":3,"method":5}"#),
            (id("3"), Some(RpcCode::InvalidRequest))
        );
        assert_eq!(
            reply(r#"{"jsonrpc":"1.0","id":3,"method":"ping"}"#),
            (id("3"), Some(RpcCode::InvalidRequest))
        );
        assert_eq!(
            reply(
                r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"t","arguments":{"n":1e400}}}"#
            ),
            (id("4"), Some(RpcCode::InvalidParams))
        );
        // An undecodable call is answered as a tool would (VALIDATION_INVALID_ENCODING).
        assert_eq!(
            reply(r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"\ud800"}}"#),
            (id("5"), None)
        );
        assert_eq!(
            reply(r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"tools/list"}"#),
            (None, Some(RpcCode::InvalidRequest))
        );
        assert_eq!(
            reply(r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#),
            (id("1.5"), Some(RpcCode::InvalidRequest))
        );
        let deep = format!(
            r#"{{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{}{}}}"#,
            "[".repeat(200),
            "]".repeat(200)
        );
        assert_eq!(reply(&deep), (id("6"), Some(RpcCode::InvalidParams)));
    }

    #[test]
    fn text_that_is_not_json_gets_a_parse_error_without_id() {
        for text in ["{", "nope", r#"{"id":1,"method":"ping""#, "\u{0}"] {
            assert_eq!(reply(text), (None, Some(RpcCode::ParseError)), "{text}");
        }
        assert!(matches!(
            judge(b"{\"id\":1,\xff}", &limits(), false),
            Verdict::Reply(Reply { id: None, .. })
        ));
        assert_eq!(reply("[]"), (None, Some(RpcCode::InvalidRequest)));
        assert_eq!(
            reply(r#"{"jsonrpc":"2.0","id":{},"method":"ping"}"#),
            (None, Some(RpcCode::InvalidRequest))
        );
    }

    #[test]
    fn broken_notifications_get_no_answer() {
        for text in [
            r#"{"jsonrpc":"2.0","method":"notifications/initialized","params":"x"}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/x","params":{"n":1e400}}"#,
        ] {
            assert!(
                matches!(judge(text.as_bytes(), &limits(), false), Verdict::Ignore(_)),
                "{text}"
            );
        }
    }

    #[test]
    fn objects_that_are_no_notification_get_invalid_request_with_a_null_id() {
        for text in [
            "{}",
            r#"{"jsonrpc":"2.0","method":7}"#,
            r#"{"jsonrpc":"2.0"}"#,
        ] {
            let Verdict::Reply(reply) = judge(text.as_bytes(), &limits(), false) else {
                panic!("{text} is answered");
            };
            assert_eq!(
                (reply.code(), reply.id),
                (Some(RpcCode::InvalidRequest), None),
                "{text}"
            );
        }
    }

    #[test]
    fn methods_revision_2026_07_28_removed_are_not_found() {
        let ping = r#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#;
        assert!(matches!(
            judge(ping.as_bytes(), &limits(), false),
            Verdict::Pass(_)
        ));
        let Verdict::Reply(reply) = judge(ping.as_bytes(), &limits(), true) else {
            panic!("refused");
        };
        assert_eq!(reply.code(), Some(RpcCode::MethodNotFound));
        for method in REMOVED_IN_STATELESS_REVISION {
            // Declared by the message itself, as over stdio; params it could not take
            // are no reason to answer otherwise.
            let text = format!(
                r#"{{"jsonrpc":"2.0","id":"a","method":"{method}","params":{{"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}}}}"#
            );
            let Verdict::Reply(reply) = judge(text.as_bytes(), &limits(), false) else {
                panic!("{method} refused");
            };
            assert_eq!(reply.id.as_deref(), Some("\"a\""));
            assert_eq!(reply.code(), Some(RpcCode::MethodNotFound), "{method}");
        }
    }

    #[test]
    fn an_oversize_tool_call_is_answered_as_a_tool_would() {
        let mut scanner = Scanner::new(limits().bounds);
        scanner.feed(br#"{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"mcp_aql_read","arguments":{"x":""#);
        let Verdict::Reply(reply) = judge_oversize(scanner.top(), &limits(), Some(5_000_000))
        else {
            panic!("answered");
        };
        let json: serde_json::Value = serde_json::from_str(&reply.to_json()).unwrap();
        assert_eq!(json["id"], 12);
        let text = json["result"]["content"][0]["text"].as_str().unwrap();
        assert!(text.contains("VALIDATION_PAYLOAD_TOO_LARGE"), "{text}");
    }

    /// A `tools/call` whose text is not Unicode gets the tool's VALIDATION_INVALID_ENCODING
    /// by its id; another message, a JSON-RPC parse error; a proper surrogate pair passes.
    #[test]
    fn undecodable_calls_are_answered_as_tools() {
        let tool_code = |bytes: &[u8]| match judge(bytes, &limits(), false) {
            Verdict::Reply(Reply {
                id,
                body: ReplyBody::Tool(result),
            }) => {
                let text = serde_json::to_value(&*result).expect("JSON")["content"][0]["text"]
                    .as_str()
                    .map(str::to_owned)
                    .expect("text");
                let answer: serde_json::Value = serde_json::from_str(&text).expect("JSON");
                (id, answer["error"]["code"].as_str().map(str::to_owned))
            }
            other => panic!("{other:?}"),
        };
        let mut latin1 = br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"mcp_aql_read","arguments":{"operation":"get","params":{"q":"caf"#.to_vec();
        latin1.extend(b"\xe9\"}}}}");
        assert_eq!(
            tool_code(&latin1),
            (
                Some("7".to_owned()),
                Some("VALIDATION_INVALID_ENCODING".to_owned())
            )
        );
        let lone = br#"{"jsonrpc":"2.0","id":"s","method":"tools/call","params":{"name":"mcp_aql_read","arguments":{"operation":"get","params":{"q":"\ud800x"}}}}"#;
        assert_eq!(
            tool_code(lone),
            (
                Some("\"s\"".to_owned()),
                Some("VALIDATION_INVALID_ENCODING".to_owned())
            )
        );
        let pair = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{"q":"\ud83d\ude00 \\ud800"}}}"#;
        assert!(matches!(judge(pair, &limits(), false), Verdict::Call(_)));
        let mut list = br#"{"jsonrpc":"2.0","id":3,"method":"tools/list","x":""#.to_vec();
        list.extend(b"\xff\"}");
        assert_eq!(reply_of(&list), (None, Some(RpcCode::ParseError)));
    }

    fn reply_of(bytes: &[u8]) -> (Option<String>, Option<RpcCode>) {
        match judge(bytes, &limits(), false) {
            Verdict::Reply(reply) => (reply.id.clone(), reply.code()),
            other => panic!("{other:?}"),
        }
    }

    /// A batch over the limit is refused by its id before its items are parsed.
    #[test]
    fn a_long_batch_is_refused_unread() {
        let items = vec![r#"{"operation":"get_item","params":{"id":"1"}}"#; 10_000].join(",");
        let call = format!(
            r#"{{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{{"name":"mcp_aql_read","arguments":{{"operations":[{items}]}}}}}}"#
        );
        let Verdict::Reply(Reply {
            id,
            body: ReplyBody::Tool(result),
        }) = judge(call.as_bytes(), &limits(), false)
        else {
            panic!("refused here");
        };
        assert_eq!(id.as_deref(), Some("9"));
        let text = serde_json::to_value(&*result).expect("JSON")["content"][0]["text"]
            .as_str()
            .map(str::to_owned)
            .expect("text");
        let answer: serde_json::Value = serde_json::from_str(&text).expect("JSON");
        assert_eq!(answer["error"]["code"], "VALIDATION_PAYLOAD_TOO_LARGE");
        let message = answer["error"]["message"].as_str().unwrap_or_default();
        assert!(
            message.contains("batch_size limit of 25 operations (found 10000)"),
            "{answer}"
        );
        let short = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{"operations":[{"operation":"x"}]}}}"#;
        assert!(matches!(
            judge(short.as_bytes(), &limits(), false),
            Verdict::Call(_)
        ));
    }
}
