//! What happened to one puzzle: the end of the pipeline, which the
//! reports (`report.rs`, `bench/`) read.

use std::time::Duration;

use crate::error::PuzzleError;
use crate::grid::Grid;

#[derive(Debug, Clone, PartialEq)]
pub enum Status {
    /// A grid the independent verifier accepted.
    Solved(Grid),
    /// Out of sweeps or time.
    Unsolved,
    Invalid(PuzzleError),
    /// The engine failed on this puzzle (a bug: please report); the run
    /// goes on with the others and exits 2.
    Failed(String),
}

/// What happened to one puzzle.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    pub status: Status,
    /// Sweeps run per replica (0 when reduction alone decided it).
    pub sweeps: u64,
    /// Time to reduce and build the model plus time from its slot load to
    /// this outcome; not the time it queued, nor the backend's warm-up.
    pub seconds: f64,
    /// Spin-update attempts over all replicas: sweeps × replicas × (free
    /// spins + trades proposed a sweep).
    pub attempts: u64,
    /// Exchange proposals and acceptances of each adjacent pair of rungs
    /// (rung k with k + 1), summed over the puzzle's ladders.
    pub swap_attempts: Vec<u64>,
    pub swap_accepted: Vec<u64>,
    /// Whether reduction decided it (before the anneal, or probing during
    /// it) rather than a replica reaching energy 0.
    pub by_reduction: bool,
}

impl Outcome {
    /// The outcome of a puzzle that could not even be parsed.
    pub fn invalid(reason: PuzzleError) -> Outcome {
        Outcome::decided(Status::Invalid(reason), Duration::ZERO)
    }

    /// The outcome of a puzzle decided before annealing.
    pub fn decided(status: Status, prepare_time: Duration) -> Outcome {
        Outcome {
            status,
            sweeps: 0,
            seconds: prepare_time.as_secs_f64(),
            attempts: 0,
            swap_attempts: Vec::new(),
            swap_accepted: Vec::new(),
            by_reduction: true,
        }
    }

    pub fn is_solved(&self) -> bool {
        matches!(self.status, Status::Solved(_))
    }

    pub fn solution(&self) -> Option<&Grid> {
        match &self.status {
            Status::Solved(grid) => Some(grid),
            _ => None,
        }
    }
}
