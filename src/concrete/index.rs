//! Name lookups into one program, built once.
//!
//! Linking, client synthesis, replay and the interpreter all ask "is `m` a public method
//! of the library, at which type?" or "what does the name `r` denote?". Answering by
//! scanning the declarations made replaying the counterexamples of a large library
//! quadratic (each of N counterexamples scanned or copied all N methods), so replay
//! builds this index once per library and every later step looks names up in it.
//!
//! The index also answers which named `!x` and `x := e` go through a local holding a
//! location (`lang/references.md` §1.4), from the checker's [`Resolution`], computed only
//! for a program that mentions references.

use crate::syntax::ast::{Decl, Expr, Import, MethodDecl, Program, Visibility};
use crate::types::{self, Resolution};
use std::collections::HashMap;

/// A program with its methods, references and imports indexed by name. When a name is
/// declared twice (which the type checker rejects), the first declaration counts.
#[derive(Debug)]
pub struct ProgramIndex<'p> {
    pub program: &'p Program,
    methods: HashMap<&'p str, &'p MethodDecl>,
    references: HashMap<&'p str, &'p Decl>,
    imports: HashMap<&'p str, &'p Import>,
    resolution: Option<Resolution<'p>>,
}

impl<'p> ProgramIndex<'p> {
    pub fn new(program: &'p Program) -> ProgramIndex<'p> {
        let mut methods = HashMap::new();
        let mut references = HashMap::new();
        for decl in &program.decls {
            let name = decl.name().name.as_str();
            match decl {
                Decl::Method(m) => {
                    methods.entry(name).or_insert(m);
                }
                Decl::IntRef { .. } | Decl::FunRef { .. } | Decl::RefDecl { .. } => {
                    references.entry(name).or_insert(decl);
                }
            }
        }
        let mut imports = HashMap::new();
        for import in &program.imports {
            imports.entry(import.name.name.as_str()).or_insert(import);
        }
        ProgramIndex {
            program,
            methods,
            references,
            imports,
            resolution: crate::references::mentions(program).then(|| types::resolve(program)),
        }
    }

    /// Whether `e`, a named `!x` or `x := e` of this program, reads or writes through the
    /// local `x` rather than the global reference `x`.
    pub fn through_local(&self, e: &Expr) -> bool {
        self.resolution.as_ref().is_some_and(|r| r.is_local(e))
    }

    /// The method declared under `name`, public or private.
    pub fn method(&self, name: &str) -> Option<&'p MethodDecl> {
        self.methods.get(name).copied()
    }

    /// The public method declared under `name`.
    pub fn public_method(&self, name: &str) -> Option<&'p MethodDecl> {
        self.method(name)
            .filter(|m| m.visibility == Visibility::Public)
    }

    /// The `int`, `fun` or `ref` reference declared under `name`.
    pub fn reference(&self, name: &str) -> Option<&'p Decl> {
        self.references.get(name).copied()
    }

    pub fn import(&self, name: &str) -> Option<&'p Import> {
        self.imports.get(name).copied()
    }

    /// Whether the program declares or imports `name`.
    pub fn names(&self, name: &str) -> bool {
        self.methods.contains_key(name)
            || self.references.contains_key(name)
            || self.imports.contains_key(name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frontend::load_str;

    #[test]
    fn lookups_distinguish_kinds_and_visibility() {
        let program = match load_str(
            "t.holi",
            "import cb :(int -> int)
             int r := 1;
             private p (x:int) :(int) = { x };
             public m (x:int) :(int) = { cb(x) };",
            false,
        ) {
            Ok(l) => l.program,
            Err(r) => panic!("{}", r.render(false)),
        };
        let index = ProgramIndex::new(&program);
        assert!(index.public_method("m").is_some());
        assert!(index.public_method("p").is_none());
        assert!(index.method("p").is_some());
        assert!(index.reference("r").is_some());
        assert!(index.import("cb").is_some());
        assert!(["m", "p", "r", "cb"].iter().all(|n| index.names(n)));
        assert!(!index.names("x"));
    }
}
