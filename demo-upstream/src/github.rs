//! The GitHub-like API of `adapters/github-adapter.md`: every route it maps to, answering with
//! the fields GitHub's own JSON has (a useful subset of them), GitHub's error shapes, its
//! `Link` header on lists, and `ETag`s that `If-Match` checks on a `PATCH`.
//!
//! Workflow runs outlive the request that starts them, as GitHub's do: a dispatched (or rerun)
//! run is `queued`, then `in_progress`, then `completed`, by the time since it started (see
//! [`Run`]), and `POST .../actions/runs/{run_id}/cancel` stops one that has not completed.

use std::collections::BTreeMap;
use std::time::{Duration, Instant, SystemTime};

use axum::http::{Method, StatusCode, header};
use serde_json::{Map, Value, json};

use crate::call::{Call, Reply, apply, etag, page_of, timestamp, utc_seconds};

/// The user the bearer token belongs to: `POST /user/repos` creates repositories for them.
const AUTHENTICATED_USER: &str = "octo";

/// How long a dispatched or rerun workflow run stays `queued`.
const RUN_QUEUED_FOR: Duration = Duration::from_millis(100);

/// When a dispatched workflow run completes, unless its input `duration_ms` says otherwise.
const RUN_DURATION: Duration = Duration::from_millis(600);

/// The longest `duration_ms` input: a day.
const MAX_RUN_DURATION_MS: u64 = 86_400_000;

/// The workflow whose runs conclude `failure`; every other one's conclude `success`.
const FAILING_WORKFLOW: &str = "fail.yml";

/// Where GitHub documents the dispatch route, named in its 422 answers.
const DISPATCH_DOCS: &str =
    "https://docs.github.com/rest/actions/workflows#create-a-workflow-dispatch-event";

/// One repository and everything that hangs off it.
#[derive(Debug)]
struct Repo {
    data: Value,
    issues: Vec<Value>,
    pulls: Vec<Value>,
    /// Comments with the number of the issue they belong to.
    comments: Vec<(u64, Value)>,
    labels: Vec<Value>,
    runs: Vec<Run>,
    /// Issues and pull requests share one sequence of numbers, as on GitHub.
    next_number: u64,
}

/// Users and their repositories.
#[derive(Debug)]
pub(crate) struct Github {
    users: BTreeMap<String, Value>,
    repos: BTreeMap<(String, String), Repo>,
    /// The teams of organizations, by organization and slug.
    teams: BTreeMap<(String, String), Team>,
    /// Source of ids and of the logical clock.
    tick: u64,
}

/// A team of an organization: the repositories it maintains and its members.
#[derive(Debug)]
struct Team {
    data: Value,
    repos: Vec<(String, String)>,
    members: Vec<String>,
}

/// The organization whose repositories, teams and many issues the query language's tests
/// and examples read.
const ORG: &str = "acme";

/// Issues of `acme/tracker`: more than one page of 100, so counting them takes a scan.
const TRACKER_ISSUES: u64 = 150;

/// One workflow run.
///
/// An attempt that started while the server runs is `queued` for [`RUN_QUEUED_FOR`] (or until
/// it completes, if sooner), then `in_progress`, then `completed` with `conclusion` once
/// `duration` has passed since its start; a cancel before that completes it at once with
/// conclusion `cancelled`.
#[derive(Debug)]
struct Run {
    /// The fields that do not change with time: `id`, `name` (the workflow), `head_branch`,
    /// `run_attempt`, `inputs` and `created_at`.
    data: Value,
    /// How long an attempt takes.
    duration: Duration,
    /// How an attempt ends when nobody cancels it: `success` or `failure`.
    conclusion: &'static str,
    /// The attempt in progress or last run; `None` for a seeded run, completed before the
    /// server started.
    attempt: Option<Attempt>,
}

/// One attempt of a [`Run`], started while the server runs.
#[derive(Debug)]
struct Attempt {
    started: Instant,
    started_at: SystemTime,
    /// How long after its start it was canceled.
    canceled_after: Option<Duration>,
}

impl Run {
    /// `status`, `conclusion` (`None` until completed) and, for an attempt, how long after its
    /// start that status began.
    fn status(&self, now: Instant) -> (&'static str, Option<&'static str>, Option<Duration>) {
        let Some(attempt) = &self.attempt else {
            return ("completed", Some(self.conclusion), None);
        };
        if let Some(canceled) = attempt.canceled_after {
            return ("completed", Some("cancelled"), Some(canceled));
        }
        let elapsed = now.saturating_duration_since(attempt.started);
        if elapsed >= self.duration {
            ("completed", Some(self.conclusion), Some(self.duration))
        } else if elapsed < RUN_QUEUED_FOR {
            ("queued", None, Some(Duration::ZERO))
        } else {
            ("in_progress", None, Some(RUN_QUEUED_FOR))
        }
    }

    /// The run as GitHub shows it at `now`; `url` is below `origin`, the server as the client
    /// sees it.
    fn view(&self, (owner, repo): &(String, String), origin: &str, now: Instant) -> Value {
        let (status, conclusion, since) = self.status(now);
        let mut run = self.data.clone();
        let path = format!("{owner}/{repo}/actions/runs/{}", run["id"]);
        let (started_at, updated_at) = match (&self.attempt, since) {
            (Some(attempt), Some(since)) => (
                json!(utc_seconds(attempt.started_at)),
                json!(utc_seconds(attempt.started_at + since)),
            ),
            _ => (run["created_at"].clone(), run["created_at"].clone()),
        };
        run["status"] = json!(status);
        run["conclusion"] = json!(conclusion);
        run["run_started_at"] = started_at;
        run["updated_at"] = updated_at;
        run["url"] = json!(format!("{origin}/repos/{path}"));
        run["html_url"] = json!(format!("https://github.com/{path}"));
        run
    }

    /// Starts a new attempt at `now`, `wall` on the wall clock.
    fn start(&mut self, now: Instant, wall: SystemTime) {
        self.attempt = Some(Attempt {
            started: now,
            started_at: wall,
            canceled_after: None,
        });
    }

    /// `POST .../actions/runs/{run_id}/cancel`: 202 `{}` unless the run has completed.
    fn cancel(&mut self, now: Instant) -> Reply {
        let completed = self.status(now).0 == "completed";
        match &mut self.attempt {
            Some(attempt) if !completed => {
                attempt.canceled_after = Some(now.saturating_duration_since(attempt.started));
                Reply::json(StatusCode::ACCEPTED, json!({}))
            }
            _ => Reply::json(
                StatusCode::CONFLICT,
                json!({
                    "message": "Cannot cancel a workflow run that is completed.",
                    "documentation_url": "https://docs.github.com/rest/actions/workflow-runs#cancel-a-workflow-run",
                }),
            ),
        }
    }
}

impl Github {
    /// User `octo` with `octo/hello-world`: open issue #1 "Found a bug" (label `bug`, comment
    /// id 5), closed issue #2, open pull request #3 (`fix-crash` into `main`), label `bug`,
    /// workflow runs 9 (success) and 10 (failure); user `hubot` with no repositories. Tests and
    /// the README use these numbers, so keep the insertion order.
    pub(crate) fn seeded() -> Self {
        let mut github = Self {
            users: BTreeMap::new(),
            repos: BTreeMap::new(),
            teams: BTreeMap::new(),
            tick: 0,
        };
        for login in [AUTHENTICATED_USER, "hubot"] {
            let id = github.next_id();
            github.users.insert(
                login.to_owned(),
                json!({
                    "login": login,
                    "id": id,
                    "type": "User",
                    "name": login,
                    "public_repos": 0,
                    "created_at": timestamp(id),
                }),
            );
        }
        github.insert_repo(
            AUTHENTICATED_USER,
            &object(
                json!({ "name": "hello-world", "description": "My first repository on GitHub!" }),
            ),
        );
        let key = (AUTHENTICATED_USER.to_owned(), "hello-world".to_owned());
        let bug = object(
            json!({ "title": "Found a bug", "body": "It crashes on start.", "labels": ["bug"] }),
        );
        let bug = github.insert_issue(&key, &bug);
        let bug = bug["number"].as_u64().unwrap_or_default();
        github.insert_comment(&key, bug, &object(json!({ "body": "Me too!" })));
        let readme = object(json!({ "title": "Add a README", "body": "" }));
        let readme = github.insert_issue(&key, &readme);
        let readme = readme["number"].as_u64().unwrap_or_default();
        github.issue_mut(&key, readme)["state"] = json!("closed");
        let label_id = github.next_id();
        let pull = object(
            json!({ "title": "Fix the crash on start", "head": "fix-crash", "base": "main" }),
        );
        github.insert_pull(&key, &pull);
        let run_ids = [github.next_id(), github.next_id()];
        let repo = github.repo_mut(&key);
        repo.labels
            .push(label("bug", "d73a4a", "Something isn't working", label_id));
        for (run_id, conclusion) in run_ids.into_iter().zip(["success", "failure"]) {
            repo.runs.push(Run {
                data: json!({
                    "id": run_id,
                    "name": "CI",
                    "head_branch": "main",
                    "run_attempt": 1,
                    "created_at": timestamp(run_id),
                }),
                duration: RUN_DURATION,
                conclusion,
                attempt: None,
            });
        }
        github.seed_org();
        github
    }

    /// Organization `acme`: repositories `api`, `web` and `tracker`; team `platform`
    /// (maintains all three; members `octo` and `hubot`) and team `docs` (maintains `web`;
    /// member `hubot`); open pull requests #1-#3 in `api` (#4 closed) and #1 in `web`; and
    /// [`TRACKER_ISSUES`] issues in `tracker` whose labels, comments, states and dates follow
    /// their number `n`: `backend` when `n % 3 == 0`, `perf` when `n % 4 == 0`, `ui` when
    /// `n % 5 == 0`, `docs` when `n % 7 == 0`; `n % 9` comments; closed when `n % 6 == 0`;
    /// opened on day `1 + n % 28` of January 2026 and last changed on day `1 + n % 28` of
    /// February. Tests count from these rules directly.
    fn seed_org(&mut self) {
        let id = self.next_id();
        self.users.insert(
            ORG.to_owned(),
            json!({
                "login": ORG,
                "id": id,
                "type": "Organization",
                "name": "Acme Inc.",
                "public_repos": 0,
                "created_at": timestamp(id),
            }),
        );
        for name in ["api", "web", "tracker"] {
            self.insert_repo(ORG, &object(json!({ "name": name })));
        }
        let api = (ORG.to_owned(), "api".to_owned());
        for (title, head) in [
            ("Speed up the login", "login-speed"),
            ("Add rate limits", "rate-limits"),
            ("Document the errors", "error-docs"),
            ("Old experiment", "experiment"),
        ] {
            self.insert_pull(
                &api,
                &object(json!({ "title": title, "head": head, "base": "main" })),
            );
        }
        if let Some(old) = self.repo_mut(&api).pulls.last_mut() {
            old["state"] = json!("closed");
        }
        let web = (ORG.to_owned(), "web".to_owned());
        self.insert_pull(
            &web,
            &object(json!({ "title": "New landing page", "head": "landing", "base": "main" })),
        );
        let tracker = (ORG.to_owned(), "tracker".to_owned());
        for n in 1..=TRACKER_ISSUES {
            let labels: Vec<&str> = [(3, "backend"), (4, "perf"), (5, "ui"), (7, "docs")]
                .into_iter()
                .filter(|(every, _)| n.is_multiple_of(*every))
                .map(|(_, name)| name)
                .collect();
            let body = object(
                json!({ "title": format!("Tracker item {n}"), "body": format!("Item {n} of the tracker."), "labels": labels }),
            );
            let number = self.insert_issue(&tracker, &body)["number"]
                .as_u64()
                .unwrap_or_default();
            let issue = self.issue_mut(&tracker, number);
            issue["comments"] = json!(n % 9);
            issue["user"] = json!({ "login": if n.is_multiple_of(2) { "octo" } else { "hubot" } });
            issue["created_at"] = json!(format!("2026-01-{:02}T{:02}:00:00Z", 1 + n % 28, n % 24));
            issue["updated_at"] = json!(format!("2026-02-{:02}T{:02}:00:00Z", 1 + n % 28, n % 24));
            if n.is_multiple_of(6) {
                issue["state"] = json!("closed");
            }
        }
        for (slug, name, repos, members) in [
            (
                "platform",
                "Platform",
                &["api", "web", "tracker"][..],
                &["octo", "hubot"][..],
            ),
            ("docs", "Docs", &["web"][..], &["hubot"][..]),
        ] {
            let id = self.next_id();
            self.teams.insert(
                (ORG.to_owned(), slug.to_owned()),
                Team {
                    data: json!({
                        "id": id,
                        "name": name,
                        "slug": slug,
                        "organization": { "login": ORG },
                    }),
                    repos: repos
                        .iter()
                        .map(|repo| (ORG.to_owned(), (*repo).to_owned()))
                        .collect(),
                    members: members.iter().map(|login| (*login).to_owned()).collect(),
                },
            );
        }
    }

    /// Routes below `/orgs/{org}/teams/{team_slug}`.
    fn answer_team(&self, call: &Call, org: &str, slug: &str, rest: &[&str]) -> Reply {
        let Some(team) = self.teams.get(&(org.to_owned(), slug.to_owned())) else {
            return not_found();
        };
        match rest {
            [] => Reply::ok(team.data.clone()),
            ["repos"] => {
                let repos = team
                    .repos
                    .iter()
                    .filter_map(|key| self.repos.get(key))
                    .map(|repo| repo.data.clone())
                    .collect();
                paginate(repos, call, Value::Array)
            }
            ["members"] => {
                let members = team
                    .members
                    .iter()
                    .filter_map(|login| self.users.get(login))
                    .map(|user| json!({ "login": user["login"], "id": user["id"], "type": user["type"] }))
                    .collect();
                paginate(members, call, Value::Array)
            }
            _ => not_found(),
        }
    }

    /// Routes one call; `segments` is the decoded path.
    pub(crate) fn answer(&mut self, call: &Call, segments: &[&str]) -> Reply {
        let method = &call.method;
        match segments {
            ["user", "repos"] if method == Method::POST => self.create_repo(call),
            ["users", login] if method == Method::GET => match self.users.get(*login) {
                Some(user) => Reply::ok(user.clone()),
                None => not_found(),
            },
            ["users", login, "repos"] if method == Method::GET => self.list_repos(call, login),
            ["search", "issues"] if method == Method::GET => self.search_issues(call),
            ["orgs", org, "teams", slug, rest @ ..] if method == Method::GET => {
                self.answer_team(call, org, slug, rest)
            }
            ["repos", owner, repo, rest @ ..] => {
                let key = ((*owner).to_owned(), (*repo).to_owned());
                if !self.repos.contains_key(&key) {
                    return not_found();
                }
                self.answer_repo(call, key, rest)
            }
            _ => not_found(),
        }
    }

    /// Routes below `/repos/{owner}/{repo}`, for a repository that exists.
    fn answer_repo(&mut self, call: &Call, key: (String, String), rest: &[&str]) -> Reply {
        let method = &call.method;
        match rest {
            [] if method == Method::GET => Reply::tagged(self.repo_mut(&key).data.clone()),
            [] if method == Method::PATCH => self.update_repo(call, key),
            [] if method == Method::DELETE => {
                self.repos.remove(&key);
                Reply::empty(StatusCode::NO_CONTENT)
            }
            ["topics"] if method == Method::PUT => {
                let Some(names) = call.body.get("names").filter(|names| names.is_array()) else {
                    return validation_failed("Repository", "names", "missing_field");
                };
                let repo = self.repo_mut(&key);
                repo.data["topics"] = names.clone();
                Reply::ok(json!({ "names": names }))
            }
            ["issues"] if method == Method::GET => {
                let items = filter_issues(&self.repo_mut(&key).issues, call);
                paginate(items, call, Value::Array)
            }
            ["teams"] if method == Method::GET => {
                let teams = self
                    .teams
                    .values()
                    .filter(|team| team.repos.contains(&key))
                    .map(|team| team.data.clone())
                    .collect();
                paginate(teams, call, Value::Array)
            }
            ["issues"] if method == Method::POST => {
                if call.body_str("title").is_none() {
                    return validation_failed("Issue", "title", "missing_field");
                }
                Reply::created(self.insert_issue(&key, &call.body))
            }
            ["issues", "comments", id] if method == Method::DELETE => {
                let repo = self.repo_mut(&key);
                let before = repo.comments.len();
                repo.comments
                    .retain(|(_, comment)| !is_id(&comment["id"], id));
                if repo.comments.len() == before {
                    return not_found();
                }
                Reply::empty(StatusCode::NO_CONTENT)
            }
            ["issues", number, rest @ ..] => {
                let Some(number) = number.parse::<u64>().ok() else {
                    return not_found();
                };
                self.answer_issue(call, key, number, rest)
            }
            ["pulls"] if method == Method::GET => {
                let repo = self.repo_mut(&key);
                let state = call.query("state").unwrap_or("open");
                let base = call.query("base");
                let items = repo
                    .pulls
                    .iter()
                    .filter(|pull| state == "all" || pull["state"] == state)
                    .filter(|pull| base.is_none_or(|base| pull["base"]["ref"] == base))
                    .cloned()
                    .collect();
                paginate(items, call, Value::Array)
            }
            ["pulls"] if method == Method::POST => {
                let missing = ["title", "head", "base"]
                    .into_iter()
                    .find(|field| call.body_str(field).is_none());
                if let Some(field) = missing {
                    return validation_failed("PullRequest", field, "missing_field");
                }
                Reply::created(self.insert_pull(&key, &call.body))
            }
            ["pulls", number, rest @ ..] => {
                let repo = self.repo_mut(&key);
                let Some(pull) = repo
                    .pulls
                    .iter_mut()
                    .find(|pull| is_id(&pull["number"], number))
                else {
                    return not_found();
                };
                match rest {
                    [] if method == Method::GET => Reply::tagged(pull.clone()),
                    [] if method == Method::PATCH => update_pull(pull, call),
                    ["merge"] if method == Method::PUT => merge(pull, call),
                    _ => not_found(),
                }
            }
            ["labels"] if method == Method::POST => {
                let Some(name) = call.body_str("name") else {
                    return validation_failed("Label", "name", "missing_field");
                };
                let Some(color) = call.body_str("color") else {
                    return validation_failed("Label", "color", "missing_field");
                };
                let id = self.next_id();
                let description = call.body_str("description").unwrap_or_default();
                let repo = self.repo_mut(&key);
                if repo.labels.iter().any(|label| label["name"] == name) {
                    return validation_failed("Label", "name", "already_exists");
                }
                let label = label(name, color, description, id);
                repo.labels.push(label.clone());
                Reply::created(label)
            }
            ["labels", name] if method == Method::DELETE => {
                let repo = self.repo_mut(&key);
                let before = repo.labels.len();
                repo.labels.retain(|label| label["name"] != *name);
                if repo.labels.len() == before {
                    return not_found();
                }
                for issue in &mut repo.issues {
                    if let Some(labels) = issue["labels"].as_array_mut() {
                        labels.retain(|label| label["name"] != *name);
                    }
                }
                Reply::empty(StatusCode::NO_CONTENT)
            }
            ["actions", "runs"] if method == Method::GET => {
                let now = Instant::now();
                let origin = call.origin().unwrap_or_default();
                let branch = call.query("branch");
                let status = call.query("status");
                let mut runs: Vec<Value> = self
                    .repo_mut(&key)
                    .runs
                    .iter()
                    .map(|run| run.view(&key, origin, now))
                    .filter(|run| branch.is_none_or(|branch| run["head_branch"] == branch))
                    .filter(|run| {
                        status.is_none_or(|status| {
                            run["status"] == status || run["conclusion"] == status
                        })
                    })
                    .collect();
                runs.reverse();
                let total = runs.len();
                paginate(
                    runs,
                    call,
                    |runs| json!({ "total_count": total, "workflow_runs": runs }),
                )
            }
            ["actions", "runs", id, rest @ ..] => {
                let now = Instant::now();
                let origin = call.origin().unwrap_or_default().to_owned();
                let repo = self.repo_mut(&key);
                let Some(run) = repo.runs.iter_mut().find(|run| is_id(&run.data["id"], id)) else {
                    return not_found();
                };
                match rest {
                    [] if method == Method::GET => Reply::ok(run.view(&key, &origin, now)),
                    ["cancel"] if method == Method::POST => run.cancel(now),
                    ["rerun"] if method == Method::POST => {
                        let attempt = run.data["run_attempt"].as_u64().unwrap_or(1) + 1;
                        run.data["run_attempt"] = json!(attempt);
                        run.start(now, SystemTime::now());
                        // GitHub answers 201 Created with an empty body.
                        Reply::empty(StatusCode::CREATED)
                    }
                    _ => not_found(),
                }
            }
            ["actions", "workflows", workflow, "dispatches"] if method == Method::POST => {
                self.dispatch(call, key, workflow)
            }
            _ => not_found(),
        }
    }

    /// Routes below `/repos/{owner}/{repo}/issues/{number}`.
    fn answer_issue(
        &mut self,
        call: &Call,
        key: (String, String),
        number: u64,
        rest: &[&str],
    ) -> Reply {
        let method = &call.method;
        let exists = self
            .repo_mut(&key)
            .issues
            .iter()
            .any(|issue| issue["number"] == number);
        if !exists {
            return not_found();
        }
        match rest {
            [] if method == Method::GET => Reply::tagged(self.issue_mut(&key, number).clone()),
            [] if method == Method::PATCH => self.update_issue(call, &key, number),
            ["comments"] if method == Method::GET => {
                let items = self
                    .repo_mut(&key)
                    .comments
                    .iter()
                    .filter(|(on, _)| *on == number)
                    .map(|(_, comment)| comment.clone())
                    .collect();
                paginate(items, call, Value::Array)
            }
            ["comments"] if method == Method::POST => {
                if call.body_str("body").is_none() {
                    return validation_failed("IssueComment", "body", "missing_field");
                }
                Reply::created(self.insert_comment(&key, number, &call.body))
            }
            ["labels"] if method == Method::POST => {
                let Some(names) = call.body.get("labels").filter(|names| names.is_array()) else {
                    return validation_failed("Label", "labels", "missing_field");
                };
                let issue = self.issue_mut(&key, number);
                let mut labels = issue["labels"].as_array().cloned().unwrap_or_default();
                for added in label_objects(names).as_array().into_iter().flatten() {
                    if !labels.iter().any(|label| label["name"] == added["name"]) {
                        labels.push(added.clone());
                    }
                }
                issue["labels"] = Value::Array(labels.clone());
                Reply::ok(Value::Array(labels))
            }
            _ => not_found(),
        }
    }

    /// `POST .../actions/workflows/{workflow}/dispatches`: starts a run of `workflow` and
    /// answers 204, or 200 with where to find the run when `return_run_details` is `true`.
    fn dispatch(&mut self, call: &Call, key: (String, String), workflow: &str) -> Reply {
        let branch = match call.body.get("ref") {
            Some(Value::String(branch)) => branch,
            Some(other) => {
                return invalid_request(&format!("For 'properties/ref', {other} is not a string."));
            }
            None => return invalid_request("\"ref\" wasn't supplied."),
        };
        let inputs = match call.body.get("inputs") {
            None | Some(Value::Null) => json!({}),
            Some(inputs @ Value::Object(_)) => inputs.clone(),
            Some(other) => {
                return invalid_request(&format!(
                    "For 'properties/inputs', {other} is not an object."
                ));
            }
        };
        let details = match call.body.get("return_run_details") {
            None | Some(Value::Null) => false,
            Some(Value::Bool(details)) => *details,
            Some(other) => {
                return invalid_request(&format!(
                    "For 'properties/return_run_details', {other} is not a boolean."
                ));
            }
        };
        let duration = match inputs.get("duration_ms") {
            None => RUN_DURATION,
            Some(value) => match milliseconds(value) {
                Some(millis) => Duration::from_millis(millis),
                None => {
                    return invalid_request(&format!(
                        "For 'inputs/duration_ms', {value} is not 0 to {MAX_RUN_DURATION_MS} ms."
                    ));
                }
            },
        };
        let id = self.next_id();
        let (now, wall) = (Instant::now(), SystemTime::now());
        let mut run = Run {
            data: json!({
                "id": id,
                "name": workflow,
                "head_branch": branch,
                "run_attempt": 1,
                "inputs": inputs,
                "created_at": utc_seconds(wall),
            }),
            duration,
            conclusion: if workflow == FAILING_WORKFLOW {
                "failure"
            } else {
                "success"
            },
            attempt: None,
        };
        run.start(now, wall);
        let view = run.view(&key, call.origin().unwrap_or_default(), now);
        self.repo_mut(&key).runs.push(run);
        if details {
            Reply::ok(json!({
                "workflow_run_id": id,
                "run_url": view["url"],
                "html_url": view["html_url"],
            }))
        } else {
            Reply::empty(StatusCode::NO_CONTENT)
        }
    }

    fn create_repo(&mut self, call: &Call) -> Reply {
        let Some(name) = call.body_str("name") else {
            return validation_failed("Repository", "name", "missing_field");
        };
        if self
            .repos
            .contains_key(&(AUTHENTICATED_USER.to_owned(), name.to_owned()))
        {
            return validation_failed("Repository", "name", "already_exists");
        }
        Reply::created(self.insert_repo(AUTHENTICATED_USER, &call.body))
    }

    /// `PATCH .../issues/{number}` of an issue that exists, if `If-Match` allows.
    fn update_issue(&mut self, call: &Call, key: &(String, String), number: u64) -> Reply {
        if !call.if_match(&etag(self.issue_mut(key, number))) {
            return precondition_failed();
        }
        let tick = self.next_id();
        let issue = self.issue_mut(key, number);
        apply(
            issue,
            &call.body,
            &["title", "body", "state", "assignees", "milestone"],
        );
        if let Some(labels) = call.body.get("labels") {
            issue["labels"] = label_objects(labels);
        }
        issue["updated_at"] = json!(timestamp(tick));
        Reply::tagged(issue.clone())
    }

    /// `PATCH /repos/{owner}/{repo}` of a repository that exists, if `If-Match` allows.
    fn update_repo(&mut self, call: &Call, key: (String, String)) -> Reply {
        if !call.if_match(&etag(&self.repo_mut(&key).data)) {
            return precondition_failed();
        }
        let new_name = call.body_str("name").unwrap_or(&key.1).to_owned();
        let new_key = (key.0.clone(), new_name.clone());
        if new_key != key && self.repos.contains_key(&new_key) {
            return validation_failed("Repository", "name", "already_exists");
        }
        let Some(mut repo) = self.repos.remove(&key) else {
            return not_found();
        };
        apply(
            &mut repo.data,
            &call.body,
            &[
                "description",
                "homepage",
                "private",
                "has_issues",
                "default_branch",
            ],
        );
        repo.data["name"] = json!(new_name);
        repo.data["full_name"] = json!(format!("{}/{new_name}", key.0));
        let data = repo.data.clone();
        self.repos.insert(new_key, repo);
        Reply::tagged(data)
    }

    fn list_repos(&self, call: &Call, login: &str) -> Reply {
        if !self.users.contains_key(login) {
            return not_found();
        }
        let mut items: Vec<Value> = self
            .repos
            .iter()
            .filter(|((owner, _), _)| owner == login)
            .map(|(_, repo)| repo.data.clone())
            .collect();
        let sort = call.query("sort").unwrap_or("full_name");
        let field = if sort == "full_name" {
            "full_name"
        } else {
            "created_at"
        };
        items.sort_by(|a, b| a[field].as_str().cmp(&b[field].as_str()));
        let default_direction = if sort == "full_name" { "asc" } else { "desc" };
        if call.query("direction").unwrap_or(default_direction) == "desc" {
            items.reverse();
        }
        paginate(items, call, Value::Array)
    }

    /// Matches the free words of `q` against titles and bodies; understands the qualifiers
    /// `repo:owner/name`, `is:open`, `is:closed` and `label:name`. The score is the number of
    /// words found, times ten.
    fn search_issues(&self, call: &Call) -> Reply {
        let Some(q) = call.query("q") else {
            return validation_failed("Search", "q", "missing");
        };
        let min_score = call
            .query("min_score")
            .and_then(|score| score.parse::<f64>().ok())
            .unwrap_or(0.0);
        let mut items = Vec::new();
        for ((owner, name), repo) in &self.repos {
            for issue in &repo.issues {
                let text = format!("{} {}", issue["title"], issue["body"]).to_lowercase();
                let mut score = 0.0;
                let mut matches = true;
                for term in q.split_whitespace() {
                    matches &= match term.split_once(':') {
                        Some(("repo", full)) => full == format!("{owner}/{name}"),
                        Some(("is", state)) => issue["state"] == state,
                        Some(("label", wanted)) => has_label(issue, wanted),
                        _ => {
                            let found = text.contains(&term.to_lowercase());
                            if found {
                                score += 10.0;
                            }
                            found
                        }
                    };
                }
                if matches && score >= min_score {
                    let mut item = issue.clone();
                    item["score"] = json!(score);
                    items.push(item);
                }
            }
        }
        let total = items.len();
        paginate(
            items,
            call,
            |items| json!({ "total_count": total, "incomplete_results": false, "items": items }),
        )
    }

    fn next_id(&mut self) -> u64 {
        self.tick += 1;
        self.tick
    }

    /// The repository under `key`; callers check that it exists first.
    fn repo_mut(&mut self, key: &(String, String)) -> &mut Repo {
        self.repos.get_mut(key).expect(
            "checked: routes below /repos/{owner}/{repo} run only for a repository that exists",
        )
    }

    fn issue_mut(&mut self, key: &(String, String), number: u64) -> &mut Value {
        self.repo_mut(key)
            .issues
            .iter_mut()
            .find(|issue| issue["number"] == number)
            .expect("checked: answer_issue runs only for an issue that exists")
    }

    fn insert_repo(&mut self, owner: &str, body: &Map<String, Value>) -> Value {
        let id = self.next_id();
        let name = body.get("name").and_then(Value::as_str).unwrap_or_default();
        let data = json!({
            "id": id,
            "name": name,
            "full_name": format!("{owner}/{name}"),
            "owner": { "login": owner },
            "private": body.get("private").cloned().unwrap_or(json!(false)),
            "description": body.get("description").cloned().unwrap_or(Value::Null),
            "homepage": body.get("homepage").cloned().unwrap_or(Value::Null),
            "topics": body.get("topics").cloned().unwrap_or_else(|| json!([])),
            "has_issues": true,
            "default_branch": "main",
            "auto_init": body.get("auto_init").cloned().unwrap_or(json!(false)),
            "created_at": timestamp(id),
        });
        let repo = Repo {
            data: data.clone(),
            issues: Vec::new(),
            pulls: Vec::new(),
            comments: Vec::new(),
            labels: Vec::new(),
            runs: Vec::new(),
            next_number: 1,
        };
        self.repos.insert((owner.to_owned(), name.to_owned()), repo);
        if let Some(user) = self.users.get_mut(owner) {
            user["public_repos"] = json!(user["public_repos"].as_u64().unwrap_or(0) + 1);
        }
        data
    }

    fn insert_issue(&mut self, key: &(String, String), body: &Map<String, Value>) -> Value {
        let id = self.next_id();
        let repo = self.repo_mut(key);
        let number = repo.next_number;
        repo.next_number += 1;
        let issue = json!({
            "id": id,
            "number": number,
            "title": body.get("title").cloned().unwrap_or_default(),
            "body": body.get("body").cloned().unwrap_or(Value::Null),
            "state": "open",
            "labels": label_objects(body.get("labels").unwrap_or(&json!([]))),
            "assignees": body.get("assignees").cloned().unwrap_or_else(|| json!([])),
            "milestone": body.get("milestone").cloned().unwrap_or(Value::Null),
            "comments": 0,
            "user": { "login": AUTHENTICATED_USER },
            "created_at": timestamp(id),
            "updated_at": timestamp(id),
        });
        repo.issues.push(issue.clone());
        issue
    }

    fn insert_comment(
        &mut self,
        key: &(String, String),
        number: u64,
        body: &Map<String, Value>,
    ) -> Value {
        let id = self.next_id();
        let comment = json!({
            "id": id,
            "body": body.get("body").cloned().unwrap_or_default(),
            "user": { "login": AUTHENTICATED_USER },
            "created_at": timestamp(id),
        });
        let repo = self.repo_mut(key);
        repo.comments.push((number, comment.clone()));
        if let Some(issue) = repo
            .issues
            .iter_mut()
            .find(|issue| issue["number"] == number)
        {
            issue["comments"] = json!(issue["comments"].as_u64().unwrap_or(0) + 1);
        }
        comment
    }

    fn insert_pull(&mut self, key: &(String, String), body: &Map<String, Value>) -> Value {
        let id = self.next_id();
        let repo = self.repo_mut(key);
        let number = repo.next_number;
        repo.next_number += 1;
        let pull = json!({
            "id": id,
            "number": number,
            "title": body.get("title").cloned().unwrap_or_default(),
            "body": body.get("body").cloned().unwrap_or(Value::Null),
            "state": "open",
            "draft": body.get("draft").cloned().unwrap_or(json!(false)),
            "head": { "ref": body.get("head").cloned().unwrap_or_default(), "sha": fake_sha(id) },
            "base": { "ref": body.get("base").cloned().unwrap_or_default() },
            "merged": false,
            "mergeable": true,
            "user": { "login": AUTHENTICATED_USER },
            "created_at": timestamp(id),
        });
        repo.pulls.push(pull.clone());
        pull
    }
}

/// `PATCH .../pulls/{n}`, if `If-Match` allows.
fn update_pull(pull: &mut Value, call: &Call) -> Reply {
    if !call.if_match(&etag(pull)) {
        return precondition_failed();
    }
    apply(pull, &call.body, &["title", "body", "state"]);
    if let Some(base) = call.body_str("base") {
        pull["base"]["ref"] = json!(base);
    }
    Reply::tagged(pull.clone())
}

/// `PUT .../pulls/{n}/merge`: 405 when it is not open, 409 when `sha` is not the head.
fn merge(pull: &mut Value, call: &Call) -> Reply {
    if pull["state"] != "open" {
        return Reply::json(
            StatusCode::METHOD_NOT_ALLOWED,
            json!({ "message": "Pull Request is not mergeable" }),
        );
    }
    if let Some(sha) = call.body_str("sha")
        && pull["head"]["sha"] != sha
    {
        return Reply::json(
            StatusCode::CONFLICT,
            json!({ "message": "Head branch was modified. Review and try the merge again." }),
        );
    }
    let number = pull["number"].as_u64().unwrap_or(0);
    pull["state"] = json!("closed");
    pull["merged"] = json!(true);
    pull["merge_method"] = json!(call.body_str("merge_method").unwrap_or("merge"));
    let sha = fake_sha(1_000_000 + number);
    pull["merge_commit_sha"] = json!(sha);
    Reply::ok(json!({
        "sha": sha,
        "merged": true,
        "message": "Pull Request successfully merged",
    }))
}

fn filter_issues(issues: &[Value], call: &Call) -> Vec<Value> {
    let state = call.query("state").unwrap_or("open");
    let labels: Vec<&str> = call
        .query("labels")
        .map(|labels| {
            labels
                .split(',')
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .collect()
        })
        .unwrap_or_default();
    let since = call.query("since");
    let mut items: Vec<Value> = issues
        .iter()
        .filter(|issue| state == "all" || issue["state"] == state)
        .filter(|issue| labels.iter().all(|label| has_label(issue, label)))
        .filter(|issue| since.is_none_or(|since| issue["updated_at"].as_str() >= Some(since)))
        .cloned()
        .collect();
    let field = match call.query("sort") {
        Some("updated") => "updated_at",
        Some("comments") => "comments",
        _ => "created_at",
    };
    // Numbers by value, times by their text; then by number, so pages never overlap.
    items.sort_by(|a, b| {
        let by_field = match (a[field].as_u64(), b[field].as_u64()) {
            (Some(a), Some(b)) => a.cmp(&b),
            _ => a[field].as_str().cmp(&b[field].as_str()),
        };
        by_field.then_with(|| a["number"].as_u64().cmp(&b["number"].as_u64()))
    });
    if call.query("direction").unwrap_or("desc") == "desc" {
        items.reverse();
    }
    items
}

/// One page of `items` by the `page` and `per_page` query params (defaults 1 and 30, at most
/// 100), made into the body by `shape`, with the `Link` header that leads to the other pages.
fn paginate(items: Vec<Value>, call: &Call, shape: impl FnOnce(Vec<Value>) -> Value) -> Reply {
    let per_page = call.query_number("per_page", 30).clamp(1, 100);
    let page = call.query_number("page", 1).max(1);
    let count = u64::try_from(items.len()).unwrap_or(u64::MAX);
    let last = count.div_ceil(per_page).max(1);
    let reply = Reply::ok(shape(page_of(items, page, per_page)));
    match link(call, page, last) {
        Some(link) => reply.header(header::LINK, link),
        None => reply,
    }
}

/// GitHub's `Link` header for page `page` of `last`, in its order: `prev` (at most `last`),
/// `next`, `last`, `first`; `None` when everything fits on one page.
fn link(call: &Call, page: u64, last: u64) -> Option<String> {
    if last == 1 {
        return None;
    }
    let mut rels = Vec::new();
    if page > 1 {
        rels.push(("prev", (page - 1).min(last)));
    }
    if page < last {
        rels.extend([("next", page + 1), ("last", last)]);
    }
    if page > 1 {
        rels.push(("first", 1));
    }
    let links = rels
        .into_iter()
        .map(|(rel, to)| {
            Some(format!(
                "<{}>; rel=\"{rel}\"",
                call.url_with("page", &to.to_string())?
            ))
        })
        .collect::<Option<Vec<_>>>()?;
    Some(links.join(", "))
}

/// Whether the JSON number `id` is the one the path segment spells.
fn is_id(id: &Value, segment: &str) -> bool {
    segment.parse::<u64>().is_ok_and(|segment| *id == segment)
}

fn has_label(issue: &Value, name: &str) -> bool {
    issue["labels"]
        .as_array()
        .is_some_and(|labels| labels.iter().any(|label| label["name"] == name))
}

fn label(name: &str, color: &str, description: &str, id: u64) -> Value {
    json!({ "id": id, "name": name, "color": color, "description": description })
}

/// Label names (as sent by clients) to label objects (as GitHub answers).
fn label_objects(names: &Value) -> Value {
    let names = names.as_array().map(Vec::as_slice).unwrap_or_default();
    Value::Array(
        names
            .iter()
            .filter_map(Value::as_str)
            .map(|name| json!({ "name": name }))
            .collect(),
    )
}

/// A 40-digit hex string that is the same for the same seed.
fn fake_sha(seed: u64) -> String {
    format!("{seed:040x}")
}

/// The map inside a `json!({...})` literal.
fn object(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

/// A `duration_ms` input: digits, as workflow inputs are strings, or a whole number; at most
/// [`MAX_RUN_DURATION_MS`].
fn milliseconds(value: &Value) -> Option<u64> {
    let millis = match value {
        Value::String(digits) if digits.bytes().all(|byte| byte.is_ascii_digit()) => {
            digits.parse().ok()
        }
        Value::Number(number) => number.as_u64(),
        _ => None,
    };
    millis.filter(|millis| *millis <= MAX_RUN_DURATION_MS)
}

/// GitHub's 422 for a dispatch body its schema refuses: `Invalid request.` and what is wrong.
fn invalid_request(detail: &str) -> Reply {
    Reply::json(
        StatusCode::UNPROCESSABLE_ENTITY,
        json!({ "message": format!("Invalid request.\n\n{detail}"), "documentation_url": DISPATCH_DOCS }),
    )
}

fn not_found() -> Reply {
    Reply::json(
        StatusCode::NOT_FOUND,
        json!({ "message": "Not Found", "documentation_url": "https://docs.github.com/rest" }),
    )
}

/// GitHub's answer when `If-Match` names another version than the current one.
fn precondition_failed() -> Reply {
    Reply::json(
        StatusCode::PRECONDITION_FAILED,
        json!({ "message": "Precondition Failed", "documentation_url": "https://docs.github.com/rest" }),
    )
}

/// GitHub's 422 shape: `message` plus one entry in `errors`.
fn validation_failed(resource: &str, field: &str, code: &str) -> Reply {
    Reply::json(
        StatusCode::UNPROCESSABLE_ENTITY,
        json!({
            "message": "Validation Failed",
            "errors": [{ "resource": resource, "field": field, "code": code }],
            "documentation_url": "https://docs.github.com/rest",
        }),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(duration_ms: u64) -> (Run, Instant) {
        let mut run = Run {
            data: json!({ "id": 1, "created_at": "2026-01-01T00:00:01Z" }),
            duration: Duration::from_millis(duration_ms),
            conclusion: "success",
            attempt: None,
        };
        let now = Instant::now();
        run.start(now, SystemTime::UNIX_EPOCH);
        (run, now)
    }

    fn after(start: Instant, millis: u64) -> Instant {
        start + Duration::from_millis(millis)
    }

    #[test]
    fn a_run_is_queued_then_in_progress_then_completed() {
        let (run, start) = run(600);
        for (millis, status, conclusion) in [
            (0, "queued", None),
            (99, "queued", None),
            (100, "in_progress", None),
            (599, "in_progress", None),
            (600, "completed", Some("success")),
            (60_000, "completed", Some("success")),
        ] {
            let (got, concluded, _) = run.status(after(start, millis));
            assert_eq!((got, concluded), (status, conclusion), "{millis} ms");
        }
        let key = ("octo".to_owned(), "hello-world".to_owned());
        let view = run.view(&key, "http://h", after(start, 300));
        assert_eq!(view["run_started_at"], "1970-01-01T00:00:00Z");
        assert_eq!(view["updated_at"], "1970-01-01T00:00:00Z");
        assert_eq!(
            view["url"],
            "http://h/repos/octo/hello-world/actions/runs/1"
        );
        let view = run.view(&key, "http://h", after(start, 5_000));
        assert_eq!(view["updated_at"], "1970-01-01T00:00:00Z");
        assert_eq!(view["created_at"], "2026-01-01T00:00:01Z");
    }

    #[test]
    fn a_short_run_completes_without_a_queue_and_a_canceled_one_stays_cancelled() {
        let (run_now, start) = run(0);
        assert_eq!(run_now.status(start).0, "completed");
        let (short, start) = run(50);
        assert_eq!(short.status(after(start, 49)).0, "queued");
        assert_eq!(short.status(after(start, 50)).0, "completed");

        let (mut canceled, start) = run(2_000);
        let reply = canceled.cancel(after(start, 1_500));
        assert_eq!(
            axum::response::IntoResponse::into_response(reply).status(),
            StatusCode::ACCEPTED
        );
        assert_eq!(
            canceled.status(after(start, 60_000)),
            (
                "completed",
                Some("cancelled"),
                Some(Duration::from_millis(1_500))
            )
        );
        let reply = canceled.cancel(after(start, 60_000));
        assert_eq!(
            axum::response::IntoResponse::into_response(reply).status(),
            StatusCode::CONFLICT
        );
    }
}
