//! The host side of `shaders/bits.wgsl` (32 replicas in the bits of each
//! u32; twin: `cpu/bits.rs`, the bits32 backend).

use super::kernel::{boolean, int, Binding, EngineParts, Kernel, Loaded};
use crate::backend::cpu::bits::{self as twin, DRAWS_PER_SPIN, REPLICAS_PER_WORD};
use crate::dynamics::Weights;
use crate::model::Spin;
use crate::rng::INITIAL_STATE_SWEEP;

/// Words of bits.wgsl's threshold rows: 2 smallest uphill ΔE × 32 rounds × 3 ΔE classes.
pub(super) const ROWS: u32 = 192;

/// bits.wgsl: a word of 32 replicas per unit, its totals as bit planes
/// (where they fit), threshold rows and lane tables in workgroup memory.
pub(super) struct BitsKernel;

impl EngineParts for BitsKernel {
    fn source(&self) -> &'static str {
        include_str!("../../../shaders/bits.wgsl")
    }

    fn replicas_per_unit(&self) -> usize {
        REPLICAS_PER_WORD
    }

    fn lanes(&self, _kernel: &Kernel) -> u32 {
        REPLICAS_PER_WORD as u32
    }

    /// One word (a warp) a workgroup: on an H200, whole runs 1.02–1.05× the
    /// puzzles/s of four words on the hardest class, forum hardest and 16×16,
    /// 1.02–1.03× on 25×25; two words sat between (BENCHMARKS.md, session 47).
    fn most_units_per_group(&self, _kernel: &Kernel) -> u32 {
        1
    }

    fn workgroup_words(&self, kernel: &Kernel) -> u32 {
        workgroup_total_words(kernel) + ROWS + REPLICAS_PER_WORD as u32
    }

    fn totals_may_stay_global(&self) -> bool {
        true
    }

    fn totals_per_unit(&self, kernel: &Kernel) -> u32 {
        kernel.totals * kernel.planes
    }

    fn state_per_unit(&self, kernel: &Kernel) -> u32 {
        kernel.max_spins
    }

    fn gather_bindings(&self) -> &'static [Binding] {
        &[Binding::Params, Binding::Slots, Binding::SpinData, Binding::States, Binding::Energies, Binding::Solutions]
    }

    fn constants(&self, kernel: &Kernel) -> Vec<String> {
        let per_group = kernel.per_group;
        vec![
            int("PLANES", kernel.planes),
            int("SUM_PLANES", kernel.sum_planes),
            int("WORDS_PER_GROUP", per_group),
            int("GROUP_SIZE", REPLICAS_PER_WORD as u32 * per_group),
            boolean("WORKGROUP_TOTALS", kernel.workgroup_totals),
            // A WGSL array has at least one element.
            int("GROUP_TOTALS", (workgroup_total_words(kernel) * per_group).max(1)),
            int("ROWS", ROWS),
            int("GROUP_ROWS", ROWS * per_group),
            int("GROUP_LANES", REPLICAS_PER_WORD as u32 * per_group),
            int("DRAWS_PER_SPIN", DRAWS_PER_SPIN),
            int("INITIAL_STATE_SWEEP", INITIAL_STATE_SWEEP),
        ]
    }

    fn loop_iterations(&self, kernel: &Kernel, attempts_per_lane: u64) -> (u64, u64, u64) {
        let (colours, lanes) = (kernel.shape.n as u64, REPLICAS_PER_WORD as u64);
        let (totals, width) = (kernel.totals as u64, kernel.width as u64);
        let (planes, sums) = (kernel.planes as u64, kernel.sum_planes as u64);
        let load_and_store = 2 * (totals * planes).div_ceil(lanes);
        let rows = 2 * 3 * (lanes + 1);
        let initial_state = colours + attempts_per_lane * (1 + width * (1 + planes));
        let energy = (totals - 1) * (1 + planes);
        // Sums, comparisons, 32 rounds at most, 32 thinned lanes at most
        // (each sums its totals' planes), counts.
        let attempt = width * (1 + sums) + 6 * (1 + sums) + 32 + 32 * (1 + width * (1 + planes)) + width * (1 + planes);
        (load_and_store + rows + initial_state + energy + 4, attempt, 0)
    }

    fn spins_of(&self, words: &[u32], replica: usize, free_spins: &[Spin]) -> Vec<u8> {
        let lane = replica % REPLICAS_PER_WORD;
        words[..free_spins.len()].iter().map(|w| (w >> lane & 1) as u8).collect()
    }

    /// Random, from the word's stream: the twin's.
    fn initial_spins(&self, puzzle: &Loaded, seed: u64, replica: usize, _weights: Weights) -> Vec<u8> {
        twin::initial_state(puzzle.free_spins.len(), seed, replica)
    }
}

/// Words of a bits.wgsl word's totals in workgroup memory.
pub(super) fn workgroup_total_words(kernel: &Kernel) -> u32 {
    if kernel.workgroup_totals {
        kernel.totals * kernel.planes
    } else {
        0
    }
}
