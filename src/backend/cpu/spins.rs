//! Single-spin Metropolis sweeps of one replica: the reference arithmetic
//! of the `cpu` backend (`--moves spin`), and the twin of
//! `shaders/spins.wgsl`, which must agree bit for bit.
//!
//! Each replica keeps its spins and the total `t_k` of ones in each
//! constraint. The local field of spin i is `Σ_{k∋i} (2(t_k − x_i) − 1)`
//! (model.rs), so an attempt reads a spin's constraint totals (4 on a
//! Sudoku board) and costs a compare (downhill) or a hash and a table
//! look-up (uphill); an accepted flip writes the same totals.
//! Within a colour class no two spins share a constraint, so updating a
//! class in order equals updating it all at once, as the GPU does.

use crate::backend::tables::SpinTable;
use crate::rng::{attempt_random, stream_key, sweep_key};

/// Length of a replica's totals array: a power of two above every shape's
/// constraint count (2,550 for 25×25 with diagonals), so `k % TOTALS` is a
/// mask and the compiler drops the bounds checks.
const TOTALS: usize = 4096;
const _: () = assert!(crate::grid::MAX_CONSTRAINTS < TOTALS);

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
    pub fn new(table: &SpinTable, seed: u64, index: u32) -> Replica {
        Replica {
            spins: vec![0; table.spins()],
            totals: {
                let mut totals = Box::new([0; TOTALS]);
                totals[..table.fixed_ones.len()].copy_from_slice(&table.fixed_ones);
                totals
            },
            energy: table.offset,
            stream: stream_key(seed, index),
        }
    }
}

/// One colour-class sweep of one replica at the temperature whose
/// thresholds are `thresholds`. Twin of `sweep` in `shaders/spins.wgsl`.
pub fn sweep(table: &SpinTable, replica: &mut Replica, thresholds: &[u32], sweep_number: u32) {
    // One compiled loop per constraint layout, so the common ones keep a fixed trip count.
    match (table.width, table.uniform) {
        (3, true) => sweep_with::<3, true>(table, replica, thresholds, sweep_number),
        (4, true) => sweep_with::<4, true>(table, replica, thresholds, sweep_number),
        // Diagonals: even sides have no cell on both.
        (5, false) => sweep_with::<5, false>(table, replica, thresholds, sweep_number),
        (6, false) => sweep_with::<6, false>(table, replica, thresholds, sweep_number),
        layout => unreachable!("no board has spins in {layout:?} constraints"),
    }
}

fn sweep_with<const WIDTH: usize, const UNIFORM: bool>(
    table: &SpinTable,
    replica: &mut Replica,
    thresholds: &[u32],
    sweep_number: u32,
) {
    let key = sweep_key(replica.stream, sweep_number);
    let totals = &mut replica.totals;
    let (spin_constraints, _) = table.spin_constraints.as_chunks::<WIDTH>();
    // Free spins are stored in colour-class order, so this is class by class.
    for (i, (spin, constraints)) in replica.spins.iter_mut().zip(spin_constraints).enumerate() {
        let x = *spin as i32;
        let total: i32 = constraints.iter().map(|&k| totals[k as usize % TOTALS] as i32).sum();
        let count = if UNIFORM { WIDTH } else { constraints.iter().filter(|&&k| k != table.padding).count() };
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
        for &k in constraints.iter().filter(|&&k| UNIFORM || k != table.padding) {
            let t = &mut totals[k as usize % TOTALS];
            *t = if x == 0 { *t + 1 } else { *t - 1 };
        }
    }
}
