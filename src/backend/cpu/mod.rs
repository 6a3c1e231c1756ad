//! The `cpu` backend, the reference of the engine: every replica swept by
//! the scalar arithmetic of `spins.rs` (single-spin moves) or `cells.rs`
//! (cell moves, adaptive weights), on every core. Its files are the twins
//! of the shaders of the same names:
//!
//! ```text
//!   spins.rs  ↔  shaders/spins.wgsl   (`cpu` ↔ `gpu`, --moves spin)
//!   cells.rs  ↔  shaders/cells.wgsl   (`cpu` ↔ `gpu`, --moves cell)
//!   bits.rs   ↔  shaders/bits.wgsl    (`bits32` ↔ `gpu-bits`)
//! ```
//!
//! Replicas run in parallel (rayon); their random streams depend only on
//! (seed, replica, sweep, spin), so the split changes nothing.

pub mod bits;
pub mod cells;
pub mod spins;

use std::ops::Range;

use rayon::prelude::*;

use super::kind::BackendKind;
use super::slots::{Chains, Slots};
use super::tables::{CellTable, SpinTable};
use super::{Backend, Layout, Problem};
use crate::dynamics::{Moves, Weights};
use crate::error::Result;
use crate::grid::Shape;
use cells::CellReplica;
use spins::Replica;

/// A slot's replicas, as their move set keeps them.
#[derive(Debug, Clone)]
enum Replicas {
    Spins { table: SpinTable, replicas: Vec<Replica> },
    Cells { table: CellTable, replicas: Vec<CellReplica>, weights: Weights, spins: usize },
}

/// One slot's puzzle.
#[derive(Debug, Clone)]
struct Puzzle {
    replicas: Replicas,
    /// The rungs' rows: `table[rung * table_len..]`.
    table: Vec<u32>,
    table_len: usize,
    sweeps_done: u32,
}

impl Chains for Puzzle {
    fn sweep(&mut self, rung_of_replica: &[u32], count: u32) {
        let (first, len) = (self.sweeps_done, self.table_len);
        let row = |rung: u32| &self.table[rung as usize * len..(rung as usize + 1) * len];
        match &mut self.replicas {
            Replicas::Spins { table, replicas } => {
                replicas.par_iter_mut().zip(rung_of_replica).for_each(|(replica, &rung)| {
                    (first..first + count).for_each(|s| spins::sweep(table, replica, row(rung), s))
                })
            }
            Replicas::Cells { table, replicas, weights, .. } => {
                replicas.par_iter_mut().zip(rung_of_replica).for_each(|(replica, &rung)| {
                    (first..first + count).for_each(|s| cells::sweep(table, replica, row(rung), *weights, s))
                })
            }
        }
        self.sweeps_done += count;
    }

    fn energies(&self) -> Vec<i32> {
        match &self.replicas {
            Replicas::Spins { replicas, .. } => replicas.iter().map(|r| r.energy).collect(),
            Replicas::Cells { replicas, .. } => replicas.iter().map(|r| r.energy).collect(),
        }
    }

    fn spins(&self, replica: usize) -> Vec<u8> {
        match &self.replicas {
            Replicas::Spins { replicas, .. } => replicas[replica].spins.clone(),
            Replicas::Cells { table, replicas, spins, .. } => table.spins_of(&replicas[replica].choice, *spins),
        }
    }

    fn weights(&self, replica: usize) -> Vec<u8> {
        match &self.replicas {
            Replicas::Cells { table, replicas, weights: Weights::Adaptive(_), .. } => {
                replicas[replica].weights[table.unit_constraints()].to_vec()
            }
            _ => Vec::new(),
        }
    }
}

#[derive(Debug, Default)]
pub struct CpuBackend {
    slots: Slots<Puzzle>,
}

impl CpuBackend {
    pub fn new() -> CpuBackend {
        CpuBackend::default()
    }
}

impl Backend for CpuBackend {
    fn kind(&self) -> BackendKind {
        BackendKind::Cpu
    }

    fn device(&self) -> String {
        format!("{} threads", rayon::current_num_threads())
    }

    fn max_replicas(&self, _shape: Shape) -> usize {
        usize::MAX
    }

    fn configure(&mut self, layout: Layout) -> Result<()> {
        self.slots.configure(&layout);
        Ok(())
    }

    fn load(&mut self, slot: usize, problem: &Problem) -> Result<()> {
        let (seed, indices) = (problem.seed, 0..self.slots.replicas_per_slot() as u32);
        let replicas = match problem.dynamics.moves {
            Moves::Spin => {
                let table = SpinTable::new(problem.model);
                let replicas = indices.map(|r| Replica::new(&table, seed, r)).collect();
                Replicas::Spins { table, replicas }
            }
            Moves::Cell => {
                let (table, weights) = (CellTable::new(problem.model), problem.dynamics.weights);
                let replicas = indices.map(|r| CellReplica::random(&table, weights, seed, r)).collect();
                Replicas::Cells { table, replicas, weights, spins: problem.model.len() }
            }
        };
        let (table, table_len) = (problem.table.clone(), problem.table_len);
        self.slots.load(slot, Puzzle { replicas, table, table_len, sweeps_done: 0 });
        Ok(())
    }

    fn unload(&mut self, slot: usize) -> Result<()> {
        self.slots.unload(slot);
        Ok(())
    }

    fn submit(&mut self, slots: Range<usize>, rung_of_replica: &[u32], counts: &[u32]) -> Result<()> {
        self.slots.submit(slots, rung_of_replica, counts);
        Ok(())
    }

    fn energies(&mut self, slots: Range<usize>) -> Result<Vec<i32>> {
        Ok(self.slots.energies(slots))
    }

    fn spins(&mut self, replicas: &[usize]) -> Result<Vec<Vec<u8>>> {
        self.slots.read(replicas, Puzzle::spins)
    }

    fn weights(&mut self, replicas: &[usize]) -> Result<Vec<Vec<u8>>> {
        self.slots.read(replicas, Puzzle::weights)
    }
}
