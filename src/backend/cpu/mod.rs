//! The `cpu` backend, the reference of the engine: every replica swept by
//! the scalar arithmetic of `spins.rs` (single-spin moves) or `cells.rs`
//! (cell moves, adaptive weights), on every core. Its files are the twins
//! of the shaders of the same names:
//!
//! ```text
//!   spins.rs  ↔  shaders/spins.wgsl   (`cpu` ↔ `gpu`, --moves spin)
//!   cells.rs  ↔  shaders/cells.wgsl   (`cpu` ↔ `gpu`, --moves cell)
//!   complete.rs ↔ `complete` in shaders/cells.wgsl (--complete singles, sampled)
//!   bits.rs   ↔  shaders/bits.wgsl    (`bits32` ↔ `gpu-bits`)
//! ```
//!
//! Replicas run in parallel (rayon); their random streams depend only on
//! (seed, replica, sweep, spin), so the split changes nothing.

pub mod bits;
pub mod cells;
pub mod complete;
pub mod spins;

use std::ops::Range;

use rayon::prelude::*;

use super::kind::BackendKind;
use super::slots::{Chains, Slots};
use super::tables::{CellTable, SpinTable};
use super::{Backend, Layout, Problem};
use crate::dynamics::{completes_after, runs_hot, Moves, Weights};
use crate::error::Result;
use crate::grid::Shape;
use cells::CellReplica;
use complete::Completion;
use spins::Replica;

/// A slot's replicas, as their move set keeps them.
#[derive(Debug, Clone)]
enum Replicas {
    Spins {
        table: SpinTable,
        replicas: Vec<Replica>,
    },
    Cells {
        table: CellTable,
        replicas: Vec<CellReplica>,
        weights: Weights,
        spins: usize,
        completion: Option<Box<Completion>>,
        /// At most so many of a replica's kept cells a completion keeps,
        /// where the chains heat (`Dynamics::keeps`).
        keeps: Option<usize>,
    },
}

/// One slot's puzzle.
#[derive(Debug, Clone)]
struct Puzzle {
    replicas: Replicas,
    /// The rungs' rows: `table[rung * table_len..]`; where the chains heat
    /// (`Dynamics::heats`), the hot rows after them.
    table: Vec<u32>,
    table_len: usize,
    rungs: usize,
    heat: bool,
    sweeps_done: u32,
}

impl Chains for Puzzle {
    fn sweep(&mut self, rung_of_replica: &[u32], count: u32) {
        let (first, len, heat) = (self.sweeps_done, self.table_len, self.heat);
        let row = |rung: u32| &self.table[rung as usize * len..(rung as usize + 1) * len];
        let hot_row = |rung: u32| row(rung + self.rungs as u32);
        match &mut self.replicas {
            Replicas::Spins { table, replicas } => {
                replicas.par_iter_mut().zip(rung_of_replica).for_each(|(replica, &rung)| {
                    (first..first + count).for_each(|s| spins::sweep(table, replica, row(rung), s))
                })
            }
            Replicas::Cells { table, replicas, weights, completion, keeps, .. } => {
                replicas.par_iter_mut().zip(rung_of_replica).for_each(|(replica, &rung)| {
                    for s in first..first + count {
                        // Where grids are completed, a solved replica stays
                        // solved: the sweeps would take it away before the
                        // call's end, where the solver looks.
                        if completion.is_some() && s > 0 && replica.energy == 0 {
                            break;
                        }
                        let row = if heat && runs_hot(s) { hot_row(rung) } else { row(rung) };
                        let completion = completion.as_deref().filter(|_| completes_after(s, heat));
                        cells::sweep(table, replica, row, *weights, s, completion, *keeps)
                    }
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
                let board = problem.model.geometry();
                let completion = problem.dynamics.completes_on(board).then(|| Box::new(Completion::new(board, &table)));
                let keeps = problem.keeps();
                Replicas::Cells { table, replicas, weights, spins: problem.model.len(), completion, keeps }
            }
        };
        let (table, table_len, rungs, heat) =
            (problem.table.clone(), problem.table_len, problem.rungs, problem.heats());
        self.slots.load(slot, Puzzle { replicas, table, table_len, rungs, heat, sweeps_done: 0 });
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
