//! Sequence diagrams and call trees (`src/diagram.rs`, `src/calltree.rs`): snapshots of
//! the bundled examples' diagrams, and properties that hold for every trace: each move
//! is exactly one arrow, every call one activation bar, no more library frames open at
//! once than k, and the diagram is well-formed XML whatever the names hold.

use holi::calltree::CallTree;
use holi::diagram::{self, FailureNote};
use holi::symbolic::Bounds;
use holi::symbolic::{check, CheckOptions, Verdict};
use holi::syntax::ast::Span;
use holi::trace::{Counterexample, Dir, FailureKind, Move, Player, Trace, TraceValue};
use proptest::prelude::*;
use std::collections::BTreeMap;
use std::path::Path;

/// The examples with a failing assert, checked at their header's bounds.
fn unsafe_examples() -> Vec<(String, String, u32, Vec<Counterexample>)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<_> = std::fs::read_dir(root.join("examples"))
        .expect("examples/")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "holi"))
        .collect();
    files.sort();
    let mut out = Vec::new();
    for path in files {
        let loaded =
            holi::frontend::load(&path, false).unwrap_or_else(|r| panic!("{}", r.render(false)));
        let (k, l) = loaded
            .program
            .bounds
            .as_ref()
            .map_or((2, 2), |b| (b.k, b.l));
        let result = check(
            &holi::library::build(&loaded.program),
            &CheckOptions {
                bounds: Bounds { k, l },
                ..CheckOptions::default()
            },
        );
        if result.verdict == Verdict::Unsafe {
            let name = path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            out.push((name, loaded.source, k, result.counterexamples));
        }
    }
    out
}

/// Occurrences of `needle` in `text`.
fn count(text: &str, needle: &str) -> usize {
    text.matches(needle).count()
}

/// The `data-level` of every library frame of a diagram.
fn library_levels(svg: &str) -> Vec<usize> {
    svg.split("data-owner=\"library\" data-level=\"")
        .skip(1)
        .filter_map(|rest| rest.split('"').next()?.parse().ok())
        .collect()
}

/// What every diagram of every trace must satisfy.
fn check_diagram(svg: &str, c: &Counterexample, k: u32) {
    let moves = c.trace.0.len();
    assert_eq!(
        count(svg, "<g class=\"move "),
        moves,
        "one arrow per move\n{svg}"
    );
    for i in 1..=moves {
        assert_eq!(
            count(svg, &format!("data-move=\"{i}\"")),
            1,
            "move {i}\n{svg}"
        );
    }
    let calls = c.trace.0.iter().filter(|m| m.dir == Dir::Call).count();
    assert_eq!(count(svg, "<rect class=\"frame\""), calls, "a bar per call");
    let deepest = library_levels(svg).into_iter().max().unwrap_or(0);
    assert!(
        deepest <= k as usize,
        "{deepest} library frames open, k = {k}"
    );
    assert_eq!(deepest, CallTree::new(&c.trace).max_library_level());
    assert_eq!(count(svg, "<g class=\"failure\">"), 1);
    assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
    assert!(svg.trim_end().ends_with("</svg>"));
    well_formed(svg);
}

/// A minimal XML check: tags balance and nothing but entities follows `&`.
fn well_formed(svg: &str) {
    let mut open: Vec<&str> = Vec::new();
    let mut rest = svg;
    while let Some(at) = rest.find('<') {
        let text = &rest[..at];
        for (i, _) in text.match_indices('&') {
            let entity = &text[i..text[i..].find(';').map_or(text.len(), |e| i + e + 1)];
            assert!(
                ["&amp;", "&lt;", "&gt;", "&quot;", "&#39;"].contains(&entity),
                "bare & in {text:?}"
            );
        }
        assert!(!text.contains('>'), "bare > in {text:?}");
        let end = rest[at..].find('>').expect("a tag ends") + at;
        let tag = &rest[at + 1..end];
        if let Some(name) = tag.strip_prefix('/') {
            assert_eq!(open.pop(), Some(name), "closing {name}");
        } else if !tag.ends_with('/') {
            let name = tag.split_whitespace().next().unwrap_or("");
            open.push(name);
        }
        rest = &rest[end + 1..];
    }
    assert!(open.is_empty(), "unclosed {open:?}");
}

#[test]
fn bundled_examples_draw_as_their_snapshots() {
    let examples = unsafe_examples();
    assert!(examples.len() >= 8, "{} unsafe examples", examples.len());
    for (name, source, k, counterexamples) in examples {
        let file = format!("examples/{name}.holi");
        let mut svgs = String::new();
        for c in &counterexamples {
            let svg = diagram::svg(c, k, &FailureNote::new(c, &file, &source));
            check_diagram(&svg, c, k);
            svgs.push_str(&svg);
        }
        insta::assert_snapshot!(name, svgs);
    }
}

#[test]
fn the_dao_diagram_nests_withdraw_inside_send() {
    let examples = unsafe_examples();
    let (_, source, k, counterexamples) = examples
        .iter()
        .find(|(name, ..)| name == "dao")
        .expect("examples/dao.holi is unsafe");
    let c = &counterexamples[0];
    let svg = diagram::svg(c, *k, &FailureNote::new(c, "examples/dao.holi", source));
    // Two withdraw frames, the second at level 2, inside the band of the client's send.
    assert_eq!(library_levels(&svg), [1, 2]);
    assert_eq!(count(&svg, "<rect class=\"band\""), 2);
    assert!(svg.contains("assertion fails at examples/dao.holi:14:5"));
    assert!(svg.contains("assert (not (!balance &lt; 0))"));
    assert!(svg.contains("call withdraw(x2 = 100)"), "{svg}");
}

/// A well-bracketed trace from a list of choices: `true` calls (the caller alternating
/// with the frame it is in), `false` returns from the innermost open frame if any.
fn trace_of(choices: &[bool], names: &[String]) -> Trace {
    let mut moves = Vec::new();
    let mut open: Vec<(Player, String)> = Vec::new();
    for (i, &call) in choices.iter().enumerate() {
        let name = &names[i % names.len()];
        if call || open.is_empty() {
            // The client calls at the top level and inside its own frames.
            let by = match open.last() {
                None | Some((Player::Client, _)) => Player::Client,
                Some((Player::Library, _)) => Player::Library,
            };
            let owner = match by {
                Player::Client => Player::Library,
                Player::Library => Player::Client,
            };
            moves.push(Move::new(
                Dir::Call,
                by,
                name,
                TraceValue::Sym(format!("x{i}")),
            ));
            open.push((owner, name.clone()));
        } else if let Some((owner, name)) = open.pop() {
            moves.push(Move::new(Dir::Ret, owner, &name, TraceValue::Unit));
        }
    }
    Trace(moves)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn every_move_is_one_arrow_and_every_name_is_escaped(
        choices in prop::collection::vec(any::<bool>(), 0..30),
        names in prop::collection::vec("[a-z<>&\"' ]{1,8}", 1..4),
    ) {
        let trace = trace_of(&choices, &names);
        let tree = CallTree::new(&trace);
        let k = u32::try_from(tree.max_library_level().max(1)).unwrap_or(u32::MAX);
        let c = Counterexample {
            kind: FailureKind::Assert,
            span: Span { start: 0, end: 6 },
            concrete: trace.clone(),
            trace,
            model: BTreeMap::new(),
            locations: Vec::new(),
            valuation: None,
        };
        let svg = diagram::svg(&c, k, &FailureNote::new(&c, "a<b>.holi", "assert <&> x"));
        check_diagram(&svg, &c, k);
        // A line per move and one for the failure.
        let lines = tree.lines(&c.trace, &c.concrete, "fails", false);
        prop_assert_eq!(lines.len(), c.trace.0.len() + 1);
        prop_assert!(lines.iter().all(|l| l.is_ascii()), "ASCII without colour");
    }
}
