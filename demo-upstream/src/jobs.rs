//! Long-running jobs behind the todo API's key: `POST /jobs` starts one and answers 202 with
//! where to poll, `GET /jobs/{id}` tells how far it got, `POST /jobs/{id}/cancel` stops it.
//!
//! No task does any work: a job's state follows from the time since it was created, so a
//! client that polls sees it move `queued` → `running` → `succeeded` (or `failed`), and a
//! client that cancels freezes it as `canceled`. Errors are `{"error": "..."}`, as in the rest
//! of the todo API.

use std::collections::BTreeMap;
use std::ops::RangeInclusive;
use std::time::{Duration, Instant, SystemTime};

use axum::http::{HeaderName, Method, StatusCode, header};
use serde_json::{Value, json};

use crate::call::{Call, Reply, utc_millis};

/// The length `kind` may have, in characters.
const KIND_CHARS: RangeInclusive<usize> = 1..=64;
/// `steps`: its range and default.
const STEPS: RangeInclusive<u64> = 1..=1000;
const DEFAULT_STEPS: u64 = 5;
/// `step_ms`: its range and default.
const STEP_MS: RangeInclusive<u64> = 1..=60_000;
const DEFAULT_STEP_MS: u64 = 200;
/// `start_after_ms`: its range; by default a job starts at once.
const START_AFTER_MS: RangeInclusive<u64> = 0..=60_000;
/// A succeeded job's `result.rows` per step.
const ROWS_PER_STEP: u64 = 10;

/// Jobs by number: job `job_<n>` is entry `n`.
#[derive(Debug, Default)]
pub(crate) struct Jobs {
    jobs: BTreeMap<u64, Job>,
    next_id: u64,
}

/// One job: what was asked for and when.
#[derive(Debug)]
struct Job {
    id: String,
    kind: String,
    steps: u64,
    step: Duration,
    /// The step at which it fails instead of going on; `None` to succeed.
    fail_at: Option<u64>,
    /// How long it stays queued.
    start_after: Duration,
    created: Instant,
    created_at: SystemTime,
    /// How long after its creation it was canceled.
    canceled_after: Option<Duration>,
}

/// Where a job stands at one moment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Queued,
    Running,
    Succeeded,
    Failed,
    Canceled,
}

impl State {
    fn name(self) -> &'static str {
        match self {
            Self::Queued => "queued",
            Self::Running => "running",
            Self::Succeeded => "succeeded",
            Self::Failed => "failed",
            Self::Canceled => "canceled",
        }
    }

    fn is_terminal(self) -> bool {
        matches!(self, Self::Succeeded | Self::Failed | Self::Canceled)
    }
}

impl Jobs {
    /// Routes one call below `/jobs`; `segments` is the decoded path after it.
    pub(crate) fn answer(&mut self, call: &Call, segments: &[&str]) -> Reply {
        let now = Instant::now();
        let method = &call.method;
        match segments {
            [] if method == Method::POST => self.create(call, now),
            [id, rest @ ..] => {
                let Some(job) = job_number(id).and_then(|number| self.jobs.get_mut(&number)) else {
                    return error(StatusCode::NOT_FOUND, &format!("job {id} not found"));
                };
                match rest {
                    [] if method == Method::GET => Reply::ok(job.view(now)),
                    ["cancel"] if method == Method::POST => job.cancel(now),
                    _ => error(StatusCode::NOT_FOUND, "no such route"),
                }
            }
            _ => error(StatusCode::NOT_FOUND, "no such route"),
        }
    }

    /// `POST /jobs`: 202 with `Location` and `Operation-Location`, or 400 for a field of the
    /// wrong type and 422 for one out of range.
    fn create(&mut self, call: &Call, now: Instant) -> Reply {
        let job = match Job::new(call, format!("job_{}", self.next_id + 1), now) {
            Ok(job) => job,
            Err(reply) => return reply,
        };
        self.next_id += 1;
        let location = format!("/jobs/{}", job.id);
        let body = json!({ "id": job.id, "state": job.state(now).name(), "kind": job.kind });
        self.jobs.insert(self.next_id, job);
        Reply::json(StatusCode::ACCEPTED, body)
            .header(header::LOCATION, location.clone())
            .header(HeaderName::from_static("operation-location"), location)
    }
}

impl Job {
    /// The job the body of `POST /jobs` asks for, created at `now`.
    fn new(call: &Call, id: String, now: Instant) -> Result<Self, Reply> {
        let kind = match call.body.get("kind") {
            Some(Value::String(kind)) if KIND_CHARS.contains(&kind.chars().count()) => kind,
            Some(Value::String(_)) => {
                return Err(error(
                    StatusCode::UNPROCESSABLE_ENTITY,
                    "kind must be 1 to 64 characters",
                ));
            }
            Some(_) => return Err(error(StatusCode::BAD_REQUEST, "kind must be a string")),
            None => return Err(error(StatusCode::BAD_REQUEST, "kind is required")),
        };
        let steps = integer(call, "steps", STEPS)?.unwrap_or(DEFAULT_STEPS);
        let step_ms = integer(call, "step_ms", STEP_MS)?.unwrap_or(DEFAULT_STEP_MS);
        let fail_at = integer(call, "fail_at", 1..=steps)?;
        let start_after_ms = integer(call, "start_after_ms", START_AFTER_MS)?.unwrap_or(0);
        Ok(Self {
            id,
            kind: kind.clone(),
            steps,
            step: Duration::from_millis(step_ms),
            fail_at,
            start_after: Duration::from_millis(start_after_ms),
            created: now,
            created_at: SystemTime::now(),
            canceled_after: None,
        })
    }

    /// The state at `now` and the steps done by then.
    ///
    /// Queued until `start_after` has passed (and at the instant of creation); then one step
    /// is done every `step`; it has succeeded once `steps` are done, or failed once `fail_at`
    /// are. A canceled job stays where the cancel found it.
    fn progress(&self, now: Instant) -> (State, u64) {
        let elapsed = self
            .canceled_after
            .unwrap_or_else(|| now.saturating_duration_since(self.created));
        let running = elapsed.saturating_sub(self.start_after);
        let done = if elapsed <= self.start_after {
            0
        } else {
            u64::try_from(running.as_nanos() / self.step.as_nanos()).unwrap_or(u64::MAX)
        };
        let (state, done) = match self.fail_at {
            Some(fail_at) if done >= fail_at => (State::Failed, fail_at),
            _ if done >= self.steps => (State::Succeeded, self.steps),
            _ if elapsed <= self.start_after => (State::Queued, 0),
            _ => (State::Running, done),
        };
        if self.canceled_after.is_some() {
            (State::Canceled, done)
        } else {
            (state, done)
        }
    }

    fn state(&self, now: Instant) -> State {
        self.progress(now).0
    }

    /// How long after creation the job ended; `None` while it has not.
    fn finished_after(&self, now: Instant) -> Option<Duration> {
        let (state, done) = self.progress(now);
        match state {
            State::Canceled => self.canceled_after,
            State::Succeeded | State::Failed => {
                let steps = u32::try_from(done).unwrap_or(u32::MAX);
                Some(self.start_after + self.step * steps)
            }
            State::Queued | State::Running => None,
        }
    }

    /// The body of `GET /jobs/{id}` at `now`.
    fn view(&self, now: Instant) -> Value {
        let (state, done) = self.progress(now);
        let mut view = json!({
            "id": self.id,
            "kind": self.kind,
            "state": state.name(),
            "progress": {
                "done": done,
                "total": self.steps,
                "percent": done * 100 / self.steps,
            },
            "message": format!("step {done} of {}", self.steps),
            "created_at": utc_millis(self.created_at),
            "finished_at": self
                .finished_after(now)
                .map(|after| utc_millis(self.created_at + after)),
        });
        match state {
            State::Succeeded => view["result"] = json!({ "rows": self.steps * ROWS_PER_STEP }),
            State::Failed => {
                view["error"] =
                    json!({ "code": "JOB_FAILED", "message": format!("step {done} failed") });
            }
            State::Queued | State::Running | State::Canceled => {}
        }
        view
    }

    /// `POST /jobs/{id}/cancel`: 202 while queued or running, 409 once finished.
    fn cancel(&mut self, now: Instant) -> Reply {
        let state = self.state(now);
        if state.is_terminal() {
            return error(
                StatusCode::CONFLICT,
                &format!("job {} already finished ({})", self.id, state.name()),
            );
        }
        self.canceled_after = Some(now.saturating_duration_since(self.created));
        Reply::json(
            StatusCode::ACCEPTED,
            json!({ "id": self.id, "state": State::Canceled.name() }),
        )
    }
}

/// The body field `name` as a whole number in `range`: `None` when absent or `null`, 400 when
/// it is not a whole number, 422 when out of range.
fn integer(call: &Call, name: &str, range: RangeInclusive<u64>) -> Result<Option<u64>, Reply> {
    let number = match call.body.get(name) {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::Number(number)) if number.is_u64() || number.is_i64() => number.as_u64(),
        Some(_) => {
            return Err(error(
                StatusCode::BAD_REQUEST,
                &format!("{name} must be an integer"),
            ));
        }
    };
    match number {
        Some(number) if range.contains(&number) => Ok(Some(number)),
        _ => Err(error(
            StatusCode::UNPROCESSABLE_ENTITY,
            &format!(
                "{name} must be between {} and {}",
                range.start(),
                range.end()
            ),
        )),
    }
}

/// `n` of a job id `job_<n>`.
fn job_number(id: &str) -> Option<u64> {
    id.strip_prefix("job_")?.parse().ok()
}

fn error(status: StatusCode, message: &str) -> Reply {
    Reply::json(status, json!({ "error": message }))
}

#[cfg(test)]
mod tests {
    use axum::response::IntoResponse;

    use super::*;

    fn job(steps: u64, fail_at: Option<u64>, start_after_ms: u64) -> Job {
        Job {
            id: "job_1".into(),
            kind: "export".into(),
            steps,
            step: Duration::from_millis(100),
            fail_at,
            start_after: Duration::from_millis(start_after_ms),
            created: Instant::now(),
            created_at: SystemTime::now(),
            canceled_after: None,
        }
    }

    fn at(job: &Job, millis: u64) -> Instant {
        job.created + Duration::from_millis(millis)
    }

    #[test]
    fn state_follows_the_time_since_creation() {
        let job = job(3, None, 250);
        for (millis, state, done) in [
            (0, State::Queued, 0),
            (250, State::Queued, 0),
            (251, State::Running, 0),
            (349, State::Running, 0),
            (350, State::Running, 1),
            (549, State::Running, 2),
            (550, State::Succeeded, 3),
            (10_000, State::Succeeded, 3),
        ] {
            assert_eq!(job.progress(at(&job, millis)), (state, done), "{millis} ms");
        }
        let view = job.view(at(&job, 450));
        assert_eq!(
            view["progress"],
            json!({ "done": 2, "total": 3, "percent": 66 })
        );
        assert_eq!(view["message"], "step 2 of 3");
        assert_eq!(view["finished_at"], Value::Null);
        assert!(view.get("result").is_none() && view.get("error").is_none());

        let done = job.view(at(&job, 600));
        assert_eq!(done["result"], json!({ "rows": 30 }));
        assert_eq!(
            done["finished_at"],
            json!(utc_millis(job.created_at + Duration::from_millis(550)))
        );
    }

    #[test]
    fn a_job_fails_when_it_reaches_fail_at() {
        let job = job(5, Some(2), 0);
        assert_eq!(job.progress(at(&job, 199)), (State::Running, 1));
        assert_eq!(job.progress(at(&job, 200)), (State::Failed, 2));
        let view = job.view(at(&job, 900));
        assert_eq!(view["state"], "failed");
        assert_eq!(view["message"], "step 2 of 5");
        assert_eq!(
            view["error"],
            json!({ "code": "JOB_FAILED", "message": "step 2 failed" })
        );
        assert!(view.get("result").is_none());
        assert_eq!(
            view["finished_at"],
            json!(utc_millis(job.created_at + Duration::from_millis(200)))
        );
    }

    #[test]
    fn a_canceled_job_stays_where_the_cancel_found_it() {
        let mut job = job(3, None, 0);
        let reply = job.cancel(at(&job, 150)).into_response().status();
        assert_eq!(reply, StatusCode::ACCEPTED);
        assert_eq!(job.progress(at(&job, 10_000)), (State::Canceled, 1));
        let view = job.view(at(&job, 10_000));
        assert_eq!(
            view["finished_at"],
            json!(utc_millis(job.created_at + Duration::from_millis(150)))
        );
        assert_eq!(
            job.cancel(at(&job, 10_000)).into_response().status(),
            StatusCode::CONFLICT
        );
    }
}
