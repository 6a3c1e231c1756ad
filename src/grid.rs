//! The board: its shape (side and variant), cells, units and peers.
//!
//! A board of side n has n² cells numbered row-major, `cell = n·row + col`.
//! Digits are stored as 1..=n in a [`Grid`] (0 = empty) and as 0..n in spin
//! indices (`spin = n·cell + digit`, docs/DESIGN.md §1). Units are the sets of
//! cells that must hold every digit once: rows, columns, then boxes (not in
//! Latin squares), then the two diagonals (the `x` variant).

use std::fmt;
use std::sync::OnceLock;

use wide::u8x16;

/// Cell symbols in order; a board of side n uses the first n.
pub const SYMBOLS: &[u8; 25] = b"123456789ABCDEFGHIJKLMNOP";
/// The largest side (25×25, box side 5).
pub const MAX_N: usize = SYMBOLS.len();
/// The largest order of a *small* board (9×9 and below): such boards have
/// their own default ladder, weights and budget, and their own cell-kernel
/// shape on the GPU.
pub const SMALL_BOARD_ORDER: usize = 9;
/// The order of the *largest* boards (25×25): their adaptive weights take
/// finer steps, with a ladder to match.
pub const LARGEST_BOARD_ORDER: usize = 25;
/// The most constraints a board has: 25×25 cells, and 25 digits in each of
/// 25 rows, 25 columns, 25 boxes and 2 diagonals.
pub const MAX_CONSTRAINTS: usize = MAX_N * MAX_N + (3 * MAX_N + 2) * MAX_N;

/// The symbol of digit value 1..=25.
pub fn symbol(value: usize) -> char {
    char::from(SYMBOLS[value - 1])
}

/// Which units a board has besides rows and columns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Variant {
    /// Rows, columns and boxes; side 4, 9, 16 or 25.
    #[default]
    Standard,
    /// Also both main diagonals ("diagonal Sudoku").
    X,
    /// Rows and columns only: Latin squares of any order 2..=25.
    Latin,
}

/// Side and variant: everything the rules depend on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Shape {
    pub n: usize,
    pub variant: Variant,
}

impl Shape {
    /// The classic 9×9 Sudoku.
    pub const CLASSIC: Shape = Shape { n: 9, variant: Variant::Standard };

    /// The shape of a puzzle line of `cells` cells, if the variant has one.
    pub fn for_cells(cells: usize, variant: Variant) -> Option<Shape> {
        let n = (2..=MAX_N).find(|n| n * n == cells)?;
        let shape = Shape { n, variant };
        (variant == Variant::Latin || shape.box_side().is_some()).then_some(shape)
    }

    /// The puzzle lengths (cells) the variant accepts, for messages.
    pub fn lengths(variant: Variant) -> String {
        match variant {
            Variant::Latin => "n² for n = 2..=25".into(),
            _ => "16, 81, 256 or 625".into(),
        }
    }

    /// Side of a box, when the board has boxes.
    pub fn box_side(self) -> Option<usize> {
        let side = (2..=5).find(|b| b * b == self.n)?;
        (self.variant != Variant::Latin).then_some(side)
    }

    pub fn cells(self) -> usize {
        self.n * self.n
    }

    /// Binary variables of the full model (cell × digit).
    pub fn spins(self) -> usize {
        self.cells() * self.n
    }

    /// The board's tables, built once per shape and kept for the run.
    pub fn geometry(self) -> &'static Geometry {
        // One table per side and variant, built on first use; reading a
        // built one takes no lock (every stage asks for it, per puzzle).
        static BUILT: [[OnceLock<Geometry>; MAX_N + 1]; 3] = [const { [const { OnceLock::new() }; MAX_N + 1] }; 3];
        BUILT[self.variant as usize][self.n].get_or_init(|| Geometry::new(self))
    }
}

/// The tables of one shape.
#[derive(Debug)]
pub struct Geometry {
    pub shape: Shape,
    pub n: usize,
    pub cells: usize,
    /// The cells of each unit, in increasing order.
    pub unit_cells: Vec<Vec<usize>>,
    /// The units of each cell, in increasing order.
    pub cell_units: Vec<Vec<usize>>,
    /// The cells sharing a unit with each cell, in increasing order.
    pub peers: Vec<Vec<usize>>,
    /// Constraints of the full model: one per cell, then one per (unit, digit).
    pub constraints: usize,
    /// The most constraints one spin lies in: its cell's and one per unit.
    pub spin_width: usize,
    /// Whether every spin lies in `spin_width` constraints (no diagonals).
    pub uniform: bool,
    /// Units and peers as bit sets of cells, on boards of at most 128 cells.
    pub cell_sets: Option<CellSets>,
    /// The groups of two or more cells that share every unit but one: a
    /// box's rows and columns, a Latin square's rows and columns; none on
    /// boards with diagonals (`backend::tables::TradeTable`).
    pub trade_groups: Vec<TradeGroup>,
    /// A solved grid of the empty board, digits 0..n: the colourings of docs/DESIGN.md §2.
    solved: Vec<u8>,
}

/// Cells that share every unit but the one at `own` in each cell's list
/// of units (listed by kind, so it is a unit of the same kind in each).
#[derive(Debug, Clone, PartialEq)]
pub struct TradeGroup {
    pub cells: Vec<usize>,
    pub own: usize,
}

/// [`Geometry::trade_groups`] from each cell's units.
fn trade_groups(cell_units: &[Vec<usize>], uniform: bool) -> Vec<TradeGroup> {
    if !uniform {
        return Vec::new();
    }
    // Each cell under each unit left out, keyed by the units it keeps.
    let mut keyed: Vec<(Vec<usize>, usize, usize)> = Vec::new();
    for (cell, units) in cell_units.iter().enumerate() {
        for own in 0..units.len() {
            let shared = units.iter().enumerate().filter(|&(k, _)| k != own).map(|(_, &u)| u).collect();
            keyed.push((shared, own, cell));
        }
    }
    keyed.sort_unstable();
    keyed
        .chunk_by(|a, b| a.0 == b.0)
        .filter(|group| group.len() >= 2)
        .map(|group| TradeGroup { cells: group.iter().map(|&(_, _, cell)| cell).collect(), own: group[0].1 })
        .collect()
}

/// Bit `c` set: cell `c` belongs. What singles propagation works on where
/// a board fits in 128 bits (every 9×9 board).
#[derive(Debug)]
pub struct CellSets {
    pub units: Vec<u128>,
    /// Per cell, its peers; empty past the last cell. One entry per bit of
    /// a cell set, so a cell taken from a set indexes it without a check.
    pub peers: Box<[u128; 128]>,
    /// Per cell, its units as a bit set of unit indices (at most 3 × 11 + 2
    /// units on such a board); empty past the last cell.
    pub units_of: Box<[u64; 128]>,
}

impl CellSets {
    /// The most digits of a board with cell sets: n × n ≤ 128.
    pub const MAX_DIGITS: usize = 11;

    fn new(unit_cells: &[Vec<usize>], cell_units: &[Vec<usize>], peers: &[Vec<usize>]) -> CellSets {
        let set = |cells: &Vec<usize>| cells.iter().fold(0u128, |set, &c| set | 1 << c);
        let units_of =
            std::array::from_fn(|c| cell_units.get(c).map_or(0, |units| units.iter().fold(0, |set, &u| set | 1 << u)));
        let peers = std::array::from_fn(|c| peers.get(c).map_or(0, set));
        CellSets { units: unit_cells.iter().map(set).collect(), peers: Box::new(peers), units_of: Box::new(units_of) }
    }

    /// Per digit 0..=n of a board of at most 128 cells, the cells that
    /// hold it (digit 0: the empty ones); a digit above n is in no set.
    /// Sixteen cells at a time, one compare per digit: a loop over the
    /// cells would write one of n + 1 words per cell, each write waiting
    /// for the one before it to the same word.
    pub fn cells_by_digit(cells: &[u8], n: usize) -> [u128; Self::MAX_DIGITS + 1] {
        // Cells past the last hold a digit no board has.
        let mut padded = [u8::MAX; 128];
        padded[..cells.len()].copy_from_slice(cells);
        let sixteens: [u8x16; 8] = bytemuck::cast(padded);
        let mut by_digit = [0u128; Self::MAX_DIGITS + 1];
        for (digit, set) in by_digit[..=n].iter_mut().enumerate() {
            let digit = u8x16::splat(digit as u8);
            *set = sixteens
                .iter()
                .enumerate()
                .fold(0, |set, (k, sixteen)| set | (sixteen.simd_eq(digit).to_bitmask() as u128) << (16 * k));
        }
        by_digit
    }
}

impl Geometry {
    fn new(shape: Shape) -> Geometry {
        let (n, cells) = (shape.n, shape.cells());
        let mut unit_cells: Vec<Vec<usize>> = Vec::new();
        unit_cells.extend((0..n).map(|row| (0..n).map(|col| n * row + col).collect()));
        unit_cells.extend((0..n).map(|col| (0..n).map(|row| n * row + col).collect()));
        if let Some(b) = shape.box_side() {
            let box_cells = |bx: usize| (0..n).map(move |k| n * (bx / b * b + k / b) + bx % b * b + k % b);
            unit_cells.extend((0..n).map(|bx| {
                let mut list: Vec<usize> = box_cells(bx).collect();
                list.sort_unstable();
                list
            }));
        }
        if shape.variant == Variant::X {
            unit_cells.push((0..n).map(|k| (n + 1) * k).collect());
            unit_cells.push((1..=n).map(|k| (n - 1) * k).collect());
        }
        let mut cell_units = vec![Vec::new(); cells];
        for (unit, members) in unit_cells.iter().enumerate() {
            for &cell in members {
                cell_units[cell].push(unit);
            }
        }
        let peers: Vec<Vec<usize>> = (0..cells)
            .map(|cell| {
                let mut list: Vec<usize> =
                    cell_units[cell].iter().flat_map(|&u| &unit_cells[u]).copied().filter(|&c| c != cell).collect();
                list.sort_unstable();
                list.dedup();
                list
            })
            .collect();
        let spin_width = 1 + cell_units.iter().map(Vec::len).max().unwrap_or(0);
        let uniform = cell_units.iter().all(|units| units.len() + 1 == spin_width);
        let cell_sets = (cells <= 128).then(|| CellSets::new(&unit_cells, &cell_units, &peers));
        let trade_groups = trade_groups(&cell_units, uniform);
        let mut geometry = Geometry {
            shape,
            cell_sets,
            trade_groups,
            n,
            cells,
            constraints: cells + unit_cells.len() * n,
            unit_cells,
            cell_units,
            peers,
            spin_width,
            uniform,
            solved: Vec::new(),
        };
        geometry.solved = geometry.solve_empty_board();
        geometry
    }

    /// Constraint indices of spin (cell, digit): its cell, then (unit, digit) for each unit of the cell.
    pub fn constraints_of(&self, cell: usize, digit: usize) -> impl Iterator<Item = usize> + '_ {
        std::iter::once(cell).chain(self.unit_constraints_of(cell, digit))
    }

    /// The (unit, digit) constraint indices of spin (cell, digit), one for each unit of the cell.
    pub fn unit_constraints_of(&self, cell: usize, digit: usize) -> impl Iterator<Item = usize> + '_ {
        let first_unit_constraint = self.cells;
        self.cell_units[cell].iter().map(move |&u| first_unit_constraint + self.n * u + digit)
    }

    /// Colour of spin (cell, digit): `(S[cell] + digit) mod n` for the
    /// solved grid S. Two coupled spins share a cell (different digits) or
    /// a digit in two cells of a unit (S differs there), so the n colours
    /// form a proper colouring of the coupling graph.
    pub fn colour_of(&self, cell: usize, digit: usize) -> usize {
        // Both terms are below n: one subtraction, not a division.
        let sum = self.solved[cell] as usize + digit;
        if sum >= self.n {
            sum - self.n
        } else {
            sum
        }
    }

    /// Colour of a cell, for cell moves: `S[cell]`. The cells of a unit
    /// hold every digit of S once, so two cells of one colour share no unit.
    pub fn cell_colour(&self, cell: usize) -> usize {
        self.solved[cell] as usize
    }

    /// `r3c7` style name of a cell, 1-based as people write it.
    pub fn cell_name(&self, cell: usize) -> String {
        format!("r{}c{}", cell / self.n + 1, cell % self.n + 1)
    }

    /// `row 3`, `box 5`, `diagonal`, for messages.
    pub fn unit_name(&self, unit: usize) -> String {
        let n = self.n;
        let boxes = if self.shape.box_side().is_some() { n } else { 0 };
        match unit {
            u if u < n => format!("row {}", u + 1),
            u if u < 2 * n => format!("column {}", u - n + 1),
            u if u < 2 * n + boxes => format!("box {}", u - 2 * n + 1),
            u if u == 2 * n + boxes => "the main diagonal".into(),
            _ => "the anti-diagonal".into(),
        }
    }

    /// A solution of the empty board, digits 0..n, by formula; checked
    /// against the units, so a wrong formula cannot colour improperly.
    fn solve_empty_board(&self) -> Vec<u8> {
        let n = self.n;
        let board: Vec<u8> = (0..self.cells)
            .map(|cell| {
                let (row, col) = (cell / n, cell % n);
                let digit = match self.shape.variant {
                    Variant::Latin => (row + col) % n,
                    // The classic pattern: each row is the one above shifted by a box (or by one, entering a band).
                    Variant::Standard => {
                        let b = self.shape.box_side().expect("standard boards have boxes");
                        (b * (row % b) + row / b + col) % n
                    }
                    // With row = b·r1 + r2, col = b·c1 + c2, digit = b·d1 + d2 where
                    // (d1, d2) = (r1 + c2, r2 + c1 + c2) mod b. Rows, columns, boxes and
                    // both diagonals map bijectively onto (d1, d2): each map's
                    // determinant is ±1, a unit mod every b.
                    Variant::X => {
                        let b = self.shape.box_side().expect("x boards have boxes");
                        let (r1, r2, c1, c2) = (row / b, row % b, col / b, col % b);
                        b * ((r1 + c2) % b) + (r2 + c1 + c2) % b
                    }
                };
                digit as u8
            })
            .collect();
        for cells in &self.unit_cells {
            let seen = cells.iter().fold(0u32, |mask, &cell| mask | 1 << board[cell]);
            assert_eq!(seen, (1 << n) - 1, "the colouring grid of {:?} is no solution", self.shape);
        }
        board
    }
}

/// A board: `cells[c]` is 1..=n, or 0 when empty.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Grid {
    pub shape: Shape,
    pub cells: Vec<u8>,
}

impl Grid {
    pub fn empty(shape: Shape) -> Grid {
        Grid { shape, cells: vec![0; shape.cells()] }
    }

    pub fn geometry(&self) -> &'static Geometry {
        self.shape.geometry()
    }

    pub fn is_complete(&self) -> bool {
        // `contains` on bytes searches sixteen at a time.
        !self.cells.contains(&0)
    }

    /// One symbol per cell, `.` for empty ones: what `Display` writes,
    /// without the formatter (records of easy collections are mostly this).
    pub fn text(&self) -> String {
        let mut text = Vec::with_capacity(self.cells.len());
        self.write_text(&mut text);
        String::from_utf8(text).expect("symbols are ASCII")
    }

    /// [`Grid::text`] appended to `out`.
    pub fn write_text(&self, out: &mut Vec<u8>) {
        match self.shape.n {
            // Arithmetic rather than a table, so the compiler can do 16 cells at a time.
            ..=9 => out.extend(self.cells.iter().map(|&d| if d == 0 { b'.' } else { b'0' + d })),
            _ => out.extend(self.cells.iter().map(|&d| if d == 0 { b'.' } else { SYMBOLS[d as usize - 1] })),
        }
    }

    pub fn clue_count(&self) -> usize {
        self.cells.iter().filter(|&&d| d != 0).count()
    }
}

/// One symbol per cell (`1`–`9`, then `A`–`P`), `.` for empty ones.
impl fmt::Display for Grid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text())
    }
}

impl fmt::Debug for Grid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Grid({self})")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Trade groups are a box's rows and columns, or a Latin square's rows
    /// and columns: every two cells of one share every unit but their own,
    /// and no cell outside shares those units with them.
    #[test]
    fn trade_groups_are_cells_that_share_every_unit_but_one() {
        use Variant::{Latin, Standard, X};
        for (n, variant, groups, size) in [
            (4, Standard, 16, 2),
            (9, Standard, 54, 3),
            (16, Standard, 128, 4),
            (25, Standard, 250, 5),
            (7, Latin, 14, 7),
            (9, X, 0, 0),
        ] {
            let geometry = Shape { n, variant }.geometry();
            assert_eq!(geometry.trade_groups.len(), groups, "{n} {variant:?}");
            for TradeGroup { cells, own } in &geometry.trade_groups {
                assert_eq!(cells.len(), size, "{n} {variant:?}");
                let units = |cell: usize| &geometry.cell_units[cell];
                let shared: Vec<usize> =
                    units(cells[0]).iter().enumerate().filter(|&(k, _)| k != *own).map(|(_, &u)| u).collect();
                let in_all_shared = |cell: usize| shared.iter().all(|u| units(cell).contains(u));
                assert_eq!((0..geometry.cells).filter(|&c| in_all_shared(c)).collect::<Vec<_>>(), *cells);
                let own_units: std::collections::HashSet<usize> = cells.iter().map(|&c| units(c)[*own]).collect();
                assert_eq!(own_units.len(), size, "each cell of a group has its own unit");
            }
        }
    }

    #[test]
    fn classic_cells_have_twenty_peers_and_share_two_units_with_four() {
        let geometry = Shape::CLASSIC.geometry();
        assert_eq!(geometry.constraints, 324);
        assert_eq!((geometry.spin_width, geometry.uniform), (4, true));
        for cell in 0..81 {
            assert_eq!(geometry.peers[cell].len(), 20);
            let shared_units = |peer: usize| {
                geometry.cell_units[cell].iter().filter(|u| geometry.cell_units[peer].contains(u)).count()
            };
            let two = geometry.peers[cell].iter().filter(|&&peer| shared_units(peer) == 2).count();
            assert_eq!(two, 4, "cell {cell}");
        }
    }

    #[test]
    fn shapes_follow_from_line_lengths() {
        assert_eq!(Shape::for_cells(81, Variant::Standard), Some(Shape::CLASSIC));
        assert_eq!(Shape::for_cells(625, Variant::X).map(|s| s.n), Some(25));
        assert_eq!(Shape::for_cells(49, Variant::Standard), None);
        assert_eq!(Shape::for_cells(49, Variant::Latin).map(|s| s.n), Some(7));
        assert_eq!(Shape::for_cells(80, Variant::Latin), None);
        let x = Shape { n: 9, variant: Variant::X }.geometry();
        assert_eq!((x.spin_width, x.uniform), (6, false));
        assert_eq!(x.unit_name(27), "the main diagonal");
        assert_eq!(x.cell_units[40].len(), 5, "the centre lies on both diagonals");
    }
}
