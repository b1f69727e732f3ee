//! Generators of small HOLi libraries (as source text) for the property tests.
//! Everything is fully parenthesised, so the text means what the generator intends.
// Each property test uses only some of the generators.
#![allow(dead_code)]

use proptest::prelude::*;

/// What an expression may mention.
#[derive(Clone, Debug)]
pub struct Scope {
    pub refs: usize,
    /// Integer variables in scope.
    pub vars: Vec<&'static str>,
    /// `int -> int` functions that may be called (imports, helpers).
    pub int_funs: Vec<String>,
}

pub fn int_expr(scope: &Scope) -> BoxedStrategy<String> {
    let mut leaves: Vec<BoxedStrategy<String>> =
        vec![(-2i64..5).prop_map(|i| i.to_string()).boxed()];
    if scope.refs > 0 {
        leaves.push((0..scope.refs).prop_map(|i| format!("!r{i}")).boxed());
    }
    for v in &scope.vars {
        leaves.push(Just(v.to_string()).boxed());
    }
    let leaf = proptest::strategy::Union::new(leaves).boxed();
    let funs = scope.int_funs.clone();
    leaf.prop_recursive(3, 12, 2, move |inner| {
        let mut options: Vec<(u32, BoxedStrategy<String>)> = vec![
            (
                3,
                (inner.clone(), inner.clone())
                    .prop_map(|(a, b)| format!("({a} + {b})"))
                    .boxed(),
            ),
            (
                3,
                (inner.clone(), inner.clone())
                    .prop_map(|(a, b)| format!("({a} - {b})"))
                    .boxed(),
            ),
            (
                3,
                (inner.clone(), inner.clone())
                    .prop_map(|(a, b)| format!("({a} < {b})"))
                    .boxed(),
            ),
            (
                2,
                (inner.clone(), inner.clone())
                    .prop_map(|(a, b)| format!("({a} == {b})"))
                    .boxed(),
            ),
            (
                1,
                (inner.clone(), inner.clone())
                    .prop_map(|(a, b)| format!("({a} * {b})"))
                    .boxed(),
            ),
            (
                1,
                (inner.clone(), inner.clone())
                    .prop_map(|(a, b)| format!("({a} / {b})"))
                    .boxed(),
            ),
            (
                1,
                (inner.clone(), inner.clone())
                    .prop_map(|(a, b)| format!("({a} && {b})"))
                    .boxed(),
            ),
            (2, inner.clone().prop_map(|a| format!("(not {a})")).boxed()),
        ];
        for f in &funs {
            let f = f.clone();
            options.push((
                2,
                inner.clone().prop_map(move |a| format!("{f}({a})")).boxed(),
            ));
        }
        proptest::strategy::Union::new_weighted(options).boxed()
    })
    .boxed()
}

/// A statement: assignment, assert, conditional, or a call of a unit function.
pub fn stmt(scope: &Scope, unit_calls: Vec<String>) -> BoxedStrategy<String> {
    let e = int_expr(scope);
    let mut base: Vec<(u32, BoxedStrategy<String>)> =
        vec![(2, e.clone().prop_map(|c| format!("assert({c})")).boxed())];
    if scope.refs > 0 {
        base.push((
            4,
            (0..scope.refs, e.clone())
                .prop_map(|(r, v)| format!("r{r} := {v}"))
                .boxed(),
        ));
    }
    for call in unit_calls {
        base.push((2, Just(format!("{call}()")).boxed()));
    }
    let leaf = proptest::strategy::Union::new_weighted(base).boxed();
    leaf.prop_recursive(2, 8, 3, move |inner| {
        let block =
            proptest::collection::vec(inner, 1..3).prop_map(|s| format!("({})", s.join("; ")));
        (e.clone(), block.clone(), block)
            .prop_map(|(c, t, f)| format!("(if {c} then {t} else {f})"))
            .boxed()
    })
    .boxed()
}

pub fn block(scope: &Scope, unit_calls: Vec<String>) -> BoxedStrategy<String> {
    proptest::collection::vec(stmt(scope, unit_calls), 1..4)
        .prop_map(|s| s.join("; "))
        .boxed()
}

/// One public method of a generated library, of one of four shapes: an int parameter,
/// a function parameter (called back), an int result, or a function result (revealed).
fn method(index: usize, refs: usize, kind: u8) -> BoxedStrategy<String> {
    let ints = Scope {
        refs,
        vars: vec![],
        int_funs: vec!["ext".to_string()],
    };
    match kind {
        0 => {
            let scope = Scope {
                vars: vec!["x"],
                ..ints
            };
            block(&scope, vec!["cb".into()])
                .prop_map(move |b| format!("public m{index} (x:int) :(unit) = {{ {b} }};"))
                .boxed()
        }
        1 => block(&ints, vec!["cb".into(), "f".into()])
            .prop_map(move |b| format!("public m{index} (f:unit -> unit) :(unit) = {{ {b} }};"))
            .boxed(),
        2 => (block(&ints, vec!["cb".into()]), int_expr(&ints))
            .prop_map(move |(b, e)| format!("public m{index} (u:unit) :(int) = {{ {b}; {e} }};"))
            .boxed(),
        _ => (block(&ints, vec![]), block(&ints, vec!["cb".into()]))
            .prop_map(move |(b, inner)| {
                format!(
                    "public m{index} (u:unit) :(unit -> unit) = {{ {b}; (fun (z:unit) :(unit) -> ({inner})) }};"
                )
            })
            .boxed(),
    }
}

/// A small open library: integer references, two imports, one to three public methods.
pub fn library() -> BoxedStrategy<String> {
    (1usize..3, proptest::collection::vec(0u8..4, 1..4))
        .prop_flat_map(|(refs, kinds)| {
            let inits = proptest::collection::vec(-1i64..3, refs);
            let methods: Vec<BoxedStrategy<String>> = kinds
                .iter()
                .enumerate()
                .map(|(i, &k)| method(i, refs, k))
                .collect();
            (inits, methods)
        })
        .prop_map(|(inits, methods)| {
            let mut text = String::from("import ext :(int -> int)\nimport cb :(unit -> unit)\n");
            for (i, v) in inits.iter().enumerate() {
                text.push_str(&format!("int r{i} := {v};\n"));
            }
            for m in methods {
                text.push_str(&m);
                text.push('\n');
            }
            text
        })
        .boxed()
}

/// A closed program as a library: helpers and a public `entry (x:int*int)` that reads
/// its two inputs from the parameter. `guard` wraps the body in a test of the inputs.
pub fn closed_parts() -> BoxedStrategy<(Vec<i64>, String, String, String)> {
    let helper1 = Scope {
        refs: 2,
        vars: vec!["y"],
        int_funs: vec![],
    };
    let helper0 = Scope {
        int_funs: vec!["h1".to_string()],
        ..helper1.clone()
    };
    let lambda = Scope {
        refs: 2,
        vars: vec!["y", "a", "b"],
        int_funs: vec!["h0".to_string(), "h1".to_string()],
    };
    let body = Scope {
        refs: 2,
        vars: vec!["a", "b"],
        int_funs: vec!["h0".to_string(), "h1".to_string(), "g".to_string()],
    };
    (
        proptest::collection::vec(-1i64..3, 2),
        int_expr(&helper1),
        (int_expr(&helper0), int_expr(&lambda)),
        block(&body, vec![]),
    )
        .prop_map(|(inits, h1, (h0, lam), b)| {
            // `g` is a lambda: evaluating it creates a fresh library function.
            let body = format!("(let g = fun (y:int) :(int) -> {lam} in {b})");
            (inits, h1, h0, body)
        })
        .boxed()
}

pub fn closed_library(
    parts: &(Vec<i64>, String, String, String),
    guard: Option<(i64, i64)>,
) -> String {
    let (inits, h1, h0, body) = parts;
    let body = match guard {
        None => body.clone(),
        Some((a, b)) => format!("if ((fst x) == {a}) && ((snd x) == {b}) then ({body}) else ()"),
    };
    format!(
        "int r0 := {};\nint r1 := {};\n\
         private h1 (y:int) :(int) = {{ {h1} }};\n\
         private h0 (y:int) :(int) = {{ {h0} }};\n\
         public entry (x:int * int) :(unit) = {{\n  let a = fst x in let b = snd x in {body}\n}};\n",
        inits[0], inits[1]
    )
}
