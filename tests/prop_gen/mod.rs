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
    /// Expressions that evaluate to a location holding an integer (`c`, `(!g)`).
    pub cells: Vec<String>,
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
    for c in &scope.cells {
        leaves.push(Just(format!("!{c}")).boxed());
    }
    if scope.cells.len() > 1 {
        let cells = scope.cells.clone();
        leaves.push(
            (0..cells.len(), 0..cells.len())
                .prop_map(move |(a, b)| format!("({} == {})", cells[a], cells[b]))
                .boxed(),
        );
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
    for c in &scope.cells {
        base.push((2, Just(format!("peek {c}")).boxed()));
        let c = c.clone();
        base.push((
            4,
            e.clone().prop_map(move |v| format!("{c} := {v}")).boxed(),
        ));
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
        cells: vec![],
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
        cells: vec![],
    };
    let helper0 = Scope {
        int_funs: vec!["h1".to_string()],
        ..helper1.clone()
    };
    let lambda = Scope {
        refs: 2,
        vars: vec!["y", "a", "b"],
        int_funs: vec!["h0".to_string(), "h1".to_string()],
        cells: vec![],
    };
    let body = Scope {
        refs: 2,
        vars: vec!["a", "b"],
        int_funs: vec!["h0".to_string(), "h1".to_string(), "g".to_string()],
        cells: vec![],
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

/// The public methods of a generated library with references, by kind: what each takes
/// and gives, for the clients of the agreement property.
pub const REF_KINDS: [&str; 5] = [
    "ref int -> unit",
    "unit -> ref int",
    "unit -> unit -> int",
    "(ref int * ref int) -> unit",
    "int -> unit",
];

/// One public method of a library with references (kind as in [`REF_KINDS`]): a cell the
/// client passes, a cell the library makes and returns, a closure over a private cell
/// (the counter idiom), two cells that may be one (aliasing), or the global cell `g`.
fn ref_method(index: usize, kind: u8) -> BoxedStrategy<String> {
    let scope = |cells: &[&str]| Scope {
        refs: 1,
        vars: vec![],
        int_funs: vec!["ext".to_string()],
        cells: cells.iter().map(|c| c.to_string()).collect(),
    };
    let calls = || vec!["cb".to_string()];
    match kind {
        0 => block(&scope(&["c"]), calls())
            .prop_map(move |b| format!("public m{index} (c:ref int) :(unit) = {{ {b} }};"))
            .boxed(),
        1 => (int_expr(&scope(&[])), block(&scope(&["c"]), calls()))
            .prop_map(move |(init, b)| {
                format!("public m{index} (u:unit) :(ref int) = {{ let c = ref ({init}) in ({b}); c }};")
            })
            .boxed(),
        2 => (int_expr(&scope(&[])), block(&scope(&["c"]), calls()))
            .prop_map(move |(init, b)| {
                format!(
                    "public m{index} (u:unit) :(unit -> int) = {{ let c = ref ({init}) in fun (z:unit) :(int) -> (({b}); !c) }};"
                )
            })
            .boxed(),
        3 => block(&scope(&["a", "b"]), calls())
            .prop_map(move |b| {
                format!(
                    "public m{index} (p:ref int * ref int) :(unit) = {{ let a = fst p in let b = snd p in ({b}) }};"
                )
            })
            .boxed(),
        _ => (block(&scope(&["(!g)"]), calls()), any::<bool>())
            .prop_map(move |(b, renew)| {
                let renew = if renew { "g := ref x; " } else { "" };
                format!("public m{index} (x:int) :(unit) = {{ {renew}{b} }};")
            })
            .boxed(),
    }
}

/// A small library with ML-like references: an integer reference, a global cell `g`,
/// imports `ext`, `cb` and `peek` (which lends a cell to the client), and one to three
/// public methods of the kinds of [`ref_method`]. Returns the kinds too.
pub fn ref_library() -> BoxedStrategy<(String, Vec<u8>)> {
    proptest::collection::vec(0u8..5, 1..4)
        .prop_flat_map(|kinds| {
            let methods: Vec<BoxedStrategy<String>> = kinds
                .iter()
                .enumerate()
                .map(|(i, &k)| ref_method(i, k))
                .collect();
            (Just(kinds), -1i64..3, -1i64..3, methods)
        })
        .prop_map(|(kinds, r0, g, methods)| {
            let mut text = String::from(
                "import ext :(int -> int)\nimport cb :(unit -> unit)\nimport peek :(ref int -> unit)\n",
            );
            text.push_str(&format!("int r0 := {r0};\nref int g := ref {g};\n"));
            for m in methods {
                text.push_str(&m);
                text.push('\n');
            }
            (text, kinds)
        })
        .boxed()
}

/// What a generated client does with the public method `m{index}` of kind `kind`
/// ([`REF_KINDS`]): the arguments come from a small pool (a fresh cell, the cell the
/// client holds in `h`, the same cell twice), results that are cells are kept in `h`,
/// and a closure is called once.
fn ref_call(index: usize, kind: u8) -> BoxedStrategy<String> {
    let value = -2i64..3;
    match kind {
        0 => prop_oneof![
            value.prop_map(move |v| format!("m{index} (ref {v})")),
            Just(format!("m{index} !h")),
        ]
        .boxed(),
        1 => Just(format!("h := m{index} ()")).boxed(),
        2 => Just(format!("(let f = m{index} () in let v = f () in ())")).boxed(),
        3 => (value.clone(), 0u8..4)
            .prop_map(move |(v, shape)| match shape {
                0 => format!("m{index} (!h, !h)"),
                1 => format!("m{index} (!h, ref {v})"),
                2 => format!("m{index} (ref {v}, !h)"),
                _ => format!("m{index} (ref {v}, ref {})", v + 1),
            })
            .boxed(),
        _ => value.prop_map(move |v| format!("m{index} {v}")).boxed(),
    }
}

/// One client action: a call of a public method, or a write into the held cell.
fn ref_action(kinds: &[u8]) -> BoxedStrategy<String> {
    let mut actions: Vec<BoxedStrategy<String>> = kinds
        .iter()
        .enumerate()
        .map(|(i, &k)| ref_call(i, k))
        .collect();
    actions.push((-2i64..3).prop_map(|v| format!("!h := {v}")).boxed());
    proptest::strategy::Union::new(actions).boxed()
}

/// A concrete client of a library of [`ref_library`] with public methods of `kinds`:
/// it holds one cell `h`, answers `ext` with an offset, writes into or keeps the cell
/// `peek` lends it, and from `cb` writes its cell or re-enters the library once (a
/// guard `n` bounds the nesting). `main` makes one or two actions.
pub fn ref_client(kinds: Vec<u8>) -> BoxedStrategy<String> {
    let action = ref_action(&kinds);
    let cb = prop_oneof![
        Just("()".to_string()),
        action
            .clone()
            .prop_map(|a| format!("if !n < 1 then (n := !n + 1; {a}) else ()")),
        (-2i64..3).prop_map(|v| format!("!h := {v}")),
    ];
    let peek = prop_oneof![
        Just("()".to_string()),
        (-2i64..3).prop_map(|v| format!("!c := {v}")),
        Just("h := c".to_string()),
    ];
    (proptest::collection::vec(action, 1..3), cb, peek, -1i64..2)
        .prop_map(move |(main, cb, peek, offset)| {
            let mut text = String::new();
            for (i, k) in kinds.iter().enumerate() {
                text.push_str(&format!("import m{i} :({})\n", REF_KINDS[*k as usize]));
            }
            text.push_str("ref int h := ref 0;\nint n := 0;\n");
            text.push_str(&format!(
                "public ext (x:int) :(int) = {{ x + {offset} }};\n"
            ));
            text.push_str(&format!("public cb (u:unit) :(unit) = {{ {cb} }};\n"));
            text.push_str(&format!(
                "public peek (c:ref int) :(unit) = {{ {peek} }};\n"
            ));
            text.push_str(&format!("main = {{ {} }};\n", main.join("; ")));
            text
        })
        .boxed()
}

/// A statement of a method that calls nothing: `r := e`, an assert of one or two
/// references, or a test of a reference, so that failures take a few calls that feed
/// one another.
fn plain_stmt(refs: usize, value: &'static str) -> BoxedStrategy<String> {
    let leaf = proptest::strategy::Union::new_weighted(vec![
        (
            3,
            (
                0..refs,
                0..refs,
                prop_oneof![Just(value), Just("1"), Just("2")],
            )
                .prop_map(|(a, b, v)| format!("r{a} := (!r{b} + {v})"))
                .boxed(),
        ),
        (
            1,
            (0..refs, 0i64..3)
                .prop_map(|(a, c)| format!("r{a} := {c}"))
                .boxed(),
        ),
        (
            2,
            (0..refs, 2i64..6)
                .prop_map(|(a, c)| format!("assert(not((!r{a} == {c})))"))
                .boxed(),
        ),
        (
            2,
            (0..refs, 0..refs, 2i64..6)
                .prop_map(|(a, b, c)| format!("assert(not(((!r{a} + !r{b}) == {c})))"))
                .boxed(),
        ),
    ])
    .boxed();
    leaf.prop_recursive(1, 4, 2, move |inner| {
        (0..refs, 0i64..3, inner.clone(), inner)
            .prop_map(|(a, c, t, f)| format!("(if (!r{a} < {c}) then ({t}) else ({f}))"))
            .boxed()
    })
    .boxed()
}

/// A library of methods that mostly never call the client: integer references, a
/// private helper, and public methods that take an integer or nothing, some calling
/// the helper, some returning an integer, and at times one that calls the client back
/// (which ends what [`holi::symbolic::relevance`] can tell about a trace).
pub fn atomic_library() -> BoxedStrategy<String> {
    (2usize..5, proptest::collection::vec(0u8..8, 2..6))
        .prop_flat_map(|(refs, kinds)| {
            let block = move |value| {
                proptest::collection::vec(plain_stmt(refs, value), 1..4).prop_map(|s| s.join("; "))
            };
            let methods: Vec<BoxedStrategy<String>> = kinds
                .iter()
                .enumerate()
                .map(|(i, &kind)| match kind {
                    0..=3 => block("x")
                        .prop_map(move |b| format!("public m{i} (x:int) :(unit) = {{ {b} }};"))
                        .boxed(),
                    4 => block("x")
                        .prop_map(move |b| {
                            format!("public m{i} (x:int) :(unit) = {{ {b}; r0 := h(x) }};")
                        })
                        .boxed(),
                    5 => (block("1"), 0..refs)
                        .prop_map(move |(b, r)| {
                            format!("public m{i} (u:unit) :(int) = {{ {b}; !r{r} }};")
                        })
                        .boxed(),
                    6 => block("1")
                        .prop_map(move |b| format!("public m{i} (u:unit) :(unit) = {{ {b} }};"))
                        .boxed(),
                    _ => block("x")
                        .prop_map(move |b| {
                            format!("public m{i} (x:int) :(unit) = {{ cb(); {b} }};")
                        })
                        .boxed(),
                })
                .collect();
            (
                proptest::collection::vec(0i64..3, refs),
                block("y"),
                methods,
            )
        })
        .prop_map(|(inits, helper, methods)| {
            let mut text = String::from("import cb :(unit -> unit)\n");
            for (i, v) in inits.iter().enumerate() {
                text.push_str(&format!("int r{i} := {v};\n"));
            }
            text.push_str(&format!(
                "private h (y:int) :(int) = {{ {helper}; !r1 }};\n"
            ));
            for m in methods {
                text.push_str(&m);
                text.push('\n');
            }
            text
        })
        .boxed()
}

/// One to three *sealed* public methods (no reference, no import, first-order types):
/// each defines a recursive function and a closure, and asserts something of its
/// argument through them, so that some of its sites need a particular argument or a
/// deep recursion, and some are never reached.
pub fn sealed_methods() -> BoxedStrategy<String> {
    let base = Scope {
        refs: 0,
        vars: vec!["x", "n"],
        int_funs: vec![],
        cells: vec![],
    };
    let lambda = Scope {
        vars: vec!["x", "y"],
        int_funs: vec!["go".to_string()],
        ..base.clone()
    };
    let body = Scope {
        vars: vec!["x"],
        int_funs: vec!["go".to_string(), "f".to_string()],
        ..base.clone()
    };
    let one = (int_expr(&base), int_expr(&lambda), block(&body, vec![]));
    proptest::collection::vec(one, 1..4)
        .prop_map(|methods| {
            let mut text = String::new();
            for (i, (stop, lam, b)) in methods.into_iter().enumerate() {
                text.push_str(&format!(
                    "public s{i} (x:int) :(unit) = {{ \
                     letrec go (n:int) :(int) = (if (n < 1) then {stop} else (n + go((n - 1)))) in \
                     (let f = (fun (y:int) :(int) -> {lam}) in ({b})) }};\n"
                ));
            }
            text
        })
        .boxed()
}

/// A small part that calls the client back: one reference, a method that calls `cb`
/// between two statements and one that calls its argument between an assignment and
/// an assert (the shape of the awkward example).
pub fn reentrant_part() -> BoxedStrategy<String> {
    let scope = Scope {
        refs: 1,
        vars: vec!["x"],
        int_funs: vec![],
        cells: vec![],
    };
    let ints = Scope {
        vars: vec![],
        ..scope.clone()
    };
    (
        -1i64..3,
        stmt(&scope, vec![]),
        stmt(&scope, vec![]),
        int_expr(&ints),
        int_expr(&ints),
    )
        .prop_map(|(init, before, after, value, claim)| {
            format!(
                "import cb :(unit -> unit)\nint r0 := {init};\n\
                 public m0 (x:int) :(unit) = {{ {before}; cb(); {after} }};\n\
                 public m1 (f:unit -> unit) :(unit) = {{ r0 := {value}; f(); assert({claim}) }};\n"
            )
        })
        .boxed()
}

/// A library where one client turn is met with different move counts, under cuts: a
/// counter `r0` and a flag `r1`, methods that only change them (atomic), ones that call
/// the client back before changing them (so the same store is reached by traces of
/// different lengths), and asserts that the counter never holds some constant, one of
/// them out of reach within small bounds (so branch and bound does not start, and the
/// last calls towards the others are cut). The vocabulary of the library a review found
/// to break the memo's cut rule; that library itself is one combination in millions,
/// which `relevance`'s unit test pins.
pub fn cut_library() -> BoxedStrategy<String> {
    let method = (0u8..8, 0usize..2, 0i64..3).prop_map(|(kind, a, c)| match kind {
        0 => "(u:unit) :(unit) = { r0 := !r0 + 1 }".to_string(),
        1 => format!("(u:unit) :(unit) = {{ cb(); r0 := !r0 + {c} }}"),
        2 => format!("(u:unit) :(unit) = {{ r{a} := {c} }}"),
        3 => {
            format!("(u:unit) :(unit) = {{ if !r1 == {c} then (r1 := 0; r0 := !r0 + 1) else () }}")
        }
        4 => format!("(u:unit) :(unit) = {{ cb(); r0 := {c}; r1 := 1 }}"),
        5 => format!("(x:int) :(unit) = {{ if 0 < x then r{a} := x else () }}"),
        6 => format!("(u:unit) :(unit) = {{ cb(); r1 := {c} }}"),
        _ => format!("(u:unit) :(unit) = {{ assert(not(!r{a} == {})) }}", c + 2),
    });
    (
        proptest::collection::vec(0i64..2, 2),
        proptest::collection::vec(method, 3..7),
        2i64..4,
        5i64..8,
    )
        .prop_map(|(inits, methods, near, far)| {
            let mut text = String::from("import cb :(unit -> unit)\n");
            for (i, v) in inits.iter().enumerate() {
                text.push_str(&format!("int r{i} := {v};\n"));
            }
            for (i, m) in methods.iter().enumerate() {
                text.push_str(&format!("public m{i} {m};\n"));
            }
            text.push_str(&format!(
                "public near (u:unit) :(unit) = {{ assert(not(!r0 == {near})) }};\n\
                 public far (u:unit) :(unit) = {{ assert(not(!r0 == {far})) }};\n"
            ));
            text
        })
        .boxed()
}

/// A library whose `entry (l:int list)` folds the client's list (its length `n`, sum
/// `s`, reverse `r`) and asserts a generated condition on them, its only failure site.
/// Recursion goes one frame deeper per element: at most 5 frames for 3 elements.
pub fn list_library() -> BoxedStrategy<String> {
    let constant = -2i64..4;
    let atom = prop_oneof![
        constant.clone().prop_map(|c| format!("(n < {c})")),
        constant.clone().prop_map(|c| format!("(s == {c})")),
        constant.clone().prop_map(|c| format!("(s < {c})")),
        Just("(l == r)".to_string()),
        Just("(List.isnil l)".to_string()),
        (constant.clone(), constant)
            .prop_map(|(c, d)| format!("((match r with [] -> {c} | h :: t -> h) < {d})")),
    ];
    let condition = atom.prop_recursive(2, 6, 2, |inner| {
        prop_oneof![
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("({a} || {b})")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("({a} && {b})")),
            inner.prop_map(|a| format!("(not {a})")),
        ]
    });
    condition
        .prop_map(|cond| {
            format!(
                "public entry (l:int list) :(unit) = {{
  letrec len (xs:int list) :(int) = match xs with [] -> 0 | h :: t -> 1 + len t in
  letrec sum (xs:int list) :(int) = match xs with [] -> 0 | h :: t -> h + sum t in
  letrec rev (p:int list * int list) :(int list) =
    match fst p with [] -> snd p | h :: t -> rev (t, h :: snd p)
  in
  let n = len l in
  let s = sum l in
  let r = rev (l, []) in
  assert {cond}
}};"
            )
        })
        .boxed()
}

/// A small library of objects: `make` allocates two cells `a` and `b` and returns a
/// closure over them that runs a block (over the cells, its parameter, a reference
/// `r0` and a callback; `peek` lends a cell to the client), calls back and checks a
/// bound of a cell, alone, with a second
/// closure that reads `a`, or with the cell `b` itself; beside a public method over
/// `r0`.
pub fn object_library() -> BoxedStrategy<String> {
    let over_cells = Scope {
        refs: 1,
        vars: vec!["x"],
        int_funs: vec!["ext".to_string()],
        cells: vec!["a".to_string(), "b".to_string()],
    };
    let plain = Scope {
        cells: vec![],
        ..over_cells.clone()
    };
    (
        (-1i64..3, -1i64..3, -1i64..3),
        block(&over_cells, vec!["cb".into()]),
        0u8..3,
        block(&plain, vec!["cb".into()]),
        (0u8..2, 0u8..3, -1i64..3),
    )
        .prop_map(|((r0, va, vb), body, shape, other, (cell, op, bound))| {
            // A last check about a cell, which holds only if what the library and the
            // client can do to it keeps it so.
            let cell = ["a", "b"][cell as usize];
            let op = ["<=", "==", "<"][op as usize];
            let check = format!("assert ({bound} {op} !{cell})");
            let closure = format!("(fun (x:int) :(unit) -> ({body}; cb (); {check}))");
            let (ty, result) = match shape {
                0 => ("int -> unit".to_string(), closure),
                1 => (
                    "(int -> unit) * (unit -> int)".to_string(),
                    format!("({closure}, (fun (z:unit) :(int) -> !a))"),
                ),
                _ => ("(int -> unit) * ref int".to_string(), format!("({closure}, b)")),
            };
            format!(
                "import ext :(int -> int)\nimport cb :(unit -> unit)\nimport peek :(ref int -> unit)\n\
                 int r0 := {r0};\n\
                 public make (u:unit) :({ty}) = {{ let a = ref {va} in let b = ref {vb} in {result} }};\n\
                 public m (x:int) :(unit) = {{ {other} }};\n"
            )
        })
        .boxed()
}
