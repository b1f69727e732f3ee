//! Client synthesis: from a counterexample to a HOLi client that plays it.
//!
//! The client is *good* (it has no asserts) and realises the counterexample's concrete
//! trace move for move. Reading the trace as a game, the client is in control in `main`
//! and in every invocation of one of its functions by the library (a P-call); in each
//! such *frame* it makes a sequence of calls into the library (O-calls) and then returns
//! (O-return), unless the failure happens first. So the client is written frame by frame:
//!
//! * `main` makes the top-level calls in order;
//! * each library import is implemented by a public method, and each function the client
//!   passes to the library (the trace's `f1, f2, …`) by a private method; a function
//!   invoked several times counts its invocations in an `int` reference and, on its
//!   n-th invocation, makes the calls of the trace's n-th frame and returns the model's
//!   value (`if !send_calls == 1 then withdraw(100) else ()`);
//! * functions the library reveals (`m1, m2, …`) and the client later calls are stored
//!   in `fun` references when they arrive, and called through them;
//! * every location the trace names (`q1`, `r1`, …, `lang/references.md` §5.3) has a
//!   global slot `ref θ q1 := ref d;`: a location arriving in a move is stored there
//!   (`q1 := x`), one disclosed through a cell is read out of it when the client next
//!   has control (`q2 := !(!q1)`), one the client makes is allocated before its move
//!   (`r1 := ref 0`); the client's writes of a turn come before its move (`!q1 := 5`),
//!   and a move passes a location as `!q1`, so aliasing is the same slot twice.
//!
//! This is the definability argument of paper Appendix D.5 specialised to one trace:
//! Figure 5's generic oracle re-dispatches on a global move counter after every move,
//! while here each frame's script is laid out where it runs, which reads as the attack
//! it is (paper Example 4). Since a frame is identified by which invocation of its
//! function it is, every trace has this form.

use crate::concrete::{Cutoff, Limits, ProgramIndex};
use crate::syntax::ast::{
    BinOp, Decl, Expr, ExprKind, Function, Ident, Import, Main, MethodDecl, Program, Static, Type,
    Visibility,
};
use crate::trace::{Counterexample, Dir, Player, StoreEntry, TraceValue};
use num_bigint::BigInt;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt;

/// A synthesized client: the program and the comment that explains it.
#[derive(Clone, Debug)]
pub struct Client {
    /// `//` comment lines (with trailing newlines) to print above the program.
    pub header: String,
    pub program: Program,
}

/// What a client written for `holi equiv` watches as it plays ([`synthesize_prefix`]).
#[derive(Clone, Copy, Debug)]
pub struct Watch<'a> {
    /// The global into which every integer the library returns to a call of the
    /// client's is folded ([`fold_into`]): so a client that discards a result still
    /// tells two libraries apart by it.
    pub log: &'a str,
    /// The global that counts the library's moves (its calls of the client's
    /// functions, its returns to the client's calls).
    pub seen: &'a str,
    /// What the client does at one of those moves.
    pub at: Option<AtMove>,
}

/// What the client does at the n-th move of the library's (1-based, counted in
/// [`Watch::seen`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AtMove {
    /// Go on if it is the trace's n-th library move, with its integers; else run
    /// forever. Two libraries that part there then end differently whenever the
    /// trace goes on to an end: one runs forever.
    Expect(usize),
    /// Run forever, whatever the move: against a library that fails before making it.
    Diverge(usize),
}

/// Why a trace could not be turned into a client: the trace is not well formed
/// (which would be a bug in the engine) or mentions names the library lacks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SynthesisError(pub String);

impl fmt::Display for SynthesisError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cannot synthesize a client: {}", self.0)
    }
}

fn err<T>(msg: impl Into<String>) -> Result<T, SynthesisError> {
    Err(SynthesisError(msg.into()))
}

/// Why no client was written: the trace does not make one, or the time limit passed or
/// the user interrupted before it was done.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unwritten {
    Error(SynthesisError),
    Cutoff(Cutoff),
}

impl From<SynthesisError> for Unwritten {
    fn from(e: SynthesisError) -> Unwritten {
        Unwritten::Error(e)
    }
}

/// A step from a value to one of its components.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Proj {
    Fst,
    Snd,
    /// The first element of a list.
    Head,
    /// A list without its first element.
    Tail,
}

/// The paths to the elements of a list `items` long, in order, under `path`.
fn item_paths(path: &[Proj], items: usize) -> impl Iterator<Item = Vec<Proj>> + '_ {
    (0..items).map(move |i| {
        let mut p = path.to_vec();
        p.extend(std::iter::repeat_n(Proj::Tail, i));
        p.push(Proj::Head);
        p
    })
}

/// Where the client first holds a function the library revealed.
#[derive(Clone, Debug)]
enum Arrival {
    /// In the parameter of frame `frame`, at this path.
    Param { frame: usize, path: Vec<Proj> },
    /// In the result of the `action`-th call of frame `frame`.
    Result {
        frame: usize,
        action: usize,
        path: Vec<Proj>,
    },
    /// In the cell `cell` (a trace name), read the next time the client has control: at
    /// the start of frame `frame` (`after` is `None`) or when its `after`-th call returns.
    Cell {
        frame: usize,
        after: Option<usize>,
        cell: String,
        path: Vec<Proj>,
    },
    /// A location the client makes, before the `before`-th call of frame `frame`, or
    /// before the frame returns (`None`).
    Fresh { frame: usize, before: Option<usize> },
}

impl Arrival {
    /// Whether it is read out of a move or cell when the client gains control at the
    /// start of `frame` (`after` `None`) or after its `after`-th call.
    fn at(&self, frame: usize, after: Option<usize>) -> bool {
        match self {
            Arrival::Param { frame: f, .. } => *f == frame && after.is_none(),
            Arrival::Result {
                frame: f, action, ..
            } => *f == frame && after == Some(*action),
            Arrival::Cell {
                frame: f, after: a, ..
            } => *f == frame && *a == after,
            Arrival::Fresh { .. } => false,
        }
    }
}

#[derive(Clone, Debug)]
struct Call {
    target: String,
    arg: TraceValue,
    /// What the library returned, when the call returns in the trace.
    returned: Option<TraceValue>,
    /// The client's writes of its turn, made before the call.
    writes: Vec<StoreEntry>,
}

/// What the client does while it is in control once.
#[derive(Clone, Debug)]
struct Frame {
    /// The trace's name of the client function invoked (empty for `main`).
    function: String,
    calls: Vec<Call>,
    ret: Option<TraceValue>,
    /// The client's writes of its last turn, made before it returns.
    ret_writes: Vec<StoreEntry>,
}

enum Open {
    Frame(usize),
    LibraryCall {
        method: String,
        ret_ty: Option<Type>,
    },
}

/// A move of the library's, where the client gains control.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Event {
    /// A call of a client function, which runs as frame `frame`, with this argument.
    Entry { frame: usize, value: TraceValue },
    /// The return of the `action`-th call of frame `frame`.
    Return { frame: usize, action: usize },
}

/// The analysed trace: frames, client functions, revealed library functions, types.
struct Script {
    frames: Vec<Frame>,
    /// The library's moves, in order.
    events: Vec<Event>,
    /// Client functions in order of first appearance, with their types.
    client_funs: Vec<(String, Type)>,
    /// Library functions revealed by the library (not its public methods).
    revealed: Vec<(String, Type, Arrival)>,
    /// Library public methods the client names.
    used_public: Vec<String>,
    /// Every location the trace names, with the type it holds.
    locations: Vec<(String, Type)>,
    /// How the client comes to hold each revealed function and each location, in the
    /// order it does (a cell is read only after the client holds its location).
    arrivals: Vec<(String, Arrival)>,
}

fn arrow_parts(ty: &Option<Type>) -> (Option<Type>, Option<Type>) {
    match ty {
        Some(Type::Arrow(a, b)) => (Some((**a).clone()), Some((**b).clone())),
        _ => (None, None),
    }
}

/// Function names inside a value, with the type at their position when known.
fn functions_in(
    value: &TraceValue,
    ty: Option<&Type>,
    path: &mut Vec<Proj>,
    out: &mut Vec<(String, Option<Type>, Vec<Proj>)>,
) {
    match value {
        TraceValue::Fun(name) => out.push((name.clone(), ty.cloned(), path.clone())),
        TraceValue::Pair(a, b) => {
            let (ta, tb) = match ty {
                Some(Type::Pair(x, y)) => (Some(&**x), Some(&**y)),
                _ => (None, None),
            };
            path.push(Proj::Fst);
            functions_in(a, ta, path, out);
            path.pop();
            path.push(Proj::Snd);
            functions_in(b, tb, path, out);
            path.pop();
        }
        TraceValue::List(items) => {
            let element = match ty {
                Some(Type::List(t)) => Some(&**t),
                _ => None,
            };
            for (item, mut at) in items.iter().zip(item_paths(path, items.len())) {
                functions_in(item, element, &mut at, out);
            }
        }
        _ => {}
    }
}

/// Location names inside a value, with their paths.
fn locations_in(value: &TraceValue, path: &mut Vec<Proj>, out: &mut Vec<(String, Vec<Proj>)>) {
    match value {
        TraceValue::Ref(name) => out.push((name.clone(), path.clone())),
        TraceValue::Pair(a, b) => {
            path.push(Proj::Fst);
            locations_in(a, path, out);
            path.pop();
            path.push(Proj::Snd);
            locations_in(b, path, out);
            path.pop();
        }
        TraceValue::List(items) => {
            for (item, mut at) in items.iter().zip(item_paths(path, items.len())) {
                locations_in(item, &mut at, out);
            }
        }
        _ => {}
    }
}

/// The paths of the integers inside a value.
fn integers_in(value: &TraceValue, path: &mut Vec<Proj>, out: &mut Vec<Vec<Proj>>) {
    match value {
        TraceValue::Int(_) | TraceValue::Sym(_) => out.push(path.clone()),
        TraceValue::Pair(a, b) => {
            path.push(Proj::Fst);
            integers_in(a, path, out);
            path.pop();
            path.push(Proj::Snd);
            integers_in(b, path, out);
            path.pop();
        }
        TraceValue::List(items) => {
            for (item, mut at) in items.iter().zip(item_paths(path, items.len())) {
                integers_in(item, &mut at, out);
            }
        }
        _ => {}
    }
}

/// The paths to the integers of every value of type `ty` (a list's are not fixed by
/// its type and are left out).
fn integer_paths(ty: &Type, path: &mut Vec<Proj>, out: &mut Vec<Vec<Proj>>) {
    match ty {
        Type::Int | Type::Bool => out.push(path.clone()),
        Type::Pair(a, b) => {
            path.push(Proj::Fst);
            integer_paths(a, path, out);
            path.pop();
            path.push(Proj::Snd);
            integer_paths(b, path, out);
            path.pop();
        }
        _ => {}
    }
}

/// The part of a value at a path.
fn value_at<'v>(value: &'v TraceValue, path: &[Proj]) -> Option<&'v TraceValue> {
    let mut v = value;
    // The elements of the list `v` that `Tail`s dropped so far.
    let mut dropped = 0;
    for p in path {
        v = match (v, p) {
            (TraceValue::List(items), Proj::Tail) if dropped < items.len() => {
                dropped += 1;
                continue;
            }
            (TraceValue::List(items), Proj::Head) => {
                let item = items.get(dropped)?;
                dropped = 0;
                item
            }
            (TraceValue::Pair(a, _), Proj::Fst) => a,
            (TraceValue::Pair(_, b), Proj::Snd) => b,
            _ => return None,
        };
    }
    (dropped == 0).then_some(v)
}

/// The type to use for a function whose type the trace does not determine (only in
/// ill-typed libraries): the simplest one.
fn fallback_fun_type() -> Type {
    Type::arrow(Type::Unit, Type::Unit)
}

impl Script {
    fn analyse(
        publics: &ProgramIndex<'_>,
        cx: &Counterexample,
        limits: &Limits,
    ) -> Result<Script, Unwritten> {
        let library = publics.program;
        let mut types: HashMap<String, Option<Type>> = HashMap::new();
        let mut client_owned: HashSet<String> = HashSet::new();
        for import in &library.imports {
            types.insert(import.name.name.clone(), Some(import.ty.clone()));
            client_owned.insert(import.name.name.clone());
        }
        let mut script = Script {
            frames: vec![Frame {
                function: String::new(),
                calls: Vec::new(),
                ret: None,
                ret_writes: Vec::new(),
            }],
            events: Vec::new(),
            client_funs: Vec::new(),
            revealed: Vec::new(),
            used_public: Vec::new(),
            locations: Vec::new(),
            arrivals: Vec::new(),
        };
        let location_types: HashMap<&str, &Type> =
            cx.locations.iter().map(|(n, t)| (n.as_str(), t)).collect();
        let mut stack: Vec<Open> = Vec::new();
        let top_frame = |stack: &[Open]| match stack.last() {
            None => Ok(0),
            Some(Open::Frame(f)) => Ok(*f),
            Some(Open::LibraryCall { .. }) => err("a client move while the library is in control"),
        };
        for (index, mv) in cx.concrete.0.iter().enumerate() {
            if let Some(cutoff) = limits.cutoff() {
                return Err(Unwritten::Cutoff(cutoff));
            }
            let at = |msg: String| {
                Unwritten::Error(SynthesisError(format!(
                    "move {} (`{mv}`): {msg}",
                    index + 1
                )))
            };
            match (mv.dir, mv.by) {
                (Dir::Call, Player::Client) => {
                    let frame = top_frame(&stack)?;
                    let ty = if let Some(m) = publics.public_method(&mv.method) {
                        if !script.used_public.contains(&mv.method) {
                            script.used_public.push(mv.method.clone());
                        }
                        Some(m.func.ty())
                    } else if script.revealed.iter().any(|(n, _, _)| *n == mv.method) {
                        types.get(&mv.method).cloned().flatten()
                    } else {
                        return Err(at(
                            "the client calls a name the library never gave it".into()
                        ));
                    };
                    let (param, ret) = arrow_parts(&ty);
                    script.note_client_values(
                        &mv.value,
                        param.as_ref(),
                        &mut types,
                        &mut client_owned,
                        publics,
                    );
                    let before = Some(script.frames[frame].calls.len());
                    script
                        .note_client_store(
                            mv,
                            frame,
                            before,
                            &location_types,
                            &mut types,
                            &mut client_owned,
                            publics,
                        )
                        .map_err(at)?;
                    script.frames[frame].calls.push(Call {
                        target: mv.method.clone(),
                        arg: mv.value.clone(),
                        returned: None,
                        writes: mv.store.clone(),
                    });
                    stack.push(Open::LibraryCall {
                        method: mv.method.clone(),
                        ret_ty: ret,
                    });
                }
                (Dir::Ret, Player::Library) => {
                    let Some(Open::LibraryCall { method, ret_ty }) = stack.pop() else {
                        return Err(at("a library return with no open client call".into()));
                    };
                    if method != mv.method {
                        return Err(at(format!(
                            "returns from `{}`, but `{method}` is open",
                            mv.method
                        )));
                    }
                    let frame = top_frame(&stack)?;
                    let action = script.frames[frame].calls.len() - 1;
                    script.frames[frame].calls[action].returned = Some(mv.value.clone());
                    script.events.push(Event::Return { frame, action });
                    script.note_library_values(
                        &mv.value,
                        ret_ty.as_ref(),
                        &mut types,
                        &client_owned,
                        publics,
                        |path| Arrival::Result {
                            frame,
                            action,
                            path,
                        },
                    );
                    script
                        .note_library_locations(&mv.value, &location_types, |path| {
                            Arrival::Result {
                                frame,
                                action,
                                path,
                            }
                        })
                        .map_err(at)?;
                    script
                        .note_library_store(
                            mv,
                            frame,
                            Some(action),
                            &location_types,
                            &mut types,
                            &client_owned,
                            publics,
                        )
                        .map_err(at)?;
                }
                (Dir::Call, Player::Library) => {
                    if !client_owned.contains(&mv.method) {
                        return Err(at("the library calls a name the client does not own".into()));
                    }
                    let (param, _) = arrow_parts(&types.get(&mv.method).cloned().flatten());
                    let frame = script.frames.len();
                    script.frames.push(Frame {
                        function: mv.method.clone(),
                        calls: Vec::new(),
                        ret: None,
                        ret_writes: Vec::new(),
                    });
                    script.events.push(Event::Entry {
                        frame,
                        value: mv.value.clone(),
                    });
                    script.note_library_values(
                        &mv.value,
                        param.as_ref(),
                        &mut types,
                        &client_owned,
                        publics,
                        |path| Arrival::Param { frame, path },
                    );
                    script
                        .note_library_locations(&mv.value, &location_types, |path| Arrival::Param {
                            frame,
                            path,
                        })
                        .map_err(at)?;
                    script
                        .note_library_store(
                            mv,
                            frame,
                            None,
                            &location_types,
                            &mut types,
                            &client_owned,
                            publics,
                        )
                        .map_err(at)?;
                    stack.push(Open::Frame(frame));
                }
                (Dir::Ret, Player::Client) => {
                    let Some(Open::Frame(frame)) = stack.pop() else {
                        return Err(at("a client return while no client function runs".into()));
                    };
                    if script.frames[frame].function != mv.method {
                        return Err(at(format!(
                            "returns from `{}`, but `{}` is running",
                            mv.method, script.frames[frame].function
                        )));
                    }
                    let (_, ret) = arrow_parts(&types.get(&mv.method).cloned().flatten());
                    script.note_client_values(
                        &mv.value,
                        ret.as_ref(),
                        &mut types,
                        &mut client_owned,
                        publics,
                    );
                    script
                        .note_client_store(
                            mv,
                            frame,
                            None,
                            &location_types,
                            &mut types,
                            &mut client_owned,
                            publics,
                        )
                        .map_err(at)?;
                    script.frames[frame].ret = Some(mv.value.clone());
                    script.frames[frame].ret_writes = mv.store.clone();
                }
            }
        }
        Ok(script)
    }

    /// Functions in a client move: fresh client functions (or library names passed back).
    fn note_client_values(
        &mut self,
        value: &TraceValue,
        ty: Option<&Type>,
        types: &mut HashMap<String, Option<Type>>,
        client_owned: &mut HashSet<String>,
        publics: &ProgramIndex<'_>,
    ) {
        let mut found = Vec::new();
        functions_in(value, ty, &mut Vec::new(), &mut found);
        for (name, fty, _) in found {
            let public = publics.public_method(&name).is_some();
            let known = client_owned.contains(&name)
                || public
                || self.revealed.iter().any(|(n, _, _)| *n == name);
            if known {
                if public && !self.used_public.contains(&name) {
                    self.used_public.push(name);
                }
                continue;
            }
            let fty = fty
                .filter(|t| matches!(t, Type::Arrow(..)))
                .unwrap_or_else(fallback_fun_type);
            client_owned.insert(name.clone());
            types.insert(name.clone(), Some(fty.clone()));
            self.client_funs.push((name, fty));
        }
    }

    /// Functions in a library move: library functions seen for the first time.
    fn note_library_values(
        &mut self,
        value: &TraceValue,
        ty: Option<&Type>,
        types: &mut HashMap<String, Option<Type>>,
        client_owned: &HashSet<String>,
        publics: &ProgramIndex<'_>,
        arrival: impl Fn(Vec<Proj>) -> Arrival,
    ) {
        let mut found = Vec::new();
        functions_in(value, ty, &mut Vec::new(), &mut found);
        for (name, fty, path) in found {
            if client_owned.contains(&name)
                || publics.public_method(&name).is_some()
                || self.revealed.iter().any(|(n, _, _)| *n == name)
            {
                continue;
            }
            let fty = fty
                .filter(|t| matches!(t, Type::Arrow(..)))
                .unwrap_or_else(fallback_fun_type);
            types.insert(name.clone(), Some(fty.clone()));
            self.arrivals.push((name.clone(), arrival(path.clone())));
            self.revealed.push((name, fty, arrival(path)));
        }
    }

    /// Starts holding the location `name`, which arrives as `arrival`.
    fn hold(
        &mut self,
        name: &str,
        location_types: &HashMap<&str, &Type>,
        arrival: Arrival,
    ) -> Result<(), String> {
        let Some(&ty) = location_types.get(name) else {
            return Err(format!("the type of the location `{name}` is not known"));
        };
        self.locations.push((name.to_string(), ty.clone()));
        self.arrivals.push((name.to_string(), arrival));
        Ok(())
    }

    fn holds(&self, name: &str) -> bool {
        self.locations.iter().any(|(n, _)| n == name)
    }

    /// Locations in a library move's value that the client did not hold.
    fn note_library_locations(
        &mut self,
        value: &TraceValue,
        location_types: &HashMap<&str, &Type>,
        arrival: impl Fn(Vec<Proj>) -> Arrival,
    ) -> Result<(), String> {
        let mut found = Vec::new();
        locations_in(value, &mut Vec::new(), &mut found);
        for (name, path) in found {
            if !self.holds(&name) {
                self.hold(&name, location_types, arrival(path))?;
            }
        }
        Ok(())
    }

    /// The names a library move discloses through cells (`{q1 = q2}`): the client
    /// reads them out of the cells when it next has control, at the start of `frame`
    /// or after its call `after`.
    #[allow(clippy::too_many_arguments)]
    fn note_library_store(
        &mut self,
        mv: &crate::trace::Move,
        frame: usize,
        after: Option<usize>,
        location_types: &HashMap<&str, &Type>,
        types: &mut HashMap<String, Option<Type>>,
        client_owned: &HashSet<String>,
        publics: &ProgramIndex<'_>,
    ) -> Result<(), String> {
        for entry in &mv.store {
            if !self.holds(&entry.cell) {
                return Err(format!(
                    "the client reads `{}` before it holds it",
                    entry.cell
                ));
            }
            let ty = location_types.get(entry.cell.as_str()).copied();
            let arrival = |path| Arrival::Cell {
                frame,
                after,
                cell: entry.cell.clone(),
                path,
            };
            self.note_library_values(&entry.value, ty, types, client_owned, publics, arrival);
            self.note_library_locations(&entry.value, location_types, arrival)?;
        }
        Ok(())
    }

    /// A client move's locations the client does not hold yet (it makes them before
    /// the move, `before` its call of that number, or before it returns) and the
    /// functions it writes into cells.
    #[allow(clippy::too_many_arguments)]
    fn note_client_store(
        &mut self,
        mv: &crate::trace::Move,
        frame: usize,
        before: Option<usize>,
        location_types: &HashMap<&str, &Type>,
        types: &mut HashMap<String, Option<Type>>,
        client_owned: &mut HashSet<String>,
        publics: &ProgramIndex<'_>,
    ) -> Result<(), String> {
        let mut found = Vec::new();
        locations_in(&mv.value, &mut Vec::new(), &mut found);
        for entry in &mv.store {
            found.push((entry.cell.clone(), Vec::new()));
            locations_in(&entry.value, &mut Vec::new(), &mut found);
        }
        for (name, _) in found {
            if !self.holds(&name) {
                self.hold(&name, location_types, Arrival::Fresh { frame, before })?;
            }
        }
        for entry in &mv.store {
            let ty = location_types.get(entry.cell.as_str()).copied();
            self.note_client_values(&entry.value, ty, types, client_owned, publics);
        }
        Ok(())
    }
}

// ---- Code generation -------------------------------------------------------------------

fn e(kind: ExprKind) -> Expr {
    Expr::new(kind, 0..0)
}

fn ident(name: &str) -> Ident {
    Ident {
        name: name.to_string(),
        span: 0..0,
    }
}

fn var(name: &str) -> Expr {
    e(ExprKind::Var(name.to_string()))
}

fn seq(mut parts: Vec<Expr>) -> Expr {
    let mut acc = parts.pop().unwrap_or_else(|| e(ExprKind::Unit));
    while let Some(prev) = parts.pop() {
        acc = e(ExprKind::Seq(Box::new(prev), Box::new(acc)));
    }
    acc
}

fn project(mut value: Expr, path: &[Proj]) -> Expr {
    for p in path {
        value = e(match p {
            Proj::Fst => ExprKind::Fst(Box::new(value)),
            Proj::Snd => ExprKind::Snd(Box::new(value)),
            // The trace gives the list's length, so the empty branch is never taken.
            Proj::Head | Proj::Tail => ExprKind::Match {
                scrutinee: Box::new(value),
                nil: Box::new(e(ExprKind::Diverge)),
                head: ident("holi_head__"),
                tail: ident("holi_tail__"),
                cons: Box::new(var(if matches!(p, Proj::Head) {
                    "holi_head__"
                } else {
                    "holi_tail__"
                })),
            },
        });
    }
    value
}

struct Generator<'a> {
    /// Whether the trace is a prefix the library goes on from: invocations beyond the
    /// trace's return at once ([`synthesize_prefix`]).
    prefix: bool,
    /// What the client watches ([`synthesize_prefix`]).
    watch: Option<Watch<'a>>,
    script: &'a Script,
    /// The library, whose names the client must not reuse.
    library: &'a ProgramIndex<'a>,
    /// Names given to the client's own declarations so far.
    taken: HashSet<String>,
    /// Trace name of a client function → the client method implementing it.
    client_methods: HashMap<String, String>,
    /// Trace name of a revealed library function the client calls → its `fun` reference.
    fun_refs: HashMap<String, String>,
    /// Trace name of a location → the global slot that holds it.
    slots: HashMap<String, String>,
    /// One do-nothing method per function type, for defaults and `fun` initial values.
    defaults: BTreeMap<String, (String, Type)>,
    extra_decls: Vec<Decl>,
}

impl<'a> Generator<'a> {
    /// An unused identifier based on `base` (trace names such as `f2'` are not identifiers).
    fn fresh(&mut self, base: &str) -> String {
        let mut base: String = base
            .chars()
            .filter(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        if !base.starts_with(|c: char| c.is_ascii_alphabetic()) {
            base.insert(0, 'f');
        }
        let base = base.as_str();
        let mut name = base.to_string();
        let mut n = 1;
        while self.is_taken(&name) {
            n += 1;
            name = format!("{base}_{n}");
        }
        self.taken.insert(name.clone());
        name
    }

    fn is_taken(&self, name: &str) -> bool {
        RESERVED.contains(&name) || self.library.names(name) || self.taken.contains(name)
    }

    /// A method that ignores its argument and returns a default value of the result type.
    fn default_method(&mut self, ty: &Type) -> String {
        let key = ty.to_string();
        if let Some((name, _)) = self.defaults.get(&key) {
            return name.clone();
        }
        let (param, ret) = match ty {
            Type::Arrow(a, b) => ((**a).clone(), (**b).clone()),
            other => (Type::Unit, other.clone()),
        };
        let name = self.fresh("ignore");
        self.defaults.insert(key, (name.clone(), ty.clone()));
        let body = self.default_value(&ret);
        self.extra_decls
            .push(method(Visibility::Private, &name, param, ret, body));
        name
    }

    /// The default value of `ty` as a `ref` declaration's initialiser.
    fn default_static(&mut self, ty: &Type) -> Static {
        match ty {
            Type::Unit => Static::Unit,
            Type::Int | Type::Bool => Static::Int(BigInt::from(0)),
            Type::Pair(a, b) => Static::Pair(
                Box::new(self.default_static(a)),
                Box::new(self.default_static(b)),
            ),
            Type::Arrow(..) => Static::Name(ident(&self.default_method(ty))),
            Type::Ref(content) => Static::Ref(Box::new(self.default_static(content))),
            Type::List(_) => Static::Nil,
        }
    }

    fn default_value(&mut self, ty: &Type) -> Expr {
        match ty {
            Type::Unit => e(ExprKind::Unit),
            Type::Int | Type::Bool => e(ExprKind::Int(BigInt::from(0))),
            Type::Pair(a, b) => {
                let a = self.default_value(a);
                let b = self.default_value(b);
                e(ExprKind::Pair(Box::new(a), Box::new(b)))
            }
            Type::Arrow(..) => {
                let name = self.default_method(ty);
                var(&name)
            }
            Type::Ref(content) => {
                let content = self.default_value(content);
                e(ExprKind::Alloc(Box::new(content)))
            }
            Type::List(_) => e(ExprKind::Nil),
        }
    }

    /// The client expression for a value it plays.
    fn value(&self, v: &TraceValue) -> Result<Expr, SynthesisError> {
        Ok(match v {
            TraceValue::Unit => e(ExprKind::Unit),
            TraceValue::Int(i) => e(ExprKind::Int(i.clone())),
            TraceValue::Sym(s) => {
                return err(format!("the concrete trace still has a symbol `{s}`"))
            }
            TraceValue::Pair(a, b) => e(ExprKind::Pair(
                Box::new(self.value(a)?),
                Box::new(self.value(b)?),
            )),
            TraceValue::List(items) => {
                let mut list = e(ExprKind::Nil);
                for item in items.iter().rev() {
                    list = e(ExprKind::Cons(Box::new(self.value(item)?), Box::new(list)));
                }
                list
            }
            TraceValue::Fun(name) => {
                if let Some(m) = self.client_methods.get(name) {
                    var(m)
                } else if let Some(r) = self.fun_refs.get(name) {
                    e(ExprKind::Deref(ident(r)))
                } else if self.script.used_public.contains(name) {
                    var(name)
                } else {
                    return err(format!("the client cannot name the function `{name}`"));
                }
            }
            TraceValue::Ref(name) => match self.slots.get(name) {
                Some(slot) => e(ExprKind::Deref(ident(slot))),
                None => return err(format!("the client does not hold the location `{name}`")),
            },
        })
    }

    /// The global that stores the function or location `name` when it arrives.
    fn slot(&self, name: &str) -> Option<&String> {
        self.fun_refs.get(name).or_else(|| self.slots.get(name))
    }

    /// Whether some name arrives in the result of call `after` of `frame`.
    fn uses_result(&self, frame: usize, after: usize) -> bool {
        self.script.arrivals.iter().any(|(name, arrival)| {
            matches!(arrival, Arrival::Result { frame: f, action, .. } if *f == frame && *action == after)
                && self.slot(name).is_some()
        })
    }

    /// Assignments that store the names arriving when the client gains control at the
    /// start of `frame` (`after` `None`, the parameter being `param`) or after its call
    /// `after` (the result being `result`): out of the move, then out of cells.
    fn captures(&self, frame: usize, after: Option<usize>, param: &str) -> Vec<Expr> {
        let mut out = Vec::new();
        for (name, arrival) in &self.script.arrivals {
            let Some(slot) = self.slot(name) else {
                continue;
            };
            if !arrival.at(frame, after) {
                continue;
            }
            let source = match arrival {
                Arrival::Param { path, .. } => project(var(param), path),
                // `result` is reserved in `library_names`, so it shadows nothing.
                Arrival::Result { path, .. } => project(var("result"), path),
                Arrival::Cell { cell, path, .. } => match self.slots.get(cell) {
                    Some(cell) => project(
                        e(ExprKind::Load(Box::new(e(ExprKind::Deref(ident(cell)))))),
                        path,
                    ),
                    None => continue,
                },
                Arrival::Fresh { .. } => continue,
            };
            out.push(e(ExprKind::Assign(ident(slot), Box::new(source))));
        }
        out
    }

    /// Folds the integers of every cell the client holds a slot for into the log, as
    /// it reads them when the library's move gives it control: two libraries that
    /// leave different contents in a disclosed cell then give different logs. A slot
    /// not yet filled holds the same fresh cell with either library.
    fn read_cells(&self, watch: &Watch) -> Vec<Expr> {
        let mut out = Vec::new();
        for (name, ty) in &self.script.locations {
            let Some(slot) = self.slots.get(name) else {
                continue;
            };
            let content = e(ExprKind::Load(Box::new(e(ExprKind::Deref(ident(slot))))));
            let mut paths = Vec::new();
            integer_paths(ty, &mut Vec::new(), &mut paths);
            for path in paths {
                out.push(fold_into(watch.log, project(content.clone(), &path)));
            }
        }
        out
    }

    /// What the client does in its turn before a move: make its new locations, then
    /// write the cells (`before` is the call of `frame` the turn ends with, `None` for
    /// its return).
    fn turn(
        &mut self,
        frame: usize,
        before: Option<usize>,
        writes: &[StoreEntry],
    ) -> Result<Vec<Expr>, SynthesisError> {
        let mut out = Vec::new();
        let script = self.script;
        for (name, arrival) in &script.arrivals {
            if !matches!(arrival, Arrival::Fresh { frame: f, before: b } if *f == frame && *b == before)
            {
                continue;
            }
            let (Some(slot), Some((_, ty))) = (
                self.slots.get(name).cloned(),
                script.locations.iter().find(|(n, _)| n == name),
            ) else {
                return err(format!("no slot for the location `{name}`"));
            };
            let cell = self.default_value(&Type::reference(ty.clone()));
            out.push(e(ExprKind::Assign(ident(&slot), Box::new(cell))));
        }
        for w in writes {
            let Some(slot) = self.slots.get(&w.cell) else {
                return err(format!(
                    "the client writes `{}`, which it does not hold",
                    w.cell
                ));
            };
            let target = e(ExprKind::Deref(ident(slot)));
            out.push(e(ExprKind::Store(
                Box::new(target),
                Box::new(self.value(&w.value)?),
            )));
        }
        Ok(out)
    }

    /// The code of one frame: store arriving functions, make the calls, return.
    fn frame_body(
        &mut self,
        index: usize,
        param: &str,
        ret_ty: Option<&Type>,
    ) -> Result<Expr, SynthesisError> {
        let script = self.script;
        let frame = &script.frames[index];
        let mut parts = self.captures(index, None, param);
        if let (Some(watch), true) = (self.watch, index > 0) {
            parts.extend(self.read_cells(&watch));
        }
        for (a, call) in frame.calls.iter().enumerate() {
            parts.extend(self.turn(index, Some(a), &call.writes)?);
            let target = if let Some(r) = self.fun_refs.get(&call.target) {
                e(ExprKind::Deref(ident(r)))
            } else {
                var(&call.target)
            };
            let app = e(ExprKind::App(
                Box::new(target),
                Box::new(self.value(&call.arg)?),
            ));
            let mut watching = Vec::new();
            if let Some(watch) = self.watch {
                let here = Event::Return {
                    frame: index,
                    action: a,
                };
                let returned = call.returned.clone().unwrap_or(TraceValue::Unit);
                watching.extend(self.checkpoint(&watch, &here, var("result"), &returned));
                let mut paths = Vec::new();
                integers_in(&returned, &mut Vec::new(), &mut paths);
                for path in paths {
                    watching.push(fold_into(watch.log, project(var("result"), &path)));
                }
            }
            let watched = !watching.is_empty();
            let mut stores = watching;
            stores.extend(self.captures(index, Some(a), param));
            if let Some(watch) = self.watch {
                stores.extend(self.read_cells(&watch));
            }
            if watched || self.uses_result(index, a) {
                parts.push(e(ExprKind::Let(
                    ident("result"),
                    Box::new(app),
                    Box::new(seq(stores)),
                )));
            } else {
                parts.push(app);
                parts.extend(stores);
            }
        }
        parts.extend(self.turn(index, None, &frame.ret_writes)?);
        let result = match (&frame.ret, ret_ty) {
            (Some(v), _) => self.value(v)?,
            (None, Some(t)) => {
                let t = t.clone();
                self.default_value(&t)
            }
            (None, None) => e(ExprKind::Unit),
        };
        // `withdraw(100); ()` says no more than `withdraw(100)`: both give `()`. What a
        // call gives is what the trace says it returned, not its declared type: in a
        // library holi warns is ill-typed, a `unit` function may return an integer. A
        // call that does not return in the trace (the failure comes first) gives nothing.
        let last_gives_unit = match parts.last().map(|p| &p.kind) {
            Some(ExprKind::Assign(..) | ExprKind::Store(..)) => true,
            Some(ExprKind::App(..)) => frame
                .calls
                .last()
                .is_some_and(|c| c.returned.as_ref().is_none_or(|v| *v == TraceValue::Unit)),
            _ => false,
        };
        if !(last_gives_unit && matches!(result.kind, ExprKind::Unit)) {
            parts.push(result);
        }
        Ok(seq(parts))
    }

    /// What the client does when the library's move `here` gives it `value` (its
    /// integers as in the trace's `expected`): when a move is watched, count the move,
    /// and at the watched one, run forever unless it is the one expected there.
    fn checkpoint(
        &self,
        watch: &Watch,
        here: &Event,
        value: Expr,
        expected: &TraceValue,
    ) -> Vec<Expr> {
        let seen = || e(ExprKind::Deref(ident(watch.seen)));
        let count = e(ExprKind::Assign(
            ident(watch.seen),
            Box::new(e(ExprKind::Binary(
                BinOp::Add,
                Box::new(seen()),
                Box::new(e(ExprKind::Int(BigInt::from(1)))),
            ))),
        ));
        let (n, expect) = match watch.at {
            None => return Vec::new(),
            Some(AtMove::Expect(n)) => (n, true),
            Some(AtMove::Diverge(n)) => (n, false),
        };
        let at_n = e(ExprKind::Binary(
            BinOp::Eq,
            Box::new(seen()),
            Box::new(e(ExprKind::Int(BigInt::from(n)))),
        ));
        let expected_here = expect && self.script.events.get(n - 1) == Some(here);
        let check = if expected_here {
            let mut paths = Vec::new();
            integers_in(expected, &mut Vec::new(), &mut paths);
            let mut ok: Option<Expr> = None;
            for path in paths {
                let Some(TraceValue::Int(c)) = value_at(expected, &path) else {
                    continue;
                };
                let eq = e(ExprKind::Binary(
                    BinOp::Eq,
                    Box::new(project(value.clone(), &path)),
                    Box::new(e(ExprKind::Int(c.clone()))),
                ));
                ok = Some(match ok {
                    None => eq,
                    Some(acc) => e(ExprKind::Binary(BinOp::And, Box::new(acc), Box::new(eq))),
                });
            }
            match ok {
                None => return vec![count],
                Some(ok) => e(ExprKind::If(
                    Box::new(ok),
                    Box::new(e(ExprKind::Unit)),
                    Box::new(e(ExprKind::Diverge)),
                )),
            }
        } else {
            e(ExprKind::Diverge)
        };
        vec![
            count,
            e(ExprKind::If(
                Box::new(at_n),
                Box::new(check),
                Box::new(e(ExprKind::Unit)),
            )),
        ]
    }

    /// Makes the method `decl` count and check its invocation, a move of the
    /// library's, before its body ([`Generator::checkpoint`]).
    fn watch_entry(&self, watch: &Watch, decl: &mut Decl) {
        let Decl::Method(m) = decl else {
            return;
        };
        let n = match watch.at {
            Some(AtMove::Expect(n) | AtMove::Diverge(n)) => n,
            None => 0,
        };
        let expected = match n.checked_sub(1).and_then(|i| self.script.events.get(i)) {
            Some(ev @ Event::Entry { frame, value })
                if self
                    .client_methods
                    .get(&self.script.frames[*frame].function)
                    .is_some_and(|name| *name == m.name.name) =>
            {
                Some((ev.clone(), value.clone()))
            }
            _ => None,
        };
        // A move no trace has, for every other method.
        let (here, value) = expected.unwrap_or((
            Event::Return {
                frame: usize::MAX,
                action: usize::MAX,
            },
            TraceValue::Unit,
        ));
        let mut parts = self.checkpoint(watch, &here, var(&m.func.param.name), &value);
        let body = std::mem::replace(&mut *m.func.body, e(ExprKind::Unit));
        parts.push(body);
        *m.func.body = seq(parts);
    }

    /// Whether a frame does nothing but return the default value.
    fn is_trivial(&self, index: usize, ret_ty: &Type) -> bool {
        let script = self.script;
        let frame = &script.frames[index];
        frame.calls.is_empty()
            && frame.ret_writes.is_empty()
            && self.captures(index, None, "x").is_empty()
            && !script
                .arrivals
                .iter()
                .any(|(_, a)| matches!(a, Arrival::Fresh { frame: f, before: None } if *f == index))
            && match &frame.ret {
                None => true,
                Some(v) => is_default(v, ret_ty),
            }
    }

    /// The body of the client function with trace name `name`.
    fn function_body(
        &mut self,
        name: &str,
        ty: &Type,
        counter: &mut Vec<Decl>,
    ) -> Result<Expr, SynthesisError> {
        let Type::Arrow(_, ret_ty) = ty else {
            return err(format!("`{name}` does not have a function type"));
        };
        let ret_ty = (**ret_ty).clone();
        let frames: Vec<usize> = (1..self.script.frames.len())
            .filter(|&i| self.script.frames[i].function == name)
            .collect();
        let scripted: Vec<(usize, usize)> = frames
            .iter()
            .enumerate()
            .filter(|(_, &f)| !self.is_trivial(f, &ret_ty))
            .map(|(n, &f)| (n + 1, f))
            .collect();
        if scripted.is_empty() {
            return Ok(self.default_value(&ret_ty));
        }
        if frames.len() == 1 && !self.prefix {
            return self.frame_body(frames[0], "x", Some(&ret_ty));
        }
        let calls_ref = self.fresh(&format!(
            "{}_calls",
            self.client_methods
                .get(name)
                .map(String::as_str)
                .unwrap_or(name)
        ));
        counter.push(Decl::IntRef {
            name: ident(&calls_ref),
            init: BigInt::from(0),
            span: 0..0,
        });
        let mut chain = self.default_value(&ret_ty);
        for &(n, f) in scripted.iter().rev() {
            let test = e(ExprKind::Binary(
                BinOp::Eq,
                Box::new(e(ExprKind::Deref(ident(&calls_ref)))),
                Box::new(e(ExprKind::Int(BigInt::from(n)))),
            ));
            let body = self.frame_body(f, "x", Some(&ret_ty))?;
            chain = e(ExprKind::If(
                Box::new(test),
                Box::new(body),
                Box::new(chain),
            ));
        }
        let bump = e(ExprKind::Assign(
            ident(&calls_ref),
            Box::new(e(ExprKind::Binary(
                BinOp::Add,
                Box::new(e(ExprKind::Deref(ident(&calls_ref)))),
                Box::new(e(ExprKind::Int(BigInt::from(1)))),
            ))),
        ));
        Ok(seq(vec![bump, chain]))
    }
}

fn is_default(v: &TraceValue, ty: &Type) -> bool {
    match (v, ty) {
        (TraceValue::Unit, Type::Unit) => true,
        (TraceValue::Int(i), Type::Int) => *i == BigInt::from(0),
        (TraceValue::Pair(a, b), Type::Pair(x, y)) => is_default(a, x) && is_default(b, y),
        (TraceValue::List(items), Type::List(_)) => items.is_empty(),
        _ => false,
    }
}

fn method(vis: Visibility, name: &str, param: Type, ret: Type, body: Expr) -> Decl {
    Decl::Method(MethodDecl {
        visibility: vis,
        name: ident(name),
        func: Function {
            param: ident("x"),
            param_ty: param,
            ret_ty: ret,
            body: Box::new(body),
        },
        span: 0..0,
    })
}

/// `log := !log * 1000003 + value`: a log of integers, weighted by position, so that a
/// different integer, or the same ones in another order, gives another log.
pub fn fold_into(log: &str, value: Expr) -> Expr {
    let binary = |op, a, b| e(ExprKind::Binary(op, Box::new(a), Box::new(b)));
    let shifted = binary(
        BinOp::Mul,
        e(ExprKind::Deref(ident(log))),
        e(ExprKind::Int(1_000_003.into())),
    );
    e(ExprKind::Assign(
        ident(log),
        Box::new(binary(BinOp::Add, shifted, value)),
    ))
}

/// Names the generated code uses itself: `main`, every method's parameter `x`, and
/// `result`, which holds a call's result while revealed functions are stored.
const RESERVED: [&str; 3] = ["main", "x", "result"];

/// Writes the client that plays `cx` against `library`.
pub fn synthesize(library: &Program, cx: &Counterexample) -> Result<Client, SynthesisError> {
    match synthesize_indexed(&ProgramIndex::new(library), cx, &Limits::default()) {
        Ok(client) => Ok(client),
        Err(Unwritten::Error(e)) => Err(e),
        Err(Unwritten::Cutoff(c)) => Err(SynthesisError(format!("stopped: {c}"))),
    }
}

/// [`synthesize`] against an indexed library, giving up when `limits` say time is up or
/// the user interrupted. Costs time in the trace's length, not the library's size.
pub fn synthesize_indexed(
    index: &ProgramIndex<'_>,
    cx: &Counterexample,
    limits: &Limits,
) -> Result<Client, Unwritten> {
    synthesize_with(index, cx, limits, false, None)
}

/// [`synthesize_indexed`] for a trace the library may go on from (`holi equiv`'s moves
/// before two libraries part): every invocation of a client function beyond those of
/// the trace returns a default value at once, so that what the library does next is
/// seen rather than driven. The client watches what `watch` says; the caller declares
/// its globals.
pub fn synthesize_prefix(
    index: &ProgramIndex<'_>,
    cx: &Counterexample,
    limits: &Limits,
    watch: Watch<'_>,
) -> Result<Client, Unwritten> {
    synthesize_with(index, cx, limits, true, Some(watch))
}

fn synthesize_with(
    index: &ProgramIndex<'_>,
    cx: &Counterexample,
    limits: &Limits,
    prefix: bool,
    watch: Option<Watch<'_>>,
) -> Result<Client, Unwritten> {
    let library = index.program;
    let script = Script::analyse(index, cx, limits)?;
    let mut gen = Generator {
        prefix,
        watch,
        script: &script,
        library: index,
        taken: HashSet::new(),
        client_methods: HashMap::new(),
        fun_refs: HashMap::new(),
        slots: HashMap::new(),
        defaults: BTreeMap::new(),
        extra_decls: Vec::new(),
    };
    // Imports keep their names (they implement the library's imports); the functions
    // the client hands over get private methods, named after the trace where possible.
    for import in &library.imports {
        gen.client_methods
            .insert(import.name.name.clone(), import.name.name.clone());
    }
    for (name, _) in &script.client_funs {
        let method_name = gen.fresh(name);
        gen.client_methods.insert(name.clone(), method_name);
    }
    // A revealed function needs a reference only if the client calls it or passes it on.
    let mut needed: HashSet<&str> = HashSet::new();
    for frame in &script.frames {
        for call in &frame.calls {
            needed.insert(&call.target);
            collect_fun_names(&call.arg, &mut needed);
            for w in &call.writes {
                collect_fun_names(&w.value, &mut needed);
            }
        }
        if let Some(v) = &frame.ret {
            collect_fun_names(v, &mut needed);
        }
        for w in &frame.ret_writes {
            collect_fun_names(&w.value, &mut needed);
        }
    }
    let mut refs = Vec::new();
    for (name, ty, _) in &script.revealed {
        if needed.contains(name.as_str()) {
            let r = gen.fresh(name);
            gen.fun_refs.insert(name.clone(), r.clone());
            refs.push((r, ty.clone()));
        }
    }
    let mut locations = Vec::new();
    for (name, ty) in &script.locations {
        let slot = gen.fresh(name);
        gen.slots.insert(name.clone(), slot.clone());
        locations.push((slot, ty.clone()));
    }
    let mut decls: Vec<Decl> = Vec::new();
    let mut counters: Vec<Decl> = Vec::new();
    for (slot, ty) in &locations {
        let init = gen.default_static(ty);
        decls.push(Decl::RefDecl {
            name: ident(slot),
            ty: Type::reference(ty.clone()),
            init: Static::Ref(Box::new(init)),
            init_span: 0..0,
            span: 0..0,
        });
    }
    for (r, ty) in &refs {
        let initial = gen.default_method(ty);
        decls.push(Decl::FunRef {
            name: ident(r),
            target: ident(&initial),
            span: 0..0,
        });
    }
    let mut methods = Vec::new();
    for import in &library.imports {
        if let Some(cutoff) = limits.cutoff() {
            return Err(Unwritten::Cutoff(cutoff));
        }
        let name = import.name.name.clone();
        let body = gen.function_body(&name, &import.ty, &mut counters)?;
        let (param, ret) = match &import.ty {
            Type::Arrow(a, b) => ((**a).clone(), (**b).clone()),
            _ => {
                return Err(SynthesisError(format!(
                    "the import `{name}` does not have a function type"
                ))
                .into())
            }
        };
        methods.push(method(Visibility::Public, &name, param, ret, body));
    }
    for (name, ty) in &script.client_funs {
        let method_name = gen.client_methods[name].clone();
        let body = gen.function_body(name, ty, &mut counters)?;
        let (param, ret) = match ty {
            Type::Arrow(a, b) => ((**a).clone(), (**b).clone()),
            _ => (Type::Unit, Type::Unit),
        };
        methods.push(method(Visibility::Private, &method_name, param, ret, body));
    }
    let main_body = gen.frame_body(0, "x", None)?;
    let imports = script
        .used_public
        .iter()
        .filter_map(|name| {
            index.method(name).map(|m| Import {
                name: ident(name),
                ty: m.func.ty(),
                ty_span: 0..0,
                span: 0..0,
            })
        })
        .collect();
    let mut extra = std::mem::take(&mut gen.extra_decls);
    if let Some(watch) = watch {
        for decl in methods.iter_mut().chain(extra.iter_mut()) {
            gen.watch_entry(&watch, decl);
        }
    }
    let mut all = counters;
    all.extend(decls);
    all.extend(extra);
    all.extend(methods);
    let program = Program {
        bounds: None,
        imports,
        decls: all,
        main: Some(Main {
            body: main_body,
            span: 0..0,
        }),
    };
    Ok(Client {
        header: header(cx),
        program,
    })
}

fn collect_fun_names<'v>(v: &'v TraceValue, out: &mut HashSet<&'v str>) {
    match v {
        TraceValue::Fun(name) => {
            out.insert(name);
        }
        TraceValue::Pair(a, b) => {
            collect_fun_names(a, out);
            collect_fun_names(b, out);
        }
        TraceValue::List(items) => {
            for item in items {
                collect_fun_names(item, out);
            }
        }
        _ => {}
    }
}

/// The comment above a synthesized client: what it demonstrates and the trace it plays.
pub fn header(cx: &Counterexample) -> String {
    let what = match cx.kind {
        crate::trace::FailureKind::Assert => "the failing assert",
        crate::trace::FailureKind::Division => "the division by zero",
    };
    let mut out = format!(
        "// Synthesized by holi: a client (no asserts) that drives the library into {what}\n// along this trace:\n"
    );
    for mv in &cx.concrete.0 {
        let who = match mv.by {
            Player::Client => "client ",
            Player::Library => "library",
        };
        out.push_str(&format!("//   {who}  {mv}\n"));
    }
    if !cx.model.is_empty() {
        let model: Vec<String> = cx.model.iter().map(|(k, v)| format!("{k} = {v}")).collect();
        out.push_str(&format!("// model: {}\n", model.join(", ")));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frontend::load_str;
    use crate::trace::{FailureKind, Move, Trace};

    fn library(src: &str) -> Program {
        match load_str("t.holi", src, false) {
            Ok(l) => l.program,
            Err(r) => panic!("{}", r.render(false)),
        }
    }

    fn mv(dir: Dir, by: Player, method: &str, value: TraceValue) -> Move {
        Move::new(dir, by, method, value)
    }

    fn cx(moves: Vec<Move>) -> Counterexample {
        Counterexample {
            kind: FailureKind::Assert,
            span: 0..0,
            trace: Trace(moves.clone()),
            concrete: Trace(moves),
            model: BTreeMap::new(),
            locations: Vec::new(),
            valuation: None,
        }
    }

    const LIB: &str = "import cb :(unit -> int)
        int f1 := 0;
        public go (f:unit -> unit) :(unit) = { f1 := cb(); f() };";

    #[test]
    fn client_names_avoid_the_librarys_and_are_identifiers() {
        let trace = vec![
            mv(
                Dir::Call,
                Player::Client,
                "go",
                TraceValue::Fun("f1'".into()),
            ),
            mv(Dir::Call, Player::Library, "cb", TraceValue::Unit),
            mv(
                Dir::Ret,
                Player::Client,
                "cb",
                TraceValue::Int(BigInt::from(5)),
            ),
            mv(Dir::Call, Player::Library, "f1'", TraceValue::Unit),
        ];
        let client = synthesize(&library(LIB), &cx(trace)).expect("a client");
        let names: Vec<&str> = client
            .program
            .decls
            .iter()
            .map(|d| d.name().name.as_str())
            .collect();
        assert!(names.contains(&"f1_2"), "{names:?}");
        assert!(names.contains(&"cb"), "{names:?}");
        assert!(!names.contains(&"f1"), "{names:?}");
    }

    #[test]
    fn ill_formed_traces_are_errors_not_clients() {
        let returns_first = vec![mv(Dir::Ret, Player::Library, "go", TraceValue::Unit)];
        assert!(synthesize(&library(LIB), &cx(returns_first)).is_err());
        let unknown = vec![mv(Dir::Call, Player::Client, "nowhere", TraceValue::Unit)];
        assert!(synthesize(&library(LIB), &cx(unknown)).is_err());
        let symbolic = vec![mv(
            Dir::Call,
            Player::Client,
            "go",
            TraceValue::Sym("x1".into()),
        )];
        assert!(synthesize(&library(LIB), &cx(symbolic)).is_err());
    }

    #[test]
    fn defaults_need_no_branch() {
        assert!(is_default(&TraceValue::Unit, &Type::Unit));
        assert!(is_default(&TraceValue::Int(BigInt::from(0)), &Type::Int));
        assert!(!is_default(&TraceValue::Int(BigInt::from(1)), &Type::Int));
        assert!(!is_default(
            &TraceValue::Fun("f".into()),
            &fallback_fun_type()
        ));
    }
}
