//! The input side of the solver: reads entries, and reduces and builds the
//! models of many at a time, since a puzzle's model needs nothing of another's.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use rayon::prelude::*;

use crate::decode::checked;
use crate::error::{Error, PuzzleError, Result};
use crate::grid::Grid;
use crate::model::Model;
use crate::outcome::{Outcome, Status};
use crate::puzzle::{Entry, Input, Next};
use crate::reduce::{reduce_before_annealing, Candidates};
use crate::settings::Settings;

/// Outcomes waiting for their turn in input order. A ring rather than a
/// map: on easy collections every puzzle passes through here, and a map's
/// node shifts cost more than the puzzle's reduction (BENCHMARKS.md).
#[derive(Default)]
pub(super) struct Pending {
    /// The sequence number of the next outcome to hand on.
    next: u64,
    /// Place k holds sequence number `next + k`, once it is done.
    waiting: VecDeque<Option<(Entry, Outcome)>>,
    /// How many places hold an outcome.
    len: usize,
}

impl Pending {
    pub fn insert(&mut self, sequence: u64, done: (Entry, Outcome)) {
        let place = (sequence - self.next) as usize;
        self.len += 1;
        // The next in input order (every easy puzzle) goes straight to the back.
        if place == self.waiting.len() {
            return self.waiting.push_back(Some(done));
        }
        if place > self.waiting.len() {
            self.waiting.resize_with(place + 1, || None);
        }
        debug_assert!(self.waiting[place].is_none(), "one outcome per sequence number");
        self.waiting[place] = Some(done);
    }

    /// The next outcome in input order, if it is done.
    pub fn pop_next(&mut self) -> Option<(Entry, Outcome)> {
        // Looked at in place, then moved once: an outcome is some 250 bytes.
        self.waiting.front()?.as_ref()?;
        self.next += 1;
        self.len -= 1;
        self.waiting.pop_front().flatten()
    }

    /// How many outcomes wait.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// Under [`Reduce::Probe`](crate::reduce::Reduce::Probe), the sweeps a
/// puzzle anneals before it is probed in full: what puzzles the anneal
/// finds easy (most of an easy collection) need, so they pay only for the
/// brief probing before the anneal, while those only full probing solves
/// pay for two rounds, where they are not probed in full first
/// (`reduce_before_annealing`; BENCHMARKS.md).
/// Boards of more than 128 cells wait ten times longer: the anneal solves
/// most 16×16 puzzles in tens of sweeps, and probing in full decides few of
/// them (after 10 sweeps, 1.38 times the instructions on generated 16×16,
/// 1.41 on random-grid ones; nothing changed on 25×25: BENCHMARKS.md,
/// session 64).
pub(super) fn probe_after_sweeps(puzzle: &Grid) -> u32 {
    match puzzle.geometry().cell_sets {
        Some(_) => 10,
        None => 100,
    }
}

/// Whether `puzzle` is probed in full before it anneals whatever it is
/// like, so that a puzzle probing decides takes no slot: where the first
/// round would reach [`probe_after_sweeps`] (`gpu`'s rounds of 20 sweeps on
/// 9×9 boards, `cpu-bits`' of 10). Probed after its first round instead, a
/// magictour puzzle paid for ten sweeps of completion on `gpu` first, and
/// `cpu-bits`' anneal solved 1 of the 1,465 in its first round
/// (BENCHMARKS.md, session 55). `reduce_before_annealing` also probes in
/// full the puzzles with many spins free after singles.
fn first_round_reaches_probing(puzzle: &Grid, settings: &Settings) -> bool {
    settings.exchange_every >= probe_after_sweeps(puzzle)
}

/// A puzzle read and built, on its way to a slot.
pub(super) struct Ready {
    pub sequence: u64,
    pub entry: Entry,
    pub model: Model,
    pub prepare_time: Duration,
    /// Whether it was probed in full already (`reduce_before_annealing`).
    pub probed: bool,
}

/// What reduction and model building leave to do for one puzzle.
enum Prepared {
    /// Decided without annealing: invalid, or solved by reduction.
    Decided(Status),
    /// Boxed: the decided ones, which on easy collections are nearly all,
    /// move less. `probed`: probed in full already.
    Anneal { model: Box<Model>, probed: bool },
}

/// The candidates a reduction of `puzzle` left, or the status it decides:
/// solved (and verified), or invalid.
pub(super) fn reduced_or_decided(
    puzzle: &Grid,
    reduced: std::result::Result<Candidates, PuzzleError>,
) -> std::result::Result<Candidates, Status> {
    let candidates = reduced.map_err(Status::Invalid)?;
    if candidates.fixed.is_complete() {
        return Err(checked(puzzle, candidates.fixed));
    }
    Ok(candidates)
}

/// Reduces and builds `puzzle`: probed briefly, or in full where that comes
/// first (`reduce_before_annealing`), which decides it or not.
fn prepare(puzzle: &Grid, settings: &Settings) -> Prepared {
    let in_full = first_round_reaches_probing(puzzle, settings);
    let reduced = reduce_before_annealing(puzzle, settings.reduce, in_full);
    let probed = reduced.as_ref().is_ok_and(|&(_, probed)| probed);
    let candidates = match reduced_or_decided(puzzle, reduced.map(|(candidates, _)| candidates)) {
        Ok(candidates) => candidates,
        Err(status) => return Prepared::Decided(status),
    };
    match Model::build(&candidates) {
        Ok(model) => Prepared::Anneal { model: Box::new(model), probed },
        Err(reason) => Prepared::Decided(Status::Invalid(reason)),
    }
}

pub(super) struct Intake<I> {
    entries: I,
    /// Entries read so far: the next one's sequence number.
    read: u64,
    done: bool,
    /// A read error; it ends the input once the entries before it are finished.
    error: Option<Error>,
    /// Puzzles read and built, waiting for a slot, oldest first.
    pub ready: VecDeque<Ready>,
}

impl<I: Input> Intake<I> {
    pub fn new(entries: I) -> Intake<I> {
        Intake { entries, read: 0, done: false, error: None, ready: VecDeque::new() }
    }

    /// Whether more entries may come.
    pub fn open(&self) -> bool {
        !self.done && self.error.is_none()
    }

    /// Whether every entry was read and handed on.
    pub fn drained(&self) -> bool {
        self.ready.is_empty() && !self.open()
    }

    /// The end of the input: the read error that ended it, if any.
    pub fn finish(&mut self) -> Result<()> {
        self.error.take().map_or(Ok(()), Err)
    }

    /// Reads up to `n` entries (serial) and prepares them (in parallel):
    /// the decided ones go to `pending`, the others to the back of `ready`.
    /// Waits for the first entry only when `wait`; false when it stopped
    /// because the input has nothing yet.
    pub fn read(&mut self, n: usize, wait: bool, settings: &Settings, pending: &mut Pending) -> bool {
        let (mut batch, first) = (Vec::with_capacity(n), self.read);
        let mut not_yet = false;
        while batch.len() < n && self.open() && !not_yet {
            match self.entries.next_entry(wait && batch.is_empty()) {
                Next::End => self.done = true,
                Next::NotYet => not_yet = true,
                Next::Entry(Err(err)) => self.error = Some(err),
                Next::Entry(Ok(entry)) => {
                    batch.push((self.read, entry));
                    self.read += 1;
                }
            }
        }
        // `None`: the line is not a puzzle. Each puzzle's time runs from the
        // end of the one before it in the same job: one clock read per
        // puzzle, not two (a read costs some 3 % of an easy puzzle).
        let prepared: Vec<(Option<Prepared>, Duration)> = batch
            .par_iter()
            .map_init(Instant::now, |start, (_, entry)| {
                let prepared = entry.grid.as_ref().ok().map(|puzzle| prepare(puzzle, settings));
                let end = Instant::now();
                (prepared, end - std::mem::replace(start, end))
            })
            .collect();
        for ((sequence, entry), (prepared, prepare_time)) in batch.into_iter().zip(prepared) {
            match prepared {
                None => {
                    let reason = entry.grid.clone().expect_err("unparsed entries have no puzzle");
                    pending.insert(sequence, (entry, Outcome::invalid(reason)));
                }
                Some(Prepared::Decided(status)) => {
                    pending.insert(sequence, (entry, Outcome::decided(status, prepare_time)));
                }
                Some(Prepared::Anneal { model, probed }) => {
                    self.ready.push_back(Ready { sequence, entry, model: *model, prepare_time, probed })
                }
            }
        }
        !not_yet || self.read > first
    }
}
