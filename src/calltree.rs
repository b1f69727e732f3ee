//! A counterexample as a tree of calls: who called whom, and which frames were open.
//!
//! HOLi is well bracketed: a return always closes the innermost open call. So the moves
//! of a trace nest into frames, each opened by a call and closed by the matching return
//! (or still open where the trace ends, at the failure). The text report draws the tree
//! ([`CallTree::lines`]); the sequence diagram ([`crate::diagram`]) draws the same frames
//! as activation bars.

use crate::trace::{Dir, Move, Player, Trace, TraceValue};

/// A frame: the run of a function between its call and its return.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frame {
    /// The index of the move that opens it.
    pub call: usize,
    /// The index of the move that closes it; `None` while open at the end of the trace.
    pub ret: Option<usize>,
    /// Who runs in it: the library (the client called a method or revealed function)
    /// or the client (the library called an import or a client function).
    pub owner: Player,
    /// The frame it was opened in (`None`: the client's top level).
    pub parent: Option<usize>,
    /// Frames of the same owner open while it is, itself included (1 for the first):
    /// for a library frame, the number of open library frames that k bounds.
    pub level: usize,
}

/// The frames of a trace, in the order of their calls.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallTree {
    pub frames: Vec<Frame>,
    /// Per move, the frame it opens or closes (`None` for a return with no open call,
    /// which no well-bracketed trace has).
    pub frame_of_move: Vec<Option<usize>>,
    /// The innermost frame open after the last move: where the failure happens
    /// (`None`: at the top level).
    pub failing_frame: Option<usize>,
}

impl CallTree {
    pub fn new(trace: &Trace) -> CallTree {
        let mut frames: Vec<Frame> = Vec::new();
        let mut frame_of_move = Vec::with_capacity(trace.0.len());
        let mut open: Vec<usize> = Vec::new();
        for (i, m) in trace.0.iter().enumerate() {
            match m.dir {
                Dir::Call => {
                    let owner = match m.by {
                        Player::Client => Player::Library,
                        Player::Library => Player::Client,
                    };
                    let level = 1 + open.iter().filter(|&&f| frames[f].owner == owner).count();
                    frames.push(Frame {
                        call: i,
                        ret: None,
                        owner,
                        parent: open.last().copied(),
                        level,
                    });
                    open.push(frames.len() - 1);
                    frame_of_move.push(Some(frames.len() - 1));
                }
                Dir::Ret => {
                    let closed = open.pop();
                    if let Some(f) = closed {
                        frames[f].ret = Some(i);
                    }
                    frame_of_move.push(closed);
                }
            }
        }
        CallTree {
            frames,
            frame_of_move,
            failing_frame: open.last().copied(),
        }
    }

    /// The most library frames open at once.
    pub fn max_library_level(&self) -> usize {
        (self.frames.iter())
            .filter(|f| f.owner == Player::Library)
            .map(|f| f.level)
            .max()
            .unwrap_or(0)
    }

    /// The tree as text, one line per move and a last one, `leaf`, for the failure,
    /// inside the frame it happens in. Each move reads as a phrase with the model's
    /// values (`client calls withdraw(x1 = 100)`, `send returns ()`). `unicode` draws
    /// the branches with box-drawing characters instead of ASCII.
    pub fn lines(
        &self,
        symbolic: &Trace,
        concrete: &Trace,
        leaf: &str,
        unicode: bool,
    ) -> Vec<String> {
        (self
            .located_lines(symbolic, concrete, leaf, unicode)
            .into_iter())
        .map(|(_, line)| line)
        .collect()
    }

    /// [`CallTree::lines`], each with the index of the move it shows (`None` for the
    /// failure's line), so that an editor can place each line where its move's method
    /// is declared.
    pub fn located_lines(
        &self,
        symbolic: &Trace,
        concrete: &Trace,
        leaf: &str,
        unicode: bool,
    ) -> Vec<(Option<usize>, String)> {
        let mut out = Vec::new();
        let children = |parent: Option<usize>| -> Vec<Item> {
            let mut items: Vec<Item> = (self.frames.iter().enumerate())
                .filter(|(_, f)| f.parent == parent)
                .map(|(i, _)| Item::Frame(i))
                .collect();
            match parent {
                Some(p) => {
                    if let Some(ret) = self.frames[p].ret {
                        items.push(Item::Move(ret));
                    }
                }
                // Returns without a call (none in a well-bracketed trace) stay visible.
                None => items.extend(
                    (self.frame_of_move.iter().enumerate())
                        .filter(|(_, f)| f.is_none())
                        .map(|(i, _)| Item::Move(i)),
                ),
            }
            if self.failing_frame == parent {
                items.push(Item::Leaf);
            }
            items
        };
        let (branch, last, pipe, blank) = if unicode {
            ("├── ", "└── ", "│   ", "    ")
        } else {
            ("|-- ", "`-- ", "|   ", "    ")
        };
        // Depth-first, with the prefix of each level; an explicit stack keeps a deep
        // trace from deepening the Rust stack.
        let mut stack: Vec<(Item, String, String)> = children(None)
            .into_iter()
            .rev()
            .map(|item| (item, String::new(), String::new()))
            .collect();
        while let Some((item, head, rest)) = stack.pop() {
            let (shown, text) = match item {
                Item::Frame(f) => {
                    let call = self.frames[f].call;
                    (Some(call), phrase(symbolic, concrete, call))
                }
                Item::Move(m) => (Some(m), phrase(symbolic, concrete, m)),
                Item::Leaf => (None, leaf.to_string()),
            };
            out.push((shown, format!("{head}{text}")));
            if let Item::Frame(f) = item {
                let items = children(Some(f));
                let n = items.len();
                for (j, child) in items.into_iter().enumerate().rev() {
                    let (h, r) = if j + 1 == n {
                        (last, blank)
                    } else {
                        (branch, pipe)
                    };
                    stack.push((child, format!("{rest}{h}"), format!("{rest}{r}")));
                }
            }
        }
        out
    }
}

#[derive(Clone, Copy)]
enum Item {
    Frame(usize),
    Move(usize),
    Leaf,
}

/// Move `i` as a phrase: `client calls withdraw(x1 = 100)`, `withdraw returns ()`.
pub fn phrase(symbolic: &Trace, concrete: &Trace, i: usize) -> String {
    let Some(m) = symbolic.0.get(i) else {
        return String::new();
    };
    let c = concrete.0.get(i);
    let who = match m.by {
        Player::Client => "client",
        Player::Library => "library",
    };
    match m.dir {
        Dir::Call => format!("{who} calls {}", labelled(m, c)),
        Dir::Ret => format!(
            "{} returns {}{}",
            m.method,
            valued(&m.value, c.map(|c| &c.value)),
            store(m, c)
        ),
    }
}

/// A move as `withdraw(x1 = 100)` with its store entries: symbols with the model's
/// values beside them.
pub fn labelled(m: &Move, concrete: Option<&Move>) -> String {
    format!(
        "{}({}){}",
        m.method,
        argument(m, concrete),
        store(m, concrete)
    )
}

/// The value of a move as its argument (a top-level pair without parentheses), with
/// the model's values: `x1 = 3, 0`.
pub fn argument(m: &Move, concrete: Option<&Move>) -> String {
    match (&m.value, concrete.map(|c| &c.value)) {
        (TraceValue::Pair(a, b), Some(TraceValue::Pair(c, d))) => {
            format!("{}, {}", valued(a, Some(c)), valued(b, Some(d)))
        }
        (TraceValue::Pair(a, b), _) => format!("{a}, {b}"),
        (v, c) => valued(v, c),
    }
}

/// The store entries of a move, as the trace prints them, with values: ` [r1 := x2 = 5]`.
pub fn store(m: &Move, concrete: Option<&Move>) -> String {
    if m.store.is_empty() {
        return String::new();
    }
    let (open, assign, close) = match m.by {
        Player::Client => ("[", ":=", "]"),
        Player::Library => ("{", "=", "}"),
    };
    let entries: Vec<String> = (m.store.iter().enumerate())
        .map(|(j, e)| {
            let c = concrete.and_then(|c| c.store.get(j)).map(|e| &e.value);
            format!("{} {assign} {}", e.cell, valued(&e.value, c))
        })
        .collect();
    format!(" {open}{}{close}", entries.join(", "))
}

/// A value with the model's beside each symbol that differs: `x1 = 100`, `(x1 = 3, 0)`.
pub fn valued(symbolic: &TraceValue, concrete: Option<&TraceValue>) -> String {
    match (symbolic, concrete) {
        (TraceValue::Pair(a, b), Some(TraceValue::Pair(c, d))) => {
            format!("({}, {})", valued(a, Some(c)), valued(b, Some(d)))
        }
        (s, Some(c)) if s != c => format!("{s} = {c}"),
        (s, _) => s.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::StoreEntry;
    use num_bigint::BigInt;

    fn mv(dir: Dir, by: Player, method: &str, value: TraceValue) -> Move {
        Move::new(dir, by, method, value)
    }

    fn dao(symbolic: bool) -> Trace {
        let v = |s: &str, n: i64| {
            if symbolic {
                TraceValue::Sym(s.to_string())
            } else {
                TraceValue::Int(BigInt::from(n))
            }
        };
        use Dir::*;
        use Player::*;
        Trace(vec![
            mv(Call, Client, "withdraw", v("x1", 100)),
            mv(Call, Library, "send", v("x1", 100)),
            mv(Call, Client, "withdraw", v("x2", 1)),
            mv(Call, Library, "send", v("x2", 1)),
            mv(Ret, Client, "send", TraceValue::Unit),
            mv(Ret, Library, "withdraw", TraceValue::Unit),
            mv(Ret, Client, "send", TraceValue::Unit),
        ])
    }

    #[test]
    fn the_dao_attack_nests_withdraw_inside_send() {
        let tree = CallTree::new(&dao(true));
        assert_eq!(tree.frames.len(), 4);
        assert_eq!(tree.max_library_level(), 2);
        // The outer withdraw is still open when the assert fails.
        assert_eq!(tree.failing_frame, Some(0));
        assert_eq!(tree.frames[2].parent, Some(1));
        let lines = tree.lines(&dao(true), &dao(false), "assertion fails", false);
        assert_eq!(
            lines,
            [
                "client calls withdraw(x1 = 100)",
                "|-- library calls send(x1 = 100)",
                "|   |-- client calls withdraw(x2 = 1)",
                "|   |   |-- library calls send(x2 = 1)",
                "|   |   |   `-- send returns ()",
                "|   |   `-- withdraw returns ()",
                "|   `-- send returns ()",
                "`-- assertion fails",
            ]
        );
        let unicode = tree.lines(&dao(true), &dao(false), "assertion fails", true);
        assert_eq!(unicode[7], "└── assertion fails");
        assert_eq!(unicode[4], "│   │   │   └── send returns ()");
        // Each line shows one move, in the tree's order: a frame's call, its children,
        // then its return; the failure shows none.
        let shown: Vec<Option<usize>> = (tree.located_lines(&dao(true), &dao(false), "", false))
            .into_iter()
            .map(|(m, _)| m)
            .collect();
        let order = [0, 1, 2, 3, 4, 5, 6].map(Some);
        assert_eq!(shown[..7], order);
        assert_eq!(shown[7], None);
    }

    #[test]
    fn sibling_calls_and_a_failure_at_the_top_level() {
        use Dir::*;
        use Player::*;
        let trace = Trace(vec![
            mv(Call, Client, "inc", TraceValue::Unit),
            mv(Ret, Library, "inc", TraceValue::Unit),
            mv(Call, Client, "check", TraceValue::Unit),
        ]);
        let tree = CallTree::new(&trace);
        assert_eq!(tree.failing_frame, Some(1));
        let lines = tree.lines(&trace, &trace, "fails", false);
        assert_eq!(
            lines,
            [
                "client calls inc(())",
                "`-- inc returns ()",
                "client calls check(())",
                "`-- fails"
            ]
        );
        let empty = CallTree::new(&Trace::default());
        assert_eq!(
            empty.lines(&Trace::default(), &Trace::default(), "fails", false),
            ["fails"]
        );
    }

    #[test]
    fn a_return_without_a_call_is_kept_not_lost() {
        let trace = Trace(vec![mv(Dir::Ret, Player::Library, "m", TraceValue::Unit)]);
        let tree = CallTree::new(&trace);
        assert_eq!(tree.frame_of_move, [None]);
        assert_eq!(
            tree.lines(&trace, &trace, "x", false),
            ["m returns ()", "x"]
        );
    }

    #[test]
    fn pairs_and_store_entries_show_the_models_values() {
        let mut m = mv(
            Dir::Call,
            Player::Client,
            "m",
            TraceValue::Pair(
                Box::new(TraceValue::Sym("x1".into())),
                Box::new(TraceValue::Int(BigInt::from(0))),
            ),
        );
        m.store.push(StoreEntry {
            cell: "r1".into(),
            value: TraceValue::Sym("x2".into()),
        });
        let mut c = m.clone();
        c.value = TraceValue::Pair(
            Box::new(TraceValue::Int(BigInt::from(3))),
            Box::new(TraceValue::Int(BigInt::from(0))),
        );
        c.store[0].value = TraceValue::Int(BigInt::from(5));
        assert_eq!(labelled(&m, Some(&c)), "m(x1 = 3, 0) [r1 := x2 = 5]");
        assert_eq!(labelled(&m, None), "m(x1, 0) [r1 := x2]");
    }
}
