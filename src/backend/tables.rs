//! The model packed the way the sweeps read it: for each free spin, the
//! constraints it lies in. Every CPU engine reads this table; the GPU
//! uploads the same indices (`gpu/batch/`).

use crate::model::Model;

/// The constraints of each free spin, in the model's sweep order.
#[derive(Debug, Clone, Default)]
pub struct SpinTable {
    /// `width` per spin: its cell's first, then one per unit; on boards with
    /// diagonals, spins off them end in padding, a constraint index whose
    /// total stays 0 (`padding`).
    pub spin_constraints: Vec<u16>,
    pub width: usize,
    /// Whether every spin lies in `width` constraints (no padding).
    pub uniform: bool,
    pub padding: u16,
    /// Constraint totals of the all-zero state.
    pub fixed_ones: Vec<u8>,
    /// Energy of the all-zero state.
    pub offset: i32,
}

impl SpinTable {
    pub fn new(model: &Model) -> SpinTable {
        let geometry = model.geometry();
        let padding = geometry.constraints as u16;
        let mut spin_constraints = Vec::with_capacity(model.len() * geometry.spin_width);
        for s in &model.spins {
            let first = spin_constraints.len();
            spin_constraints.extend(geometry.constraints_of(s.cell as usize, s.digit as usize).map(|k| k as u16));
            spin_constraints.resize(first + geometry.spin_width, padding);
        }
        SpinTable {
            spin_constraints,
            width: geometry.spin_width,
            uniform: geometry.uniform,
            padding,
            fixed_ones: model.fixed_ones.clone(),
            offset: model.offset,
        }
    }

    /// The number of free spins.
    pub fn spins(&self) -> usize {
        self.spin_constraints.len() / self.width.max(1)
    }

    /// The constraints of each spin, padding included.
    pub fn rows(&self) -> std::slice::ChunksExact<'_, u16> {
        self.spin_constraints.chunks_exact(self.width)
    }
}

/// The free cells of a model and their candidates, the way cell moves
/// read them: cells grouped by colour class (no two cells of a class share
/// a unit), each with its candidate digits in increasing order and, for
/// each candidate, the unit constraints it lies in.
#[derive(Debug, Clone, Default)]
pub struct CellTable {
    /// Board index of each free cell, in sweep order.
    pub cells: Vec<u16>,
    /// Class `c` is `cells[class_start[c]..class_start[c + 1]]`.
    pub class_start: Vec<u32>,
    /// Cell `i`'s candidates are `candidate_start[i]..candidate_start[i + 1]`.
    pub candidate_start: Vec<u32>,
    /// Each candidate's digit (0-based) and its index among the model's free spins.
    pub digits: Vec<u8>,
    pub spins: Vec<u32>,
    /// `unit_width` unit constraints per candidate, padded with `padding`
    /// (spins off the diagonals), which weighs 0: its total counts for
    /// nothing (`cpu` keeps it at 0, as its GPU twin does; `cpu-lanes`
    /// leaves it).
    pub units: Vec<u16>,
    pub unit_width: usize,
    /// The first unit constraint (those of the cells come first).
    pub first_unit: u16,
    pub padding: u16,
    /// Constraint totals of the fixed cells, the padding's (0) last.
    pub fixed_ones: Vec<u8>,
}

impl CellTable {
    pub fn new(model: &Model) -> CellTable {
        let geometry = model.geometry();
        let (n, padding) = (geometry.n, geometry.constraints as u16);
        let unit_width = geometry.spin_width - 1;
        // Each cell's candidate digits as a mask, and the free spin of each
        // (cell, digit): read cell by cell in digit order, the candidates
        // come out sorted without a sort or a list per cell (this runs once
        // per puzzle: with them, perf put 13 % of a 17-clue collection here).
        let mut digits_of = vec![0u32; geometry.cells];
        let mut spin_of = vec![0u32; geometry.cells * n];
        for (i, s) in model.spins.iter().enumerate() {
            digits_of[s.cell as usize] |= 1 << s.digit;
            spin_of[s.cell as usize * n + s.digit as usize] = i as u32;
        }
        // Free cells by colour class, each class in board order.
        let mut class_start = vec![0u32; n + 1];
        for cell in (0..geometry.cells).filter(|&c| digits_of[c] != 0) {
            class_start[geometry.cell_colour(cell) + 1] += 1;
        }
        for c in 0..n {
            class_start[c + 1] += class_start[c];
        }
        let mut cells = vec![0u16; class_start[n] as usize];
        let mut next = class_start.clone();
        for cell in (0..geometry.cells).filter(|&c| digits_of[c] != 0) {
            let colour = geometry.cell_colour(cell);
            cells[next[colour] as usize] = cell as u16;
            next[colour] += 1;
        }
        let spins = model.len();
        let mut table = CellTable {
            class_start,
            candidate_start: Vec::with_capacity(cells.len() + 1),
            digits: Vec::with_capacity(spins),
            spins: Vec::with_capacity(spins),
            units: Vec::with_capacity(spins * unit_width),
            unit_width,
            first_unit: geometry.cells as u16,
            padding,
            fixed_ones: model.fixed_ones.iter().copied().chain([0]).collect(),
            cells,
        };
        table.candidate_start.push(0);
        for &cell in &table.cells {
            let cell = cell as usize;
            let mut rest = digits_of[cell];
            while rest != 0 {
                let digit = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                table.digits.push(digit as u8);
                table.spins.push(spin_of[cell * n + digit]);
                let first = table.units.len();
                table.units.extend(geometry.unit_constraints_of(cell, digit).map(|k| k as u16));
                table.units.resize(first + unit_width, padding);
            }
            table.candidate_start.push(table.digits.len() as u32);
        }
        table
    }

    /// Free cells.
    pub fn len(&self) -> usize {
        self.cells.len()
    }

    pub fn is_empty(&self) -> bool {
        self.cells.is_empty()
    }

    /// The candidates of free cell `i`.
    pub fn candidates(&self, i: usize) -> std::ops::Range<usize> {
        self.candidate_start[i] as usize..self.candidate_start[i + 1] as usize
    }

    /// The unit constraints: after the cells', before the padding.
    pub fn unit_constraints(&self) -> std::ops::Range<usize> {
        self.first_unit as usize..self.padding as usize
    }

    /// The unit constraints of candidate `j`, padding included.
    pub fn units_of(&self, j: usize) -> &[u16] {
        &self.units[j * self.unit_width..(j + 1) * self.unit_width]
    }

    /// The model's free-spin state of a choice of one candidate per cell.
    pub fn spins_of(&self, choice: &[u8], spins: usize) -> Vec<u8> {
        let mut state = vec![0; spins];
        for (i, &c) in choice.iter().enumerate() {
            state[self.spins[self.candidate_start[i] as usize + c as usize] as usize] = 1;
        }
        state
    }
}

/// Trades (`--trades`): pairs of free cells that share every unit but one
/// (a row and a box, a column and a box; a row or a column of a Latin
/// square), grouped by the units they share. Two such cells that trade
/// digits leave their shared units' totals as they were: only each cell's
/// own unit changes, four constraints in all. Each sweep, every group
/// proposes one of its pairs, in turn.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TradeTable {
    /// Group `g`'s pairs are `pairs[groups[g]]`.
    pub groups: Vec<std::ops::Range<u32>>,
    pub pairs: Vec<TradePair>,
    /// The digits both cells of a pair may hold.
    pub shared: Vec<SharedDigit>,
}

/// Two free cells, by board index until a backend numbers them its own
/// way, and the digits both may hold: `shared[digits]`.
#[derive(Debug, Clone, PartialEq)]
pub struct TradePair {
    pub cells: [u32; 2],
    pub digits: std::ops::Range<u32>,
}

/// A digit both cells of a pair may hold: its index among each cell's
/// candidates (in increasing digit order, as [`CellTable`] keeps them),
/// and the constraint of (its cell's own unit, the digit) for each: the two
/// totals a trade of the digit changes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SharedDigit {
    pub candidate: [u16; 2],
    pub own_unit: [u16; 2],
}

impl TradeTable {
    /// The pairs of `model`'s free cells: in each of the board's trade
    /// groups ([`crate::grid::Geometry::trade_groups`]), the pairs of its free cells
    /// that share at least two candidates (fewer cannot trade); a group
    /// without any proposes nothing.
    pub fn new(model: &Model) -> TradeTable {
        let board = model.geometry();
        let mut candidates = vec![0u32; board.cells];
        for spin in &model.spins {
            candidates[spin.cell as usize] |= 1 << spin.digit;
        }
        let groups = board.trade_groups.len();
        let mut trades = TradeTable {
            groups: Vec::with_capacity(groups),
            pairs: Vec::with_capacity(2 * groups),
            shared: Vec::with_capacity(8 * groups),
        };
        for group in &board.trade_groups {
            let start = trades.pairs.len() as u32;
            for (k, &p) in group.cells.iter().enumerate() {
                for &q in &group.cells[k + 1..] {
                    let both = candidates[p] & candidates[q];
                    if both.count_ones() < 2 {
                        continue;
                    }
                    let first = trades.shared.len() as u32;
                    let mut rest = both;
                    while rest != 0 {
                        let digit = rest.trailing_zeros() as usize;
                        rest &= rest - 1;
                        let below = |cell: usize| (candidates[cell] & ((1 << digit) - 1)).count_ones() as u16;
                        let own =
                            |cell: usize| (board.cells + board.n * board.cell_units[cell][group.own] + digit) as u16;
                        trades.shared.push(SharedDigit { candidate: [below(p), below(q)], own_unit: [own(p), own(q)] });
                    }
                    let digits = first..trades.shared.len() as u32;
                    trades.pairs.push(TradePair { cells: [p as u32, q as u32], digits });
                }
            }
            if trades.pairs.len() as u32 > start {
                trades.groups.push(start..trades.pairs.len() as u32);
            }
        }
        trades
    }

    /// Trades proposed per sweep and chain: one per group.
    pub fn per_sweep(&self) -> usize {
        self.groups.len()
    }

    /// The same pairs with each cell numbered by `index` (its board index
    /// in, a backend's own out).
    pub fn numbered(&self, index: impl Fn(u32) -> u32) -> TradeTable {
        let pairs = self.pairs.iter().map(|pair| TradePair { cells: pair.cells.map(&index), ..pair.clone() }).collect();
        TradeTable { pairs, ..self.clone() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grid::Variant;
    use crate::puzzle::parse_grid;
    use crate::reduce::{reduce, Reduce};

    /// Each digit a pair shares is the candidate its index names in both
    /// cells, and its constraints are those of the cells' own units, which
    /// they do not share: every pair of free cells in a group that share two
    /// candidates or more is there, once.
    #[test]
    fn a_pair_names_each_shared_digit_and_the_units_a_trade_changes() {
        let inkala = "8..........36......7..9.2...5...7.......457.....1...3...1....68..85...1..9....4..";
        let model =
            Model::build(&reduce(&parse_grid(inkala.as_bytes(), Variant::Standard).unwrap(), Reduce::Clues).unwrap())
                .unwrap();
        let (board, table, trades) = (model.geometry(), CellTable::new(&model), TradeTable::new(&model));
        let free = |cell: u32| table.cells.iter().position(|&c| c as u32 == cell).unwrap();
        let digits = |cell: u32| -> Vec<u8> { table.candidates(free(cell)).map(|j| table.digits[j]).collect() };
        let mut pairs = 0;
        for (group, range) in board
            .trade_groups
            .iter()
            .filter(|g| g.cells.iter().filter(|&&c| model.fixed.cells[c] == 0).count() >= 2)
            .zip(&trades.groups)
        {
            for pair in &trades.pairs[range.start as usize..range.end as usize] {
                assert!(pair.cells.iter().all(|&c| group.cells.contains(&(c as usize))));
                for shared in &trades.shared[pair.digits.start as usize..pair.digits.end as usize] {
                    let digit = digits(pair.cells[0])[shared.candidate[0] as usize];
                    assert_eq!(digits(pair.cells[1])[shared.candidate[1] as usize], digit);
                    for (k, &cell) in pair.cells.iter().enumerate() {
                        let own = board.cell_units[cell as usize][group.own];
                        assert_eq!(shared.own_unit[k] as usize, board.cells + board.n * own + digit as usize);
                    }
                }
                pairs += 1;
            }
        }
        let expected: usize = board
            .trade_groups
            .iter()
            .map(|g| {
                let free: Vec<u32> =
                    g.cells.iter().filter(|&&c| model.fixed.cells[c] == 0).map(|&c| c as u32).collect();
                let shares = |p: u32, q: u32| digits(p).iter().filter(|d| digits(q).contains(d)).count() >= 2;
                free.iter()
                    .enumerate()
                    .map(|(k, &p)| free[k + 1..].iter().filter(|&&q| shares(p, q)).count())
                    .sum::<usize>()
            })
            .sum();
        assert!(pairs > 0);
        assert_eq!(pairs, expected);
    }
}
