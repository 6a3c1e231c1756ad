//! Stage 3, sweeps: a backend holds every replica's spins and runs
//! colour-class Metropolis sweeps on them. `cpu` is the reference; `gpu`
//! runs the same arithmetic in WGSL and must agree bit for bit.

pub mod cpu;
pub mod gpu;

use crate::error::Result;
use crate::model::Model;

/// One annealing job: a model, its ladder's thresholds, and the seed.
#[derive(Debug, Clone)]
pub struct Problem<'a> {
    pub model: &'a Model,
    /// `thresholds[rung * table_len + k]`: accept ΔE = 2k when a random u32 is below it.
    pub thresholds: Vec<u32>,
    pub table_len: usize,
    /// Replicas, one per rung.
    pub replicas: usize,
    pub seed: u64,
}

impl Problem<'_> {
    pub fn rungs(&self) -> usize {
        self.thresholds.len() / self.table_len
    }
}

pub trait Backend {
    /// "cpu" or "gpu", as reported to users.
    fn name(&self) -> &'static str;

    /// Loads a problem; every replica starts in the all-zero state.
    fn load(&mut self, problem: &Problem) -> Result<()>;

    /// Runs `count` sweeps numbered `first..first + count`, replica `r` at
    /// rung `rung_of_replica[r]`, and returns each replica's energy.
    fn sweep(&mut self, rung_of_replica: &[u32], first: u32, count: u32) -> Result<Vec<i32>>;

    /// The free-spin state of one replica.
    fn spins(&mut self, replica: usize) -> Result<Vec<u8>>;
}
