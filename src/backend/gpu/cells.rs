//! The host side of `shaders/cells.wgsl` (heat-bath cell moves, fixed or
//! adaptive weights; twin: `cpu/cells.rs`).

use super::kernel::{boolean, int, EngineParts, Kernel, Loaded};
use crate::backend::cpu::cells::CellReplica;
use crate::dynamics::{Weights, COMPLETE_EVERY, HOT_COMPLETE_EVERY, SWEEPS_BEFORE_COMPLETION};
use crate::grid::SMALL_BOARD_ORDER;
use crate::rng::INITIAL_STATE_SWEEP;

/// cells.wgsl: a replica per unit, its constraints' totals and weights
/// (packed `t | w << 16`), a word per cell and its energy in workgroup
/// memory; in global memory the same, so gather and the states read back
/// as spins.wgsl's do.
pub(super) struct CellsKernel;

/// Invocations per replica and the most replicas a workgroup, for boards up
/// to 9×9 and above. A colour class holds at most n cells, ~7 free ones on
/// a hardest-class 9×9 puzzle, so 16 invocations left most of a 9×9 phase
/// idle: on an H200, 8 with four replicas a workgroup (a warp) ran
/// 1.02–1.12× the puzzles/s of 16 with two on 9×9 collections (1.12–1.15×
/// the kernel's attempts/s), but 0.6–0.8× on 16×16 and 25×25 boards, whose
/// classes of up to 16 or 25 cells then take two to four passes
/// (BENCHMARKS.md, session 45). Above 9×9, four replicas a workgroup where
/// they fit (a 25×25 replica's 12.5 KB allow three in 48 KiB) ran
/// 1.08–1.7× the puzzles/s of two on 25×25 collections of 10 to 43
/// puzzles (medians 1.3–1.7× shorter) and 0.95–0.99 with 1 to 6 in flight;
/// on 16×16 0.96–1.04, medians 1–3 % longer (session 47).
const SMALL_BOARD_GROUPS: (u32, u32) = (8, 4);
const LARGE_BOARD_GROUPS: (u32, u32) = (16, 4);

/// The houses (rows, columns, boxes) of the kernel's board.
fn houses(kernel: &Kernel) -> u32 {
    kernel.shape.geometry().unit_cells.len() as u32
}

/// [`SMALL_BOARD_GROUPS`] or [`LARGE_BOARD_GROUPS`], by the kernel's board.
fn groups(kernel: &Kernel) -> (u32, u32) {
    if kernel.shape.n <= SMALL_BOARD_ORDER {
        SMALL_BOARD_GROUPS
    } else {
        LARGE_BOARD_GROUPS
    }
}

impl EngineParts for CellsKernel {
    fn source(&self) -> &'static str {
        concat!(include_str!("../../../shaders/cells.wgsl"), include_str!("../../../shaders/gather_cells.wgsl"))
    }

    fn lanes(&self, kernel: &Kernel) -> u32 {
        kernel.options.cell_invocations.unwrap_or(groups(kernel).0)
    }

    fn most_units_per_group(&self, kernel: &Kernel) -> u32 {
        groups(kernel).1
    }

    fn workgroup_words(&self, kernel: &Kernel) -> u32 {
        // Completion: a word per cell, three per house, three flags, the kept cells' count and the workgroup's one.
        let completion = if kernel.completes { kernel.cells + 3 * houses(kernel) + 5 } else { 0 };
        kernel.totals + kernel.cells + 2 + completion
    }

    fn cell_headers(&self, kernel: &Kernel) -> u32 {
        kernel.cells
    }

    fn constants(&self, kernel: &Kernel) -> Vec<String> {
        let (per_group, lanes) = (kernel.per_group, self.lanes(kernel));
        let (adaptive, base, cap, relax_every) = match kernel.weights {
            Weights::Fixed => (false, 1, 1, 1),
            Weights::Adaptive(rule) => (true, rule.base as u32, rule.cap as u32, rule.relax_every),
        };
        vec![
            int("CELL_INVOCATIONS", lanes),
            int("REPLICAS_PER_GROUP", per_group),
            int("GROUP_SIZE", lanes * per_group),
            int("GROUP_TOTALS", kernel.totals * per_group),
            int("GROUP_CELLS", kernel.cells * per_group),
            int("FIRST_UNIT", kernel.cells),
            int("CELL_DATA", kernel.spin_data_per_slot()),
            boolean("ADAPTIVE", adaptive),
            int("WEIGHT_BASE", base),
            int("WEIGHT_CAP", cap),
            int("RELAX_EVERY", relax_every),
            int("INITIAL_STATE_SWEEP", INITIAL_STATE_SWEEP),
            boolean("COMPLETE", kernel.completes),
            int("HOUSES", houses(kernel)),
            // Arrays of at least one word where the kernel does not complete.
            int("GROUP_FILL", if kernel.completes { kernel.cells * per_group } else { 1 }),
            int("GROUP_HOUSE_WORDS", if kernel.completes { 3 * houses(kernel) * per_group } else { 1 }),
            int("SWEEPS_BEFORE_COMPLETION", SWEEPS_BEFORE_COMPLETION),
            int("COMPLETE_EVERY", COMPLETE_EVERY),
            int("HOT_COMPLETE_EVERY", HOT_COMPLETE_EVERY),
            int("SAMPLE_KEEPS", kernel.keeps.unwrap_or(0)),
        ]
    }

    fn loop_iterations(&self, kernel: &Kernel, attempts_per_lane: u64) -> (u64, u64, u64) {
        let (lanes, n) = (self.lanes(kernel) as u64, kernel.shape.n as u64);
        let units = (kernel.totals as u64).div_ceil(lanes);
        let unit_width = kernel.width as u64 - 1;
        // Two passes over a cell's candidates, each over their units; the old and new candidates' units.
        let per_cell = 2 * n * (1 + unit_width) + 2 * unit_width;
        let load_and_store = 2 * (units + (kernel.cells as u64).div_ceil(lanes));
        let initial_state = n + attempts_per_lane * (1 + unit_width);
        // Completion, per sweep: a pass over the houses (each over its
        // digits, twice) and the cells (each over its candidates and
        // houses), then at most a round per cell, each two passes over the
        // houses and four over the cells, and the grid written back; where
        // it samples, a pass of one invocation over all the cells.
        let completion = if kernel.completes {
            let houses = (houses(kernel) as u64).div_ceil(lanes);
            let cells = (kernel.cells as u64).div_ceil(lanes);
            let round = 2 * houses + 4 * cells * (2 + 2 * unit_width) + 1;
            let sample = if kernel.keeps.is_some() { kernel.cells as u64 } else { 0 };
            houses * (1 + 2 * n)
                + cells * (1 + n + 2 * unit_width)
                + (kernel.cells as u64 + 1) * round
                + units
                + cells
                + sample
        } else {
            0
        };
        // Load, store, the initial state and the final energy; and a weight pass per sweep.
        (load_and_store + initial_state + units + 4, per_cell, units + 1 + completion)
    }

    /// A random candidate per cell: the twin's.
    fn initial_spins(&self, puzzle: &Loaded, seed: u64, replica: usize, weights: Weights) -> Vec<u8> {
        let table = puzzle.cells.as_ref().expect("cells.wgsl slots keep their cells");
        let replica = CellReplica::random(table, weights, seed, replica as u32);
        table.spins_of(&replica.choice, puzzle.free_spins.len())
    }
}
