//! A library restricted in the IR ([`Library::restrict`]) equals, field for field, the
//! library built from the kept declarations' text: the split's parts searched from the
//! restriction behave exactly as parts rebuilt from source did (the engine's statistics
//! depend on every id, `tests/search_statistics.rs`).
//!
//! The oracle rebuilds from the AST: the declarations named by the kept methods and
//! references, every import, and the stand-in's two declarations appended as text.
//! Checked on every component and pair of components of the bundled examples, the
//! realistic libraries, HOLiK's benchmark (skipped when absent) and generated libraries.

use holi::library::{Library, StandInNames};
use holi::symbolic::components::Components;
use holi::syntax::ast::Program;
use proptest::prelude::*;
use std::collections::HashSet;
use std::path::Path;

mod corpus;
mod prop_gen;

const STAND_IN: StandInNames = StandInNames {
    method: "holi_split_trampoline",
    callback: "holi_split_callback",
};

fn load(name: &str, source: &str) -> Option<Program> {
    holi::frontend::load_str(name, source, false)
        .ok()
        .map(|l| l.program)
}

/// The kept declarations' text, rebuilt.
fn rebuilt(
    program: &Program,
    lib: &Library,
    methods: &[bool],
    refs: &[bool],
    stand_in: bool,
) -> Library {
    let mut names: HashSet<&str> = HashSet::new();
    for (m, method) in lib.methods.iter().enumerate() {
        if methods[m] {
            names.insert(&method.name);
        }
    }
    for (r, name) in lib.refs.iter().enumerate() {
        if refs[r] {
            names.insert(name);
        }
    }
    let mut sub = Program {
        bounds: program.bounds.clone(),
        imports: program.imports.clone(),
        decls: program
            .decls
            .iter()
            .filter(|d| names.contains(d.name().name.as_str()))
            .cloned()
            .collect(),
        main: None,
    };
    if stand_in {
        let text = format!(
            "import {} :(unit -> unit)\npublic {} (u:unit) :(unit) = {{ () }};\n",
            STAND_IN.callback, STAND_IN.method
        );
        let Some(stand_in) = load("split", &text) else {
            panic!("the stand-in's text does not load")
        };
        sub.imports.extend(stand_in.imports);
        sub.decls.extend(stand_in.decls);
    }
    let mut lib = holi::library::build(&sub);
    if stand_in {
        // The stand-in's code lies nowhere in the library's text.
        let (Some(code), Some(span)) = (lib.codes.last_mut(), lib.method_spans.last_mut()) else {
            panic!("no stand-in")
        };
        code.span = 0..0;
        code.body.span = 0..0;
        *span = 0..0;
    }
    lib
}

/// Compares the restriction to every component and pair of components, with and
/// without the stand-in, against the rebuild; `Err` names the first difference.
fn restrictions_agree(name: &str, program: &Program) -> Result<usize, String> {
    let lib = holi::library::build(program);
    let parts = Components::of(&lib);
    let mut sets: Vec<Vec<usize>> = (0..parts.count).map(|c| vec![c]).collect();
    // Pairs grow quadratically; the first few dozen components cover every shape.
    let few = parts.count.min(24);
    for c in 0..few {
        for j in c + 1..few {
            sets.push(vec![c, j]);
        }
    }
    for members in &sets {
        let (methods, refs) = parts.members(members);
        for stand_in in [false, true] {
            let names = stand_in.then_some(STAND_IN);
            let (restricted, ids) = lib.restrict(&methods, &refs, names);
            let expected = rebuilt(program, &lib, &methods, &refs, stand_in);
            if restricted != expected {
                return Err(format!(
                    "{name}, components {members:?}, stand-in {stand_in}: the restriction\n{restricted:#?}\nthe rebuild\n{expected:#?}"
                ));
            }
            let last = (
                expected.methods.len() as u32 - 1,
                expected.imports.len() as u32 - 1,
            );
            if ids != stand_in.then_some(last) {
                return Err(format!("{name}: the stand-in's ids {ids:?}"));
            }
        }
    }
    Ok(sets.len())
}

#[test]
fn restricting_equals_rebuilding_on_every_file() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in ["examples", "benchmark/libraries", "tests/data"] {
        files.extend(corpus::holi_files(&root.join(dir)).unwrap_or_default());
    }
    let holik = corpus::benchmark("the benchmark's libraries");
    // The repository's own files alone give fewer restrictions than HOLiK's 70 with them.
    let enough = if holik.is_some() { 50 } else { 20 };
    files.extend(holik.unwrap_or_default());
    let mut checked = 0;
    for file in &files {
        let Ok(source) = std::fs::read_to_string(file) else {
            continue;
        };
        let name = file.display().to_string();
        let Some(program) = load(&name, &source) else {
            continue;
        };
        checked += restrictions_agree(&name, &program).unwrap_or_else(|e| panic!("{e}"));
    }
    assert!(checked > enough, "only {checked} restrictions compared");
}

#[test]
fn a_dropped_method_or_reference_resolves_as_a_rebuild_resolves_it() {
    // `b` calls `gone` and reads `r`: restricted to `b` alone, `gone` is undeclared and
    // `r` is a reference no declaration sets, placed before `ghost` as first mentioned.
    let source = "import send :(int -> unit)
        int r := 1;
        public a (u:unit) :(unit) = { r := 2 };
        public b (u:unit) :(unit) = { gone(); send(!r); ghost := 3 };
        private gone (u:unit) :(unit) = { () };";
    let Some(program) = load("t.holi", source) else {
        panic!("does not load")
    };
    let lib = holi::library::build(&program);
    let b = lib.methods.iter().position(|m| m.name == "b").unwrap_or(0);
    let methods: Vec<bool> = (0..lib.methods.len()).map(|m| m == b).collect();
    let refs = vec![false; lib.refs.len()];
    let (restricted, _) = lib.restrict(&methods, &refs, None);
    assert_eq!(restricted, rebuilt(&program, &lib, &methods, &refs, false));
    assert_eq!(restricted.undeclared, ["gone"]);
    assert_eq!(restricted.refs, ["r", "ghost"]);
    assert!(restricted.may_get_stuck);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn restricting_equals_rebuilding_on_generated_libraries(source in prop_gen::library()) {
        let program = load("gen.holi", &source);
        prop_assume!(program.is_some());
        if let Some(program) = program {
            prop_assert!(restrictions_agree("gen.holi", &program).is_ok(), "{source}");
        }
    }
}
