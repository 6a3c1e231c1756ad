//! The CPU backend: the reference for every shader, and a real solver.
//!
//! Each replica keeps its spins and the local field `h_i + Σ_j J_ij x_j` of
//! every free spin, updated on each accepted flip, so an attempt costs a
//! compare (downhill) or a hash and a table look-up (uphill); only accepted
//! flips touch the ~28 neighbours. Within a colour class no two spins
//! couple, so updating a class in order equals updating it all at once.
//! Replicas run in parallel on every core (rayon); their random streams
//! depend only on (seed, replica, sweep, spin), so the split changes nothing.

use rayon::prelude::*;

use super::{Backend, Problem};
use crate::error::Result;
use crate::model::{Model, COLOURS};
use crate::rng::{attempt_random, stream_key, sweep_key};

/// The model in compact form: neighbour lists as u16, couplings as i16.
#[derive(Debug, Clone, Default)]
pub struct CpuModel {
    pub class_start: [u32; COLOURS + 1],
    pub field: Vec<i16>,
    pub neighbour_start: Vec<u32>,
    pub neighbours: Vec<u16>,
    pub couplings: Vec<i16>,
    pub offset: i32,
}

impl CpuModel {
    pub fn new(model: &Model) -> CpuModel {
        CpuModel {
            class_start: model.class_start,
            field: model.field.iter().map(|&h| h as i16).collect(),
            neighbour_start: model.neighbour_start.clone(),
            neighbours: model.neighbours.iter().map(|&j| j as u16).collect(),
            couplings: model.couplings.iter().map(|&c| c as i16).collect(),
            offset: model.offset,
        }
    }
}

/// One replica: spins, local fields, energy, random stream.
#[derive(Debug, Clone)]
pub struct Replica {
    pub spins: Vec<u8>,
    pub local_field: Vec<i16>,
    pub energy: i32,
    pub stream: u32,
}

impl Replica {
    /// The all-zero state: local fields are the linear fields.
    pub fn new(model: &CpuModel, seed: u64, index: u32) -> Replica {
        Replica {
            spins: vec![0; model.field.len()],
            local_field: model.field.clone(),
            energy: model.offset,
            stream: stream_key(seed, index),
        }
    }
}

/// One colour-class sweep of one replica at the temperature whose
/// thresholds are `thresholds`.
pub fn sweep(model: &CpuModel, replica: &mut Replica, thresholds: &[u32], sweep_number: u32) {
    let key = sweep_key(replica.stream, sweep_number);
    for class in 0..COLOURS {
        for i in model.class_start[class] as usize..model.class_start[class + 1] as usize {
            let up = replica.spins[i] == 0;
            let field = replica.local_field[i] as i32;
            let delta = if up { field } else { -field };
            if delta > 0 && attempt_random(key, i as u32) >= thresholds[(delta / 2) as usize] {
                continue;
            }
            replica.spins[i] ^= 1;
            replica.energy += delta;
            let range = model.neighbour_start[i] as usize..model.neighbour_start[i + 1] as usize;
            for (&j, &coupling) in model.neighbours[range.clone()].iter().zip(&model.couplings[range]) {
                let change = if up { coupling } else { -coupling };
                replica.local_field[j as usize] += change;
            }
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
