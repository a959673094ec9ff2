//! What the gate asks the person at the client, and what comes back. The protocol layer
//! carries a [`Form`] as an MCP elicitation: at once on a session (`elicitation/create`), or
//! as an `input_required` answer on a stateless request, whose retry brings a [`Retry`].

use serde_json::{Map, Value, json};

/// The key of the one input request an `input_required` answer carries.
pub const INPUT_KEY: &str = "aql_confirmation";

/// What the person is asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    /// A yes to run the operation shown.
    Confirm,
    /// The verification code sent to them out of band.
    Code,
}

impl Field {
    fn name(self) -> &'static str {
        match self {
            Self::Confirm => "confirm",
            Self::Code => "code",
        }
    }
}

/// One form for the person: the message the client shows and the field it asks for.
#[derive(Debug, Clone, PartialEq)]
pub struct Form {
    /// What the operation would do, why it is asked, and what to answer.
    pub message: String,
    /// What the form asks for.
    pub field: Field,
}

impl Form {
    /// The form's `requestedSchema`: an object with one required property.
    pub fn requested_schema(&self) -> Value {
        let property = match self.field {
            Field::Confirm => json!({
                "type": "boolean",
                "title": "Run this operation",
                "description": "Check to let the operation run once, exactly as shown.",
                "default": false,
            }),
            Field::Code => json!({
                "type": "string",
                "title": "Verification code",
                "description": "The code sent to you out of band. Never share it with the assistant.",
                "minLength": 1,
                "maxLength": 64,
            }),
        };
        let name = self.field.name();
        json!({
            "type": "object",
            "properties": {name: property},
            "required": [name],
        })
    }

    /// Reads the person's answer from an elicitation result (`{"action", "content"}`).
    pub fn answer(&self, result: &Value) -> Answer {
        let content = result.get("content").and_then(Value::as_object);
        match result.get("action").and_then(Value::as_str) {
            Some("accept") => self.accepted(content),
            Some("cancel") => Answer::Cancelled,
            // A declined form, and anything the client should not have sent.
            _ => Answer::Declined,
        }
    }

    fn accepted(&self, content: Option<&Map<String, Value>>) -> Answer {
        let value = content.and_then(|content| content.get(self.field.name()));
        match (self.field, value) {
            (Field::Confirm, Some(Value::Bool(true))) => Answer::Confirmed,
            (Field::Code, Some(Value::String(code))) if !code.trim().is_empty() => {
                Answer::Code(code.clone())
            }
            _ => Answer::Declined,
        }
    }
}

/// The person's answer.
#[derive(Clone, PartialEq, Eq)]
pub enum Answer {
    /// Yes, run it.
    Confirmed,
    /// The code they typed.
    Code(String),
    /// They said no (or accepted without checking the box).
    Declined,
    /// They dismissed the form.
    Cancelled,
    /// No answer in time, or the client failed to ask.
    Unanswered,
}

impl std::fmt::Debug for Answer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Confirmed => "Confirmed",
            Self::Code(_) => "Code([REDACTED])",
            Self::Declined => "Declined",
            Self::Cancelled => "Cancelled",
            Self::Unanswered => "Unanswered",
        })
    }
}

/// How the client lets the gate reach its user for this call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reach {
    /// It cannot show a form: no elicitation declared, or an item of a stateless batch.
    Unreachable,
    /// A session: the form is sent now and the call waits for the answer.
    Now,
    /// A stateless request: the call answers `input_required`; the retry brings the answer.
    Later,
}

/// What a stateless retry brings back: the sealed `requestState` and the client's answers.
#[derive(Debug, Clone, PartialEq)]
pub struct Retry {
    /// The `requestState` the server sealed.
    pub state: String,
    /// `inputResponses`, by input request key.
    pub responses: Map<String, Value>,
}

impl Retry {
    /// The elicitation result answering this server's one input request.
    pub fn response(&self) -> Option<&Value> {
        self.responses.get(INPUT_KEY)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_read_from_elicitation_results() {
        let confirm = Form {
            message: "m".into(),
            field: Field::Confirm,
        };
        let yes = json!({"action": "accept", "content": {"confirm": true}});
        assert_eq!(confirm.answer(&yes), Answer::Confirmed);
        let unchecked = json!({"action": "accept", "content": {"confirm": false}});
        assert_eq!(confirm.answer(&unchecked), Answer::Declined);
        assert_eq!(
            confirm.answer(&json!({"action": "cancel"})),
            Answer::Cancelled
        );
        assert_eq!(
            confirm.answer(&json!({"action": "later"})),
            Answer::Declined
        );
        let code = Form {
            message: "m".into(),
            field: Field::Code,
        };
        let typed = json!({"action": "accept", "content": {"code": "AB-CD"}});
        assert_eq!(code.answer(&typed), Answer::Code("AB-CD".into()));
        assert_eq!(format!("{:?}", code.answer(&typed)), "Code([REDACTED])");
        assert_eq!(
            code.requested_schema()["required"],
            json!(["code"]),
            "one required field"
        );
    }
}
