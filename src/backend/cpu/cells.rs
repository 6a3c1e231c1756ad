//! Cell moves with optional adaptive weights, one replica at a time: the
//! reference arithmetic of the `cpu` backend (`--moves cell`), and the
//! twin of `shaders/cells.wgsl`, which must agree bit for bit.
//!
//! A replica holds one candidate per free cell, the total `t_k` of ones in
//! each constraint and a weight `w_k` per constraint. To update cell i, its
//! candidate leaves its units (their totals drop by one), every candidate j
//! gets the energy it would add, `e_j = Σ_{k∋j} w_k (2 t_k − 1)`, and the
//! weight π_j ∝ exp(−e_j/T): integers from the rung's heat-bath row
//! (`dynamics::heat_bath_rows`) at `e_j − min e`, laid end to end on a
//! circle of length S = Σ π_j, in candidate order. The move is Suwa and
//! Todo's (Phys. Rev. Lett. 105, 120603, 2010): a uniform point of the
//! cell's own candidate's stretch, `mul_high(u, π_own)` into it for a
//! uniform u32 u, moved on by the heaviest weight π_max (the row's first
//! entry) around the circle; the candidate whose stretch it lands in wins.
//! Turning the circle keeps every stretch's share, so the Boltzmann
//! distribution stays (global balance; the move is not reversible), and a
//! cell stays only where π_own + π_max > S: it leaves its candidate more
//! often than the heat bath, for 0.85–0.92 of its work (BENCHMARKS.md). A
//! cell whose own candidate weighs 0 (it has no share to keep) draws as the
//! heat bath does, the first candidate whose running sum passes
//! `mul_high(u, S)`: turned, such a cell would go where the order says,
//! and with weights that adapt that costs 1.6× the work. Cells of one
//! colour class share no unit, so a class updates at once.
//!
//! After the cells, adaptive weights grow on the violated units and relax
//! (dynamics.rs), and the replica's energy becomes Σ_k w_k (1 − t_k)² over
//! the unit constraints (a cell constraint always holds): the energy
//! exchange compares, 0 exactly when the grid is solved.

use super::complete::Completion;
use crate::backend::tables::CellTable;
use crate::dynamics::Weights;
use crate::grid::MAX_N;
use crate::rng::{attempt_random, stream_key, sweep_key, INITIAL_STATE_SWEEP};

/// Length of a replica's totals and weights: as in spins.rs.
const TOTALS: usize = 4096;
const _: () = assert!(crate::grid::MAX_CONSTRAINTS < TOTALS);

/// One replica: a candidate per free cell, constraint totals and weights,
/// energy, random stream.
#[derive(Debug, Clone)]
pub struct CellReplica {
    /// The candidate each free cell holds, as an index into its candidates.
    pub choice: Vec<u8>,
    /// `totals[k]` for constraint k; the rest (padding included) stay 0.
    pub totals: Box<[u8; TOTALS]>,
    /// `weights[k]` for unit constraint k (those of cells and the padding are unused).
    pub weights: Box<[u8; TOTALS]>,
    /// Σ_k w_k (1 − t_k)² over the unit constraints.
    pub energy: i32,
    pub stream: u32,
}

/// High word of the 64-bit product: `mul_high(u, n)` is uniform in 0..n for a uniform u.
pub fn mul_high(a: u32, b: u32) -> u32 {
    ((a as u64 * b as u64) >> 32) as u32
}

impl CellReplica {
    /// Each cell holds a candidate drawn uniformly from its stream as if in
    /// sweep `INITIAL_STATE_SWEEP`; every unit weighs its initial weight.
    pub fn random(table: &CellTable, weights: Weights, seed: u64, index: u32) -> CellReplica {
        let stream = stream_key(seed, index);
        let key = sweep_key(stream, INITIAL_STATE_SWEEP);
        let choice: Vec<u8> = (0..table.len())
            .map(|i| mul_high(attempt_random(key, i as u32), table.candidates(i).len() as u32) as u8)
            .collect();
        let totals = totals_of(table, &choice);
        // The padding weighs 0, so candidates off the diagonals add nothing for it.
        let mut all_weights = Box::new([weights.initial(); TOTALS]);
        all_weights[table.padding as usize] = 0;
        let mut replica = CellReplica { choice, totals, weights: all_weights, energy: 0, stream };
        replica.energy = replica.weighted_energy(table);
        replica
    }

    /// Σ_k w_k (1 − t_k)² over the unit constraints.
    pub fn weighted_energy(&self, table: &CellTable) -> i32 {
        table.unit_constraints().map(|k| self.weights[k] as i32 * (1 - self.totals[k] as i32).pow(2)).sum()
    }
}

/// The constraint totals of cells holding `choice`: the fixed ones and
/// each chosen candidate's, the padding 0.
fn totals_of(table: &CellTable, choice: &[u8]) -> Box<[u8; TOTALS]> {
    let mut totals = Box::new([0; TOTALS]);
    totals[..table.fixed_ones.len()].copy_from_slice(&table.fixed_ones);
    for (i, &c) in choice.iter().enumerate() {
        for &k in table.units_of(table.candidates(i).start + c as usize) {
            totals[k as usize] += 1;
        }
    }
    totals[table.padding as usize] = 0;
    totals
}

/// One sweep of cell moves at the rung whose heat-bath row is `row`, the
/// replica's grid completed if `completion` is given (a grid that fills
/// moves there), from at most `keeps` of its kept cells where given, then
/// the weights' update. Twin of `sweep` in `shaders/cells.wgsl`.
pub fn sweep(
    table: &CellTable,
    replica: &mut CellReplica,
    row: &[u32],
    weights: Weights,
    sweep_number: u32,
    completion: Option<&Completion>,
    keeps: Option<usize>,
) {
    let key = sweep_key(replica.stream, sweep_number);
    let (totals, w) = (&mut replica.totals, &replica.weights);
    let mut energies = [0i32; MAX_N];
    for (i, chosen) in replica.choice.iter_mut().enumerate() {
        let candidates = table.candidates(i);
        for &k in table.units_of(candidates.start + *chosen as usize) {
            totals[k as usize] = totals[k as usize].wrapping_sub(1);
        }
        totals[table.padding as usize] = 0;
        let energies = &mut energies[..candidates.len()];
        for (e, j) in energies.iter_mut().zip(candidates.clone()) {
            *e = table.units_of(j).iter().map(|&k| w[k as usize] as i32 * (2 * totals[k as usize] as i32 - 1)).sum();
        }
        let lowest = energies.iter().copied().min().expect("a free cell has a candidate");
        let weight = |e: i32| row.get((e - lowest) as usize).copied().unwrap_or(0);
        let sum: u32 = energies.iter().map(|&e| weight(e)).sum();
        let own = *chosen as usize;
        let u = attempt_random(key, i as u32);
        let mut r = match weight(energies[own]) {
            0 => mul_high(u, sum),
            own_weight => {
                let before: u32 = energies[..own].iter().map(|&e| weight(e)).sum();
                let turned = before + mul_high(u, own_weight) + row[0];
                if turned >= sum {
                    turned - sum
                } else {
                    turned
                }
            }
        };
        let mut pick = energies.len() - 1;
        for (c, &e) in energies.iter().enumerate() {
            if r < weight(e) {
                pick = c;
                break;
            }
            r -= weight(e);
        }
        *chosen = pick as u8;
        for &k in table.units_of(candidates.start + pick) {
            totals[k as usize] += 1;
        }
        totals[table.padding as usize] = 0;
    }
    // The sample's draws follow the cells' own: attempts len.. of the sweep.
    let draws: Vec<u16> = match (completion, keeps) {
        (Some(_), Some(_)) => {
            (table.len()..2 * table.len()).map(|i| (attempt_random(key, i as u32) >> 16) as u16).collect()
        }
        _ => Vec::new(),
    };
    let sample = keeps.map(|keeps| (keeps, &draws[..]));
    if let Some(filled) = completion.and_then(|c| c.fill(table, &replica.choice, &replica.totals[..], sample)) {
        replica.totals = totals_of(table, &filled);
        replica.choice = filled;
    }
    replica.energy = update_weights(table, replica, weights, sweep_number);
}

/// After a sweep: adaptive weights grow on violated units and relax; returns
/// the replica's new energy, Σ_k w_k (1 − t_k)² over the unit constraints.
fn update_weights(table: &CellTable, replica: &mut CellReplica, weights: Weights, sweep_number: u32) -> i32 {
    let units = table.unit_constraints();
    let (totals, w) = (&replica.totals, &mut replica.weights);
    if let Weights::Adaptive(rule) = weights {
        let relax = (sweep_number + 1).is_multiple_of(rule.relax_every);
        for k in units.clone() {
            if totals[k] != 1 {
                w[k] = (w[k] + 1).min(rule.cap);
            }
            if relax && w[k] > rule.base {
                w[k] -= 1;
            }
        }
    }
    units.map(|k| w[k] as i32 * (1 - totals[k] as i32).pow(2)).sum()
}
