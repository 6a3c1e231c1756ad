//! Stage 3, sweeps: a backend holds every replica's state and sweeps it
//! colour class by colour class, as `dynamics.rs` says (single-spin
//! Metropolis or heat-bath cell moves). `kind.rs` lists the backends: `cpu`
//! is the reference and `gpu` runs the same arithmetic in WGSL, bit for
//! bit; `cpu-bits` (`bitsliced/`) and `cpu-lanes` (`lanes/`) run the same
//! Markov chains with their own arithmetic and random streams; `bits32`
//! (`cpu/bits.rs`) is the twin of the GPU's bit-sliced kernel (`gpu-bits`).
//!
//! Replicas are grouped in *slots*, one puzzle per slot, so many puzzles
//! anneal at once and a finished slot takes the next puzzle:
//!
//! ```text
//!   replica:  0 ....... R-1 | R ....... 2R-1 | ... | (S-1)R ... SR-1
//!             slot 0         | slot 1         | ... | slot S-1
//! ```
//!
//! A replica's random stream depends on the seed and its index within its
//! slot, and a slot counts its own sweeps, so a puzzle anneals the same in
//! any slot of any batch.

pub mod bitplanes;
pub mod bitsliced;
pub mod cpu;
pub mod gpu;
pub mod kind;
pub mod lanes;
pub mod registry;
pub mod slots;
pub mod tables;

use std::ops::Range;

use crate::dynamics::{heat_bath_spread, heat_bath_table, Dynamics, Moves};
use crate::error::Result;
use crate::grid::Shape;
use crate::model::Model;
use crate::tempering::Ladder;
use kind::BackendKind;
use tables::TradeTable;

/// Shape of a batch: `slots` puzzles of one board `shape`,
/// `replicas_per_slot` replicas each, on ladders of `rungs` temperatures,
/// all swept by `dynamics`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    pub shape: Shape,
    pub slots: usize,
    pub replicas_per_slot: usize,
    pub rungs: usize,
    pub dynamics: Dynamics,
}

impl Layout {
    pub fn replicas(&self) -> usize {
        self.slots * self.replicas_per_slot
    }

    /// The layout of `slots` slots of `replicas_per_slot` replicas on a
    /// ladder of `rungs`, with single-spin moves on the plain model.
    pub fn spins(shape: Shape, slots: usize, replicas_per_slot: usize, rungs: usize) -> Layout {
        Layout { shape, slots, replicas_per_slot, rungs, dynamics: Dynamics::default() }
    }
}

/// One puzzle to anneal: its model, how, its ladder's tables, and the seed.
#[derive(Debug, Clone)]
pub struct Problem<'a> {
    pub model: &'a Model,
    pub dynamics: Dynamics,
    /// `table[rung * table_len + x]` for the layout's rungs. Spin moves:
    /// accept an uphill move of ΔE = x when a random u32 is below it
    /// (`Ladder::thresholds`). Cell moves: the heat-bath weight of a
    /// candidate x above the cell's lowest (`dynamics::heat_bath_rows`);
    /// then, where the chains heat (`Dynamics::heats`), the same rows at
    /// `Dynamics::heat` times the rungs' temperatures.
    pub table: Vec<u32>,
    pub table_len: usize,
    /// The ladder's rungs.
    pub rungs: usize,
    pub seed: u64,
    /// The pairs of cells that trade digits, where the chains trade
    /// (`Dynamics::trades`) and some can.
    pub trades: Option<TradeTable>,
}

impl<'a> Problem<'a> {
    /// Single-spin moves on the plain model.
    pub fn new(model: &'a Model, ladder: &Ladder, seed: u64) -> Problem<'a> {
        Problem::with_dynamics(model, ladder, seed, Dynamics::default())
    }

    pub fn with_dynamics(model: &'a Model, ladder: &Ladder, seed: u64, dynamics: Dynamics) -> Problem<'a> {
        let (table, table_len) = match dynamics.moves {
            Moves::Spin => {
                // No flip changes the energy by more than the largest |field| a spin can see.
                let len = model.max_abs_field() as usize + 1;
                (ladder.thresholds(len), len)
            }
            Moves::Cell => {
                let geometry = model.geometry();
                let spread = heat_bath_spread(geometry.n, geometry.spin_width - 1, dynamics.weights);
                let heated = dynamics.heats(geometry, ladder.rungs()).then(|| ladder.heated(dynamics.heat()));
                heat_bath_table(ladder, heated.as_ref(), spread)
            }
        };
        let trades = dynamics.trades().then(|| TradeTable::new(model)).filter(|t| t.per_sweep() > 0);
        Problem { model, dynamics, table, table_len, rungs: ladder.rungs(), seed, trades }
    }

    /// Spin-update attempts one sweep of a replica makes: one per free spin
    /// (a cell move weighs each candidate, one spin each), and one per
    /// trade proposed.
    pub fn attempts_per_sweep(&self) -> u64 {
        (self.model.len() + self.trades.as_ref().map_or(0, TradeTable::per_sweep)) as u64
    }

    /// Rung `rung`'s row of the table.
    pub fn row(&self, rung: usize) -> &[u32] {
        &self.table[rung * self.table_len..(rung + 1) * self.table_len]
    }

    /// Whether the table holds hot rows after the rungs' own.
    pub fn heats(&self) -> bool {
        self.table.len() > self.rungs * self.table_len
    }

    /// At most how many of a chain's kept cells a completion keeps: the
    /// sample size (`Dynamics::keeps`) where the chains heat, else all.
    pub fn keeps(&self) -> Option<usize> {
        self.dynamics.keeps().filter(|_| self.heats())
    }
}

pub trait Backend {
    /// Which backend it is.
    fn kind(&self) -> BackendKind;

    /// Its name, as users write it and reports show it.
    fn name(&self) -> &'static str {
        self.kind().name()
    }

    /// The hardware, for reports: "2 threads", or the GPU adapter's name.
    fn device(&self) -> String;

    /// The most replicas a batch of `shape` may hold (the device's buffer limits).
    fn max_replicas(&self, shape: Shape) -> usize;

    /// Sizes the batch; every slot starts empty (an empty slot does no work).
    fn configure(&mut self, layout: Layout) -> Result<()>;

    /// Puts a puzzle of the layout's shape in a slot: its replicas start
    /// from the backend's initial state (all-zero on the twins `cpu` and
    /// `gpu`, random on the bit-sliced ones) and its sweeps are counted from 0.
    fn load(&mut self, slot: usize, problem: &Problem) -> Result<()>;

    /// Empties a slot.
    fn unload(&mut self, slot: usize) -> Result<()>;

    /// Starts `counts[i]` sweeps on slot `slots.start + i` (0 for none),
    /// replica `r` of those slots at rung `rung_of_replica[r]`. A backend
    /// that [overlaps host work](Backend::overlaps_host_work) returns before
    /// they finish, so the host can work on other slots meanwhile.
    fn submit(&mut self, slots: Range<usize>, rung_of_replica: &[u32], counts: &[u32]) -> Result<()>;

    /// Waits for the submission on `slots` and returns the energies of
    /// their replicas (those of slots that ran no sweeps are unspecified):
    /// the energy the dynamics anneals and exchange compares, the model's
    /// with fixed weights, Σ_k w_k (1 − t_k)² with adaptive ones; 0 exactly
    /// where the replica is a solution, either way.
    fn energies(&mut self, slots: Range<usize>) -> Result<Vec<i32>>;

    /// Whether [`submit`](Backend::submit) returns before the sweeps are
    /// done. Then the solver keeps two groups of slots, so the device
    /// sweeps one while the host exchanges and refills the other.
    fn overlaps_host_work(&self) -> bool {
        false
    }

    /// Runs `counts[slot]` sweeps on every slot and returns every replica's energy.
    fn sweep(&mut self, rung_of_replica: &[u32], counts: &[u32]) -> Result<Vec<i32>> {
        self.submit(0..counts.len(), rung_of_replica, counts)?;
        self.energies(0..counts.len())
    }

    /// The free-spin states of some replicas (global indices), in one readback.
    fn spins(&mut self, replicas: &[usize]) -> Result<Vec<Vec<u8>>>;

    /// The unit constraints' weights of some replicas (global indices),
    /// where the dynamics adapts them; empty elsewhere. For the twin tests.
    fn weights(&mut self, replicas: &[usize]) -> Result<Vec<Vec<u8>>> {
        Ok(vec![Vec::new(); replicas.len()])
    }
}
