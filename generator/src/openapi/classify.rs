//! What an operation does: its CRUDE category and danger level, from its method and from
//! the words the document describes it with.
//!
//! The method alone misleads on RPC-style APIs: Slack deletes a message with
//! `POST /chat.delete`, Stripe updates a customer with `POST /v1/customers/{customer}`, and
//! GitHub merges a pull request with a `PUT`. So the importer reads the operation's verb:
//! the first word of its `summary`, else of its `operationId` (the first component that
//! starts with a known word, then the last: `repos/delete-invitation`,
//! `VirtualMachines_Delete`), else of its last path segment when the path ends in one
//! (`/chat.delete`, `/merge-upstream`), else of its `description`. The first of these that
//! starts with a word of [`WORDS`] decides; words such as `bulk` or `force` in front are
//! skipped. What the verb says:
//!
//! - a [`Kind::Remove`] verb (`delete`, `remove`, `revoke`, ...) makes any method a DELETE;
//! - a [`Kind::Change`] verb (`update`, `set`, `rename`, ...) makes a POST an UPDATE;
//! - a [`Kind::Act`] verb (`merge`, `transfer`, `block`, `cancel`, `sync`, ...) makes a
//!   POST, PUT or PATCH an EXECUTE;
//! - a [`Kind::Switch`] verb (`enable`, `archive`, `lock`, ...) makes a POST an EXECUTE and
//!   leaves a PUT or PATCH an UPDATE: setting a state in place is an update;
//! - a [`Kind::Plain`] verb (`get`, `list`, `create`, `add`, ...) leaves the method's
//!   category: GET read, POST create (EXECUTE when its path ends in `/forks`,
//!   `/dispatches` or `/merges`), PUT and PATCH update, DELETE delete.
//!
//! A DELETE stays a DELETE and a GET stays a READ unless a remove verb says otherwise. Some
//! verbs also carry a danger level above their category's default (`merge` and `transfer`
//! dangerous; `block`, `cancel`, `archive`, ... destructive); the level declared is never
//! below what the operation's name implies by the specification's patterns
//! ([`aqlgen_model::implied_danger`], `purge_*`, `force_*`, ...), which stay in that one home.

use aqlgen_model::{Category, DangerLevel};

use super::document::Operation;
use super::naming;

/// What a verb makes of an operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Takes something away: DELETE, whatever the method.
    Remove,
    /// Changes something that exists: UPDATE, on a POST too.
    Change,
    /// Does something beyond storing what it is sent: EXECUTE, on POST, PUT and PATCH.
    Act,
    /// Turns a state on or off: EXECUTE on a POST, UPDATE on a PUT or PATCH.
    Switch,
    /// Says nothing beyond the method (`get`, `create`, `add`): the method decides.
    Plain,
}

/// A verb the importer knows: what it makes of an operation, and the danger level it
/// implies above the category's default, with why.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Verb {
    /// The verb as listed, lowercase.
    pub word: &'static str,
    /// What it makes of an operation.
    pub kind: Kind,
    /// The level it implies, and why, when that is more than the category's default.
    pub danger: Option<(DangerLevel, &'static str)>,
}

const fn verb(word: &'static str, kind: Kind) -> Verb {
    Verb {
        word,
        kind,
        danger: None,
    }
}

const fn risky(word: &'static str, kind: Kind, level: DangerLevel, why: &'static str) -> Verb {
    Verb {
        word,
        kind,
        danger: Some((level, why)),
    }
}

const MERGE: &str =
    "a merge changes a shared branch for everyone, and only another commit undoes it";
const TRANSFER: &str =
    "a transfer hands the resource to another owner, and the caller may lose the rights to undo it";
const CUT_OFF: &str = "it cuts an account off, and undoing it does not restore what was dropped";
const ENDED: &str = "what is cancelled, voided or expired usually cannot be resumed";
const ARCHIVED: &str =
    "danger-levels §2.2.3 counts archiving and disabling resources as destructive";
const MONEY: &str = "it moves money, and only another payment undoes it";
const REIMAGE: &str = "it discards the machine's disk";

/// The verbs the importer knows, by kind. The spec's own name patterns (`purge_*`, `force_*`,
/// `drop_*`, ...) are not repeated here: they apply to the operation's name through
/// [`aqlgen_model::implied_danger`].
pub const WORDS: &[Verb] = &[
    // Remove: DELETE, destructive by the category's default.
    verb("delete", Kind::Remove),
    verb("remove", Kind::Remove),
    verb("destroy", Kind::Remove),
    verb("purge", Kind::Remove),
    verb("erase", Kind::Remove),
    verb("revoke", Kind::Remove),
    verb("unlink", Kind::Remove),
    verb("detach", Kind::Remove),
    verb("trash", Kind::Remove),
    verb("discard", Kind::Remove),
    verb("wipe", Kind::Remove),
    verb("drop", Kind::Remove),
    verb("truncate", Kind::Remove),
    verb("kick", Kind::Remove),
    verb("redact", Kind::Remove),
    verb("deregister", Kind::Remove),
    verb("unregister", Kind::Remove),
    verb("uninstall", Kind::Remove),
    // Change: UPDATE.
    verb("update", Kind::Change),
    verb("modify", Kind::Change),
    verb("edit", Kind::Change),
    verb("set", Kind::Change),
    verb("change", Kind::Change),
    verb("patch", Kind::Change),
    verb("rename", Kind::Change),
    verb("replace", Kind::Change),
    verb("upsert", Kind::Change),
    verb("configure", Kind::Change),
    verb("mark", Kind::Change),
    // Act: EXECUTE.
    risky("merge", Kind::Act, DangerLevel::Dangerous, MERGE),
    risky("transfer", Kind::Act, DangerLevel::Dangerous, TRANSFER),
    risky("block", Kind::Act, DangerLevel::Destructive, CUT_OFF),
    risky("ban", Kind::Act, DangerLevel::Destructive, CUT_OFF),
    risky("suspend", Kind::Act, DangerLevel::Destructive, CUT_OFF),
    risky("cancel", Kind::Act, DangerLevel::Destructive, ENDED),
    risky("void", Kind::Act, DangerLevel::Destructive, ENDED),
    risky("expire", Kind::Act, DangerLevel::Destructive, ENDED),
    risky("pay", Kind::Act, DangerLevel::Destructive, MONEY),
    risky("refund", Kind::Act, DangerLevel::Destructive, MONEY),
    risky("reimage", Kind::Act, DangerLevel::Destructive, REIMAGE),
    verb("accept", Kind::Act),
    verb("approve", Kind::Act),
    verb("capture", Kind::Act),
    verb("check", Kind::Act),
    verb("confirm", Kind::Act),
    verb("deallocate", Kind::Act),
    verb("decline", Kind::Act),
    verb("deploy", Kind::Act),
    verb("dismiss", Kind::Act),
    verb("dispatch", Kind::Act),
    verb("execute", Kind::Act),
    verb("finalize", Kind::Act),
    verb("fork", Kind::Act),
    verb("invoke", Kind::Act),
    verb("pause", Kind::Act),
    verb("ping", Kind::Act),
    verb("power", Kind::Act),
    verb("publish", Kind::Act),
    verb("reboot", Kind::Act),
    verb("redeliver", Kind::Act),
    verb("redeploy", Kind::Act),
    verb("reject", Kind::Act),
    verb("render", Kind::Act),
    verb("reopen", Kind::Act),
    verb("replay", Kind::Act),
    verb("rerun", Kind::Act),
    verb("resend", Kind::Act),
    verb("restart", Kind::Act),
    verb("restore", Kind::Act),
    verb("resume", Kind::Act),
    verb("retry", Kind::Act),
    verb("reverse", Kind::Act),
    verb("run", Kind::Act),
    verb("send", Kind::Act),
    verb("shut", Kind::Act),
    verb("shutdown", Kind::Act),
    verb("start", Kind::Act),
    verb("stop", Kind::Act),
    verb("submit", Kind::Act),
    verb("sync", Kind::Act),
    verb("test", Kind::Act),
    verb("trigger", Kind::Act),
    verb("unban", Kind::Act),
    verb("unblock", Kind::Act),
    verb("unsuspend", Kind::Act),
    verb("validate", Kind::Act),
    verb("verify", Kind::Act),
    // Switch: EXECUTE on a POST, UPDATE on a PUT or PATCH.
    risky("archive", Kind::Switch, DangerLevel::Destructive, ARCHIVED),
    risky("disable", Kind::Switch, DangerLevel::Destructive, ARCHIVED),
    risky(
        "deactivate",
        Kind::Switch,
        DangerLevel::Destructive,
        ARCHIVED,
    ),
    verb("activate", Kind::Switch),
    verb("enable", Kind::Switch),
    verb("follow", Kind::Switch),
    verb("lock", Kind::Switch),
    verb("mute", Kind::Switch),
    verb("pin", Kind::Switch),
    verb("star", Kind::Switch),
    verb("unarchive", Kind::Switch),
    verb("unfollow", Kind::Switch),
    verb("unlock", Kind::Switch),
    verb("unmute", Kind::Switch),
    verb("unpin", Kind::Switch),
    verb("unstar", Kind::Switch),
    // Plain: the method decides.
    verb("add", Kind::Plain),
    verb("count", Kind::Plain),
    verb("create", Kind::Plain),
    verb("describe", Kind::Plain),
    verb("download", Kind::Plain),
    verb("export", Kind::Plain),
    verb("fetch", Kind::Plain),
    verb("find", Kind::Plain),
    verb("generate", Kind::Plain),
    verb("get", Kind::Plain),
    verb("insert", Kind::Plain),
    verb("list", Kind::Plain),
    verb("lookup", Kind::Plain),
    verb("make", Kind::Plain),
    verb("query", Kind::Plain),
    verb("read", Kind::Plain),
    verb("register", Kind::Plain),
    verb("request", Kind::Plain),
    verb("retrieve", Kind::Plain),
    verb("return", Kind::Plain),
    verb("search", Kind::Plain),
    verb("show", Kind::Plain),
    verb("upload", Kind::Plain),
    verb("view", Kind::Plain),
];

/// Words in front of a verb that do not change which verb it is (`Bulk delete`,
/// `Force cancel`): the name patterns see them, the category does not.
const MODIFIERS: &[&str] = &["bulk", "batch", "force", "hard", "permanent", "permanently"];

/// Nouns a POST's path can end in that name an action rather than a collection:
/// `POST .../forks` forks, `.../dispatches` triggers a workflow.
const ACTION_NOUNS: &[&str] = &["dispatches", "forks", "merges"];

/// Where the verb that decided was read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// The operation's `summary`.
    Summary,
    /// Its `operationId`.
    OperationId,
    /// Its last path segment.
    Path,
    /// Its `description`.
    Description,
}

impl Source {
    /// How the source is named in a note.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Summary => "summary",
            Self::OperationId => "operationId",
            Self::Path => "path",
            Self::Description => "description",
        }
    }
}

/// What an operation does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Meaning {
    /// Its category.
    pub category: Category,
    /// The verb that decided it, and where it was read; `None` when the method alone did.
    pub verb: Option<(Verb, Source)>,
}

impl Meaning {
    /// The danger level to declare for this operation once it is named `name`, or `None`
    /// when the category's default (and whatever the name implies, which the generator
    /// infers itself) stands. A DELETE always declares its level, as does an operation whose
    /// verb raises it; the level is never below what `name` implies by the specification's
    /// patterns, since a declared level silences them.
    pub fn declared_danger(&self, name: &str) -> Option<DangerLevel> {
        let default = DangerLevel::default_for(self.category);
        let said = self
            .verb
            .and_then(|(verb, _)| verb.danger)
            .map(|(level, _)| level)
            .filter(|level| level.rank() > default.rank() && self.category != Category::Read);
        if said.is_none() && self.category != Category::Delete {
            return None;
        }
        let level = said.unwrap_or(default);
        Some(match aqlgen_model::implied_danger(self.category, name) {
            Some((implied, _)) if implied.rank() > level.rank() => implied,
            _ => level,
        })
    }

    /// Whether the verb gave a category other than the method's, or a danger level above
    /// the category's default: what the adapter lists for review.
    pub fn is_from_words(&self, method: &str) -> bool {
        let by_method = match method {
            "get" => Category::Read,
            "post" => Category::Create,
            "delete" => Category::Delete,
            _ => Category::Update,
        };
        let default = DangerLevel::default_for(self.category);
        self.verb.is_some_and(|(verb, _)| {
            self.category != by_method
                || (self.category != Category::Read
                    && verb
                        .danger
                        .is_some_and(|(level, _)| level.rank() > default.rank()))
        })
    }
}

/// What `operation`, a `method` on `path`, does; `None` for methods the format lacks.
pub fn meaning(method: &str, path: &str, operation: &Operation) -> Option<Meaning> {
    if !matches!(method, "get" | "post" | "put" | "patch" | "delete") {
        return None;
    }
    let path_verb = path_word(path);
    let said = [
        (
            operation.summary.as_deref().and_then(prose_verb),
            Source::Summary,
        ),
        (
            operation.operation_id.as_deref().and_then(id_verb),
            Source::OperationId,
        ),
        (path_verb, Source::Path),
        (
            operation.description.as_deref().and_then(prose_verb),
            Source::Description,
        ),
    ];
    let found = said
        .iter()
        .find_map(|(verb, source)| verb.map(|verb| (verb, *source)));
    // A GET is taken for a DELETE only on firm words: not its description alone (which
    // documents copy between operations), and not when another source calls it a plain
    // read (`get_drops`, summarised "drop rate").
    let firm_removal = found.is_some_and(|(_, source)| source != Source::Description)
        && !said
            .iter()
            .any(|(verb, _)| verb.is_some_and(|verb| verb.kind == Kind::Plain));
    let kind = found.map(|(verb, _)| verb.kind);
    let category = match (method, kind) {
        ("delete", _) => Category::Delete,
        ("get", Some(Kind::Remove)) if firm_removal => Category::Delete,
        ("get", _) => Category::Read,
        (_, Some(Kind::Remove)) => Category::Delete,
        ("post", Some(Kind::Change)) => Category::Update,
        ("post", Some(Kind::Act | Kind::Switch)) => Category::Execute,
        ("post", _) => {
            // A plain verb ("Create a fork") yields to a path that names an action.
            if let Some(verb) =
                path_verb.filter(|verb| matches!(verb.kind, Kind::Act | Kind::Switch))
            {
                return Some(Meaning {
                    category: Category::Execute,
                    verb: Some((verb, Source::Path)),
                });
            }
            if ACTION_NOUNS.contains(&last_literal(path).unwrap_or_default()) {
                return Some(Meaning {
                    category: Category::Execute,
                    verb: None,
                });
            }
            Category::Create
        }
        (_, Some(Kind::Act)) => Category::Execute,
        _ => Category::Update,
    };
    Some(Meaning {
        category,
        verb: found,
    })
}

/// The verb `text` (a summary or description) starts with, HTML and Markdown aside; a third
/// person `-s` form counts (`Deletes a message`).
fn prose_verb(text: &str) -> Option<Verb> {
    let plain = super::html::plain(text);
    let mut tokens = plain
        .split_whitespace()
        .map(|token| token.trim_matches(|c: char| !c.is_ascii_alphanumeric()))
        .filter(|token| !token.is_empty())
        .skip_while(|token| {
            MODIFIERS
                .iter()
                .any(|word| word.eq_ignore_ascii_case(token))
        });
    let first = tokens.next()?.to_ascii_lowercase().replace('-', "");
    // Microsoft Graph: "Invoke action archive", "Invoke function getByIds".
    if matches!(first.as_str(), "invoke" | "call") {
        let invoke = lookup("invoke");
        return match (tokens.next(), tokens.next()) {
            (Some("action" | "function"), Some(name)) => leading_verb(name)
                .filter(|verb| verb.kind != Kind::Plain)
                .or(invoke),
            _ => invoke,
        };
    }
    lookup(&first).or_else(|| {
        [first.strip_suffix("es"), first.strip_suffix('s')]
            .into_iter()
            .flatten()
            .find_map(lookup)
    })
}

/// The verb an operationId starts with: of its components, the first's first word, else the
/// last's (`repos/delete-invitation`, `VirtualMachines_Delete`). Components are split at
/// `/`, `.` and `:`, and at `_` between CamelCase parts; an all-lowercase `snake_case` id
/// is one component, whose last word is most often a noun (`mail_a_check_transfer`).
fn id_verb(id: &str) -> Option<Verb> {
    let camel = id.contains(|c: char| c.is_ascii_uppercase());
    let components: Vec<&str> = id
        .split(|c: char| matches!(c, '/' | '.' | ':' | ' ') || (camel && c == '_'))
        .filter(|component| !component.is_empty())
        .collect();
    [components.first(), components.last()]
        .into_iter()
        .flatten()
        .find_map(|component| leading_verb(component))
}

/// The verb the last path segment starts with when the path ends in a literal segment: of
/// an RPC name (`chat.delete`, `users.deletePhoto`) its last dotted part's first word; of a
/// plain segment the word it is (`cancel`, `force-cancel`), or its first word when that
/// removes, changes or carries danger (`cancel_action`, `update-branch`). A segment of
/// several words whose first is a harmless verb is most often a noun (`check-runs`,
/// `test_clocks`), and says nothing.
fn path_word(path: &str) -> Option<Verb> {
    let segment = last_literal(path)?;
    let mut parts = segment
        .split('.')
        .filter(|part| !matches!(*part, "json" | "xml" | ""));
    let first = parts.next()?;
    if let Some(last) = parts.next_back() {
        return leading_verb(last);
    }
    let verb = leading_verb(first)?;
    let words = naming::snake(first)
        .split('_')
        .filter(|word| !MODIFIERS.contains(word) && *word != "re")
        .count();
    let telling = matches!(verb.kind, Kind::Remove | Kind::Change) || verb.danger.is_some();
    (words == 1 || telling).then_some(verb)
}

/// The path's last segment, when it is literal (no `{placeholder}`).
fn last_literal(path: &str) -> Option<&str> {
    let path = path.split(['#', '?']).next().unwrap_or_default();
    path.trim_end_matches('/')
        .rsplit('/')
        .next()
        .filter(|segment| !segment.is_empty() && !segment.contains('{'))
}

/// The verb a name starts with, its words split as `naming::snake` splits them, modifiers
/// skipped and `re` joined to what follows (`re-run`).
fn leading_verb(name: &str) -> Option<Verb> {
    let snake = naming::snake(name);
    let mut words = snake.split('_').skip_while(|word| MODIFIERS.contains(word));
    let first = words.next()?;
    if first == "re" {
        return lookup(&format!("re{}", words.next()?));
    }
    lookup(first)
}

fn lookup(word: &str) -> Option<Verb> {
    WORDS.iter().copied().find(|verb| verb.word == word)
}

#[cfg(test)]
mod tests {
    use super::{Operation, meaning};

    /// One case a line: `METHOD /path | operationId | summary | description | category [level]`,
    /// an empty field for what the document leaves out; the level is the one declared.
    const CASES: &str = "
        get /repos/{owner}/{repo} | repos/get | Get a repository | | read
        post /repos/{o}/{r}/issues | issues/create | Create an issue | | create
        post /repos/{o}/{r}/actions/workflows/{id}/dispatches | actions/create-workflow-dispatch | Create a workflow dispatch event | | execute
        post /repos/{o}/{r}/forks | repos/create-fork | Create a fork | | execute
        post /repos/{o}/{r}/merges | repos/merge | Merge a branch | | execute dangerous
        put /repos/{o}/{r}/pulls/{n}/merge | pulls/merge | Merge a pull request | | execute dangerous
        post /repos/{o}/{r}/merge-upstream | repos/merge-upstream | Sync a fork branch with the upstream repository | | execute
        put /user/blocks/{username} | users/block | Block a user | | execute destructive
        delete /user/blocks/{username} | users/unblock | Unblock a user | | delete destructive
        post /repos/{o}/{r}/transfer | repos/transfer | Transfer a repository | | execute dangerous
        post /repos/{o}/{r}/actions/runs/{id}/force-cancel | actions/force-cancel-workflow-run | Force cancel a workflow run | | execute dangerous
        post /repos/{o}/{r}/actions/runs/{id}/rerun | actions/re-run-workflow | Re-run a workflow | | execute
        post /repos/{o}/{r}/actions/runs/{id}/rerun | actions/re-run-workflow | | | execute
        put /repos/{o}/{r}/topics | repos/replace-all-topics | Replace all repository topics | | update
        patch /applications/{client_id}/token | apps/reset-token | Reset a token | | update
        post /markdown | markdown/render | Render a Markdown document | | execute
        delete /a/{b} | things/delete | Delete a thing | | delete destructive
        delete /caches | purge_caches | | | delete dangerous
        post /chat.delete | chat_delete | | Deletes a message. | delete destructive
        post /simulations/check_transfers/{id}/mail | mail_a_sandbox_check_transfer | | Simulates the mailing | create
        post /admin.users.remove | admin_users_remove | | | delete destructive
        post /users.deletePhoto | users_deletePhoto | | | delete destructive
        post /chat.update | chat_update | | | update
        post /conversations.archive | conversations_archive | | | execute destructive
        post /v1/customers/{customer} | PostCustomersCustomer | | <p>Updates the specified customer.</p> | update
        post /v1/customers | PostCustomers | | <p>Creates a new customer object.</p> | create
        delete /v1/customers/{customer} | DeleteCustomersCustomer | | | delete destructive
        post /v1/payment_intents/{intent}/cancel | PostPaymentIntentsIntentCancel | | | execute destructive
        post /v1/transfers | PostTransfers | | <p>To send funds ...</p> | create
        get /v1/transfers/{transfer} | GetTransfersTransfer | | | read
        post /vms/{vm}/start | VirtualMachines_Start | The operation to start a virtual machine. | | execute
        post /drop/{id} | make_drop | | | create
        post /tables/{id}/drop | tables/drop-table | | | delete forbidden
        get /deleted-items | listDeletedItems | List deleted items | | read
        get /mimic/agent/{n}/get/drops | get_drops | drop rate (every N-th PDU) | | read
        get /api/v1/lists/{id} | | | Remove conversation | read
        get /deletePad | deletePadUsingGET | Delete a pad | | delete destructive
        post /messages/microsoft.graph.archive | messages.archive | Invoke action archive | | execute destructive
        post /applications/{id}/microsoft.graph.addKey | applications.application.addKey | Invoke action addKey | | execute
        post /me/messages/{id}/microsoft.graph.permanentDelete | me.messages.permanentDelete | Invoke action permanentDelete | | delete destructive
        post /admin/messages/microsoft.graph.markRead | admin.messages.markRead | Invoke action markRead | | update
        get /items/{id}/delete | | | | delete destructive
        post /repos/{o}/{r}/check-runs | checks/create | Create a check run | | create
        post /v1/test_helpers/test_clocks | PostTestHelpersTestClocks | | <p>Creates a new test clock.</p> | create
        post /v1/terminal/readers/{reader}/cancel_action | PostTerminalReadersReaderCancelAction | | | execute destructive
        post /v1/invoices/{invoice}/mark_uncollectible | PostInvoicesInvoiceMarkUncollectible | | <p>Marking an invoice ...</p> | update
        post /statuses/update.json | | | | update
        put /a/{b} | | | | update
        head /a | | | | -
    ";

    #[test]
    fn categories_and_levels() {
        for case in CASES.lines().map(str::trim).filter(|line| !line.is_empty()) {
            let fields: Vec<&str> = case.split('|').map(str::trim).collect();
            let [endpoint, id, summary, description, expected] = fields[..] else {
                panic!("a malformed case: {case}");
            };
            let (method, path) = endpoint.split_once(' ').expect("METHOD /path");
            let given = |field: &str| (!field.is_empty()).then(|| field.to_owned());
            let operation = Operation {
                operation_id: given(id),
                summary: given(summary),
                description: given(description),
                ..Operation::default()
            };
            let found = meaning(method, path, &operation);
            let name = super::naming::snake(if id.is_empty() { path } else { id });
            let got = match found {
                None => "-".to_owned(),
                Some(meaning) => match meaning.declared_danger(&name) {
                    None => meaning.category.family().to_owned(),
                    Some(level) => format!("{} {}", meaning.category.family(), level.as_str()),
                },
            };
            assert_eq!(got, expected, "{case}");
        }
    }
}
