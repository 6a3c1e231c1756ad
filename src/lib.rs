//! Sudoku as a 729-spin Ising/QUBO model, solved by parallel tempering on
//! the CPU or a GPU. The pipeline, one module per stage:
//!
//! 1. [`puzzle`]: stream puzzle lines in, parse them ([`grid`] holds the board).
//! 2. [`reduce`] then [`model`]: remove ruled-out spins, build the sparse QUBO.
//! 3. [`backend`]: colour-class Metropolis sweeps over all replicas (`cpu` | `bitsliced` | `gpu`).
//! 4. [`tempering`]: the temperature ladder and host-side replica exchange.
//! 5. [`decode`]: spins → grid, and an independent verifier.
//! 6. [`report`]: one output record per puzzle; [`bench`](mod@bench): collection statistics.
//!
//! [`solver::solve_stream`] drives stages 2–5 for a stream of puzzles, many
//! in flight at once; [`solver::solve`] for a single puzzle.

pub mod backend;
pub mod bench;
pub mod decode;
pub mod dynamics;
pub mod error;
pub mod export;
pub mod grid;
pub mod model;
pub mod outcome;
pub mod puzzle;
pub mod reduce;
pub mod report;
pub mod rng;
pub mod settings;
pub mod solver;
pub mod tempering;

pub use backend::kind::{BackendChoice, BackendKind};
pub use error::{Error, PuzzleError, Result};
pub use outcome::{Outcome, Status};
pub use settings::{Overrides, Settings};
pub use solver::solve;
