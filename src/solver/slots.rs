//! The slots of a batch on the backend: puzzles loaded into them, rounds of
//! sweeps submitted bank by bank, and rounds collected into exchanges,
//! verified solutions and outcomes.

use std::ops::Range;
use std::time::Instant;

use rayon::prelude::*;

use super::intake::{probe_after_sweeps, reduced_or_decided, Intake, Pending, Ready};
use super::observe::{Observer, Progress};
use crate::backend::{Backend, Layout, Problem};
use crate::decode::checked;
use crate::decode::{cells_of, decode};
use crate::error::Result;
use crate::grid::Shape;
use crate::model::Model;
use crate::outcome::{Outcome, Status};
use crate::puzzle::{Entry, Input};
use crate::reduce::{reduce, Reduce};
use crate::settings::Settings;
use crate::tempering::{acceptance_rate, Exchange, Ladder};

/// Results waiting for their turn in input order: no more are read while
/// this many wait.
const MAX_PENDING: usize = 4096;
/// Entries read and prepared at once, however few slots are empty: most
/// puzzles of an easy collection never take a slot, and reading them one
/// at a time cost two allocations and a parallel call each.
pub(super) const READ_AT_ONCE: usize = 64;
/// A puzzle annealing in a slot.
struct Active {
    sequence: u64,
    entry: Entry,
    model: Model,
    exchanges: Vec<Exchange>,
    sweeps: u32,
    /// Attempts a sweep of one replica makes: a cell move weighs each
    /// candidate (one spin each), and each trade proposed is one more.
    attempts_per_sweep: u64,
    started: Instant,
    /// Whether probing is still to come.
    to_probe: bool,
}

impl Active {
    /// Spin-update attempts so far over its `per_slot` replicas: sweeps ×
    /// replicas × attempts a sweep.
    fn attempts(&self, per_slot: usize) -> u64 {
        self.sweeps as u64 * per_slot as u64 * self.attempts_per_sweep
    }

    /// Probes the puzzle once its anneal has had its first sweeps, if it is
    /// to be probed: the status probing decides, if any. What probing
    /// removes from a puzzle it does not decide is not worth a fresh start
    /// (BENCHMARKS.md): the anneal goes on as it was.
    fn probe_when_due(&mut self) -> Option<Status> {
        let puzzle = self.entry.grid.as_ref().expect("annealed puzzles parsed");
        if !self.to_probe || self.sweeps < probe_after_sweeps(puzzle) {
            return None;
        }
        self.to_probe = false;
        reduced_or_decided(puzzle, reduce(puzzle, Reduce::Probe)).err()
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
    /// Probing decided it (solved, or no solution).
    Decided(Status),
}

/// The puzzles in flight: a slot per puzzle on the backend, each refilled
/// from the input when its puzzle is done.
pub(super) struct InFlight<'a> {
    settings: &'a Settings,
    backend: &'a mut dyn Backend,
    /// The board shape the batch holds (one at a time), and the settings for it.
    configured: Option<Shape>,
    shaped: Settings,
    ladder: Ladder,
    slots: Vec<Option<Active>>,
    /// Slot ranges submitted and collected on their own; with two, the
    /// device sweeps one while the host exchanges and refills the other.
    banks: Vec<Range<usize>>,
    in_flight: Vec<bool>,
    rung_of_replica: Vec<u32>,
    counts: Vec<u32>,
    observer: Option<&'a mut dyn Observer>,
    read_at_once: usize,
}

impl<'a> InFlight<'a> {
    pub fn new(
        settings: &'a Settings,
        backend: &'a mut dyn Backend,
        observer: Option<&'a mut dyn Observer>,
        read_at_once: usize,
    ) -> InFlight<'a> {
        let shaped = settings.for_shape(Shape::CLASSIC);
        let banks = split(settings.batch, backend.overlaps_host_work());
        InFlight {
            settings,
            ladder: shaped.ladder(),
            shaped,
            configured: None,
            slots: (0..settings.batch).map(|_| None).collect(),
            in_flight: vec![false; banks.len()],
            banks,
            backend,
            rung_of_replica: Vec::new(),
            counts: vec![0; settings.batch],
            observer,
            read_at_once,
        }
    }

    fn per_slot(&self) -> usize {
        self.shaped.ladders * self.shaped.replicas
    }

    /// Whether no slot holds a puzzle.
    pub fn idle(&self) -> bool {
        self.slots.iter().all(Option::is_none)
    }

    pub fn next_bank(&self, bank: usize) -> usize {
        (bank + 1) % self.banks.len()
    }

    /// Fills the empty slots of `bank` with puzzles from `intake`, reading
    /// more as needed. A puzzle of another board shape waits until every
    /// slot is empty, then the batch is configured for it: the bank to
    /// submit is returned, the first one after a change.
    pub fn refill<I: Input>(
        &mut self,
        mut bank: usize,
        intake: &mut Intake<I>,
        pending: &mut Pending,
    ) -> Result<usize> {
        let mut empty: Vec<usize> = self.banks[bank].clone().filter(|&slot| self.slots[slot].is_none()).collect();
        empty.reverse();
        while let Some(&slot) = empty.last() {
            let Some(next) = intake.ready.front() else {
                if !intake.open() || pending.len() >= MAX_PENDING {
                    break;
                }
                // Wait for input only with nothing else to do: no puzzle
                // annealing, no record to write first.
                let wait = self.idle() && pending.is_empty();
                if !intake.read(empty.len().max(self.read_at_once), wait, self.settings, pending) {
                    break;
                }
                continue;
            };
            let shape = next.model.fixed.shape;
            if self.configured != Some(shape) {
                // Nothing is in flight once every slot is empty.
                if !self.idle() {
                    break;
                }
                self.configure(shape)?;
                bank = 0;
                empty = self.banks[bank].clone().rev().collect();
                continue;
            }
            empty.pop();
            let ready = intake.ready.pop_front().expect("checked above");
            self.load(slot, ready)?;
        }
        Ok(bank)
    }

    fn configure(&mut self, shape: Shape) -> Result<()> {
        self.shaped = self.settings.for_shape(shape);
        self.ladder = self.shaped.ladder();
        let per_slot = self.per_slot();
        // Slots in use: fewer than the batch when a large board's replicas exceed the device's buffers.
        let usable = self.shaped.fit_replicas(self.backend.max_replicas(shape)).batch;
        let rungs = self.shaped.replicas;
        let dynamics = self.shaped.dynamics();
        self.backend.configure(Layout { shape, slots: usable, replicas_per_slot: per_slot, rungs, dynamics })?;
        self.configured = Some(shape);
        self.rung_of_replica = vec![0; self.settings.batch * per_slot];
        self.banks = split(usable, self.backend.overlaps_host_work());
        self.in_flight = vec![false; self.banks.len()];
        Ok(())
    }

    fn load(&mut self, slot: usize, Ready { sequence, entry, model, prepare_time, probed }: Ready) -> Result<()> {
        let (ladder, seed) = (&self.ladder, self.shaped.seed);
        let problem = Problem::with_dynamics(&model, ladder, seed, self.shaped.dynamics());
        self.backend.load(slot, &problem)?;
        let attempts_per_sweep = problem.attempts_per_sweep();
        // A one-rung ladder has nothing to exchange: its replicas stay at rung 0.
        let exchanges = match ladder.rungs() {
            1 => Vec::new(),
            _ => (0..self.shaped.ladders as u32).map(|index| Exchange::new(ladder, seed, index)).collect(),
        };
        // Its clock counts the preparation it already had.
        let started = Instant::now().checked_sub(prepare_time).unwrap_or_else(Instant::now);
        let to_probe = self.settings.reduce == Reduce::Probe && !probed;
        self.slots[slot] =
            Some(Active { sequence, entry, model, exchanges, sweeps: 0, attempts_per_sweep, started, to_probe });
        Ok(())
    }

    /// Submits the next round of `bank`'s puzzles, if it holds any; returns whether it did.
    pub fn submit(&mut self, bank: usize) -> Result<bool> {
        let range = self.banks[bank].clone();
        if self.slots[range.clone()].iter().all(Option::is_none) {
            return Ok(false);
        }
        let (per_slot, shaped) = (self.per_slot(), &self.shaped);
        let replicas = range.start * per_slot..range.end * per_slot;
        let (rungs, counts) = (&mut self.rung_of_replica[replicas], &mut self.counts[range.clone()]);
        rungs.par_chunks_mut(per_slot).zip(&mut *counts).zip(&self.slots[range.clone()]).for_each(
            |((rungs, count), active)| {
                *count = active.as_ref().map_or(0, |a| shaped.exchange_every.min(shaped.budget.max_sweeps - a.sweeps));
                if let Some(active) = active {
                    for (rungs, exchange) in rungs.chunks_mut(shaped.replicas).zip(&active.exchanges) {
                        rungs.copy_from_slice(&exchange.rung_of_replica);
                    }
                }
            },
        );
        self.backend.submit(range, rungs, counts)?;
        self.in_flight[bank] = true;
        Ok(true)
    }

    /// Collects `bank`'s round, if one is in flight: exchanges every
    /// ladder, and moves each solved puzzle (decoded and verified) or one
    /// out of budget to `pending`, emptying its slot.
    pub fn collect(&mut self, bank: usize, pending: &mut Pending) -> Result<()> {
        if !std::mem::take(&mut self.in_flight[bank]) {
            return Ok(());
        }
        let range = self.banks[bank].clone();
        let (per_slot, shaped) = (self.per_slot(), &self.shaped);
        let energies = self.backend.energies(range.clone())?;
        // Exchanging 4,096 ladders (the GPU defaults) takes most of a
        // millisecond on one core; slots are independent, so in parallel.
        let verdicts: Vec<Verdict> = self.slots[range.clone()]
            .par_iter_mut()
            .zip(energies.par_chunks(per_slot))
            .zip(&self.counts[range.clone()])
            .map(|((active, energies), &count)| {
                let Some(active) = active else { return Verdict::Idle };
                active.sweeps += count;
                if let Some(replica) = energies.iter().position(|&e| e == 0) {
                    return Verdict::Solved(replica);
                }
                for (energies, exchange) in energies.chunks(shaped.replicas).zip(&mut active.exchanges) {
                    exchange.exchange(energies);
                }
                let out_of_time = shaped.budget.timeout.is_some_and(|limit| active.started.elapsed() >= limit);
                if active.sweeps >= shaped.budget.max_sweeps || out_of_time {
                    return Verdict::Unsolved;
                }
                active.probe_when_due().map_or(Verdict::Continue, Verdict::Decided)
            })
            .collect();
        // One readback for every slot solved this round.
        let solved: Vec<usize> = verdicts
            .iter()
            .zip(range.clone())
            .filter_map(|(verdict, slot)| match verdict {
                Verdict::Solved(replica) => Some(slot * per_slot + replica),
                _ => None,
            })
            .collect();
        if self.observer.is_some() {
            self.show(range.clone(), &verdicts)?;
        }
        let mut solutions = self.backend.spins(&solved)?.into_iter();
        for (verdict, slot) in verdicts.into_iter().zip(range) {
            let by_reduction = matches!(verdict, Verdict::Decided(_));
            let status = match verdict {
                Verdict::Idle | Verdict::Continue => continue,
                Verdict::Unsolved => Status::Unsolved,
                Verdict::Decided(status) => status,
                Verdict::Solved(_) => {
                    let active = self.slots[slot].as_ref().expect("a solved slot is active");
                    let spins = solutions.next().expect("one solution per solved slot");
                    match decode(&active.model, &spins) {
                        Some(grid) => checked(active.entry.grid.as_ref().expect("annealed puzzles parsed"), grid),
                        None => Status::Failed(format!(
                            "{} backend: a zero-energy replica does not decode",
                            self.backend.name()
                        )),
                    }
                }
            };
            let active = self.slots[slot].take().expect("matched above");
            self.backend.unload(slot)?;
            let outcome = Outcome {
                status,
                sweeps: active.sweeps as u64,
                seconds: active.started.elapsed().as_secs_f64(),
                attempts: active.attempts(per_slot),
                swap_attempts: per_pair(&active.exchanges, |e| &e.attempts),
                swap_accepted: per_pair(&active.exchanges, |e| &e.accepted),
                by_reduction,
            };
            pending.insert(active.sequence, (active.entry, outcome));
        }
        Ok(())
    }
}

impl InFlight<'_> {
    /// Tells the observer what the round left each puzzle of `range` in,
    /// when it asks, and always after a puzzle's last round (its final
    /// state): energies of the plain model, from the replicas' states (the
    /// backend's are weighted where weights adapt).
    fn show(&mut self, range: Range<usize>, verdicts: &[Verdict]) -> Result<()> {
        let per_slot = self.per_slot();
        for (slot, verdict) in range.zip(verdicts) {
            let Some(active) = &self.slots[slot] else { continue };
            let observer = self.observer.as_deref_mut().expect("called with an observer");
            let last = matches!(verdict, Verdict::Solved(_) | Verdict::Unsolved | Verdict::Decided(_));
            if !last && !observer.wants_round() {
                continue;
            }
            let states = self.backend.spins(&(slot * per_slot..(slot + 1) * per_slot).collect::<Vec<_>>())?;
            let energies: Vec<i32> = states.iter().map(|x| active.model.energy(x)).collect();
            let (best_replica, &best_energy) =
                energies.iter().enumerate().min_by_key(|&(_, e)| *e).expect("a slot has replicas");
            let best = cells_of(&active.model, &states[best_replica]);
            let rung_of_replica = match active.exchanges.is_empty() {
                // One-rung ladders exchange nothing: every replica stays on rung 0.
                true => vec![0; per_slot],
                false => active.exchanges.iter().flat_map(|e| e.rung_of_replica.iter().copied()).collect(),
            };
            // The temperatures the replicas ran at (hotter than the ladder's
            // where the chains heat for completion).
            let rungs = self.ladder.temperatures.len();
            let heat = self.shaped.dynamics().heat_after(active.model.geometry(), rungs, active.sweeps);
            let temperatures: Vec<f64> = self.ladder.temperatures.iter().map(|t| t * heat).collect();
            let attempts = per_pair(&active.exchanges, |e| &e.attempts);
            let accepted = per_pair(&active.exchanges, |e| &e.accepted);
            observer.round(Progress {
                entry: &active.entry,
                sweeps: active.sweeps as u64,
                attempts: active.attempts(per_slot),
                seconds: active.started.elapsed().as_secs_f64(),
                energies: &energies,
                rung_of_replica,
                temperatures: &temperatures,
                swap_acceptance: accepted.iter().zip(&attempts).map(|(&a, &n)| acceptance_rate(a, n)).collect(),
                best_energy,
                best,
                last,
            });
        }
        Ok(())
    }
}

/// The slot ranges of a batch of `slots`: two halves when the backend
/// sweeps while the host works (and there are two slots), else one.
fn split(slots: usize, overlap: bool) -> Vec<Range<usize>> {
    let first = if overlap && slots >= 2 { slots.div_ceil(2) } else { slots };
    [0..first, first..slots].into_iter().filter(|bank| !bank.is_empty()).collect()
}

/// A per-pair statistic summed over ladders.
fn per_pair(exchanges: &[Exchange], field: impl Fn(&Exchange) -> &Vec<u64>) -> Vec<u64> {
    let mut sums = vec![0; exchanges.first().map_or(0, |e| field(e).len())];
    for exchange in exchanges {
        sums.iter_mut().zip(field(exchange)).for_each(|(sum, n)| *sum += n);
    }
    sums
}
