//! Confirming a call the policy holds: with a token the model brings back, or by the person
//! at the client, who is shown the operation, its danger level, the reasons and the exact
//! request, and may be asked for a code sent to them out of band ([`super::verify`]).
//!
//! ```text
//! confirm-by  client reaches its user  path
//! token       -                        token flow (CONFIRMATION_REQUIRED, then redeem)
//! person      now (session)            elicitation/create, wait for the answer
//! person      later (stateless)        input_required + sealed requestState; the retry answers
//! verify      now / later              as person, the form asking for the code sent
//! person/verify  cannot                fallback: token flow, or PERMISSION_CONFIRMATION_UNAVAILABLE
//! ```

use std::time::SystemTime;

use serde_json::{Map, Value};

use super::audit::Event;
use super::policy::{ConfirmReason, confirmation_context};
use super::sealed::Pending;
use super::verify::{Challenge, Subject};
use super::{About, Gate, Ticket};
use crate::call::person::{Answer, Field, Form, Reach, Retry};
use crate::call::preview::would_send;
use crate::call::{Context, Observer};
use crate::config::{ConfirmBy, Fallback};
use crate::digest::call_digest;
use crate::error::{AqlError, ErrorCode};
use crate::redact::scrub_registered;

/// What a person is asked to let run: the subject of a form and of its audit events.
pub struct Held {
    /// The operation and its danger level.
    pub about: About,
    /// One sentence: what it would do.
    pub summary: String,
    /// Why confirmation is asked.
    pub reasons: Vec<String>,
    /// What it would send or start, shown as JSON.
    pub preview: Value,
    /// The digest the answer is bound to: operation and params.
    pub digest: String,
}

impl Held {
    /// A held `operation` of `danger` with these `params`.
    pub fn new(
        about: About,
        summary: String,
        reasons: Vec<String>,
        preview: Value,
        params: &Map<String, Value>,
    ) -> Self {
        let digest = scope_digest(about.operation, params);
        Self {
            about,
            summary,
            reasons,
            preview,
            digest,
        }
    }
}

impl Gate {
    /// Confirms a held call for `why`, on the path the operator chose for its danger level and
    /// the client allows. `Ok` means it runs, once.
    pub(super) async fn confirm<O: Observer>(
        &self,
        why: &[ConfirmReason],
        ticket: &Ticket<'_>,
        scope: &Map<String, Value>,
        token: Option<Value>,
        context: &Context<'_, O>,
    ) -> Result<(), AqlError> {
        let route = ticket.route;
        let by = self.confirmers().by(route.danger_level);
        let reach = if by.asks_person() {
            context.observer.reach()
        } else {
            Reach::Unreachable
        };
        let token_flow = match (by, reach) {
            (ConfirmBy::Token, _) => true,
            (_, Reach::Unreachable) => self.confirmers().fallback == Fallback::Token,
            _ => false,
        };
        if token_flow {
            return match token {
                Some(token) => self.redeem(route, scope, &token, context).await,
                None => Err(self
                    .ask_confirmation(route, scope, why, ticket.request, context)
                    .await),
            };
        }
        let (reasons, summary) =
            confirmation_context(route, self.policy(route.member), why, ticket.request);
        let preview = would_send(ticket.request, ticket.if_match);
        let held = Held::new(route.into(), summary, reasons, preview, scope);
        self.ask_person(&held, by, reach, context).await
    }

    /// Lets what `held` describes run once a person says so, on the path the operator chose
    /// for its danger level; never by a token the model could bring itself (SPEC §8.7.3), so a
    /// client that cannot reach its user is refused.
    ///
    /// # Errors
    ///
    /// The decline, timeout, verification or `requestState` error that stops it, or
    /// `PERMISSION_CONFIRMATION_UNAVAILABLE`.
    pub async fn approve<O: Observer>(
        &self,
        held: &Held,
        context: &Context<'_, O>,
    ) -> Result<(), AqlError> {
        let by = match self.confirmers().by(held.about.danger) {
            ConfirmBy::Token => ConfirmBy::Person,
            by => by,
        };
        self.ask_person(held, by, context.observer.reach(), context)
            .await
    }

    /// Asks the person, now or by `input_required`, or refuses when they cannot be reached.
    async fn ask_person<O: Observer>(
        &self,
        held: &Held,
        by: ConfirmBy,
        reach: Reach,
        context: &Context<'_, O>,
    ) -> Result<(), AqlError> {
        match reach {
            Reach::Unreachable => {
                let error = unavailable(held.about, by);
                self.audit(context, held.about, Event::Denied, None, Some(error.code));
                Err(error)
            }
            Reach::Now => {
                let challenge = self.challenge(held, by, context).await?;
                let form = self.form(held, challenge.as_ref());
                self.audit(context, held.about, Event::PersonAsked, None, None);
                let answer = context.observer.ask(&form).await;
                let challenge = challenge.map(|challenge| challenge.id);
                self.settle(held, challenge.as_deref(), answer, context)
                    .await
            }
            Reach::Later => match context.retry {
                Some(retry) => self.resume(held, retry, context).await,
                None => Err(self.ask_later(held, by, context).await),
            },
        }
    }

    /// For `verify`, a code sent on the operator's channel, bound to the caller and `held`.
    async fn challenge<O: Observer>(
        &self,
        held: &Held,
        by: ConfirmBy,
        context: &Context<'_, O>,
    ) -> Result<Option<Challenge>, AqlError> {
        if by != ConfirmBy::Verify {
            return Ok(None);
        }
        let subject = Subject {
            operation: held.about.operation,
            danger: held.about.danger.as_str(),
        };
        match self
            .verifier
            .issue(&context.caller.id, &held.digest, subject)
            .await
        {
            Ok(challenge) => {
                self.audit(
                    context,
                    held.about,
                    Event::ChallengeSent,
                    Some(&challenge.id),
                    None,
                );
                Ok(Some(challenge))
            }
            Err(error) => {
                self.audit(context, held.about, Event::Denied, None, Some(error.code));
                Err(error)
            }
        }
    }

    /// A stateless request: the question goes back sealed, and this call stops here.
    async fn ask_later<O: Observer>(
        &self,
        held: &Held,
        by: ConfirmBy,
        context: &Context<'_, O>,
    ) -> AqlError {
        let challenge = match self.challenge(held, by, context).await {
            Ok(challenge) => challenge,
            Err(error) => return error,
        };
        let ttl = match challenge {
            Some(_) => self.confirmers().challenge_ttl,
            None => self.confirmers().answer_timeout,
        };
        let form = self.form(held, challenge.as_ref());
        let operation = held.about.operation;
        let pending = Pending::new(operation, held.digest.clone(), challenge.map(|c| c.id));
        let sealed = pending
            .ok_or_else(|| {
                AqlError::new(
                    ErrorCode::InternalError,
                    "Internal error: no randomness for the confirmation; nothing ran",
                )
            })
            .and_then(|pending| self.sealer.seal(&context.caller.id, &pending, ttl));
        match sealed {
            Ok(state) => {
                self.audit(context, held.about, Event::PersonAsked, None, None);
                context.observer.defer(form, state);
                AqlError::new(
                    ErrorCode::ConfirmationRequired,
                    format!(
                        "Operation '{operation}' waits for the client's user to confirm it; nothing ran"
                    ),
                )
                .with_detail("operation", operation)
                .with_detail("confirm_by", by.as_str())
            }
            Err(error) => error,
        }
    }

    /// A stateless retry: the sealed state must be this caller's, for this very call, and
    /// unused; then the person's answer decides.
    async fn resume<O: Observer>(
        &self,
        held: &Held,
        retry: &Retry,
        context: &Context<'_, O>,
    ) -> Result<(), AqlError> {
        let about = held.about;
        let pending = match self.sealer.open(&context.caller.id, &retry.state) {
            Ok(pending) => pending,
            Err(error) => {
                self.audit(context, about, Event::TokenRejected, None, Some(error.code));
                return Err(error);
            }
        };
        if pending.operation != about.operation || pending.scope != held.digest {
            let error = AqlError::new(
                ErrorCode::TokenScopeMismatch,
                format!(
                    "The requestState answers a confirmation of '{}' with other params, not this call of '{}', so nothing ran; call again without it to be asked about this one",
                    pending.operation, about.operation
                ),
            )
            .with_detail("token", "requestState")
            .with_detail("operation", about.operation);
            self.audit(context, about, Event::TokenRejected, None, Some(error.code));
            return Err(error);
        }
        let confirm = self.confirmers();
        let until = SystemTime::now() + confirm.answer_timeout.max(confirm.challenge_ttl);
        let first = self
            .store
            .set_new(&format!("request-state-used:{}", pending.nonce), "1", until)
            .await?;
        if !first {
            let error = AqlError::new(
                ErrorCode::TokenAlreadyUsed,
                "This requestState was already answered once, so nothing ran; call the operation again without it to be asked anew",
            )
            .with_detail("token", "requestState");
            self.audit(context, about, Event::TokenRejected, None, Some(error.code));
            return Err(error);
        }
        let field = match pending.challenge {
            Some(_) => Field::Code,
            None => Field::Confirm,
        };
        let form = Form {
            message: String::new(),
            field,
        };
        let answer = retry
            .response()
            .map_or(Answer::Unanswered, |response| form.answer(response));
        self.settle(held, pending.challenge.as_deref(), answer, context)
            .await
    }

    /// The person's answer: it runs on a yes, or on the right code for `challenge`.
    async fn settle<O: Observer>(
        &self,
        held: &Held,
        challenge: Option<&str>,
        answer: Answer,
        context: &Context<'_, O>,
    ) -> Result<(), AqlError> {
        let (about, operation) = (held.about, held.about.operation);
        match (answer, challenge) {
            (Answer::Confirmed, None) => {
                self.audit(context, about, Event::PersonConfirmed, None, None);
                Ok(())
            }
            (Answer::Code(code), Some(id)) => {
                let checked = self
                    .verifier
                    .check(&context.caller.id, id, &held.digest, &code)
                    .await;
                let (event, code) = match &checked {
                    Ok(()) => (Event::ChallengePassed, None),
                    Err(error) => (Event::ChallengeFailed, Some(error.code)),
                };
                self.audit(context, about, event, Some(id), code);
                checked
            }
            (Answer::Unanswered, _) => {
                let error = AqlError::new(
                    ErrorCode::PermissionConfirmationTimeout,
                    format!(
                        "The client's user did not answer the confirmation of '{operation}' in time, so nothing ran; call again when they are available"
                    ),
                )
                .with_detail("operation", operation);
                self.audit(
                    context,
                    about,
                    Event::PersonUnanswered,
                    None,
                    Some(error.code),
                );
                Err(error)
            }
            (answer, _) => {
                let action = if answer == Answer::Cancelled {
                    "cancel"
                } else {
                    "decline"
                };
                let error = AqlError::new(
                    ErrorCode::PermissionConfirmationDeclined,
                    format!(
                        "The client's user did not confirm '{operation}' ({action}), so nothing ran. Do not retry it unless they ask you to"
                    ),
                )
                .with_detail("operation", operation)
                .with_detail("action", action);
                self.audit(
                    context,
                    about,
                    Event::PersonDeclined,
                    challenge,
                    Some(error.code),
                );
                Err(error)
            }
        }
    }

    /// The form the person sees: what would run, how dangerous it is, why they are asked, what
    /// it would send (no credential is in it; registered secrets are scrubbed), and what to
    /// answer.
    fn form(&self, held: &Held, challenge: Option<&Challenge>) -> Form {
        let preview = serde_json::to_string_pretty(&held.preview).unwrap_or_default();
        let (field, ask) = match (challenge, self.verifier.channel()) {
            (Some(challenge), Some(channel)) => (
                Field::Code,
                format!(
                    "A verification code was sent to {} (challenge {}, valid until {}). Enter it to let the operation run once; never give it to the assistant.",
                    channel.describe(),
                    challenge.id,
                    challenge.expires_at
                ),
            ),
            _ => (
                Field::Confirm,
                "Check 'Run this operation' and accept to let it run once, exactly as shown; decline to stop it.".to_owned(),
            ),
        };
        let message = format!(
            "The assistant wants to run '{}' (danger level: {}).\n{}\n\nWhy you are asked:\n- {}\n\nIt would send:\n{preview}\n\n{ask}",
            held.about.operation,
            held.about.danger,
            held.summary,
            held.reasons.join("\n- "),
        );
        Form {
            message: scrub_registered(&message),
            field,
        }
    }
}

/// 128 bits of the hash of the operation and the confirmed scope (params and precondition).
fn scope_digest(operation: &str, scope: &Map<String, Value>) -> String {
    call_digest(operation, scope, 16)
}

/// `PERMISSION_CONFIRMATION_UNAVAILABLE`: a person must confirm and cannot be asked.
fn unavailable(about: About, by: ConfirmBy) -> AqlError {
    AqlError::new(
        ErrorCode::PermissionConfirmationUnavailable,
        format!(
            "Operation '{}' (danger: {}) must be confirmed by the client's user, and this client cannot show them a form (it declared no elicitation capability, or the call is an item of a batch on a stateless request: call it alone). No token may stand in for them here, so nothing ran",
            about.operation, about.danger
        ),
    )
    .with_detail("operation", about.operation)
    .with_detail("danger_level", about.danger.as_str())
    .with_detail("confirm_by", by.as_str())
}
