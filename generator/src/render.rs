//! Text artifacts from the tera templates in `templates/`: tool descriptions, `Cargo.toml`,
//! `README.md` and `MCPAQL-PROVENANCE.json`.

use serde_json::{Value, json};
use tera::{Context, Tera};

use crate::error::Error;
use crate::ir::{Adapter, Category, Operation};

const TEMPLATES: [(&str, &str); 5] = [
    (
        "tool-family.tera",
        include_str!("../../templates/tool-family.tera"),
    ),
    (
        "tool-single.tera",
        include_str!("../../templates/tool-single.tera"),
    ),
    (
        "Cargo.toml.tera",
        include_str!("../../templates/Cargo.toml.tera"),
    ),
    (
        "README.md.tera",
        include_str!("../../templates/README.md.tera"),
    ),
    (
        "MCPAQL-PROVENANCE.json.tera",
        include_str!("../../templates/MCPAQL-PROVENANCE.json.tera"),
    ),
];

/// Rendered MCP tool descriptions (seed mcp-integration §2.1); `None` for empty families.
#[derive(Debug, Clone)]
pub struct Tools {
    /// `mcp_aql_create`.
    pub create: Option<String>,
    /// `mcp_aql_read`.
    pub read: String,
    /// `mcp_aql_update`.
    pub update: Option<String>,
    /// `mcp_aql_delete`.
    pub delete: Option<String>,
    /// `mcp_aql_execute`.
    pub execute: Option<String>,
    /// `mcp_aql`.
    pub single: String,
}

/// The loaded templates.
pub struct Renderer {
    tera: Tera,
}

impl Renderer {
    /// Loads the embedded templates.
    pub fn new() -> Result<Self, Error> {
        let mut tera = Tera::default();
        tera.add_raw_templates(TEMPLATES).map_err(template_error)?;
        Ok(Self { tera })
    }

    fn render(&self, name: &str, context: &Value) -> Result<String, Error> {
        let context = Context::from_value(context.clone()).map_err(template_error)?;
        self.tera.render(name, &context).map_err(template_error)
    }

    /// The tool descriptions of every family and of single mode.
    pub fn tools(&self, adapter: &Adapter) -> Result<Tools, Error> {
        let family = |category: Category| -> Result<Option<String>, Error> {
            let operations: Vec<&Operation> = adapter
                .operations
                .iter()
                .filter(|op| op.category == category)
                .collect();
            if operations.is_empty() && category != Category::Read {
                return Ok(None);
            }
            let (purpose, note) = match category {
                Category::Create => (
                    "Additive operations that create new data.",
                    "These operations add new data without removing or overwriting existing content.",
                ),
                Category::Read => (
                    "Safe, read-only operations.",
                    "These queries only read data and never modify server state.",
                ),
                Category::Update => (
                    "Modifying operations that overwrite data.",
                    "These operations modify existing data, potentially overwriting previous values. Put the fields to change in the `input` object.",
                ),
                Category::Delete => (
                    "Destructive operations that remove data.",
                    "These operations remove data. Use with caution.",
                ),
                Category::Execute => (
                    "Operations with side effects on the target API.",
                    "These operations trigger actions; they are not plain reads or writes.",
                ),
            };
            let example = operations.first().map_or_else(
                || "{ operation: \"introspect\", params: { query: \"operations\" } }".to_owned(),
                |op| example(op),
            );
            let details: Vec<Value> = operations
                .iter()
                .map(|op| json!({"name": op.name, "description": op.description}))
                .collect();
            let names: Vec<&str> = operations.iter().map(|op| op.name.as_str()).collect();
            let context = json!({
                "family": category.family(), "purpose": purpose, "note": note,
                "operations": names, "details": details, "example": example,
            });
            self.render("tool-family.tera", &context)
                .map(|text| Some(text.trim().to_owned()))
        };
        let groups: Vec<Value> = Category::ALL
            .iter()
            .map(|category| {
                let names: Vec<&str> = adapter.operations.iter().filter(|op| op.category == *category).map(|op| op.name.as_str()).collect();
                let label = &category.variant();
                json!({"label": label, "operations": if names.is_empty() { vec!["none"] } else { names }})
            })
            .collect();
        let single = self.render(
            "tool-single.tera",
            &json!({"name": adapter.name, "groups": groups}),
        )?;
        Ok(Tools {
            create: family(Category::Create)?,
            read: family(Category::Read)?.expect("the read family is always rendered"),
            update: family(Category::Update)?,
            delete: family(Category::Delete)?,
            execute: family(Category::Execute)?,
            single: single.trim().to_owned(),
        })
    }

    /// `Cargo.toml`, with runtime-support at `runtime_path` (relative to the crate).
    pub fn cargo_toml(&self, adapter: &Adapter, runtime_path: &str) -> Result<String, Error> {
        self.render("Cargo.toml.tera", &json!({
            "schema_path": adapter.schema_path, "package": adapter.package, "version": adapter.version,
            "description": adapter.description, "lib_name": adapter.lib_name,
            "runtime_path": runtime_path, "uses_regex": adapter.uses_patterns(),
        }))
    }

    /// `README.md`.
    pub fn readme(&self, adapter: &Adapter) -> Result<String, Error> {
        let groups: Vec<Value> = Category::ALL
            .iter()
            .filter(|category| adapter.operations.iter().any(|op| op.category == **category))
            .map(|category| {
                let operations: Vec<Value> = adapter.operations.iter().filter(|op| op.category == *category).map(|op| json!({
                    "name": op.name,
                    "request": format!("{} {}", op.method.variant().to_uppercase(), op.path_template),
                    "description": op.description.replace('\n', " ").replace('|', "\\|"),
                })).collect();
                json!({"label": category.variant(), "family": category.family(), "operations": operations})
            })
            .collect();
        self.render("README.md.tera", &json!({
            "name": adapter.name, "package": adapter.package, "version": adapter.version,
            "description": adapter.description, "schema_path": adapter.schema_path,
            "generator_version": env!("CARGO_PKG_VERSION"), "base_url": adapter.base_url,
            "base_url_env": adapter.base_url_env, "auth_env": adapter.auth.env_vars(),
            "groups": groups, "fingerprint": adapter.fingerprint, "documentation": adapter.documentation,
        }))
    }

    /// `MCPAQL-PROVENANCE.json` (REQ-GEN-5).
    pub fn provenance(&self, adapter: &Adapter) -> Result<String, Error> {
        let filename = adapter
            .schema_path
            .rsplit('/')
            .next()
            .unwrap_or(&adapter.schema_path);
        self.render(
            "MCPAQL-PROVENANCE.json.tera",
            &json!({
                "generator_version": env!("CARGO_PKG_VERSION"), "fingerprint": adapter.fingerprint,
                "schema_filename": filename, "version": adapter.version,
            }),
        )
    }
}

/// `{ operation: "x", params: { a: "<a>" } }` for a tool description.
fn example(operation: &Operation) -> String {
    let mut params: Vec<String> = operation
        .params
        .iter()
        .filter(|param| param.required)
        .map(|param| format!("{}: {}", param.name, sample(param)))
        .collect();
    if let Some(input) = &operation.input
        && let Some(field) = input.fields.first()
    {
        params.push(format!("input: {{ {}: {} }}", field.name, sample(field)));
    }
    format!(
        "{{ operation: \"{}\", params: {{ {} }} }}",
        operation.name,
        params.join(", ")
    )
}

fn sample(param: &crate::ir::Param) -> String {
    match param.ty {
        crate::ir::ParamType::String => format!("\"<{}>\"", param.name),
        crate::ir::ParamType::Integer | crate::ir::ParamType::Number => "1".to_owned(),
        crate::ir::ParamType::Boolean => "true".to_owned(),
        crate::ir::ParamType::Array => "[]".to_owned(),
        crate::ir::ParamType::Object => "{}".to_owned(),
    }
}

fn template_error(error: tera::Error) -> Error {
    let mut message = error.to_string();
    let mut source = std::error::Error::source(&error);
    while let Some(cause) = source {
        message.push_str(&format!(": {cause}"));
        source = cause.source();
    }
    Error::Template(message)
}
