//! Computed fields compiled to Rust: each expression is type-checked against the fields of its
//! type and written out as one Rust expression over `item` (the item's JSON) and `now` (Unix
//! seconds), built from the runtime's `computed` helpers. Every value is an `Option` (a missing
//! field or a null is `None`, and so is everything computed from it), and nothing panics: an
//! integer overflow or a division by zero is `None` too.

use proc_macro2::TokenStream;
use quote::quote;

use super::parse::{Binary, Expr, Function, Literal, Unary};
use crate::schema::ParamType;

/// The static type of a (sub-)expression, and the Rust type it is emitted as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ty {
    /// `Option<i64>`.
    Integer,
    /// `Option<f64>`.
    Number,
    /// `Option<String>`.
    Text,
    /// `Option<bool>`.
    Boolean,
    /// `Option<Value>` of an array.
    Array,
    /// `Option<Value>` of an object.
    Object,
    /// `Option<Value>` of a member below an object or array field, whose type is not declared.
    Any,
}

impl Ty {
    fn name(self) -> &'static str {
        match self {
            Self::Integer => "integer",
            Self::Number => "number",
            Self::Text => "string",
            Self::Boolean => "boolean",
            Self::Array => "array",
            Self::Object => "object",
            Self::Any => "a value of undeclared type",
        }
    }

    fn is_numeric(self) -> bool {
        matches!(self, Self::Integer | Self::Number)
    }

    fn of(kind: ParamType) -> Self {
        match kind {
            ParamType::String => Self::Text,
            ParamType::Integer => Self::Integer,
            ParamType::Number => Self::Number,
            ParamType::Boolean => Self::Boolean,
            ParamType::Array => Self::Array,
            ParamType::Object => Self::Object,
        }
    }
}

/// A compiled (sub-)expression.
struct Typed {
    code: TokenStream,
    ty: Ty,
}

/// What the fields of the type are, by name.
pub trait Fields {
    /// The declared type of the field `name`, if the type declares it.
    fn kind_of(&self, name: &str) -> Option<ParamType>;
    /// The declared names, for the message about an unknown one.
    fn names(&self) -> Vec<String>;
}

/// `expr` compiled for a computed field of type `declared` over `fields`: a Rust expression
/// of type `serde_json::Value`.
///
/// # Errors
///
/// A sentence saying what does not fit: an unknown field or function arity, types that do not
/// mix, a result of another type than `declared`.
pub fn compile(
    expr: &Expr,
    declared: ParamType,
    fields: &dyn Fields,
) -> Result<TokenStream, String> {
    let typed = emit(expr, fields)?;
    let fits = match declared {
        ParamType::String => typed.ty == Ty::Text,
        ParamType::Integer => typed.ty == Ty::Integer,
        ParamType::Number => typed.ty.is_numeric(),
        ParamType::Boolean => typed.ty == Ty::Boolean,
        ParamType::Array | ParamType::Object => false,
    };
    let code = typed.code;
    let code = match (typed.ty, declared) {
        (Ty::Any, ParamType::String) => quote! { ev::text(#code) },
        (Ty::Any, ParamType::Integer) => quote! { ev::int(#code) },
        (Ty::Any, ParamType::Number) => quote! { ev::num(#code) },
        (Ty::Any, ParamType::Boolean) => quote! { ev::boolean(#code) },
        (Ty::Integer, ParamType::Number) => quote! { ev::float(#code) },
        _ if fits => code,
        _ => {
            let fix = match (typed.ty, declared) {
                (Ty::Number, ParamType::Integer) => {
                    "; round(...) makes an integer of it, or declare the field `number`"
                }
                _ => "",
            };
            return Err(format!(
                "the expression gives {}, and the field is declared `{}`{fix}",
                describe(typed.ty),
                declared.as_str()
            ));
        }
    };
    Ok(quote! { ev::json(#code) })
}

fn describe(ty: Ty) -> String {
    match ty {
        Ty::Any => ty.name().to_owned(),
        _ => format!("`{}`", ty.name()),
    }
}

fn emit(expr: &Expr, fields: &dyn Fields) -> Result<Typed, String> {
    match expr {
        Expr::Literal(literal) => Ok(match literal {
            Literal::Integer(value) => typed(quote! { Some(#value) }, Ty::Integer),
            Literal::Number(value) => typed(quote! { Some(#value) }, Ty::Number),
            Literal::Text(text) => typed(quote! { Some(String::from(#text)) }, Ty::Text),
            Literal::Boolean(value) => typed(quote! { Some(#value) }, Ty::Boolean),
        }),
        Expr::Field(path) => field(path, fields),
        Expr::Unary(op, operand) => {
            let operand = emit(operand, fields)?;
            match (op, operand.ty) {
                (Unary::Not, Ty::Boolean | Ty::Any) => {
                    let value = as_boolean(operand);
                    Ok(typed(quote! { #value.map(|value| !value) }, Ty::Boolean))
                }
                (Unary::Negate, Ty::Integer) => {
                    let value = operand.code;
                    Ok(typed(
                        quote! { #value.and_then(i64::checked_neg) },
                        Ty::Integer,
                    ))
                }
                (Unary::Negate, Ty::Number | Ty::Any) => {
                    let value = as_number(operand);
                    Ok(typed(quote! { #value.map(|value| -value) }, Ty::Number))
                }
                (Unary::Not, ty) => Err(format!("`!` takes a boolean, not {}", describe(ty))),
                (Unary::Negate, ty) => Err(format!("`-` takes a number, not {}", describe(ty))),
            }
        }
        Expr::Binary(op, left, right) => binary(*op, emit(left, fields)?, emit(right, fields)?),
        Expr::Call(function, args) => call(*function, args, fields),
    }
}

fn typed(code: TokenStream, ty: Ty) -> Typed {
    Typed { code, ty }
}

fn field(path: &[String], fields: &dyn Fields) -> Result<Typed, String> {
    let first = &path[0];
    let Some(kind) = fields.kind_of(first) else {
        let mut names = fields.names();
        names.sort();
        let likely = crate::validate::nearest(first, names.iter().map(String::as_str))
            .map(|name| format!(" (did you mean `{name}`?)"))
            .unwrap_or_default();
        return Err(format!(
            "`{first}` is no field of the type{likely}; its fields are {}",
            if names.is_empty() {
                "not declared (give them under `response.fields`)".to_owned()
            } else {
                names.join(", ")
            }
        ));
    };
    let ty = Ty::of(kind);
    if path.len() > 1 && !matches!(ty, Ty::Array | Ty::Object) {
        return Err(format!(
            "`{}` goes into `{first}`, which is `{}`, not an object or array",
            path.join("."),
            kind.as_str()
        ));
    }
    let value = quote! { ev::field(item, &[#(#path),*]) };
    Ok(match (path.len(), ty) {
        (1, Ty::Integer) => typed(quote! { ev::int(#value) }, Ty::Integer),
        (1, Ty::Number) => typed(quote! { ev::num(#value) }, Ty::Number),
        (1, Ty::Text) => typed(quote! { ev::text(#value) }, Ty::Text),
        (1, Ty::Boolean) => typed(quote! { ev::boolean(#value) }, Ty::Boolean),
        (1, ty) => typed(value, ty),
        _ => typed(value, Ty::Any),
    })
}

fn as_number(value: Typed) -> TokenStream {
    let code = value.code;
    match value.ty {
        Ty::Integer => quote! { ev::float(#code) },
        Ty::Any => quote! { ev::num(#code) },
        _ => code,
    }
}

fn as_text(value: Typed) -> TokenStream {
    let code = value.code;
    match value.ty {
        Ty::Any => quote! { ev::text(#code) },
        _ => code,
    }
}

fn as_boolean(value: Typed) -> TokenStream {
    let code = value.code;
    match value.ty {
        Ty::Any => quote! { ev::boolean(#code) },
        _ => code,
    }
}

/// The type two operands of a comparison are compared as, if they mix.
fn common(left: Ty, right: Ty) -> Option<Ty> {
    match (left, right) {
        (Ty::Integer, Ty::Integer) => Some(Ty::Integer),
        (a, b) if a.is_numeric() && b.is_numeric() => Some(Ty::Number),
        (Ty::Any, Ty::Any) => Some(Ty::Any),
        (Ty::Any, other) | (other, Ty::Any) => Some(other),
        (a, b) if a == b => Some(a),
        _ => None,
    }
}

fn convert(value: Typed, to: Ty) -> TokenStream {
    match to {
        Ty::Number => as_number(value),
        Ty::Text => as_text(value),
        Ty::Boolean => as_boolean(value),
        Ty::Integer if value.ty == Ty::Any => {
            let code = value.code;
            quote! { ev::int(#code) }
        }
        _ => value.code,
    }
}

fn binary(op: Binary, left: Typed, right: Typed) -> Result<Typed, String> {
    let symbol = op.symbol();
    let mismatch = |left: Ty, right: Ty| {
        format!(
            "`{symbol}` mixes {} and {}",
            describe(left),
            describe(right)
        )
    };
    match op {
        Binary::And | Binary::Or => {
            for ty in [left.ty, right.ty] {
                if !matches!(ty, Ty::Boolean | Ty::Any) {
                    return Err(format!("`{symbol}` takes booleans, not {}", describe(ty)));
                }
            }
            let (a, b) = (as_boolean(left), as_boolean(right));
            Ok(typed(
                if op == Binary::And {
                    quote! { ev::and(#a, #b) }
                } else {
                    quote! { ev::or(#a, #b) }
                },
                Ty::Boolean,
            ))
        }
        Binary::Eq | Binary::Ne | Binary::Lt | Binary::Le | Binary::Gt | Binary::Ge => {
            let (lt, rt) = (left.ty, right.ty);
            let Some(ty) = common(lt, rt) else {
                return Err(mismatch(lt, rt));
            };
            let ordered = !matches!(op, Binary::Eq | Binary::Ne);
            if ordered && !matches!(ty, Ty::Integer | Ty::Number | Ty::Text | Ty::Any) {
                return Err(format!(
                    "`{symbol}` orders numbers or text, not {}",
                    describe(ty)
                ));
            }
            // Values of undeclared type are ordered as numbers.
            let ty = if ordered && ty == Ty::Any {
                Ty::Number
            } else {
                ty
            };
            let (a, b) = (convert(left, ty), convert(right, ty));
            let compare = match op {
                Binary::Eq => quote! { |a, b| a == b },
                Binary::Ne => quote! { |a, b| a != b },
                Binary::Lt => quote! { |a, b| a < b },
                Binary::Le => quote! { |a, b| a <= b },
                Binary::Gt => quote! { |a, b| a > b },
                _ => quote! { |a, b| a >= b },
            };
            Ok(typed(
                quote! { ev::zip_with(#a, #b, #compare) },
                Ty::Boolean,
            ))
        }
        Binary::Add | Binary::Sub | Binary::Mul | Binary::Div => {
            let (lt, rt) = (left.ty, right.ty);
            let numeric = |ty: Ty| ty.is_numeric() || ty == Ty::Any;
            if !numeric(lt) || !numeric(rt) {
                let hint = if op == Binary::Add && (lt == Ty::Text || rt == Ty::Text) {
                    "; join text with concat(a, b)"
                } else {
                    ""
                };
                return Err(format!("{}{hint}", mismatch(lt, rt)).replacen(
                    "mixes",
                    "takes numbers, and here mixes",
                    1,
                ));
            }
            if op != Binary::Div && lt == Ty::Integer && rt == Ty::Integer {
                let (a, b) = (left.code, right.code);
                let checked = match op {
                    Binary::Add => quote! { i64::checked_add },
                    Binary::Sub => quote! { i64::checked_sub },
                    _ => quote! { i64::checked_mul },
                };
                return Ok(typed(quote! { ev::checked(#a, #b, #checked) }, Ty::Integer));
            }
            let (a, b) = (as_number(left), as_number(right));
            Ok(typed(
                match op {
                    Binary::Add => quote! { ev::zip_with(#a, #b, |a, b| a + b) },
                    Binary::Sub => quote! { ev::zip_with(#a, #b, |a, b| a - b) },
                    Binary::Mul => quote! { ev::zip_with(#a, #b, |a, b| a * b) },
                    _ => quote! { ev::divide(#a, #b) },
                },
                Ty::Number,
            ))
        }
    }
}

fn call(function: Function, args: &[Expr], fields: &dyn Fields) -> Result<Typed, String> {
    let name = function.name();
    let arity = match function {
        Function::Concat => None,
        Function::DaysBetween | Function::Coalesce => Some(2),
        _ => Some(1),
    };
    match arity {
        Some(arity) if args.len() != arity => {
            return Err(format!(
                "`{name}` takes {arity} argument{}, found {}",
                if arity == 1 { "" } else { "s" },
                args.len()
            ));
        }
        None if args.is_empty() => return Err(format!("`{name}` takes at least one argument")),
        _ => {}
    }
    let mut args = args
        .iter()
        .map(|arg| emit(arg, fields))
        .collect::<Result<Vec<_>, _>>()?;
    let wrong = |ty: Ty, wanted: &str| format!("`{name}` takes {wanted}, not {}", describe(ty));
    let text_arg = |value: Typed| -> Result<TokenStream, String> {
        match value.ty {
            Ty::Text | Ty::Any => Ok(as_text(value)),
            ty => Err(wrong(ty, "text")),
        }
    };
    match function {
        Function::Len => {
            let value = args.remove(0);
            let code = value.code;
            match value.ty {
                Ty::Text => Ok(typed(quote! { ev::text_len(#code) }, Ty::Integer)),
                Ty::Array | Ty::Any => Ok(typed(quote! { ev::len(#code) }, Ty::Integer)),
                ty => Err(wrong(ty, "an array or text")),
            }
        }
        Function::DaysSince | Function::HoursSince => {
            let instant = text_arg(args.remove(0))?;
            Ok(if function == Function::DaysSince {
                typed(quote! { ev::days_since(#instant, now) }, Ty::Integer)
            } else {
                typed(quote! { ev::hours_since(#instant, now) }, Ty::Number)
            })
        }
        Function::DaysBetween => {
            let to = text_arg(args.remove(1))?;
            let from = text_arg(args.remove(0))?;
            Ok(typed(quote! { ev::days_between(#from, #to) }, Ty::Integer))
        }
        Function::Present => {
            let value = args.remove(0);
            let code = value.code;
            Ok(typed(quote! { Some(ev::present(&#code)) }, Ty::Boolean))
        }
        Function::Concat => {
            let parts = args
                .into_iter()
                .map(|value| match value.ty {
                    Ty::Text => Ok(value.code),
                    Ty::Integer | Ty::Number | Ty::Boolean => {
                        let code = value.code;
                        Ok(quote! { #code.map(|value| value.to_string()) })
                    }
                    Ty::Any => Ok(as_text(value)),
                    ty => Err(wrong(ty, "text, numbers or booleans")),
                })
                .collect::<Result<Vec<_>, _>>()?;
            Ok(typed(quote! { ev::concat([#(#parts),*]) }, Ty::Text))
        }
        Function::Lower | Function::Upper => {
            let text = text_arg(args.remove(0))?;
            Ok(typed(
                if function == Function::Lower {
                    quote! { #text.map(|text| text.to_lowercase()) }
                } else {
                    quote! { #text.map(|text| text.to_uppercase()) }
                },
                Ty::Text,
            ))
        }
        Function::Round => {
            let value = args.remove(0);
            match value.ty {
                Ty::Integer => Ok(value),
                Ty::Number | Ty::Any => {
                    let number = as_number(value);
                    Ok(typed(quote! { ev::round(#number) }, Ty::Integer))
                }
                ty => Err(wrong(ty, "a number")),
            }
        }
        Function::Coalesce => {
            let fallback = args.remove(1);
            let first = args.remove(0);
            let Some(ty) = common(first.ty, fallback.ty) else {
                return Err(format!(
                    "`coalesce` mixes {} and {}",
                    describe(first.ty),
                    describe(fallback.ty)
                ));
            };
            let (a, b) = (convert(first, ty), convert(fallback, ty));
            Ok(typed(quote! { #a.or(#b) }, ty))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::parse::parse;
    use super::*;

    struct Issue;

    impl Fields for Issue {
        fn kind_of(&self, name: &str) -> Option<ParamType> {
            match name {
                "title" | "created_at" | "state" => Some(ParamType::String),
                "comments" | "number" => Some(ParamType::Integer),
                "labels" => Some(ParamType::Array),
                "user" => Some(ParamType::Object),
                "locked" => Some(ParamType::Boolean),
                _ => None,
            }
        }

        fn names(&self) -> Vec<String> {
            ["title", "comments"].map(str::to_owned).to_vec()
        }
    }

    fn compiled(expr: &str, kind: ParamType) -> Result<String, String> {
        compile(&parse(expr).expect("parses"), kind, &Issue).map(|code| code.to_string())
    }

    #[test]
    fn well_typed_expressions_compile() {
        for (expr, kind) in [
            ("days_since(created_at)", ParamType::Integer),
            ("days_since(created_at) > 30 && !locked", ParamType::Boolean),
            ("len(labels)", ParamType::Integer),
            ("comments * 2 + 1", ParamType::Integer),
            ("comments / 2", ParamType::Number),
            ("len(labels)", ParamType::Number),
            ("concat(user.login, '#', number)", ParamType::String),
            ("user.login", ParamType::String),
            ("present(user) && state == 'open'", ParamType::Boolean),
            ("coalesce(comments, 0) >= 1", ParamType::Boolean),
            ("round(hours_since(created_at))", ParamType::Integer),
            ("lower(title) == 'bug'", ParamType::Boolean),
        ] {
            let code = compiled(expr, kind).unwrap_or_else(|e| panic!("{expr}: {e}"));
            assert!(code.starts_with("ev :: json"), "{expr}: {code}");
        }
    }

    #[test]
    fn ill_typed_expressions_say_why() {
        for (expr, kind, says) in [
            (
                "age + 1",
                ParamType::Integer,
                "`age` is no field of the type; its fields are comments, title",
            ),
            (
                "title + 1",
                ParamType::Integer,
                "`+` takes numbers, and here mixes `string` and `integer`; join text with concat(a, b)",
            ),
            (
                "comments == 'x'",
                ParamType::Boolean,
                "`==` mixes `integer` and `string`",
            ),
            (
                "len(comments)",
                ParamType::Integer,
                "`len` takes an array or text, not `integer`",
            ),
            (
                "comments / 2",
                ParamType::Integer,
                "the expression gives `number`, and the field is declared `integer`; round(...) makes an integer of it, or declare the field `number`",
            ),
            (
                "comment + 1",
                ParamType::Integer,
                "`comment` is no field of the type (did you mean `comments`?); its fields are comments, title",
            ),
            (
                "days_between(created_at)",
                ParamType::Integer,
                "`days_between` takes 2 arguments, found 1",
            ),
            (
                "title.length",
                ParamType::Integer,
                "`title.length` goes into `title`, which is `string`, not an object or array",
            ),
            (
                "locked < true",
                ParamType::Boolean,
                "`<` orders numbers or text, not `boolean`",
            ),
            (
                "labels",
                ParamType::Array,
                "the expression gives `array`, and the field is declared `array`",
            ),
        ] {
            assert_eq!(compiled(expr, kind).unwrap_err(), says, "{expr}");
        }
    }
}
