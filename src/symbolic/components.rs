//! The components of a library, as the split ([`super::split`]) sees them: methods
//! and references joined by what they mention, the failure sites and the most
//! callbacks per frame of each, and the library restricted to some of them, with or
//! without the stand-in that plays the others.

use crate::library::ir::GlobalName;
use crate::library::ir::{CodeId, Expr, ExprKind, ImportId, MethodId};
use crate::library::{Initial, Library, StandInNames};
use crate::syntax::ast::Visibility;
use crate::trace::Site;
use std::collections::{BTreeMap, BTreeSet, HashSet};

/// The most callbacks per frame the stand-in is made for; a library whose frames can
/// make more is searched whole.
const MAX_CALLBACKS: u32 = 16;

/// The stand-in's method and the client function it calls back.
pub const TRAMPOLINE: &str = "holi_split_trampoline";
pub const CALLBACK: &str = "holi_split_callback";

/// The components of a library: a number for every method and reference.
pub struct Components {
    pub method: Vec<usize>,
    pub reference: Vec<usize>,
    pub count: usize,
    /// By component, whether it is *sealed*: it holds no reference, its methods are well
    /// typed, its public methods' types are first-order, and its code mentions no
    /// import and no location. No
    /// client function and no cell can then reach its code, nor any of its functions
    /// the client, so a client call of one of its methods runs to its return or failure
    /// without a move in between, on its argument alone.
    pub sealed: Vec<bool>,
}

impl Components {
    /// By [`MethodId`] and by reference, whether it belongs to one of the components
    /// `members`: what [`Library::restrict`] keeps.
    pub fn members(&self, members: &[usize]) -> (Vec<bool>, Vec<bool>) {
        let mark = |of: &[usize]| of.iter().map(|p| members.contains(p)).collect();
        (mark(&self.method), mark(&self.reference))
    }

    pub fn of(lib: &Library) -> Components {
        let methods = lib.methods.len();
        let mut parent: Vec<usize> = (0..methods + lib.refs.len()).collect();
        fn find(parent: &mut [usize], mut x: usize) -> usize {
            while parent[x] != x {
                parent[x] = parent[parent[x]];
                x = parent[x];
            }
            x
        }
        let union = |parent: &mut Vec<usize>, a: usize, b: usize| {
            let (ra, rb) = (find(parent, a), find(parent, b));
            parent[ra] = rb;
        };
        let mentions: Vec<Mentions> = lib
            .methods
            .iter()
            .map(|method| {
                let mut mentions = Mentions::default();
                mentions.code(lib, method.code);
                mentions
            })
            .collect();
        for (m, mentions) in mentions.iter().enumerate() {
            for &r in &mentions.refs {
                union(&mut parent, m, methods + r as usize);
            }
            for &other in &mentions.methods {
                union(&mut parent, m, other as usize);
            }
        }
        for (r, initial) in lib.store.iter().enumerate() {
            if let Initial::Name(GlobalName::Method(m)) = initial {
                union(&mut parent, methods + r, *m as usize);
            }
        }
        let mut number = BTreeMap::new();
        let mut component = |parent: &mut Vec<usize>, x: usize| {
            let root = find(parent, x);
            let next = number.len();
            *number.entry(root).or_insert(next)
        };
        let method: Vec<usize> = (0..methods).map(|m| component(&mut parent, m)).collect();
        let reference: Vec<usize> = (0..lib.refs.len())
            .map(|r| component(&mut parent, methods + r))
            .collect();
        let count = number.len();
        let mut sealed = vec![true; count];
        for &c in &reference {
            sealed[c] = false;
        }
        for (m, (&c, mentions)) in method.iter().zip(&mentions).enumerate() {
            let code = lib.method_code(m as MethodId);
            let public = lib.methods[m].visibility == Visibility::Public;
            let first_order =
                lib.types.first_order(code.param_ty) && lib.types.first_order(code.ret_ty);
            // Types say what crosses the part's edge only where they hold.
            let typed = !lib.ill_typed[m];
            if mentions.imports || mentions.cells || (public && !first_order) || !typed {
                sealed[c] = false;
            }
        }
        Components {
            method,
            reference,
            count,
            sealed,
        }
    }
}

/// The references and methods a piece of code mentions, with the codes nested in it.
#[derive(Default)]
struct Mentions {
    refs: HashSet<u32>,
    methods: HashSet<MethodId>,
    codes: HashSet<CodeId>,
    /// Whether some import is mentioned.
    imports: bool,
    /// Whether some location is made or used.
    cells: bool,
}

impl Mentions {
    fn code(&mut self, lib: &Library, id: CodeId) {
        if self.codes.insert(id) {
            self.expr(lib, &lib.code(id).body);
        }
    }

    fn expr(&mut self, lib: &Library, e: &Expr) {
        match &e.kind {
            ExprKind::Deref(r) | ExprKind::Assign(r, _) => {
                self.refs.insert(*r);
            }
            ExprKind::Global(GlobalName::Method(m)) => {
                self.methods.insert(*m);
            }
            ExprKind::Global(GlobalName::Import(_)) => self.imports = true,
            ExprKind::Alloc(..) | ExprKind::Load(_) | ExprKind::Store(..) => self.cells = true,
            ExprKind::Lambda(code) | ExprKind::LetRec(code, _) => self.code(lib, *code),
            _ => {}
        }
        for child in e.children() {
            self.expr(lib, child);
        }
    }
}

/// The failure sites in each component's code ([`Expr::failure_sites`]).
pub fn sites_per_component(lib: &Library, parts: &Components) -> Vec<BTreeSet<Site>> {
    let mut out = vec![BTreeSet::new(); parts.count];
    for (m, method) in lib.methods.iter().enumerate() {
        let mut mentions = Mentions::default();
        mentions.code(lib, method.code);
        let mut sites = Vec::new();
        for code in mentions.codes {
            lib.code(code).body.failure_sites(&mut sites);
        }
        out[parts.method[m]].extend(sites);
    }
    out
}

/// For each component, the most calls to the client one frame of it can make within
/// `k` open frames (counting the library functions it calls on the way, whose frames
/// end inside it; none for a sealed component, which no client function reaches);
/// `None` if some frame can make more than [`MAX_CALLBACKS`].
pub fn callbacks_per_component(lib: &Library, parts: &Components, k: u32) -> Option<Vec<u32>> {
    // A sealed component's functions never leave its frames: a function value applied
    // elsewhere is never one of them.
    let mut values = lib.value_codes();
    for (m, method) in lib.methods.iter().enumerate() {
        if parts.sealed[parts.method[m]] {
            let mut mentions = Mentions::default();
            mentions.code(lib, method.code);
            values.retain(|code| !mentions.codes.contains(code));
        }
    }
    let mut bound = Bound {
        lib,
        values,
        done: std::collections::HashMap::new(),
    };
    // The client's call takes one frame; the library functions it calls, the rest.
    let depth = k.saturating_sub(1);
    let mut out = vec![0; parts.count];
    for (m, method) in lib.methods.iter().enumerate() {
        if parts.sealed[parts.method[m]] {
            continue;
        }
        let mut mentions = Mentions::default();
        mentions.code(lib, method.code);
        for code in mentions.codes {
            let entry = code == method.code && method.visibility == Visibility::Public;
            if entry || bound.values.contains(&code) {
                let part = &mut out[parts.method[m]];
                *part = (*part).max(bound.code(code, depth)?);
            }
        }
    }
    Some(out)
}

/// The most callbacks of one frame of a code with `depth` more frames to open. Each
/// library function called opens one, so the measure is finite even for recursion and
/// chains of closures.
struct Bound<'a> {
    lib: &'a Library,
    /// Codes that can be function values ([`Library::value_codes`]).
    values: HashSet<CodeId>,
    done: std::collections::HashMap<(CodeId, u32), Option<u32>>,
}

impl Bound<'_> {
    fn code(&mut self, id: CodeId, depth: u32) -> Option<u32> {
        if let Some(&n) = self.done.get(&(id, depth)) {
            return n;
        }
        let n = self.expr(&self.lib.code(id).body, depth);
        self.done.insert((id, depth), n);
        n
    }

    /// A call of a function value: a client function (one callback) or any library
    /// function that can be a value.
    fn unknown(&mut self, depth: u32) -> Option<u32> {
        let mut most = 1;
        if depth > 0 {
            let values: Vec<CodeId> = self.values.iter().copied().collect();
            for code in values {
                most = most.max(self.code(code, depth - 1)?);
            }
        }
        Some(most)
    }

    fn expr(&mut self, e: &Expr, depth: u32) -> Option<u32> {
        let n = match &e.kind {
            ExprKind::Local(_)
            | ExprKind::Global(_)
            | ExprKind::Int(_)
            | ExprKind::Unit
            | ExprKind::Diverge
            | ExprKind::Nil
            | ExprKind::Deref(_)
            | ExprKind::Lambda(_) => 0,
            ExprKind::Assign(_, a)
            | ExprKind::Not(a)
            | ExprKind::Fst(a)
            | ExprKind::Snd(a)
            | ExprKind::Assert(a)
            | ExprKind::Alloc(a, _)
            | ExprKind::Load(a)
            | ExprKind::LetRec(_, a) => self.expr(a, depth)?,
            ExprKind::Pair(a, b)
            | ExprKind::Cons(a, b)
            | ExprKind::Binary(_, a, b)
            | ExprKind::Seq(a, b)
            | ExprKind::Store(a, b)
            | ExprKind::Let(a, b) => self.expr(a, depth)? + self.expr(b, depth)?,
            ExprKind::If(c, t, f) | ExprKind::Match(c, t, f) => {
                self.expr(c, depth)? + self.expr(t, depth)?.max(self.expr(f, depth)?)
            }
            ExprKind::App(f, a) => {
                let callee = match &f.kind {
                    ExprKind::Global(GlobalName::Import(_)) => 1,
                    ExprKind::Global(GlobalName::Undeclared(_)) => 0,
                    // Without a frame left the path ends there.
                    ExprKind::Global(GlobalName::Method(_)) if depth == 0 => 0,
                    ExprKind::Global(GlobalName::Method(m)) => {
                        self.code(self.lib.methods[*m as usize].code, depth - 1)?
                    }
                    _ => self.unknown(depth)?,
                };
                self.expr(f, depth)? + self.expr(a, depth)? + callee
            }
        };
        (n <= MAX_CALLBACKS).then_some(n)
    }
}

/// The library restricted to the components `members` ([`Library::restrict`]), plus
/// the stand-in when `stand_in`, with its method and callback.
pub fn sub_library(
    lib: &Library,
    parts: &Components,
    members: &[usize],
    stand_in: bool,
) -> (Library, Option<(MethodId, ImportId)>) {
    let (methods, refs) = parts.members(members);
    let names = StandInNames {
        method: TRAMPOLINE,
        callback: CALLBACK,
    };
    lib.restrict(&methods, &refs, stand_in.then_some(names))
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// `src` loaded, and built.
    pub(in crate::symbolic) fn library(src: &str) -> (crate::syntax::ast::Program, Library) {
        let loaded = crate::frontend::load_str("t.holi", src, false)
            .unwrap_or_else(|r| panic!("{}", r.render(false)));
        let lib = crate::library::build(&loaded.program);
        (loaded.program, lib)
    }

    const TWO_PARTS: &str = "
        import syscall :(int -> unit)
        int a := 0; int b := 0; int c := 0;
        public setA (u:unit) :(unit) = { a := 1 };
        public check (u:unit) :(unit) = { helper(); assert(not(!a)) };
        private helper (u:unit) :(unit) = { b := !b + 1 };
        public run (f:unit -> unit) :(unit) = { c := 0; f(); f(); syscall(!c) };
    ";

    #[test]
    fn methods_sharing_references_or_calls_form_one_component() {
        let (_, lib) = library(TWO_PARTS);
        let parts = Components::of(&lib);
        let part = |name: &str| {
            let m = lib.methods.iter().position(|m| m.name == name).unwrap();
            parts.method[m]
        };
        assert_eq!(parts.count, 2);
        assert_eq!(part("setA"), part("check"));
        assert_eq!(part("check"), part("helper"));
        assert_ne!(part("check"), part("run"));
    }

    #[test]
    fn callbacks_per_frame_are_counted_within_the_frame_bound() {
        let (_, lib) = library(TWO_PARTS);
        let parts = Components::of(&lib);
        let run = lib.methods.iter().position(|m| m.name == "run").unwrap();
        let counts = callbacks_per_component(&lib, &parts, 3).unwrap();
        assert_eq!(counts[parts.method[run]], 3);
        assert_eq!(counts[parts.method[0]], 0);
        let (_, looping) = library(
            "public spin (f:unit -> unit) :(unit) = {
               letrec go (n:int) :(unit) = if 0 < n then (f(); go(n - 1)) else () in go(3)
             };",
        );
        let parts = Components::of(&looping);
        // At k 2 a frame of `go` (were it revealed, the client could call it) has one
        // more frame to open. Each of its two calls of function values may be a client
        // function or `go` with no frame left, which calls two client functions at most.
        assert_eq!(callbacks_per_component(&looping, &parts, 2), Some(vec![4]));
        assert!(callbacks_per_component(&looping, &parts, 40).is_none());
    }

    #[test]
    fn a_part_is_sealed_only_without_state_imports_cells_or_functions_at_its_edge() {
        let (_, lib) = library(
            "import ext :(int -> int)
             int g := 0;
             public pure (x:int) :(int) = {
               letrec go (n:int) :(int) = if n < 1 then 0 else go(n - 1) in
               (fun (y:int) :(int) -> go(y) + go(y)) x };
             public stateful (x:int) :(unit) = { g := x };
             public calls (x:int) :(int) = { ext(x) };
             public cell (x:int) :(int) = { let c = ref x in !c };
             public takes (f:int -> int) :(int) = { f(1) };
             public gives (x:int) :(int -> int) = { fun (y:int) :(int) -> y };
             public via (x:int) :(int) = { helper(x) };
             private helper (x:int) :(int) = { ext(x) };
             public hides (x:int) :(unit) = { fun (y:int) :(unit) -> assert(y == x) };",
        );
        let parts = Components::of(&lib);
        let sealed = |name: &str| {
            let m = lib.methods.iter().position(|m| m.name == name).unwrap();
            parts.sealed[parts.method[m]]
        };
        assert!(sealed("pure"));
        // `hides` says it returns nothing, and returns a function the client may call.
        for name in [
            "stateful", "calls", "cell", "takes", "gives", "via", "hides",
        ] {
            assert!(!sealed(name), "{name} is not sealed");
        }
        // A sealed part's frames call no client, and its functions are none of the
        // values another part may apply.
        let counts = callbacks_per_component(&lib, &parts, 4).unwrap();
        let part =
            |name: &str| parts.method[lib.methods.iter().position(|m| m.name == name).unwrap()];
        assert_eq!(counts[part("pure")], 0);
        assert_eq!(counts[part("takes")], 1);
    }
}
