//! Stage 5, decode and verify. [`verify`] knows only the rules of Sudoku
//! and the clues; it never looks at the model or an energy, so a bug there
//! cannot make a wrong grid look solved.

use crate::grid::{cell_name, unit_cells, unit_name, Grid, CELLS, N, UNITS};
use crate::model::Model;

/// The grid a free-spin state encodes, or `None` when some free cell holds
/// no digit or more than one.
pub fn decode(model: &Model, spins: &[u8]) -> Option<Grid> {
    let mut grid = model.fixed.clone();
    for (spin, _) in model.spins.iter().zip(spins).filter(|(_, &x)| x == 1) {
        let cell = &mut grid.cells[spin.cell as usize];
        if *cell != 0 {
            return None;
        }
        *cell = spin.digit as u8 + 1;
    }
    grid.is_complete().then_some(grid)
}

/// Checks that `solution` is a complete valid grid that keeps every clue of `puzzle`.
pub fn verify(puzzle: &Grid, solution: &Grid) -> Result<(), String> {
    for cell in 0..CELLS {
        let digit = solution.cells[cell];
        if !(1..=N as u8).contains(&digit) {
            return Err(format!("{} is empty", cell_name(cell)));
        }
        if puzzle.cells[cell] != 0 && puzzle.cells[cell] != digit {
            return Err(format!("{} changes clue {} to {digit}", cell_name(cell), puzzle.cells[cell]));
        }
    }
    for unit in 0..UNITS {
        let seen = unit_cells(unit).iter().fold(0u16, |mask, &cell| mask | 1 << (solution.cells[cell] - 1));
        if seen != (1 << N) - 1 {
            return Err(format!("{} repeats a digit", unit_name(unit)));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::puzzle::parse_grid;

    const SOLVED: &str = "864371259325849761971265843436192587198657432257483916689734125713528694542916378";

    #[test]
    fn verify_accepts_a_solution_and_names_what_is_wrong() {
        let solution = parse_grid(SOLVED.as_bytes()).unwrap();
        let mut puzzle = Grid::empty();
        puzzle.cells[0] = 8;
        assert_eq!(verify(&puzzle, &solution), Ok(()));
        puzzle.cells[0] = 7;
        assert_eq!(verify(&puzzle, &solution), Err("r1c1 changes clue 7 to 8".into()));
        let mut broken = solution.clone();
        broken.cells.swap(0, 1);
        assert_eq!(verify(&Grid::empty(), &broken), Err("column 1 repeats a digit".into()));
    }
}
