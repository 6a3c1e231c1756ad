//! Stage 5, decode and verify. [`verify`] knows only the rules of Sudoku
//! and the clues; it never looks at the model or an energy, so a bug there
//! cannot make a wrong grid look solved.

use wide::u8x16;

use crate::grid::{symbol, CellSets, Grid};
use crate::model::Model;
use crate::outcome::Status;

/// The grid a free-spin state encodes, or `None` when some free cell holds
/// no digit or more than one.
pub fn decode(model: &Model, spins: &[u8]) -> Option<Grid> {
    let grid = cells_of(model, spins);
    grid.is_complete().then_some(grid)
}

/// The cells a state holds so far, for display: a free cell's digit where
/// exactly one of its spins is up, 0 where none or several are.
pub fn cells_of(model: &Model, spins: &[u8]) -> Grid {
    let mut grid = model.fixed.clone();
    let mut several = vec![false; grid.cells.len()];
    for (spin, _) in model.spins.iter().zip(spins).filter(|(_, &x)| x == 1) {
        let cell = spin.cell as usize;
        several[cell] |= grid.cells[cell] != 0;
        grid.cells[cell] = spin.digit as u8 + 1;
    }
    grid.cells.iter_mut().zip(several).filter(|(_, several)| *several).for_each(|(cell, _)| *cell = 0);
    grid
}

/// The cells whose digit another cell of one of their units holds too.
pub fn conflicts(grid: &Grid) -> Vec<usize> {
    let geometry = grid.geometry();
    let mut marked = vec![false; grid.cells.len()];
    for cells in &geometry.unit_cells {
        for (k, &a) in cells.iter().enumerate() {
            for &b in &cells[k + 1..] {
                if grid.cells[a] != 0 && grid.cells[a] == grid.cells[b] {
                    (marked[a], marked[b]) = (true, true);
                }
            }
        }
    }
    (0..marked.len()).filter(|&c| marked[c]).collect()
}

/// Checks that `solution` is a complete valid grid of the puzzle's shape
/// that keeps every clue of `puzzle`.
pub fn verify(puzzle: &Grid, solution: &Grid) -> Result<(), String> {
    if solution.shape != puzzle.shape || solution.cells.len() != puzzle.cells.len() {
        return Err(format!("the solution is a {:?} grid, the puzzle a {:?} one", solution.shape, puzzle.shape));
    }
    let geometry = puzzle.geometry();
    if let Some(cell) = first_wrong_cell(puzzle, solution) {
        let (digit, clue) = (solution.cells[cell] as usize, puzzle.cells[cell] as usize);
        return Err(match digit {
            0 => format!("{} is empty", geometry.cell_name(cell)),
            digit if digit > geometry.n => format!("{} holds {digit}, beyond {}", geometry.cell_name(cell), geometry.n),
            digit => format!("{} changes clue {} to {}", geometry.cell_name(cell), symbol(clue), symbol(digit)),
        });
    }
    if geometry.cell_sets.as_ref().is_some_and(|sets| no_peer_shares_a_digit(solution, sets)) {
        return Ok(());
    }
    // Every unit holds every digit; this also names the unit that does not.
    for (unit, cells) in geometry.unit_cells.iter().enumerate() {
        let seen = cells.iter().fold(0u32, |mask, &cell| mask | 1 << (solution.cells[cell] - 1));
        if seen != (1 << geometry.n) - 1 {
            return Err(format!("{} repeats a digit", geometry.unit_name(unit)));
        }
    }
    Ok(())
}

/// The first cell that is empty, holds a digit above n, or changes a clue.
/// Sixteen cells at a time and without a branch per cell: which cells hold
/// clues is random, and a mispredicted branch costs more than the test
/// (BENCHMARKS.md).
fn first_wrong_cell(puzzle: &Grid, solution: &Grid) -> Option<usize> {
    let n = u8x16::splat(solution.shape.n as u8);
    let wrong = |digits: [u8; 16], clues: [u8; 16]| {
        let (digits, clues, zero) = (u8x16::new(digits), u8x16::new(clues), u8x16::splat(0));
        let kept = clues.simd_eq(zero) | clues.simd_eq(digits);
        (digits.simd_eq(zero) | !digits.min(n).simd_eq(digits) | !kept).to_bitmask()
    };
    let (mut digits, mut clues) = (solution.cells.chunks_exact(16), puzzle.cells.chunks_exact(16));
    for (k, (sixteen, their_clues)) in digits.by_ref().zip(clues.by_ref()).enumerate() {
        let found = wrong(sixteen.try_into().expect("16 cells"), their_clues.try_into().expect("16 cells"));
        if found != 0 {
            return Some(16 * k + found.trailing_zeros() as usize);
        }
    }
    // The last cells, followed by digit 1 under no clue, which is never wrong.
    let (rest, first) = (digits.remainder(), solution.cells.len() - digits.remainder().len());
    let (mut last, mut last_clues) = ([1; 16], [0; 16]);
    last[..rest.len()].copy_from_slice(rest);
    last_clues[..rest.len()].copy_from_slice(clues.remainder());
    let found = wrong(last, last_clues);
    (found != 0).then(|| first + found.trailing_zeros() as usize)
}

/// Whether no cell of a complete grid shares its digit with a peer, on bit
/// sets of cells: each unit of n cells then holds n different digits, all
/// of them. A third of the work of folding every unit's digits.
fn no_peer_shares_a_digit(solution: &Grid, sets: &CellSets) -> bool {
    let holds = CellSets::cells_by_digit(&solution.cells, solution.shape.n);
    solution.cells.iter().zip(sets.peers.iter()).all(|(&digit, &peers)| peers & holds[digit as usize] == 0)
}

/// The status a grid found by the engine earns: it must pass the
/// independent verifier; if it does not, the engine is broken and nothing
/// may be printed as solved.
pub fn checked(puzzle: &Grid, solution: Grid) -> Status {
    match verify(puzzle, &solution) {
        Ok(()) => Status::Solved(solution),
        Err(why) => Status::Failed(format!("the verifier rejected grid {solution}: {why}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grid::{Shape, Variant};
    use crate::puzzle::parse_grid;

    const SOLVED: &str = "864371259325849761971265843436192587198657432257483916689734125713528694542916378";

    #[test]
    fn verify_accepts_a_solution_and_names_what_is_wrong() {
        let solution = parse_grid(SOLVED.as_bytes(), Variant::Standard).unwrap();
        let mut puzzle = Grid::empty(Shape::CLASSIC);
        puzzle.cells[0] = 8;
        assert_eq!(verify(&puzzle, &solution), Ok(()));
        puzzle.cells[0] = 7;
        assert_eq!(verify(&puzzle, &solution), Err("r1c1 changes clue 7 to 8".into()));
        let mut broken = solution.clone();
        broken.cells.swap(0, 1);
        assert_eq!(verify(&Grid::empty(Shape::CLASSIC), &broken), Err("column 1 repeats a digit".into()));
        broken.cells[0] = 10;
        assert_eq!(verify(&Grid::empty(Shape::CLASSIC), &broken), Err("r1c1 holds 10, beyond 9".into()));
        broken.cells[0] = 0;
        assert_eq!(verify(&Grid::empty(Shape::CLASSIC), &broken), Err("r1c1 is empty".into()));
        // Every place of a block of sixteen and of the cells after the last block.
        let geometry = Shape::CLASSIC.geometry();
        for cell in 0..81 {
            let (mut broken, mut puzzle) = (solution.clone(), Grid::empty(Shape::CLASSIC));
            broken.cells[cell] = 0;
            let name = geometry.cell_name(cell);
            assert_eq!(verify(&puzzle, &broken), Err(format!("{name} is empty")));
            broken.cells[cell] = 10;
            assert_eq!(verify(&puzzle, &broken), Err(format!("{name} holds 10, beyond 9")));
            puzzle.cells[cell] = solution.cells[cell] % 9 + 1;
            let (clue, digit) = (puzzle.cells[cell], solution.cells[cell]);
            assert_eq!(verify(&puzzle, &solution), Err(format!("{name} changes clue {clue} to {digit}")));
            // A digit its peers hold, anywhere on the board, is seen.
            broken.cells[cell] = solution.cells[cell] % 9 + 1;
            assert!(verify(&Grid::empty(Shape::CLASSIC), &broken).is_err_and(|why| why.ends_with("repeats a digit")));
        }
        let x = Grid { shape: Shape { n: 9, variant: Variant::X }, cells: solution.cells.clone() };
        assert_eq!(verify(&Grid::empty(x.shape), &x), Err("the main diagonal repeats a digit".into()));
    }
}
