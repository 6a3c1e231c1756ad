//! Property tests on arbitrary input (issue: nothing panics, whatever the
//! bytes): the reader and parser, and the reduction + model builder on
//! arbitrary grids. Bounded case counts keep CI short.

use proptest::prelude::*;

use sudoku_anneal::decode::verify;
use sudoku_anneal::grid::{Grid, Shape, Variant};
use sudoku_anneal::model::Model;
use sudoku_anneal::puzzle::{parse_grid, PuzzleReader};
use sudoku_anneal::reduce::{check_clues, reduce, Reduce};

use crate::util::exact_solve;

/// Grids whose cells are empty `empty_weight` times as often as filled.
fn arbitrary_grid(empty_weight: u32) -> impl Strategy<Value = Grid> {
    proptest::collection::vec(prop_oneof![empty_weight => Just(0u8), 1 => 1u8..=9], 81)
        .prop_map(|cells| Grid { shape: Shape::CLASSIC, cells })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn the_reader_never_panics_and_counts_every_puzzle_line(bytes in proptest::collection::vec(any::<u8>(), 0..2_000)) {
        let entries: Vec<_> = PuzzleReader::new(bytes.as_slice(), Variant::Standard).collect::<Result<_, _>>().unwrap();
        // `\n`, `\r\n` and a lone `\r` each end a line.
        let lines = bytes.split(|&b| b == b'\n' || b == b'\r').count() - bytes.windows(2).filter(|w| w == b"\r\n").count();
        prop_assert!(entries.len() <= lines);
        prop_assert!(entries.windows(2).all(|w| w[0].line < w[1].line));
    }

    #[test]
    fn a_parsed_grid_prints_back_as_its_cells(grid in arbitrary_grid(2), comment in "( #.*)?") {
        let text = format!("{grid}{comment}");
        prop_assert_eq!(parse_grid(text.as_bytes(), Variant::Standard).unwrap(), grid);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// About 5 clues: most grids are consistent and reach the model.
    #[test]
    fn the_model_of_any_grid_is_sound(grid in arbitrary_grid(15)) {
        prop_assume!(check_clues(&grid).is_ok());
        let solution = exact_solve(&grid);
        for mode in [Reduce::None, Reduce::Clues, Reduce::Propagate, Reduce::Probe] {
            let Ok(candidates) = reduce(&grid, mode) else {
                prop_assert!(solution.is_none(), "{mode:?} reduction called a solvable grid unsolvable");
                continue;
            };
            if candidates.fixed.is_complete() {
                // Probing may end with any of several solutions; the others
                // complete a grid only where it has one.
                match mode {
                    Reduce::Probe => prop_assert!(verify(&grid, &candidates.fixed).is_ok(), "{}", candidates.fixed),
                    _ => prop_assert_eq!(Some(&candidates.fixed), solution.as_ref()),
                }
                continue;
            }
            let Ok(model) = Model::build(&candidates) else {
                prop_assert!(solution.is_none(), "{mode:?} model called a solvable grid unsolvable");
                continue;
            };
            prop_assert_eq!(model.energy(&vec![0; model.len()]), model.offset);
            let geometry = model.geometry();
            let colour = |s: sudoku_anneal::model::Spin| geometry.colour_of(s.cell as usize, s.digit as usize);
            for i in 0..model.len() {
                let s = model.spins[i];
                for (j, _) in model.neighbours_of(i) {
                    let t = model.spins[j];
                    prop_assert_ne!(colour(s), colour(t));
                }
            }
            if let Some(solution) = &solution {
                // Reduction is sound: a solution uses only spins that stayed free.
                let x = model.encode(solution);
                prop_assert_eq!(x.iter().map(|&b| b as usize).sum::<usize>() + model.fixed.clue_count(), 81);
                prop_assert_eq!(model.energy(&x), 0);
            }
        }
    }
}
