//! The `cpu-lanes` backend: cell moves with per-chain weights, fast on the
//! CPU. Thirty-two chains of a puzzle sweep in lockstep, one per 16-bit
//! lane of a vector (`vector.rs`: two AVX2 registers, four SSE2 ones), so
//! each chain keeps its own candidates, constraint totals and weights while
//! every operation serves all of them. The sweep is compiled for AVX2 as
//! well as for any x86-64, and the CPU picks at run time.
//!
//! It runs the dynamics of `cpu/cells.rs` (docs/DESIGN.md §4) with its own
//! arithmetic and random numbers, so it is no twin: its tests compare it
//! with the exact Boltzmann distribution and its energies with the
//! model's. What differs:
//!
//! - Heat-bath weights are 15-bit: the best candidate of a cell of c
//!   weighs `ONE_c = ⌊32767 / c⌋`, so a cell's weights and their running
//!   sums stay positive in a signed 16-bit lane, where a compare is one
//!   instruction. One x above it weighs `ONE_c · q^x`, q = exp(−1/T), from
//!   x's bits: each multiplies by `q^(2^b)` where x has it and by
//!   65535/65536 where not (16-bit fixed point, rounded down; an OR rather
//!   than a select per bit, at most one unit lower per bit than the exact
//!   product). A candidate below one part in `ONE_c` of the best (at
//!   T = 1.2, about 11 weight units above it) is never drawn.
//! - A candidate's energy leaves out the cell's own candidate without
//!   writing the totals: only its own units hold it, so only its energy
//!   changes, by −2 Σ w.
//! - Random numbers come from xorshift128+, 16 bits per chain per cell,
//!   seeded per group from the counter-based streams (`rng.rs`).
//! - The chains of four-rung ladders move between lanes, each to its rung's
//!   quarter of the vector, so the weights come from a table per quarter
//!   (`group.rs`); a chain then draws its new lane's random numbers.
//!
//! With `--complete singles` (its default) the chains' grids are also
//! completed by singles in their lanes (`complete.rs`, docs/DESIGN.md §4).

use std::ops::Range;

use rayon::prelude::*;

use super::kind::BackendKind;
use super::slots::{Chains, Slots};
use super::tables::{CellTable, TradeTable};
use super::{Backend, Layout, Problem};
use crate::dynamics::{completes_after, Weights, HEAT_BATH_ONE, SWEEPS_BEFORE_COMPLETION};
use crate::error::Result;
use crate::grid::{Geometry, Shape, MAX_N};
use crate::rng::stream_key;

mod complete;
mod group;
mod vector;

use complete::{Completion, CompletionScratch};
use group::{has_avx2, Completing, Group, Sweeps};
pub use vector::LANES as CHAINS_PER_GROUP;

/// Bits of x = e − e_min a heat-bath weight is computed from: x ≥ 2¹⁰
/// weighs what x = 2¹⁰ − 1 does, below one part in 2¹⁶ at any T ≤ 90.
const X_BITS: usize = 10;
/// The most a cell's heat-bath weights sum to: 15 bits, so the draw's
/// running sums stay positive in a signed 16-bit lane.
const WEIGHT_SUM: u16 = 32767;

/// The heat-bath weight of a cell's best candidate, by its number of
/// candidates c: `⌊WEIGHT_SUM / c⌋` (a table, not a division per cell).
const ONE: [u16; MAX_N + 1] = {
    let mut one = [0; MAX_N + 1];
    let mut c = 1;
    while c <= MAX_N {
        one[c] = WEIGHT_SUM / c as u16;
        c += 1;
    }
    one
};

/// The most bits of x a weight table covers: 16 entries, one byte shuffle;
/// a wide table covers one more (`vector::WideRegisters`: hot chains).
const TABLE_BITS: usize = 4;

/// One slot's puzzle.
#[derive(Debug, Clone)]
struct Puzzle {
    table: CellTable,
    /// The unit constraints a chain can violate: those with a candidate,
    /// and any a fixed cell already breaks. Each other unit holds once
    /// forever, so its weight stays at the base and its energy at 0.
    units: Vec<u16>,
    weights: Weights,
    /// At the ladder's temperatures.
    ladder: Rungs,
    /// At `Dynamics::heat` times each rung's temperature, where the chains
    /// run hotter once grids are completed.
    heated: Option<Rungs>,
    groups: Vec<Group>,
    /// The board, while the chains' grids are to be completed and
    /// completion's tables are not made yet: they are made for the first
    /// sweeps that complete (made at every load, they cost an easy
    /// collection 5 % of its time).
    completion_board: Option<&'static Geometry>,
    completion: Option<Completion>,
    /// At most so many of a hot chain's kept cells a completion keeps
    /// (`Dynamics::keeps`), where the chains heat.
    keeps: Option<usize>,
    spins: usize,
    sweeps_done: u32,
    /// The pairs of cells that trade digits, where the chains trade.
    trades: Option<TradeTable>,
}

/// What a group's weights are made from, per rung of the ladder.
#[derive(Debug, Clone)]
struct Rungs {
    /// Each rung's q^(2^b), q = exp(−1/T), unsigned 16-bit, rounded down.
    powers: Vec<[i16; X_BITS]>,
    /// Each rung's bits of x that can give a nonzero weight.
    bits: Vec<usize>,
}

impl Rungs {
    /// Each rung's q = exp(−1/T).
    fn new(q: impl Iterator<Item = f64> + Clone) -> Rungs {
        Rungs { powers: q.clone().map(powers).collect(), bits: q.map(bits).collect() }
    }
}

/// q^(2^b) for b < `X_BITS`, in 16-bit fixed point rounded down.
fn powers(q: f64) -> [i16; X_BITS] {
    std::array::from_fn(|b| (65536.0 * q.powi(1 << b)).floor().min(65535.0) as u16 as i16)
}

/// Bits of x that give a nonzero weight at `q` (at least 1).
fn bits(q: f64) -> usize {
    let zero = (1..1u32 << X_BITS).find(|&x| WEIGHT_SUM as f64 * q.powi(x as i32) < 1.0).unwrap_or((1 << X_BITS) - 1);
    (u32::BITS - zero.leading_zeros()) as usize
}

/// The unit constraints of `table` that a chain can violate.
fn violable_units(table: &CellTable) -> Vec<u16> {
    let mut has_candidate = vec![false; table.fixed_ones.len()];
    for &k in &table.units {
        has_candidate[k as usize] = true;
    }
    table.unit_constraints().filter(|&k| has_candidate[k] || table.fixed_ones[k] != 1).map(|k| k as u16).collect()
}

impl Chains for Puzzle {
    fn sweep(&mut self, rung_of_replica: &[u32], count: u32) {
        let (first, end) = (self.sweeps_done, self.sweeps_done + count);
        let heat = self.heated.is_some();
        if let Some(board) = self.completion_board {
            if (first..end).any(|s| completes_after(s, heat)) {
                self.completion = Some(Completion::new(board, &self.table, &self.units));
                self.completion_board = None;
            }
        }
        let Puzzle { table, units, weights, ladder, heated, groups, completion, keeps, trades, .. } = self;
        let trades = trades.as_ref();
        let completion = completion.as_ref().map(|tables| Completing { tables, heat, keeps: *keeps });
        // A call across the first hot sweep runs as two: cold, then hot.
        let hot_from = if heat { SWEEPS_BEFORE_COMPLETION.clamp(first, end) } else { end };
        let parts = [(first..hot_from, &*ladder), (hot_from..end, heated.as_ref().unwrap_or(ladder))];
        let rule = match *weights {
            Weights::Adaptive(rule) => Some(rule),
            Weights::Fixed => None,
        };
        groups.par_iter_mut().zip(rung_of_replica.par_chunks(CHAINS_PER_GROUP)).for_each(|(group, rungs)| {
            for (numbers, Rungs { powers, bits: rung_bits }) in parts.iter().filter(|(numbers, _)| !numbers.is_empty())
            {
                let bits = rungs.iter().map(|&r| rung_bits[r as usize]).max().unwrap_or(1);
                group.set_rungs(rungs, powers, bits, units);
                let sweeps = Sweeps { table, units, bits, rule, numbers: numbers.clone(), completion, trades };
                // A completed grid ends the call.
                if group.run(sweeps) {
                    break;
                }
            }
        });
        self.sweeps_done = end;
    }

    fn energies(&self) -> Vec<i32> {
        self.groups.iter().flat_map(|g| (0..CHAINS_PER_GROUP).map(|chain| g.energy[g.lane(chain)])).collect()
    }

    fn spins(&self, replica: usize) -> Vec<u8> {
        let group = &self.groups[replica / CHAINS_PER_GROUP];
        let lane = group.lane(replica % CHAINS_PER_GROUP);
        let choice: Vec<u8> = group.choice.iter().map(|c| c.0[lane] as u8).collect();
        self.table.spins_of(&choice, self.spins)
    }

    fn weights(&self, replica: usize) -> Vec<u8> {
        let group = &self.groups[replica / CHAINS_PER_GROUP];
        match self.weights {
            Weights::Fixed => Vec::new(),
            Weights::Adaptive(_) => {
                let lane = group.lane(replica % CHAINS_PER_GROUP);
                group.constraints[self.table.unit_constraints()].iter().map(|k| k.weight.0[lane] as u8).collect()
            }
        }
    }
}

#[derive(Debug, Default)]
pub struct LanesBackend {
    slots: Slots<Puzzle>,
    /// Completion's scratch of puzzles unloaded, for those loaded next
    /// (48 KB zeroed for every puzzle cost an easy collection about 1.5 %
    /// of its time).
    spare_scratch: Vec<Box<CompletionScratch>>,
}

impl LanesBackend {
    pub fn new() -> LanesBackend {
        LanesBackend::default()
    }
}

impl Backend for LanesBackend {
    fn kind(&self) -> BackendKind {
        BackendKind::CpuLanes
    }

    fn device(&self) -> String {
        let vectors = if has_avx2() { "AVX2" } else { "the baseline instruction set" };
        format!("{} threads, {CHAINS_PER_GROUP} chains per vector, {vectors}", rayon::current_num_threads())
    }

    fn max_replicas(&self, _shape: Shape) -> usize {
        usize::MAX
    }

    fn configure(&mut self, layout: Layout) -> Result<()> {
        BackendKind::CpuLanes.check_runs(layout.dynamics)?;
        self.slots.configure(&layout);
        Ok(())
    }

    fn load(&mut self, slot: usize, problem: &Problem) -> Result<()> {
        let table = CellTable::new(problem.model);
        let weights = problem.dynamics.weights;
        let rungs = problem.rungs;
        // The heat-bath row's second entry is HEAT_BATH_ONE · q.
        let q: Vec<f64> =
            (0..rungs).map(|r| problem.row(r).get(1).map_or(0.0, |&w| w as f64 / HEAT_BATH_ONE as f64)).collect();
        let ladder = Rungs::new(q.iter().copied());
        let units = violable_units(&table);
        let board = problem.model.geometry();
        let completion_board = problem.dynamics.completes_on(board).then_some(board);
        // q = exp(−1/T): at h·T, q^(1/h).
        let heat = || Rungs::new(q.iter().map(|&q| q.powf(1.0 / problem.dynamics.heat())));
        let heated = problem.heats().then(heat);
        let keeps = problem.keeps();
        let groups = (0..self.slots.replicas_per_slot().div_ceil(CHAINS_PER_GROUP))
            .map(|g| {
                let group = Group::random(&table, &units, weights, stream_key(problem.seed, g as u32), rungs);
                match completion_board {
                    Some(_) => group.with_completion_scratch(self.spare_scratch.pop()),
                    None => group,
                }
            })
            .collect();
        let spins = problem.model.len();
        let trades = problem.trades.as_ref().map(|trades| {
            let mut free = vec![0; board.cells];
            for (i, &cell) in table.cells.iter().enumerate() {
                free[cell as usize] = i as u32;
            }
            trades.numbered(|cell| free[cell as usize])
        });
        self.slots.load(
            slot,
            Puzzle {
                table,
                units,
                weights,
                ladder,
                heated,
                groups,
                completion_board,
                completion: None,
                keeps,
                spins,
                sweeps_done: 0,
                trades,
            },
        );
        Ok(())
    }

    fn unload(&mut self, slot: usize) -> Result<()> {
        if let Some(puzzle) = self.slots.unload(slot) {
            self.spare_scratch.extend(puzzle.groups.into_iter().filter_map(Group::into_completion_scratch));
        }
        Ok(())
    }

    fn submit(&mut self, slots: Range<usize>, rung_of_replica: &[u32], counts: &[u32]) -> Result<()> {
        self.slots.submit(slots, rung_of_replica, counts);
        Ok(())
    }

    fn energies(&mut self, slots: Range<usize>) -> Result<Vec<i32>> {
        Ok(self.slots.energies(slots))
    }

    fn spins(&mut self, replicas: &[usize]) -> Result<Vec<Vec<u8>>> {
        self.slots.read(replicas, Puzzle::spins)
    }

    fn weights(&mut self, replicas: &[usize]) -> Result<Vec<Vec<u8>>> {
        self.slots.read(replicas, Puzzle::weights)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dynamics::{AdaptiveWeights, Completion as DynamicsCompletion, Dynamics, Moves, COMPLETION_HEAT};
    use crate::model::Model;
    use crate::puzzle::parse_grid;
    use crate::reduce::{reduce, Reduce};
    use crate::tempering::Ladder;

    /// With grids completed on a one-rung ladder, the sweeps after the
    /// first ones run hotter (`Dynamics::heat`), in a call across the first
    /// hot sweep too: the backend's chains are those of a group swept cold,
    /// then hot, by hand; on a ladder of two rungs they stay at their
    /// rungs' temperatures.
    #[test]
    fn chains_run_hotter_once_grids_are_completed_on_one_rung() {
        let inkala = "8..........36......7..9.2...5...7.......457.....1...3...1....68..85...1..9....4..";
        let puzzle = parse_grid(inkala.as_bytes(), crate::grid::Variant::Standard).unwrap();
        let model = Model::build(&reduce(&puzzle, Reduce::Propagate).unwrap()).unwrap();
        let rule = AdaptiveWeights::DEFAULT;
        let dynamics = Dynamics {
            moves: Moves::Cell,
            weights: Weights::Adaptive(rule),
            completion: DynamicsCompletion::Singles,
            ..Dynamics::default()
        };
        let first = SWEEPS_BEFORE_COMPLETION;
        for rungs in [1, 2] {
            let ladder = Ladder::geometric(rungs, 1.2, 2.0);
            let problem = Problem::with_dynamics(&model, &ladder, 3, dynamics);
            let layout =
                Layout { shape: model.fixed.shape, slots: 1, replicas_per_slot: CHAINS_PER_GROUP, rungs, dynamics };
            let mut backend = LanesBackend::new();
            backend.configure(layout).unwrap();
            backend.load(0, &problem).unwrap();
            let rung_of_replica: Vec<u32> = (0..CHAINS_PER_GROUP as u32).map(|c| c % rungs as u32).collect();
            for count in [first - 3, 8] {
                backend.submit(0..1, &rung_of_replica, &[count]).unwrap();
            }
            let swept = backend.slots.unload(0).unwrap().groups.remove(0);

            let table = CellTable::new(&model);
            let units = violable_units(&table);
            let completion = Completion::new(model.geometry(), &table, &units);
            let q: Vec<f64> = (0..rungs).map(|r| problem.row(r)[1] as f64 / HEAT_BATH_ONE as f64).collect();
            let mut by_hand = Group::random(&table, &units, Weights::Adaptive(rule), stream_key(3, 0), rungs);
            let hot = if rungs == 1 { COMPLETION_HEAT } else { 1.0 };
            for (numbers, heat) in [(0..first, 1.0), (first..first + 5, hot)] {
                let heated = Rungs::new(q.iter().map(|&q| q.powf(1.0 / heat)));
                let bits = heated.bits.iter().copied().max().unwrap();
                by_hand.set_rungs(&rung_of_replica, &heated.powers, bits, &units);
                let completion = Some(Completing { tables: &completion, heat: rungs == 1, keeps: None });
                let (table, units) = (&table, &units[..]);
                by_hand.run(Sweeps { table, units, bits, rule: Some(rule), numbers, completion, trades: None });
            }
            assert!(swept.choice == by_hand.choice, "{rungs} rungs: the chains differ");
            assert!(swept.constraints == by_hand.constraints, "{rungs} rungs: the totals and weights differ");
        }
    }
}
