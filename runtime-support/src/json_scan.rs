//! A streaming JSON checker: syntax and bounds (nesting depth, number of values, numbers a
//! 64-bit float can hold, paired UTF-16 surrogate escapes) over bytes as they arrive, in
//! memory bounded by the depth limit, picking out the top-level members a JSON-RPC message
//! is judged by.
//!
//! serde_json refuses some valid JSON (a number beyond `f64`, a lone surrogate escape,
//! nesting of 128 levels or more), and a parsed tree can take many times the bytes of its
//! text. Checking first means nothing is parsed that cannot be, and nothing is allocated
//! for a message that will be refused. The caller checks UTF-8: bytes of 0x80 and above are
//! taken as string content.

/// How deep and how large a document may be.
#[derive(Debug, Clone, Copy)]
pub struct Bounds {
    /// Nesting depth; the root container is level 1.
    pub max_depth: usize,
    /// Values of any kind, containers included.
    pub max_values: usize,
}

/// Why a document was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fault {
    /// Not JSON: what was expected where the text went wrong.
    Syntax {
        offset: usize,
        expected: &'static str,
    },
    /// Nesting deeper than the bound.
    Depth(usize),
    /// More values than the bound.
    Values(usize),
    /// A number a 64-bit float cannot hold (or longer than [`MAX_NUMBER_LEN`] characters).
    Number,
    /// A `\u` escape of half a UTF-16 surrogate pair.
    Surrogate,
}

impl Fault {
    /// Whether the text is not JSON at all (JSON-RPC's parse error), as opposed to JSON
    /// beyond what this server takes.
    pub fn is_syntax(&self) -> bool {
        matches!(self, Self::Syntax { .. })
    }

    /// What was wrong, for a client.
    pub fn describe(&self) -> String {
        match self {
            Self::Syntax { offset, expected } => {
                format!("invalid JSON: expected {expected} (byte offset {offset})")
            }
            Self::Depth(max) => format!("nesting deeper than {max} levels"),
            Self::Values(max) => format!("more than {max} JSON values"),
            Self::Number => format!(
                "a number outside the 64-bit floating-point range, or longer than {MAX_NUMBER_LEN} characters"
            ),
            Self::Surrogate => "a string with an unpaired UTF-16 surrogate escape".to_owned(),
        }
    }
}

/// The kind of a JSON value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Object,
    Array,
    String,
    Number,
    Bool,
    Null,
}

/// A top-level member of the root object: its kind and, for a short scalar, its JSON text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    pub kind: Kind,
    /// The member's JSON text when it is a string or number of at most [`MAX_CAPTURE`] bytes.
    pub raw: Option<String>,
}

/// What the root value showed of itself, as far as it was read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Top {
    /// The root's kind, once its first byte is read.
    pub root: Option<Kind>,
    pub id: Option<Member>,
    pub method: Option<Member>,
    pub jsonrpc: Option<Member>,
    pub params: Option<Kind>,
    /// Whether there is a `result` or `error` member: the message is a response.
    pub response: bool,
    /// A JSON-RPC member given more than once, which leaves the message ambiguous.
    pub repeated: Option<&'static str>,
}

/// Longest string or number text kept for a top-level member.
pub const MAX_CAPTURE: usize = 256;
/// Longest number text accepted; longer numbers are refused rather than parsed.
pub const MAX_NUMBER_LEN: usize = 64;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Container {
    Object,
    Array,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Expect {
    Value,
    ValueOrClose,
    KeyOrClose,
    Key,
    Colon,
    CommaOrClose,
    End,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Escape {
    None,
    Backslash,
    Hex { digits: u8, unit: u16 },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum NumberState {
    Minus,
    Zero,
    Int,
    Dot,
    Fraction,
    E,
    ESign,
    Exponent,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Token {
    None,
    String {
        key: bool,
        escape: Escape,
        high_surrogate: bool,
    },
    Number(NumberState),
    Literal {
        word: &'static [u8],
        matched: usize,
    },
}

/// Which top-level member the value being read belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Slot {
    Other,
    Id,
    Method,
    Jsonrpc,
    Params,
    Response,
}

/// Checks one JSON document fed in pieces.
#[derive(Debug)]
pub struct Scanner {
    bounds: Bounds,
    stack: Vec<Container>,
    expect: Expect,
    token: Token,
    offset: usize,
    values: usize,
    fault: Option<Fault>,
    top: Top,
    /// The member the current depth-1 value fills, once its key is read.
    slot: Slot,
    /// The key being read at depth 1 (up to 8 bytes, `None` once it cannot name a slot).
    key: Option<Vec<u8>>,
    /// The text of the member value being captured.
    capture: Option<Vec<u8>>,
    number: Vec<u8>,
    in_params: bool,
    fault_in_params: bool,
}

impl Scanner {
    pub fn new(bounds: Bounds) -> Self {
        Self {
            bounds,
            stack: Vec::new(),
            expect: Expect::Value,
            token: Token::None,
            offset: 0,
            values: 0,
            fault: None,
            top: Top::default(),
            slot: Slot::Other,
            key: None,
            capture: None,
            number: Vec::new(),
            in_params: false,
            fault_in_params: false,
        }
    }

    /// Reads more of the document; does nothing once a fault is found.
    pub fn feed(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            if self.fault.is_some() {
                return;
            }
            self.step(byte);
            self.offset += 1;
        }
    }

    /// What the root showed of itself so far.
    pub fn top(&self) -> &Top {
        &self.top
    }

    /// Whether a fault found so far lies inside the top-level `params` member.
    pub fn fault_in_params(&self) -> bool {
        self.fault_in_params
    }

    /// Ends the document: the first fault, if any, else `Ok`.
    pub fn finish(&mut self) -> Result<(), Fault> {
        if self.fault.is_none() {
            if let Token::Number(_) = self.token {
                self.end_number();
            }
            if self.fault.is_none() && (self.expect != Expect::End || self.token != Token::None) {
                let expected = self.expected();
                self.fail(Fault::Syntax {
                    offset: self.offset,
                    expected,
                });
            }
        }
        match &self.fault {
            Some(fault) => Err(fault.clone()),
            None => Ok(()),
        }
    }

    fn fail(&mut self, fault: Fault) {
        if self.fault.is_none() {
            self.fault_in_params = self.in_params;
            self.fault = Some(fault);
        }
    }

    fn syntax(&mut self, expected: &'static str) {
        self.fail(Fault::Syntax {
            offset: self.offset,
            expected,
        });
    }

    fn expected(&self) -> &'static str {
        match self.token {
            Token::String { .. } => "the end of the string",
            Token::Number(_) => "a digit",
            Token::Literal { .. } => "true, false or null",
            Token::None => match self.expect {
                Expect::Value => "a value",
                Expect::ValueOrClose => "a value or ']'",
                Expect::KeyOrClose => "a key or '}'",
                Expect::Key => "a key",
                Expect::Colon => "':'",
                Expect::CommaOrClose => match self.stack.last() {
                    Some(Container::Object) => "',' or '}'",
                    _ => "',' or ']'",
                },
                Expect::End => "the end of the text",
            },
        }
    }

    fn step(&mut self, byte: u8) {
        self.keep(byte);
        match self.token {
            Token::String {
                key,
                escape,
                high_surrogate,
            } => self.string_byte(byte, key, escape, high_surrogate),
            Token::Number(state) => {
                if matches!(byte, b'0'..=b'9' | b'.' | b'e' | b'E' | b'+' | b'-') {
                    self.number_byte(byte, state);
                } else {
                    self.end_number();
                    if self.fault.is_none() {
                        self.structural(byte);
                    }
                }
            }
            Token::Literal { word, matched } => {
                if word.get(matched) != Some(&byte) {
                    self.syntax("true, false or null");
                } else if matched + 1 == word.len() {
                    self.token = Token::None;
                    self.value_done();
                } else {
                    self.token = Token::Literal {
                        word,
                        matched: matched + 1,
                    };
                }
            }
            Token::None => self.structural(byte),
        }
    }

    /// Adds `byte` to the captured member text while a scalar member is being read.
    fn keep(&mut self, byte: u8) {
        if let Some(text) = &mut self.capture
            && text.len() <= MAX_CAPTURE
        {
            text.push(byte);
        }
    }

    fn structural(&mut self, byte: u8) {
        if matches!(byte, b' ' | b'\t' | b'\n' | b'\r') {
            return;
        }
        match (self.expect, byte) {
            (Expect::ValueOrClose, b']') => self.close(Container::Array),
            (Expect::Value | Expect::ValueOrClose, _) => self.begin_value(byte),
            (Expect::KeyOrClose, b'}') => self.close(Container::Object),
            (Expect::KeyOrClose | Expect::Key, b'"') => {
                if self.stack.len() == 1 {
                    self.key = Some(Vec::new());
                }
                self.token = Token::String {
                    key: true,
                    escape: Escape::None,
                    high_surrogate: false,
                };
            }
            (Expect::Colon, b':') => self.expect = Expect::Value,
            (Expect::CommaOrClose, b',') => {
                self.expect = match self.stack.last() {
                    Some(Container::Object) => Expect::Key,
                    _ => Expect::Value,
                };
            }
            (Expect::CommaOrClose, b'}') if self.stack.last() == Some(&Container::Object) => {
                self.close(Container::Object);
            }
            (Expect::CommaOrClose, b']') if self.stack.last() == Some(&Container::Array) => {
                self.close(Container::Array);
            }
            _ => {
                let expected = self.expected();
                self.syntax(expected);
            }
        }
    }

    fn begin_value(&mut self, byte: u8) {
        self.values += 1;
        if self.values > self.bounds.max_values {
            self.fail(Fault::Values(self.bounds.max_values));
            return;
        }
        let kind = match byte {
            b'{' => Kind::Object,
            b'[' => Kind::Array,
            b'"' => Kind::String,
            b'-' | b'0'..=b'9' => Kind::Number,
            b't' | b'f' => Kind::Bool,
            b'n' => Kind::Null,
            _ => {
                self.syntax("a value");
                return;
            }
        };
        if self.stack.is_empty() {
            self.top.root = Some(kind);
        } else if self.stack.len() == 1 {
            self.begin_member(kind, byte);
        }
        match byte {
            b'{' | b'[' => {
                let container = if byte == b'{' {
                    Container::Object
                } else {
                    Container::Array
                };
                self.stack.push(container);
                if self.stack.len() > self.bounds.max_depth {
                    self.fail(Fault::Depth(self.bounds.max_depth));
                    return;
                }
                self.expect = match container {
                    Container::Object => Expect::KeyOrClose,
                    Container::Array => Expect::ValueOrClose,
                };
            }
            b'"' => {
                self.token = Token::String {
                    key: false,
                    escape: Escape::None,
                    high_surrogate: false,
                };
            }
            b't' => {
                self.token = Token::Literal {
                    word: b"true",
                    matched: 1,
                };
            }
            b'f' => {
                self.token = Token::Literal {
                    word: b"false",
                    matched: 1,
                };
            }
            b'n' => {
                self.token = Token::Literal {
                    word: b"null",
                    matched: 1,
                };
            }
            _ => {
                self.number.clear();
                self.number.push(byte);
                self.token = Token::Number(if byte == b'-' {
                    NumberState::Minus
                } else if byte == b'0' {
                    NumberState::Zero
                } else {
                    NumberState::Int
                });
            }
        }
    }

    /// A depth-1 value starts: note its kind under its key, and capture short scalars.
    fn begin_member(&mut self, kind: Kind, first: u8) {
        let member = Member { kind, raw: None };
        let given = match self.slot {
            Slot::Id => self.top.id.is_some().then_some("id"),
            Slot::Method => self.top.method.is_some().then_some("method"),
            Slot::Jsonrpc => self.top.jsonrpc.is_some().then_some("jsonrpc"),
            Slot::Params => self.top.params.is_some().then_some("params"),
            Slot::Response | Slot::Other => None,
        };
        self.top.repeated = self.top.repeated.or(given);
        match self.slot {
            Slot::Id => self.top.id = Some(member),
            Slot::Method => self.top.method = Some(member),
            Slot::Jsonrpc => self.top.jsonrpc = Some(member),
            Slot::Params => {
                self.top.params = Some(kind);
                self.in_params = true;
            }
            Slot::Response => self.top.response = true,
            Slot::Other => {}
        }
        if matches!(self.slot, Slot::Id | Slot::Method | Slot::Jsonrpc)
            && matches!(kind, Kind::String | Kind::Number)
        {
            self.capture = Some(vec![first]);
        }
    }

    fn close(&mut self, container: Container) {
        debug_assert_eq!(self.stack.last(), Some(&container));
        self.stack.pop();
        self.value_done();
    }

    fn value_done(&mut self) {
        match self.stack.len() {
            0 => self.expect = Expect::End,
            1 => {
                self.expect = Expect::CommaOrClose;
                self.end_member();
            }
            _ => self.expect = Expect::CommaOrClose,
        }
    }

    /// A depth-1 value ended: store its captured text.
    fn end_member(&mut self) {
        self.in_params = false;
        let raw = self
            .capture
            .take()
            .filter(|text| text.len() <= MAX_CAPTURE)
            .and_then(|text| String::from_utf8(text).ok());
        let member = match self.slot {
            Slot::Id => self.top.id.as_mut(),
            Slot::Method => self.top.method.as_mut(),
            Slot::Jsonrpc => self.top.jsonrpc.as_mut(),
            Slot::Params | Slot::Response | Slot::Other => None,
        };
        if let Some(member) = member {
            member.raw = raw;
        }
        self.slot = Slot::Other;
    }

    fn string_byte(&mut self, byte: u8, key: bool, escape: Escape, high_surrogate: bool) {
        let mut next_escape = Escape::None;
        let mut high = high_surrogate;
        match escape {
            Escape::Backslash => match byte {
                b'u' => {
                    next_escape = Escape::Hex { digits: 0, unit: 0 };
                }
                b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' if !high => {
                    self.no_key();
                }
                b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => {
                    self.fail(Fault::Surrogate);
                }
                _ => self.syntax("an escape character"),
            },
            Escape::Hex { digits, unit } => {
                let Some(value) = (byte as char).to_digit(16) else {
                    self.syntax("a hexadecimal digit");
                    return;
                };
                // Four hex digits fit in u16.
                let unit = unit.wrapping_mul(16).wrapping_add(value as u16);
                if digits < 3 {
                    next_escape = Escape::Hex {
                        digits: digits + 1,
                        unit,
                    };
                } else {
                    self.no_key();
                    let is_high = (0xD800..=0xDBFF).contains(&unit);
                    let is_low = (0xDC00..=0xDFFF).contains(&unit);
                    match (high, is_high, is_low) {
                        (true, _, true) => high = false,
                        (false, true, _) => high = true,
                        (false, false, false) => {}
                        _ => {
                            self.fail(Fault::Surrogate);
                            return;
                        }
                    }
                }
            }
            Escape::None => match byte {
                _ if high && byte != b'\\' => {
                    self.fail(Fault::Surrogate);
                    return;
                }
                b'"' => {
                    self.token = Token::None;
                    if key {
                        self.end_key();
                    } else {
                        self.value_done();
                    }
                    return;
                }
                b'\\' => next_escape = Escape::Backslash,
                0x00..=0x1F => {
                    self.syntax("no control character inside a string");
                    return;
                }
                _ => {
                    if key && let Some(name) = &mut self.key {
                        if name.len() < 8 {
                            name.push(byte);
                        } else {
                            self.key = None;
                        }
                    }
                }
            },
        }
        self.token = Token::String {
            key,
            escape: next_escape,
            high_surrogate: high,
        };
    }

    /// A key with an escape never names a slot.
    fn no_key(&mut self) {
        self.key = None;
    }

    fn end_key(&mut self) {
        self.expect = Expect::Colon;
        if self.stack.len() == 1 {
            self.slot = match self.key.take().as_deref() {
                Some(b"id") => Slot::Id,
                Some(b"method") => Slot::Method,
                Some(b"jsonrpc") => Slot::Jsonrpc,
                Some(b"params") => Slot::Params,
                Some(b"result" | b"error") => Slot::Response,
                _ => Slot::Other,
            };
        }
    }

    fn number_byte(&mut self, byte: u8, state: NumberState) {
        use NumberState::*;
        let next = match (state, byte) {
            (Minus, b'0') => Zero,
            (Minus | Int, b'1'..=b'9') | (Int, b'0') => Int,
            (Zero | Int, b'.') => Dot,
            (Dot | Fraction, b'0'..=b'9') => Fraction,
            (Zero | Int | Fraction, b'e' | b'E') => E,
            (E, b'+' | b'-') => ESign,
            (E | ESign | Exponent, b'0'..=b'9') => Exponent,
            _ => {
                self.syntax("a number");
                return;
            }
        };
        if self.number.len() <= MAX_NUMBER_LEN {
            self.number.push(byte);
        }
        self.token = Token::Number(next);
    }

    fn end_number(&mut self) {
        let Token::Number(state) = self.token else {
            return;
        };
        if !matches!(
            state,
            NumberState::Zero | NumberState::Int | NumberState::Fraction | NumberState::Exponent
        ) {
            self.syntax("a digit");
            return;
        }
        // The delimiter that ended the number was captured with it.
        if let Some(text) = &mut self.capture
            && text.len() <= MAX_CAPTURE
        {
            text.pop();
        }
        let finite = self.number.len() <= MAX_NUMBER_LEN
            && std::str::from_utf8(&self.number)
                .ok()
                .and_then(|text| text.parse::<f64>().ok())
                .is_some_and(f64::is_finite);
        if !finite {
            self.fail(Fault::Number);
            return;
        }
        self.token = Token::None;
        self.value_done();
    }
}

/// Checks a whole document.
pub fn check(bytes: &[u8], bounds: Bounds) -> Result<(), Fault> {
    let mut scanner = Scanner::new(bounds);
    scanner.feed(bytes);
    scanner.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    const BOUNDS: Bounds = Bounds {
        max_depth: 8,
        max_values: 100,
    };

    fn scan(text: &str) -> (Result<(), Fault>, Top) {
        let mut scanner = Scanner::new(BOUNDS);
        scanner.feed(text.as_bytes());
        let verdict = scanner.finish();
        (verdict, scanner.top().clone())
    }

    #[test]
    fn accepts_what_serde_json_accepts() {
        for text in [
            "0",
            "-0.5e+3",
            "  {\"a\": [1, 2.5, -3e-2, true, false, null, \"x\\n\\u00e9\"]} ",
            "\"\\ud83d\\ude00\"",
            "[]",
            "{}",
            "[[[]]]",
            "1e-400",
            "\"caf\u{e9}\"",
        ] {
            assert_eq!(check(text.as_bytes(), BOUNDS), Ok(()), "{text}");
            assert!(
                serde_json::from_str::<serde_json::Value>(text).is_ok(),
                "{text}"
            );
        }
    }

    #[test]
    fn refuses_syntax_errors_where_they_are() {
        for text in [
            "",
            "{",
            "[1,]",
            "{\"a\" 1}",
            "01",
            "1.",
            "-",
            "tru",
            "truex",
            "[1 2]",
            "\"\t\"",
            "{\"a\":1,}",
            "\"\\x\"",
            "1 2",
            "{]",
            "[}",
        ] {
            let verdict = check(text.as_bytes(), BOUNDS);
            assert!(
                matches!(verdict, Err(Fault::Syntax { .. })),
                "{text:?}: {verdict:?}"
            );
            assert!(
                serde_json::from_str::<serde_json::Value>(text).is_err(),
                "{text}"
            );
        }
    }

    #[test]
    fn refuses_json_that_serde_json_cannot_hold() {
        assert_eq!(check(b"1e400", BOUNDS), Err(Fault::Number));
        assert_eq!(check(b"[-1e309]", BOUNDS), Err(Fault::Number));
        assert_eq!(check("9".repeat(80).as_bytes(), BOUNDS), Err(Fault::Number));
        for text in [
            "\"\\ud800\"",
            "\"\\udc00\"",
            "\"\\ud800x\"",
            "\"\\ud800\\n\"",
            "\"\\ud800\\u0041\"",
        ] {
            assert_eq!(
                check(text.as_bytes(), BOUNDS),
                Err(Fault::Surrogate),
                "{text}"
            );
        }
    }

    #[test]
    fn bounds_depth_and_values() {
        assert_eq!(check(b"[[[[[[[[1]]]]]]]]", BOUNDS), Ok(()));
        assert_eq!(check(b"[[[[[[[[[1]]]]]]]]]", BOUNDS), Err(Fault::Depth(8)));
        let hundred = format!("[{}]", vec!["1"; 99].join(","));
        assert_eq!(check(hundred.as_bytes(), BOUNDS), Ok(()));
        let more = format!("[{}]", vec!["1"; 100].join(","));
        assert_eq!(check(more.as_bytes(), BOUNDS), Err(Fault::Values(100)));
    }

    #[test]
    fn picks_out_the_json_rpc_members() {
        let (verdict, top) = scan(
            r#"{"jsonrpc": "2.0", "id" : 42 , "method":"tools/call","params":{"id":"inner","n":[1]}}"#,
        );
        assert_eq!(verdict, Ok(()));
        assert_eq!(top.root, Some(Kind::Object));
        assert_eq!(top.id.unwrap().raw.as_deref(), Some("42"));
        assert_eq!(top.method.unwrap().raw.as_deref(), Some("\"tools/call\""));
        assert_eq!(top.jsonrpc.unwrap().raw.as_deref(), Some("\"2.0\""));
        assert_eq!(top.params, Some(Kind::Object));
        assert!(!top.response);

        let (_, top) = scan(r#"{"id":"a\"b","method":7,"params":"x"}"#);
        assert_eq!(top.id.unwrap().raw.as_deref(), Some(r#""a\"b""#));
        let method = top.method.unwrap();
        assert_eq!(
            (method.kind, method.raw.as_deref()),
            (Kind::Number, Some("7"))
        );
        assert_eq!(top.params, Some(Kind::String));

        let (_, top) = scan(r#"{"id":[1],"result":{}}"#);
        assert_eq!(
            top.id.unwrap(),
            Member {
                kind: Kind::Array,
                raw: None
            }
        );
        assert!(top.response);
    }

    #[test]
    fn keeps_the_id_read_before_a_fault() {
        let mut scanner = Scanner::new(BOUNDS);
        scanner.feed(br#"{"id":7,"method":"tools/call","params":{"a":1e999}}"#);
        assert_eq!(scanner.finish(), Err(Fault::Number));
        assert!(scanner.fault_in_params());
        assert_eq!(scanner.top().id.as_ref().unwrap().raw.as_deref(), Some("7"));

        let mut scanner = Scanner::new(BOUNDS);
        scanner.feed(br#"{"id":"abc","method":"x","params":{"a":"#);
        assert_eq!(
            scanner.top().id.as_ref().unwrap().raw.as_deref(),
            Some("\"abc\"")
        );
    }

    #[test]
    fn long_members_are_noted_but_not_kept() {
        let long = "x".repeat(MAX_CAPTURE);
        let (_, top) = scan(&format!(r#"{{"id":"{long}"}}"#));
        assert_eq!(top.id.unwrap().raw, None);
        let fits = "x".repeat(MAX_CAPTURE - 2);
        let (_, top) = scan(&format!(r#"{{"id":"{fits}"}}"#));
        assert_eq!(top.id.unwrap().raw.map(|raw| raw.len()), Some(MAX_CAPTURE));
    }
}
