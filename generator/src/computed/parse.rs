//! The expression language of computed fields, read into a tree.
//!
//! ```text
//! expr    := or
//! or      := and ("||" and)*
//! and     := compare ("&&" compare)*
//! compare := sum (("==" | "!=" | "<" | "<=" | ">" | ">=") sum)?
//! sum     := product (("+" | "-") product)*
//! product := unary (("*" | "/") unary)*
//! unary   := ("!" | "-") unary | atom
//! atom    := number | 'text' | "text" | true | false | path | name "(" args ")" | "(" expr ")"
//! path    := name ("." name)*
//! ```

use std::fmt;

/// Longest expression read: a computed field is a small formula, not a program.
pub const MAX_EXPR_BYTES: usize = 1024;
/// Deepest nesting read.
const MAX_DEPTH: usize = 32;

/// A literal value.
#[derive(Debug, Clone, PartialEq)]
pub enum Literal {
    /// A whole number.
    Integer(i64),
    /// A number with a fraction.
    Number(f64),
    /// Text.
    Text(String),
    /// `true` or `false`.
    Boolean(bool),
}

/// A function the language knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Function {
    /// `len(x)`: the elements of an array, the characters of text.
    Len,
    /// `days_since(t)`: whole days from an instant to now.
    DaysSince,
    /// `hours_since(t)`: hours from an instant to now.
    HoursSince,
    /// `days_between(a, b)`: whole days from `a` to `b`.
    DaysBetween,
    /// `present(x)`: whether `x` is there and not null.
    Present,
    /// `concat(a, b, ...)`: text joined.
    Concat,
    /// `lower(s)`.
    Lower,
    /// `upper(s)`.
    Upper,
    /// `round(n)`: the nearest whole number.
    Round,
    /// `coalesce(a, b)`: `a`, or `b` where `a` is null.
    Coalesce,
}

impl Function {
    /// Every function, with its name.
    pub const ALL: &'static [(&'static str, Function)] = &[
        ("len", Self::Len),
        ("days_since", Self::DaysSince),
        ("hours_since", Self::HoursSince),
        ("days_between", Self::DaysBetween),
        ("present", Self::Present),
        ("concat", Self::Concat),
        ("lower", Self::Lower),
        ("upper", Self::Upper),
        ("round", Self::Round),
        ("coalesce", Self::Coalesce),
    ];

    fn named(name: &str) -> Option<Self> {
        Self::ALL
            .iter()
            .find(|(known, _)| *known == name)
            .map(|(_, function)| *function)
    }

    /// Its name as written.
    pub fn name(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(_, function)| *function == self)
            .map(|(name, _)| *name)
            .expect("every function is listed")
    }
}

/// A unary operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unary {
    /// `!`.
    Not,
    /// `-`.
    Negate,
}

/// A binary operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Binary {
    /// `||`.
    Or,
    /// `&&`.
    And,
    /// `==`.
    Eq,
    /// `!=`.
    Ne,
    /// `<`.
    Lt,
    /// `<=`.
    Le,
    /// `>`.
    Gt,
    /// `>=`.
    Ge,
    /// `+`.
    Add,
    /// `-`.
    Sub,
    /// `*`.
    Mul,
    /// `/`.
    Div,
}

impl Binary {
    /// How it is written.
    pub fn symbol(self) -> &'static str {
        match self {
            Self::Or => "||",
            Self::And => "&&",
            Self::Eq => "==",
            Self::Ne => "!=",
            Self::Lt => "<",
            Self::Le => "<=",
            Self::Gt => ">",
            Self::Ge => ">=",
            Self::Add => "+",
            Self::Sub => "-",
            Self::Mul => "*",
            Self::Div => "/",
        }
    }
}

/// An expression.
#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    /// A literal.
    Literal(Literal),
    /// A field of the item, by its dot path.
    Field(Vec<String>),
    /// `!x`, `-x`.
    Unary(Unary, Box<Expr>),
    /// `a op b`.
    Binary(Binary, Box<Expr>, Box<Expr>),
    /// `f(args)`.
    Call(Function, Vec<Expr>),
}

/// Why an expression could not be read: what, and at which byte.
#[derive(Debug, Clone, PartialEq)]
pub struct ParseError {
    /// What is wrong.
    pub message: String,
    /// Where, as a byte offset into the expression.
    pub at: usize,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (at character {})", self.message, self.at + 1)
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Number(String),
    Text(String),
    Name(String),
    Symbol(&'static str),
}

const SYMBOLS: &[&str] = &[
    "||", "&&", "==", "!=", "<=", ">=", "<", ">", "+", "-", "*", "/", "!", "(", ")", ",", ".",
];

fn tokens(text: &str) -> Result<Vec<(Token, usize)>, ParseError> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let byte = bytes[at];
        if byte.is_ascii_whitespace() {
            at += 1;
        } else if byte.is_ascii_digit() {
            let start = at;
            while at < bytes.len() && (bytes[at].is_ascii_digit() || bytes[at] == b'.') {
                at += 1;
            }
            out.push((Token::Number(text[start..at].to_owned()), start));
        } else if byte.is_ascii_alphabetic() || byte == b'_' {
            let start = at;
            while at < bytes.len() && (bytes[at].is_ascii_alphanumeric() || bytes[at] == b'_') {
                at += 1;
            }
            out.push((Token::Name(text[start..at].to_owned()), start));
        } else if byte == b'\'' || byte == b'"' {
            let start = at;
            let end = text[at + 1..]
                .find(byte as char)
                .ok_or_else(|| ParseError {
                    message: "text that is never closed".to_owned(),
                    at: start,
                })?;
            out.push((Token::Text(text[at + 1..at + 1 + end].to_owned()), start));
            at += end + 2;
        } else if let Some(symbol) = SYMBOLS
            .iter()
            .find(|symbol| text[at..].starts_with(**symbol))
        {
            out.push((Token::Symbol(symbol), at));
            at += symbol.len();
        } else {
            let found = text[at..].chars().next().unwrap_or_default();
            return Err(ParseError {
                message: format!("`{found}` is not part of the language"),
                at,
            });
        }
    }
    Ok(out)
}

/// Reads `text` as an expression.
///
/// # Errors
///
/// What is wrong and where: a character the language has no use for, an unclosed text or
/// parenthesis, an unknown function, a number out of range, an expression too long or deep.
pub fn parse(text: &str) -> Result<Expr, ParseError> {
    if text.len() > MAX_EXPR_BYTES {
        return Err(ParseError {
            message: format!("an expression longer than {MAX_EXPR_BYTES} bytes"),
            at: MAX_EXPR_BYTES,
        });
    }
    let mut parser = Parser {
        tokens: tokens(text)?,
        next: 0,
        end: text.len(),
        depth: 0,
    };
    let expr = parser.or()?;
    match parser.peek() {
        None => Ok(expr),
        Some((token, at)) => Err(ParseError {
            message: format!("{} where the expression should end", describe(token)),
            at,
        }),
    }
}

fn describe(token: &Token) -> String {
    match token {
        Token::Number(number) => format!("the number `{number}`"),
        Token::Text(text) => format!("the text '{text}'"),
        Token::Name(name) => format!("`{name}`"),
        Token::Symbol(symbol) => format!("`{symbol}`"),
    }
}

struct Parser {
    tokens: Vec<(Token, usize)>,
    next: usize,
    end: usize,
    depth: usize,
}

impl Parser {
    fn peek(&self) -> Option<(&Token, usize)> {
        self.tokens.get(self.next).map(|(token, at)| (token, *at))
    }

    fn at(&self) -> usize {
        self.peek().map_or(self.end, |(_, at)| at)
    }

    fn eat(&mut self, symbol: &str) -> bool {
        let found = matches!(self.peek(), Some((Token::Symbol(s), _)) if *s == symbol);
        if found {
            self.next += 1;
        }
        found
    }

    fn expect(&mut self, symbol: &str) -> Result<(), ParseError> {
        if self.eat(symbol) {
            return Ok(());
        }
        Err(ParseError {
            message: match self.peek() {
                Some((token, _)) => format!("`{symbol}` expected, found {}", describe(token)),
                None => format!("`{symbol}` expected at the end"),
            },
            at: self.at(),
        })
    }

    fn binary(
        &mut self,
        operators: &[(&'static str, Binary)],
        operand: fn(&mut Self) -> Result<Expr, ParseError>,
        repeat: bool,
    ) -> Result<Expr, ParseError> {
        let mut left = operand(self)?;
        loop {
            let Some(&(_, op)) = operators.iter().find(|(symbol, _)| self.eat(symbol)) else {
                return Ok(left);
            };
            let right = operand(self)?;
            left = Expr::Binary(op, Box::new(left), Box::new(right));
            if !repeat {
                return Ok(left);
            }
        }
    }

    fn or(&mut self) -> Result<Expr, ParseError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(ParseError {
                message: format!("an expression nested deeper than {MAX_DEPTH} levels"),
                at: self.at(),
            });
        }
        let expr = self.binary(&[("||", Binary::Or)], Self::and, true);
        self.depth -= 1;
        expr
    }

    fn and(&mut self) -> Result<Expr, ParseError> {
        self.binary(&[("&&", Binary::And)], Self::compare, true)
    }

    fn compare(&mut self) -> Result<Expr, ParseError> {
        self.binary(
            &[
                ("==", Binary::Eq),
                ("!=", Binary::Ne),
                ("<=", Binary::Le),
                (">=", Binary::Ge),
                ("<", Binary::Lt),
                (">", Binary::Gt),
            ],
            Self::sum,
            false,
        )
    }

    fn sum(&mut self) -> Result<Expr, ParseError> {
        self.binary(
            &[("+", Binary::Add), ("-", Binary::Sub)],
            Self::product,
            true,
        )
    }

    fn product(&mut self) -> Result<Expr, ParseError> {
        self.binary(&[("*", Binary::Mul), ("/", Binary::Div)], Self::unary, true)
    }

    fn unary(&mut self) -> Result<Expr, ParseError> {
        if self.eat("!") {
            return Ok(Expr::Unary(Unary::Not, Box::new(self.nested_unary()?)));
        }
        if self.eat("-") {
            return Ok(Expr::Unary(Unary::Negate, Box::new(self.nested_unary()?)));
        }
        self.atom()
    }

    fn nested_unary(&mut self) -> Result<Expr, ParseError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(ParseError {
                message: format!("an expression nested deeper than {MAX_DEPTH} levels"),
                at: self.at(),
            });
        }
        let expr = self.unary();
        self.depth -= 1;
        expr
    }

    fn atom(&mut self) -> Result<Expr, ParseError> {
        let at = self.at();
        let Some((token, _)) = self.peek() else {
            return Err(ParseError {
                message: "the expression ends where a value should follow".to_owned(),
                at,
            });
        };
        let token = token.clone();
        self.next += 1;
        match token {
            Token::Number(text) => number(&text, at),
            Token::Text(text) => Ok(Expr::Literal(Literal::Text(text))),
            Token::Symbol("(") => {
                let expr = self.or()?;
                self.expect(")")?;
                Ok(expr)
            }
            Token::Name(name) if name == "true" || name == "false" => {
                Ok(Expr::Literal(Literal::Boolean(name == "true")))
            }
            Token::Name(name) if self.eat("(") => {
                let function = Function::named(&name).ok_or_else(|| ParseError {
                    message: format!(
                        "`{name}` is not a function; the functions are {}",
                        Function::ALL
                            .iter()
                            .map(|(name, _)| *name)
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                    at,
                })?;
                let mut args = Vec::new();
                if !self.eat(")") {
                    loop {
                        args.push(self.or()?);
                        if self.eat(")") {
                            break;
                        }
                        if !self.eat(",") {
                            return Err(ParseError {
                                message: match self.peek() {
                                    Some((token, _)) => format!(
                                        "`,` or `)` expected after an argument of `{name}`, found {}",
                                        describe(token)
                                    ),
                                    None => format!("`)` expected to close `{name}(`"),
                                },
                                at: self.at(),
                            });
                        }
                    }
                }
                Ok(Expr::Call(function, args))
            }
            Token::Name(name) => {
                let mut path = vec![name];
                while self.eat(".") {
                    match self.peek() {
                        Some((Token::Name(member), _)) => {
                            path.push(member.clone());
                            self.next += 1;
                        }
                        _ => {
                            return Err(ParseError {
                                message: "a field name expected after `.`".to_owned(),
                                at: self.at(),
                            });
                        }
                    }
                }
                Ok(Expr::Field(path))
            }
            Token::Symbol(symbol) => Err(ParseError {
                message: format!("`{symbol}` where a value should be"),
                at,
            }),
        }
    }
}

fn number(text: &str, at: usize) -> Result<Expr, ParseError> {
    let out_of_range = || ParseError {
        message: format!("`{text}` is not a number the language can hold"),
        at,
    };
    if text.contains('.') {
        let value: f64 = text.parse().map_err(|_| out_of_range())?;
        if !value.is_finite() {
            return Err(out_of_range());
        }
        Ok(Expr::Literal(Literal::Number(value)))
    } else {
        Ok(Expr::Literal(Literal::Integer(
            text.parse().map_err(|_| out_of_range())?,
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field(path: &str) -> Box<Expr> {
        Box::new(Expr::Field(path.split('.').map(str::to_owned).collect()))
    }

    #[test]
    fn precedence_and_calls() {
        let expr = parse("days_since(updated_at) > 30 && !closed || len(labels) == 0").unwrap();
        let Expr::Binary(Binary::Or, left, right) = expr else {
            panic!("|| binds loosest")
        };
        assert!(matches!(*left, Expr::Binary(Binary::And, _, _)));
        assert!(matches!(*right, Expr::Binary(Binary::Eq, _, _)));
        assert_eq!(
            parse("user.login").unwrap(),
            Expr::Field(vec!["user".into(), "login".into()])
        );
        assert_eq!(
            parse("1 + 2 * x").unwrap(),
            Expr::Binary(
                Binary::Add,
                Box::new(Expr::Literal(Literal::Integer(1))),
                Box::new(Expr::Binary(
                    Binary::Mul,
                    Box::new(Expr::Literal(Literal::Integer(2))),
                    field("x")
                ))
            )
        );
        assert_eq!(
            parse("concat(a, '#', 'b')").unwrap(),
            Expr::Call(
                Function::Concat,
                vec![
                    *field("a"),
                    Expr::Literal(Literal::Text("#".into())),
                    Expr::Literal(Literal::Text("b".into()))
                ]
            )
        );
    }

    #[test]
    fn errors_say_what_and_where() {
        let error = parse("len(labels").unwrap_err();
        assert_eq!(error.message, "`)` expected to close `len(`");
        let error = parse("a ? b").unwrap_err();
        assert_eq!(
            (error.message.as_str(), error.at),
            ("`?` is not part of the language", 2)
        );
        assert!(
            parse("median(x)")
                .unwrap_err()
                .message
                .contains("not a function")
        );
        assert!(parse("'open").unwrap_err().message.contains("never closed"));
        assert!(parse("99999999999999999999").is_err());
        assert!(parse(&"(".repeat(100)).is_err());
        assert!(parse(&"!".repeat(100)).is_err());
        assert!(parse("a b").unwrap_err().message.contains("should end"));
        assert!(parse("").is_err());
    }
}
