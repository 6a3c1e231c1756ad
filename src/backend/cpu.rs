//! The CPU backend: the reference for every shader, and a real solver.
//!
//! Each replica keeps its spins and the total `t_k` of ones in each
//! constraint. The local field of spin i is `Σ_{k∋i} (2(t_k − x_i) − 1)`
//! (model.rs), so an attempt reads a spin's constraint totals (4 on a
//! Sudoku board) and costs a compare (downhill) or a hash and a table
//! look-up (uphill); an accepted flip writes the same totals.
//! Within a colour class no two spins share a constraint, so updating a
//! class in order equals updating it all at once, as the GPU does.
//! Replicas run in parallel on every core (rayon); their random streams
//! depend only on (seed, replica, sweep, spin), so the split changes nothing.

use std::ops::Range;

use rayon::prelude::*;

use super::{Backend, Layout, Problem};
use crate::error::Result;
use crate::grid::Shape;
use crate::model::Model;
use crate::rng::{attempt_random, stream_key, sweep_key};

/// Length of a replica's totals array: a power of two above every shape's
/// constraint count (2,550 for 25×25 with diagonals), so `k % TOTALS` is a
/// mask and the compiler drops the bounds checks.
const TOTALS: usize = 4096;

/// What the sweep needs of the model.
#[derive(Debug, Clone, Default)]
pub struct CpuModel {
    /// The constraints of each free spin, `width` per spin: its cell's
    /// first; on boards with diagonals, spins off them end in padding, a
    /// constraint index whose total stays 0 (`padding`).
    pub spin_constraints: Vec<u16>,
    pub width: usize,
    pub uniform: bool,
    pub padding: u16,
    /// Constraint totals of the all-zero state.
    pub fixed_ones: Vec<u8>,
    pub offset: i32,
}

impl CpuModel {
    pub fn new(model: &Model) -> CpuModel {
        let geometry = model.geometry();
        let padding = geometry.constraints as u16;
        assert!(geometry.constraints < TOTALS);
        let mut spin_constraints = Vec::with_capacity(model.len() * geometry.spin_width);
        for s in &model.spins {
            let first = spin_constraints.len();
            spin_constraints.extend(geometry.constraints_of(s.cell as usize, s.digit as usize).map(|k| k as u16));
            spin_constraints.resize(first + geometry.spin_width, padding);
        }
        CpuModel {
            spin_constraints,
            width: geometry.spin_width,
            uniform: geometry.uniform,
            padding,
            fixed_ones: model.fixed_ones.clone(),
            offset: model.offset,
        }
    }

    /// The number of free spins.
    pub fn spins(&self) -> usize {
        self.spin_constraints.len() / self.width.max(1)
    }
}

/// One replica: spins, constraint totals, energy, random stream.
#[derive(Debug, Clone)]
pub struct Replica {
    pub spins: Vec<u8>,
    /// `totals[k]` for constraint k; the rest (padding included) stay 0.
    pub totals: Box<[u8; TOTALS]>,
    pub energy: i32,
    pub stream: u32,
}

impl Replica {
    /// The all-zero state.
    pub fn new(model: &CpuModel, seed: u64, index: u32) -> Replica {
        Replica {
            spins: vec![0; model.spins()],
            totals: {
                let mut totals = Box::new([0; TOTALS]);
                totals[..model.fixed_ones.len()].copy_from_slice(&model.fixed_ones);
                totals
            },
            energy: model.offset,
            stream: stream_key(seed, index),
        }
    }
}

/// One colour-class sweep of one replica at the temperature whose
/// thresholds are `thresholds`. Twin of `sweep` in `shaders/sweep.wgsl`.
pub fn sweep(model: &CpuModel, replica: &mut Replica, thresholds: &[u32], sweep_number: u32) {
    // One compiled loop per constraint layout, so the common ones keep a fixed trip count.
    match (model.width, model.uniform) {
        (3, true) => sweep_with::<3, true>(model, replica, thresholds, sweep_number),
        (4, true) => sweep_with::<4, true>(model, replica, thresholds, sweep_number),
        // Diagonals: even sides have no cell on both.
        (5, false) => sweep_with::<5, false>(model, replica, thresholds, sweep_number),
        (6, false) => sweep_with::<6, false>(model, replica, thresholds, sweep_number),
        layout => unreachable!("no board has spins in {layout:?} constraints"),
    }
}

fn sweep_with<const WIDTH: usize, const UNIFORM: bool>(
    model: &CpuModel,
    replica: &mut Replica,
    thresholds: &[u32],
    sweep_number: u32,
) {
    let key = sweep_key(replica.stream, sweep_number);
    let totals = &mut replica.totals;
    let (spin_constraints, _) = model.spin_constraints.as_chunks::<WIDTH>();
    // Free spins are stored in colour-class order, so this is class by class.
    for (i, (spin, constraints)) in replica.spins.iter_mut().zip(spin_constraints).enumerate() {
        let x = *spin as i32;
        let total: i32 = constraints.iter().map(|&k| totals[k as usize % TOTALS] as i32).sum();
        let count = if UNIFORM { WIDTH } else { constraints.iter().filter(|&&k| k != model.padding).count() };
        let field = 2 * total - count as i32 * (2 * x + 1); // Σ_k (2(t_k − x) − 1)
        let delta = if x == 0 { field } else { -field };
        if delta > 0 {
            let threshold = thresholds[delta as usize];
            if threshold == 0 || attempt_random(key, i as u32) >= threshold {
                continue;
            }
        }
        *spin ^= 1;
        replica.energy += delta;
        for &k in constraints.iter().filter(|&&k| UNIFORM || k != model.padding) {
            let t = &mut totals[k as usize % TOTALS];
            *t = if x == 0 { *t + 1 } else { *t - 1 };
        }
    }
}

/// One slot's puzzle.
#[derive(Debug, Clone, Default)]
struct Slot {
    model: CpuModel,
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
    fn name(&self) -> &'static str {
        "cpu"
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
        let empty = Replica::new(&CpuModel::default(), 0, 0);
        self.replicas = vec![empty; layout.replicas()];
        Ok(())
    }

    fn load(&mut self, slot: usize, problem: &Problem) -> Result<()> {
        let model = CpuModel::new(problem.model);
        let first = slot * self.replicas_per_slot;
        for (r, replica) in self.replicas[first..first + self.replicas_per_slot].iter_mut().enumerate() {
            *replica = Replica::new(&model, problem.seed, r as u32);
        }
        self.slots[slot] =
            Some(Slot { model, thresholds: problem.thresholds.clone(), table_len: problem.table_len, sweeps_done: 0 });
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
                sweep(&slot.model, replica, table, s);
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
