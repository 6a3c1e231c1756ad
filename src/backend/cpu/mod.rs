//! The `cpu` backend, the reference of the engine: every replica swept by
//! the scalar arithmetic of `spins.rs`, on every core. Its files are the
//! twins of the shaders of the same names:
//!
//! ```text
//!   spins.rs  ↔  shaders/spins.wgsl   (`cpu` ↔ `gpu`)
//!   bits.rs   ↔  shaders/bits.wgsl    (`bits32` ↔ `gpu-bits`)
//! ```
//!
//! Replicas run in parallel (rayon); their random streams depend only on
//! (seed, replica, sweep, spin), so the split changes nothing.

pub mod bits;
pub mod spins;

use std::ops::Range;

use rayon::prelude::*;

use super::kind::BackendKind;
use super::tables::SpinTable;
use super::{Backend, Layout, Problem};
use crate::error::Result;
use crate::grid::Shape;
use spins::Replica;

/// One slot's puzzle.
#[derive(Debug, Clone, Default)]
struct Slot {
    table: SpinTable,
    thresholds: Vec<u32>,
    table_len: usize,
    sweeps_done: u32,
}

#[derive(Debug, Default)]
pub struct CpuBackend {
    replicas_per_slot: usize,
    slots: Vec<Option<Slot>>,
    replicas: Vec<Replica>,
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
        self.replicas_per_slot = layout.replicas_per_slot;
        self.slots = vec![None; layout.slots];
        let empty = Replica::new(&SpinTable::default(), 0, 0);
        self.replicas = vec![empty; layout.replicas()];
        Ok(())
    }

    fn load(&mut self, slot: usize, problem: &Problem) -> Result<()> {
        let table = SpinTable::new(problem.model);
        let first = slot * self.replicas_per_slot;
        for (r, replica) in self.replicas[first..first + self.replicas_per_slot].iter_mut().enumerate() {
            *replica = Replica::new(&table, problem.seed, r as u32);
        }
        self.slots[slot] =
            Some(Slot { table, thresholds: problem.thresholds.clone(), table_len: problem.table_len, sweeps_done: 0 });
        Ok(())
    }

    fn unload(&mut self, slot: usize) -> Result<()> {
        self.slots[slot] = None;
        Ok(())
    }

    fn submit(&mut self, slots: Range<usize>, rung_of_replica: &[u32], counts: &[u32]) -> Result<()> {
        let per_slot = self.replicas_per_slot;
        let replicas = &mut self.replicas[slots.start * per_slot..slots.end * per_slot];
        let slots = &mut self.slots[slots];
        replicas.par_iter_mut().zip(rung_of_replica).enumerate().for_each(|(index, (replica, &rung))| {
            let Some(slot) = &slots[index / per_slot] else { return };
            let table = &slot.thresholds[rung as usize * slot.table_len..(rung as usize + 1) * slot.table_len];
            let first = slot.sweeps_done;
            for s in first..first + counts[index / per_slot] {
                spins::sweep(&slot.table, replica, table, s);
            }
        });
        for (slot, &count) in slots.iter_mut().zip(counts) {
            if let Some(slot) = slot {
                slot.sweeps_done += count;
            }
        }
        Ok(())
    }

    fn energies(&mut self, slots: Range<usize>) -> Result<Vec<i32>> {
        let per_slot = self.replicas_per_slot;
        Ok(self.replicas[slots.start * per_slot..slots.end * per_slot].iter().map(|r| r.energy).collect())
    }

    fn spins(&mut self, replicas: &[usize]) -> Result<Vec<Vec<u8>>> {
        Ok(replicas.iter().map(|&r| self.replicas[r].spins.clone()).collect())
    }
}
