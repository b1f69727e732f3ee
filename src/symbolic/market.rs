//! The job market: the engine's one scheduler of threads. Jobs are offered with
//! numbers and run in the order offered, at most `workers` at once, and each answer
//! comes back under its job's number. The tasks of a search ([`super::tasks`]) and the
//! sides of a race ([`super::race`]) are offered on it; what to offer when, and how to
//! combine the answers, stays with them, so that their reports are functions of the
//! answers and never of which thread ran what.
//!
//! Each job runs on a thread of its own, which ends with it. A job searches in a Z3
//! context of its own, the thread's default one ([`super::context::reserve_default`]),
//! and that context (some 16 MB) lives as long as its thread: on threads kept for the
//! whole race, the context of a side that had finished stayed until the race ended,
//! which raised the peak memory of HOLiK's `various_unsafe` at k2 l2 `--jobs 2` from
//! about 182 to 204 MB. A thread costs tens of microseconds; a job, milliseconds at
//! least. A job that panics is answered with `None`, so that whoever waits for it is
//! never left waiting.

use std::collections::VecDeque;
use std::panic::AssertUnwindSafe;
use std::sync::mpsc;

/// The market's side for the one who offers jobs: see [`open`].
pub struct Market<'m, J, A> {
    /// Starts a job on a thread of its own.
    start: Box<dyn FnMut(usize, J) + 'm>,
    /// Jobs offered and not started, first offered first.
    waiting: VecDeque<(usize, J)>,
    running: usize,
    workers: usize,
    answers: mpsc::Receiver<(usize, Option<A>)>,
}

/// Runs `body` with a market that runs `work` on the jobs it is offered, on up to
/// `workers` threads at once; it returns once `body` has and every job started is
/// done (jobs still waiting then are dropped: callers wait for every answer).
pub fn open<J, A, T>(
    workers: usize,
    work: impl Fn(J) -> A + Sync,
    body: impl FnOnce(&mut Market<'_, J, A>) -> T,
) -> T
where
    J: Send,
    A: Send,
{
    let (answer_tx, answers) = mpsc::channel();
    let work = &work;
    std::thread::scope(|scope| {
        let start = move |id: usize, job: J| {
            let answer_tx = answer_tx.clone();
            scope.spawn(move || {
                super::context::reserve_default();
                let answer = std::panic::catch_unwind(AssertUnwindSafe(|| work(job)));
                // The receiver lives as long as the market: a send fails only once
                // nobody waits for the answer.
                let _ = answer_tx.send((id, answer.ok()));
            });
        };
        let mut market = Market {
            start: Box::new(start),
            waiting: VecDeque::new(),
            running: 0,
            workers: workers.max(1),
            answers,
        };
        body(&mut market)
    })
}

impl<J, A> Market<'_, J, A> {
    /// Offers `job` under the number `id`: it starts at once if fewer than `workers`
    /// jobs are running, otherwise when one ends.
    pub fn offer(&mut self, id: usize, job: J) {
        if self.running < self.workers {
            self.running += 1;
            (self.start)(id, job);
        } else {
            self.waiting.push_back((id, job));
        }
    }

    /// How many jobs offered are not answered yet.
    pub fn open(&self) -> usize {
        self.running + self.waiting.len()
    }

    /// The next answer, waiting for it; `None` when no job is open. A job that
    /// panicked is answered with `None`.
    pub fn wait(&mut self) -> Option<(usize, Option<A>)> {
        if self.running == 0 {
            return None;
        }
        let answer = self.answers.recv().ok()?;
        self.ended();
        Some(answer)
    }

    /// The next answer if one is in, without waiting.
    pub fn answered(&mut self) -> Option<(usize, Option<A>)> {
        let answer = self.answers.try_recv().ok()?;
        self.ended();
        Some(answer)
    }

    /// A job ended: the first waiting one takes its place.
    fn ended(&mut self) {
        self.running -= 1;
        if let Some((id, job)) = self.waiting.pop_front() {
            self.running += 1;
            (self.start)(id, job);
        }
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
    fn no_more_jobs_than_workers_run_at_once() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        let (now, most) = (AtomicUsize::new(0), AtomicUsize::new(0));
        let answered = open(
            2,
            |_: ()| {
                let running = now.fetch_add(1, Ordering::SeqCst) + 1;
                most.fetch_max(running, Ordering::SeqCst);
                std::thread::sleep(std::time::Duration::from_millis(5));
                now.fetch_sub(1, Ordering::SeqCst);
            },
            |market| {
                (0..8).for_each(|id| market.offer(id, ()));
                assert_eq!(market.open(), 8);
                std::iter::from_fn(|| market.wait()).count()
            },
        );
        assert_eq!(answered, 8);
        assert!(
            most.load(Ordering::SeqCst) <= 2,
            "more jobs ran than workers"
        );
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
