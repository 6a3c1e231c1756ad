//! The pipeline for one puzzle: reduce → build → anneal with parallel
//! tempering → decode → verify. Backends are interchangeable.

use std::time::{Duration, Instant};

use crate::backend::{Backend, Problem};
use crate::decode::{decode, verify};
use crate::error::{Error, PuzzleError, Result};
use crate::grid::Grid;
use crate::model::Model;
use crate::reduce::{check_clues, reduce, Reduce};
use crate::tempering::{Exchange, Ladder};

/// How to anneal one puzzle.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Settings {
    /// Replicas per ladder, one per rung.
    pub replicas: usize,
    /// Independent ladders per puzzle: `ladders × replicas` replicas in all.
    pub ladders: usize,
    pub t_min: f64,
    pub t_max: f64,
    /// Sweeps between two exchange rounds (and zero-energy checks).
    pub exchange_every: u32,
    pub max_sweeps: u32,
    pub timeout: Option<Duration>,
    pub seed: u64,
    pub reduce: Reduce,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            replicas: 16,
            ladders: 1,
            t_min: 0.4,
            t_max: 1.2,
            exchange_every: 10,
            max_sweeps: 1_000_000,
            timeout: Some(Duration::from_secs(60)),
            seed: 0,
            reduce: Reduce::Clues,
        }
    }
}

impl Settings {
    pub fn validate(&self) -> Result<()> {
        let fail = |what: &str| Err(Error::Settings(what.to_string()));
        if self.replicas < 1 || self.ladders < 1 {
            return fail("--replicas and --ladders must be at least 1");
        }
        if self.replicas.checked_mul(self.ladders).is_none_or(|total| total > u32::MAX as usize / 2) {
            return fail("--replicas × --ladders is too large");
        }
        if !(self.t_min > 0.0 && self.t_min.is_finite() && self.t_max.is_finite() && self.t_min <= self.t_max) {
            return fail("temperatures must satisfy 0 < --t-min <= --t-max");
        }
        if self.exchange_every < 1 {
            return fail("--exchange-every must be at least 1");
        }
        Ok(())
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum Status {
    Solved(Grid),
    Unsolved,
    Invalid(PuzzleError),
}

/// What happened to one puzzle.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    pub status: Status,
    /// Sweeps run per replica (0 when reduction alone decided it).
    pub sweeps: u64,
    pub seconds: f64,
    pub free_spins: usize,
    /// Metropolis attempts over all replicas: sweeps × replicas × free spins.
    pub attempts: u64,
    pub swap_attempts: u64,
    pub swap_accepted: u64,
}

impl Outcome {
    /// The outcome of a puzzle that could not even be parsed.
    pub fn invalid(reason: PuzzleError) -> Outcome {
        Outcome { seconds: 0.0, ..Outcome::decided(Status::Invalid(reason), Instant::now()) }
    }

    fn decided(status: Status, started: Instant) -> Outcome {
        Outcome {
            status,
            sweeps: 0,
            seconds: started.elapsed().as_secs_f64(),
            free_spins: 0,
            attempts: 0,
            swap_attempts: 0,
            swap_accepted: 0,
        }
    }
}

/// Solves one puzzle. `Err` only for failures of the backend or a broken
/// invariant; an unsolvable or malformed puzzle is an `Outcome`.
pub fn solve(puzzle: &Grid, settings: &Settings, backend: &mut dyn Backend) -> Result<Outcome> {
    let started = Instant::now();
    let candidates = match check_clues(puzzle).and_then(|()| reduce(puzzle, settings.reduce)) {
        Ok(candidates) => candidates,
        Err(reason) => return Ok(Outcome::decided(Status::Invalid(reason), started)),
    };
    if candidates.fixed.is_complete() {
        checked(puzzle, &candidates.fixed)?;
        return Ok(Outcome::decided(Status::Solved(candidates.fixed), started));
    }
    let model = match Model::build(&candidates) {
        Ok(model) => model,
        Err(reason) => return Ok(Outcome::decided(Status::Invalid(reason), started)),
    };

    let ladder = Ladder::geometric(settings.replicas, settings.t_min, settings.t_max);
    let table_len = (model.max_abs_field() / 2 + 1) as usize;
    let replicas = settings.ladders * settings.replicas;
    backend.load(&Problem {
        model: &model,
        thresholds: ladder.thresholds(table_len),
        table_len,
        replicas,
        seed: settings.seed,
    })?;
    let mut exchanges: Vec<Exchange> =
        (0..settings.ladders as u32).map(|index| Exchange::new(&ladder, settings.seed, index)).collect();
    let mut rung_of_replica = vec![0u32; replicas];
    let mut sweeps: u32 = 0;
    let mut status = Status::Unsolved;
    while sweeps < settings.max_sweeps {
        for (rungs, exchange) in rung_of_replica.chunks_mut(settings.replicas).zip(&exchanges) {
            rungs.copy_from_slice(&exchange.rung_of_replica);
        }
        let count = settings.exchange_every.min(settings.max_sweeps - sweeps);
        let energies = backend.sweep(&rung_of_replica, sweeps, count)?;
        sweeps += count;
        if let Some(replica) = energies.iter().position(|&e| e == 0) {
            let spins = backend.spins(replica)?;
            let grid = decode(&model, &spins)
                .ok_or_else(|| Error::Internal(format!("{} backend: a zero-energy replica does not decode", backend.name())))?;
            checked(puzzle, &grid)?;
            status = Status::Solved(grid);
            break;
        }
        for (energies, exchange) in energies.chunks(settings.replicas).zip(&mut exchanges) {
            exchange.exchange(energies);
        }
        if settings.timeout.is_some_and(|limit| started.elapsed() >= limit) {
            break;
        }
    }
    Ok(Outcome {
        status,
        sweeps: sweeps as u64,
        seconds: started.elapsed().as_secs_f64(),
        free_spins: model.len(),
        attempts: sweeps as u64 * replicas as u64 * model.len() as u64,
        swap_attempts: exchanges.iter().flat_map(|e| &e.attempts).sum(),
        swap_accepted: exchanges.iter().flat_map(|e| &e.accepted).sum(),
    })
}

/// A grid reached this far must pass the independent verifier; if it does
/// not, the engine is broken and nothing may be printed as solved.
fn checked(puzzle: &Grid, solution: &Grid) -> Result<()> {
    verify(puzzle, solution).map_err(|why| Error::Internal(format!("the verifier rejected grid {solution}: {why}")))
}
