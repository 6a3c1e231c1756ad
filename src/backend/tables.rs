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
