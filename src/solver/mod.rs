//! Stages 2–5 for a stream of puzzles: reduce → build → anneal with
//! parallel tempering in a batch of slots → decode → verify, one outcome
//! per puzzle in input order. Backends are interchangeable.
//!
//! `intake.rs` reads and prepares puzzles, `slots.rs` keeps the batch on
//! the backend; [`solve_stream`] runs the rounds. `workers.rs` runs a
//! solver per thread over one input, with no join per round.

mod intake;
mod observe;
mod slots;
mod workers;

use std::cell::RefCell;
use std::collections::VecDeque;

use crate::backend::Backend;
use crate::error::{Error, Result};
use crate::grid::Grid;
use crate::outcome::Outcome;
use crate::puzzle::{Entry, Input, Next};
use crate::settings::Settings;
use intake::{Intake, Pending};
pub use observe::{Observer, Progress};
use slots::{InFlight, READ_AT_ONCE};
pub use workers::{solve_stream_as_chosen, solve_stream_on_threads, solver_threads};

/// Solves a stream of puzzles, `settings.batch` at a time, and calls `emit`
/// once per entry in input order, as soon as it and every entry before it
/// are done. An `Err` from the stream stops reading: the puzzles already
/// read are finished and emitted, then the error is returned. When
/// `stop()` turns true (checked every round) the run ends at once: results
/// that are ready in order are emitted, the rest dropped. `Err` otherwise
/// only for failures of the backend; an unsolvable or malformed puzzle, or
/// one the engine failed on, is an `Outcome`.
pub fn solve_stream(
    entries: impl Input,
    settings: &Settings,
    backend: &mut dyn Backend,
    emit: impl FnMut(Entry, Outcome) -> Result<()>,
    stop: impl Fn() -> bool,
) -> Result<()> {
    run(entries, settings, backend, emit, stop, None, READ_AT_ONCE)
}

/// [`solve_stream`] for one puzzle that `observer` watches round by round.
pub fn solve_observed(
    entry: Entry,
    settings: &Settings,
    backend: &mut dyn Backend,
    observer: &mut dyn Observer,
    stop: impl Fn() -> bool,
) -> Result<Option<Outcome>> {
    run_one(entry, settings, backend, stop, Some(observer))
}

/// One puzzle alone in the batch: its outcome, `None` if stopped first.
fn run_one(
    entry: Entry,
    settings: &Settings,
    backend: &mut dyn Backend,
    stop: impl Fn() -> bool,
    observer: Option<&mut dyn Observer>,
) -> Result<Option<Outcome>> {
    let mut result = None;
    let keep = |_, outcome| {
        result = Some(outcome);
        Ok(())
    };
    let one = Settings { batch: 1, ..settings.clone() };
    // A reborrow: `run` ties the observer to the lifetime of `one`.
    let observer = observer.map(|o| o as &mut dyn Observer);
    run(std::iter::once(Ok(entry)), &one, backend, keep, stop, observer, READ_AT_ONCE)?;
    Ok(result)
}

fn run<'a>(
    entries: impl Input,
    settings: &'a Settings,
    backend: &'a mut dyn Backend,
    mut emit: impl FnMut(Entry, Outcome) -> Result<()>,
    stop: impl Fn() -> bool,
    observer: Option<&'a mut dyn Observer>,
    read_at_once: usize,
) -> Result<()> {
    let mut intake = Intake::new(entries);
    let mut slots = InFlight::new(settings, backend, observer, read_at_once);
    let mut pending = Pending::default();
    let mut emit_in_order = |pending: &mut Pending| -> Result<()> {
        while let Some((entry, outcome)) = pending.pop_next() {
            emit(entry, outcome)?;
        }
        Ok(())
    };
    let mut bank = 0;
    loop {
        let stopping = stop();
        slots.collect(bank, &mut pending)?;
        // Before reading on, which may wait for input.
        emit_in_order(&mut pending)?;
        if stopping {
            return Ok(());
        }
        bank = slots.refill(bank, &mut intake, &mut pending)?;
        emit_in_order(&mut pending)?;
        if !slots.submit(bank)? && slots.idle() && intake.drained() {
            // Nothing anneals, so nothing holds back the pending results: all were emitted.
            return intake.finish();
        }
        bank = slots.next_bank(bank);
    }
}

/// [`solve_stream`] that survives a device failure: when the backend fails
/// with [`Error::Gpu`] (a lost device, a failed dispatch), `fallback` may
/// offer another backend and its settings, and every puzzle read but not
/// yet emitted runs again there, then the rest of the stream. Records stay
/// one per puzzle, in input order.
pub fn solve_stream_with_fallback(
    mut entries: impl Input,
    settings: &Settings,
    backend: &mut dyn Backend,
    fallback: impl FnOnce(&Error) -> Option<(Box<dyn Backend>, Settings)>,
    mut emit: impl FnMut(Entry, Outcome) -> Result<()>,
    stop: impl Fn() -> bool,
) -> Result<()> {
    let unfinished = RefCell::new(VecDeque::new());
    let tracked = Tracked { unread: VecDeque::new(), unfinished: &unfinished, rest: &mut entries };
    let emit_tracked = |entry, outcome| {
        unfinished.borrow_mut().pop_front();
        emit(entry, outcome)
    };
    let error = match solve_stream(tracked, settings, backend, emit_tracked, &stop) {
        Err(error @ Error::Gpu(_)) => error,
        other => return other,
    };
    let Some((mut replacement, replacement_settings)) = fallback(&error) else { return Err(error) };
    let untracked = RefCell::default();
    let again = Tracked { unread: unfinished.take(), unfinished: &untracked, rest: &mut entries };
    solve_stream(again, &replacement_settings, replacement.as_mut(), emit, stop)
}

/// An input that hands out `unread` entries before the `rest`, and
/// remembers in `unfinished` the puzzles read and not yet emitted, oldest
/// first (emission is in input order).
struct Tracked<'a, I> {
    unread: VecDeque<Entry>,
    unfinished: &'a RefCell<VecDeque<Entry>>,
    rest: &'a mut I,
}

impl<I: Input> Input for Tracked<'_, I> {
    fn next_entry(&mut self, wait: bool) -> Next {
        let next = match self.unread.pop_front() {
            Some(entry) => Next::Entry(Ok(entry)),
            None => self.rest.next_entry(wait),
        };
        if let Next::Entry(Ok(entry)) = &next {
            self.unfinished.borrow_mut().push_back(entry.clone());
        }
        next
    }
}

/// Solves one puzzle on its own.
pub fn solve(puzzle: &Grid, settings: &Settings, backend: &mut dyn Backend) -> Result<Outcome> {
    let outcome = run_one(Entry::of_grid(puzzle.clone()), settings, backend, || false, None)?;
    outcome.ok_or_else(|| Error::Internal("no outcome for the puzzle".into()))
}
