//! holi: a bounded model checker for higher-order, stateful libraries.
//!
//! Given a library written in HOLi (the language of Lin and Tzevelekos, *Symbolic
//! Execution Game Semantics*), holi plays the library (the proponent) against every
//! possible client (the opponent) up to two bounds, looking for a sequence of calls and
//! returns across the library's boundary that ends in a failing `assert`. Each failing
//! trace comes with concrete values from Z3 and a synthesized client that replays it.
//!
//! # Architecture
//!
//! The pipeline, one module per stage, in the order data flows through it:
//!
//! | stage | module | in → out |
//! |---|---|---|
//! | lexing, parsing | [`syntax`] ([`syntax::lexer`], [`syntax::parser`], [`syntax::ast`]) | source text → [`syntax::ast::Program`] with spans |
//! | checking | [`types`], driven by [`frontend`] | AST → warnings and errors ([`diagnostics::Diagnostic`]), and how `!x`/`x := e` resolve |
//! | uses of references | [`references`] | AST → whether (and where first) it uses references: the build's `uses_refs`, the interpreter's resolution of `!x` |
//! | printing | [`syntax::printer`] | AST → canonical HOLi (also for synthesized clients) |
//! | library build | [`library`] ([`library::ir`]) | AST → repository, store, public names P, abstract names A, bodies compiled to the IR; the parts of a library made from it |
//! | concrete semantics | [`concrete`], [`link`] | a closed client, or a library linked with a client → outcome and boundary moves |
//! | symbolic semantics | [`symbolic`] ([`symbolic::options`] what a check is asked, in four parts, [`symbolic::brief`] what each search is given, [`symbolic::machine`], [`symbolic::moves`], [`symbolic::solver`], [`symbolic::worker`], [`symbolic::plan`], [`symbolic::game`] what is played, [`symbolic::product`] two libraries played in lockstep, [`symbolic::compare`] searched for a difference, [`symbolic::explore`] how it is searched, [`symbolic::step`], [`symbolic::tasks`] and [`symbolic::race`] on one scheduler, [`symbolic::shares`] one search cut across machines, [`symbolic::market`], [`symbolic::outcome`] what it answers, the verdict decided there) | build → failing traces with Z3 models |
//! | proofs beyond the bounds | [`proof`] | build + invariant → proved for every k and l, or why not (`lang/proofs.md`; `check` tries it after a safe search, or beside a search still running after 3 s or from the start under `--prove`) |
//! | traces and reports | [`trace`], [`report`], [`sarif`] | engine results → text, JSON (`lang/check-output.schema.json`) and SARIF 2.1.0 |
//! | pictures of traces | [`calltree`], [`diagram`], [`html`] | trace → frames and call tree (text report) → SVG sequence diagram → self-contained HTML page (`--report`) |
//! | client synthesis, replay | [`client`], [`replay`] | counterexample → HOLi client → confirmed by the concrete interpreter |
//! | the check pipeline | [`check`] | loaded library + request → search result, proof scope, replayed clients: one function for the CLI and the language server |
//! | reading Hobbit's files | [`hobbit`] ([`hobbit::translate`]) | `.bils` source → two expressions with inferred types → two HOLi libraries, for `equiv` |
//! | the equivalence pipeline | [`equiv`] ([`equiv::Deepening`] the bounds a deepening comparison tries) | two loaded libraries + request → equivalent within the bounds, or a shortest difference with the client that shows it, run on each side |
//! | the language server | [`lsp`] | an editor's messages over stdio → diagnostics as you type; the check in the background (through [`check`]) with a state per `assert`, lenses, commands and hover; formatting, symbols, go to definition (`lang/editors.md`); the VS Code extension is `editors/vscode/` |
//! | command line | [`cli`] | arguments → a request, the pipeline, a report → exit code; a run's share of the files as a part, parts merged into the run's report ([`cli::shard`], `lang/shards.md`) |
//!
//! Integer operators have exactly one definition, [`ops`], which both evaluators use; the
//! fingerprints written to files have one hash, [`fnv`].
//!
//! # Invariants
//!
//! * **User input never panics.** Every problem in a file or an argument becomes a
//!   [`diagnostics::Diagnostic`] (plain data: severity, stable code, title, labelled spans,
//!   hint) that points at the exact source span; the CLI renders it with ariadne and exits
//!   with code 2. Stages return diagnostics; they never print.
//! * **The AST is never rewritten.** Later stages compile it (the library stage into
//!   [`library::ir`], the interpreter into its own machine code) and keep the spans, so
//!   every failure points back at the source. Parentheses are not nodes; the printer puts
//!   back the fewest that keep the tree, and `parse(print(ast))` is the same tree.
//! * **One meaning for every operator.** [`ops::apply`] is the concrete semantics of each
//!   operator (mathematical integers, division truncating toward zero, `x / 0` a failure of
//!   its own); the engine's Z3 encoding is tested against it.
//! * **Bounds are HOLiK's, exactly.** `k` counts open library frames (every application of
//!   a library-owned function, including the client's call into a public method), `l` the
//!   client's calls per context (refreshed at each library call to the client). Results
//!   are therefore comparable with HOLiK's cell by cell (`lang/semantics.md`).
//! * **References are names that cross the boundary only in moves.** A location is
//!   disclosed when it is part of a move's value or lies in a disclosed cell the library
//!   wrote; at each client turn every disclosed cell may hold the client's choice (made
//!   lazily, when the library next reads the cell; `holi equiv` makes it at the turn, so
//!   that its two sides read one write), and wherever the client supplies a
//!   reference it is a fresh one or one it knows. `==` on locations compares names and
//!   never reaches the solver. A library without `ref` never creates a location: its
//!   search is exactly the one of HOLiK's fragment (`tests/search_statistics.rs`).
//! * **Configurations are persistent.** Sibling branches of the search share store,
//!   repository, continuation and path condition structurally; branching is cheap and
//!   nothing is deep-copied per step.
//! * **The solver is incremental and honest.** One Z3 solver per search mirrors the path
//!   condition of the configuration being explored; a query Z3 cannot decide makes the
//!   verdict inconclusive, never safe or unsafe. Nonlinear queries go to a child
//!   process ([`symbolic::worker`]) that is killed at any limit, because Z3's nonlinear
//!   procedure may ignore an interrupt; quantifier elimination, which can run for
//!   minutes, leaves a context answering wrongly once interrupted, and crashes the
//!   process when interrupted beside other threads' Z3 work (Z3 4.8.12), runs in a
//!   thread with a Z3 context of its own, abandoned (never interrupted) at the limit,
//!   and a few abandoned ones still running refuse new projections instead of waiting:
//!   every limit holds in every query.
//! * **Pruning keeps every failure site and its minimal length.** The default search
//!   skips client turns subsumed by explored ones ([`symbolic::memo`]: equal up to
//!   renaming, or with values inside explored regions of the same shape, with budgets
//!   no larger and no failure below them to shorten; references whose contents nothing
//!   observes, [`symbolic::inert`], left out of the comparison), calls one of several
//!   interchangeable revealed closures, makes no client call that nothing after it
//!   could read from, nor a last one that could not shorten a failing trace found
//!   ([`symbolic::relevance`]), and, once every failure site in live code
//!   ([`library::Library::live_codes`]) has a trace, cuts traces as long as the longest
//!   of them (branch and bound). A library of independent parts may be checked part
//!   by part ([`symbolic::split`]) only where a lower and an upper bound per site
//!   meet (a part that touches no state and sees no function of the client's is its
//!   own bound); otherwise it is searched whole. The whole search and the split, each with
//!   and without semantic subsumption, race ([`symbolic::race`]), decided by
//!   counted work only (configurations by the size of their path conditions, solver
//!   operations by kind, [`symbolic::lane`]), so the report is the same for every
//!   `--jobs` and any timing (`tests/race.rs`); the whole search runs as tasks on
//!   several threads, each a function of its configurations and of what the tasks a
//!   fixed window before it committed ([`symbolic::tasks`], `tests/tasks.rs`); tasks and
//!   the race's sides run on one job market ([`symbolic::market`]). Across machines the
//!   search is cut into lanes that share nothing, each a function of its configurations
//!   and the first task, so the merged report is the same for every number of shards
//!   ([`symbolic::shares`], `tests/shards_one_search.rs`). A site
//!   is left out of a part's searches only when it lies outside live code or an
//!   over-approximation of every client ([`symbolic::overapprox::havoc`], searched by
//!   [`symbolic::overapprox::houdini`]) does not reach it; a library of one part whose sites it
//!   reaches none of needs no search. Each
//!   rule is argued where it is implemented and checked against the plain search
//!   (`tests/differential.rs`, which also checks that the over-approximation reaches
//!   every site the library reaches); `--all` never prunes.
//! * **The pipeline runs one way.** No module of the crate imports, directly or through
//!   others, one that imports it, a parent included: what a parent's children share
//!   lives in a module of its own ([`symbolic::options`], [`symbolic::outcome`],
//!   [`cli::exit`]), never in the parent that dispatches to them
//!   (`tests/module_graph.rs`).
//! * **The explorer plays a game, not a library.** [`symbolic::explore`] knows a game
//!   only through [`symbolic::game::Game`] (its start, one step of a configuration,
//!   what its paths are to the library): the library's own game, with the split's
//!   stand-in or without, and the over-approximation of every client
//!   ([`symbolic::overapprox::turn::Overapproximation`], the library's game with its
//!   own client turn) and the product of two libraries ([`symbolic::product`], whose
//!   configurations are pairs: the game names its configuration type) are searched by
//!   the same explorer, which imports none of them but the library's own game.
//! * **The engine reads a built library, never source.** A check builds its
//!   [`library::Library`] once from the checked AST ([`library::build()`]); the search
//!   and the proof attempt read that same library, and the split makes its parts, and
//!   the stand-in for the parts left out, in the IR ([`library::Library::restrict`],
//!   equal field for field to rebuilding the kept declarations,
//!   `tests/library_restrict.rs`). No module of [`symbolic`], nor the library's IR and
//!   restriction, reaches the front end, the parser, the type checker or the build
//!   (`tests/module_graph.rs`).
//! * **Output types are the engine's answer, read, not its insides.** [`trace`] holds
//!   the moves users see, and [`report`] renders the engine's answer
//!   ([`symbolic::outcome::CheckResult`]: verdict, counterexamples, statistics) with the
//!   proof's scope; neither reaches further into the engine (a counterexample carries
//!   the engine's failing path only opaquely, until the engine has chosen its values). Output is deterministic: counterexamples are sorted by length,
//!   then text, and each is shown with its path condition's least model
//!   ([`symbolic::values`]), whichever search found it.
//! * **Pictures are drawn from output types alone.** [`calltree`], [`diagram`] and
//!   [`html`] read [`trace`] and [`report`], never the engine; they draw every move of a
//!   trace exactly once, escape every text that comes from the library, and need no
//!   program nor network at run time (the page has no script and fetches nothing).
//! * **A counterexample is a demonstration.** By default every reported counterexample is
//!   turned into a client without asserts, printed, parsed again, linked with the library
//!   and run on the concrete interpreter, which must make the same moves and fail at the
//!   same place. A counterexample that does not replay is reported as a bug in holi (exit
//!   code 3), never dropped.
//!
//! The language reference is in `lang/`; the benchmark against HOLiK in `benchmark/`.

pub mod calltree;
pub mod check;
pub mod cli;
pub mod client;
pub mod concrete;
pub mod diagnostics;
pub mod diagram;
pub mod equiv;
pub mod fnv;
pub mod frontend;
pub mod hobbit;
pub mod html;
pub mod library;
pub mod link;
pub mod lsp;
pub mod ops;
pub mod proof;
pub mod references;
pub mod replay;
pub mod report;
pub mod sarif;
pub mod symbolic;
pub mod syntax;
pub mod trace;
pub mod types;
