//! The CPU backend: the reference for every shader, and a real solver.
//!
//! Each replica keeps its spins and the total `t_k` of ones in each of the
//! 324 constraints. The local field of spin i is `Σ_{k∋i} (2(t_k − x_i) − 1)`
//! (model.rs), so an attempt reads 4 totals and costs a compare (downhill)
//! or a hash and a table look-up (uphill); an accepted flip writes 4 totals.
//! Within a colour class no two spins share a constraint, so updating a
//! class in order equals updating it all at once, as the GPU does.
//! Replicas run in parallel on every core (rayon); their random streams
//! depend only on (seed, replica, sweep, spin), so the split changes nothing.

use rayon::prelude::*;

use super::{Backend, Problem};
use crate::error::Result;
use crate::grid::CONSTRAINTS;
use crate::model::{constraints_of, Model};
use crate::rng::{attempt_random, stream_key, sweep_key};

/// What the sweep needs of the model.
#[derive(Debug, Clone, Default)]
pub struct CpuModel {
    /// The 4 constraints of each free spin.
    pub spin_constraints: Vec<[u16; 4]>,
    /// Constraint totals of the all-zero state.
    pub fixed_ones: Vec<u8>,
    pub offset: i32,
}

impl CpuModel {
    pub fn new(model: &Model) -> CpuModel {
        CpuModel {
            spin_constraints: model
                .spins
                .iter()
                .map(|s| constraints_of(s.cell as usize, s.digit as usize).map(|k| k as u16))
                .collect(),
            fixed_ones: model.fixed_ones.clone(),
            offset: model.offset,
        }
    }
}

/// Length of a replica's totals array: a power of two at least CONSTRAINTS,
/// so `k % TOTALS` is a mask and the compiler drops the bounds checks.
const TOTALS: usize = CONSTRAINTS.next_power_of_two();

/// One replica: spins, constraint totals, energy, random stream.
#[derive(Debug, Clone)]
pub struct Replica {
    pub spins: Vec<u8>,
    /// `totals[k]` for constraint k < CONSTRAINTS; the rest stay 0.
    pub totals: Box<[u8; TOTALS]>,
    pub energy: i32,
    pub stream: u32,
}

impl Replica {
    /// The all-zero state.
    pub fn new(model: &CpuModel, seed: u64, index: u32) -> Replica {
        Replica {
            spins: vec![0; model.spin_constraints.len()],
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
    let key = sweep_key(replica.stream, sweep_number);
    let totals = &mut replica.totals;
    // Free spins are stored in colour-class order, so this is class by class.
    for (i, (spin, constraints)) in replica.spins.iter_mut().zip(&model.spin_constraints).enumerate() {
        let x = *spin as i32;
        let total: i32 = constraints.iter().map(|&k| totals[k as usize % TOTALS] as i32).sum();
        let field = 2 * total - 8 * x - 4; // Σ_k (2(t_k − x) − 1)
        let delta = if x == 0 { field } else { -field };
        if delta > 0 {
            let threshold = thresholds[(delta / 2) as usize];
            if threshold == 0 || attempt_random(key, i as u32) >= threshold {
                continue;
            }
        }
        *spin ^= 1;
        replica.energy += delta;
        for &k in constraints {
            let t = &mut totals[k as usize % TOTALS];
            *t = if x == 0 { *t + 1 } else { *t - 1 };
        }
    }
}

#[derive(Debug, Default)]
pub struct CpuBackend {
    model: CpuModel,
    thresholds: Vec<u32>,
    table_len: usize,
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

    fn load(&mut self, problem: &Problem) -> Result<()> {
        self.model = CpuModel::new(problem.model);
        self.thresholds = problem.thresholds.clone();
        self.table_len = problem.table_len;
        self.replicas = (0..problem.replicas as u32).map(|r| Replica::new(&self.model, problem.seed, r)).collect();
        Ok(())
    }

    fn sweep(&mut self, rung_of_replica: &[u32], first: u32, count: u32) -> Result<Vec<i32>> {
        let (model, thresholds, table_len) = (&self.model, &self.thresholds, self.table_len);
        self.replicas.par_iter_mut().zip(rung_of_replica).for_each(|(replica, &rung)| {
            let table = &thresholds[rung as usize * table_len..(rung as usize + 1) * table_len];
            for s in first..first + count {
                sweep(model, replica, table, s);
            }
        });
        Ok(self.replicas.iter().map(|r| r.energy).collect())
    }

    fn spins(&mut self, replica: usize) -> Result<Vec<u8>> {
        Ok(self.replicas[replica].spins.clone())
    }
}
