//! The pipeline stays a pipeline: no module of the crate imports, directly or through
//! others, a module that imports it (`src/lib.rs`, architecture). Edges are the paths
//! `crate::a::b`, `super::x` and, in a parent, `child::x` in code outside comments and
//! test modules. A parent is no exception: a child that uses its parent's own items
//! (`super::CheckOptions`) while the parent uses the child is a cycle, so what children
//! share lives in a module of its own (`symbolic::options`, `cli::exit`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The module a source file defines: `src/symbolic/explore.rs` is `symbolic::explore`.
fn module_of(path: &Path) -> String {
    let relative = path.strip_prefix("src").unwrap_or(path).with_extension("");
    let parts: Vec<String> = relative
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    match parts.as_slice() {
        [rest @ .., last] if last == "mod" => rest.join("::"),
        all => all.join("::"),
    }
}

fn sources(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("src is readable") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The paths after `prefix` in `code`: `crate::library::ir::X` gives `library::ir::X`.
fn paths_after<'a>(code: &'a str, prefix: &str) -> Vec<&'a str> {
    code.match_indices(prefix)
        .filter(|(i, _)| {
            !code[..*i]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':')
        })
        .map(|(i, _)| {
            let rest = &code[i + prefix.len()..];
            let end = rest
                .find(|c: char| {
                    !(c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == ':')
                })
                .unwrap_or(rest.len());
            rest[..end].trim_end_matches(':')
        })
        .collect()
}

fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    sources(&root.join("src"), &mut files);
    let modules: BTreeSet<String> = files
        .iter()
        .map(|f| module_of(f.strip_prefix(root).unwrap_or(f)))
        .collect();
    let mut graph = BTreeMap::new();
    for file in &files {
        let module = module_of(file.strip_prefix(root).unwrap_or(file));
        let text = std::fs::read_to_string(file).expect("a source file");
        let code = text.split("#[cfg(test)]").next().unwrap_or("");
        let code: String = code
            .lines()
            .filter(|l| !l.trim_start().starts_with("//"))
            .collect::<Vec<_>>()
            .join("\n");
        let parent = module.rsplit_once("::").map(|(p, _)| p.to_string());
        let mut targets = BTreeSet::new();
        let mut add = |path: String| {
            // The longest prefix of the path that is a module.
            let parts: Vec<&str> = path.split("::").collect();
            if let Some(m) = (1..=parts.len())
                .rev()
                .map(|n| parts[..n].join("::"))
                .find(|m| modules.contains(m))
            {
                if m != module {
                    targets.insert(m);
                }
            }
        };
        for path in paths_after(&code, "crate::") {
            add(path.to_string());
        }
        for path in paths_after(&code, "super::") {
            if let Some(parent) = &parent {
                add(format!("{parent}::{path}"));
            }
        }
        // A parent names its children without a prefix (`race::check(…)`).
        let children = modules.iter().filter_map(|m| {
            m.strip_prefix(&format!("{module}::"))
                .filter(|name| !name.contains("::"))
        });
        for child in children {
            for path in paths_after(&code, &format!("{child}::")) {
                add(format!("{module}::{child}::{path}"));
            }
        }
        graph.insert(module, targets);
    }
    graph
}

/// A cycle through `start`, if there is one.
fn cycle_through(graph: &BTreeMap<String, BTreeSet<String>>, start: &str) -> Option<Vec<String>> {
    let mut stack = vec![vec![start.to_string()]];
    let mut seen = BTreeSet::new();
    while let Some(path) = stack.pop() {
        let last = path.last().expect("paths are not empty");
        for next in graph.get(last).into_iter().flatten() {
            if next == start {
                let mut cycle = path.clone();
                cycle.push(next.clone());
                return Some(cycle);
            }
            if seen.insert(next.clone()) {
                let mut longer = path.clone();
                longer.push(next.clone());
                stack.push(longer);
            }
        }
    }
    None
}

#[test]
fn no_module_imports_one_that_imports_it() {
    let graph = graph();
    // The reader sees what it checks: the engine's layers are there.
    assert!(graph["symbolic::explore"].contains("symbolic::memo"));
    assert!(graph["symbolic::houdini"].contains("symbolic::explore"));
    assert!(graph["symbolic"].contains("symbolic::race"));
    assert!(graph["symbolic::explore"].contains("symbolic::options"));
    let cycles: Vec<String> = graph
        .keys()
        .filter_map(|m| cycle_through(&graph, m))
        .map(|c| c.join(" -> "))
        .collect();
    assert!(cycles.is_empty(), "module cycles:\n{}", cycles.join("\n"));
}

#[test]
fn a_cycle_is_found() {
    let mut graph = BTreeMap::new();
    graph.insert("a".to_string(), BTreeSet::from(["b".to_string()]));
    graph.insert("b".to_string(), BTreeSet::from(["c".to_string()]));
    graph.insert("c".to_string(), BTreeSet::from(["a".to_string()]));
    graph.insert("d".to_string(), BTreeSet::from(["a".to_string()]));
    assert_eq!(
        cycle_through(&graph, "a"),
        Some(
            vec!["a", "b", "c", "a"]
                .into_iter()
                .map(String::from)
                .collect()
        )
    );
    assert_eq!(cycle_through(&graph, "d"), None);
    assert_eq!(
        paths_after(
            "use crate::library::ir::{X, Y}; super::memo::key(",
            "crate::"
        ),
        ["library::ir"]
    );
    assert_eq!(
        paths_after(
            "use crate::library::ir::{X, Y}; super::memo::key(",
            "super::"
        ),
        ["memo::key"]
    );
}
