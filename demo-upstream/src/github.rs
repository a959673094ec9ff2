//! The GitHub-like API of `adapters/github-adapter.md`: every route it maps to, answering with
//! the fields GitHub's own JSON has (a useful subset of them), GitHub's error shapes, its
//! `Link` header on lists, and `ETag`s that `If-Match` checks on a `PATCH`.

use std::collections::BTreeMap;

use axum::http::{Method, StatusCode, header};
use serde_json::{Map, Value, json};

use crate::call::{Call, Reply, apply, etag, page_of, timestamp};

/// The user the bearer token belongs to: `POST /user/repos` creates repositories for them.
const AUTHENTICATED_USER: &str = "octo";

/// One repository and everything that hangs off it.
#[derive(Debug)]
struct Repo {
    data: Value,
    issues: Vec<Value>,
    pulls: Vec<Value>,
    /// Comments with the number of the issue they belong to.
    comments: Vec<(u64, Value)>,
    labels: Vec<Value>,
    runs: Vec<Value>,
    /// Issues and pull requests share one sequence of numbers, as on GitHub.
    next_number: u64,
}

/// Users and their repositories.
#[derive(Debug)]
pub(crate) struct Github {
    users: BTreeMap<String, Value>,
    repos: BTreeMap<(String, String), Repo>,
    /// Source of ids and of the logical clock.
    tick: u64,
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
        for (run_id, (status, conclusion)) in run_ids
            .into_iter()
            .zip([("completed", "success"), ("completed", "failure")])
        {
            repo.runs.push(json!({
                "id": run_id,
                "name": "CI",
                "head_branch": "main",
                "status": status,
                "conclusion": conclusion,
                "run_attempt": 1,
                "created_at": timestamp(run_id),
            }));
        }
        github
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
                let repo = self.repo_mut(&key);
                let branch = call.query("branch");
                let status = call.query("status");
                let mut runs: Vec<Value> = repo
                    .runs
                    .iter()
                    .filter(|run| branch.is_none_or(|branch| run["head_branch"] == branch))
                    .filter(|run| {
                        status.is_none_or(|status| {
                            run["status"] == status || run["conclusion"] == status
                        })
                    })
                    .cloned()
                    .collect();
                runs.reverse();
                let total = runs.len();
                paginate(
                    runs,
                    call,
                    |runs| json!({ "total_count": total, "workflow_runs": runs }),
                )
            }
            ["actions", "runs", id, "rerun"] if method == Method::POST => {
                let repo = self.repo_mut(&key);
                let Some(run) = repo.runs.iter_mut().find(|run| is_id(&run["id"], id)) else {
                    return not_found();
                };
                let attempt = run["run_attempt"].as_u64().unwrap_or(1) + 1;
                run["run_attempt"] = json!(attempt);
                run["status"] = json!("queued");
                run["conclusion"] = Value::Null;
                // GitHub answers 201 Created with an empty body.
                Reply::empty(StatusCode::CREATED)
            }
            ["actions", "workflows", workflow, "dispatches"] if method == Method::POST => {
                let Some(branch) = call.body_str("ref") else {
                    return validation_failed("Workflow", "ref", "missing_field");
                };
                let id = self.next_id();
                self.repo_mut(&key).runs.push(json!({
                    "id": id,
                    "name": workflow,
                    "head_branch": branch,
                    "status": "queued",
                    "conclusion": null,
                    "run_attempt": 1,
                    "inputs": call.body.get("inputs").cloned().unwrap_or_else(|| json!({})),
                    "created_at": timestamp(id),
                }));
                Reply::empty(StatusCode::NO_CONTENT)
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
    items.sort_by(|a, b| a[field].to_string().cmp(&b[field].to_string()));
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
