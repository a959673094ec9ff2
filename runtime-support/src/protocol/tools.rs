//! The MCP tools a server registers: the CRUDE family tools and/or `mcp_aql`, with the
//! configured prefix, annotations per seed mcp-integration §2.3 and the base input schema.

use std::borrow::Cow;
use std::sync::Arc;

use rmcp::model::{JsonObject, Tool, ToolAnnotations};

use crate::adapter::{Adapter, Category, DangerLevel, Route, ToolDocs};
use crate::call::gate::{Decision, Denial, Gate, Policy};
use crate::config::EndpointMode;

/// Operations a safety note names one by one; a longer list is counted per danger level.
const NOTE_NAMES: usize = 10;

/// Which entry point a tool is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Surface {
    /// `mcp_aql_<family>`: accepts only operations of that category.
    Family(Category),
    /// `mcp_aql`: accepts every operation.
    Single,
}

/// The registered tools of one server, built once at start-up.
#[derive(Debug, Clone)]
pub struct ToolSet {
    prefix: String,
    tools: Vec<(Surface, Tool)>,
}

/// Unprefixed tool name of a surface: `mcp_aql_read`, `mcp_aql`.
pub const fn base_name(surface: Surface) -> &'static str {
    match surface {
        Surface::Single => "mcp_aql",
        Surface::Family(Category::Create) => "mcp_aql_create",
        Surface::Family(Category::Read) => "mcp_aql_read",
        Surface::Family(Category::Update) => "mcp_aql_update",
        Surface::Family(Category::Delete) => "mcp_aql_delete",
        Surface::Family(Category::Execute) => "mcp_aql_execute",
    }
}

fn family_doc(docs: &ToolDocs, category: Category) -> &'static str {
    match category {
        Category::Create => docs.create,
        Category::Read => docs.read,
        Category::Update => docs.update,
        Category::Delete => docs.delete,
        Category::Execute => docs.execute,
    }
}

impl ToolSet {
    /// Tools for `A` in `mode` with names prefixed by `prefix`, each taking arguments of the
    /// input `schema`: in crude mode all five families, those without operations too (GEN
    /// §3.2). Each description ends with what `gate` does to the tool's operations.
    pub fn new<A: Adapter>(
        mode: EndpointMode,
        prefix: &str,
        gate: &Gate,
        schema: JsonObject,
    ) -> Self {
        let schema = Arc::new(schema);
        let mut tools = Vec::new();
        if mode.has_crude() {
            for &category in Category::ALL {
                let description = family_doc(A::TOOLS, category);
                let (read_only, destructive) = category.permissions();
                let surface = Surface::Family(category);
                let routes = A::ROUTES.iter().filter(|route| route.category == category);
                tools.push((
                    surface,
                    tool(
                        prefix,
                        surface,
                        with_note(description, safety_notes::<A>(routes, gate)),
                        &schema,
                        read_only,
                        destructive,
                    ),
                ));
            }
        }
        if mode.has_single() {
            tools.push((
                Surface::Single,
                tool(
                    prefix,
                    Surface::Single,
                    with_note(A::TOOLS.single, safety_notes::<A>(A::ROUTES.iter(), gate)),
                    &schema,
                    false,
                    true,
                ),
            ));
        }
        Self {
            prefix: prefix.to_owned(),
            tools,
        }
    }

    /// The tools, in registration order.
    pub fn tools(&self) -> impl Iterator<Item = &Tool> {
        self.tools.iter().map(|(_, tool)| tool)
    }

    /// The surface a (prefixed) tool name stands for, if it is registered.
    pub fn surface(&self, name: &str) -> Option<Surface> {
        self.tools
            .iter()
            .find(|(_, tool)| tool.name == name)
            .map(|(surface, _)| *surface)
    }

    /// The prefixed name of a surface, whether or not it is registered.
    pub fn name(&self, surface: Surface) -> String {
        format!("{}{}", self.prefix, base_name(surface))
    }

    /// The tool that carries operations of `category`: its CRUDE tool when the CRUDE tools
    /// are registered, else `mcp_aql`.
    pub fn tool_for(&self, category: Category) -> String {
        let family = Surface::Family(category);
        if self.tools.iter().any(|(surface, _)| *surface == family) {
            self.name(family)
        } else {
            self.name(Surface::Single)
        }
    }

    /// Prefixed names of every registered tool.
    pub fn names(&self) -> Vec<String> {
        self.tools
            .iter()
            .map(|(_, tool)| tool.name.to_string())
            .collect()
    }
}

fn with_note(description: &'static str, note: Option<String>) -> Cow<'static, str> {
    match note {
        Some(note) => Cow::Owned(format!("{description}\n\n{note}")),
        None => Cow::Borrowed(description),
    }
}

/// What `gate` does to `routes`, one paragraph per adapter (each has its own trust level);
/// `None` when every one of them runs.
fn safety_notes<'a, A: Adapter>(
    routes: impl Iterator<Item = &'a &'static Route>,
    gate: &Gate,
) -> Option<String> {
    let routes: Vec<&&'static Route> = routes.collect();
    let notes: Vec<String> = A::MEMBERS
        .iter()
        .enumerate()
        .filter_map(|(member, info)| {
            let adapter = (A::MEMBERS.len() > 1).then_some(info.name);
            let own = routes
                .iter()
                .copied()
                .filter(|route| route.member == member);
            safety_note(own, gate.policy(member), adapter)
        })
        .collect();
    (!notes.is_empty()).then(|| notes.join("\n\n"))
}

/// What `policy` does to `routes` of one adapter (named when the server has several), in one
/// paragraph; `None` when every one of them runs.
fn safety_note<'a>(
    routes: impl Iterator<Item = &'a &'static Route>,
    policy: &Policy,
    adapter: Option<&str>,
) -> Option<String> {
    let mut confirmed = Vec::new();
    let mut refused = Vec::new();
    for route in routes {
        match policy.decide(route.danger_level, route.requires_confirmation) {
            Decision::Allow => {}
            Decision::Confirm(_) => confirmed.push(*route),
            Decision::Deny(Denial::Untested) => {
                return Some(match adapter {
                    None => "Safety: this adapter is untested, so only 'introspect' runs until its schema declares a trust level or the operator vouches for one (--trust-level).".to_owned(),
                    Some(name) => format!("Safety of '{name}': this adapter is untested, so its operations are refused until its schema declares a trust level or the operator vouches for one (--trust-level)."),
                });
            }
            Decision::Deny(_) => refused.push(*route),
        }
    }
    if confirmed.is_empty() && refused.is_empty() {
        return None;
    }
    let mut note = match adapter {
        None => format!("Safety (trust level '{}'):", policy.trust),
        Some(name) => format!("Safety of '{name}' (trust level '{}'):", policy.trust),
    };
    if !confirmed.is_empty() {
        let levels: Vec<DangerLevel> = confirmed.iter().map(|route| route.danger_level).collect();
        note.push_str(&format!(
            " needs confirmation: {}; {}.",
            listing(&confirmed),
            policy.confirmation_note(&levels)
        ));
    }
    if !refused.is_empty() {
        note.push_str(&format!(" Refused: {}.", listing(&refused)));
    }
    Some(note)
}

/// A few operations by name with their danger levels; a longer list as counts per level,
/// since a sample of names would tell an agent nothing about the one it wants.
fn listing(routes: &[&Route]) -> String {
    if routes.len() <= NOTE_NAMES {
        let labels: Vec<String> = routes
            .iter()
            .map(|route| format!("{} ({})", route.operation, route.danger_level))
            .collect();
        return labels.join(", ");
    }
    let per_level: Vec<String> = DangerLevel::ALL
        .iter()
        .filter_map(|level| {
            let count = routes.iter().filter(|r| r.danger_level == *level).count();
            (count > 0).then(|| format!("{count} {level}"))
        })
        .collect();
    format!(
        "{} operations ({}); introspect an operation to see its decision",
        routes.len(),
        per_level.join(", ")
    )
}

fn tool(
    prefix: &str,
    surface: Surface,
    description: Cow<'static, str>,
    schema: &Arc<JsonObject>,
    read_only: bool,
    destructive: bool,
) -> Tool {
    let mut tool = Tool::new(
        format!("{prefix}{}", base_name(surface)),
        description,
        schema.clone(),
    );
    tool.annotations = Some(
        ToolAnnotations::new()
            .read_only(read_only)
            .destructive(destructive),
    );
    tool
}

#[cfg(test)]
mod tests {
    use super::*;

    fn route(operation: &'static str, danger_level: DangerLevel) -> &'static Route {
        Box::leak(Box::new(Route {
            operation,
            category: Category::Delete,
            danger_level,
            ..Route::DEFAULT
        }))
    }

    #[test]
    fn a_few_operations_are_named_and_many_are_counted_per_level() {
        let few = [
            route("purge", DangerLevel::Dangerous),
            route("wipe", DangerLevel::Forbidden),
        ];
        assert_eq!(listing(&few), "purge (dangerous), wipe (forbidden)");

        let mut many: Vec<&Route> = (0..NOTE_NAMES)
            .map(|_| route("remove", DangerLevel::Destructive))
            .collect();
        many.push(route("wipe", DangerLevel::Forbidden));
        assert_eq!(
            listing(&many),
            "11 operations (10 destructive, 1 forbidden); introspect an operation to see its decision"
        );
    }
}
