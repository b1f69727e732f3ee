//! The job market: the engine's one scheduler of threads. Workers take jobs from one
//! queue, in the order they are offered, and hand back each one's answer under the
//! number it was offered with. The tasks of a search ([`super::tasks`]) and the sides
//! of a race ([`super::race`]) are offered on it; what to offer when, and how to
//! combine the answers, stays with them, so that their reports are functions of the
//! answers and never of which worker ran what.
//!
//! A job that panics is answered with `None`, so that whoever waits for it is never
//! left waiting. Every worker marks its thread's Z3 default context as kept for the
//! first context a job asks for ([`super::context::reserve_default`]): each job
//! searches in a context of its own.

use std::panic::AssertUnwindSafe;
use std::sync::{mpsc, Mutex};

/// The market's side for the one who offers jobs: see [`open`].
pub struct Market<J, A> {
    offers: Option<mpsc::Sender<(usize, J)>>,
    answers: mpsc::Receiver<(usize, Option<A>)>,
    /// Jobs offered and not answered yet.
    open: usize,
}

/// Runs `body` with a market of `workers` threads, each running `work` on the jobs it
/// takes; the threads end with `body`, once the jobs it offered are done.
pub fn open<J, A, T>(
    workers: usize,
    work: impl Fn(J) -> A + Sync,
    body: impl FnOnce(&mut Market<J, A>) -> T,
) -> T
where
    J: Send,
    A: Send,
{
    let (offer_tx, offer_rx) = mpsc::channel::<(usize, J)>();
    let offer_rx = Mutex::new(offer_rx);
    let (answer_tx, answer_rx) = mpsc::channel();
    let work = &work;
    std::thread::scope(|scope| {
        for _ in 0..workers.max(1) {
            let (offer_rx, answer_tx) = (&offer_rx, answer_tx.clone());
            scope.spawn(move || {
                super::context::reserve_default();
                loop {
                    let offer = match offer_rx.lock() {
                        Ok(rx) => rx.recv(),
                        Err(_) => return,
                    };
                    let Ok((id, job)) = offer else { return };
                    let answer = std::panic::catch_unwind(AssertUnwindSafe(|| work(job)));
                    if answer_tx.send((id, answer.ok())).is_err() {
                        return;
                    }
                }
            });
        }
        drop(answer_tx);
        let mut market = Market {
            offers: Some(offer_tx),
            answers: answer_rx,
            open: 0,
        };
        let out = body(&mut market);
        // No more offers: the workers end once the queue is empty.
        market.offers = None;
        out
    })
}

impl<J, A> Market<J, A> {
    /// Offers `job` under the number `id`.
    pub fn offer(&mut self, id: usize, job: J) {
        if let Some(offers) = &self.offers {
            if offers.send((id, job)).is_ok() {
                self.open += 1;
            }
        }
    }

    /// How many jobs offered are not answered yet.
    pub fn open(&self) -> usize {
        self.open
    }

    /// The next answer, waiting for it; `None` when no job is open. A job that
    /// panicked is answered with `None`.
    pub fn wait(&mut self) -> Option<(usize, Option<A>)> {
        if self.open == 0 {
            return None;
        }
        let answer = self.answers.recv().ok()?;
        self.open -= 1;
        Some(answer)
    }

    /// The next answer if one is in, without waiting.
    pub fn answered(&mut self) -> Option<(usize, Option<A>)> {
        let answer = self.answers.try_recv().ok()?;
        self.open -= 1;
        Some(answer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_job_is_answered_under_its_number_on_any_number_of_workers() {
        for workers in [1, 2, 4] {
            let mut answers = open(
                workers,
                |n: u64| n * n,
                |market| {
                    (0..20).for_each(|id| market.offer(id, id as u64));
                    std::iter::from_fn(|| market.wait()).collect::<Vec<_>>()
                },
            );
            answers.sort();
            let expected: Vec<_> = (0..20).map(|id| (id, Some((id * id) as u64))).collect();
            assert_eq!(answers, expected, "{workers} workers");
        }
    }

    #[test]
    fn a_job_that_panics_is_answered_with_none_and_the_others_go_on() {
        let answers = open(
            2,
            |n: u32| {
                assert!(n != 3, "job 3 fails");
                n
            },
            |market| {
                (0..6).for_each(|id| market.offer(id, id as u32));
                let mut answers: Vec<_> = std::iter::from_fn(|| market.wait()).collect();
                answers.sort();
                answers
            },
        );
        assert_eq!(answers[3], (3, None));
        assert_eq!(answers.iter().filter(|(_, a)| a.is_some()).count(), 5);
        assert_eq!(answers.len(), 6);
    }
}
