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

/// The paths after `prefix` in `code`, a brace group expanded into one path per item
/// (one level of nesting): `crate::library::{ir::X, Y}` gives `library::ir::X` and
/// `library::Y`.
fn paths_after(code: &str, prefix: &str) -> Vec<String> {
    code.match_indices(prefix)
        .filter(|(i, _)| {
            !code[..*i]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':')
        })
        .flat_map(|(i, _)| expand(&code[i + prefix.len()..]))
        .collect()
}

/// The paths a use-tree at the start of `rest` names.
fn expand(rest: &str) -> Vec<String> {
    let end = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == ':'))
        .unwrap_or(rest.len());
    let path = &rest[..end];
    if !(path.ends_with("::") && rest[end..].starts_with('{')) {
        return vec![path.trim_end_matches(':').to_string()];
    }
    let group = &rest[end + 1..];
    let mut depth = 0;
    let close = group
        .find(|c: char| {
            match c {
                '{' => depth += 1,
                '}' if depth == 0 => return true,
                '}' => depth -= 1,
                _ => {}
            }
            false
        })
        .unwrap_or(group.len());
    let mut items = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (i, c) in group[..close].char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(&group[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    items.push(&group[start..close]);
    items
        .into_iter()
        .map(str::trim)
        .filter(|item| !item.is_empty())
        .flat_map(expand)
        .map(|tail| match tail.as_str() {
            "self" => path.trim_end_matches(':').to_string(),
            _ => format!("{path}{tail}"),
        })
        .collect()
}

/// The module `path` names: its longest prefix that is a module, or, when the next
/// segment is an item that module re-exports (`pub use child::Item`), the child.
fn target(
    path: &str,
    modules: &BTreeSet<String>,
    reexports: &BTreeMap<(String, String), String>,
) -> Option<String> {
    let parts: Vec<&str> = path.split("::").collect();
    let n = (1..=parts.len())
        .rev()
        .find(|&n| modules.contains(&parts[..n].join("::")))?;
    let module = parts[..n].join("::");
    match parts.get(n) {
        Some(item) => Some(
            reexports
                .get(&(module.clone(), item.to_string()))
                .cloned()
                .unwrap_or(module),
        ),
        None => Some(module),
    }
}

/// A source file's code outside test modules and line comments.
fn code_of(text: &str) -> String {
    let code = text.split("#[cfg(test)]").next().unwrap_or("");
    code.lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    sources(&root.join("src"), &mut files);
    let module_of_file = |f: &std::path::PathBuf| module_of(f.strip_prefix(root).unwrap_or(f));
    let modules: BTreeSet<String> = files.iter().map(module_of_file).collect();
    let codes: Vec<(String, String)> = files
        .iter()
        .map(|f| {
            let text = std::fs::read_to_string(f).expect("a source file");
            (module_of_file(f), code_of(&text))
        })
        .collect();
    // What each parent re-exports from its children, so that a path through the
    // parent (`crate::library::Library`) leads to the child that defines the item.
    let mut reexports = BTreeMap::new();
    for (module, code) in &codes {
        for path in paths_after(code, "pub use ") {
            let full = format!("{module}::{path}");
            let Some(child) = target(&full, &modules, &BTreeMap::new()) else {
                continue;
            };
            if let Some(item) = path.rsplit("::").next() {
                if child != *module {
                    reexports.insert((module.clone(), item.to_string()), child);
                }
            }
        }
    }
    let mut graph = BTreeMap::new();
    for (module, code) in &codes {
        let parent = module.rsplit_once("::").map(|(p, _)| p.to_string());
        let mut targets = BTreeSet::new();
        let mut add = |path: String| {
            if let Some(m) = target(&path, &modules, &reexports) {
                if m != *module {
                    targets.insert(m);
                }
            }
        };
        for path in paths_after(code, "crate::") {
            add(path);
        }
        for path in paths_after(code, "super::") {
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
            for path in paths_after(code, &format!("{child}::")) {
                add(format!("{module}::{child}::{path}"));
            }
        }
        graph.insert(module.clone(), targets);
    }
    graph
}

/// The modules `start` reaches, itself excluded.
fn reached(graph: &BTreeMap<String, BTreeSet<String>>, start: &str) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    let mut todo = vec![start.to_string()];
    while let Some(m) = todo.pop() {
        for next in graph.get(&m).into_iter().flatten() {
            if seen.insert(next.clone()) {
                todo.push(next.clone());
            }
        }
    }
    seen.remove(start);
    seen
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
    assert!(graph["symbolic::overapprox::houdini"].contains("symbolic::explore"));
    assert!(graph["symbolic"].contains("symbolic::race"));
    assert!(graph["symbolic::explore"].contains("symbolic::brief"));
    assert!(graph["symbolic::brief"].contains("symbolic::options"));
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
        ["library::ir::X", "library::ir::Y"]
    );
    assert_eq!(
        paths_after("use crate::a::{b::{C, D}, self, E};", "crate::"),
        ["a::b::C", "a::b::D", "a", "a::E"]
    );
    assert_eq!(
        paths_after(
            "use crate::library::ir::{X, Y}; super::memo::key(",
            "super::"
        ),
        ["memo::key"]
    );
}

#[test]
fn the_engine_never_sees_the_front_end() {
    let graph = graph();
    let front_end = [
        "frontend",
        "syntax::lexer",
        "syntax::parser",
        "types",
        "references",
        "library::build",
    ];
    // The engine reads a built library; what reads source ends at the build.
    let readers: Vec<&String> = graph
        .keys()
        .filter(|m| {
            m.as_str() == "symbolic"
                || m.starts_with("symbolic::")
                || ["library::built", "library::ir", "library::restrict"].contains(&m.as_str())
        })
        .collect();
    assert!(readers.len() > 30, "{readers:?}");
    for module in readers {
        let seen = reached(&graph, module);
        let bad: Vec<&&str> = front_end.iter().filter(|f| seen.contains(**f)).collect();
        assert!(bad.is_empty(), "{module} reaches {bad:?}");
    }
    assert!(reached(&graph, "library").contains("library::build"));
    assert!(reached(&graph, "symbolic::split").contains("library::restrict"));
}

/// The explorer plays a game (`symbolic::game`) and knows no strategy: neither the
/// over-approximation, whose game it plays through the trait, nor the split, the race,
/// the tasks or iterative deepening, which drive it from above.
#[test]
fn the_explorer_knows_games_not_strategies() {
    let graph = graph();
    let strategies = [
        "symbolic::overapprox",
        "symbolic::overapprox::havoc",
        "symbolic::overapprox::houdini",
        "symbolic::overapprox::turn",
        "symbolic::split",
        "symbolic::part_search",
        "symbolic::race",
        "symbolic::tasks",
        "symbolic::deepening",
        "symbolic::market",
        "symbolic::product",
        "symbolic::compare",
    ];
    for module in ["symbolic::explore", "symbolic::game", "symbolic::step"] {
        assert!(graph.contains_key(module), "{module} is missing");
        let seen = reached(&graph, module);
        let bad: Vec<&&str> = strategies.iter().filter(|s| seen.contains(**s)).collect();
        assert!(bad.is_empty(), "{module} reaches {bad:?}");
    }
    // The over-approximation and the product of two libraries play through the same
    // trait, and the equivalence search is the explorer's.
    assert!(reached(&graph, "symbolic::overapprox::turn").contains("symbolic::game"));
    assert!(reached(&graph, "symbolic::product").contains("symbolic::game"));
    assert!(reached(&graph, "symbolic::compare").contains("symbolic::explore"));
}
