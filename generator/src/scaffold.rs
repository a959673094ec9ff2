//! `aqlgen new`: the files of an adapter project whose `build.rs` compiles its schema, in the
//! manner of a prost-build project.

use crate::Workspace;
use crate::error::Error;
use crate::output::GeneratedFile;
use crate::render::Renderer;

/// A schema to put in a new project.
#[derive(Debug, Clone)]
pub struct ProjectSchema {
    /// Its file name in the project, e.g. `todo-adapter.md`.
    pub file_name: String,
    /// Its text.
    pub text: String,
}

/// A scaffolded project.
#[derive(Debug)]
pub struct Project {
    /// Its files; the schema comes last.
    pub files: Vec<GeneratedFile>,
    /// What its schema's server will do that its author may not expect ([`crate::Checked::notes`]).
    pub notes: Vec<String>,
}

/// A new adapter project: the package `package` whose `build.rs` compiles `schema` (a
/// commented starter schema when `None`), with `src/lib.rs` including the generated
/// adapter, `src/main.rs` serving it, a README and a `.gitignore`, standing to the workspace
/// around it as `workspace` says.
///
/// # Errors
///
/// [`Error::Config`] when `package` is not a name Cargo accepts; [`Error::Schema`] when
/// `schema` does not pass [`crate::check_text`].
pub fn new_project(
    package: &str,
    schema: Option<ProjectSchema>,
    workspace: Workspace,
) -> Result<Project, Error> {
    check_package_name(package)?;
    let renderer = Renderer::new()?;
    let schema = match schema {
        Some(schema) => schema,
        None => {
            let name = adapter_name(package);
            let file_name = format!("{name}-adapter.md");
            let text = renderer.starter_schema(&name, &file_name)?;
            ProjectSchema { file_name, text }
        }
    };
    let checked = crate::check_text(&schema.file_name, &schema.text)?;
    let mut files: Vec<GeneratedFile> = renderer
        .project(&checked.lowered, package, &schema.file_name, workspace)?
        .into_iter()
        .map(|(path, contents)| GeneratedFile {
            path: path.to_owned(),
            contents,
        })
        .collect();
    files.push(GeneratedFile {
        path: schema.file_name,
        contents: schema.text,
    });
    Ok(Project {
        files,
        notes: checked.notes(),
    })
}

/// The adapter name of a starter schema in package `package`: lowercase kebab-case.
fn adapter_name(package: &str) -> String {
    let lower = package.to_ascii_lowercase().replace('_', "-");
    let words: Vec<&str> = lower.split('-').filter(|word| !word.is_empty()).collect();
    words.join("-")
}

/// Refuses what Cargo would refuse as a package name, and the names of the two crates every
/// project depends on.
fn check_package_name(package: &str) -> Result<(), Error> {
    let refuse = |why: &str| {
        Err(Error::Config(format!(
            "`{package}` cannot name the project's package: {why}; pass another with --name"
        )))
    };
    let mut chars = package.chars();
    if !chars
        .next()
        .is_some_and(|first| first.is_ascii_alphabetic())
    {
        return refuse("it must start with an ASCII letter");
    }
    if !chars.all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_') {
        return refuse("it may hold only ASCII letters, digits, `-` and `_`");
    }
    let lib = package.replace('-', "_");
    if crate::ident::is_keyword(&lib)
        || ["std", "core", "alloc", "test", "proc_macro"].contains(&lib.as_str())
    {
        return refuse("it is a Rust keyword or the name of a standard crate");
    }
    if ["aqlgen_runtime", "aqlgen_build"].contains(&lib.as_str()) {
        return refuse("the project depends on a crate of that name");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn package_names() {
        for good in ["todo", "my-api", "My_Api2"] {
            assert!(check_package_name(good).is_ok(), "{good}");
        }
        for bad in ["", "2fa", "my api", "fn", "std", "aqlgen-runtime", "é"] {
            assert!(check_package_name(bad).is_err(), "{bad}");
        }
        assert_eq!(adapter_name("My__Weather_api-"), "my-weather-api");
    }

    #[test]
    fn the_starter_project_passes_check() {
        let files = new_project("weather", None, Workspace::Outside)
            .expect("the starter is valid")
            .files;
        let paths: Vec<&str> = files.iter().map(|file| file.path.as_str()).collect();
        assert_eq!(
            paths,
            [
                "Cargo.toml",
                "build.rs",
                "src/lib.rs",
                "src/main.rs",
                "README.md",
                ".gitignore",
                "weather-adapter.md"
            ]
        );
        let main = &files[3].contents;
        assert!(
            main.contains("aqlgen_runtime::run::<weather::adapter::WeatherAdapter>()"),
            "{main}"
        );
    }
}
