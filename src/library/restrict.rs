//! A library restricted to some of its methods and references, made directly from the
//! built library: the parts the engine's split searches apart, and their stand-in.
//!
//! The result is the library that building the kept declarations alone would give,
//! field for field: ids are renumbered in the order the compiler would give them (types
//! and undeclared names by first mention, codes in post-order, declared references
//! first), because the engine's statistics depend on them (memo keys print every slot,
//! the over-approximation makes a candidate per reference, trace names are chosen
//! against the declared names). So a name the kept code mentions whose declaration is
//! left out resolves as a rebuild resolves it: a method to an undeclared name, a
//! reference to a slot that no declaration initialises.
//!
//! One thing a restriction cannot redo is the type checker's: each kept method keeps
//! its own verdict ([`Library::ill_typed`]). That is the rebuild's verdict whenever the
//! kept set is closed under what the code mentions, as a union of components is.

use super::built::{Import, Initial, InitialCell, Library, Method};
use super::ir::{
    CodeId, Expr, ExprKind, FunCode, GlobalName, ImportId, MethodId, Names, RefId, TypeId,
    TypeNode, Types, UndeclaredId,
};
use crate::syntax::ast::Visibility;
use std::collections::HashMap;

/// A public method `unit -> unit` whose body the search never runs, and an import
/// `unit -> unit` it calls: the split's stand-in for the parts left out. Both are
/// declared last, as if appended to the library's text.
#[derive(Clone, Copy)]
pub struct StandInNames<'n> {
    pub method: &'n str,
    pub callback: &'n str,
}

impl Library {
    /// This library with only the methods and declared references marked `true` (by
    /// [`MethodId`] and [`RefId`]; every import stays, with its id), plus the stand-in
    /// when `stand_in` names it. Returns the stand-in's method and import ids.
    pub fn restrict(
        &self,
        methods: &[bool],
        refs: &[bool],
        stand_in: Option<StandInNames>,
    ) -> (Library, Option<(MethodId, ImportId)>) {
        let mut copy = Copy {
            from: self,
            types: Types::default(),
            type_ids: HashMap::new(),
            codes: Vec::new(),
            method_ids: vec![None; self.methods.len()],
            ref_ids: vec![None; self.refs.len()],
            refs: Vec::new(),
            undeclared: Names::default(),
            cells: Vec::new(),
            uses_cells: false,
        };
        let mut imports: Vec<Import> = self
            .imports
            .iter()
            .map(|i| Import {
                name: i.name.clone(),
                ty: copy.ty(i.ty),
            })
            .collect();
        let unit_to_unit = stand_in.map(|names| {
            let unit = copy.types.intern_node(TypeNode::Unit);
            let arrow = copy.types.intern_node(TypeNode::Arrow(unit, unit));
            imports.push(Import {
                name: names.callback.to_string(),
                ty: arrow,
            });
            (names, unit, arrow)
        });
        let kept: Vec<MethodId> = (0..self.methods.len() as MethodId)
            .filter(|&m| methods[m as usize])
            .collect();
        for (new, &m) in kept.iter().enumerate() {
            copy.method_ids[m as usize] = Some(new as MethodId);
        }
        let declared: Vec<RefId> = (0..self.refs.len() as RefId)
            .filter(|&r| refs[r as usize] && !matches!(self.store[r as usize], Initial::Absent))
            .collect();
        for &r in &declared {
            copy.reference(r);
        }
        let mut new_methods: Vec<Method> = kept
            .iter()
            .map(|&m| {
                let method = &self.methods[m as usize];
                Method {
                    name: method.name.clone(),
                    visibility: method.visibility,
                    code: copy.code(method.code),
                }
            })
            .collect();
        let mut method_spans: Vec<_> = kept
            .iter()
            .map(|&m| self.method_spans[m as usize].clone())
            .collect();
        let mut ill_typed: Vec<bool> = kept.iter().map(|&m| self.ill_typed[m as usize]).collect();
        let mut stand_in_ids = None;
        if let Some((names, unit, arrow)) = unit_to_unit {
            copy.codes.push(FunCode {
                name: Some(names.method.to_string()),
                param_ty: unit,
                ret_ty: unit,
                ty: arrow,
                recursive: false,
                body: Expr {
                    kind: ExprKind::Unit,
                    span: 0..0,
                },
                span: 0..0,
            });
            new_methods.push(Method {
                name: names.method.to_string(),
                visibility: Visibility::Public,
                code: (copy.codes.len() - 1) as CodeId,
            });
            method_spans.push(0..0);
            ill_typed.push(false);
            stand_in_ids = Some((
                (new_methods.len() - 1) as MethodId,
                (imports.len() - 1) as ImportId,
            ));
        }
        // Declared references have the first ids; the others were only ever assigned.
        let mut store: Vec<Initial> = declared
            .iter()
            .map(|&r| copy.initial(&self.store[r as usize]))
            .collect();
        store.resize(copy.refs.len(), Initial::Absent);
        let public = Library::public_of(&new_methods);
        let mut ref_declared: Vec<bool> = declared
            .iter()
            .map(|&r| self.ref_declared[r as usize])
            .collect();
        ref_declared.resize(copy.refs.len(), false);
        let types_use_refs = imports.iter().any(|i| copy.types.mentions_ref(i.ty))
            || copy
                .codes
                .iter()
                .any(|c| copy.types.mentions_ref(c.param_ty) || copy.types.mentions_ref(c.ret_ty));
        let undeclared = copy.undeclared.into_vec();
        // The names of the cells the kept methods allocate, in the order a rebuild meets
        // them.
        let cell_names = (self.cell_names.iter())
            .filter(|(span, _)| {
                (method_spans.iter()).any(|m| m.start <= span.start && span.end <= m.end)
            })
            .cloned()
            .collect();
        let library = Library {
            may_get_stuck: Library::may_get_stuck_with(&undeclared, &store, &ill_typed),
            uses_refs: types_use_refs || copy.uses_cells || ref_declared.iter().any(|&b| b),
            ill_typed,
            types: copy.types,
            codes: copy.codes,
            methods: new_methods,
            imports,
            refs: copy.refs,
            ref_declared,
            store,
            cells: copy.cells,
            cell_names,
            undeclared,
            public,
            method_spans,
        };
        (library, stand_in_ids)
    }
}

/// The renumbering copy: each table filled in the order the compiler fills it.
struct Copy<'a> {
    from: &'a Library,
    types: Types,
    type_ids: HashMap<TypeId, TypeId>,
    codes: Vec<FunCode>,
    method_ids: Vec<Option<MethodId>>,
    ref_ids: Vec<Option<RefId>>,
    refs: Vec<String>,
    undeclared: Names,
    cells: Vec<InitialCell>,
    /// Whether the kept code makes or uses a location.
    uses_cells: bool,
}

impl Copy<'_> {
    /// The new id of an old type, its parts interned first as the compiler does.
    fn ty(&mut self, old: TypeId) -> TypeId {
        if let Some(&id) = self.type_ids.get(&old) {
            return id;
        }
        let node = match self.from.types.node(old) {
            TypeNode::Unit => TypeNode::Unit,
            TypeNode::Int => TypeNode::Int,
            TypeNode::Bool => TypeNode::Bool,
            TypeNode::Ref(a) => TypeNode::Ref(self.ty(a)),
            TypeNode::List(a) => TypeNode::List(self.ty(a)),
            TypeNode::Pair(a, b) => TypeNode::Pair(self.ty(a), self.ty(b)),
            TypeNode::Arrow(a, b) => TypeNode::Arrow(self.ty(a), self.ty(b)),
        };
        let id = self.types.intern_node(node);
        self.type_ids.insert(old, id);
        id
    }

    fn reference(&mut self, old: RefId) -> RefId {
        if let Some(id) = self.ref_ids[old as usize] {
            return id;
        }
        let id = self.refs.len() as RefId;
        self.refs.push(self.from.refs[old as usize].clone());
        self.ref_ids[old as usize] = Some(id);
        id
    }

    fn undeclared(&mut self, name: &str) -> UndeclaredId {
        self.undeclared.id(name)
    }

    /// A global name as the restricted library resolves it: a method left out is an
    /// undeclared name (no import shares a method's name: E0301).
    fn global(&mut self, name: GlobalName) -> GlobalName {
        match name {
            GlobalName::Method(m) => match self.method_ids[m as usize] {
                Some(new) => GlobalName::Method(new),
                None => {
                    GlobalName::Undeclared(self.undeclared(&self.from.methods[m as usize].name))
                }
            },
            GlobalName::Import(i) => GlobalName::Import(i),
            GlobalName::Undeclared(u) => {
                GlobalName::Undeclared(self.undeclared(&self.from.undeclared[u as usize]))
            }
        }
    }

    /// Copies a code and the codes nested in it; the nested ones get their ids first.
    fn code(&mut self, old: CodeId) -> CodeId {
        let from = self.from;
        let code = from.code(old);
        let param_ty = self.ty(code.param_ty);
        let ret_ty = self.ty(code.ret_ty);
        let ty = self.ty(code.ty);
        let body = self.expr(&code.body);
        self.codes.push(FunCode {
            name: code.name.clone(),
            param_ty,
            ret_ty,
            ty,
            recursive: code.recursive,
            body,
            span: code.span.clone(),
        });
        (self.codes.len() - 1) as CodeId
    }

    /// Copies `e`, visiting its parts in the order the compiler compiles them.
    fn expr(&mut self, e: &Expr) -> Expr {
        let sub = |copy: &mut Self, e: &Expr| Box::new(copy.expr(e));
        let kind = match &e.kind {
            ExprKind::Local(i) => ExprKind::Local(*i),
            ExprKind::Global(name) => ExprKind::Global(self.global(*name)),
            ExprKind::Int(i) => ExprKind::Int(i.clone()),
            ExprKind::Unit => ExprKind::Unit,
            ExprKind::Diverge => ExprKind::Diverge,
            ExprKind::Deref(r) => ExprKind::Deref(self.reference(*r)),
            ExprKind::Assign(r, a) => {
                let r = self.reference(*r);
                ExprKind::Assign(r, sub(self, a))
            }
            ExprKind::Alloc(a, ty) => {
                self.uses_cells = true;
                let ty = ty.map(|t| self.ty(t));
                ExprKind::Alloc(sub(self, a), ty)
            }
            ExprKind::Load(a) => {
                self.uses_cells = true;
                ExprKind::Load(sub(self, a))
            }
            ExprKind::Store(a, b) => {
                self.uses_cells = true;
                let a = sub(self, a);
                ExprKind::Store(a, sub(self, b))
            }
            ExprKind::App(a, b) => {
                let a = sub(self, a);
                ExprKind::App(a, sub(self, b))
            }
            ExprKind::Pair(a, b) => {
                let a = sub(self, a);
                ExprKind::Pair(a, sub(self, b))
            }
            ExprKind::Nil => ExprKind::Nil,
            ExprKind::Cons(a, b) => {
                let a = sub(self, a);
                ExprKind::Cons(a, sub(self, b))
            }
            ExprKind::Match(a, b, c) => {
                let a = sub(self, a);
                let b = sub(self, b);
                ExprKind::Match(a, b, sub(self, c))
            }
            ExprKind::Fst(a) => ExprKind::Fst(sub(self, a)),
            ExprKind::Snd(a) => ExprKind::Snd(sub(self, a)),
            ExprKind::Not(a) => ExprKind::Not(sub(self, a)),
            ExprKind::Binary(op, a, b) => {
                let a = sub(self, a);
                ExprKind::Binary(*op, a, sub(self, b))
            }
            ExprKind::Seq(a, b) => {
                let a = sub(self, a);
                ExprKind::Seq(a, sub(self, b))
            }
            ExprKind::If(c, t, f) => {
                let c = sub(self, c);
                let t = sub(self, t);
                ExprKind::If(c, t, sub(self, f))
            }
            ExprKind::Let(a, b) => {
                let a = sub(self, a);
                ExprKind::Let(a, sub(self, b))
            }
            ExprKind::LetRec(code, body) => {
                let code = self.code(*code);
                ExprKind::LetRec(code, sub(self, body))
            }
            ExprKind::Lambda(code) => ExprKind::Lambda(self.code(*code)),
            ExprKind::Assert(a) => ExprKind::Assert(sub(self, a)),
        };
        Expr {
            kind,
            span: e.span.clone(),
        }
    }

    /// A kept reference's initial content; the cells it holds are copied in pre-order,
    /// as the build allocates them.
    fn initial(&mut self, old: &Initial) -> Initial {
        match old {
            Initial::Int(i) => Initial::Int(i.clone()),
            Initial::Name(name) => Initial::Name(self.global(*name)),
            Initial::Absent => Initial::Absent,
            Initial::Unit => Initial::Unit,
            Initial::Nil => Initial::Nil,
            Initial::Pair(a, b) => {
                Initial::Pair(Box::new(self.initial(a)), Box::new(self.initial(b)))
            }
            Initial::Loc(n) => {
                let cell = &self.from.cells[*n as usize];
                let new = self.cells.len();
                let ty = cell.ty.map(|t| self.ty(t));
                self.cells.push(InitialCell {
                    ty,
                    content: Initial::Unit,
                });
                self.cells[new].content = self.initial(&cell.content);
                Initial::Loc(new as u32)
            }
        }
    }
}
