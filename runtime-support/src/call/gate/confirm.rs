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
use sha2::{Digest, Sha256};

use super::audit::Event;
use super::policy::{ConfirmReason, confirmation_context};
use super::sealed::Pending;
use super::verify::{Challenge, Subject};
use super::{Gate, Ticket};
use crate::adapter::Route;
use crate::call::person::{Answer, Field, Form, Reach, Retry};
use crate::call::preview::would_send;
use crate::call::{Context, Observer};
use crate::config::{ConfirmBy, Fallback};
use crate::digest::{feed_object, hex};
use crate::error::{AqlError, ErrorCode};
use crate::redact::scrub_registered;

impl Gate {
    /// Confirms a held call for `why`, on the path the operator chose for its danger level and
    /// the client allows. `Ok` means it runs, once.
    pub(super) async fn confirm<O: Observer>(
        &self,
        route: &'static Route,
        scope: &Map<String, Value>,
        why: &[ConfirmReason],
        ticket: &Ticket<'_>,
        token: Option<Value>,
        context: &Context<'_, O>,
    ) -> Result<(), AqlError> {
        let by = self.policy.confirm.by(route.danger_level);
        let reach = if by.asks_person() {
            context.observer.reach()
        } else {
            Reach::Unreachable
        };
        let digest = scope_digest(route.operation, scope);
        match (by, reach) {
            (ConfirmBy::Token, _) => {
                self.by_token(route, scope, why, ticket, token, context)
                    .await
            }
            (_, Reach::Unreachable) => match self.policy.confirm.fallback {
                Fallback::Token => {
                    self.by_token(route, scope, why, ticket, token, context)
                        .await
                }
                Fallback::Refuse => {
                    let error = unavailable(route, by);
                    self.audit(context, route, Event::Denied, None, Some(error.code));
                    Err(error)
                }
            },
            (_, Reach::Now) => {
                let challenge = self.challenge(route, by, &digest, context).await?;
                let form = self.form(route, why, ticket, challenge.as_ref());
                self.audit(context, route, Event::PersonAsked, None, None);
                let answer = context.observer.ask(&form).await;
                let challenge = challenge.map(|challenge| challenge.id);
                self.settle(route, &digest, challenge.as_deref(), answer, context)
                    .await
            }
            (_, Reach::Later) => match context.retry {
                Some(retry) => self.resume(route, &digest, retry, context).await,
                None => Err(self
                    .ask_later(route, why, ticket, by, digest, context)
                    .await),
            },
        }
    }

    /// The token flow: redeems the token brought, or issues one.
    async fn by_token<O: Observer>(
        &self,
        route: &'static Route,
        scope: &Map<String, Value>,
        why: &[ConfirmReason],
        ticket: &Ticket<'_>,
        token: Option<Value>,
        context: &Context<'_, O>,
    ) -> Result<(), AqlError> {
        match token {
            Some(token) => self.redeem(route, scope, &token, context).await,
            None => Err(self
                .ask_confirmation(route, scope, why, ticket.request, context)
                .await),
        }
    }

    /// For `verify`, a code sent on the operator's channel, bound to the caller and `digest`.
    async fn challenge<O: Observer>(
        &self,
        route: &'static Route,
        by: ConfirmBy,
        digest: &str,
        context: &Context<'_, O>,
    ) -> Result<Option<Challenge>, AqlError> {
        if by != ConfirmBy::Verify {
            return Ok(None);
        }
        let subject = Subject {
            operation: route.operation,
            danger: route.danger_level.as_str(),
        };
        match self
            .verifier
            .issue(&context.caller.id, digest, subject)
            .await
        {
            Ok(challenge) => {
                self.audit(
                    context,
                    route,
                    Event::ChallengeSent,
                    Some(&challenge.id),
                    None,
                );
                Ok(Some(challenge))
            }
            Err(error) => {
                self.audit(context, route, Event::Denied, None, Some(error.code));
                Err(error)
            }
        }
    }

    /// A stateless request: the question goes back sealed, and this call stops here.
    async fn ask_later<O: Observer>(
        &self,
        route: &'static Route,
        why: &[ConfirmReason],
        ticket: &Ticket<'_>,
        by: ConfirmBy,
        digest: String,
        context: &Context<'_, O>,
    ) -> AqlError {
        let challenge = match self.challenge(route, by, &digest, context).await {
            Ok(challenge) => challenge,
            Err(error) => return error,
        };
        let ttl = match challenge {
            Some(_) => self.policy.confirm.challenge_ttl,
            None => self.policy.confirm.answer_timeout,
        };
        let form = self.form(route, why, ticket, challenge.as_ref());
        let pending = Pending::new(route.operation, digest, challenge.map(|c| c.id));
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
                self.audit(context, route, Event::PersonAsked, None, None);
                context.observer.defer(form, state);
                AqlError::new(
                    ErrorCode::ConfirmationRequired,
                    format!(
                        "Operation '{}' waits for the client's user to confirm it; nothing ran",
                        route.operation
                    ),
                )
                .with_detail("operation", route.operation)
                .with_detail("confirm_by", by.as_str())
            }
            Err(error) => error,
        }
    }

    /// A stateless retry: the sealed state must be this caller's, for this very call, and
    /// unused; then the person's answer decides.
    async fn resume<O: Observer>(
        &self,
        route: &'static Route,
        digest: &str,
        retry: &Retry,
        context: &Context<'_, O>,
    ) -> Result<(), AqlError> {
        let pending = match self.sealer.open(&context.caller.id, &retry.state) {
            Ok(pending) => pending,
            Err(error) => {
                self.audit(context, route, Event::TokenRejected, None, Some(error.code));
                return Err(error);
            }
        };
        if pending.operation != route.operation || pending.scope != digest {
            let error = AqlError::new(
                ErrorCode::TokenScopeMismatch,
                format!(
                    "The requestState answers a confirmation of '{}' with other params, not this call of '{}', so nothing ran; call again without it to be asked about this one",
                    pending.operation, route.operation
                ),
            )
            .with_detail("token", "requestState")
            .with_detail("operation", route.operation);
            self.audit(context, route, Event::TokenRejected, None, Some(error.code));
            return Err(error);
        }
        let until = SystemTime::now()
            + self
                .policy
                .confirm
                .answer_timeout
                .max(self.policy.confirm.challenge_ttl);
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
            self.audit(context, route, Event::TokenRejected, None, Some(error.code));
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
        self.settle(route, digest, pending.challenge.as_deref(), answer, context)
            .await
    }

    /// The person's answer: the call runs on a yes, or on the right code for `challenge`.
    async fn settle<O: Observer>(
        &self,
        route: &'static Route,
        digest: &str,
        challenge: Option<&str>,
        answer: Answer,
        context: &Context<'_, O>,
    ) -> Result<(), AqlError> {
        let caller = &context.caller.id;
        match (answer, challenge) {
            (Answer::Confirmed, None) => {
                self.audit(context, route, Event::PersonConfirmed, None, None);
                Ok(())
            }
            (Answer::Code(code), Some(id)) => {
                match self.verifier.check(caller, id, digest, &code).await {
                    Ok(()) => {
                        self.audit(context, route, Event::ChallengePassed, Some(id), None);
                        Ok(())
                    }
                    Err(error) => {
                        self.audit(
                            context,
                            route,
                            Event::ChallengeFailed,
                            Some(id),
                            Some(error.code),
                        );
                        Err(error)
                    }
                }
            }
            (Answer::Unanswered, _) => {
                let error = AqlError::new(
                    ErrorCode::PermissionConfirmationTimeout,
                    format!(
                        "The client's user did not answer the confirmation of '{}' in time, so nothing ran; call again when they are available",
                        route.operation
                    ),
                )
                .with_detail("operation", route.operation);
                self.audit(
                    context,
                    route,
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
                        "The client's user did not confirm '{}' ({action}), so nothing ran. Do not retry it unless they ask you to",
                        route.operation
                    ),
                )
                .with_detail("operation", route.operation)
                .with_detail("action", action);
                self.audit(
                    context,
                    route,
                    Event::PersonDeclined,
                    challenge,
                    Some(error.code),
                );
                Err(error)
            }
        }
    }

    /// The form the person sees: what would run, how dangerous it is, why they are asked, the
    /// request it would send (no credential is in it; registered secrets are scrubbed), and
    /// what to answer.
    fn form(
        &self,
        route: &'static Route,
        why: &[ConfirmReason],
        ticket: &Ticket<'_>,
        challenge: Option<&Challenge>,
    ) -> Form {
        let (reasons, summary) = confirmation_context(route, &self.policy, why, ticket.request);
        let request = serde_json::to_string_pretty(&would_send(ticket.request, ticket.if_match))
            .unwrap_or_default();
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
            "The assistant wants to run '{}' (danger level: {}).\n{summary}\n\nWhy you are asked:\n- {}\n\nRequest it would send:\n{request}\n\n{ask}",
            route.operation,
            route.danger_level,
            reasons.join("\n- "),
        );
        Form {
            message: scrub_registered(&message),
            field,
        }
    }
}

/// 128 bits of the hash of the operation and the confirmed scope (params and precondition).
fn scope_digest(operation: &str, scope: &Map<String, Value>) -> String {
    let mut hasher = Sha256::new();
    hasher.update(operation.as_bytes());
    hasher.update([0]);
    feed_object(&mut hasher, scope);
    hex(&hasher.finalize()[..16])
}

/// `PERMISSION_CONFIRMATION_UNAVAILABLE`: a person must confirm and cannot be asked.
fn unavailable(route: &Route, by: ConfirmBy) -> AqlError {
    AqlError::new(
        ErrorCode::PermissionConfirmationUnavailable,
        format!(
            "Operation '{}' (danger: {}) must be confirmed by the client's user, and this client cannot show them a form (it declared no elicitation capability, or the call is an item of a batch on a stateless request: call it alone). The operator does not allow the token flow for it, so nothing ran",
            route.operation, route.danger_level
        ),
    )
    .with_detail("operation", route.operation)
    .with_detail("danger_level", route.danger_level.as_str())
    .with_detail("confirm_by", by.as_str())
    .with_detail("fallback", Fallback::Refuse.as_str())
}
