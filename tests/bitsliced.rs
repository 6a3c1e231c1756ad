//! The bit-sliced backends (cpu-bits, and bits32, the GPU kernel's twin)
//! keep their books straight: their ladders start from random states of
//! their own, the energies they report are the model's energies of the
//! spins they return, replicas keep their states while exchange moves them
//! between rungs, and cpu-bits solves puzzles.
//! (That they sample the right distribution is in tempering.rs.)

use sudoku_anneal::backend::{bitsliced::BitslicedBackend, cpu::bits::Bits32Backend, Backend, Layout, Problem};
use sudoku_anneal::grid::{Shape, Variant};
use sudoku_anneal::model::Model;
use sudoku_anneal::reduce::{reduce, Reduce};
use sudoku_anneal::tempering::{Exchange, Ladder};
use sudoku_anneal::{solve, Settings, Status};

use crate::util::{exact_solve, generated_puzzle, grid, INKALA};

/// Two slots of `model` (70 ladders: a full word and part of another),
/// swept and exchanged for a few rounds; after every exchange, a
/// submission of zero sweeps must report each replica's energy unchanged.
fn assert_books_balance(model: &Model, backend: &mut dyn Backend) {
    // Close rungs, so that exchanges are accepted on large boards too.
    let ladder = Ladder::geometric(5, 1.0, 1.1);
    let (rungs, ladders) = (ladder.rungs(), 70);
    let per_slot = rungs * ladders;
    backend.configure(Layout::spins(model.fixed.shape, 2, per_slot, rungs)).unwrap();
    for (slot, seed) in [(0, 3), (1, 4)] {
        backend.load(slot, &Problem::new(model, &ladder, seed)).unwrap();
    }
    let mut exchanges: Vec<Exchange> = (0..2 * ladders as u32).map(|i| Exchange::new(&ladder, 3, i)).collect();
    let rung_map = |exchanges: &[Exchange]| -> Vec<u32> {
        exchanges.iter().flat_map(|e| e.rung_of_replica.iter().copied()).collect()
    };
    let mut moved = 0;
    for _ in 0..6 {
        let energies = backend.sweep(&rung_map(&exchanges), &[3, 2]).unwrap();
        let before: Vec<Vec<u32>> = exchanges.iter().map(|e| e.rung_of_replica.clone()).collect();
        exchanges.iter_mut().zip(energies.chunks(rungs)).for_each(|(e, energies)| e.exchange(energies));
        moved += exchanges.iter().zip(&before).filter(|(e, before)| e.rung_of_replica != **before).count();
        assert_eq!(backend.sweep(&rung_map(&exchanges), &[0, 0]).unwrap(), energies, "{:?}", model.fixed.shape);
        let all: Vec<usize> = (0..2 * per_slot).collect();
        for (replica, spins) in backend.spins(&all).unwrap().iter().enumerate() {
            assert_eq!(model.energy(spins), energies[replica], "{:?}, replica {replica}", model.fixed.shape);
        }
    }
    assert!(moved > 0, "{:?}: no exchange was accepted, so none was checked", model.fixed.shape);
}

#[test]
fn bitsliced_energies_are_the_model_energies_of_its_spins_on_every_kind_of_board() {
    use Variant::{Latin, Standard, X};
    for (n, variant) in [(9, Standard), (16, Standard), (9, X), (25, X), (5, Latin), (16, Latin)] {
        let (puzzle, _) = generated_puzzle(Shape { n, variant }, 3, 7);
        let model = Model::build(&reduce(&puzzle, Reduce::Clues).unwrap()).unwrap();
        assert_books_balance(&model, &mut BitslicedBackend::new());
        assert_books_balance(&model, &mut Bits32Backend::new());
    }
}

#[test]
fn every_ladder_starts_from_its_own_random_state() {
    use Variant::{Standard, X};
    let ladder = Ladder::geometric(2, 0.6, 0.7);
    for (n, variant) in [(9, Standard), (9, X), (16, Standard)] {
        let (puzzle, _) = generated_puzzle(Shape { n, variant }, 3, 7);
        let model = Model::build(&reduce(&puzzle, Reduce::Clues).unwrap()).unwrap();
        for backend in [&mut BitslicedBackend::new() as &mut dyn Backend, &mut Bits32Backend::new()] {
            assert_starts_random(&model, &ladder, 70, backend);
        }
    }
}

fn assert_starts_random(model: &Model, ladder: &Ladder, ladders: usize, backend: &mut dyn Backend) {
    let (rungs, shape) = (ladder.rungs(), model.fixed.shape);
    let (n, variant, name) = (shape.n, shape.variant, backend.name());
    backend.configure(Layout::spins(shape, 1, rungs * ladders, rungs)).unwrap();
    backend.load(0, &Problem::new(model, ladder, 5)).unwrap();
    let in_place: Vec<u32> = (0..ladders).flat_map(|_| 0..rungs as u32).collect();
    let energies = backend.sweep(&in_place, &[0]).unwrap();
    let states = backend.spins(&(0..rungs * ladders).collect::<Vec<_>>()).unwrap();
    for (replica, (state, &energy)) in states.iter().zip(&energies).enumerate() {
        assert_eq!(model.energy(state), energy, "{name}, {n}×{n} {variant:?}, replica {replica}");
    }
    let ones = states.iter().flatten().filter(|&&x| x == 1).count();
    let fraction = ones as f64 / (states.len() * model.len()) as f64;
    assert!((0.45..0.55).contains(&fraction), "{name}, {n}×{n} {variant:?}: {fraction} of the spins start on");
    let distinct: std::collections::HashSet<&Vec<u8>> = states.iter().collect();
    assert_eq!(distinct.len(), states.len(), "{name}, {n}×{n} {variant:?}: two ladders start alike");
}

#[test]
fn bitsliced_backend_solves_inkala_reproducibly() {
    let settings = Settings { ladders: 64, ..Settings::plain_model() };
    let first = solve(&grid(INKALA), &settings, &mut BitslicedBackend::new()).unwrap();
    assert_eq!(first.status, Status::Solved(exact_solve(&grid(INKALA)).unwrap()));
    let again = solve(&grid(INKALA), &settings, &mut BitslicedBackend::new()).unwrap();
    assert_eq!((again.status, again.sweeps), (first.status, first.sweeps));
}
