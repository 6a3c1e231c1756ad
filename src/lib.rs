//! Sudoku as a 729-spin Ising/QUBO model, solved by parallel tempering on
//! the CPU or a GPU. The pipeline, one module per stage (docs/DESIGN.md
//! gives the model, the colourings, the dynamics and the twin contract):
//!
//! 1. [`puzzle`]: stream puzzle lines in, parse them ([`grid`] holds the board).
//! 2. [`reduce`] then [`model`]: remove ruled-out spins, build the sparse QUBO.
//! 3. [`backend`]: colour-class sweeps over all replicas, as [`dynamics`]
//!    says; [`backend::kind`] names the backends, their sweeps and
//!    defaults, [`backend::registry`] builds them.
//! 4. [`tempering`]: the temperature ladder and host-side replica exchange.
//! 5. [`decode`]: spins → grid, and an independent verifier.
//! 6. [`outcome`] of each puzzle; [`report`]: one output record per puzzle;
//!    [`bench`](mod@bench): collection statistics; [`merge`](mod@merge):
//!    shard outputs joined back into input order.
//!
//! [`settings`] resolves what to run from a backend's defaults and the
//! user's choices; [`solver::solve_stream`] drives stages 2–5 for a stream
//! of puzzles, many in flight at once; [`solver::solve`] for a single one.

/// A line on stderr after the program's name, that never panics: a full or
/// closed stderr must not stop a run, as `eprintln!` would (what it would
/// have said is lost; the records on stdout are not).
#[macro_export]
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr().lock(), "sudoku-anneal: {}", format_args!($($arg)*));
    }};
}

pub mod backend;
pub mod bench;
pub mod decode;
pub mod dynamics;
pub mod error;
pub mod export;
pub mod grid;
pub mod merge;
pub mod model;
pub mod outcome;
pub mod puzzle;
pub mod reduce;
pub mod report;
pub mod rng;
#[cfg(feature = "serve")]
pub mod serve;
pub mod settings;
pub mod solver;
pub mod tempering;

pub use backend::kind::BackendKind;
pub use backend::registry::BackendChoice;
pub use error::{Error, PuzzleError, Result};
pub use outcome::{Outcome, Status};
pub use settings::{Overrides, Settings};
pub use solver::solve;
