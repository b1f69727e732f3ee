//! The split's stand-in for the parts of a library left out ([`super::split`]): a
//! public method that, called by the client, calls the client back up to `callbacks`
//! times through an import and returns. The search plays it itself, as moves of the
//! game, so that how many callbacks it has left is a budget the memo compares like l
//! (the frame [`GameFrame::StandIn`]), rather than a place in its code. A game with a
//! stand-in ([`super::game::LibraryGame::with_stand_in`]) plays its moves here;
//! [`super::moves::opponent_moves`] offers them beside the client's own.

use super::config::{Config, GameFrame};
use super::value::{Name, Value};
use crate::library::ir::{ImportId, MethodId};
use crate::trace::{Dir, Player};

/// The stand-in's method, the import it calls the client back through, and how often.
#[derive(Clone, Copy, Debug)]
pub struct StandIn {
    pub method: MethodId,
    pub callback: ImportId,
    pub callbacks: u32,
    /// The client's budget in each callback: l.
    pub lzero: u32,
}

impl StandIn {
    /// The client called the stand-in in `called` (the call already in its trace),
    /// leaving its context the budget `saved_l`: it calls the client back, if it may.
    /// (Its return right after the call is left out: that only spends moves and l.)
    pub fn called<'p>(&self, mut called: Config<'p>, saved_l: u32, next: &mut Vec<Config<'p>>) {
        if self.callbacks > 0 {
            called.k -= 1;
            self.call_back(&mut called, self.callbacks - 1, saved_l);
            next.push(called);
        }
    }

    /// Where the stand-in is calling the client back (the top frame of `cfg`), the
    /// client's answer comes with the stand-in's next move: another callback while it
    /// has some left, and its return.
    pub fn answers<'p>(&self, cfg: &Config<'p>, next: &mut Vec<Config<'p>>) {
        let Some(&GameFrame::StandIn { remaining, saved_l }) = cfg.stack.top() else {
            return;
        };
        let mut answered = cfg.clone();
        answered.push_move(
            Dir::Ret,
            Player::Client,
            Name::Import(self.callback),
            Value::Unit,
        );
        if remaining > 0 {
            let mut again = answered.clone();
            again.stack.pop();
            self.call_back(&mut again, remaining - 1, saved_l);
            next.push(again);
        }
        answered.stack.pop();
        answered.push_move(
            Dir::Ret,
            Player::Library,
            Name::Method(self.method),
            Value::Unit,
        );
        answered.l = saved_l;
        answered.k += 1;
        next.push(answered);
    }

    /// The stand-in's call of the client back, with `remaining` more to come and the
    /// client's budget `saved_l` to restore when it returns.
    fn call_back(&self, cfg: &mut Config, remaining: u32, saved_l: u32) {
        cfg.stack.push(GameFrame::StandIn { remaining, saved_l });
        cfg.push_move(
            Dir::Call,
            Player::Library,
            Name::Import(self.callback),
            Value::Unit,
        );
        cfg.l = self.lzero;
    }
}
