//! The pipeline for a stream of puzzles: reduce → build → anneal with
//! parallel tempering in a batch of slots → decode → verify, one record per
//! puzzle in input order. Backends are interchangeable.

use std::collections::{BTreeMap, VecDeque};
use std::ops::Range;
use std::time::{Duration, Instant};

use rayon::prelude::*;

use crate::backend::{Backend, Layout, Problem};
use crate::decode::{decode, verify};
use crate::error::{Error, PuzzleError, Result};
use crate::grid::{Grid, Shape, Variant};
use crate::model::Model;
use crate::puzzle::Entry;
use crate::reduce::{check_clues, reduce, Reduce};
use crate::tempering::{Exchange, Ladder};

/// How to anneal one puzzle.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Settings {
    /// Replicas per ladder, one per rung.
    pub replicas: usize,
    /// Independent ladders per puzzle: `ladders × replicas` replicas in all.
    pub ladders: usize,
    /// Puzzles annealed at once.
    pub batch: usize,
    pub t_min: f64,
    pub t_max: f64,
    /// An explicit ladder, increasing, one temperature per replica of a
    /// ladder; replaces the geometric one from `t_min` to `t_max`.
    pub temperatures: Option<Vec<f64>>,
    /// Sweeps between two exchange rounds (and zero-energy checks).
    pub exchange_every: u32,
    pub max_sweeps: u32,
    #[serde(rename = "timeout_seconds", serialize_with = "as_seconds")]
    pub timeout: Option<Duration>,
    pub seed: u64,
    pub reduce: Reduce,
    /// The rules; the size follows from each puzzle line's length.
    pub variant: Variant,
    /// The geometric ladder for boards of order 9 or less where it differs
    /// from the one above; `None`: one ladder for every board.
    pub small_boards: Option<GeometricLadder>,
}

/// Replicas per ladder and the ends of their geometric ladder.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct GeometricLadder {
    pub replicas: usize,
    pub t_min: f64,
    pub t_max: f64,
}

/// The largest board order the small-board ladder applies to.
const SMALL_BOARD_ORDER: usize = 9;

fn as_seconds<S: serde::Serializer>(timeout: &Option<Duration>, serializer: S) -> std::result::Result<S::Ok, S::Error> {
    serializer.serialize_some(&timeout.map(|t| t.as_secs_f64()))
}

/// The default ladder's ends for `variant`. A defect (a digit missing or
/// doubled) costs in proportion to the constraints a spin is in, 4 on
/// Sudoku boards and 3 on Latin squares, and so do the temperature where a
/// board orders and the one where replicas roam freely: 0.1 and 0.3 per
/// constraint. With the Sudoku ladder (0.4) an empty Latin square of order
/// 12 or more never orders; 0.3 orders it in tens of sweeps (BENCHMARKS.md).
pub fn default_temperatures(variant: Variant) -> (f64, f64) {
    match variant {
        Variant::Standard | Variant::X => (0.4, 1.2),
        Variant::Latin => (0.3, 0.9),
    }
}

impl Default for Settings {
    fn default() -> Self {
        let (t_min, t_max) = default_temperatures(Variant::Standard);
        Settings {
            replicas: 16,
            ladders: 1,
            batch: 1,
            t_min,
            t_max,
            temperatures: None,
            exchange_every: 10,
            max_sweeps: 1_000_000,
            timeout: Some(Duration::from_secs(60)),
            seed: 0,
            reduce: Reduce::Clues,
            variant: Variant::Standard,
            small_boards: None,
        }
    }
}

impl Settings {
    pub fn validate(&self) -> Result<()> {
        let fail = |what: &str| Err(Error::Settings(what.to_string()));
        if self.replicas < 1 || self.ladders < 1 || self.batch < 1 {
            return fail("--replicas, --ladders and --batch must be at least 1");
        }
        let in_flight = self.replicas.checked_mul(self.ladders).and_then(|r| r.checked_mul(self.batch));
        if in_flight.is_none_or(|total| total > u32::MAX as usize / 1024) {
            return fail("--replicas × --ladders × --batch is too large");
        }
        match &self.temperatures {
            Some(ladder) => {
                let increasing = ladder.windows(2).all(|pair| pair[0] < pair[1]);
                if !(increasing && ladder.iter().all(|t| *t > 0.0 && t.is_finite())) {
                    return fail("--temperatures must be positive and increasing");
                }
                if ladder.len() != self.replicas {
                    return fail("--temperatures must list one temperature per replica of a ladder");
                }
            }
            None if !(self.t_min > 0.0
                && self.t_min.is_finite()
                && self.t_max.is_finite()
                && self.t_min <= self.t_max) =>
            {
                return fail("temperatures must satisfy 0 < --t-min <= --t-max");
            }
            None => {}
        }
        if self.exchange_every < 1 {
            return fail("--exchange-every must be at least 1");
        }
        match self.small_boards {
            Some(_) => self.for_shape(Shape { n: SMALL_BOARD_ORDER, variant: self.variant }).validate(),
            None => Ok(()),
        }
    }

    /// The settings for boards of `shape`: the small-board ladder there, if any.
    pub fn for_shape(&self, shape: Shape) -> Settings {
        match self.small_boards {
            Some(GeometricLadder { replicas, t_min, t_max }) if shape.n <= SMALL_BOARD_ORDER => {
                Settings { replicas, t_min, t_max, temperatures: None, small_boards: None, ..self.clone() }
            }
            _ => Settings { small_boards: None, ..self.clone() },
        }
    }

    /// The temperature ladder: the explicit one, else geometric from `t_min` to `t_max`.
    pub fn ladder(&self) -> Ladder {
        match &self.temperatures {
            Some(temperatures) => Ladder { temperatures: temperatures.clone() },
            None => Ladder::geometric(self.replicas, self.t_min, self.t_max),
        }
    }

    /// These settings with at most `max_replicas` replicas in flight: the
    /// batch shrinks, down to one puzzle (which may still not fit; the
    /// backend then refuses it).
    pub fn fit_replicas(&self, max_replicas: usize) -> Settings {
        let fits = (max_replicas / (self.ladders * self.replicas)).max(1);
        Settings { batch: self.batch.min(fits), ..self.clone() }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum Status {
    Solved(Grid),
    Unsolved,
    Invalid(PuzzleError),
}

/// What happened to one puzzle.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    pub status: Status,
    /// Sweeps run per replica (0 when reduction alone decided it).
    pub sweeps: u64,
    /// Time to reduce and build the model plus time from its slot load to
    /// this outcome; not the time it queued, nor the backend's warm-up.
    pub seconds: f64,
    /// Metropolis attempts over all replicas: sweeps × replicas × free spins.
    pub attempts: u64,
    /// Exchange proposals and acceptances of each adjacent pair of rungs
    /// (rung k with k + 1), summed over the puzzle's ladders.
    pub swap_attempts: Vec<u64>,
    pub swap_accepted: Vec<u64>,
}

impl Outcome {
    /// The outcome of a puzzle that could not even be parsed.
    pub fn invalid(reason: PuzzleError) -> Outcome {
        Outcome::decided(Status::Invalid(reason), Duration::ZERO)
    }

    fn decided(status: Status, prepare_time: Duration) -> Outcome {
        Outcome {
            status,
            sweeps: 0,
            seconds: prepare_time.as_secs_f64(),
            attempts: 0,
            swap_attempts: Vec::new(),
            swap_accepted: Vec::new(),
        }
    }
}

/// What reduction and model building leave to do for one puzzle.
enum Prepared {
    /// Decided without annealing: invalid, or solved by reduction.
    Decided(Status),
    Anneal(Model),
}

fn prepare(puzzle: &Grid, settings: &Settings) -> Result<Prepared> {
    let candidates = match check_clues(puzzle).and_then(|()| reduce(puzzle, settings.reduce)) {
        Ok(candidates) => candidates,
        Err(reason) => return Ok(Prepared::Decided(Status::Invalid(reason))),
    };
    if candidates.fixed.is_complete() {
        checked(puzzle, &candidates.fixed)?;
        return Ok(Prepared::Decided(Status::Solved(candidates.fixed)));
    }
    Ok(match Model::build(&candidates) {
        Ok(model) => Prepared::Anneal(model),
        Err(reason) => Prepared::Decided(Status::Invalid(reason)),
    })
}

/// A puzzle read and built, on its way to a slot.
struct Ready {
    sequence: u64,
    entry: Entry,
    model: Model,
    prepare_time: Duration,
}

/// A puzzle annealing in a slot.
struct Active {
    sequence: u64,
    entry: Entry,
    model: Model,
    exchanges: Vec<Exchange>,
    sweeps: u32,
    started: Instant,
}

/// Results waiting for their turn in input order.
const MAX_PENDING: usize = 4096;

/// Solves a stream of puzzles, `settings.batch` at a time, and calls `emit`
/// once per entry in input order. An `Err` from the stream stops reading:
/// the puzzles already read are finished and emitted, then the error is
/// returned. When `stop()` turns true (checked every round) the run ends
/// at once: results that are ready in order are emitted, the rest dropped.
/// `Err` otherwise only for failures of the backend or a broken invariant;
/// an unsolvable or malformed puzzle is an `Outcome`.
pub fn solve_stream(
    entries: impl Iterator<Item = Result<Entry>>,
    settings: &Settings,
    backend: &mut dyn Backend,
    mut emit: impl FnMut(Entry, Outcome) -> Result<()>,
    stop: impl Fn() -> bool,
) -> Result<()> {
    // The settings for the board shape the batch holds, and what follows from them.
    let mut shaped = settings.for_shape(Shape::CLASSIC);
    let mut per_slot = shaped.ladders * shaped.replicas;
    let mut ladder = shaped.ladder();
    let mut intake = Intake { entries: entries.fuse(), read: 0, done: false, error: None };
    let mut slots: Vec<Option<Active>> = (0..settings.batch).map(|_| None).collect();
    // The board shape the batch holds (one at a time).
    let mut configured: Option<Shape> = None;
    // Slots in use: fewer than `settings.batch` when a large board's replicas exceed the device's buffers.
    let mut usable = settings.batch;
    // Puzzles read and built, waiting for a slot, oldest first. One of
    // another board shape waits at the front until the batch drains.
    let mut ready: VecDeque<Ready> = VecDeque::new();
    let mut pending: BTreeMap<u64, (Entry, Outcome)> = BTreeMap::new();
    let mut emitted = 0u64;
    let mut rung_of_replica = vec![0u32; settings.batch * per_slot];
    let mut counts = vec![0u32; settings.batch];
    // Slot ranges submitted and collected on their own; with two, the
    // device sweeps one while the host exchanges and refills the other.
    let mut banks = split(usable, backend.overlaps_host_work());
    let mut in_flight = vec![false; banks.len()];
    let mut b = 0;
    loop {
        let stopping = stop();
        let mut bank = banks[b].clone();
        if in_flight[b] {
            in_flight[b] = false;
            collect(bank.clone(), &counts[bank.clone()], &mut slots, &shaped, backend, &mut pending)?;
        }
        let mut empty: VecDeque<usize> = bank.clone().filter(|&slot| slots[slot].is_none()).collect();
        while !stopping && !empty.is_empty() {
            let Some(next) = ready.front() else {
                if !intake.open() || pending.len() >= MAX_PENDING {
                    break;
                }
                intake.read(empty.len(), settings, &mut pending, &mut ready)?;
                continue;
            };
            let shape = next.model.fixed.shape;
            if configured != Some(shape) {
                // Nothing is in flight once every slot is empty.
                if slots.iter().any(Option::is_some) {
                    break;
                }
                shaped = settings.for_shape(shape);
                per_slot = shaped.ladders * shaped.replicas;
                ladder = shaped.ladder();
                rung_of_replica = vec![0; settings.batch * per_slot];
                usable = shaped.fit_replicas(backend.max_replicas(shape)).batch;
                let layout = Layout { shape, slots: usable, replicas_per_slot: per_slot, rungs: shaped.replicas };
                backend.configure(layout)?;
                configured = Some(shape);
                banks = split(usable, backend.overlaps_host_work());
                in_flight = vec![false; banks.len()];
                b = 0;
                bank = banks[b].clone();
                empty = bank.clone().collect();
            }
            let (slot, Ready { sequence, entry, model, prepare_time }) =
                (empty.pop_front().expect("checked above"), ready.pop_front().expect("checked above"));
            backend.load(slot, &Problem::new(&model, &ladder, shaped.seed))?;
            // A one-rung ladder has nothing to exchange: its replicas stay at rung 0.
            let exchanges = match ladder.rungs() {
                1 => Vec::new(),
                _ => (0..shaped.ladders as u32).map(|index| Exchange::new(&ladder, shaped.seed, index)).collect(),
            };
            // Its clock counts the preparation it already had.
            let started = Instant::now().checked_sub(prepare_time).unwrap_or_else(Instant::now);
            slots[slot] = Some(Active { sequence, entry, model, exchanges, sweeps: 0, started });
        }
        while let Some((entry, outcome)) = pending.remove(&emitted) {
            emit(entry, outcome)?;
            emitted += 1;
        }
        if stopping {
            return Ok(());
        }
        if slots[bank.clone()].iter().any(Option::is_some) {
            let replicas = bank.start * per_slot..bank.end * per_slot;
            let (rungs, counts) = (&mut rung_of_replica[replicas], &mut counts[bank.clone()]);
            rungs.par_chunks_mut(per_slot).zip(&mut *counts).zip(&slots[bank.clone()]).for_each(
                |((rungs, count), active)| {
                    *count = active.as_ref().map_or(0, |a| shaped.exchange_every.min(shaped.max_sweeps - a.sweeps));
                    if let Some(active) = active {
                        for (rungs, exchange) in rungs.chunks_mut(shaped.replicas).zip(&active.exchanges) {
                            rungs.copy_from_slice(&exchange.rung_of_replica);
                        }
                    }
                },
            );
            backend.submit(bank.clone(), rungs, counts)?;
            in_flight[b] = true;
        } else if slots.iter().all(Option::is_none) && ready.is_empty() && !intake.open() {
            // Nothing anneals, so nothing holds back the pending results: all were emitted.
            return intake.error.map_or(Ok(()), Err);
        }
        b = (b + 1) % banks.len();
    }
}

/// The slot ranges of a batch of `slots`: two halves when the backend
/// sweeps while the host works (and there are two slots), else one.
fn split(slots: usize, overlap: bool) -> Vec<Range<usize>> {
    let first = if overlap && slots >= 2 { slots.div_ceil(2) } else { slots };
    [0..first, first..slots].into_iter().filter(|bank| !bank.is_empty()).collect()
}

/// Collects a round of the slots in `bank`, which ran `counts` sweeps:
/// exchanges every ladder, and moves each solved puzzle (decoded and
/// verified) or one out of budget to `pending`, emptying its slot.
fn collect(
    bank: Range<usize>,
    counts: &[u32],
    slots: &mut [Option<Active>],
    settings: &Settings,
    backend: &mut dyn Backend,
    pending: &mut BTreeMap<u64, (Entry, Outcome)>,
) -> Result<()> {
    let per_slot = settings.ladders * settings.replicas;
    let energies = backend.energies(bank.clone())?;
    // Exchanging 4,096 ladders (the GPU defaults) takes most of a
    // millisecond on one core; slots are independent, so in parallel.
    let verdicts: Vec<Verdict> = slots[bank.clone()]
        .par_iter_mut()
        .zip(energies.par_chunks(per_slot))
        .zip(counts)
        .map(|((entry, energies), &count)| {
            let Some(active) = entry else { return Verdict::Idle };
            active.sweeps += count;
            if let Some(replica) = energies.iter().position(|&e| e == 0) {
                return Verdict::Solved(replica);
            }
            for (energies, exchange) in energies.chunks(settings.replicas).zip(&mut active.exchanges) {
                exchange.exchange(energies);
            }
            let out_of_time = settings.timeout.is_some_and(|limit| active.started.elapsed() >= limit);
            if active.sweeps >= settings.max_sweeps || out_of_time {
                Verdict::Unsolved
            } else {
                Verdict::Continue
            }
        })
        .collect();
    // One readback for every slot solved this round.
    let solved: Vec<usize> = verdicts
        .iter()
        .zip(bank.clone())
        .filter_map(|(verdict, slot)| match verdict {
            Verdict::Solved(replica) => Some(slot * per_slot + replica),
            _ => None,
        })
        .collect();
    let mut solutions = backend.spins(&solved)?.into_iter();
    for (verdict, slot) in verdicts.into_iter().zip(bank) {
        let status = match verdict {
            Verdict::Idle | Verdict::Continue => continue,
            Verdict::Unsolved => Status::Unsolved,
            Verdict::Solved(_) => {
                let active = slots[slot].as_ref().expect("a solved slot is active");
                let spins = solutions.next().expect("one solution per solved slot");
                let grid = decode(&active.model, &spins).ok_or_else(|| {
                    Error::Internal(format!("{} backend: a zero-energy replica does not decode", backend.name()))
                })?;
                checked(active.entry.grid.as_ref().expect("annealed puzzles parsed"), &grid)?;
                Status::Solved(grid)
            }
        };
        let active = slots[slot].take().expect("matched above");
        backend.unload(slot)?;
        let outcome = Outcome {
            status,
            sweeps: active.sweeps as u64,
            seconds: active.started.elapsed().as_secs_f64(),
            attempts: active.sweeps as u64 * per_slot as u64 * active.model.len() as u64,
            swap_attempts: per_pair(&active.exchanges, |e| &e.attempts),
            swap_accepted: per_pair(&active.exchanges, |e| &e.accepted),
        };
        pending.insert(active.sequence, (active.entry, outcome));
    }
    Ok(())
}

/// The input side of [`solve_stream`]: reads entries, and reduces and
/// builds their models many at a time.
struct Intake<I> {
    entries: std::iter::Fuse<I>,
    /// Entries read so far: the next one's sequence number.
    read: u64,
    done: bool,
    /// A read error; it ends the input once the entries before it are finished.
    error: Option<Error>,
}

impl<I: Iterator<Item = Result<Entry>>> Intake<I> {
    /// Whether more entries may come.
    fn open(&self) -> bool {
        !self.done && self.error.is_none()
    }

    /// Reads up to `n` entries (serial) and reduces and builds them (in
    /// parallel: a puzzle's model needs nothing of another's): the decided
    /// ones go to `pending`, the others to the back of `ready`.
    fn read(
        &mut self,
        n: usize,
        settings: &Settings,
        pending: &mut BTreeMap<u64, (Entry, Outcome)>,
        ready: &mut VecDeque<Ready>,
    ) -> Result<()> {
        let mut batch = Vec::with_capacity(n);
        while batch.len() < n && self.open() {
            match self.entries.next() {
                None => self.done = true,
                Some(Err(err)) => self.error = Some(err),
                Some(Ok(entry)) => {
                    batch.push((self.read, entry));
                    self.read += 1;
                }
            }
        }
        // `None`: the line is not a puzzle.
        let prepared: Vec<(Result<Option<Prepared>>, Duration)> = batch
            .par_iter()
            .map(|(_, entry)| {
                let start = Instant::now();
                let prepared = entry.grid.as_ref().map_or(Ok(None), |puzzle| prepare(puzzle, settings).map(Some));
                (prepared, start.elapsed())
            })
            .collect();
        for ((sequence, entry), (prepared, prepare_time)) in batch.into_iter().zip(prepared) {
            match prepared? {
                None => {
                    let reason = entry.grid.clone().expect_err("unparsed entries have no puzzle");
                    pending.insert(sequence, (entry, Outcome::invalid(reason)));
                }
                Some(Prepared::Decided(status)) => {
                    pending.insert(sequence, (entry, Outcome::decided(status, prepare_time)));
                }
                Some(Prepared::Anneal(model)) => ready.push_back(Ready { sequence, entry, model, prepare_time }),
            }
        }
        Ok(())
    }
}

/// What a round left a slot in.
enum Verdict {
    Idle,
    Continue,
    /// This replica (within the slot) reached energy 0.
    Solved(usize),
    /// Out of sweeps or time.
    Unsolved,
}

/// A per-pair statistic summed over ladders.
fn per_pair(exchanges: &[Exchange], field: impl Fn(&Exchange) -> &Vec<u64>) -> Vec<u64> {
    let mut sums = vec![0; exchanges.first().map_or(0, |e| field(e).len())];
    for exchange in exchanges {
        sums.iter_mut().zip(field(exchange)).for_each(|(sum, n)| *sum += n);
    }
    sums
}

/// [`solve_stream`] that survives a device failure: when the backend fails
/// with [`Error::Gpu`] (a lost device, a failed dispatch), `fallback` may
/// offer another backend and its settings, and every puzzle read but not
/// yet emitted runs again there, then the rest of the stream. Records stay
/// one per puzzle, in input order.
pub fn solve_stream_with_fallback(
    mut entries: impl Iterator<Item = Result<Entry>>,
    settings: &Settings,
    backend: &mut dyn Backend,
    fallback: impl FnOnce(&Error) -> Option<(Box<dyn Backend>, Settings)>,
    mut emit: impl FnMut(Entry, Outcome) -> Result<()>,
    stop: impl Fn() -> bool,
) -> Result<()> {
    // Puzzles read and not yet emitted, oldest first (emission is in input order).
    let unfinished = std::cell::RefCell::new(std::collections::VecDeque::new());
    let tracked = entries.by_ref().inspect(|entry| {
        if let Ok(entry) = entry {
            unfinished.borrow_mut().push_back(entry.clone());
        }
    });
    let emit_tracked = |entry, outcome| {
        unfinished.borrow_mut().pop_front();
        emit(entry, outcome)
    };
    let error = match solve_stream(tracked, settings, backend, emit_tracked, &stop) {
        Err(error @ Error::Gpu(_)) => error,
        other => return other,
    };
    let Some((mut replacement, replacement_settings)) = fallback(&error) else { return Err(error) };
    let again = unfinished.into_inner().into_iter().map(Ok).chain(entries);
    solve_stream(again, &replacement_settings, replacement.as_mut(), emit, stop)
}

/// Solves one puzzle on its own.
pub fn solve(puzzle: &Grid, settings: &Settings, backend: &mut dyn Backend) -> Result<Outcome> {
    let entry = Entry { line: 1, text: puzzle.to_string(), grid: Ok(puzzle.clone()) };
    let mut result = None;
    let one = Settings { batch: 1, ..settings.clone() };
    let keep = |_, outcome| {
        result = Some(outcome);
        Ok(())
    };
    solve_stream(std::iter::once(Ok(entry)), &one, backend, keep, || false)?;
    result.ok_or_else(|| Error::Internal("no outcome for the puzzle".into()))
}

/// A grid reached this far must pass the independent verifier; if it does
/// not, the engine is broken and nothing may be printed as solved.
fn checked(puzzle: &Grid, solution: &Grid) -> Result<()> {
    verify(puzzle, solution).map_err(|why| Error::Internal(format!("the verifier rejected grid {solution}: {why}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batches_shrink_to_the_replicas_a_device_holds() {
        let settings = Settings { replicas: 16, ladders: 64, batch: 200, ..Settings::default() };
        assert_eq!(settings.fit_replicas(103_563).batch, 101);
        assert_eq!(settings.fit_replicas(usize::MAX).batch, 200);
        assert_eq!(settings.fit_replicas(10).batch, 1);
    }
}
