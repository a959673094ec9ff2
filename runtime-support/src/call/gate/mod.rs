//! The safety gate: whether a call may run, needs confirmation first, or is refused, and
//! whether the limits let it through now.
//!
//! One decision per call, the same on every tool, in every endpoint mode and for every batch
//! item, made in [`Gate::admit`]: the [`policy`] (danger level × trust level × the operator's
//! tightening), then rate limits and quotas ([`limits`]), then confirmation ([`tokens`]), and
//! one [`audit`] event for what was decided. What outlives a decision (tokens, counters) lives
//! in the state store.

pub mod audit;
pub mod confirm;
pub mod limits;
pub mod policy;
mod sealed;
pub mod tokens;
pub mod verify;

use std::sync::Arc;
use std::time::SystemTime;

use aqlgen_model::{DangerLevel, TrustLevel};
use serde_json::{Map, Value, json};

use crate::adapter::{AdapterInfo, Route, UpstreamRequest};
use crate::call::metrics::Metrics;
use crate::call::{Context, Observer};
use crate::config::{ConfirmConfig, SafetyConfig};
use crate::error::{AqlError, ErrorCode};
use crate::state::Store;
use crate::warning::Warning;
use audit::{Audit, Event, Record};
use limits::{LimitConfig, Limited, Limiter, paused_error};
pub use policy::{
    ConfirmReason, Decision, Denial, Policy, TrustSource, confirmation_context, denial_error,
};
use sealed::Sealer;
use tokens::{Rejected, TokenKind, Tokens};
use verify::Verifier;

/// The param that carries a confirmation token on the retry.
pub const TOKEN_PARAM: &str = "confirmation_token";

/// The param that carries a quota continuation token; `_`-prefixed, so it is metadata and
/// never an operation param.
pub const QUOTA_PARAM: &str = "_quota_continue";

/// The gate of one server: the policy and limits of each adapter it serves, its tokens, the
/// ways a person confirms, and its audit log.
pub struct Gate {
    /// By member, as [`Route::member`] indexes them.
    rules: Vec<Rules>,
    tokens: Tokens,
    verifier: Verifier,
    sealer: Sealer,
    store: Arc<Store>,
    audit: Audit,
    metrics: Arc<Metrics>,
}

/// What one adapter's calls are held to: the policy at its trust level, and its limits.
struct Rules {
    policy: Policy,
    limiter: Limiter,
}

/// The gate's first look at a call, before its params are parsed.
#[derive(Debug)]
pub struct Screened {
    decision: Decision,
    /// The confirmation token the params carried, taken out of them when the call needs
    /// confirmation (so the operation's parser never sees it).
    confirmation: Option<Value>,
}

/// A parsed call, as the gate judges it.
pub struct Ticket<'a> {
    /// The operation.
    pub route: &'static Route,
    /// Its params, after the feature params were taken out.
    pub params: &'a Map<String, Value>,
    /// The request it would send.
    pub request: &'a UpstreamRequest,
    /// The `If-Match` precondition it would send.
    pub if_match: Option<&'a str>,
    /// A quota continuation token (`_quota_continue`).
    pub quota_token: Option<Value>,
    /// Whether the call only asks what it would do.
    pub dry_run: bool,
}

/// What a decision is about: an operation, its danger level and its adapter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct About {
    /// The operation, or the protocol operation the runtime answers.
    pub operation: &'static str,
    /// Its danger level.
    pub danger: DangerLevel,
    /// The adapter whose trust level it is judged at (see [`Route::member`]); the first for a
    /// protocol operation.
    pub member: usize,
}

impl From<&Route> for About {
    fn from(route: &Route) -> Self {
        Self {
            operation: route.operation,
            danger: route.danger_level,
            member: route.member,
        }
    }
}

/// What the gate lets a call do.
#[derive(Debug)]
pub enum Admission {
    /// A dry run: nothing is sent, counted or issued.
    Preview {
        /// Whether the real call would need confirmation first.
        confirmation_required: bool,
    },
    /// The call goes out, with the warnings the limits raised (a quota nearing its pause).
    Proceed(Vec<Warning>),
}

impl Gate {
    /// The gate of the adapters `members` under the operator's `safety` settings, counting on
    /// `store`; `server` names its tokens and audit lines. Each member keeps its own trust
    /// level and limits; the operator's settings apply to all of them.
    ///
    /// # Errors
    ///
    /// `INTERNAL_ERROR` when the audit log cannot be opened.
    pub async fn new(
        server: &'static str,
        members: &[&'static AdapterInfo],
        safety: &SafetyConfig,
        store: Arc<Store>,
        metrics: Arc<Metrics>,
    ) -> Result<Self, AqlError> {
        let bundled = members.len() > 1;
        let rules = members
            .iter()
            .map(|info| {
                let (trust, trust_source) = match (safety.trust_level, info.trust) {
                    (Some(trust), _) => (trust, TrustSource::Operator),
                    (None, Some(trust)) => (trust, TrustSource::Schema),
                    (None, None) => (TrustLevel::Untested, TrustSource::Default),
                };
                let policy = Policy {
                    confirm_at: safety.confirm_at,
                    deny: safety.deny.clone(),
                    confirm: safety.confirm.clone(),
                    ..Policy::at(trust, trust_source)
                };
                let limits = LimitConfig::merged(
                    info.rate_limits,
                    &safety.rate_limits,
                    safety.quotas.clone(),
                );
                // A bundle's members count apart; a single adapter's keys stay as they were.
                let scope = if bundled { info.name } else { "" };
                Rules {
                    policy,
                    limiter: Limiter::new(limits, store.clone(), scope),
                }
            })
            .collect();
        let tokens = Tokens::new(server, safety.tokens, store.clone());
        let verifier = Verifier::new(
            server,
            store.clone(),
            safety.confirm.channel.clone(),
            safety.confirm.challenge_ttl,
        );
        let sealer = Sealer::shared(&store).await;
        let audit = match &safety.audit_log {
            Some(path) => Audit::to_file(server, path)
                .map_err(|message| AqlError::new(ErrorCode::InternalError, message))?,
            None => Audit::to_log(server),
        };
        Ok(Self {
            rules,
            tokens,
            verifier,
            sealer,
            store,
            audit,
            metrics,
        })
    }

    /// The policy of adapter `member` ([`Route::member`]).
    pub fn policy(&self, member: usize) -> &Policy {
        &self.rules[member].policy
    }

    /// The policies in force, by member.
    pub fn policies(&self) -> impl Iterator<Item = &Policy> {
        self.rules.iter().map(|rules| &rules.policy)
    }

    /// Who confirms what needs confirmation: the operator's, the same for every member.
    pub fn confirmers(&self) -> &ConfirmConfig {
        &self.rules[0].policy.confirm
    }

    /// Issues and checks out-of-band verification codes.
    pub fn verifier(&self) -> &Verifier {
        &self.verifier
    }

    /// The rate limits and quotas of adapter `member`, and its upstream's block.
    pub fn limiter(&self, member: usize) -> &Limiter {
        &self.rules[member].limiter
    }

    /// Decides `route` and takes the confirmation token out of `params` when it needs one.
    pub fn screen(&self, route: &Route, params: &mut Map<String, Value>) -> Screened {
        let decision = self
            .policy(route.member)
            .decide(route.danger_level, route.requires_confirmation);
        let confirmation = match decision {
            Decision::Confirm(_) => params.remove(TOKEN_PARAM).filter(|token| !token.is_null()),
            Decision::Allow | Decision::Deny(_) => None,
        };
        Screened {
            decision,
            confirmation,
        }
    }

    /// Judges one parsed call, in this order: refused by the policy; a dry run (answered
    /// before anything is counted); rate limits and quotas (a quota at its pause continued
    /// with a valid continuation token); confirmation (a token issued, or the one brought
    /// redeemed); the call counted.
    ///
    /// # Errors
    ///
    /// The `PERMISSION_*`, `RATE_LIMIT_*`, `CONFIRMATION_REQUIRED` or token error that stops
    /// the call; `INTERNAL_ERROR` when the state store does not answer.
    pub async fn admit<O: Observer>(
        &self,
        screened: Screened,
        ticket: Ticket<'_>,
        context: &Context<'_, O>,
    ) -> Result<Admission, AqlError> {
        let route = ticket.route;
        let why = match screened.decision {
            Decision::Deny(denial) => {
                let error = denial_error(route, self.policy(route.member), denial);
                self.audit(context, route.into(), Event::Denied, None, Some(error.code));
                return Err(error);
            }
            Decision::Confirm(why) => Some(why),
            Decision::Allow => None,
        };
        if ticket.dry_run {
            return Ok(Admission::Preview {
                confirmation_required: why.is_some(),
            });
        }
        self.check_limits(&ticket, context).await?;
        // A confirmation is for exactly the request shown: its params and its precondition.
        let mut scope = ticket.params.clone();
        if let Some(etag) = ticket.if_match {
            scope.insert("if_match".to_owned(), etag.into());
        }
        if let Some(why) = why {
            self.confirm(&why, &ticket, &scope, screened.confirmation, context)
                .await?;
        } else {
            self.audit(context, route.into(), Event::Allowed, None, None);
        }
        match self
            .limiter(route.member)
            .commit(SystemTime::now(), &context.caller.id)
            .await
        {
            Ok(warnings) => Ok(Admission::Proceed(warnings)),
            Err(limited) => Err(self.limited(route, ticket.params, limited, context).await),
        }
    }

    /// Rate limits and quotas before anything is confirmed or sent: a quota at its pause
    /// threshold is continued with the ticket's quota token when it is a valid one.
    async fn check_limits<O: Observer>(
        &self,
        ticket: &Ticket<'_>,
        context: &Context<'_, O>,
    ) -> Result<(), AqlError> {
        let (route, params, caller) = (ticket.route, ticket.params, &context.caller.id);
        let limited = match self
            .limiter(route.member)
            .check(SystemTime::now(), caller)
            .await
        {
            Ok(()) => return Ok(()),
            Err(limited) => limited,
        };
        let (Limited::Paused(pauses), Some(token)) = (&limited, &ticket.quota_token) else {
            return Err(self.limited(route, params, limited, context).await);
        };
        let redeemed = self
            .tokens
            .redeem(
                caller,
                TokenKind::QuotaContinue,
                token,
                route.operation,
                params,
            )
            .await;
        match redeemed {
            Ok(id) => {
                self.audit(
                    context,
                    route.into(),
                    Event::QuotaContinued,
                    Some(&id),
                    None,
                );
                self.limiter(route.member)
                    .continue_past(caller, pauses)
                    .await
                    .map_err(AqlError::from)
            }
            Err(rejected) => Err(self.rejected(context, route, rejected)),
        }
    }

    /// The client's error for a limit in the way; a pause issues a continuation token.
    async fn limited<O: Observer>(
        &self,
        route: &'static Route,
        params: &Map<String, Value>,
        limited: Limited,
        context: &Context<'_, O>,
    ) -> AqlError {
        match limited {
            Limited::Rate(error) => {
                self.audit(
                    context,
                    route.into(),
                    Event::RateLimited,
                    None,
                    Some(error.code),
                );
                error
            }
            Limited::Exhausted(error) => {
                self.audit(
                    context,
                    route.into(),
                    Event::QuotaExhausted,
                    None,
                    Some(error.code),
                );
                error
            }
            Limited::Unavailable(error) => error,
            Limited::Paused(pauses) => match self
                .tokens
                .issue(
                    &context.caller.id,
                    TokenKind::QuotaContinue,
                    route.operation,
                    route.danger_level,
                    params,
                )
                .await
            {
                Ok(issued) => {
                    let error = paused_error(&pauses, &issued.token, &issued.expires_at);
                    self.audit(
                        context,
                        route.into(),
                        Event::QuotaPaused,
                        Some(&issued.id),
                        Some(error.code),
                    );
                    error
                }
                Err(error) => {
                    self.audit(
                        context,
                        route.into(),
                        Event::RateLimited,
                        None,
                        Some(error.code),
                    );
                    error
                }
            },
        }
    }

    /// Redeems the confirmation token the call brought.
    async fn redeem<O: Observer>(
        &self,
        route: &'static Route,
        scope: &Map<String, Value>,
        token: &Value,
        context: &Context<'_, O>,
    ) -> Result<(), AqlError> {
        let redeemed = self
            .tokens
            .redeem(
                &context.caller.id,
                TokenKind::Confirmation,
                token,
                route.operation,
                scope,
            )
            .await;
        match redeemed {
            Ok(id) => {
                self.audit(context, route.into(), Event::TokenAccepted, Some(&id), None);
                Ok(())
            }
            Err(rejected) => Err(self.rejected(context, route, rejected)),
        }
    }

    /// Issues a confirmation token: `CONFIRMATION_REQUIRED` with what the call would do.
    async fn ask_confirmation<O: Observer>(
        &self,
        route: &'static Route,
        scope: &Map<String, Value>,
        why: &[ConfirmReason],
        request: &UpstreamRequest,
        context: &Context<'_, O>,
    ) -> AqlError {
        let issued = self
            .tokens
            .issue(
                &context.caller.id,
                TokenKind::Confirmation,
                route.operation,
                route.danger_level,
                scope,
            )
            .await;
        let issued = match issued {
            Ok(issued) => issued,
            Err(error) => {
                self.audit(
                    context,
                    route.into(),
                    Event::RateLimited,
                    None,
                    Some(error.code),
                );
                return error;
            }
        };
        let (reasons, message) =
            confirmation_context(route, self.policy(route.member), why, request);
        self.audit(
            context,
            route.into(),
            Event::ConfirmationIssued,
            Some(&issued.id),
            None,
        );
        AqlError::new(
            ErrorCode::ConfirmationRequired,
            format!(
                "This operation requires confirmation: '{}' (danger: {}) runs only when called again with the same params plus '{TOKEN_PARAM}' set to the token in details, within {} s",
                route.operation,
                route.danger_level,
                issued.ttl.as_secs()
            ),
        )
        .with_detail("operation", route.operation)
        .with_detail("danger_level", route.danger_level.as_str())
        .with_detail("reasons", reasons)
        .with_detail("confirmation_message", message)
        .with_detail("confirmation_token", issued.token)
        .with_detail("expires_at", issued.expires_at)
        .with_detail("ttl_seconds", issued.ttl.as_secs())
    }

    /// The error of a token that was refused, audited.
    fn rejected<O: Observer>(
        &self,
        context: &Context<'_, O>,
        route: &'static Route,
        rejected: Rejected,
    ) -> AqlError {
        let code = rejected.error.code;
        self.audit(
            context,
            route.into(),
            Event::TokenRejected,
            rejected.token_id.as_deref(),
            Some(code),
        );
        rejected.error
    }

    /// One decision, told to the audit log, the metrics and the session's log.
    pub(crate) fn audit<O: Observer>(
        &self,
        context: &Context<'_, O>,
        about: About,
        event: Event,
        token_id: Option<&str>,
        code: Option<ErrorCode>,
    ) {
        // The level the session log's line takes: routine reads are debug.
        let routine = event == Event::Allowed && about.danger < DangerLevel::Destructive;
        context.observer.event(
            routine,
            json!({
                "event": event.as_str(),
                "operation": about.operation,
                "danger_level": about.danger.as_str(),
                "code": code.map(ErrorCode::as_str),
            }),
        );
        self.metrics.decision(event);
        self.audit.record(Record {
            event,
            operation: about.operation,
            danger: about.danger,
            trust: self.policy(about.member).trust,
            session: context.session,
            subject: context
                .caller
                .principal
                .as_ref()
                .map(|principal| principal.subject.as_str()),
            token_id,
            code,
        });
    }
}
