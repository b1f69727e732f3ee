//! Linking a library with a client (paper Definition 3).
//!
//! The two must be *compatible*: the client's imports are public methods of the library
//! (at the declared types), every library import is implemented by a public method of the
//! client and every public client method implements one (complementation), and the two
//! define disjoint references (disjoint state) and disjoint methods (method ownership).
//! The client may import only the library methods it uses. Violations are diagnostics
//! pointing at both files. The linked program itself is [`Linked`]: names stay per side
//! and imports resolve across, which for compatible programs is the composition `L̂; Ĉ`.
//!
//! Every check looks names up in [`ProgramIndex`]es, so linking costs time in the size
//! of the client (and the library's imports), not of the library: replay links one
//! client per counterexample.

use crate::concrete::{Linked, ProgramIndex};
use crate::diagnostics::Diagnostic;
use crate::syntax::ast::{Decl, MethodDecl, Program, Visibility};

/// Source file names, for diagnostics.
#[derive(Clone, Copy, Debug)]
pub struct Files<'a> {
    pub library: &'a str,
    pub client: &'a str,
}

fn methods(program: &Program) -> impl Iterator<Item = &MethodDecl> {
    program.decls.iter().filter_map(|d| match d {
        Decl::Method(m) => Some(m),
        _ => None,
    })
}

fn references(program: &Program) -> impl Iterator<Item = &Decl> {
    program.decls.iter().filter(|d| {
        matches!(
            d,
            Decl::IntRef { .. } | Decl::FunRef { .. } | Decl::RefDecl { .. }
        )
    })
}

/// Checks Definition 3 and returns the linked program, or every violation found.
pub fn link<'p>(
    library: &'p Program,
    client: &'p Program,
    files: Files<'_>,
) -> Result<Linked<'p>, Vec<Diagnostic>> {
    compatible(
        &ProgramIndex::new(library),
        &ProgramIndex::new(client),
        files,
    )?;
    Ok(Linked {
        library: Some(library),
        client,
    })
}

/// Checks Definition 3 on indexed programs: `Ok` when they link, else every violation.
pub fn compatible(
    library_index: &ProgramIndex<'_>,
    client_index: &ProgramIndex<'_>,
    files: Files<'_>,
) -> Result<(), Vec<Diagnostic>> {
    let (library, client) = (library_index.program, client_index.program);
    let mut errors = Vec::new();
    if let Some(main) = &library.main {
        errors.push(
            Diagnostic::error("E0701", "the library has a `main`")
                .with_label(
                    files.library,
                    main.span.clone(),
                    "a library has no main body",
                )
                .with_hint("pass the library first and the client (with `main`) second"),
        );
    }
    if client.main.is_none() {
        errors.push(
            Diagnostic::error("E0702", "the client has no `main`")
                .with_label(files.client, 0..0, "add `main = { … };` to run this client")
                .with_hint("a client is a library plus one item `main = { M };`"),
        );
    }
    for import in &client.imports {
        match library_index.public_method(&import.name.name) {
            None => errors.push(
                Diagnostic::error(
                    "E0703",
                    format!(
                        "the client imports `{}`, which is not a public method of the library",
                        import.name.name
                    ),
                )
                .with_label(files.client, import.name.span.clone(), "imported here")
                .with_hint(public_list(library)),
            ),
            Some(m) if m.func.ty() != import.ty => errors.push(
                Diagnostic::error(
                    "E0704",
                    format!("`{}` is imported at the wrong type", import.name.name),
                )
                .with_label(
                    files.client,
                    import.ty_span.clone(),
                    format!("the client expects `{}`", import.ty),
                )
                .with_label(
                    files.library,
                    m.name.span.clone(),
                    format!("the library defines `{}`", m.func.ty()),
                ),
            ),
            Some(_) => {}
        }
    }
    for import in &library.imports {
        match client_index.public_method(&import.name.name) {
            None => errors.push(
                Diagnostic::error(
                    "E0705",
                    format!(
                        "the library imports `{}`, but the client has no public method of that name",
                        import.name.name
                    ),
                )
                .with_label(files.library, import.name.span.clone(), "imported here")
                .with_hint(format!(
                    "add `public {} (x:…) :(…) = {{ … }};` to the client",
                    import.name.name
                )),
            ),
            Some(m) if m.func.ty() != import.ty => errors.push(
                Diagnostic::error(
                    "E0706",
                    format!("the client implements `{}` at the wrong type", import.name.name),
                )
                .with_label(
                    files.client,
                    m.name.span.clone(),
                    format!("the client defines `{}`", m.func.ty()),
                )
                .with_label(
                    files.library,
                    import.ty_span.clone(),
                    format!("the library expects `{}`", import.ty),
                ),
            ),
            Some(_) => {}
        }
    }
    for m in methods(client) {
        if m.visibility == Visibility::Public && library_index.import(&m.name.name).is_none() {
            errors.push(
                Diagnostic::error(
                    "E0707",
                    format!(
                        "the client's public method `{}` is not imported by the library",
                        m.name.name
                    ),
                )
                .with_label(files.client, m.name.span.clone(), "public here")
                .with_hint(
                    "a client's public methods implement the library's imports; make it `private`",
                ),
            );
        }
        if let Some(lib) = library_index.method(&m.name.name) {
            errors.push(
                Diagnostic::error(
                    "E0708",
                    format!("both library and client define a method `{}`", m.name.name),
                )
                .with_label(files.client, m.name.span.clone(), "defined by the client")
                .with_label(files.library, lib.name.span.clone(), "and by the library")
                .with_hint("the methods of a library and its client must be disjoint"),
            );
        }
    }
    for r in references(client) {
        if let Some(lib) = library_index.reference(&r.name().name) {
            errors.push(
                Diagnostic::error(
                    "E0709",
                    format!(
                        "both library and client declare a reference `{}`",
                        r.name().name
                    ),
                )
                .with_label(
                    files.client,
                    r.name().span.clone(),
                    "declared by the client",
                )
                .with_label(files.library, lib.name().span.clone(), "and by the library")
                .with_hint("the references of a library and its client must be disjoint"),
            );
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

fn public_list(library: &Program) -> String {
    let names: Vec<String> = methods(library)
        .filter(|m| m.visibility == Visibility::Public)
        .map(|m| format!("`{}`", m.name.name))
        .collect();
    if names.is_empty() {
        "the library has no public methods".to_string()
    } else {
        format!("the library's public methods are {}", names.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frontend::load_str;

    fn program(src: &str) -> Program {
        match load_str("t.holi", src, false) {
            Ok(l) => l.program,
            Err(r) => panic!("{}", r.render(false)),
        }
    }

    const FILES: Files<'static> = Files {
        library: "lib.holi",
        client: "client.holi",
    };

    fn codes(library: &str, client: &str) -> Vec<&'static str> {
        let (l, c) = (program(library), program(client));
        match link(&l, &c, FILES) {
            Ok(_) => Vec::new(),
            Err(errors) => errors.iter().map(|d| d.code).collect(),
        }
    }

    const LIB: &str = "import send :(int -> unit)
        public withdraw (x:int) :(unit) = { send(x) };
        public deposit (x:int) :(unit) = { () };";

    #[test]
    fn compatible_programs_link_and_may_import_a_subset() {
        let client = "import withdraw :(int -> unit)
            public send (x:int) :(unit) = { () };
            main = { withdraw(1) };";
        assert_eq!(codes(LIB, client), Vec::<&str>::new());
    }

    #[test]
    fn types_must_agree_across_the_boundary() {
        let client = "import withdraw :(unit -> unit)
            public send (x:unit) :(unit) = { () };
            main = { withdraw() };";
        assert_eq!(codes(LIB, client), ["E0704", "E0706"]);
    }

    #[test]
    fn public_client_methods_implement_imports_only() {
        let client = "public send (x:int) :(unit) = { () };
            public extra (x:int) :(unit) = { () };
            main = { () };";
        assert_eq!(codes(LIB, client), ["E0707"]);
    }

    #[test]
    fn a_library_with_main_is_not_a_library() {
        let library = "public f (x:unit) :(unit) = { () }; main = { f() };";
        let client = "main = { () };";
        assert_eq!(codes(library, client), ["E0701"]);
    }
}
