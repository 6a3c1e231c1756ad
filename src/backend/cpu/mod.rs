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
use super::tables::{CellTable, SpinTable};
use super::{Backend, Layout, Problem};
use crate::dynamics::{Moves, Weights};
use crate::error::{Error, Result};
use crate::grid::Shape;
use cells::CellReplica;
use spins::Replica;

/// A slot's replicas, as their move set keeps them.
#[derive(Debug, Clone)]
enum Chains {
    Spins { table: SpinTable, replicas: Vec<Replica> },
    Cells { table: CellTable, replicas: Vec<CellReplica>, weights: Weights, spins: usize },
}

impl Chains {
    fn energies(&self) -> Vec<i32> {
        match self {
            Chains::Spins { replicas, .. } => replicas.iter().map(|r| r.energy).collect(),
            Chains::Cells { replicas, .. } => replicas.iter().map(|r| r.energy).collect(),
        }
    }

    fn spins(&self, replica: usize) -> Vec<u8> {
        match self {
            Chains::Spins { replicas, .. } => replicas[replica].spins.clone(),
            Chains::Cells { table, replicas, spins, .. } => table.spins_of(&replicas[replica].choice, *spins),
        }
    }
}

/// One slot's puzzle.
#[derive(Debug, Clone)]
struct Slot {
    chains: Chains,
    table: Vec<u32>,
    table_len: usize,
    sweeps_done: u32,
}

impl Slot {
    /// Runs `count` sweeps, replica `r` at rung `rung_of_replica[r]`.
    fn sweep(&mut self, rung_of_replica: &[u32], count: u32) {
        let (first, len) = (self.sweeps_done, self.table_len);
        let row = |rung: u32| &self.table[rung as usize * len..(rung as usize + 1) * len];
        match &mut self.chains {
            Chains::Spins { table, replicas } => {
                replicas.par_iter_mut().zip(rung_of_replica).for_each(|(replica, &rung)| {
                    (first..first + count).for_each(|s| spins::sweep(table, replica, row(rung), s))
                })
            }
            Chains::Cells { table, replicas, weights, .. } => {
                replicas.par_iter_mut().zip(rung_of_replica).for_each(|(replica, &rung)| {
                    (first..first + count).for_each(|s| cells::sweep(table, replica, row(rung), *weights, s))
                })
            }
        }
        self.sweeps_done += count;
    }
}

#[derive(Debug, Default)]
pub struct CpuBackend {
    replicas_per_slot: usize,
    slots: Vec<Option<Slot>>,
}

impl CpuBackend {
    pub fn new() -> CpuBackend {
        CpuBackend::default()
    }

    fn slot(&self, replica: usize) -> Result<&Slot> {
        self.slots[replica / self.replicas_per_slot]
            .as_ref()
            .ok_or_else(|| Error::Internal(format!("replica {replica} is in an empty slot")))
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
        self.replicas_per_slot = layout.replicas_per_slot;
        self.slots = vec![None; layout.slots];
        Ok(())
    }

    fn load(&mut self, slot: usize, problem: &Problem) -> Result<()> {
        let (seed, indices) = (problem.seed, 0..self.replicas_per_slot as u32);
        let chains = match problem.dynamics.moves {
            Moves::Spin => {
                let table = SpinTable::new(problem.model);
                let replicas = indices.map(|r| Replica::new(&table, seed, r)).collect();
                Chains::Spins { table, replicas }
            }
            Moves::Cell => {
                let (table, weights) = (CellTable::new(problem.model), problem.dynamics.weights);
                let replicas = indices.map(|r| CellReplica::random(&table, weights, seed, r)).collect();
                Chains::Cells { table, replicas, weights, spins: problem.model.len() }
            }
        };
        let (table, table_len) = (problem.table.clone(), problem.table_len);
        self.slots[slot] = Some(Slot { chains, table, table_len, sweeps_done: 0 });
        Ok(())
    }

    fn unload(&mut self, slot: usize) -> Result<()> {
        self.slots[slot] = None;
        Ok(())
    }

    fn submit(&mut self, slots: Range<usize>, rung_of_replica: &[u32], counts: &[u32]) -> Result<()> {
        let per_slot = self.replicas_per_slot;
        self.slots[slots].par_iter_mut().zip(rung_of_replica.par_chunks(per_slot)).zip(counts).for_each(
            |((slot, rungs), &count)| {
                if let Some(slot) = slot {
                    slot.sweep(rungs, count);
                }
            },
        );
        Ok(())
    }

    fn energies(&mut self, slots: Range<usize>) -> Result<Vec<i32>> {
        let per_slot = self.replicas_per_slot;
        let energies = |slot: &Option<Slot>| slot.as_ref().map_or(vec![i32::MAX; per_slot], |s| s.chains.energies());
        Ok(self.slots[slots].iter().flat_map(energies).collect())
    }

    fn spins(&mut self, replicas: &[usize]) -> Result<Vec<Vec<u8>>> {
        replicas.iter().map(|&r| Ok(self.slot(r)?.chains.spins(r % self.replicas_per_slot))).collect()
    }

    fn weights(&mut self, replicas: &[usize]) -> Result<Vec<Vec<u8>>> {
        replicas
            .iter()
            .map(|&r| {
                Ok(match &self.slot(r)?.chains {
                    Chains::Cells { table, replicas, weights: Weights::Adaptive(_), .. } => {
                        replicas[r % self.replicas_per_slot].weights[table.unit_constraints()].to_vec()
                    }
                    _ => Vec::new(),
                })
            })
            .collect()
    }
}
