//! Puzzles on threads of their own, with no join per round: each worker
//! runs the whole solver on its own backend, one puzzle at a time, on
//! entries it takes from the one shared input, and the calling thread puts
//! their outcomes back in input order. A round of one puzzle never waits
//! for another's: with a batch over all threads, every 5-sweep round ended
//! in a join, and two threads spent 13–18 % more CPU than one (BENCHMARKS.md).

use std::cell::RefCell;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{mpsc, Mutex, TryLockError};
use std::time::Duration;

use super::intake::Pending;
use super::run;
use crate::backend::kind::{BackendKind, BatchSize};
use crate::backend::Backend;
use crate::error::{Error, Result};
use crate::outcome::Outcome;
use crate::puzzle::{Entry, Input, Next};
use crate::settings::Settings;

/// Entries a worker reads and prepares at once: few, so that near the end
/// of the input no worker holds puzzles that another, idle, could anneal.
const READ_AT_ONCE: usize = 8;
/// Outcomes that may wait for an earlier one (a hard puzzle still
/// annealing) before the workers stop taking entries: memory stays flat.
const MAX_AHEAD: u64 = 4096;
/// Outcomes a worker hands over at once, and at the latest after each of
/// its rounds: one wake-up of the calling thread per puzzle cost an easy
/// collection 17 % more CPU on two threads.
const HAND_OVER: usize = 64;
/// The longest the calling thread waits for an outcome before `tick` runs.
const TICK: Duration = Duration::from_millis(50);

/// The input the workers share, and the sequence number of its next entry.
struct Shared<I> {
    input: Mutex<SharedInput<I>>,
    /// Outcomes handed on in order so far.
    emitted: AtomicU64,
}

struct SharedInput<I> {
    entries: I,
    next: u64,
    /// A read error ended the input, as it ends a single solver's.
    ended: bool,
}

/// A worker's outcomes on their way to the calling thread, with the
/// sequence numbers of the entries it took, oldest first: it emits their
/// outcomes in that order.
struct Outbox {
    taken: RefCell<VecDeque<u64>>,
    done: RefCell<Vec<(u64, Entry, Outcome)>>,
    sender: mpsc::Sender<Vec<(u64, Entry, Outcome)>>,
}

impl Outbox {
    fn keep(&self, entry: Entry, outcome: Outcome) {
        let sequence = self.taken.borrow_mut().pop_front().expect("one outcome per entry taken, in order");
        self.done.borrow_mut().push((sequence, entry, outcome));
        if self.done.borrow().len() >= HAND_OVER {
            self.hand_over();
        }
    }

    fn hand_over(&self) {
        if !self.done.borrow().is_empty() {
            // The receiver is gone only when the run is over.
            drop(self.sender.send(std::mem::take(&mut *self.done.borrow_mut())));
        }
    }
}

/// One worker's view of the shared input.
struct WorkerInput<'a, I> {
    shared: &'a Shared<I>,
    outbox: &'a Outbox,
}

impl<I: Input> Input for WorkerInput<'_, I> {
    fn next_entry(&mut self, wait: bool) -> Next {
        // Before a read that may wait (a producer waiting for its answer): what is done goes first.
        if wait {
            self.outbox.hand_over();
        }
        let mut input = match self.shared.input.try_lock() {
            Ok(input) => input,
            // Another worker reads; one with puzzles of its own does not wait for it.
            Err(TryLockError::WouldBlock) if !wait => return Next::NotYet,
            Err(TryLockError::WouldBlock) => self.shared.input.lock().unwrap_or_else(|e| e.into_inner()),
            Err(TryLockError::Poisoned(e)) => e.into_inner(),
        };
        if input.ended {
            return Next::End;
        }
        if input.next - self.shared.emitted.load(Ordering::Acquire) >= MAX_AHEAD {
            drop(input);
            if wait {
                std::thread::sleep(Duration::from_millis(1));
            }
            return Next::NotYet;
        }
        let next = input.entries.next_entry(wait);
        match &next {
            Next::Entry(Ok(_)) => {
                self.outbox.taken.borrow_mut().push_back(input.next);
                input.next += 1;
            }
            Next::Entry(Err(_)) | Next::End => input.ended = true,
            Next::NotYet => {}
        }
        next
    }
}

/// Threads that each run a solver of their own over the one input (with no
/// join per round), where `kind`'s batch is its default of one puzzle per
/// thread and the user chose no batch; `None`: one solver over the whole batch.
pub fn solver_threads(kind: BackendKind, settings: &Settings, batch_chosen: bool) -> Option<usize> {
    let per_thread = kind.defaults(settings.variant, Some(settings.moves)).batch == BatchSize::OnePerThread;
    let threads = rayon::current_num_threads();
    (per_thread && !batch_chosen && threads > 1).then_some(threads)
}

/// [`solve_stream`](super::solve_stream) on [`solver_threads`]' threads
/// where there are several (`backend` then only names the kind), else on
/// `backend` itself: what `bench` and the bindings run.
pub fn solve_stream_as_chosen<I: Input + Send>(
    entries: I,
    settings: &Settings,
    backend: &mut dyn Backend,
    batch_chosen: bool,
    emit: impl FnMut(Entry, Outcome) -> Result<()>,
    stop: impl Fn() -> bool + Sync,
) -> Result<()> {
    match solver_threads(backend.kind(), settings, batch_chosen) {
        Some(threads) => solve_stream_on_threads(entries, settings, threads, backend.kind(), emit, stop, || {}),
        None => super::solve_stream(entries, settings, backend, emit, stop),
    }
}

/// [`solve_stream`](super::solve_stream) on `threads` workers, each with a
/// backend of `kind` of its own, annealing one puzzle at a time with
/// `settings` (their batch aside). `emit` runs on the calling thread, once
/// per entry in input order; `tick` after each outcome and at least every
/// 50 ms (to flush the output when due).
/// Outcomes do not depend on the number of threads: a puzzle's chains
/// depend only on the puzzle and the seed.
pub fn solve_stream_on_threads<I: Input + Send>(
    entries: I,
    settings: &Settings,
    threads: usize,
    kind: BackendKind,
    mut emit: impl FnMut(Entry, Outcome) -> Result<()>,
    stop: impl Fn() -> bool + Sync,
    mut tick: impl FnMut(),
) -> Result<()> {
    let settings = &Settings { batch: 1, ..settings.clone() };
    let shared =
        Shared { input: Mutex::new(SharedInput { entries, next: 0, ended: false }), emitted: AtomicU64::new(0) };
    let aborted = AtomicBool::new(false);
    let stop = || stop() || aborted.load(Ordering::Relaxed);
    let (sender, receiver) = mpsc::channel::<Vec<(u64, Entry, Outcome)>>();
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                let (sender, shared, stop) = (sender.clone(), &shared, &stop);
                scope.spawn(move || work(shared, settings, kind, sender, stop))
            })
            .collect();
        drop(sender);
        let (mut pending, mut emitted) = (Pending::default(), Ok(()));
        loop {
            match receiver.recv_timeout(TICK) {
                Ok(done) => {
                    done.into_iter().for_each(|(sequence, entry, outcome)| pending.insert(sequence, (entry, outcome)))
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            }
            while emitted.is_ok() {
                let Some((entry, outcome)) = pending.pop_next() else { break };
                emitted = emit(entry, outcome);
                shared.emitted.fetch_add(1, Ordering::Release);
            }
            // An output that fails stops the workers; what they still send is dropped.
            if emitted.is_err() {
                aborted.store(true, Ordering::Relaxed);
            }
            tick();
        }
        let joined = workers
            .into_iter()
            .map(|worker| worker.join().unwrap_or_else(|_| Err(Error::Internal("a solver thread panicked".into()))));
        joined.fold(emitted, |result, worker| result.and(worker))
    })
}

/// One worker: a pool of its own thread alone, so that the backend's
/// parallel loops run in place, and the solver over the shared input.
fn work<I: Input + Send>(
    shared: &Shared<I>,
    settings: &Settings,
    kind: BackendKind,
    sender: mpsc::Sender<Vec<(u64, Entry, Outcome)>>,
    stop: &(impl Fn() -> bool + Sync),
) -> Result<()> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .use_current_thread()
        .build()
        .map_err(|e| Error::Internal(format!("cannot start a solver thread: {e}")))?;
    pool.install(|| {
        let mut backend = kind.build()?;
        let outbox = Outbox { taken: RefCell::default(), done: RefCell::default(), sender };
        let input = WorkerInput { shared, outbox: &outbox };
        let keep = |entry, outcome| {
            outbox.keep(entry, outcome);
            Ok(())
        };
        // Asked every round.
        let stop = || {
            outbox.hand_over();
            stop()
        };
        let result = run(input, settings, backend.as_mut(), keep, stop, None, READ_AT_ONCE);
        outbox.hand_over();
        result
    })
}
