//! The execution safety loop (SPEC §8.6-8.8), opt-in with `--safety-loop`: an agent starts a
//! monitored execution with `execute_agent` (a person approves), reports every action it
//! intends with `record_execution_step` and gets an AutonomyDirective back ([`evaluate`]),
//! and ends with `complete_execution` or `abort_execution`. A pause is lifted by a person
//! through `confirm_operation`, a hard block by a person typing the code sent to them out of
//! band into `verify_challenge`: never by the agent itself (§8.7.3). State lives in the store
//! ([`agents`]).

mod agents;
mod evaluate;

use std::sync::Arc;
use std::time::SystemTime;

use aqlgen_model::DangerLevel;
use serde_json::{Map, Value, json};

use crate::adapter::Category;
use crate::call::gate::audit::Event;
use crate::call::gate::confirm::Held;
use crate::call::gate::verify::{Subject, Verifier};
use crate::call::gate::{About, Gate};
use crate::call::person::Field;
use crate::call::{Answer, Context, Form, Observer, Reach};
use crate::clock::rfc3339;
use crate::config::{LoopConfig, LoopMode};
use crate::digest::random_hex;
use crate::error::{AqlError, ErrorCode};
use crate::state::{Store, unix_millis};
use crate::text::shorten;
use agents::{Agent, Block, Execution, Live, Pause};
use evaluate::{PauseKind, Verdict, evaluate};

/// Longest agent name taken.
const MAX_NAME: usize = 128;
/// Longest action text kept or shown.
const MAX_ACTION: usize = 500;

/// The reserved operations of the loop (SPEC §8.5.4): the one list of their names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoopOp {
    /// An operation on one agent, named by `element_name`.
    Agent(AgentOp),
    /// A person lifts a hard block with the code sent to them; the challenge names the agent.
    VerifyChallenge,
}

/// The loop's operations on one agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AgentOp {
    /// Start a monitored execution.
    ExecuteAgent,
    /// Report the next action and get a directive.
    RecordExecutionStep,
    /// End an execution normally.
    CompleteExecution,
    /// End an execution abnormally.
    AbortExecution,
    /// A person lifts a pause.
    ConfirmOperation,
}

impl LoopOp {
    /// Every operation, in the order introspection lists them.
    pub const ALL: [Self; 6] = [
        Self::Agent(AgentOp::ExecuteAgent),
        Self::Agent(AgentOp::RecordExecutionStep),
        Self::Agent(AgentOp::CompleteExecution),
        Self::Agent(AgentOp::AbortExecution),
        Self::Agent(AgentOp::ConfirmOperation),
        Self::VerifyChallenge,
    ];

    /// The reserved name.
    pub const fn name(self) -> &'static str {
        match self {
            Self::Agent(AgentOp::ExecuteAgent) => "execute_agent",
            Self::Agent(AgentOp::RecordExecutionStep) => "record_execution_step",
            Self::Agent(AgentOp::CompleteExecution) => "complete_execution",
            Self::Agent(AgentOp::AbortExecution) => "abort_execution",
            Self::Agent(AgentOp::ConfirmOperation) => "confirm_operation",
            Self::VerifyChallenge => "verify_challenge",
        }
    }

    /// The operation a name reserves.
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|op| op.name() == name)
    }

    /// The endpoint the specification puts it on.
    pub const fn category(self) -> Category {
        match self {
            Self::Agent(AgentOp::RecordExecutionStep) | Self::VerifyChallenge => Category::Create,
            Self::Agent(
                AgentOp::ExecuteAgent
                | AgentOp::CompleteExecution
                | AgentOp::AbortExecution
                | AgentOp::ConfirmOperation,
            ) => Category::Execute,
        }
    }

    /// What it does, for introspection.
    pub const fn description(self) -> &'static str {
        match self {
            Self::Agent(AgentOp::ExecuteAgent) => {
                "Start a monitored execution of an agent under the execution safety loop; the client's user approves it. From then on, report every intended action with record_execution_step before taking it."
            }
            Self::Agent(AgentOp::RecordExecutionStep) => {
                "Report the action you intend next (nextActionHint) and the outcome of the previous one; the answer's 'directive' says whether you may proceed. continue false: do not proceed, tell the user. stopped true: cease all actions until the user verifies a code."
            }
            Self::Agent(AgentOp::CompleteExecution) => "End the monitored execution normally.",
            Self::Agent(AgentOp::AbortExecution) => {
                "End the monitored execution abnormally, e.g. after a stop directive or when the user cancels."
            }
            Self::Agent(AgentOp::ConfirmOperation) => {
                "Ask the client's user to lift a pause of the safety loop; they approve in a form their client shows them, never through the assistant."
            }
            Self::VerifyChallenge => {
                "Lift a hard block with the verification code the user was sent out of band. Without 'code', the user types it into a form their client shows them; never ask them to share it."
            }
        }
    }

    /// Its parameters, for introspection and to check calls against: name, type, required,
    /// description.
    fn params(self) -> &'static [(&'static str, &'static str, bool, &'static str)] {
        const NAME: (&str, &str, bool, &str) = (
            "element_name",
            "string",
            true,
            "The agent: the same name on every call of one agent.",
        );
        match self {
            Self::Agent(AgentOp::ExecuteAgent) => &[
                NAME,
                (
                    "goal",
                    "string",
                    false,
                    "The agent's goal, shown to the user who approves.",
                ),
            ],
            Self::Agent(AgentOp::RecordExecutionStep) => &[
                NAME,
                (
                    "nextActionHint",
                    "string",
                    true,
                    "The action intended next, specific enough to judge, e.g. 'calling delete_todo on item 4'.",
                ),
                (
                    "stepDescription",
                    "string",
                    false,
                    "The action just completed.",
                ),
                (
                    "outcome",
                    "string",
                    false,
                    "How the previous step went: success, failure or skipped.",
                ),
                ("findings", "string", false, "The previous step's findings."),
            ],
            Self::Agent(AgentOp::CompleteExecution) => &[
                NAME,
                ("summary", "string", false, "A summary of the work done."),
            ],
            Self::Agent(AgentOp::AbortExecution) => {
                &[NAME, ("reason", "string", false, "Why it ends.")]
            }
            Self::Agent(AgentOp::ConfirmOperation) => &[NAME],
            Self::VerifyChallenge => &[
                (
                    "challenge_id",
                    "string",
                    true,
                    "The verificationId of the danger_zone notification.",
                ),
                (
                    "code",
                    "string",
                    false,
                    "The code, only when the user typed it themselves; otherwise their client asks them.",
                ),
            ],
        }
    }

    /// Its introspection summary and details.
    pub fn introspection(self, tool: &str) -> (Value, Value) {
        let category = self.category();
        let summary = json!({
            "name": self.name(),
            "semantic_category": category.semantic_name(),
            "endpoint": category.as_str(),
            "description": self.description(),
        });
        let parameters: Vec<Value> = self
            .params()
            .iter()
            .map(|(name, kind, required, description)| {
                json!({"name": name, "type": kind, "required": required, "description": description})
            })
            .collect();
        let details = json!({
            "mcpTool": tool,
            "name": self.name(),
            "semantic_category": category.semantic_name(),
            "endpoint": category.as_str(),
            "description": self.description(),
            "permissions": {"readOnly": false, "destructive": false},
            "parameters": parameters,
            "returns": {"name": "OperationResult", "kind": "union"},
        });
        (summary, details)
    }
}

/// The loop of one server.
pub struct SafetyLoop {
    config: LoopConfig,
    store: Arc<Store>,
}

impl SafetyLoop {
    /// The loop under `config`, keeping agents on `store`.
    pub fn new(config: LoopConfig, store: Arc<Store>) -> Self {
        Self { config, store }
    }

    /// How it runs.
    pub fn mode(&self) -> LoopMode {
        self.config.mode
    }

    /// Its settings as `_protocol.safety_loop` shows them (SPEC §8.7.4).
    pub fn describe(&self) -> Value {
        let globs = |globs: &[crate::config::Glob]| -> Vec<String> {
            globs.iter().map(|glob| glob.as_str().to_owned()).collect()
        };
        json!({
            "mode": self.config.mode.as_str(),
            "maxAutonomousSteps": self.config.max_steps,
            "deny": globs(&self.config.deny),
            "requiresApproval": globs(&self.config.requires_approval),
            "autoApprove": globs(&self.config.auto_approve),
            "patterns_match": "globs (* and ?) over the whole nextActionHint, from its start or the start of any word, both read with case, look-alike letters, accents, punctuation, spacing and the order of single-dash flags set aside",
            "stages": ["step_limit", "previous_outcome", "pattern_matching"],
            "agent_scope": "the caller's element_name: each caller's agents are its own",
        })
    }

    /// Runs `op` with `params` for `context`; the gate asks the person where one must approve.
    ///
    /// # Errors
    ///
    /// Invalid params; a blocked agent; what stops an approval or verification; an
    /// unreachable store.
    pub async fn run<O: Observer>(
        &self,
        op: LoopOp,
        params: &Map<String, Value>,
        gate: &Gate,
        context: &Context<'_, O>,
    ) -> Result<Value, AqlError> {
        check_params(op, params)?;
        let op = match op {
            LoopOp::Agent(op) => op,
            LoopOp::VerifyChallenge => {
                let id = text(params, "challenge_id").unwrap_or_default();
                return self.verify(id, text(params, "code"), gate, context).await;
            }
        };
        let name = text(params, "element_name").unwrap_or_default();
        if name.is_empty() || name.len() > MAX_NAME {
            return Err(AqlError::new(
                ErrorCode::ValidationInvalidValue,
                format!("'element_name' must be 1 to {MAX_NAME} bytes long"),
            )
            .with_detail("param", "element_name"));
        }
        let owner = context.caller.owner();
        let mut agent = agents::load(&self.store, &owner, name).await?;
        let answer = match op {
            AgentOp::ExecuteAgent => {
                self.start(
                    &owner,
                    name,
                    text(params, "goal"),
                    &mut agent,
                    gate,
                    context,
                )
                .await?
            }
            AgentOp::RecordExecutionStep => {
                self.record(&owner, name, params, &mut agent, gate, context)
                    .await?
            }
            AgentOp::CompleteExecution | AgentOp::AbortExecution => end(op, name, &mut agent)?,
            AgentOp::ConfirmOperation => self.lift_pause(name, &mut agent, gate, context).await?,
        };
        agents::save(&self.store, &owner, name, &agent).await?;
        Ok(answer)
    }

    /// `execute_agent`: refused while blocked; in enforcing mode a person approves; then a new
    /// execution replaces any other of the agent.
    async fn start<O: Observer>(
        &self,
        owner: &str,
        name: &str,
        goal: Option<&str>,
        agent: &mut Agent,
        gate: &Gate,
        context: &Context<'_, O>,
    ) -> Result<Value, AqlError> {
        if let Some(block) = &agent.block {
            return Err(blocked(name, block));
        }
        if self.config.mode == LoopMode::Enforcing {
            let summary = match goal {
                Some(goal) => format!(
                    "Start a monitored execution of agent '{name}': {}",
                    shorten(goal, MAX_ACTION)
                ),
                None => format!("Start a monitored execution of agent '{name}'"),
            };
            let preview = json!({
                "element_name": name,
                "goal": goal,
                "max_autonomous_steps": self.config.max_steps,
            });
            let reasons = vec![
                "every action the agent reports is then evaluated by the execution safety loop (SPEC §8.6.2)".to_owned(),
                "a monitored execution starts only with a person's approval".to_owned(),
            ];
            // The person's answer holds for exactly this agent and goal.
            let scope = preview.as_object().cloned().unwrap_or_default();
            let held = Held::new(
                about(LoopOp::Agent(AgentOp::ExecuteAgent)),
                summary,
                reasons,
                preview,
                &scope,
            );
            gate.approve(&held, context).await?;
        }
        let id = random_hex(16)
            .map(|hex| format!("exe_{hex}"))
            .ok_or_else(|| {
                AqlError::new(
                    ErrorCode::InternalError,
                    "Internal error: no randomness for an execution id",
                )
            })?;
        agent.execution = Some(Execution {
            id: id.clone(),
            started_at: rfc3339(SystemTime::now()),
            steps: 0,
        });
        agent.pause = None;
        agent.seen = agents::latest(&self.store, owner).await?;
        let directive = json!({
            "continue": true,
            "factors": [format!("a monitored execution started in {} mode", self.config.mode.as_str())],
            "stepsRemaining": self.config.max_steps,
        });
        Ok(json!({
            "execution_id": id,
            "element_name": name,
            "status": "running",
            "mode": self.config.mode.as_str(),
            "directive": directive,
        }))
    }

    /// `record_execution_step`: the directive for the reported action.
    async fn record<O: Observer>(
        &self,
        owner: &str,
        name: &str,
        params: &Map<String, Value>,
        agent: &mut Agent,
        gate: &Gate,
        context: &Context<'_, O>,
    ) -> Result<Value, AqlError> {
        // Evaluated whole; only what is kept and shown is shortened.
        let hint = text(params, "nextActionHint").unwrap_or_default();
        let outcome = text(params, "outcome");
        if let Some(outcome) = outcome
            && !["success", "failure", "skipped"].contains(&outcome)
        {
            return Err(AqlError::new(
                ErrorCode::ValidationInvalidValue,
                "'outcome' must be one of success, failure, skipped",
            )
            .with_detail("param", "outcome"));
        }
        let mut notifications = agents::unseen(&self.store, owner, agent).await?;
        let enforcing = self.config.mode == LoopMode::Enforcing;
        if enforcing && let Some(block) = agent.block.as_mut() {
            if let Some(fresh) = self.renew(owner, name, block, gate, context).await? {
                notifications.push(fresh);
            }
            let directive = stopped(block);
            return Ok(self.answer(name, agent, directive, notifications));
        }
        let Some(execution) = agent.execution.as_mut() else {
            return Err(AqlError::new(
                ErrorCode::ValidationInvalidValue,
                format!("No monitored execution of agent '{name}' is running; start one with 'execute_agent'"),
            )
            .with_detail("element_name", name));
        };
        if self.config.mode == LoopMode::Logging {
            execution.steps += 1;
            let directive = json!({"continue": true, "factors": ["logging mode: the step is recorded, not evaluated"]});
            return Ok(self.answer(name, agent, directive, notifications));
        }
        if enforcing && let Some(pause) = &agent.pause {
            let directive = json!({
                "continue": false,
                "factors": ["the agent is paused"],
                "reason": format!("{}: waiting for the user to approve with confirm_operation", pause.reason),
                "nextStepRisk": evaluate::Tier::Confirm.as_str(),
            });
            return Ok(self.answer(name, agent, directive, notifications));
        }
        execution.steps += 1;
        let steps = execution.steps;
        let verdict = evaluate(&self.config, steps, outcome, hint);
        let action = shorten(hint, MAX_ACTION).into_owned();
        let tier = verdict.tier().as_str();
        let remaining = self.config.max_steps.saturating_sub(steps);
        let directive = match (verdict, enforcing) {
            (Verdict::Continue { factors }, _) => json!({
                "continue": true, "factors": factors, "stepsRemaining": remaining, "nextStepRisk": tier,
            }),
            (
                Verdict::Pause {
                    reason,
                    mut factors,
                    ..
                }
                | Verdict::Stop {
                    reason,
                    mut factors,
                },
                false,
            ) => {
                factors.push(format!(
                    "monitoring mode: advisory only; enforcing would not continue: {reason}"
                ));
                json!({"continue": true, "factors": factors, "stepsRemaining": remaining, "nextStepRisk": tier})
            }
            (
                Verdict::Pause {
                    kind,
                    reason,
                    factors,
                },
                true,
            ) => {
                notifications.push(agents::notification(
                    "autonomy_pause",
                    format!("Agent '{name}' is paused: {reason}"),
                    json!({"reason": reason}),
                ));
                agent.pause = Some(Pause {
                    kind,
                    reason: reason.clone(),
                    action,
                });
                json!({
                    "continue": false, "factors": factors, "reason": reason,
                    "stepsRemaining": remaining, "nextStepRisk": tier,
                })
            }
            (Verdict::Stop { reason, factors }, true) => {
                // The block holds whether or not the code could be sent: a channel that
                // fails leaves the agent stopped, and its next step tries again.
                let mut block = Block {
                    reason,
                    action,
                    challenge: None,
                };
                let renewed = self.renew(owner, name, &mut block, gate, context).await?;
                notifications.extend(renewed.filter(|notice| notice["type"] == "error"));
                let live = block.challenge.clone();
                let alert = agents::notification(
                    "danger_zone",
                    format!("Agent '{name}' is hard-blocked: {}", block.reason),
                    json!({"reason": block.reason, "verificationId": live.map(|live| live.id)}),
                );
                agents::broadcast(&self.store, owner, &alert).await?;
                notifications.extend(agents::unseen(&self.store, owner, agent).await?);
                let mut directive = stopped(&block);
                directive["factors"] = json!(factors);
                agent.block = Some(block);
                directive
            }
        };
        Ok(self.answer(name, agent, directive, notifications))
    }

    /// A fresh challenge for `block` when it has no live one, sent to the person: a
    /// `danger_zone` notification naming it, or an `error` one when the channel did not take
    /// the code (the block stays; the next step tries again).
    ///
    /// # Errors
    ///
    /// `INTERNAL_ERROR` when the store does not answer.
    async fn renew<O: Observer>(
        &self,
        owner: &str,
        name: &str,
        block: &mut Block,
        gate: &Gate,
        context: &Context<'_, O>,
    ) -> Result<Option<Value>, AqlError> {
        let now = unix_millis(SystemTime::now());
        if block
            .challenge
            .as_ref()
            .is_some_and(|live| live.expires_ms > now)
        {
            return Ok(None);
        }
        let verifier = gate.verifier();
        let subject = Subject {
            operation: &format!("agent '{name}': {}", block.action),
            danger: evaluate::Tier::DangerZone.as_str(),
        };
        let about = about(LoopOp::VerifyChallenge);
        let challenge = match verifier
            .issue(&agent_caller(owner, name), &agent_scope(name), subject)
            .await
        {
            Ok(challenge) => challenge,
            Err(error) => {
                gate.audit(context, about, Event::Denied, None, Some(error.code));
                return Ok(Some(agents::notification(
                    "error",
                    format!(
                        "Agent '{name}' stays blocked, and its verification code could not be sent on the operator's channel; the operator must check it. The next step tries again."
                    ),
                    json!({"reason": "verification_channel_unavailable"}),
                )));
            }
        };
        gate.audit(
            context,
            about,
            Event::ChallengeSent,
            Some(&challenge.id),
            None,
        );
        agents::remember_challenge(&self.store, &challenge.id, owner, name, verifier.ttl()).await?;
        let notification = agents::notification(
            "danger_zone",
            format!("Agent '{name}' stays blocked until the user verifies the code sent to them"),
            json!({"reason": block.reason, "verificationId": challenge.id}),
        );
        block.challenge = Some(Live {
            id: challenge.id,
            expires_at: challenge.expires_at,
            expires_ms: now + u64::try_from(verifier.ttl().as_millis()).unwrap_or(u64::MAX),
        });
        Ok(Some(notification))
    }

    /// The answer of `record_execution_step`.
    fn answer(
        &self,
        name: &str,
        agent: &Agent,
        directive: Value,
        notifications: Vec<Value>,
    ) -> Value {
        let mut directive = directive;
        if !notifications.is_empty() {
            directive["notifications"] = Value::Array(notifications);
        }
        json!({
            "element_name": name,
            "execution_id": agent.execution.as_ref().map(|execution| execution.id.as_str()),
            "step": agent.execution.as_ref().map_or(0, |execution| execution.steps),
            "directive": directive,
        })
    }

    /// `confirm_operation`: a person lifts the agent's pause.
    async fn lift_pause<O: Observer>(
        &self,
        name: &str,
        agent: &mut Agent,
        gate: &Gate,
        context: &Context<'_, O>,
    ) -> Result<Value, AqlError> {
        if let Some(block) = &agent.block {
            return Err(blocked(name, block));
        }
        let Some(pause) = agent.pause.clone() else {
            return Err(AqlError::new(
                ErrorCode::ValidationInvalidValue,
                format!("Agent '{name}' is not paused: there is nothing to confirm"),
            )
            .with_detail("element_name", name));
        };
        let summary = format!("Let agent '{name}' continue: {}", pause.action);
        let reasons = vec![
            format!("the safety loop paused it: {}", pause.reason),
            "only a person may lift a pause (SPEC §8.7.3)".to_owned(),
        ];
        let preview = json!({"element_name": name, "paused_because": pause.reason, "next_action": pause.action});
        // The person's answer holds for exactly this agent and the action it was paused on.
        let scope = preview.as_object().cloned().unwrap_or_default();
        let held = Held::new(
            about(LoopOp::Agent(AgentOp::ConfirmOperation)),
            summary,
            reasons,
            preview,
            &scope,
        );
        gate.approve(&held, context).await?;
        agent.pause = None;
        if pause.kind == PauseKind::StepLimit
            && let Some(execution) = agent.execution.as_mut()
        {
            execution.steps = 0;
        }
        Ok(json!({
            "element_name": name,
            "directive": {"continue": true, "factors": ["the user approved the paused action"], "stepsRemaining": self.config.max_steps},
        }))
    }

    /// `verify_challenge`: the code lifts the block of the agent it was sent for.
    async fn verify<O: Observer>(
        &self,
        id: &str,
        code: Option<&str>,
        gate: &Gate,
        context: &Context<'_, O>,
    ) -> Result<Value, AqlError> {
        let verifier = gate.verifier();
        let about = about(LoopOp::VerifyChallenge);
        // Another caller's challenge is answered as no challenge at all.
        let owner = context.caller.owner();
        let Some(name) = agents::challenged(&self.store, id)
            .await?
            .filter(|(challenged, _)| *challenged == owner)
            .map(|(_, name)| name)
        else {
            return Err(AqlError::new(
                ErrorCode::PermissionVerificationFailed,
                "Verification failed: no live challenge has this id (expired, tried, or never issued); the agent's next record_execution_step sends a new code",
            ));
        };
        let code = match code {
            Some(code) => code.to_owned(),
            None => self.ask_code(id, verifier, context).await?,
        };
        let mut agent = agents::load(&self.store, &owner, &name).await?;
        let checked = verifier
            .check(&agent_caller(&owner, &name), id, &agent_scope(&name), &code)
            .await;
        let (event, failure) = match &checked {
            Ok(()) => (Event::ChallengePassed, None),
            Err(error) => (Event::ChallengeFailed, Some(error.code)),
        };
        gate.audit(context, about, event, Some(id), failure);
        if let Some(block) = agent.block.as_mut()
            && block.challenge.as_ref().is_some_and(|live| live.id == id)
        {
            block.challenge = None;
        }
        if checked.is_ok() {
            agent.block = None;
            agent.pause = None;
        }
        agents::save(&self.store, &owner, &name, &agent).await?;
        checked?;
        Ok(json!({
            "element_name": name,
            "unblocked": true,
            "directive": {"continue": true, "factors": ["the user verified the code: the block is lifted"]},
        }))
    }

    /// Asks the person for the code in a form, on a session.
    async fn ask_code<O: Observer>(
        &self,
        id: &str,
        verifier: &Verifier,
        context: &Context<'_, O>,
    ) -> Result<String, AqlError> {
        if context.observer.reach() != Reach::Now {
            return Err(AqlError::new(
                ErrorCode::ValidationMissingParam,
                "Missing required parameter 'code': this client cannot show the user a form, so the user must type the code themselves",
            )
            .with_detail("param", "code"));
        }
        let channel = verifier.channel().map_or_else(
            || "the operator's channel".to_owned(),
            |channel| channel.describe(),
        );
        let form = Form {
            message: format!(
                "An agent is hard-blocked by the execution safety loop. A verification code was sent to {channel} (challenge {id}). Enter it to lift the block; never give it to the assistant."
            ),
            field: Field::Code,
        };
        match context.observer.ask(&form).await {
            Answer::Code(code) => Ok(code),
            _ => Err(AqlError::new(
                ErrorCode::PermissionConfirmationDeclined,
                "The client's user did not enter the verification code, so the agent stays blocked",
            )),
        }
    }
}

/// The gate's subject for a loop operation: approvals are held as `dangerous`, audited at the
/// first adapter's trust level.
fn about(op: LoopOp) -> About {
    About {
        operation: op.name(),
        danger: DangerLevel::Dangerous,
        member: 0,
    }
}

/// Who a loop challenge is for: `owner`'s agent, whichever session reports for it.
fn agent_caller(owner: &str, name: &str) -> String {
    format!("safety-loop:{owner}:{name}")
}

fn agent_scope(name: &str) -> String {
    format!("agent:{name}")
}

/// The directive of a hard-blocked agent.
fn stopped(block: &Block) -> Value {
    let challenge = block.challenge.as_ref().map(|live| live.id.as_str());
    json!({
        "continue": false,
        "stopped": true,
        "factors": ["the agent is hard-blocked"],
        "reason": format!(
            "{}. Cease all actions; the user lifts the block with verify_challenge (challenge {})",
            block.reason,
            challenge.unwrap_or("pending")
        ),
        "nextStepRisk": evaluate::Tier::DangerZone.as_str(),
    })
}

/// `PERMISSION_AGENT_BLOCKED` for an operation a blocked agent may not run.
fn blocked(name: &str, block: &Block) -> AqlError {
    let mut error = AqlError::new(
        ErrorCode::PermissionAgentBlocked,
        format!(
            "Agent '{name}' is hard-blocked ({}); nothing runs for it until the user verifies the code sent to them with verify_challenge",
            block.reason
        ),
    )
    .with_detail("element_name", name);
    if let Some(live) = &block.challenge {
        error = error.with_detail("verificationId", live.id.as_str());
    }
    error
}

/// `complete_execution` or `abort_execution`: a blocked agent may abort, never complete.
fn end(op: AgentOp, name: &str, agent: &mut Agent) -> Result<Value, AqlError> {
    if op == AgentOp::CompleteExecution
        && let Some(block) = &agent.block
    {
        return Err(blocked(name, block));
    }
    let Some(execution) = agent.execution.take() else {
        return Err(AqlError::new(
            ErrorCode::ValidationInvalidValue,
            format!("No monitored execution of agent '{name}' is running"),
        )
        .with_detail("element_name", name));
    };
    agent.pause = None;
    let status = if op == AgentOp::CompleteExecution {
        "completed"
    } else {
        "cancelled"
    };
    Ok(json!({
        "execution_id": execution.id,
        "element_name": name,
        "status": status,
        "started_at": execution.started_at,
        "finished_at": rfc3339(SystemTime::now()),
        "steps": execution.steps,
    }))
}

/// The text param `name`, when it is one.
fn text<'a>(params: &'a Map<String, Value>, name: &str) -> Option<&'a str> {
    params.get(name).and_then(Value::as_str)
}

/// Unknown params, missing required ones and non-strings are refused, in that order.
fn check_params(op: LoopOp, params: &Map<String, Value>) -> Result<(), AqlError> {
    let known = op.params();
    if let Some(unknown) = params
        .keys()
        .find(|key| !known.iter().any(|(name, ..)| name == key))
    {
        let names: Vec<&str> = known.iter().map(|(name, ..)| *name).collect();
        return Err(AqlError::new(
            ErrorCode::ValidationUnknownParam,
            format!(
                "Unknown parameter '{}' for '{}'; it takes {}",
                shorten(unknown, 64),
                op.name(),
                names.join(", ")
            ),
        )
        .with_detail("param", shorten(unknown, 64).into_owned()));
    }
    for (name, _, required, _) in known {
        match params.get(*name) {
            None | Some(Value::Null) if *required => {
                return Err(AqlError::new(
                    ErrorCode::ValidationMissingParam,
                    format!("Missing required parameter '{name}' for '{}'", op.name()),
                )
                .with_detail("param", *name));
            }
            None | Some(Value::Null | Value::String(_)) => {}
            Some(_) => {
                return Err(AqlError::new(
                    ErrorCode::ValidationInvalidType,
                    format!("Parameter '{name}' of '{}' must be a string", op.name()),
                )
                .with_detail("param", *name)
                .with_detail("expected", "string"));
            }
        }
    }
    Ok(())
}
