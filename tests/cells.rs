//! Cell moves keep their books: every free cell always holds exactly one
//! candidate, the energy a replica reports is Σ_k w_k (1 − t_k)² over the
//! unit constraints for the weights it reports, adaptive weights stay
//! between base and cap, and energy 0 means solved under any weights.
//! (That the moves sample the right distribution is in tempering.rs.)

use sudoku_anneal::backend::{cpu::CpuBackend, lanes::LanesBackend, Backend, Layout, Problem};
use sudoku_anneal::dynamics::{AdaptiveWeights, Completion, Dynamics, Moves, Trades, Weights};
use sudoku_anneal::grid::{Shape, Variant};
use sudoku_anneal::model::Model;
use sudoku_anneal::reduce::{reduce, Reduce};
use sudoku_anneal::tempering::{Exchange, Ladder};

use crate::util::{generated_puzzle, grid, EASY};

/// The weighted energy of a free-spin state from the definition: the
/// totals of the unit constraints (clues and spins), weighted.
fn weighted_energy(model: &Model, spins: &[u8], weights: &[u8]) -> i32 {
    let geometry = model.geometry();
    let full = model.full_assignment(spins);
    let mut totals = vec![0i32; geometry.constraints];
    for (i, &x) in full.iter().enumerate() {
        geometry.constraints_of(i / geometry.n, i % geometry.n).for_each(|k| totals[k] += x as i32);
    }
    totals[geometry.cells..].iter().zip(weights).map(|(&t, &w)| w as i32 * (1 - t) * (1 - t)).sum()
}

/// `rungs` × `ladders` replicas: cpu-lanes moves the chains of four-rung
/// ladders between its lanes, which the host must not see.
fn assert_books_balance(
    model: &Model,
    dynamics: Dynamics,
    backend: &mut dyn Backend,
    (rungs, ladders): (usize, usize),
) {
    let ladder = Ladder::geometric(rungs, 0.8, 1.6);
    let per_slot = rungs * ladders;
    let layout = Layout { shape: model.fixed.shape, slots: 1, replicas_per_slot: per_slot, rungs, dynamics };
    backend.configure(layout).unwrap();
    backend.load(0, &Problem::with_dynamics(model, &ladder, 11, dynamics)).unwrap();
    let mut exchanges: Vec<Exchange> = (0..ladders as u32).map(|i| Exchange::new(&ladder, 11, i)).collect();
    let mut solved = 0;
    for _ in 0..30 {
        let rung_map: Vec<u32> = exchanges.iter().flat_map(|e| e.rung_of_replica.clone()).collect();
        let energies = backend.sweep(&rung_map, &[3]).unwrap();
        let all: Vec<usize> = (0..per_slot).collect();
        let (states, weights) = (backend.spins(&all).unwrap(), backend.weights(&all).unwrap());
        for ((spins, weights), &energy) in states.iter().zip(&weights).zip(&energies) {
            for cell in model.spins.iter().map(|s| s.cell) {
                let held = model.spins.iter().zip(spins).filter(|(s, &x)| s.cell == cell && x == 1).count();
                assert_eq!(held, 1, "cell {cell} holds {held} candidates");
            }
            let weights = match dynamics.weights {
                Weights::Fixed => {
                    assert!(weights.is_empty());
                    vec![1; model.geometry().constraints]
                }
                Weights::Adaptive(rule) => {
                    assert!(weights.iter().all(|w| (rule.base..=rule.cap).contains(w)), "{weights:?}");
                    weights.clone()
                }
            };
            assert_eq!(energy, weighted_energy(model, spins, &weights), "{}", backend.name());
            assert!(energy >= model.energy(spins));
            assert_eq!(energy == 0, model.energy(spins) == 0, "energy 0 means solved");
            solved += usize::from(energy == 0);
        }
        for (e, energies) in exchanges.iter_mut().zip(energies.chunks(rungs)) {
            e.exchange(energies);
        }
    }
    if model.fixed.shape == Shape::CLASSIC {
        assert!(solved > 0, "{dynamics:?}: no replica reached energy 0, so that case went unchecked");
    }
}

#[test]
fn cell_moves_keep_one_candidate_per_cell_and_their_energies_straight() {
    let adaptive = Weights::Adaptive(AdaptiveWeights { base: 2, cap: 6, relax_every: 3 });
    let mut models = vec![Model::build(&reduce(&grid(EASY), Reduce::Clues).unwrap()).unwrap()];
    for (n, variant) in [(16, Variant::X), (9, Variant::X), (7, Variant::Latin), (16, Variant::Standard)] {
        let (puzzle, _) = generated_puzzle(Shape { n, variant }, 3, 2);
        models.push(Model::build(&reduce(&puzzle, Reduce::Clues).unwrap()).unwrap());
    }
    for model in &models {
        for weights in [Weights::Fixed, adaptive] {
            let dynamics = Dynamics { moves: Moves::Cell, weights, completion: Completion::Off, ..Dynamics::default() };
            assert_books_balance(model, dynamics, &mut CpuBackend::new(), (3, 5));
            // Trades move two cells at once, past their units' books.
            for (ladders, completion, trades) in [
                ((3, 5), Completion::Off, Trades::Off),
                ((4, 8), Completion::Off, Trades::Off),
                ((4, 8), Completion::Singles, Trades::Off),
                ((3, 5), Completion::Off, Trades::On),
                ((4, 8), Completion::Singles, Trades::On),
            ] {
                let dynamics = Dynamics { completion, trades, ..dynamics };
                assert_books_balance(model, dynamics, &mut LanesBackend::new(), ladders);
            }
        }
    }
}
