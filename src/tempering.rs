//! Stage 4, parallel tempering (docs/DESIGN.md §3): the temperature ladder, its
//! Metropolis acceptance thresholds, and host-side replica exchange.
//!
//! Exchange permutes temperatures, never states: `rung_of_replica` is all a
//! backend needs. Rounds alternate even pairs (0,1),(2,3)… and odd pairs
//! (1,2),(3,4)…; a pair swaps with probability
//! `min(1, exp((β_cold − β_hot)(E_cold − E_hot)))`.

use crate::grid::Variant;
use crate::rng::{attempt_random, stream_key, sweep_key};

#[derive(Debug, Clone, PartialEq)]
pub struct Ladder {
    /// Increasing temperatures, one per rung.
    pub temperatures: Vec<f64>,
}

impl Ladder {
    /// `rungs` temperatures from `t_min` to `t_max` in equal ratios.
    pub fn geometric(rungs: usize, t_min: f64, t_max: f64) -> Ladder {
        let temperatures = (0..rungs)
            .map(|k| if rungs == 1 { t_min } else { t_min * (t_max / t_min).powf(k as f64 / (rungs - 1) as f64) })
            .collect();
        Ladder { temperatures }
    }

    pub fn rungs(&self) -> usize {
        self.temperatures.len()
    }

    /// The ladder at `heat` times each temperature.
    pub fn heated(&self, heat: f64) -> Ladder {
        Ladder { temperatures: self.temperatures.iter().map(|t| t * heat).collect() }
    }

    /// Integer Metropolis thresholds, `table_len` per rung: an uphill move of
    /// ΔE = k is accepted when a uniform u32 is below entry k, i.e. with
    /// probability exp(−k/T). Entry 0 (ΔE = 0) is u32::MAX but unused: moves
    /// with ΔE ≤ 0 are always accepted. On Sudoku boards every ΔE is even
    /// (docs/DESIGN.md §1) and odd entries go unread; on Latin squares and on the
    /// diagonals of `--variant x` a spin has an odd number of constraints,
    /// so ΔE is odd there.
    pub fn thresholds(&self, table_len: usize) -> Vec<u32> {
        let mut table = Vec::with_capacity(self.rungs() * table_len);
        for &t in &self.temperatures {
            table.extend((0..table_len).map(|k| {
                let p = (-(k as f64) / t).exp();
                (p * 4_294_967_296.0).min(u32::MAX as f64) as u32
            }));
        }
        table
    }
}

/// Independent ladders of `replicas` temperatures each, geometric from
/// `t_min` to `t_max`.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Ladders {
    pub ladders: usize,
    pub replicas: usize,
    pub t_min: f64,
    pub t_max: f64,
}

/// The default ends of a single-spin ladder for `variant`. A defect (a digit missing or
/// doubled) costs in proportion to the constraints a spin is in, 4 on
/// Sudoku boards and 3 on Latin squares, and so do the temperature where a
/// board orders and the one where replicas roam freely: 0.1 and 0.3 per
/// constraint. With the Sudoku ladder (0.4) an empty Latin square of order
/// 12 or more never orders; 0.3 orders it in tens of sweeps (BENCHMARKS.md).
pub fn default_temperatures(variant: Variant) -> (f64, f64) {
    match variant {
        Variant::Standard | Variant::X => (0.4, 1.2),
        Variant::Latin => (0.3, 0.9),
    }
}

/// Host-side replica exchange state and statistics.
#[derive(Debug, Clone)]
pub struct Exchange {
    betas: Vec<f64>,
    pub replica_at_rung: Vec<u32>,
    pub rung_of_replica: Vec<u32>,
    key: u32,
    round: u32,
    /// Proposals and acceptances of each adjacent pair (rung k, k + 1).
    pub attempts: Vec<u64>,
    pub accepted: Vec<u64>,
}

impl Exchange {
    /// Replica r starts at rung r. Each of a puzzle's ladders has its own
    /// `index`, hence its own random stream.
    pub fn new(ladder: &Ladder, seed: u64, index: u32) -> Exchange {
        let rungs = ladder.rungs();
        Exchange {
            betas: ladder.temperatures.iter().map(|t| 1.0 / t).collect(),
            replica_at_rung: (0..rungs as u32).collect(),
            rung_of_replica: (0..rungs as u32).collect(),
            // Streams counted down from u32::MAX are never a replica's.
            key: stream_key(seed, u32::MAX - index),
            round: 0,
            attempts: vec![0; rungs.saturating_sub(1)],
            accepted: vec![0; rungs.saturating_sub(1)],
        }
    }

    /// One exchange round on the replicas' current energies.
    pub fn exchange(&mut self, energies: &[i32]) {
        let key = sweep_key(self.key, self.round);
        let first = (self.round % 2) as usize;
        for cold in (first..self.attempts.len()).step_by(2) {
            let hot = cold + 1;
            let (a, b) = (self.replica_at_rung[cold], self.replica_at_rung[hot]);
            let log_p = (self.betas[cold] - self.betas[hot]) * (energies[a as usize] - energies[b as usize]) as f64;
            let uniform = attempt_random(key, cold as u32) as f64 / 4_294_967_296.0;
            self.attempts[cold] += 1;
            if log_p >= 0.0 || uniform < log_p.exp() {
                self.accepted[cold] += 1;
                self.replica_at_rung.swap(cold, hot);
                self.rung_of_replica[a as usize] = hot as u32;
                self.rung_of_replica[b as usize] = cold as u32;
            }
        }
        self.round += 1;
    }

    /// Accepted fraction of proposals for each adjacent pair; `None` where
    /// none was proposed yet.
    pub fn acceptance(&self) -> Vec<Option<f64>> {
        self.accepted.iter().zip(&self.attempts).map(|(&a, &n)| acceptance_rate(a, n)).collect()
    }
}

/// Accepted over proposed exchanges; `None` where none was proposed.
pub fn acceptance_rate(accepted: u64, proposed: u64) -> Option<f64> {
    (proposed > 0).then(|| accepted as f64 / proposed as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn geometric_ladder_hits_both_ends_in_equal_ratios() {
        let ladder = Ladder::geometric(5, 0.5, 8.0);
        let t = &ladder.temperatures;
        assert!((t[0] - 0.5).abs() < 1e-12 && (t[4] - 8.0).abs() < 1e-12);
        assert!((t[1] / t[0] - 2.0).abs() < 1e-12 && (t[3] / t[2] - 2.0).abs() < 1e-12);
    }

    #[test]
    fn thresholds_encode_boltzmann_factors() {
        let table = Ladder::geometric(1, 2.0, 2.0).thresholds(3);
        assert_eq!(table[0], u32::MAX);
        assert_eq!(table[1], ((-0.5f64).exp() * 4_294_967_296.0) as u32);
        assert_eq!(table[2], ((-1.0f64).exp() * 4_294_967_296.0) as u32);
    }

    #[test]
    fn a_hot_replica_with_lower_energy_always_moves_down() {
        let mut exchange = Exchange::new(&Ladder::geometric(2, 1.0, 2.0), 0, 0);
        exchange.exchange(&[10, 2]);
        assert_eq!(exchange.replica_at_rung, vec![1, 0]);
        assert_eq!(exchange.rung_of_replica, vec![1, 0]);
        assert_eq!(exchange.acceptance(), vec![Some(1.0)]);
        assert_eq!(Exchange::new(&Ladder::geometric(3, 1.0, 2.0), 0, 0).acceptance(), vec![None, None]);
    }
}
