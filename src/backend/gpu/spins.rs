//! The host side of `shaders/spins.wgsl` (single-spin Metropolis, an int
//! per constraint total; twin: `cpu/spins.rs`).

use super::kernel::{boolean, int, EngineParts, Kernel, Loaded, INVOCATIONS_PER_REPLICA};
use crate::dynamics::Weights;

/// spins.wgsl: a replica per unit, its totals, a word per cell (bit d:
/// spin (cell, d)) and its energy in workgroup memory.
pub(super) struct SpinsKernel;

impl EngineParts for SpinsKernel {
    fn source(&self) -> &'static str {
        concat!(include_str!("../../../shaders/spins.wgsl"), include_str!("../../../shaders/gather_cells.wgsl"))
    }

    fn lanes(&self, _kernel: &Kernel) -> u32 {
        INVOCATIONS_PER_REPLICA
    }

    fn workgroup_words(&self, kernel: &Kernel) -> u32 {
        kernel.totals + kernel.cells + 1
    }

    fn constants(&self, kernel: &Kernel) -> Vec<String> {
        let per_group = kernel.per_group;
        vec![
            boolean("UNIFORM", kernel.uniform),
            int("INVOCATIONS_PER_REPLICA", INVOCATIONS_PER_REPLICA),
            int("REPLICAS_PER_GROUP", per_group),
            int("GROUP_SIZE", INVOCATIONS_PER_REPLICA * per_group),
            int("GROUP_TOTALS", kernel.totals * per_group),
            int("GROUP_CELLS", kernel.cells * per_group),
        ]
    }

    fn loop_iterations(&self, kernel: &Kernel, _attempts_per_lane: u64) -> (u64, u64, u64) {
        // Load and store a replica's totals and cells.
        (2 * (kernel.totals as u64 + kernel.cells as u64).div_ceil(INVOCATIONS_PER_REPLICA as u64) + 4, 1, 0)
    }

    /// All zero.
    fn initial_spins(&self, puzzle: &Loaded, _seed: u64, _replica: usize, _weights: Weights) -> Vec<u8> {
        vec![0; puzzle.free_spins.len()]
    }
}
