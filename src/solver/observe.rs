//! A window on a run while it anneals, for whoever watches (the live page):
//! after the rounds it asks for, each annealing puzzle's energies in the
//! plain model, ladder state, work so far and the grid of its lowest-energy
//! replica. A run without an observer pays one branch per round.

use crate::grid::Grid;
use crate::puzzle::Entry;

/// What a round left one annealing puzzle in.
pub struct Progress<'a> {
    pub entry: &'a Entry,
    /// Sweeps run per replica so far.
    pub sweeps: u64,
    /// Spin-update attempts so far, over all the puzzle's replicas.
    pub attempts: u64,
    /// Since the puzzle was loaded (its preparation included).
    pub seconds: f64,
    /// Each replica's energy in the plain model (0: solved), ladder after ladder.
    pub energies: &'a [i32],
    /// The rung each replica stands on (0: the coldest), in the same order.
    pub rung_of_replica: Vec<u32>,
    /// Each rung's temperature in the sweeps just run, coldest first.
    pub temperatures: &'a [f64],
    /// Accepted over proposed exchanges of each adjacent pair of rungs,
    /// coldest pair first, over the puzzle's ladders; `None` where none was proposed.
    pub swap_acceptance: Vec<Option<f64>>,
    /// The replica of lowest plain energy: its energy, and its grid, with 0
    /// in a cell that holds no digit or several.
    pub best_energy: i32,
    pub best: Grid,
    /// Whether this was the puzzle's last round (solved, or out of budget).
    pub last: bool,
}

pub trait Observer {
    /// Whether it wants to see the next round: the energies of the plain
    /// model take every replica's state from the backend (a readback from
    /// a device), since adaptive weights anneal another energy.
    fn wants_round(&self) -> bool;

    /// A round it wanted, or a puzzle's last round, which it always sees.
    fn round(&mut self, progress: Progress<'_>);
}
