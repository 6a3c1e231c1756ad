//! What one sweep does to a replica: the move set and the constraint
//! weights (`--moves`, `--weights`), and the per-rung tables each move
//! set reads. docs/DESIGN.md §4 gives the rules and why.
//!
//! - `spin` moves: every free spin in turn proposes a flip, accepted by
//!   Metropolis. The plain model, for comparing Ising machines.
//! - `cell` moves: every free cell always holds exactly one candidate
//!   digit, and is updated as a whole by a heat-bath draw over its
//!   candidates. Cells of one colour class share no unit, so a class
//!   updates at once.
//! - `adaptive` weights (cell moves only): each replica carries an integer
//!   weight on every unit constraint; after each sweep every violated unit
//!   gains 1 (up to a cap), and every `relax_every` sweeps every weight
//!   above the base loses 1. All weights are at least 1, so energy 0 still
//!   means solved.
//! - `singles` completion (`--complete`, cell moves on boards up to 16×16
//!   without diagonals): from the 12th sweep, every other sweep, each
//!   chain's cells outside the houses of its violated units are kept and
//!   the rest filled by naked and hidden singles; a chain whose grid fills
//!   without a contradiction moves to that solution. It reads the chain and
//!   leaves it as it is otherwise, so the chains' distribution until a
//!   solution is the move set's own; but where every ladder has one rung
//!   the chains run at 2.25 times their rung's temperature from the 11th sweep,
//!   and their grids are completed after every sweep there. The schedule
//!   is below (`completes_after`), one for every backend. `sampled`
//!   completion (`cpu-lanes`' default) keeps at most [`SAMPLED_KEEPS`] of
//!   a hot chain's kept cells, drawn at random, its chains at
//!   [`SAMPLED_HEAT`] times their temperature.
//! - trades (`--trades`, cell moves on `cpu-lanes`): after each sweep,
//!   two free cells that share every unit but one (a row and a box, a
//!   column and a box) propose to trade their digits, accepted by
//!   Metropolis: their shared units keep their totals, so only the two
//!   cells' own units weigh in. A chain stuck with a digit twice in one
//!   row and twice in another of the same band (the lowest false states
//!   of large boards) moves that defect along at no cost, where cell moves
//!   pay for a doubled digit at every step (docs/DESIGN.md §4).

use crate::grid::Geometry;
use crate::tempering::Ladder;

/// How a sweep updates a replica.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Moves {
    /// Single-spin Metropolis on the plain model.
    #[default]
    Spin,
    /// Cells kept one-hot, each updated by a heat-bath draw over its candidates.
    Cell,
}

/// `--weights`: the rule, without its parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, clap::ValueEnum)]
pub enum WeightRule {
    /// Every constraint weighs 1: the plain model.
    Fixed,
    /// Per replica, grown on violated units and relaxed toward the base (cell moves only).
    Adaptive,
}

/// The weights of the unit constraints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Weights {
    /// Every constraint weighs 1: the plain model.
    Fixed,
    /// Per replica, grown on violated units and relaxed toward the base.
    Adaptive(AdaptiveWeights),
}

/// The rule of adaptive weights: start at `base`, +1 on every violated unit
/// after each sweep up to `cap`, −1 on every weight above `base` every
/// `relax_every` sweeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
pub struct AdaptiveWeights {
    pub base: u8,
    pub cap: u8,
    pub relax_every: u32,
}

impl AdaptiveWeights {
    /// The prototype's rule (docs/DESIGN.md §4); boards above 9×9 relax
    /// faster by default (`BackendKind::defaults`).
    pub const DEFAULT: AdaptiveWeights = AdaptiveWeights { base: 2, cap: 16, relax_every: 5 };
}

impl Weights {
    /// The weight every unit starts at.
    pub fn initial(self) -> u8 {
        match self {
            Weights::Fixed => 1,
            Weights::Adaptive(rule) => rule.base,
        }
    }
}

/// `--complete`: what the chains' grids are given besides their moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Completion {
    /// Nothing: a chain reaches a solution by its moves alone.
    #[default]
    Off,
    /// From the 12th sweep, every other sweep, a chain's grid outside the
    /// houses of its violated units, completed by naked and hidden singles
    /// where they fill it; on one-rung ladders the chains run at 2.25 times
    /// their temperature from the 11th sweep, completed after every sweep.
    Singles,
    /// As `singles`, but where the chains run hot they run at 1.75 times
    /// their temperature (`SAMPLED_HEAT`), and a completion keeps at most 6
    /// of a grid's kept cells (`SAMPLED_KEEPS`), drawn at random.
    Sampled,
}

/// `--trades`: whether pairs of cells trade digits after each sweep.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Trades {
    /// Cell moves alone.
    #[default]
    Off,
    /// After each sweep, in every group of free cells that share every unit
    /// but one, one pair in turn proposes to trade digits (Metropolis).
    On,
}

/// The move set, the weights, the completion and the trades together.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
pub struct Dynamics {
    pub moves: Moves,
    pub weights: Weights,
    pub completion: Completion,
    pub trades: Trades,
}

impl Default for Dynamics {
    /// The plain model with single-spin moves.
    fn default() -> Dynamics {
        Dynamics { moves: Moves::Spin, weights: Weights::Fixed, completion: Completion::Off, trades: Trades::Off }
    }
}

impl Dynamics {
    /// Whether the chains' grids are completed on `board`: cell moves with
    /// singles completion, a board of up to 16 digits (a cell's digits fit
    /// a 16-bit lane) whose cells lie in as many houses each (no diagonals).
    pub fn completes_on(&self, board: &Geometry) -> bool {
        self.moves == Moves::Cell && self.completion != Completion::Off && board.n <= 16 && board.uniform
    }

    /// Whether pairs of cells trade digits after each sweep: cell moves
    /// with trades on (boards with diagonals have no such pairs).
    pub fn trades(&self) -> bool {
        self.moves == Moves::Cell && self.trades == Trades::On
    }

    /// At most how many of a grid's kept cells a completion of chains that
    /// heat keeps ([`SAMPLED_KEEPS`] where completion is `sampled`).
    pub fn keeps(&self) -> Option<usize> {
        (self.completion == Completion::Sampled).then_some(SAMPLED_KEEPS)
    }

    /// How many times their rung's temperature chains that heat run at:
    /// [`SAMPLED_HEAT`] where completion is `sampled`, else [`COMPLETION_HEAT`].
    pub fn heat(&self) -> f64 {
        match self.completion {
            Completion::Sampled => SAMPLED_HEAT,
            Completion::Off | Completion::Singles => COMPLETION_HEAT,
        }
    }

    /// How many times their rung's temperature the chains of ladders of
    /// `rungs` rungs on `board` ran at in the last of their `sweeps_done`
    /// sweeps: for reports of what ran (the solver's observers, the live page).
    pub fn heat_after(&self, board: &Geometry, rungs: usize, sweeps_done: u32) -> f64 {
        if self.heats(board, rungs) && sweeps_done > 0 && runs_hot(sweeps_done - 1) {
            self.heat()
        } else {
            1.0
        }
    }

    /// Whether chains on ladders of `rungs` rungs run hot from sweep
    /// [`SWEEPS_BEFORE_COMPLETION`] on (`runs_hot`): where grids are
    /// completed on one-rung ladders. Ladders of several rungs keep their
    /// temperatures: their exchanges weigh energies at the rungs' own.
    pub fn heats(&self, board: &Geometry, rungs: usize) -> bool {
        self.completes_on(board) && rungs == 1
    }
}

/// The first sweeps, after which no grid is completed: an easy puzzle's
/// chains mostly solve it in the first round, and full probing decides
/// most others after the second (completed from the second sweep on, an
/// easy collection took 1.05 times the CPU time; from the sixth, magictour
/// 1.07 times). The hardest class needs 1.08 times the work without them.
pub const SWEEPS_BEFORE_COMPLETION: u32 = 10;

/// Where the chains heat ([`Dynamics::heats`]) and completion is
/// `singles` ([`SAMPLED_HEAT`] where it is `sampled`), the sweeps from
/// [`SWEEPS_BEFORE_COMPLETION`] on run at this many times their rung's
/// temperature: completion wants varied grids with many cells right, not
/// the lowest energies (at twice the temperature, completed every other
/// sweep, the hardest class needs 0.37 of the work and 0.56 of the time).
/// Completed after every sweep, 2.25 times needs 0.95 of twice's work on
/// the hardest class (six seeds), 0.97 held out and 0.98 on forum hardest;
/// from about 2.4 times an attempt costs more (1.02 times the instructions
/// at 2.375, 1.06 at 2.5; measured before `cpu-lanes` read five bits of x
/// from a table: up to 2.375 x has five, from 2.5 six, which only products
/// cover). An easy collection's chains have mostly solved theirs by then
/// (BENCHMARKS.md).
pub const COMPLETION_HEAT: f64 = 2.25;

/// `--complete sampled`: at most this many of a hot chain's kept cells,
/// drawn at random, are kept for a completion. A hot chain keeps 0 to 48
/// cells of a hardest-class grid; singles fill from 3 to 10 of them most
/// often (0.11–0.23 % of grids), from 20 or more seldom (some of them are
/// wrong). Six of them, drawn at random, need 0.75 of the work on the
/// hardest class (held out too) and 0.70 on forum hardest; 5 and 7 about
/// as little, 4 or 10 0.92, 3 1.57. Six random cells holding random
/// digits instead of the chain's need 3.1 times the work of six of the
/// chain's, and the best count of random cells (4) that of all the kept
/// cells: the chains' cells are what fills. On 16×16 boards, whose chains
/// do not heat, keeping 6 of them needed 1.38 times the work (BENCHMARKS.md).
pub const SAMPLED_KEEPS: usize = 6;

/// [`COMPLETION_HEAT`] where completion is `sampled`: with six kept cells
/// drawn, chains at 1.75 times their temperature need 0.93 of the work of
/// 2.25 times on the hardest class (seeds 1 and 2, held out too) and 0.87
/// to 0.91 on forum hardest; 1.5 and 2.0 times 0.97 on the hardest class
/// (BENCHMARKS.md).
pub const SAMPLED_HEAT: f64 = 1.75;

/// Sweeps between two completions at the rungs' own temperatures: after
/// every sweep a hardest-class run took 1.05 times the CPU time of every
/// other sweep on `cpu-lanes` (a completion costs about a sweep), and
/// 16×16 boards 1.14 times the instructions (BENCHMARKS.md).
pub const COMPLETE_EVERY: u32 = 2;

/// The same in hot sweeps: a hot chain's grids fill more often, and after
/// every sweep the hardest class needs 0.82 of the instructions of every
/// other sweep, forum hardest 0.89 (BENCHMARKS.md).
pub const HOT_COMPLETE_EVERY: u32 = 1;

/// Whether sweep `s` (counted from 0) of chains that heat runs hot.
pub fn runs_hot(s: u32) -> bool {
    s >= SWEEPS_BEFORE_COMPLETION
}

/// Whether the chains' grids are completed after sweep `s` (counted from
/// 0; from 1, as the relaxing sweeps are, every `COMPLETE_EVERY`th, or
/// every `HOT_COMPLETE_EVERY`th where the sweep runs hot), on chains that
/// `heat` or not.
pub fn completes_after(s: u32, heat: bool) -> bool {
    let every = if heat && runs_hot(s) { HOT_COMPLETE_EVERY } else { COMPLETE_EVERY };
    s + 1 > SWEEPS_BEFORE_COMPLETION && (s + 1).is_multiple_of(every)
}

/// One more than the most the energies of a cell's candidates can differ
/// by on a board of side `n` whose candidates lie in `unit_width` units:
/// each unit adds w(2t − 1), between −w and w(2n − 1).
pub fn heat_bath_spread(n: usize, unit_width: usize, weights: Weights) -> usize {
    let heaviest = match weights {
        Weights::Fixed => 1,
        Weights::Adaptive(rule) => rule.cap.max(rule.base) as usize,
    };
    unit_width * heaviest * 2 * n + 1
}

/// Heat-bath weights are fixed point, the lowest candidate's at this scale:
/// with at most 25 candidates their sum stays below 2³¹.
pub const HEAT_BATH_ONE: u32 = 1 << 24;

/// The heat-bath rows of `ladder`, `len` entries per rung: entry x is
/// `HEAT_BATH_ONE · exp(−x/T)`, rounded, for a candidate whose energy lies
/// x above the cell's lowest; an x past the row's end weighs 0 (the row
/// is long enough for every x with a nonzero weight, or for every x a
/// puzzle can produce).
pub fn heat_bath_rows(ladder: &Ladder, len: usize) -> Vec<u32> {
    let mut rows = Vec::with_capacity(ladder.rungs() * len);
    for &t in &ladder.temperatures {
        rows.extend((0..len).map(|x| (HEAT_BATH_ONE as f64 * (-(x as f64) / t).exp()).round() as u32));
    }
    rows
}

/// The heat-bath rows of `ladder`, then of `heated` where the chains heat,
/// each long enough for the hottest rung and at most `spread` (what
/// [`heat_bath_len`] says), and that length. The table a thread made last
/// is kept and served again for the same ladders and spread: a
/// collection's puzzles share them, and their exponentials took 4 % of an
/// easy collection's time (BENCHMARKS.md, session 58).
pub fn heat_bath_table(ladder: &Ladder, heated: Option<&Ladder>, spread: usize) -> (Vec<u32>, usize) {
    type Made = ((Vec<f64>, Option<Vec<f64>>, usize), (Vec<u32>, usize));
    thread_local! {
        static LAST: std::cell::RefCell<Option<Made>> = const { std::cell::RefCell::new(None) };
    }
    let made_from = (ladder.temperatures.clone(), heated.map(|heated| heated.temperatures.clone()), spread);
    LAST.with_borrow_mut(|last| {
        if let Some((_, table)) = last.as_ref().filter(|(from, _)| *from == made_from) {
            return table.clone();
        }
        let table = make_heat_bath_table(ladder, heated, spread);
        *last = Some((made_from, table.clone()));
        table
    })
}

/// [`heat_bath_table`], made afresh.
fn make_heat_bath_table(ladder: &Ladder, heated: Option<&Ladder>, spread: usize) -> (Vec<u32>, usize) {
    let len = heat_bath_len(heated.unwrap_or(ladder), spread);
    let mut rows = heat_bath_rows(ladder, len);
    rows.extend(heated.map_or(Vec::new(), |heated| heat_bath_rows(heated, len)));
    (rows, len)
}

/// Entries of a heat-bath row: up to the first weight that rounds to 0 at
/// the ladder's hottest rung, but never more than `most` (the largest x a
/// puzzle can produce, plus 1).
pub fn heat_bath_len(ladder: &Ladder, most: usize) -> usize {
    let hottest = ladder.temperatures.iter().copied().fold(0.0, f64::max);
    let weight = |x: usize| (HEAT_BATH_ONE as f64 * (-(x as f64) / hottest).exp()).round();
    (1..most).find(|&x| weight(x) == 0.0).map_or(most, |zero| zero + 1).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heat_bath_rows_weigh_by_boltzmann_factors_and_end_in_zero() {
        let ladder = Ladder::geometric(2, 1.0, 2.0);
        let len = heat_bath_len(&ladder, 1000);
        let rows = heat_bath_rows(&ladder, len);
        assert_eq!((rows[0], rows[len]), (HEAT_BATH_ONE, HEAT_BATH_ONE));
        assert_eq!(rows[1], (HEAT_BATH_ONE as f64 / std::f64::consts::E).round() as u32);
        assert_eq!(rows[2 * len - 1], 0, "the hottest row ends in a zero weight");
        assert!(rows[2 * len - 2] > 0, "and no longer than that");
        assert_eq!(heat_bath_len(&ladder, 7), 7);
    }

    /// The table kept from the call before is served only for the same
    /// ladders and spread: each call gets what its own would make.
    #[test]
    fn a_table_served_again_is_the_one_its_ladders_make() {
        let (one, two) = (Ladder::geometric(1, 1.2, 1.2), Ladder::geometric(2, 0.4, 0.5));
        let hot = one.heated(COMPLETION_HEAT);
        let calls =
            [(&one, Some(&hot), 100), (&one, Some(&hot), 100), (&one, None, 100), (&two, None, 100), (&two, None, 3)];
        for (ladder, heated, spread) in calls {
            assert_eq!(
                heat_bath_table(ladder, heated, spread),
                make_heat_bath_table(ladder, heated, spread),
                "{ladder:?} {heated:?} {spread}"
            );
        }
    }
}
