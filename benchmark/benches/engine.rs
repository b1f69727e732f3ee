//! Micro-benchmarks of the engine's hot paths (criterion; `cargo bench -p holi-bench`).
//!
//! * `check/*`: a whole `holi::symbolic::check` on small fixed libraries, with criterion's
//!   throughput set to the run's configuration count, so the reported elements/s is the
//!   engine's rate of steps (configurations taken from the worklist) on that library.
//! * `step/*`: single engine operations on a library's initial configuration: the client's
//!   branching into every opponent move, and one internal run (`machine::run`) from the
//!   client's first call to the next stop.
//! * `branch/clone_and_assume`: what a symbolic `if` costs besides the solver: cloning a
//!   configuration with a 30-conjunct path condition and adding one conjunct.
//! * `solver/*`: one Z3 satisfiability query on a 10-conjunct path condition, on a warm
//!   incremental solver (the path already asserted) and on a fresh one.

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use holi::library;
use holi::symbolic::config::Config;
use holi::symbolic::solver::{Answer, Solver};
use holi::symbolic::term::{Term, Witness};
use holi::symbolic::Bounds;
use holi::symbolic::{check, machine, moves, CheckOptions};
use holi::syntax::ast::{BinOp, Program};
use std::hint::black_box;
use std::sync::Arc;

/// Pitts and Stark's awkward example (Appendix A): reentrancy through a callback.
const AWKWARD: &str = "# set-bounds 2 1 #
int x := 0;
public run (f:unit->unit) :(unit) = { x := 0; f(); x := !x + 1; f(); assert(!x == 1) };
";

/// The DAO withdraw of the paper's introduction.
const DAO: &str = "# set-bounds 3 2 #
import send :(int -> unit)
int balance := 100;
public withdraw (m:int) :(unit) = {
  if (not (!balance < m))
  then send(m); balance := !balance - m; assert(not(!balance < 0))
  else ()};
";

/// Symbolic arithmetic and branching on client integers, no callbacks.
const COUNTER: &str = "# set-bounds 3 2 #
int c := 0;
int total := 0;
public add (n:int) :(unit) = { if (n < 0) then () else (total := !total + n; c := !c + 1) };
public check (u:unit) :(unit) = { if (!c == 2) then assert(not(!total == 7)) else () };
";

fn program(name: &str, source: &str) -> Program {
    match holi::frontend::load_str(name, source, false) {
        Ok(loaded) => loaded.program,
        Err(rejected) => panic!("{name} does not load:\n{}", rejected.render(false)),
    }
}

fn options(k: u32, l: u32) -> CheckOptions {
    CheckOptions {
        bounds: Bounds { k, l },
        ..CheckOptions::default()
    }
}

fn bench_check(c: &mut Criterion) {
    let mut group = c.benchmark_group("check");
    for (name, source, k, l) in [
        ("awkward_k2_l1", AWKWARD, 2, 1),
        ("dao_k3_l1", DAO, 3, 1),
        ("counter_k3_l2", COUNTER, 3, 2),
    ] {
        let lib = library::build(&program(name, source));
        let opts = options(k, l);
        let configurations = check(&lib, &opts).stats.configurations;
        group.throughput(Throughput::Elements(configurations));
        group.bench_function(name, |b| b.iter(|| check(black_box(&lib), &opts)));
    }
    group.finish();
}

fn bench_step(c: &mut Criterion) {
    let program = program("counter", COUNTER);
    let lib = library::build(&program);
    let start = Config::initial(&lib, 3, 2);
    let mut group = c.benchmark_group("step");
    group.bench_function("opponent_moves", |b| {
        b.iter(|| {
            let skipped = &mut Default::default();
            moves::opponent_moves(black_box(&start), &lib, true, None, None, None, skipped)
        })
    });
    let first_call = moves::opponent_moves(
        &start,
        &lib,
        true,
        None,
        None,
        None,
        &mut Default::default(),
    )
    .into_iter()
    .next()
    .expect("the client can call a method");
    group.bench_function("machine_run_to_stop", |b| {
        b.iter_batched(
            || first_call.clone(),
            |mut cfg| {
                let stop = machine::run(&mut cfg, &lib);
                black_box(&stop);
            },
            BatchSize::SmallInput,
        )
    });
    group.finish();
}

/// `x1 < x2 + i` for i in 0..n, each assumed true: a satisfiable path condition.
fn path_condition(cfg: &mut Config, n: u32) {
    let (x1, x2) = (Term::sym(1), Term::sym(2));
    for i in 0..n {
        let bound = Term::binary(BinOp::Add, &x2, &Term::Const(i.into())).expect("no division");
        let cond = Term::binary(BinOp::Lt, &x1, &bound).expect("no division");
        let witness = Arc::clone(&cfg.witness);
        cfg.assume(cond, true, witness);
    }
    cfg.next_sym = 2;
}

fn bench_branch(c: &mut Criterion) {
    let program = program("counter", COUNTER);
    let lib = library::build(&program);
    let mut cfg = Config::initial(&lib, 3, 2);
    path_condition(&mut cfg, 30);
    let cond = Term::binary(BinOp::Lt, &Term::sym(2), &Term::sym(1)).expect("no division");
    let witness = Arc::new(Witness::default());
    c.bench_function("branch/clone_and_assume", |b| {
        b.iter(|| {
            let mut other = black_box(&cfg).clone();
            other.assume(cond.clone(), false, Arc::clone(&witness));
            other
        })
    });
}

fn bench_solver(c: &mut Criterion) {
    let program = program("counter", COUNTER);
    let lib = library::build(&program);
    let mut cfg = Config::initial(&lib, 3, 2);
    path_condition(&mut cfg, 10);
    // x2 < x1 + 5: satisfiable with the path condition (x2 = x1 + 1).
    let shifted =
        Term::binary(BinOp::Add, &Term::sym(1), &Term::Const(5.into())).expect("no division");
    let cond = Term::binary(BinOp::Lt, &Term::sym(2), &shifted).expect("no division");
    let mut group = c.benchmark_group("solver");
    let mut warm = Solver::new();
    assert!(matches!(
        warm.check(&cfg.pc, &cond, true, 2, None),
        Answer::Sat(_)
    ));
    group.bench_function("query_incremental", |b| {
        b.iter(|| {
            matches!(
                warm.check(black_box(&cfg.pc), &cond, true, 2, None),
                Answer::Sat(_)
            )
        })
    });
    group.bench_function("query_fresh_solver", |b| {
        b.iter(|| {
            let mut solver = Solver::new();
            matches!(
                solver.check(black_box(&cfg.pc), &cond, true, 2, None),
                Answer::Sat(_)
            )
        })
    });
    group.finish();
}

criterion_group!(benches, bench_check, bench_step, bench_branch, bench_solver);
criterion_main!(benches);
