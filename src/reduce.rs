//! Stage 2a, pre-reduction: which spins stay free before the model is built.
//!
//! `None` keeps every digit of every empty cell; `Clues` removes digits
//! that a clue peer already holds; `Propagate` then also applies naked and
//! hidden singles until nothing changes; `Probe` then also removes digits
//! whose placement singles refute. Reduction only removes spins (a
//! cell it pins down becomes fixed like a clue); the search is the
//! annealer's. A contradiction found on the way proves there is no solution.
//! One exception: a placement after which probing's singles fill the grid
//! is a solution, and `Probe` ends with it (one of them, on a puzzle with
//! several).

use crate::error::{Conflict, PuzzleError};
use crate::grid::{symbol, CellSets, Geometry, Grid};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Reduce {
    /// Clamp the clues, keep every digit of every empty cell free.
    None,
    /// Also remove digits a clue peer holds.
    Clues,
    /// Also apply naked and hidden singles until fixpoint: no cost on the
    /// hardest puzzles (no single applies), a fraction of the work on easier
    /// ones (BENCHMARKS.md).
    Propagate,
    /// Also remove each candidate whose placement leads singles to a
    /// contradiction (failed-literal probing), until no pass removes one or
    /// 64 candidates in a row hold; a placement after which singles fill
    /// the grid ends it with that solution. Before the anneal, probing is
    /// brief (a pass gives up after 8 candidates in a row hold: it decides
    /// many 17-clue puzzles), and none on boards of more than 128 cells
    /// (16×16 and up, which the anneal solves in tens of sweeps); a puzzle the anneal
    /// has not solved in 10 sweeps (100 on those boards) is probed in full.
    /// Probing in full comes before the anneal, instead of the brief
    /// probing, where its first round would reach it (as
    /// `gpu`'s 20 sweeps do) or where more than a quarter of the spins are
    /// free after singles (which the anneal seldom solves in 10 sweeps). It
    /// solves most magictour puzzles outright (or proves there is no
    /// solution), and where it does not decide a puzzle after 10 sweeps the
    /// anneal goes on as it was, so puzzles the anneal finds easy pay only
    /// for the brief probing (BENCHMARKS.md). `export` writes the model
    /// annealed: briefly probed, or probed in full where many spins are free,
    /// or on boards above 128 cells propagated only.
    #[default]
    Probe,
}

/// What reduction leaves: fixed cells, and candidate digits of the rest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidates {
    /// Digit 1..=n of each fixed cell (clue or pinned down), 0 if free.
    pub fixed: Grid,
    /// Per cell, bit `d` set: digit `d + 1` is still possible in a free
    /// cell (0 for a fixed one). Empty when every cell is fixed, which on
    /// an easy collection is nearly every puzzle: no allocation for them.
    pub masks: Vec<u32>,
}

impl Candidates {
    pub fn is_possible(&self, cell: usize, digit: usize) -> bool {
        self.masks.get(cell).is_some_and(|mask| mask >> digit & 1 == 1)
    }
}

/// Fails when a digit appears twice in a unit, naming both cells.
pub fn check_clues(grid: &Grid) -> Result<(), PuzzleError> {
    let geometry = grid.geometry();
    for (unit, cells) in geometry.unit_cells.iter().enumerate() {
        let mut seen = 0u32;
        for (k, &cell) in cells.iter().enumerate() {
            let bit = (1u32 << grid.cells[cell]) >> 1;
            if seen & bit != 0 {
                let digit = grid.cells[cell];
                let first = cells[..k].iter().find(|&&c| grid.cells[c] == digit).expect("seen before");
                return Err(PuzzleError::ConflictingClues(Box::new(Conflict {
                    digit: symbol(digit as usize),
                    unit: geometry.unit_name(unit),
                    first: geometry.cell_name(*first),
                    second: geometry.cell_name(cell),
                })));
            }
            seen |= bit;
        }
    }
    Ok(())
}

/// Reduces a puzzle. Fails when two clues conflict (as [`check_clues`]
/// says) or when reduction proves there is no solution.
pub fn reduce(grid: &Grid, mode: Reduce) -> Result<Candidates, PuzzleError> {
    reduce_probing(grid, mode, |_| Some(FULL_PROBING)).map(|(candidates, _)| candidates)
}

/// The reduction a puzzle has before its anneal starts, and whether it
/// was probed in full: [`reduce`], but under [`Reduce::Probe`] probing is
/// brief (a pass gives up after 8 candidates in a row held, 64 in full),
/// so that a puzzle the anneal finds easy pays little, unless `in_full`
/// (the anneal's first round would reach the full probing) or more than a
/// quarter of the spins are free after singles on a board of at most 128
/// cells: the anneal seldom solves those in its first 10 sweeps (`cpu-lanes`
/// solved 26 of magictour's 1,465 so, session 55), and brief probing before
/// probing in full cost magictour a fifth of its time (BENCHMARKS.md,
/// session 58).
pub fn reduce_before_annealing(grid: &Grid, mode: Reduce, in_full: bool) -> Result<(Candidates, bool), PuzzleError> {
    reduce_probing(grid, mode, |free_spins| probing_before_annealing(grid.geometry(), free_spins, in_full))
}

/// The probing of [`reduce_before_annealing`], `free_spins` left by singles:
/// none where it is not in full on a board of more than 128 cells. The
/// anneal solves generated 16×16 puzzles in tens of sweeps, and brief
/// probing before it cost them 6–10 % of their instructions on lists of
/// cells (45 % of easy ones' at half their cells given; BENCHMARKS.md,
/// session 63), and still 2–4 % (17 %) with places counted as they go
/// (session 64); it changed nothing on 25×25. Probing in full still comes
/// after `probe_after_sweeps`.
fn probing_before_annealing(geometry: &Geometry, free_spins: usize, in_full: bool) -> Option<Probing> {
    if geometry.cell_sets.is_none() {
        return in_full.then_some(FULL_PROBING);
    }
    let many_free = free_spins > geometry.n.pow(3) / 4;
    Some(if in_full || many_free { FULL_PROBING } else { BRIEF_PROBING })
}

/// [`reduce`], probing as `probing` says for the count of spins free
/// after singles (`None`: not at all); and whether that was probing in full.
fn reduce_probing(
    grid: &Grid,
    mode: Reduce,
    probing: impl Fn(usize) -> Option<Probing>,
) -> Result<(Candidates, bool), PuzzleError> {
    let geometry = grid.geometry();
    // The fast path gives up on any contradiction, clues that conflict
    // included: the general one then finds it and says where.
    if let (Reduce::Propagate | Reduce::Probe, Some(sets)) = (mode, &geometry.cell_sets) {
        if let Some(reduced) = reduce_on_boards(grid, sets, mode, &probing) {
            return Ok(reduced);
        }
    }
    reduce_by_units(grid, mode, &probing)
}

/// [`reduce`] on the lists of each unit's cells, for any board; where it
/// fails, it says where.
fn reduce_by_units(
    grid: &Grid,
    mode: Reduce,
    probing: impl Fn(usize) -> Option<Probing>,
) -> Result<(Candidates, bool), PuzzleError> {
    let geometry = grid.geometry();
    check_clues(grid)?;
    let mut candidates = Candidates { fixed: grid.clone(), masks: vec![0; geometry.cells] };
    // The digits the clues of each unit hold (none under Reduce::None).
    let mut held = vec![0u32; geometry.unit_cells.len()];
    if mode != Reduce::None {
        for (unit, cells) in geometry.unit_cells.iter().enumerate() {
            // Digit d is bit d − 1; an empty cell (0) sets none.
            held[unit] = cells.iter().fold(0, |m, &c| m | (1 << grid.cells[c]) >> 1);
        }
    }
    let all = (1u32 << geometry.n) - 1;
    for cell in 0..geometry.cells {
        if grid.cells[cell] != 0 {
            continue;
        }
        let mask = all & !geometry.cell_units[cell].iter().fold(0, |m, &unit| m | held[unit]);
        if mask == 0 {
            return Err(no_candidate(grid, cell));
        }
        candidates.masks[cell] = mask;
    }
    let mut in_full = false;
    if matches!(mode, Reduce::Propagate | Reduce::Probe) {
        let mut singles = Singles::new(candidates, geometry)?;
        singles.propagate()?;
        if mode == Reduce::Probe && !singles.candidates.fixed.is_complete() {
            let masks = &singles.candidates.masks;
            let probing = probing(masks.iter().map(|mask| mask.count_ones() as usize).sum());
            in_full = probing == Some(FULL_PROBING);
            if let Some(probing) = probing {
                probe(&mut singles, probing)?;
            }
        }
        candidates = singles.candidates;
    }
    if candidates.fixed.is_complete() {
        candidates.masks = Vec::new();
    }
    Ok((candidates, in_full))
}

const MAX_DIGITS: usize = CellSets::MAX_DIGITS;

/// How a pass of probing goes through the candidates, and when it gives up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Probing {
    /// A pass gives up after this many candidates in a row held.
    patience: usize,
    /// Cells with fewer candidates first (the cells of each count digit by
    /// digit), else every cell at once, digit by digit; cells in order.
    fewest_first: bool,
}

/// Probing in full gives up a pass after 64 candidates in a row held: on
/// 17-clue and magictour puzzles the first refuted candidate comes within
/// the first 8 and 17 tried (90 % of puzzles), on the hardest class there is
/// rarely any; this cuts probing's cost there by half. Fewest candidates
/// first: a refutation, or a placement that fills the grid, comes sooner
/// (magictour: 18 % fewer trials, 0.91 of the time; BENCHMARKS.md).
const FULL_PROBING: Probing = Probing { patience: 64, fewest_first: true };

/// Before the anneal, where a puzzle the anneal finds easy should pay little
/// for probing, a pass gives up after 8: on 17-clue puzzles the first
/// refuted candidate comes within the first 8 tried (90 % of puzzles); a
/// trial costs some 3,000 instructions. Digit by digit: so a brief pass
/// decides 316 of an easy collection's first 5,000 puzzles (serg), fewest
/// first 74 (BENCHMARKS.md).
const BRIEF_PROBING: Probing = Probing { patience: 8, fewest_first: false };

/// A board as bit sets of cells (bit `c`: cell `c`), for boards of at most
/// 128 cells.
#[derive(Clone)]
struct Boards<'a> {
    n: usize,
    sets: &'a CellSets,
    free: u128,
    /// Per digit, cells no peer of which holds it: among them, the free
    /// cells it may still go in. Placing a digit leaves the other digits'
    /// sets alone (nine writes saved per placement); readers mask with `free`.
    may: [u128; MAX_DIGITS],
    /// Per digit, the units that do not hold it yet (bit `u`: unit `u`):
    /// the only ones a hidden single of it can lie in.
    open: [u64; MAX_DIGITS],
    /// Per digit, the units where its places may have shrunk since hidden
    /// singles last looked: the only ones where a new one can appear. Those
    /// of every digit (where cells were placed) are kept once: a loop over
    /// the digits at every placement cost easy collections 11 %.
    unsettled: [u64; MAX_DIGITS],
    unsettled_for_all: u64,
    /// Each cell's digit 1..=n, 0 while it is free: the grid as it fills
    /// (0 past the last cell).
    grid: [u8; 128],
}

impl Boards<'_> {
    /// Puts `digit` in each of `cells` (its clues, or free cells it may go
    /// in): false when two of them are peers. One call per digit for the
    /// clues, then per digit and layer of singles.
    fn place(&mut self, cells: u128, digit: usize) -> bool {
        let (mut peers, mut units, mut rest) = (0u128, 0u64, cells);
        while rest != 0 {
            // Below 128, as the compiler sees from the mask: no bounds checks.
            let cell = rest.trailing_zeros() as usize & 127;
            peers |= self.sets.peers[cell];
            units |= self.sets.units_of[cell];
            self.grid[cell] = digit as u8 + 1;
            rest &= rest - 1;
        }
        self.free &= !cells;
        self.may[digit] &= !peers;
        self.open[digit] &= !units;
        // The cells left every digit's places in their units; the digit
        // left its peers, whose units are nearly all of them.
        self.unsettled_for_all |= units;
        self.unsettled[digit] = !0;
        cells & peers == 0
    }

    /// Naked singles until none is left: whether it placed any, or `None`
    /// on a contradiction.
    fn naked_singles(&mut self) -> Option<bool> {
        let mut placed = false;
        loop {
            // Free cells with one candidate; none with none.
            let (mut once, mut twice) = (0u128, 0u128);
            for may in &self.may[..self.n] {
                let may = may & self.free;
                twice |= once & may;
                once |= may;
            }
            if self.free & !once != 0 {
                return None;
            }
            let single = once & !twice;
            if single == 0 {
                return Some(placed);
            }
            for digit in 0..self.n {
                let cells = single & self.may[digit];
                if cells != 0 {
                    self.place(cells, digit).then_some(())?;
                }
            }
            placed = true;
        }
    }

    /// Naked singles until none is left, then one pass of hidden singles:
    /// whether it placed any, or `None` on a contradiction.
    fn singles(&mut self) -> Option<bool> {
        let mut placed = self.naked_singles()?;
        // A digit with one place in a unit that lacks it; none with none.
        // Units unsettled by this pass's placements wait for the next pass.
        let for_all = std::mem::take(&mut self.unsettled_for_all);
        for digit in 0..self.n {
            let mut open = self.open[digit] & (std::mem::take(&mut self.unsettled[digit]) | for_all);
            // The digit's free places, read again only after a placement.
            let mut may = self.may[digit] & self.free;
            while open != 0 {
                let unit = open.trailing_zeros();
                open &= open - 1;
                let places = may & self.sets.units[unit as usize];
                if places & places.wrapping_sub(1) != 0 {
                    continue;
                }
                // A placement earlier in this pass may have given the unit its digit.
                if self.open[digit] >> unit & 1 == 0 {
                    continue;
                }
                if places == 0 {
                    return None;
                }
                // One cell, which the digit may go in.
                self.place(places, digit);
                may = self.may[digit] & self.free;
                placed = true;
            }
        }
        Some(placed)
    }

    /// One pass of failed-literal probing: removes each candidate whose
    /// placement leads singles to a contradiction, and applies singles at
    /// once (they may fill the grid, and later trials start from less),
    /// in `probing`'s order, giving up after `probing.patience` in a row
    /// held, or takes a placement after which singles fill the grid. A
    /// candidate that singles placed after one that held is counted as held
    /// untried ([`Boards::implied_by`]). Whether it changed any; `None` on a
    /// contradiction.
    fn probe(&mut self, probing: Probing) -> Option<bool> {
        let (mut removed, mut held) = (false, 0);
        // The cells in the order their classes are tried, each class digit
        // by digit: by count of candidates, or every free cell in one class.
        let classes = match probing.fewest_first {
            true => self.cells_by_candidates(),
            false => std::array::from_fn(|k| if k == 0 { self.free } else { 0 }),
        };
        // Per digit, the cells where singles placed it after the candidates
        // that held since the last removal (`implied_by`).
        let mut implied = [0u128; MAX_DIGITS];
        for class in classes.into_iter().filter(|&class| class != 0) {
            for digit in 0..self.n {
                let mut cells = self.may[digit] & self.free & class;
                while cells != 0 {
                    let cell = cells.trailing_zeros();
                    cells &= cells - 1;
                    // Singles after a removal may have settled it.
                    if (self.may[digit] & self.free) >> cell & 1 == 0 {
                        continue;
                    }
                    if implied[digit] >> cell & 1 == 0 {
                        let mut trial = self.clone();
                        if !(trial.place(1 << cell, digit) && trial.singles_until_done().is_some()) {
                            held = 0;
                            implied = [0; MAX_DIGITS];
                            self.may[digit] &= !(1 << cell);
                            self.unsettled[digit] |= self.sets.units_of[cell as usize & 127];
                            removed = true;
                            self.singles_until_done()?;
                            if self.free == 0 {
                                return Some(true);
                            }
                            continue;
                        }
                        if trial.free == 0 {
                            *self = trial;
                            return Some(true);
                        }
                        trial.implied_by(self, &mut implied);
                    }
                    held += 1;
                    if held == probing.patience {
                        return Some(removed);
                    }
                }
            }
        }
        Some(removed)
    }

    /// Adds to `implied` each digit this board (a trial that held) placed
    /// where `base` has none. Placed on `base`, such a digit holds as well:
    /// singles from it derive part of what the trial's derived, so it needs
    /// no trial of its own while `base` stays as it is (magictour: 9 % of
    /// the trials, none of the results).
    fn implied_by(&self, base: &Boards, implied: &mut [u128; MAX_DIGITS]) {
        let mut placed = base.free & !self.free;
        while placed != 0 {
            let cell = placed.trailing_zeros() as usize & 127;
            placed &= placed - 1;
            implied[usize::from(self.grid[cell] - 1)] |= 1 << cell;
        }
    }

    /// The free cells by their count of candidates: those with k + 1 at k.
    fn cells_by_candidates(&self) -> [u128; MAX_DIGITS] {
        // Each cell's count, bit-sliced: bit i of it in `count[i]` (at most 11).
        let mut count = [0u128; 4];
        for may in &self.may[..self.n] {
            let mut carry = may & self.free;
            for bit in &mut count {
                (*bit, carry) = (*bit ^ carry, *bit & carry);
            }
        }
        std::array::from_fn(|k| {
            let ones = k + 1;
            (0..4).fold(self.free, |cells, i| cells & if ones >> i & 1 == 1 { count[i] } else { !count[i] })
        })
    }

    /// Singles until none applies or every cell is filled; `None` on a
    /// contradiction.
    fn singles_until_done(&mut self) -> Option<()> {
        while self.free != 0 && self.singles()? {}
        Some(())
    }
}

/// [`reduce`] with [`Reduce::Propagate`] or [`Reduce::Probe`] on bit sets
/// of cells, for boards of at most 128 cells: the same result as on lists
/// of cells (singles reach a fixed point that does not depend on the order;
/// probing tries candidates in the same order, and counts as held without
/// a trial only candidates that would hold), several times faster on easy
/// collections (BENCHMARKS.md).
/// `None` on a contradiction, clues that conflict included.
fn reduce_on_boards(
    grid: &Grid,
    sets: &CellSets,
    mode: Reduce,
    probing: impl Fn(usize) -> Option<Probing>,
) -> Option<(Candidates, bool)> {
    let n = grid.shape.n;
    let by_digit = CellSets::cells_by_digit(&grid.cells, n);
    let mut boards = Boards {
        n,
        sets,
        free: by_digit[0],
        may: [!0; MAX_DIGITS],
        open: [(1u64 << sets.units.len()) - 1; MAX_DIGITS],
        unsettled: [!0; MAX_DIGITS],
        unsettled_for_all: 0,
        grid: [0; 128],
    };
    boards.grid[..grid.cells.len()].copy_from_slice(&grid.cells);
    // The clues, placed like any digit: false where two of a digit are peers.
    for (digit, &clues) in by_digit[1..=n].iter().enumerate() {
        boards.place(clues, digit).then_some(())?;
    }
    boards.singles_until_done()?;
    let mut in_full = false;
    if mode == Reduce::Probe && boards.free != 0 {
        let free_spins = boards.may[..n].iter().map(|may| (may & boards.free).count_ones() as usize).sum();
        let probing = probing(free_spins);
        in_full = probing == Some(FULL_PROBING);
        // Each pass applies singles after every removal: none are left after it.
        if let Some(probing) = probing {
            while boards.free != 0 && boards.probe(probing)? {}
        }
    }
    let mut masks = match boards.free {
        0 => Vec::new(),
        _ => vec![0; grid.cells.len()],
    };
    for digit in 0..n {
        let mut may = boards.may[digit] & boards.free;
        while may != 0 {
            masks[may.trailing_zeros() as usize] |= 1 << digit;
            may &= may - 1;
        }
    }
    let fixed = Grid { shape: grid.shape, cells: boards.grid[..grid.cells.len()].to_vec() };
    Some((Candidates { fixed, masks }, in_full))
}

fn no_candidate(grid: &Grid, cell: usize) -> PuzzleError {
    PuzzleError::NoSolution(format!("{} has no candidate", grid.geometry().cell_name(cell)))
}

/// A unit × digit's count of places once a cell of the unit holds the digit.
const HELD: u8 = u8::MAX;

/// Each byte to eight bytes, byte i holding its bit i.
const SPREAD: [u64; 256] = {
    let mut spread = [0; 256];
    let mut byte = 0;
    while byte < 256 {
        let mut bit = 0;
        while bit < 8 {
            spread[byte] |= ((byte as u64 >> bit) & 1) << (8 * bit);
            bit += 1;
        }
        byte += 1;
    }
    spread
};

/// Candidates under singles, on lists of cells (any board). Per unit and
/// digit it keeps the count of the unit's free cells the digit may go in,
/// as digits are removed: a hidden single is found where a count falls to
/// one, instead of by a pass over every unit each time the naked singles
/// run out (on 25×25 boards such passes were four fifths of probing's
/// cost, BENCHMARKS.md, session 64).
struct Singles<'g> {
    geometry: &'g Geometry,
    candidates: Candidates,
    /// At `unit * n + digit`: the free cells of the unit the digit may go
    /// in, or [`HELD`].
    places: Vec<u8>,
    /// Free cells left one candidate, and unit × digits left one place:
    /// singles waiting to be placed (some of them placed meanwhile).
    naked: Vec<usize>,
    hidden: Vec<usize>,
}

impl Clone for Singles<'_> {
    fn clone(&self) -> Self {
        Singles {
            geometry: self.geometry,
            candidates: self.candidates.clone(),
            places: self.places.clone(),
            naked: self.naked.clone(),
            hidden: self.hidden.clone(),
        }
    }

    /// Field by field, so that a probing trial reuses its buffers.
    fn clone_from(&mut self, source: &Self) {
        self.geometry = source.geometry;
        self.candidates.fixed.cells.clone_from(&source.candidates.fixed.cells);
        self.candidates.masks.clone_from(&source.candidates.masks);
        self.places.clone_from(&source.places);
        self.naked.clone_from(&source.naked);
        self.hidden.clone_from(&source.hidden);
    }
}

impl<'g> Singles<'g> {
    /// Counts each unit's places of each digit; the singles among them wait
    /// to be placed. Fails where a digit has no place in a unit.
    fn new(candidates: Candidates, geometry: &'g Geometry) -> Result<Singles<'g>, PuzzleError> {
        let n = geometry.n;
        let all = (1u32 << n) - 1;
        let mut places = vec![0; geometry.unit_cells.len() * n];
        let mut hidden = Vec::new();
        for (unit, cells) in geometry.unit_cells.iter().enumerate() {
            // Byte d of the sums counts digit d's places: each cell's
            // candidates spread a byte to a bit, eight digits a word,
            // without a branch (a loop over each cell's candidates
            // mispredicted its exit some 900 times an easy 16×16 puzzle).
            let (mut sums, mut held) = ([0u64; 4], 0u32);
            for &cell in cells {
                held |= (1 << candidates.fixed.cells[cell]) >> 1;
                // A fixed cell's mask is empty, and a held digit no free cell's candidate.
                let mask = candidates.masks[cell];
                for (k, sum) in sums.iter_mut().enumerate() {
                    *sum += SPREAD[(mask >> (8 * k)) as usize & 0xFF];
                }
            }
            let counts: [u8; 32] = bytemuck::cast(sums.map(u64::to_le));
            let (mut none, mut once) = (0u32, 0u32);
            for (digit, places) in places[unit * n..][..n].iter_mut().enumerate() {
                // A held digit counts no place: HELD by an or.
                *places = counts[digit] | 0u8.wrapping_sub((held >> digit & 1) as u8);
                none |= u32::from(counts[digit] == 0) << digit;
                once |= u32::from(counts[digit] == 1) << digit;
            }
            let (nowhere, mut once) = (none & !held & all, once & !held);
            if nowhere != 0 {
                return Err(no_place(geometry, nowhere.trailing_zeros() as usize, unit));
            }
            while once != 0 {
                hidden.push(unit * n + once.trailing_zeros() as usize);
                once &= once - 1;
            }
        }
        let naked = (0..geometry.cells).filter(|&cell| candidates.masks[cell].count_ones() == 1).collect();
        Ok(Singles { geometry, candidates, places, naked, hidden })
    }

    /// Naked singles (a cell with one candidate) and hidden singles (a digit
    /// with one place in a unit) until neither applies: the fixed point does
    /// not depend on the order.
    fn propagate(&mut self) -> Result<(), PuzzleError> {
        let n = self.geometry.n;
        loop {
            if let Some(cell) = self.naked.pop() {
                // A single placed since it joined may have fixed it.
                if self.candidates.fixed.cells[cell] == 0 {
                    self.place(cell, self.candidates.masks[cell].trailing_zeros() as usize)?;
                }
            } else if let Some(key) = self.hidden.pop() {
                // A count at one falls to zero only in an error, so the
                // digit is held or has one place.
                if self.places[key] == HELD {
                    continue;
                }
                let (unit, digit) = (key / n, key % n);
                let cell = self.geometry.unit_cells[unit].iter().find(|&&c| self.candidates.is_possible(c, digit));
                let &cell = cell.ok_or_else(|| no_place(self.geometry, digit, unit))?;
                self.place(cell, digit)?;
            } else {
                return Ok(());
            }
        }
    }

    /// Fixes the free `cell` to `digit`, one of its candidates: its units
    /// hold the digit, its other digits lose a place there, and its peers
    /// lose the digit.
    fn place(&mut self, cell: usize, digit: usize) -> Result<(), PuzzleError> {
        let (geometry, n) = (self.geometry, self.geometry.n);
        let others = self.candidates.masks[cell] & !(1 << digit);
        self.candidates.fixed.cells[cell] = digit as u8 + 1;
        self.candidates.masks[cell] = 0;
        for &unit in &geometry.cell_units[cell] {
            // A unit's placement took the digit from its cells' candidates.
            debug_assert_ne!(self.places[unit * n + digit], HELD, "placed where its unit holds it");
            self.places[unit * n + digit] = HELD;
        }
        // Digit by digit, the units inside: a loop over the digits inside
        // the units mispredicted its exit once a unit.
        let mut rest = others;
        while rest != 0 {
            for &unit in &geometry.cell_units[cell] {
                self.lose_place(unit, rest.trailing_zeros() as usize)?;
            }
            rest &= rest - 1;
        }
        for &peer in &geometry.peers[cell] {
            if self.candidates.is_possible(peer, digit) {
                self.remove(peer, digit)?;
            }
        }
        Ok(())
    }

    /// Removes `digit` from the free `cell`'s candidates.
    fn remove(&mut self, cell: usize, digit: usize) -> Result<(), PuzzleError> {
        let mask = self.candidates.masks[cell] & !(1 << digit);
        self.candidates.masks[cell] = mask;
        // One branch, seldom taken, where a match on the count mispredicted.
        if mask & mask.wrapping_sub(1) == 0 {
            if mask == 0 {
                return Err(no_candidate(&self.candidates.fixed, cell));
            }
            self.naked.push(cell);
        }
        for &unit in &self.geometry.cell_units[cell] {
            self.lose_place(unit, digit)?;
        }
        Ok(())
    }

    /// One place fewer for `digit` in `unit`, unless the unit holds it.
    fn lose_place(&mut self, unit: usize, digit: usize) -> Result<(), PuzzleError> {
        let key = unit * self.geometry.n + digit;
        let places = self.places[key];
        // A held digit stays held without a branch: whether a peer's unit
        // is one of the placed cell's, which hold the digit, is unpredictable.
        self.places[key] = places - u8::from(places != HELD);
        if places <= 2 {
            if places == 1 {
                return Err(no_place(self.geometry, digit, unit));
            }
            self.hidden.push(key);
        }
        Ok(())
    }
}

/// Failed-literal probing: passes of [`probe_pass`] (which propagates
/// after each removal) until one removes nothing.
fn probe(singles: &mut Singles, probing: Probing) -> Result<(), PuzzleError> {
    while probe_pass(singles, probing)? {}
    Ok(())
}

/// One pass of [`probe`]: removes each candidate whose placement leads
/// singles to a contradiction, and propagates at once, giving up after
/// `probing.patience` in a row held, or ends with a placement that fills
/// the grid; in the fast path's order, so that it gives up where that
/// does. Whether it changed any.
fn probe_pass(singles: &mut Singles, probing: Probing) -> Result<bool, PuzzleError> {
    let geometry = singles.geometry;
    let (mut removed, mut held) = (false, 0);
    // The free cells in classes, each tried digit by digit: by their count of
    // candidates as the pass starts, fewest first, or all in one class;
    // cells in order within a class.
    let masks = &singles.candidates.masks;
    let class_of = |mask: u32| if probing.fewest_first { mask.count_ones() } else { 0 };
    let mut cells: Vec<(u32, usize)> =
        (0..geometry.cells).filter(|&c| masks[c] != 0).map(|c| (class_of(masks[c]), c)).collect();
    cells.sort_unstable();
    let mut trial = singles.clone();
    for class in cells.chunk_by(|a, b| a.0 == b.0) {
        for digit in 0..geometry.n {
            for &(_, cell) in class {
                if !singles.candidates.is_possible(cell, digit) {
                    continue;
                }
                trial.clone_from(singles);
                if trial.place(cell, digit).and_then(|()| trial.propagate()).is_ok() {
                    if trial.candidates.fixed.is_complete() {
                        *singles = trial;
                        return Ok(true);
                    }
                    held += 1;
                    if held == probing.patience {
                        return Ok(removed);
                    }
                    continue;
                }
                held = 0;
                removed = true;
                singles.remove(cell, digit)?;
                singles.propagate()?;
                if singles.candidates.fixed.is_complete() {
                    return Ok(true);
                }
            }
        }
    }
    Ok(removed)
}

fn no_place(geometry: &Geometry, digit: usize, unit: usize) -> PuzzleError {
    PuzzleError::NoSolution(format!("digit {} has no place in {}", symbol(digit + 1), geometry.unit_name(unit)))
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::grid::{Shape, Variant};

    /// The boards the fast path takes: every variant, sides 4 to 11.
    const SHAPES: [(usize, Variant); 5] =
        [(4, Variant::Standard), (9, Variant::Standard), (9, Variant::X), (5, Variant::Latin), (11, Variant::Latin)];

    /// A solved grid of `shape` with its digits renamed by `seed`, some
    /// cells emptied (`keep` in 256ths) and, from `wrong`, one clue changed:
    /// puzzles easy and hard, sound and contradictory.
    fn puzzle(shape: Shape, seed: u64, keep: u8, wrong: Option<(usize, u8)>) -> (Grid, Grid) {
        let geometry = shape.geometry();
        let mut digits: Vec<u8> = (1..=shape.n as u8).collect();
        let mut state = seed | 1;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for i in (1..digits.len()).rev() {
            digits.swap(i, next() as usize % (i + 1));
        }
        let mut solved = Grid::empty(shape);
        for (cell, value) in solved.cells.iter_mut().enumerate() {
            *value = digits[geometry.cell_colour(cell)];
        }
        let mut grid = Grid::empty(shape);
        for (cell, value) in grid.cells.iter_mut().enumerate() {
            if (next() % 256) < keep as u64 {
                *value = solved.cells[cell];
            }
        }
        if let Some((cell, digit)) = wrong {
            grid.cells[cell % geometry.cells] = digit % (shape.n as u8 + 1);
        }
        (grid, solved)
    }

    /// Two naked singles of one digit in one unit, found in one layer, are
    /// a contradiction that the placement itself must catch: afterwards
    /// every cell may be filled and no later check need look at that unit.
    #[test]
    fn one_digit_placed_in_two_peers_is_refused() {
        let grid = Grid::empty(Shape { n: 4, variant: Variant::Standard });
        let sets = grid.geometry().cell_sets.as_ref().expect("16 cells");
        let mut boards = Boards {
            n: 4,
            sets,
            free: 0xFFFF,
            may: [!0; MAX_DIGITS],
            open: [!0; MAX_DIGITS],
            unsettled: [!0; MAX_DIGITS],
            unsettled_for_all: 0,
            grid: [0; 128],
        };
        // r1c1 and r2c3 share no unit; r1c2 and r1c4 share row 1.
        assert!(boards.place(1 << 0 | 1 << 6, 0));
        assert!(!boards.place(1 << 1 | 1 << 3, 1));
    }

    /// A generated 16×16 puzzle (half its cells given) that brief probing
    /// decides and singles do not: a board of more than 128 cells is not
    /// probed before the anneal unless in full, which decides it.
    #[test]
    fn boards_above_128_cells_are_probed_before_the_anneal_only_in_full() {
        let text = [
            "..8.A.C37..4.DG5..76E..5.29.A....G.D2B.83.C......1....6.5E.....8",
            "B9......F.5.G.DE1.A7.6.F.G.DB3.2G..8B932A.7.4...46.5GD.E.B3..7CA",
            "....5E.6D8B23..9.E...2BD....7.F.82DB.......F...6..9.7...65GE..2.",
            "..B.C.F....5D.8.C7..65.4GD289A3..8.293..1..76.5.6.4.D8..B.A..F71",
        ]
        .concat();
        let grid = crate::puzzle::parse_grid(text.as_bytes(), Variant::Standard).unwrap();
        let singles = reduce(&grid, Reduce::Propagate).unwrap();
        assert!(!singles.fixed.is_complete(), "singles decide it");
        let (before, in_full) = reduce_before_annealing(&grid, Reduce::Probe, false).unwrap();
        assert_eq!((before, in_full), (singles, false));
        let (probed, in_full) = reduce_before_annealing(&grid, Reduce::Probe, true).unwrap();
        assert!(probed.fixed.is_complete() && in_full, "probing in full decides it");
    }

    /// Whether `reduced` keeps every digit of `solved`, fixed or possible.
    fn keeps(reduced: &Candidates, solved: &Grid) -> bool {
        (0..solved.cells.len()).all(|c| match reduced.fixed.cells[c] {
            0 => reduced.is_possible(c, solved.cells[c] as usize - 1),
            digit => digit == solved.cells[c],
        })
    }

    /// Boards too large for bit sets, which only the general path reduces.
    const LARGE_SHAPES: [(usize, Variant); 4] =
        [(16, Variant::Standard), (16, Variant::X), (12, Variant::Latin), (25, Variant::Standard)];

    proptest! {
        #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

        /// On boards of more than 128 cells, singles keep every digit of the
        /// solved grid a puzzle was cut from and stop where none applies
        /// (counted afresh: the places kept as digits go must agree), and
        /// probing keeps them too or ends with a solution.
        #[test]
        fn reduction_on_lists_is_sound_and_leaves_no_single(
            shape in 0..LARGE_SHAPES.len(),
            seed in any::<u64>(),
            keep in 0u8..=255,
        ) {
            let (n, variant) = LARGE_SHAPES[shape];
            let (grid, solved) = puzzle(Shape { n, variant }, seed, keep, None);
            let geometry = grid.geometry();
            let (singles, _) = reduce_by_units(&grid, Reduce::Propagate, |_| None).expect("it has a solution");
            prop_assert!(keeps(&singles, &solved), "singles removed a digit of {}", solved);
            if !singles.fixed.is_complete() {
                prop_assert!(singles.masks.iter().all(|mask| mask.count_ones() != 1), "a naked single is left");
                for (unit, cells) in geometry.unit_cells.iter().enumerate() {
                    for digit in 0..n {
                        let held = cells.iter().any(|&c| usize::from(singles.fixed.cells[c]) == digit + 1);
                        let places = cells.iter().filter(|&&c| singles.is_possible(c, digit)).count();
                        prop_assert!(held || places >= 2, "digit {} has {} places in unit {}", digit + 1, places, unit);
                    }
                }
            }
            let (probed, _) = reduce_by_units(&grid, Reduce::Probe, |_| Some(FULL_PROBING)).expect("it has a solution");
            match probed.fixed.is_complete() {
                true => prop_assert!(crate::decode::verify(&grid, &probed.fixed).is_ok()),
                false => prop_assert!(keeps(&probed, &solved), "probing removed a digit of {}", solved),
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

        /// The fast path reaches the general one's result, singles alone and
        /// with probing, or gives up where that finds a contradiction or
        /// conflicting clues.
        #[test]
        fn reduction_on_bit_sets_matches_the_general_one(
            shape in 0..SHAPES.len(),
            seed in any::<u64>(),
            keep in 0u8..=255,
            wrong in proptest::option::weighted(0.3, (0usize..128, any::<u8>())),
        ) {
            let (n, variant) = SHAPES[shape];
            let (grid, solved) = puzzle(Shape { n, variant }, seed, keep, wrong);
            let geometry = grid.geometry();
            let sets = geometry.cell_sets.as_ref().expect("at most 128 cells");
            let cases = [
                (Reduce::Propagate, "singles"),
                (Reduce::Probe, "in full"),
                (Reduce::Probe, "briefly"),
                (Reduce::Probe, "before annealing"),
            ];
            for (mode, how) in cases {
                // Before annealing: brief or in full by the spins free after
                // singles, which both paths count.
                let probing = |free_spins| match how {
                    "briefly" => Some(BRIEF_PROBING),
                    "before annealing" => probing_before_annealing(geometry, free_spins, false),
                    _ => Some(FULL_PROBING),
                };
                let fast = reduce_on_boards(&grid, sets, mode, probing);
                let general = reduce_by_units(&grid, mode, probing);
                // Sound: the grid the puzzle came from stays possible, unless
                // probing ended with another solution.
                if wrong.is_none() {
                    let (reduced, _) = general.as_ref().expect("a puzzle cut from a solved grid has a solution");
                    let complete = reduced.fixed.is_complete();
                    prop_assert!(!complete || crate::decode::verify(&grid, &reduced.fixed).is_ok());
                    prop_assert!(complete || keeps(reduced, &solved), "{:?} ({}) removed a digit of {}", mode, how, solved);
                }
                prop_assert_eq!(fast, general.ok(), "{:?} ({})", mode, how);
            }
        }
    }
}
