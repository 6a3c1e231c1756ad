//! The slots of the CPU backends that keep each puzzle's replicas apart
//! (`cpu`, `cpu-lanes`): each slot empty or holding one puzzle's chains,
//! the slots of a submission swept in parallel.

use std::ops::Range;

use rayon::prelude::*;

use super::Layout;
use crate::error::{Error, Result};

/// One puzzle's replicas, as a CPU backend keeps them.
pub trait Chains: Send {
    /// Runs `count` sweeps, replica r at rung `rung_of_replica[r]`.
    fn sweep(&mut self, rung_of_replica: &[u32], count: u32);
    /// Every replica's energy (`Backend::energies`).
    fn energies(&self) -> Vec<i32>;
    /// Replica `replica`'s free spins.
    fn spins(&self, replica: usize) -> Vec<u8>;
    /// Replica `replica`'s unit weights, where they adapt; empty elsewhere.
    fn weights(&self, replica: usize) -> Vec<u8>;
}

#[derive(Debug)]
pub struct Slots<C> {
    replicas_per_slot: usize,
    slots: Vec<Option<C>>,
}

impl<C> Default for Slots<C> {
    fn default() -> Slots<C> {
        Slots { replicas_per_slot: 0, slots: Vec::new() }
    }
}

impl<C: Chains> Slots<C> {
    /// Every slot of `layout`, empty.
    pub fn configure(&mut self, layout: &Layout) {
        self.replicas_per_slot = layout.replicas_per_slot;
        self.slots = (0..layout.slots).map(|_| None).collect();
    }

    pub fn replicas_per_slot(&self) -> usize {
        self.replicas_per_slot
    }

    pub fn load(&mut self, slot: usize, chains: C) {
        self.slots[slot] = Some(chains);
    }

    pub fn unload(&mut self, slot: usize) {
        self.slots[slot] = None;
    }

    /// Runs `counts[i]` sweeps on slot `slots.start + i`, in parallel.
    pub fn submit(&mut self, slots: Range<usize>, rung_of_replica: &[u32], counts: &[u32]) {
        let per_slot = self.replicas_per_slot;
        self.slots[slots].par_iter_mut().zip(rung_of_replica.par_chunks(per_slot)).zip(counts).for_each(
            |((slot, rungs), &count)| {
                if let Some(chains) = slot {
                    chains.sweep(rungs, count);
                }
            },
        );
    }

    /// The energies of the replicas of `slots` (`i32::MAX` in empty slots).
    pub fn energies(&self, slots: Range<usize>) -> Vec<i32> {
        let per_slot = self.replicas_per_slot;
        let energies =
            |slot: &Option<C>| slot.as_ref().map_or(vec![i32::MAX; per_slot], |c| c.energies()[..per_slot].to_vec());
        self.slots[slots].iter().flat_map(energies).collect()
    }

    /// `read` of each of `replicas` (global indices) and its index in its slot.
    pub fn read<T>(&self, replicas: &[usize], read: impl Fn(&C, usize) -> T) -> Result<Vec<T>> {
        replicas
            .iter()
            .map(|&r| {
                let slot = self.slots[r / self.replicas_per_slot]
                    .as_ref()
                    .ok_or_else(|| Error::Internal(format!("replica {r} is in an empty slot")))?;
                Ok(read(slot, r % self.replicas_per_slot))
            })
            .collect()
    }
}
