//! Solver questions answered in a child process, so that a limit always stops them.
//!
//! Z3 4.8's nonlinear integer arithmetic (nlsat) does not look at its cancel flag in
//! parts of its work: `Z3_interrupt` can go unnoticed for tens of seconds, so neither
//! the per-query limit, nor the search's deadline, nor Ctrl-C would hold in-process. A
//! process can always be killed. [`super::solver::Solver`] sends the queries whose
//! assertions are nonlinear here (linear ones, nearly all, stay in-process and
//! incremental); the child answers one question at a time and is killed, and started
//! again for the next question, when a question must stop.
//!
//! Quantifier elimination (semantic subsumption's projections) runs apart too, in a
//! thread with a Z3 context of its own ([`QeThread`]): Z3 4.8.12's `qe` tactic can run
//! for minutes on a few linear conjuncts, and interrupting it in the search's context
//! leaves that context answering later queries wrongly.
//!
//! Protocol (one question at a time, text): the parent writes a line
//! `<number of names> <length of the query in bytes>`, a line with the names of the
//! symbols whose values it wants, separated by spaces, then the query: SMT-LIB 2
//! declarations and assertions as Z3 prints them. The child writes one line: `sat`
//! followed by one value per name (`_` for a symbol the model leaves free), `unsat`, or
//! `unknown` followed by Z3's reason. It exits when its input closes, even in the middle
//! of a question, so that it never outlives its parent.

use super::term::Witness;
use num_bigint::BigInt;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::os::unix::process::CommandExt;
use std::panic::AssertUnwindSafe;
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::str::FromStr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};
use z3::ast::{Ast, Bool, Int};
use z3::SatResult;

/// The (hidden) `holi` subcommand that runs [`serve`].
pub const COMMAND: &str = "solver-worker";

/// How often a question in progress looks at the user's interrupt flag.
const USER_POLL: Duration = Duration::from_millis(20);

/// How a question ended.
#[derive(Debug, PartialEq, Eq)]
pub enum Reply {
    /// The values of the asked names, `None` for those the model leaves free.
    Sat(Vec<Option<BigInt>>),
    Unsat,
    /// Z3 could not decide, or the child failed (the reason).
    Unknown(String),
    TimedOut,
    Interrupted,
}

/// The parent's end: the program to start and the child in use, if any.
pub struct Worker {
    program: PathBuf,
    running: Option<Running>,
}

struct Running {
    child: Child,
    stdin: ChildStdin,
    /// The child's reply lines; `None` once its output ends.
    replies: Receiver<Option<String>>,
    reader: Option<JoinHandle<()>>,
}

impl Worker {
    /// A worker that starts `program COMMAND` (normally `holi` itself) when first asked.
    pub fn new(program: PathBuf) -> Worker {
        Worker {
            program,
            running: None,
        }
    }

    /// Asks whether the assertions of `query` are satisfiable and, if so, the values of
    /// `names`. Past `deadline`, or once `user` is set, the child is killed and the
    /// answer is `TimedOut` or `Interrupted`.
    pub fn ask(
        &mut self,
        query: &str,
        names: &[String],
        deadline: Option<Instant>,
        user: Option<&AtomicBool>,
    ) -> Reply {
        let request = format!(
            "{} {}\n{}\n{query}",
            names.len(),
            query.len(),
            names.join(" ")
        );
        match self.exchange(&request, deadline, user) {
            Ok(line) => {
                let reply = parse_reply(&line, names.len());
                if matches!(reply, Reply::Unknown(_)) {
                    // The child may be in any state after a failure.
                    self.stop();
                }
                reply
            }
            Err(reply) => reply,
        }
    }

    /// Sends one request and waits for the reply line. Past `deadline`, or once `user`
    /// is set, the child is killed.
    fn exchange(
        &mut self,
        request: &str,
        deadline: Option<Instant>,
        user: Option<&AtomicBool>,
    ) -> Result<String, Reply> {
        if user.is_some_and(|f| f.load(Ordering::Relaxed)) {
            return Err(Reply::Interrupted);
        }
        let running = match self.start() {
            Ok(running) => running,
            Err(e) => {
                return Err(Reply::Unknown(format!(
                    "cannot start the solver process: {e}"
                )))
            }
        };
        let sent = running
            .stdin
            .write_all(request.as_bytes())
            .and_then(|()| running.stdin.flush());
        if let Err(e) = sent {
            self.stop();
            return Err(Reply::Unknown(format!("the solver process stopped: {e}")));
        }
        let Some(running) = &self.running else {
            return Err(Reply::Unknown("the solver process stopped".to_string()));
        };
        let waited = wait_for(&running.replies, deadline, user);
        match waited {
            Ok(Some(line)) => Ok(line),
            stopped => {
                self.stop();
                Err(match stopped {
                    Err(Stopped::Interrupted) => Reply::Interrupted,
                    Err(Stopped::TimedOut) => Reply::TimedOut,
                    _ => Reply::Unknown("the solver process ended unexpectedly".to_string()),
                })
            }
        }
    }

    /// The process id of the child, while one runs (between questions it is kept for
    /// the next one).
    pub fn process_id(&self) -> Option<u32> {
        self.running.as_ref().map(|r| r.child.id())
    }

    fn start(&mut self) -> io::Result<&mut Running> {
        if self.running.is_none() {
            let mut command = Command::new(&self.program);
            command
                .arg(COMMAND)
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::null())
                // Its own process group: a Ctrl-C at the terminal is the parent's to
                // handle (the parent kills the child), not a signal that kills the
                // child first and leaves the parent to guess why its answer is missing.
                .process_group(0);
            let mut child = command.spawn()?;
            let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
                let _ = child.kill();
                let _ = child.wait();
                return Err(io::Error::other("no pipe to the solver process"));
            };
            let (sender, replies) = mpsc::channel();
            let reader = std::thread::Builder::new()
                .name("holi-solver-replies".to_string())
                .spawn(move || {
                    for line in BufReader::new(stdout).lines() {
                        match line {
                            Ok(line) => {
                                if sender.send(Some(line)).is_err() {
                                    return;
                                }
                            }
                            Err(_) => break,
                        }
                    }
                    let _ = sender.send(None);
                });
            let reader = match reader {
                Ok(reader) => reader,
                Err(e) => {
                    let _ = child.kill();
                    let _ = child.wait();
                    return Err(e);
                }
            };
            self.running = Some(Running {
                child,
                stdin,
                replies,
                reader: Some(reader),
            });
        }
        self.running
            .as_mut()
            .ok_or_else(|| io::Error::other("no solver process"))
    }

    /// Kills the child (if any) and waits for it, so that no process is left behind.
    fn stop(&mut self) {
        if let Some(mut running) = self.running.take() {
            let _ = running.child.kill();
            let _ = running.child.wait();
            // The child is gone, so its output has ended and the reader returns.
            if let Some(reader) = running.reader.take() {
                let _ = reader.join();
            }
        }
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Projections in a thread with a Z3 context of its own. Formulas
/// cross between the contexts by translation (`Z3_translate`), not as text: reading
/// and printing SMT-LIB costs more than most projections. The search's own context
/// never runs a `qe`.
///
/// When a question must stop, its helper is abandoned, never interrupted: it is not
/// asked again, runs its `qe` to the end and then ends (its question channel is
/// closed). Z3 4.8.12 crashes (SIGSEGV inside `Z3_tactic_apply`) when a `qe` is
/// interrupted while other threads use Z3, each in a context of its own: a stress of
/// parallel cut projections crashed in 4 of 5 runs, while the same stress without
/// interrupts, interrupted `qe`s one thread at a time, and interrupted solver checks
/// in parallel never did. A search runs beside others (the race, the split's parts),
/// so no `qe` is ever interrupted.
///
/// An abandoned `qe` may run for minutes (10 conjuncts over 6 symbols in
/// `tests/projections.rs`) and hold a context that grows: while [`MAX_ABANDONED`] of
/// this `QeThread`'s own, or [`MAX_ABANDONED_IN_ALL`] of the process's, still run, no
/// helper is started, and a question that needs one is not asked ([`NoRegion::Busy`]).
/// That only means less subsumption, and a search never waits for a runaway `qe`.
/// Counting a search's own helpers first keeps what it prunes (and so the concrete
/// values of its traces) independent of other searches' timing, short of the
/// process-wide bound.
///
/// Each context is used by one thread at a time: the asking thread touches the
/// helper's context (translating into it, and out of it) only while the helper waits
/// for its next question, and the helper never touches the asker's.
#[derive(Default)]
pub struct QeThread {
    running: Option<Helper>,
    /// Z3's count of resources its helpers spent on the answers received, not yet
    /// taken ([`QeThread::take_spent`]).
    spent: u64,
    /// A token of each of its abandoned helpers, which holds a clone until it ends.
    left: Vec<Arc<()>>,
}

struct Helper {
    questions: Sender<RawAst>,
    /// The helper's answers: the region, in its context, or `None`; and Z3's count
    /// of resources spent on it.
    replies: Receiver<(Option<RawAst>, u64)>,
    context: RawContext,
    /// Kept when the helper is abandoned, to tell when it has ended.
    thread: JoinHandle<()>,
    /// Cloned into the helper's thread, dropped when it ends.
    alive: Arc<()>,
}

/// The abandoned projection helpers of the process that may still be running.
static ABANDONED: Abandoned = Abandoned::new();

/// How many abandoned helpers of one `QeThread` may run at once before it starts no
/// new one.
pub const MAX_ABANDONED: usize = 2;

/// How many abandoned helpers of the process may run at once before no `QeThread`
/// starts a new one.
pub const MAX_ABANDONED_IN_ALL: usize = 16;

/// Why [`QeThread::project`] gave no region.
#[derive(Debug, PartialEq, Eq)]
pub enum NoRegion {
    /// Z3 gave no quantifier-free formula, or the helper failed (the reason).
    Unknown(String),
    TimedOut,
    Interrupted,
    /// Not asked: [`MAX_ABANDONED`] abandoned helpers still run.
    Busy,
}

/// Threads left to end on their own.
struct Abandoned {
    threads: std::sync::Mutex<Vec<JoinHandle<()>>>,
}

impl Abandoned {
    const fn new() -> Abandoned {
        Abandoned {
            threads: std::sync::Mutex::new(Vec::new()),
        }
    }

    fn leave(&self, thread: JoinHandle<()>) {
        // A poisoned lock still holds a valid list: nothing panics while holding it.
        let mut threads = self.threads.lock().unwrap_or_else(|e| e.into_inner());
        threads.push(thread);
    }

    /// How many of the threads left are still running.
    fn running(&self) -> usize {
        let mut threads = self.threads.lock().unwrap_or_else(|e| e.into_inner());
        let (ended, running): (Vec<_>, Vec<_>) =
            threads.drain(..).partition(JoinHandle::is_finished);
        *threads = running;
        for thread in ended {
            // Ended: the join returns at once (a helper's panics are caught).
            let _ = thread.join();
        }
        threads.len()
    }
}

/// A Z3 context or term handed between threads under the discipline above.
struct RawContext(z3_sys::Z3_context);
struct RawAst(z3_sys::Z3_ast);

// SAFETY: see `QeThread`: a context is only used by one thread at a time, and a term
// only with its context.
unsafe impl Send for RawContext {}
unsafe impl Send for RawAst {}

impl QeThread {
    /// The quantifier-free equivalent of `formula` (in this thread's context), in the
    /// same context; stopped past `deadline` or once `user` is set, like
    /// [`Worker::ask`], its helper then abandoned.
    pub fn project(
        &mut self,
        formula: &Bool,
        deadline: Option<Instant>,
        user: Option<&AtomicBool>,
    ) -> Result<Bool, NoRegion> {
        if user.is_some_and(|f| f.load(Ordering::Relaxed)) {
            return Err(NoRegion::Interrupted);
        }
        let helper = self.start()?;
        let mine = formula.get_ctx().get_z3_context();
        let theirs = helper.context.0;
        // SAFETY: the helper waits for a question (see `QeThread`); the translation
        // is referenced until the helper has wrapped it.
        let question = unsafe {
            let Some(t) = z3_sys::Z3_translate(mine, formula.get_z3_ast(), theirs) else {
                return Err(NoRegion::Unknown(
                    "Z3 could not translate a formula".to_string(),
                ));
            };
            z3_sys::Z3_inc_ref(theirs, t);
            RawAst(t)
        };
        if helper.questions.send(question).is_err() {
            self.running = None;
            return Err(NoRegion::Unknown(
                "the projection thread stopped".to_string(),
            ));
        }
        let Some(helper) = &self.running else {
            return Err(NoRegion::Unknown(
                "the projection thread stopped".to_string(),
            ));
        };
        let reply = wait_for(&helper.replies, deadline, user);
        let reply = reply.map(|(region, spent)| {
            self.spent += spent;
            region
        });
        match reply {
            Ok(Some(RawAst(region))) => {
                // SAFETY: the helper has answered and waits for the next question;
                // `region` is referenced in its context until released here.
                unsafe {
                    let back = z3_sys::Z3_translate(theirs, region, mine);
                    let read = back.map(|b| Bool::wrap(formula.get_ctx(), b));
                    z3_sys::Z3_dec_ref(theirs, region);
                    read.ok_or_else(|| {
                        NoRegion::Unknown("Z3 could not translate a region".to_string())
                    })
                }
            }
            Ok(None) => Err(NoRegion::Unknown(
                "no confirmed quantifier-free result".to_string(),
            )),
            Err(Stopped::Interrupted) => {
                self.abandon();
                Err(NoRegion::Interrupted)
            }
            Err(Stopped::TimedOut) => {
                self.abandon();
                Err(NoRegion::TimedOut)
            }
            Err(Stopped::Gone) => {
                self.running = None;
                Err(NoRegion::Unknown(
                    "the projection thread stopped".to_string(),
                ))
            }
        }
    }

    /// The helper in use, or a new one unless [`MAX_ABANDONED`] abandoned helpers
    /// still run.
    fn start(&mut self) -> Result<&Helper, NoRegion> {
        if self.running.is_none() {
            self.left.retain(|alive| Arc::strong_count(alive) > 1);
            let own = self.left.len();
            if own >= MAX_ABANDONED || own + ABANDONED.running() >= MAX_ABANDONED_IN_ALL {
                return Err(NoRegion::Busy);
            }
            let (questions, asked) = mpsc::channel::<RawAst>();
            let (answer, replies) = mpsc::channel();
            let (context_of, context) = mpsc::channel();
            let alive = Arc::new(());
            let token = Arc::clone(&alive);
            let thread = std::thread::Builder::new()
                .name("holi-qe".to_string())
                .spawn(move || {
                    let _alive = token;
                    let ctx = z3::Context::thread_local();
                    let c = ctx.get_z3_context();
                    if context_of.send(RawContext(c)).is_err() {
                        return;
                    }
                    // Z3 counts resources per context; the answers are charged by
                    // what the count grew since the last one read.
                    let mut counted = 0;
                    for RawAst(question) in asked {
                        // Every term of this context is released before the answer is
                        // sent: after that, the asker may use the context.
                        let region = {
                            // SAFETY: the asker translated `question` into this context
                            // and referenced it once; the wrapper takes its own.
                            let formula = unsafe {
                                let formula = Bool::wrap(&ctx, question);
                                z3_sys::Z3_dec_ref(c, question);
                                formula
                            };
                            // A panic must not end this thread: its context would go
                            // with it while the asker may still translate into it. No
                            // region is the safe answer.
                            let (region, count) =
                                std::panic::catch_unwind(AssertUnwindSafe(|| {
                                    eliminate_quantifiers(&formula)
                                }))
                                .unwrap_or((None, None));
                            let spent = count.map_or(0, |n| n.saturating_sub(counted));
                            counted = count.unwrap_or(counted);
                            let region = region.map(|r| {
                                // SAFETY: a reference for the asker, who releases it.
                                unsafe { z3_sys::Z3_inc_ref(c, r.get_z3_ast()) };
                                RawAst(r.get_z3_ast())
                            });
                            (region, spent)
                        };
                        if answer.send(region).is_err() {
                            return;
                        }
                    }
                })
                .map_err(|e| NoRegion::Unknown(format!("cannot start a projection thread: {e}")))?;
            let context = context
                .recv()
                .map_err(|_| NoRegion::Unknown("the projection thread stopped".to_string()))?;
            self.running = Some(Helper {
                questions,
                replies,
                context,
                thread,
                alive,
            });
        }
        self.running
            .as_ref()
            .ok_or_else(|| NoRegion::Unknown("no projection thread".to_string()))
    }

    /// Z3's count of resources spent on the answers received since the last call: a
    /// measure of their work that does not depend on timing.
    pub fn take_spent(&mut self) -> u64 {
        std::mem::take(&mut self.spent)
    }

    /// Lets the helper go without interrupting it (see [`QeThread`]): it ends when its
    /// `qe` does, its channel being closed, and its context goes with it. Until then
    /// it counts against [`MAX_ABANDONED`].
    fn abandon(&mut self) {
        if let Some(Helper { thread, alive, .. }) = self.running.take() {
            ABANDONED.leave(thread);
            self.left.push(alive);
        }
    }

    /// How many abandoned helpers of the process are still inside Z3.
    pub fn abandoned_running() -> usize {
        ABANDONED.running()
    }
}

/// Why waiting for a reply ended without one.
enum Stopped {
    Interrupted,
    TimedOut,
    /// The other end is gone.
    Gone,
}

/// The next message on `replies`, waited for until `deadline`, looking at the user's
/// interrupt flag every [`USER_POLL`].
fn wait_for<T>(
    replies: &Receiver<T>,
    deadline: Option<Instant>,
    user: Option<&AtomicBool>,
) -> Result<T, Stopped> {
    loop {
        if user.is_some_and(|f| f.load(Ordering::Relaxed)) {
            return Err(Stopped::Interrupted);
        }
        let now = Instant::now();
        if deadline.is_some_and(|d| now >= d) {
            return Err(Stopped::TimedOut);
        }
        let nap = deadline.map_or(USER_POLL, |d| (d - now).min(USER_POLL));
        match replies.recv_timeout(nap) {
            Ok(message) => return Ok(message),
            Err(RecvTimeoutError::Disconnected) => return Err(Stopped::Gone),
            Err(RecvTimeoutError::Timeout) => {}
        }
    }
}

fn parse_reply(line: &str, names: usize) -> Reply {
    let mut words = line.split_whitespace();
    match words.next() {
        Some("sat") => {
            let values: Option<Vec<Option<BigInt>>> = words
                .map(|w| match w {
                    "_" => Some(None),
                    _ => BigInt::from_str(w).ok().map(Some),
                })
                .collect();
            match values {
                Some(values) if values.len() == names => Reply::Sat(values),
                _ => Reply::Unknown(format!("malformed reply from the solver process: {line}")),
            }
        }
        Some("unsat") => Reply::Unsat,
        Some("unknown") => Reply::Unknown(words.collect::<Vec<_>>().join(" ")),
        _ => Reply::Unknown(format!("malformed reply from the solver process: {line}")),
    }
}

/// The child's side: answers questions from standard input until it closes. Returns
/// an error only for a malformed request (its input is not from a parent `holi`).
pub fn serve() -> Result<(), String> {
    let (sender, questions) = mpsc::channel();
    // Reading on a thread of its own, so that the end of the input is seen even while
    // Z3 is busy: the child must not outlive its parent.
    std::thread::Builder::new()
        .name("holi-solver-questions".to_string())
        .spawn(move || {
            let mut input = BufReader::new(io::stdin().lock());
            loop {
                match read_question(&mut input) {
                    Ok(None) => std::process::exit(0),
                    question => {
                        let malformed = question.is_err();
                        if sender.send(question).is_err() || malformed {
                            return;
                        }
                    }
                }
            }
        })
        .map_err(|e| format!("cannot start the reader: {e}"))?;
    let stdout = io::stdout();
    for question in questions {
        let (names, query) = question?.ok_or("no question")?;
        let line = answer(&names, &query);
        let mut out = stdout.lock();
        if writeln!(out, "{line}").and_then(|()| out.flush()).is_err() {
            return Ok(());
        }
    }
    Ok(())
}

/// The next question: its names and its query; `None` at the end of the input.
fn read_question(input: &mut impl BufRead) -> Result<Option<(Vec<String>, String)>, String> {
    let mut header = String::new();
    match input.read_line(&mut header) {
        Ok(0) => return Ok(None),
        Ok(_) => {}
        Err(e) => return Err(format!("cannot read a question: {e}")),
    }
    let malformed = || format!("malformed question header `{}`", header.trim_end());
    let mut counts = header.split_whitespace().map(usize::from_str);
    let (Some(Ok(count)), Some(Ok(length)), None) = (counts.next(), counts.next(), counts.next())
    else {
        return Err(malformed());
    };
    let mut names = String::new();
    input
        .read_line(&mut names)
        .map_err(|e| format!("cannot read a question: {e}"))?;
    let names: Vec<String> = names.split_whitespace().map(str::to_string).collect();
    if names.len() != count {
        return Err(malformed());
    }
    Ok(Some((names, read_query(input, length)?)))
}

/// The `length` bytes of a query.
fn read_query(input: &mut impl BufRead, length: usize) -> Result<String, String> {
    let mut query = Vec::new();
    input
        .take(length as u64)
        .read_to_end(&mut query)
        .map_err(|e| format!("cannot read a question: {e}"))?;
    if query.len() != length {
        return Err("the input ended in the middle of a question".to_string());
    }
    String::from_utf8(query).map_err(|_| "a question that is not UTF-8".to_string())
}

/// The assertions of `query` as Z3 reads them into a fresh solver of this thread's
/// context; `Err` with the reply line when it cannot.
fn parse(query: &str) -> Result<z3::Solver, String> {
    if query.contains('\0') {
        return Err("unknown a query with a NUL byte".to_string());
    }
    let solver = z3::Solver::new();
    solver.set_params(&no_ctrl_c());
    solver.from_string(query);
    let ctx = solver.get_context().get_z3_context();
    // SAFETY: the context belongs to this thread and is alive (the solver holds it).
    let parsed = unsafe { z3_sys::Z3_get_error_code(ctx) } == z3_sys::ErrorCode::Ok;
    if parsed {
        Ok(solver)
    } else {
        Err("unknown the solver process could not parse its query".to_string())
    }
}

/// The reply line to one question.
fn answer(names: &[String], query: &str) -> String {
    let solver = match parse(query) {
        Ok(solver) => solver,
        Err(line) => return line,
    };
    match solver.check() {
        SatResult::Unsat => "unsat".to_string(),
        SatResult::Unknown => format!(
            "unknown {}",
            solver
                .get_reason_unknown()
                .unwrap_or_else(|| "unknown".to_string())
        ),
        SatResult::Sat => {
            let Some(model) = solver.get_model() else {
                return "unknown Z3 gave no model".to_string();
            };
            let mut line = "sat".to_string();
            for name in names {
                let value = model
                    .get_const_interp(&Int::new_const(name.as_str()))
                    .and_then(|v| to_bigint(&v));
                line.push(' ');
                match value {
                    Some(v) => line.push_str(&v.to_string()),
                    None => line.push('_'),
                }
            }
            line
        }
    }
}

/// The witness in a reply to a question about the symbols `numbers`.
pub fn witness(numbers: &[u32], values: Vec<Option<BigInt>>) -> Witness {
    numbers
        .iter()
        .zip(values)
        .filter_map(|(&n, v)| Some((n, v?)))
        .collect()
}

/// By default a Z3 solver takes SIGINT over while it checks, and swallows the first
/// one: a Ctrl-C meant for holi would only cancel that query, or be lost, and the
/// search would go on. Every solver holi makes is set with these. (Applying a tactic
/// leaves SIGINT alone unless asked to, and a tactic given this parameter fails.)
pub fn no_ctrl_c() -> z3::Params {
    let mut params = z3::Params::new();
    params.set_bool("ctrl_c", false);
    params
}

/// The quantifier-free equivalent of `formula` by Z3's `qe` tactic, then `simplify`,
/// if an independent check confirms it ([`within`]); `None` when a quantifier remains,
/// the tactic fails or the region is not confirmed. With Z3's count of resources in
/// this context after the check, if it was made.
fn eliminate_quantifiers(formula: &Bool) -> (Option<Bool>, Option<u64>) {
    let goal = z3::Goal::new(false, false, false);
    goal.assert(formula);
    let tactic = z3::Tactic::new("qe").and_then(&z3::Tactic::new("simplify"));
    // Spelled out where a case or the whole has no formula: Z3 prints an empty `and`
    // as `and`, which it cannot read back (the solver process sends regions as text).
    let Ok(applied) = tactic.apply(&goal, None) else {
        return (None, None);
    };
    let cases: Vec<Bool> = applied
        .list_subgoals()
        .map(|g| match &g.get_formulas()[..] {
            [] => Bool::from_bool(true),
            [one] => one.clone(),
            all => Bool::and(all),
        })
        .collect();
    let region = match &cases[..] {
        [] => Bool::from_bool(false),
        [one] => one.clone(),
        all => Bool::or(all),
    };
    if has_quantifier(&region) {
        return (None, None);
    }
    let (confirmed, count) = within(&region, formula);
    (confirmed.then_some(region), count)
}

/// Whether every point of `region` satisfies `formula`, proved by Z3's `qsat`, a
/// decision procedure by model-based projection that shares no code with `qe`'s.
///
/// Z3 4.8.12's `qe` is wrong on some linear systems: it projects `s3 = 3·s1,
/// y0 = s3 − s2, y1 = s3 + 2·s2` to `9 | y1 − y0 ∧ 3 | y1`, which leaves out
/// `(1, 7)`. A region too small only prunes less; one too large would let semantic
/// subsumption drop a configuration that is not covered, and so hide a failure. So a
/// region is kept only when `region ∧ ¬formula` is proved unsatisfiable; `sat` (a
/// wrong region) and `unknown` give no region. It runs in the helper thread, like
/// `qe`, within the same deadline and within [`CONFIRMATION_RLIMIT`]. With Z3's count
/// of resources spent in this context so far (`qe`'s included).
fn within(region: &Bool, formula: &Bool) -> (bool, Option<u64>) {
    let solver = z3::Tactic::new("qsat").solver();
    let mut params = no_ctrl_c();
    params.set_u32("rlimit", CONFIRMATION_RLIMIT);
    solver.set_params(&params);
    solver.assert(region);
    solver.assert(formula.not());
    let confirmed = solver.check() == SatResult::Unsat;
    let count = match solver.get_statistics().value("rlimit count") {
        Some(z3::StatisticsValue::UInt(n)) => Some(u64::from(n)),
        _ => None,
    };
    (confirmed, count)
}

/// The resources `qsat` may spend confirming a region, in Z3's own count, which does
/// not depend on timing: every region of 774 questions from the HOLiK grid is
/// confirmed within it (at most 10 ms each); on a random library whose conditions
/// divide by constants (random s31, seed 31) a quarter are not, and those checks stop after
/// about 100 ms, where unbounded ones ran for seconds.
const CONFIRMATION_RLIMIT: u32 = 100_000;

fn has_quantifier(formula: &impl z3::ast::Ast) -> bool {
    formula.kind() == z3::ast::AstKind::Quantifier
        || (formula.is_app() && formula.children().iter().any(has_quantifier))
}

/// A Z3 integer numeral as a BigInt (Z3 prints negative numerals as `(- 5)`).
pub(super) fn to_bigint(value: &Int) -> Option<BigInt> {
    if let Some(small) = value.as_i64() {
        return Some(BigInt::from(small));
    }
    let text = value.to_string();
    let digits: String = text.chars().filter(|c| c.is_ascii_digit()).collect();
    let magnitude = BigInt::from_str(&digits).ok()?;
    Some(if text.contains('-') {
        -magnitude
    } else {
        magnitude
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn question(names: &[&str], query: &str) -> String {
        format!(
            "{} {}\n{}\n{query}",
            names.len(),
            query.len(),
            names.join(" ")
        )
    }

    #[test]
    fn questions_are_read_as_written() {
        let text = question(
            &["s1", "s2"],
            "(declare-fun s1 () Int)\n(assert (> s1 3))\n",
        ) + &question(&[], "(assert false)");
        let mut input = io::Cursor::new(text.into_bytes());
        let (names, query) = read_question(&mut input).unwrap().unwrap();
        assert_eq!(names, ["s1", "s2"]);
        assert_eq!(query, "(declare-fun s1 () Int)\n(assert (> s1 3))\n");
        let (names, query) = read_question(&mut input).unwrap().unwrap();
        assert!(names.is_empty());
        assert_eq!(query, "(assert false)");
        assert_eq!(read_question(&mut input), Ok(None));
    }

    #[test]
    fn malformed_questions_are_errors_not_panics() {
        for text in ["x y\n\n", "1 5\n\nabc", "2 0\ns1\n", "1 2 3\n", "-1 0\n\n"] {
            let mut input = io::Cursor::new(text.as_bytes().to_vec());
            assert!(read_question(&mut input).is_err(), "{text:?}");
        }
    }

    #[test]
    fn projections_in_the_helper_thread_come_back_in_the_askers_context() {
        let y0 = Int::new_const("y0");
        let s1 = Int::new_const("s1");
        let body = s1.le(Int::from_i64(100)) & y0.eq(Int::from_i64(100) - &s1);
        let formula = z3::ast::exists_const(&[&s1], &[], &body);
        let mut thread = QeThread::default();
        let region = thread.project(&formula, None, None).unwrap();
        // Z3 counted the work of the projection and its confirmation, taken once.
        assert!(thread.take_spent() > 0);
        assert_eq!(thread.take_spent(), 0);
        let z = z3::Solver::new();
        z.assert(region.iff(y0.ge(Int::from_i64(0))).not());
        assert_eq!(z.check(), SatResult::Unsat, "{region}");
        // Nothing left of a formula true for every value: `true`, not an empty `and`.
        let all = z3::ast::exists_const(&[&s1], &[], &y0.eq(&s1));
        assert_eq!(
            thread.project(&all, None, None).unwrap().as_bool(),
            Some(true)
        );
    }

    /// `∃s1 s2 s3. s3 = 3·s1 ∧ y0 = s3 − s2 ∧ y1 = s3 + 2·s2`.
    fn multiples_of_three() -> Bool {
        let [y0, y1] = [Int::new_const("y0"), Int::new_const("y1")];
        let [s1, s2, s3] = [1, 2, 3].map(|n| Int::new_const(format!("s{n}")));
        let body =
            s3.eq(Int::from_i64(3) * &s1) & y0.eq(&s3 - &s2) & y1.eq(&s3 + Int::from_i64(2) * &s2);
        z3::ast::exists_const(&[&s1, &s2, &s3], &[], &body)
    }

    /// `3 | y1 − y0 ∧ 9 | 2·y0 + y1`: `s2 = (y1 − y0)/3` and `s3 = y0 + s2`.
    fn projection_of_multiples_of_three(y0: &Int, y1: &Int) -> Bool {
        let divides = |n: i64, t: Int| t.modulo(Int::from_i64(n)).eq(Int::from_i64(0));
        divides(3, y1 - y0) & divides(9, Int::from_i64(2) * y0 + y1)
    }

    #[test]
    fn only_regions_within_the_projection_are_confirmed() {
        let formula = multiples_of_three();
        let [y0, y1] = [Int::new_const("y0"), Int::new_const("y1")];
        let exact = projection_of_multiples_of_three(&y0, &y1);
        assert!(within(&exact, &formula).0);
        assert!(within(&(exact.clone() & y0.eq(Int::from_i64(0))), &formula).0);
        assert!(within(&Bool::from_bool(false), &formula).0);
        // (0, 3) is no value of the terms: 9 ∤ 3.
        let beyond = y0.eq(Int::from_i64(0)) & y1.eq(Int::from_i64(3));
        assert!(!within(&(exact | beyond), &formula).0);
        assert!(!within(&Bool::from_bool(true), &formula).0);
    }

    /// Z3 4.8.12's `qe` leaves out `(1, 7)` here (`within`'s comment); whatever it
    /// gives, the region kept never holds a point the terms cannot take.
    #[test]
    fn a_kept_region_never_holds_a_point_outside_the_projection() {
        let formula = multiples_of_three();
        let [y0, y1] = [Int::new_const("y0"), Int::new_const("y1")];
        if let (Some(region), _) = eliminate_quantifiers(&formula) {
            let z = z3::Solver::new();
            z.assert(&region);
            z.assert(projection_of_multiples_of_three(&y0, &y1).not());
            assert_eq!(z.check(), SatResult::Unsat, "{region}");
        }
    }

    /// A thread left counts as running until it ends, and not after.
    #[test]
    fn abandoned_threads_count_until_they_end() {
        let abandoned = Abandoned::new();
        assert_eq!(abandoned.running(), 0);
        let (release, released) = mpsc::channel::<()>();
        abandoned.leave(std::thread::spawn(move || {
            let _ = released.recv();
        }));
        abandoned.leave(std::thread::spawn(|| {}));
        let start = Instant::now();
        while abandoned.running() > 1 && start.elapsed() < Duration::from_secs(20) {
            std::thread::sleep(Duration::from_millis(5));
        }
        assert_eq!(abandoned.running(), 1);
        drop(release);
        while abandoned.running() > 0 && start.elapsed() < Duration::from_secs(20) {
            std::thread::sleep(Duration::from_millis(5));
        }
        assert_eq!(abandoned.running(), 0);
    }

    #[test]
    fn answers_give_models_and_never_take_garbage_for_a_formula() {
        let sat = answer(
            &["s1".to_string(), "s2".to_string()],
            "(declare-fun s1 () Int)\n(assert (= (* s1 s1) 49))\n(assert (> s1 0))",
        );
        assert_eq!(sat, "sat 7 _");
        assert_eq!(
            answer(&[], "(declare-fun s1 () Int)\n(assert (< (* s1 s1) 0))"),
            "unsat"
        );
        for garbage in ["(assert (> s9 0))", "(assert", "((((", "(assert true)\0"] {
            assert!(answer(&[], garbage).starts_with("unknown"), "{garbage}");
        }
    }

    #[test]
    fn replies_are_parsed_strictly() {
        assert_eq!(
            parse_reply("sat -12 _ 340282366920938463463374607431768211456", 3),
            Reply::Sat(vec![
                Some(BigInt::from(-12)),
                None,
                Some(BigInt::from_str("340282366920938463463374607431768211456").unwrap())
            ])
        );
        assert_eq!(parse_reply("unsat", 0), Reply::Unsat);
        assert_eq!(
            parse_reply("unknown (incomplete quantifiers)", 0),
            Reply::Unknown("(incomplete quantifiers)".to_string())
        );
        for bad in ["sat 1", "sat x", "", "maybe"] {
            assert!(matches!(parse_reply(bad, 2), Reply::Unknown(_)), "{bad}");
        }
    }
}
