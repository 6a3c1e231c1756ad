//! Test helpers that share no code with the engine: an exact solver, the
//! dense QUBO energy straight from its definition, and puzzle fixtures.

use std::path::PathBuf;

use sudoku_anneal::grid::{Grid, Shape, Variant};
use sudoku_anneal::puzzle::parse_grid;

pub const EASY: &str = "004300209005009001070060043006002087190007400050083000600000105003508690042910300";
pub const EASY_SOLUTION: &str = "864371259325849761971265843436192587198657432257483916689734125713528694542916378";
pub const INKALA: &str = "8..........36......7..9.2...5...7.......457.....1...3...1....68..85...1..9....4..";

/// Every board shape the engine accepts.
pub fn all_shapes() -> Vec<Shape> {
    let sudoku =
        [Variant::Standard, Variant::X].into_iter().flat_map(|variant| [4, 9, 16, 25].map(|n| Shape { n, variant }));
    sudoku.chain((2..=25).map(|n| Shape { n, variant: Variant::Latin })).collect()
}

pub fn grid(text: &str) -> Grid {
    parse_grid(text.as_bytes(), Variant::Standard).expect("fixture parses")
}

pub fn example(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples").join(name)
}

/// The famous hard puzzles bundled in `examples/hard.txt`.
pub fn famous_hard() -> Vec<Grid> {
    std::fs::read_to_string(example("hard.txt"))
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| grid(&l[..81]))
        .collect()
}

/// The units of a cell, numbered rows, columns, boxes, diagonals, from
/// the rules as people state them.
pub fn units_of(shape: Shape, cell: usize) -> Vec<usize> {
    let n = shape.n;
    let (r, c) = (cell / n, cell % n);
    let mut units = vec![r, n + c];
    if shape.variant != Variant::Latin {
        let b = (1..=n).find(|b| b * b == n).unwrap();
        units.push(2 * n + (r / b) * b + c / b);
    }
    if shape.variant == Variant::X {
        if r == c {
            units.push(3 * n);
        }
        if r + c == n - 1 {
            units.push(3 * n + 1);
        }
    }
    units
}

fn unit_count(shape: Shape) -> usize {
    match shape.variant {
        Variant::Latin => 2 * shape.n,
        Variant::Standard => 3 * shape.n,
        Variant::X => 3 * shape.n + 2,
    }
}

/// Depth-first search with bitmasks, as exact cover: it branches on the
/// cell with the fewest digits or the unit and digit with the fewest
/// cells, whichever has fewer, and a cell with no digit or a unit digit
/// with no cell ends the branch. The first solution, if any. (Branching on
/// cells alone took minutes to prove some random grids of ~5 clues
/// unsolvable.)
pub fn exact_solve(puzzle: &Grid) -> Option<Grid> {
    let shape = puzzle.shape;
    let of_cell: Vec<Vec<usize>> = (0..shape.cells()).map(|cell| units_of(shape, cell)).collect();
    let mut cells: Vec<Vec<usize>> = vec![Vec::new(); unit_count(shape)];
    for (cell, its) in of_cell.iter().enumerate() {
        its.iter().for_each(|&u| cells[u].push(cell));
    }
    let mut grid = puzzle.clone();
    let mut used = vec![0u32; cells.len()];
    for cell in (0..shape.cells()).filter(|&c| grid.cells[c] != 0) {
        for &u in &of_cell[cell] {
            used[u] |= 1 << grid.cells[cell];
        }
    }
    /// Each cell's units, and each unit's cells.
    struct Units {
        of_cell: Vec<Vec<usize>>,
        cells: Vec<Vec<usize>>,
    }
    /// The places to branch on: (cell, digit) pairs, all of one cell or of one unit's digit.
    fn branches(grid: &Grid, units: &Units, used: &[u32]) -> Option<Vec<(usize, u8)>> {
        let all = ((1u32 << grid.shape.n) - 1) << 1;
        // Each empty cell's possible digits (bit d: digit d), once per node; none for a filled cell.
        let free: Vec<u32> = (0..grid.cells.len())
            .map(|c| match grid.cells[c] {
                0 => !units.of_cell[c].iter().fold(0, |m, &u| m | used[u]) & all,
                _ => 0,
            })
            .collect();
        let mut best: Option<Vec<(usize, u8)>> = None;
        let mut consider = |places: Vec<(usize, u8)>| {
            if best.as_ref().is_none_or(|b| places.len() < b.len()) {
                best = Some(places);
            }
        };
        for cell in (0..grid.cells.len()).filter(|&c| grid.cells[c] == 0) {
            consider((1..=grid.shape.n as u8).filter(|&d| free[cell] >> d & 1 == 1).map(|d| (cell, d)).collect());
        }
        for (u, cells) in units.cells.iter().enumerate() {
            for digit in (1..=grid.shape.n as u8).filter(|&d| used[u] >> d & 1 == 0) {
                let places = cells.iter().filter(|&&c| free[c] >> digit & 1 == 1);
                consider(places.map(|&c| (c, digit)).collect());
            }
        }
        best
    }
    fn search(grid: &mut Grid, units: &Units, used: &mut [u32]) -> bool {
        let Some(places) = branches(grid, units, used) else { return true };
        for (cell, digit) in places {
            grid.cells[cell] = digit;
            units.of_cell[cell].iter().for_each(|&u| used[u] |= 1 << digit);
            if search(grid, units, used) {
                return true;
            }
            units.of_cell[cell].iter().for_each(|&u| used[u] &= !(1 << digit));
            grid.cells[cell] = 0;
        }
        false
    }
    search(&mut grid, &Units { of_cell, cells }, &mut used).then_some(grid)
}

/// Σ_k (1 − Σ_{i∈k} x_i)² over every constraint of the shape, on a full
/// assignment `x[n·cell + digit]`, written from the definition.
pub fn dense_energy(shape: Shape, x: &[u8]) -> i32 {
    let n = shape.n;
    let mut energy = 0;
    let mut penalty = |sum: i32| energy += (1 - sum) * (1 - sum);
    for cell in 0..shape.cells() {
        penalty((0..n).map(|d| x[n * cell + d] as i32).sum());
    }
    for unit in 0..unit_count(shape) {
        for d in 0..n {
            penalty(
                (0..shape.cells()).filter(|&c| units_of(shape, c).contains(&unit)).map(|c| x[n * c + d] as i32).sum(),
            );
        }
    }
    energy
}

/// Whether full spins i and j (index `n·cell + digit`) share a constraint.
pub fn dense_coupled(shape: Shape, i: usize, j: usize) -> bool {
    let n = shape.n;
    let ((ci, di), (cj, dj)) = ((i / n, i % n), (j / n, j % n));
    let shares_unit = || units_of(shape, ci).iter().any(|u| units_of(shape, cj).contains(u));
    i != j && (ci == cj || (di == dj && shares_unit()))
}

/// A puzzle of `shape` and its solution: the exact solution of the empty
/// board with its digits relabelled at random, every cell whose index is
/// not a multiple of `keep_every` emptied.
pub fn generated_puzzle(shape: Shape, keep_every: usize, seed: u64) -> (Grid, Grid) {
    use rand::seq::SliceRandom;
    use rand::SeedableRng;
    let mut labels: Vec<u8> = (1..=shape.n as u8).collect();
    labels.shuffle(&mut rand::rngs::StdRng::seed_from_u64(seed));
    let mut solution = exact_solve(&Grid::empty(shape)).expect("every empty board has a solution");
    solution.cells.iter_mut().for_each(|value| *value = labels[*value as usize - 1]);
    let mut puzzle = solution.clone();
    for (cell, value) in puzzle.cells.iter_mut().enumerate() {
        if cell % keep_every != 0 {
            *value = 0;
        }
    }
    (puzzle, solution)
}

/// Whether `solution` fills `puzzle` by the rules of its shape, checked from `units_of`.
pub fn solves(puzzle: &Grid, solution: &Grid) -> bool {
    let (shape, n) = (puzzle.shape, puzzle.shape.n);
    let keeps_clues = puzzle.cells.iter().zip(&solution.cells).all(|(&p, &s)| p == 0 || p == s);
    let mut seen = vec![0u32; unit_count(shape)];
    for (cell, &value) in solution.cells.iter().enumerate() {
        units_of(shape, cell).into_iter().for_each(|u| seen[u] |= 1 << value);
    }
    solution.shape == shape && keeps_clues && seen.iter().all(|&mask| mask == ((1u32 << n) - 1) << 1)
}
