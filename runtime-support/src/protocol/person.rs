//! How one `tools/call` reaches the person at the client: MCP elicitation in form mode, which
//! the client shows its user and never its model.
//!
//! * A session (2025-06-18, 2025-11-25) whose client declared elicitation: the form goes out
//!   at once as `elicitation/create` and the call waits for the answer, up to the operator's
//!   `--confirm-timeout`.
//! * A 2026-07-28 request whose `_meta` declares elicitation: servers may not send requests,
//!   so the call answers `resultType: "input_required"` with the form and a sealed
//!   `requestState`; the client's retry brings both back ([`retry_of`]).
//! * Otherwise, or for a batch item on a stateless request, the person cannot be reached.

use std::sync::Mutex;
use std::time::Duration;

use rmcp::RoleServer;
use rmcp::model::{
    CallToolRequestParams, ElicitRequest, ElicitRequestParams, InputRequest, InputRequests,
    InputRequiredResult, ProtocolVersion,
};
use rmcp::service::{Peer, RequestContext};
use serde_json::json;

use crate::call::person::{INPUT_KEY, Retry};
use crate::call::{Answer, Form, Reach};
use crate::sync::Unpoisoned as _;

/// The person channel of one `tools/call`.
pub enum Person {
    /// No elicitation.
    Unreachable,
    /// A session: ask now.
    Now {
        /// The client.
        peer: Peer<RoleServer>,
        /// How long the person has.
        timeout: Duration,
    },
    /// A stateless request: the question goes back in the answer.
    Later {
        /// The form and sealed state the call answers with.
        deferred: Mutex<Option<(Form, String)>>,
    },
}

impl Person {
    /// The channel `context`'s request offers: whether its client declared form elicitation,
    /// and whether it may be sent a request. `stateless` HTTP of an older revision has no
    /// way back to the client.
    pub fn of(context: &RequestContext<RoleServer>, stateless: bool, timeout: Duration) -> Self {
        let elicits = context
            .client_capabilities()
            .and_then(|capabilities| capabilities.elicitation)
            .is_some_and(|elicitation| elicitation.form.is_some() || elicitation.url.is_none());
        if !elicits {
            return Self::Unreachable;
        }
        let modern = context
            .protocol_version()
            .is_some_and(|version| version >= ProtocolVersion::V_2026_07_28);
        match (modern, stateless) {
            (true, _) => Self::Later {
                deferred: Mutex::new(None),
            },
            (false, true) => Self::Unreachable,
            (false, false) => Self::Now {
                peer: context.peer.clone(),
                timeout,
            },
        }
    }

    /// How the gate can reach the person; an item of a batch cannot pause a stateless call.
    pub fn reach(&self, in_batch: bool) -> Reach {
        match self {
            Self::Unreachable => Reach::Unreachable,
            Self::Now { .. } => Reach::Now,
            Self::Later { .. } if in_batch => Reach::Unreachable,
            Self::Later { .. } => Reach::Later,
        }
    }

    /// Sends `form` and waits for the answer; a client error or timeout is no answer.
    pub async fn ask(&self, form: &Form) -> Answer {
        let Self::Now { peer, timeout } = self else {
            return Answer::Unanswered;
        };
        let Some(params) = elicitation(form) else {
            return Answer::Unanswered;
        };
        match peer
            .create_elicitation_with_timeout(params, Some(*timeout))
            .await
        {
            Ok(result) => serde_json::to_value(&result)
                .map_or(Answer::Unanswered, |result| form.answer(&result)),
            Err(error) => {
                tracing::debug!(%error, "the confirmation form got no answer");
                Answer::Unanswered
            }
        }
    }

    /// Keeps `form` and `state` for the answer.
    pub fn defer(&self, form: Form, state: String) {
        if let Self::Later { deferred } = self {
            *deferred.locked() = Some((form, state));
        }
    }

    /// The `input_required` answer, when the call deferred a question.
    pub fn input_required(&self) -> Option<InputRequiredResult> {
        let Self::Later { deferred } = self else {
            return None;
        };
        let (form, state) = deferred.locked().take()?;
        let request = InputRequest::Elicitation(ElicitRequest::new(elicitation(&form)?));
        let requests = InputRequests::from([(INPUT_KEY.to_owned(), request)]);
        Some(InputRequiredResult::new(Some(requests), Some(state)))
    }
}

/// What a retry brings back: its `requestState` and `inputResponses`.
pub fn retry_of(request: &CallToolRequestParams) -> Option<Retry> {
    let state = request.request_state.clone()?;
    let responses = request
        .input_responses
        .iter()
        .flatten()
        .map(|(key, value)| (key.clone(), value.clone()))
        .collect();
    Some(Retry { state, responses })
}

/// `form` as form-mode elicitation params.
fn elicitation(form: &Form) -> Option<ElicitRequestParams> {
    serde_json::from_value(json!({
        "mode": "form",
        "message": form.message,
        "requestedSchema": form.requested_schema(),
    }))
    .ok()
}
