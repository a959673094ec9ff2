//! The floor plan holds: in `aqlgen-runtime` and `aqlgen-build`, no two modules import each
//! other, directly or around a loop, unless one is nested in the other; and in the runtime,
//! imports point down the layers its crate documentation draws.
//!
//! Imports are read from the source with `syn`: `use` trees and every path in the code that
//! starts with `crate::`, `super::`, `self::` or a child module's name. Test modules
//! (`#[cfg(test)]`) are left out: a test may reach anywhere.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use syn::visit::Visit;

/// The runtime's layers, top down: a module may import its own layer and those below it.
/// Root modules not listed are the foundation, which every layer uses.
const RUNTIME_LAYERS: [&str; 5] = ["serve", "transport", "protocol", "call", "state"];

#[test]
fn the_runtime_has_no_import_cycle_and_its_layers_point_down() {
    let graph = Graph::of(&crate_src("runtime-support"));
    graph.assert_acyclic("aqlgen-runtime");
    let rank = |module: &str| -> usize {
        let top = module.split("::").next().unwrap_or_default();
        RUNTIME_LAYERS
            .iter()
            .position(|layer| *layer == top)
            .unwrap_or(RUNTIME_LAYERS.len())
    };
    let upward: Vec<String> = graph
        .edges
        .iter()
        .flat_map(|(from, tos)| tos.iter().map(move |to| (from, to)))
        .filter(|(from, to)| rank(to) < rank(from))
        .map(|(from, to)| format!("{from} -> {to} ({})", graph.files[from].display()))
        .collect();
    assert!(
        upward.is_empty(),
        "imports pointing up the layers {RUNTIME_LAYERS:?}:\n{}",
        upward.join("\n")
    );
}

#[test]
fn the_generator_has_no_import_cycle() {
    Graph::of(&crate_src("generator")).assert_acyclic("aqlgen-build");
}

fn crate_src(folder: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(folder)
        .join("src")
}

/// Modules, by path (`gate::limits`), and the modules each imports.
struct Graph {
    files: BTreeMap<String, PathBuf>,
    edges: BTreeMap<String, BTreeSet<String>>,
}

impl Graph {
    fn of(src: &Path) -> Self {
        let mut files = BTreeMap::new();
        collect(src, src, &mut files);
        let modules: BTreeSet<String> = files.keys().cloned().collect();
        let mut edges = BTreeMap::new();
        for (module, file) in &files {
            let text = std::fs::read_to_string(file).expect("a readable source file");
            let parsed = syn::parse_file(&text).expect("the source parses");
            let mut paths = Paths::default();
            paths.visit_file(&parsed);
            let mut targets = BTreeSet::new();
            for path in paths.found {
                if let Some(target) = resolve(module, &path, &modules)
                    && target != *module
                    && !nested(module, &target)
                {
                    targets.insert(target);
                }
            }
            edges.insert(module.clone(), targets);
        }
        Self { files, edges }
    }

    /// Panics with every import cycle (Tarjan's strongly connected components).
    fn assert_acyclic(&self, name: &str) {
        let cycles = components(&self.edges);
        let shown: Vec<String> = cycles
            .iter()
            .map(|cycle| {
                cycle
                    .iter()
                    .map(|module| format!("{module} ({})", self.files[module].display()))
                    .collect::<Vec<_>>()
                    .join(" <-> ")
            })
            .collect();
        assert!(
            shown.is_empty(),
            "{name}: {} import cycle(s):\n{}",
            shown.len(),
            shown.join("\n")
        );
    }
}

/// Whether one module is nested in the other.
fn nested(a: &str, b: &str) -> bool {
    let inside =
        |outer: &str, inner: &str| outer == "crate" || inner.starts_with(&format!("{outer}::"));
    inside(a, b) || inside(b, a)
}

/// Every module file under `dir`, by module path.
fn collect(src: &Path, dir: &Path, files: &mut BTreeMap<String, PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("a readable directory") {
        let path = entry.expect("an entry").path();
        if path.is_dir() {
            collect(src, &path, files);
            continue;
        }
        if path.extension().is_none_or(|ext| ext != "rs") {
            continue;
        }
        let relative = path.strip_prefix(src).expect("under src");
        let mut parts: Vec<String> = relative
            .with_extension("")
            .components()
            .map(|part| part.as_os_str().to_string_lossy().into_owned())
            .collect();
        match parts.last().map(String::as_str) {
            Some("lib") if parts.len() == 1 => parts = vec!["crate".to_owned()],
            Some("main") if parts.len() == 1 => continue,
            Some("mod") => {
                parts.pop();
            }
            _ => {}
        }
        // A file a module includes with `#[path]` for its tests is not a module of its own.
        if parts.last().is_some_and(|part| part.ends_with("_tests")) {
            continue;
        }
        files.insert(parts.join("::"), path);
    }
}

/// The module `path`, written in `module`, names: the longest known module it starts with.
fn resolve(module: &str, path: &[String], modules: &BTreeSet<String>) -> Option<String> {
    let here: Vec<&str> = if module == "crate" {
        Vec::new()
    } else {
        module.split("::").collect()
    };
    let mut absolute: Vec<String> = match path.first().map(String::as_str) {
        Some("crate") => Vec::new(),
        Some("super") => {
            let mut base: Vec<String> = here.iter().map(|s| (*s).to_owned()).collect();
            let mut rest = path;
            while rest.first().is_some_and(|s| s == "super") {
                base.pop();
                rest = &rest[1..];
            }
            base.extend(rest.iter().cloned());
            return longest(&base, modules);
        }
        Some("self") => here.iter().map(|s| (*s).to_owned()).collect(),
        Some(first) => {
            // A child module named first, else nothing of this crate.
            let mut child: Vec<String> = here.iter().map(|s| (*s).to_owned()).collect();
            child.push((*first).to_owned());
            if !modules.contains(&child.join("::")) {
                return None;
            }
            child.pop();
            child
        }
        None => return None,
    };
    let skip = usize::from(matches!(path[0].as_str(), "crate" | "self"));
    absolute.extend(path[skip..].iter().cloned());
    longest(&absolute, modules)
}

fn longest(parts: &[String], modules: &BTreeSet<String>) -> Option<String> {
    (1..=parts.len())
        .rev()
        .map(|len| parts[..len].join("::"))
        .find(|candidate| modules.contains(candidate))
}

/// The paths a file names, outside `#[cfg(test)]` items.
#[derive(Default)]
struct Paths {
    found: Vec<Vec<String>>,
}

fn is_test(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|attr| {
        attr.path().is_ident("cfg")
            && attr
                .parse_args::<syn::Meta>()
                .is_ok_and(|meta| meta.path().is_ident("test"))
    })
}

impl<'ast> Visit<'ast> for Paths {
    fn visit_item(&mut self, item: &'ast syn::Item) {
        let attrs = match item {
            syn::Item::Mod(item) => &item.attrs,
            syn::Item::Fn(item) => &item.attrs,
            syn::Item::Use(item) => &item.attrs,
            syn::Item::Impl(item) => &item.attrs,
            _ => return syn::visit::visit_item(self, item),
        };
        if !is_test(attrs) {
            syn::visit::visit_item(self, item);
        }
    }

    fn visit_item_use(&mut self, item: &'ast syn::ItemUse) {
        let mut prefix = Vec::new();
        flatten(&item.tree, &mut prefix, &mut self.found);
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        let segments: Vec<String> = path
            .segments
            .iter()
            .map(|segment| segment.ident.to_string())
            .collect();
        if segments.len() > 1 {
            self.found.push(segments);
        }
        syn::visit::visit_path(self, path);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        // Paths inside macro calls (`format!`, `quote!`) are tokens; those naming this crate
        // are found by their text.
        let text = mac.tokens.to_string().replace(' ', "");
        for start in ["crate::", "super::"] {
            for (at, _) in text.match_indices(start) {
                let path: String = text[at..]
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
                    .collect();
                self.found.push(
                    path.split("::")
                        .filter(|s| !s.is_empty())
                        .map(str::to_owned)
                        .collect(),
                );
            }
        }
    }
}

fn flatten(tree: &syn::UseTree, prefix: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    match tree {
        syn::UseTree::Path(path) => {
            prefix.push(path.ident.to_string());
            flatten(&path.tree, prefix, out);
            prefix.pop();
        }
        syn::UseTree::Name(name) => {
            let mut full = prefix.clone();
            if name.ident != "self" {
                full.push(name.ident.to_string());
            }
            out.push(full);
        }
        syn::UseTree::Rename(rename) => {
            let mut full = prefix.clone();
            full.push(rename.ident.to_string());
            out.push(full);
        }
        syn::UseTree::Glob(_) => out.push(prefix.clone()),
        syn::UseTree::Group(group) => {
            for tree in &group.items {
                flatten(tree, prefix, out);
            }
        }
    }
}

/// The strongly connected components of more than one module.
fn components(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct Tarjan<'a> {
        edges: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        next: usize,
        found: Vec<Vec<String>>,
    }
    impl<'a> Tarjan<'a> {
        fn visit(&mut self, node: &'a str) {
            self.index.insert(node, self.next);
            self.low.insert(node, self.next);
            self.next += 1;
            self.stack.push(node);
            self.on_stack.insert(node);
            for next in self.edges.get(node).into_iter().flatten() {
                let next = next.as_str();
                if !self.index.contains_key(next) {
                    self.visit(next);
                    let low = self.low[node].min(self.low[next]);
                    self.low.insert(node, low);
                } else if self.on_stack.contains(next) {
                    let low = self.low[node].min(self.index[next]);
                    self.low.insert(node, low);
                }
            }
            if self.low[node] == self.index[node] {
                let mut component = Vec::new();
                while let Some(top) = self.stack.pop() {
                    self.on_stack.remove(top);
                    component.push(top.to_owned());
                    if top == node {
                        break;
                    }
                }
                if component.len() > 1 {
                    component.sort();
                    self.found.push(component);
                }
            }
        }
    }
    let mut tarjan = Tarjan {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        next: 0,
        found: Vec::new(),
    };
    for node in edges.keys() {
        if !tarjan.index.contains_key(node.as_str()) {
            tarjan.visit(node);
        }
    }
    tarjan.found
}
