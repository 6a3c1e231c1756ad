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

    /// Empties `slot`, handing back what it held.
    pub fn unload(&mut self, slot: usize) -> Option<C> {
        self.slots[slot].take()
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dynamics::Dynamics;
    use crate::grid::Shape;

    /// Chains that remember the rungs and sweeps they were given.
    struct Recorder {
        id: i32,
        rungs: Vec<u32>,
        sweeps: u32,
    }

    impl Chains for Recorder {
        fn sweep(&mut self, rung_of_replica: &[u32], count: u32) {
            self.rungs = rung_of_replica.to_vec();
            self.sweeps += count;
        }
        fn energies(&self) -> Vec<i32> {
            vec![self.id, self.id + 1]
        }
        fn spins(&self, replica: usize) -> Vec<u8> {
            vec![self.id as u8, replica as u8]
        }
        fn weights(&self, _replica: usize) -> Vec<u8> {
            Vec::new()
        }
    }

    /// A submission sweeps the loaded slots of its range, each with its own
    /// replicas' rungs and count; empty slots read as `i32::MAX` and refuse
    /// to be read.
    #[test]
    fn slots_sweep_and_read_their_own_replicas_only() {
        let layout =
            Layout { shape: Shape::CLASSIC, slots: 3, replicas_per_slot: 2, rungs: 2, dynamics: Dynamics::default() };
        let mut slots = Slots::default();
        slots.configure(&layout);
        slots.load(0, Recorder { id: 10, rungs: Vec::new(), sweeps: 0 });
        slots.load(2, Recorder { id: 20, rungs: Vec::new(), sweeps: 0 });
        slots.submit(1..3, &[0, 1, 1, 0], &[5, 7]);
        assert_eq!(slots.energies(0..3), vec![10, 11, i32::MAX, i32::MAX, 20, 21]);
        let swept = slots.read(&[0, 5], |chains, _| (chains.sweeps, chains.rungs.clone())).unwrap();
        assert_eq!(swept, vec![(0, Vec::new()), (7, vec![1, 0])]);
        assert_eq!(slots.read(&[5], |chains, r| chains.spins(r)).unwrap(), vec![vec![20, 1]]);
        assert!(matches!(slots.read(&[3], |_, _| ()), Err(Error::Internal(_))));
        slots.unload(2);
        assert_eq!(slots.energies(2..3), vec![i32::MAX; 2]);
    }
}
