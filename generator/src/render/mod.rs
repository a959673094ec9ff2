//! Text artifacts from the tera templates in `templates/`: tool descriptions, `Cargo.toml`,
//! `README.md` and `MCPAQL-PROVENANCE.json`.

use aqlgen_model::TrustLevel;
use serde_json::{Map, Value, json};
use tera::{Context, Tera};

mod listing;

/// `(name, text)` of the template file `templates/<name>`.
macro_rules! template {
    ($name:literal) => {
        ($name, include_str!(concat!("../../templates/", $name)))
    };
}

use crate::error::Error;
use crate::ir::{Adapter, Category, Operation, SchemaFormat};
use listing::{FAMILY_GROUPS_SHOWN, Listing, SINGLE_GROUPS_SHOWN, search_words, verbs};

/// Every template, each embedded once: `new/` holds the files of a project `aqlgen new`
/// scaffolds, `clients.md.tera` the client configurations both READMEs include.
const TEMPLATES: [(&str, &str); 14] = [
    template!("tool-family.tera"),
    template!("README-bundle.md.tera"),
    template!("tool-single.tera"),
    template!("Cargo.toml.tera"),
    template!("README.md.tera"),
    template!("MCPAQL-PROVENANCE.json.tera"),
    template!("clients.md.tera"),
    template!("new/Cargo.toml.tera"),
    template!("new/build.rs.tera"),
    template!("new/lib.rs.tera"),
    template!("new/main.rs.tera"),
    template!("new/README.md.tera"),
    template!("new/gitignore.tera"),
    template!("new/starter-adapter.md.tera"),
];

/// Rendered MCP tool descriptions (seed mcp-integration §2.1), one per family whether or
/// not the adapter has operations in it: crude mode registers all five (GEN §3.2).
#[derive(Debug, Clone)]
pub struct Tools {
    /// `mcp_aql_create`.
    pub create: String,
    /// `mcp_aql_read`.
    pub read: String,
    /// `mcp_aql_update`.
    pub update: String,
    /// `mcp_aql_delete`.
    pub delete: String,
    /// `mcp_aql_execute`.
    pub execute: String,
    /// `mcp_aql`.
    pub single: String,
}

/// `Create` of `create`.
fn title(word: &str) -> String {
    let mut chars = word.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_uppercase().chain(chars).collect()
    })
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
    ///
    /// A family with few operations names them all; a large one gives its count and its
    /// groups by name prefix instead (see [`Listing`]), and shows how to find one operation
    /// with `introspect`'s `endpoint` and `search` filters.
    pub fn tools(&self, adapter: &Adapter) -> Result<Tools, Error> {
        let in_category = |category: Category| -> Vec<&Operation> {
            adapter
                .operations
                .iter()
                .filter(|op| op.category == category)
                .collect()
        };
        let family = |category: Category| -> Result<String, Error> {
            let operations = in_category(category);
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
            let listing = Listing::new(&operations, FAMILY_GROUPS_SHOWN);
            let featured = listing.featured(&operations, verbs(category));
            let example = featured.map_or_else(
                || "{ operation: \"introspect\", params: { query: \"operations\" } }".to_owned(),
                example,
            );
            // A grouped family leaves the per-operation descriptions to `introspect`.
            let details: Vec<Value> = if listing.grouped {
                Vec::new()
            } else {
                operations
                    .iter()
                    .map(|op| json!({"name": op.name, "description": op.description}))
                    .collect()
            };
            let context = json!({
                "family": category.family(), "purpose": purpose, "note": note,
                "empty": operations.is_empty(),
                "listing": listing.context(), "details": details, "example": example,
                "featured": featured.map(|op| op.name.as_str()),
                "search": featured.map(search_words),
            });
            self.render("tool-family.tera", &context)
                .map(|text| text.trim().to_owned())
        };
        let listings: Vec<(Category, Vec<&Operation>)> = Category::ALL
            .iter()
            .map(|category| (*category, in_category(*category)))
            .collect();
        let groups: Vec<Value> = listings
            .iter()
            .map(|(category, operations)| {
                json!({
                    "label": title(category.family()),
                    "listing": Listing::new(operations, SINGLE_GROUPS_SHOWN).context(),
                })
            })
            .collect();
        // When any category is grouped, the quick start searches the largest one.
        let any_grouped = listings
            .iter()
            .any(|(_, operations)| Listing::new(operations, SINGLE_GROUPS_SHOWN).grouped);
        let largest = listings
            .iter()
            .max_by_key(|(category, operations)| (operations.len(), *category == Category::Read))
            .expect("there are five categories");
        let search = any_grouped
            .then(|| {
                let (category, operations) = largest;
                let featured = Listing::new(operations, SINGLE_GROUPS_SHOWN)
                    .featured(operations, verbs(*category))?;
                Some(json!({
                    "endpoint": category.family(),
                    "words": search_words(featured),
                    "name": featured.name,
                }))
            })
            .flatten();
        let single = self.render(
            "tool-single.tera",
            &json!({"name": adapter.name, "groups": groups, "search": search}),
        )?;
        Ok(Tools {
            create: family(Category::Create)?,
            read: family(Category::Read)?,
            update: family(Category::Update)?,
            delete: family(Category::Delete)?,
            execute: family(Category::Execute)?,
            single: single.trim().to_owned(),
        })
    }

    /// `Cargo.toml` for a crate at `location`.
    pub fn cargo_toml(
        &self,
        adapter: &Adapter,
        location: &crate::CrateLocation,
    ) -> Result<String, Error> {
        self.cargo_toml_of(
            &crate::text::visible(&adapter.schema_path).replace('\n', " "),
            &adapter.package,
            &adapter.version,
            &adapter.description,
            &adapter.lib_name,
            location,
        )
    }

    /// The `Cargo.toml` of bundle `name`: package `package` at `version`.
    pub fn bundle_cargo_toml(
        &self,
        name: &str,
        package: &str,
        version: &str,
        location: &crate::CrateLocation,
    ) -> Result<String, Error> {
        self.cargo_toml_of(
            &format!("the {name} bundle"),
            package,
            version,
            &format!("The {name} MCP-AQL bundle."),
            &package.replace('-', "_"),
            location,
        )
    }

    /// `Cargo.toml` of package `package` at `version` (lib `lib_name`), generated from
    /// `source`, taking the runtime as `location` says.
    fn cargo_toml_of(
        &self,
        source: &str,
        package: &str,
        version: &str,
        description: &str,
        lib_name: &str,
        location: &crate::CrateLocation,
    ) -> Result<String, Error> {
        self.render(
            "Cargo.toml.tera",
            &json!({
                "schema_path": source,
                "package": package, "version": version,
                "description_toml": crate::text::toml_string(description),
                "lib_name": lib_name,
                "runtime_version": crate::RUNTIME_VERSION,
                "runtime_path": match &location.runtime {
                    crate::RuntimeSource::Registry => None,
                    crate::RuntimeSource::Path(path) => Some(crate::text::toml_string(path)),
                },
                "workspace_lints": matches!(location.workspace, crate::Workspace::Member { lints: true }),
                "workspace_root": location.workspace == crate::Workspace::Root,
            }),
        )
    }

    /// The `README.md` of bundle `name` (package `package`, fingerprint `fingerprint`), its
    /// members (namespaced) in order.
    pub fn bundle_readme(
        &self,
        name: &str,
        package: &str,
        fingerprint: &str,
        members: &[Adapter],
    ) -> Result<String, Error> {
        let mut env: Vec<&str> = Vec::new();
        let members: Vec<Value> = members
            .iter()
            .map(|member| {
                env.extend(member.auth.env_vars());
                let ops: Vec<Value> = member
                    .operations
                    .iter()
                    .map(|op| {
                        json!({
                            "name": op.name, "family": op.category.family(),
                            "request": format!("{} {}", op.method.as_str(), op.path_template),
                        })
                    })
                    .collect();
                json!({
                    "name": member.name, "schema_path": member.schema_path,
                    "description": member.description, "operations": ops.len(), "ops": ops,
                    "base_url": member.base_url, "base_url_env": member.base_url_env,
                    "auth_env": member.auth.env_vars(),
                    "trust": member.trust.map_or("none declared", |level| level.as_str()),
                })
            })
            .collect();
        let sources: Vec<&str> = members
            .iter()
            .filter_map(|member| member["schema_path"].as_str())
            .collect();
        self.render(
            "README-bundle.md.tera",
            &json!({
                "name": name, "package": package, "sources": sources.join(", "),
                "generator_version": env!("CARGO_PKG_VERSION"), "members": members,
                "env": env, "fingerprint": fingerprint,
            }),
        )
    }

    /// `README.md`.
    pub fn readme(&self, adapter: &Adapter) -> Result<String, Error> {
        let groups: Vec<Value> = Category::ALL
            .iter()
            .filter(|category| adapter.operations.iter().any(|op| op.category == **category))
            .map(|category| {
                let operations: Vec<Value> = adapter.operations.iter().filter(|op| op.category == *category).map(|op| json!({
                    "name": op.name,
                    "request": format!("{} {}", op.method.as_str(), op.path_template),
                    "description": op.description.replace('\n', " ").replace('|', "\\|"),
                })).collect();
                json!({"label": title(category.family()), "family": category.family(), "operations": operations})
            })
            .collect();
        let fingerprinted = match adapter.format {
            SchemaFormat::FrontMatter => "the front matter",
            SchemaFormat::GeneratorDocument => "the whole schema document",
        };
        let mut context = clients(adapter, &adapter.package);
        context.extend(object(json!({
            "fingerprinted": fingerprinted,
            "package": adapter.package, "version": adapter.version,
            "description": adapter.description, "schema_path": adapter.schema_path,
            "generator_version": env!("CARGO_PKG_VERSION"), "base_url": adapter.base_url,
            "groups": groups, "fingerprint": adapter.fingerprint, "documentation": adapter.documentation,
        })));
        self.render("README.md.tera", &Value::Object(context))
    }

    /// The files of a project that compiles `adapter`'s schema, `schema_file` in the project,
    /// from its `build.rs`: `Cargo.toml`, `build.rs`, `src/lib.rs`, `src/main.rs`, `README.md`
    /// and `.gitignore`, as (path, contents), for a package standing to its workspace as
    /// `workspace` says.
    pub fn project(
        &self,
        adapter: &Adapter,
        package: &str,
        schema_file: &str,
        workspace: crate::Workspace,
    ) -> Result<Vec<(&'static str, String)>, Error> {
        let mut context = clients(adapter, package);
        context.extend(object(json!({
            "package": package,
            "version": crate::RUNTIME_VERSION,
            "description": adapter.description,
            "description_toml": crate::text::toml_string(&adapter.description),
            "schema_file": schema_file,
            "include_file": adapter.include_file(),
            "type_name": adapter.type_name,
            "lib_name": package.replace('-', "_"),
            "workspace_root": workspace == crate::Workspace::Root,
        })));
        let context = Value::Object(context);
        [
            ("Cargo.toml", "new/Cargo.toml.tera"),
            ("build.rs", "new/build.rs.tera"),
            ("src/lib.rs", "new/lib.rs.tera"),
            ("src/main.rs", "new/main.rs.tera"),
            ("README.md", "new/README.md.tera"),
            (".gitignore", "new/gitignore.tera"),
        ]
        .into_iter()
        .map(|(path, template)| Ok((path, self.render(template, &context)?)))
        .collect()
    }

    /// The starter schema of a project scaffolded without one: adapter `name`, in the file
    /// `schema_file`.
    pub fn starter_schema(&self, name: &str, schema_file: &str) -> Result<String, Error> {
        let shouty = name.to_uppercase().replace('-', "_");
        self.render(
            "new/starter-adapter.md.tera",
            &json!({
                "name": name,
                "schema_file": schema_file,
                "base_url_env": format!("{shouty}_BASE_URL"),
                "token_env": format!("{shouty}_TOKEN"),
            }),
        )
    }

    /// `MCPAQL-PROVENANCE.json` (REQ-GEN-5).
    pub fn provenance(&self, adapter: &Adapter) -> Result<String, Error> {
        let filename = adapter
            .schema_path
            .rsplit('/')
            .next()
            .unwrap_or(&adapter.schema_path);
        let fingerprinted = match adapter.format {
            SchemaFormat::FrontMatter => "the YAML front matter",
            SchemaFormat::GeneratorDocument => "the whole schema document, YAML or JSON",
        };
        self.render(
            "MCPAQL-PROVENANCE.json.tera",
            &json!({
                "fingerprinted": fingerprinted,
                "generator_version": env!("CARGO_PKG_VERSION"), "fingerprint": adapter.fingerprint,
                "schema_filename": filename, "version": adapter.version,
            }),
        )
    }
}

/// What `clients.md.tera` needs: how the binary `binary` of `adapter` is configured in MCP
/// clients, with the `--trust-level` argument a schema below `validated` needs.
fn clients(adapter: &Adapter, binary: &str) -> Map<String, Value> {
    let (flag, note) = match adapter.trust {
        None | Some(TrustLevel::Untested) => (
            true,
            match adapter.format {
                SchemaFormat::FrontMatter => {
                    "The schema declares no trust level, so on its own the server answers only \
                     `introspect`. Once the adapter has passed your tests against the API, vouch \
                     for it with `--trust-level validated` (as the configurations below do) or \
                     declare `trust: {level: medium}` (validated) in the schema."
                }
                SchemaFormat::GeneratorDocument => {
                    "The schema's format has no trust level, so on its own the server answers \
                     only `introspect`. Once the adapter has passed your tests against the API, \
                     vouch for it with `--trust-level validated`, as the configurations below do."
                }
            },
        ),
        Some(TrustLevel::Generated) => (
            true,
            "The schema's trust level is `low` (generated): on its own the server runs only read \
             operations. Once the adapter has passed your tests against the API, vouch for it \
             with `--trust-level validated` (as the configurations below do), which runs the \
             others too, destructive ones after a confirmation.",
        ),
        Some(_) => (
            false,
            "The schema's trust level lets the server run its operations without a flag; \
             destructive ones ask for a confirmation first.",
        ),
    };
    let trust: Vec<&str> = if flag {
        vec!["--trust-level", "validated"]
    } else {
        Vec::new()
    };
    object(json!({
        "name": adapter.name,
        "binary": binary,
        "auth_env": adapter.auth.env_vars(),
        "base_url_env": adapter.base_url_env,
        "trust_args": serde_json::to_string(&trust).unwrap_or_default().replace(',', ", "),
        "trust_list": trust,
        "trust_flag": if flag { " --trust-level validated" } else { "" },
        "trust_note": note,
    }))
}

/// The members of a `json!({...})` object.
fn object(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(members) => members,
        _ => Map::new(),
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
    param.example.to_string()
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

#[cfg(test)]
mod test_schemas {
    //! Schemas with many operations, for the tests of listings and tool descriptions.

    use std::fmt::Write as _;

    /// A schema with `read` operations named `names` and `execute` ones named `execute`.
    pub fn schema(read: &[String], execute: &[String]) -> String {
        let mut text = String::from(
            "---\nname: big\ntype: adapter\nversion: 0.1.0\ndescription: Many operations.\n\
             target:\n  base_url: https://big.example.com\n  transport: http\n  protocol: rest\n  \
             serialization: json\nauth:\n  type: none\noperations:\n",
        );
        for (family, method, names) in [("read", "GET", read), ("execute", "POST", execute)] {
            if names.is_empty() {
                continue;
            }
            writeln!(text, "  {family}:").expect("writes to a String");
            for name in names {
                writeln!(
                    text,
                    "    - name: {name}\n      maps_to: {method} /ops/{name}\n      description: Does {name}."
                )
                .expect("writes to a String");
            }
        }
        text.push_str("---\n");
        text
    }

    /// `count` names `<prefix>_op00`, `<prefix>_op01`, ...
    pub fn names(prefix: &str, count: usize) -> Vec<String> {
        (0..count).map(|i| format!("{prefix}_op{i:02}")).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::Renderer;
    use super::test_schemas::{names, schema};

    /// The descriptions of a large adapter, as a model reads them in `tools/list`.
    #[test]
    fn large_adapter_tool_descriptions() {
        let mut read = names("repos", 12);
        read.insert(3, "repos_get".to_owned());
        read.extend(names("issues", 9));
        read.extend(names("pulls", 7));
        read.extend((0..22).map(|i| format!("g{i:02}_list")));
        // Few but long names: grouped by the character budget.
        let execute: Vec<String> = (0..12)
            .map(|i| format!("workflows_dispatch_a_long_named_run_{i:02}"))
            .collect();
        let checked = crate::check_text("big.md", &schema(&read, &execute)).expect("valid");
        let tools = Renderer::new()
            .expect("templates load")
            .tools(&checked.lowered)
            .expect("renders");
        assert!(
            tools
                .create
                .contains("This adapter has no create operations"),
            "{}",
            tools.create
        );
        let execute = tools.execute;
        for (name, text) in [
            ("read", &tools.read),
            ("execute", &execute),
            ("single", &tools.single),
        ] {
            expectorate::assert_contents(format!("tests/output/tools/large-{name}.txt"), text);
        }
    }
}
