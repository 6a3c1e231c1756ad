//! Test helpers that share no code with the engine: an exact solver, the
//! dense QUBO energy straight from its definition, and puzzle fixtures.

use std::path::PathBuf;

use sudoku_anneal::grid::{Grid, CELLS, N};
use sudoku_anneal::puzzle::parse_grid;

pub const EASY: &str = "004300209005009001070060043006002087190007400050083000600000105003508690042910300";
pub const EASY_SOLUTION: &str = "864371259325849761971265843436192587198657432257483916689734125713528694542916378";
pub const INKALA: &str = "8..........36......7..9.2...5...7.......457.....1...3...1....68..85...1..9....4..";

pub fn grid(text: &str) -> Grid {
    parse_grid(text.as_bytes()).expect("fixture parses")
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
        .map(|l| grid(&l[..CELLS]))
        .collect()
}

fn units_of(cell: usize) -> [usize; 3] {
    let (r, c) = (cell / N, cell % N);
    [r, N + c, 2 * N + (r / 3) * 3 + c / 3]
}

/// Depth-first search with bitmasks: the first solution, if any.
pub fn exact_solve(puzzle: &Grid) -> Option<Grid> {
    let mut grid = puzzle.clone();
    let mut used = [0u16; 3 * N];
    for cell in 0..CELLS {
        if grid.cells[cell] != 0 {
            for u in units_of(cell) {
                used[u] |= 1 << grid.cells[cell];
            }
        }
    }
    fn search(grid: &mut Grid, used: &mut [u16; 27]) -> bool {
        // Most constrained empty cell first.
        let mut best: Option<(usize, u16)> = None;
        for cell in (0..CELLS).filter(|&c| grid.cells[c] == 0) {
            let taken = units_of(cell).iter().fold(0, |m, &u| m | used[u]);
            let free = !taken & 0b11_1111_1110;
            if best.is_none_or(|(_, b)| free.count_ones() < b.count_ones()) {
                best = Some((cell, free));
            }
        }
        let Some((cell, free)) = best else { return true };
        for digit in (1..=N as u8).filter(|&d| free >> d & 1 == 1) {
            grid.cells[cell] = digit;
            units_of(cell).iter().for_each(|&u| used[u] |= 1 << digit);
            if search(grid, used) {
                return true;
            }
            units_of(cell).iter().for_each(|&u| used[u] &= !(1 << digit));
        }
        grid.cells[cell] = 0;
        false
    }
    search(&mut grid, &mut used).then_some(grid)
}

/// Σ_k (1 − Σ_{i∈k} x_i)² over the 324 constraints, on a full 729-spin
/// assignment `x[9·cell + digit]`, written from the definition.
pub fn dense_energy(x: &[u8]) -> i32 {
    let mut energy = 0;
    let mut penalty = |sum: i32| energy += (1 - sum) * (1 - sum);
    for cell in 0..CELLS {
        penalty((0..N).map(|d| x[N * cell + d] as i32).sum());
    }
    for unit in 0..3 * N {
        for d in 0..N {
            penalty((0..CELLS).filter(|&c| units_of(c).contains(&unit)).map(|c| x[N * c + d] as i32).sum());
        }
    }
    energy
}

/// Whether full spins i and j share a constraint (are coupled).
pub fn dense_coupled(i: usize, j: usize) -> bool {
    let ((ci, di), (cj, dj)) = ((i / N, i % N), (j / N, j % N));
    i != j && ((ci == cj) || (di == dj && (0..3).any(|k| units_of(ci)[k] == units_of(cj)[k])))
}
