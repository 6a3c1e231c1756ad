//! Export of the exact model the engine anneals, for other annealers
//! (dwave-samplers, OpenJij, hardware Ising machines), and as CNF for SAT
//! solvers, the exact yardstick.
//!
//! Every format carries the free spins' map back to the board: free spin
//! `i` is "cell `variables[i].0` (0-based, row-major) holds digit
//! `variables[i].1`", and the known cells. The energy is 0 exactly on the
//! puzzle's solutions.

use std::fmt::Write;

use serde::Serialize;

use crate::grid::Variant;
use crate::model::Model;

/// A binary quadratic model as JSON: energy `offset + Σ linear[i]·v_i +
/// Σ J·v_i·v_j` over `quadratic` entries `[i, j, J]` with `i < j`, where v
/// is x ∈ {0, 1} (`vartype` BINARY) or s ∈ {−1, +1} (SPIN).
#[derive(Serialize)]
struct BqmJson<T> {
    vartype: &'static str,
    num_variables: usize,
    offset: T,
    linear: Vec<T>,
    quadratic: Vec<(usize, usize, T)>,
    variables: Vec<(u16, u16)>,
    fixed: String,
    /// Board side n and rules (`standard`, `x`, `latin`).
    side: usize,
    variant: Variant,
}

fn couplings(model: &Model) -> impl Iterator<Item = (usize, usize, i32)> + '_ {
    (0..model.len()).flat_map(move |i| model.neighbours_of(i).filter(move |&(j, _)| j > i).map(move |(j, c)| (i, j, c)))
}

fn bqm<T>(
    model: &Model,
    vartype: &'static str,
    offset: T,
    linear: Vec<T>,
    quadratic: Vec<(usize, usize, T)>,
) -> BqmJson<T> {
    BqmJson {
        vartype,
        num_variables: model.len(),
        offset,
        linear,
        quadratic,
        variables: model.spins.iter().map(|s| (s.cell, s.digit + 1)).collect(),
        fixed: model.fixed.to_string(),
        side: model.fixed.shape.n,
        variant: model.fixed.shape.variant,
    }
}

/// The model in 0/1 variables, as the engine holds it.
pub fn bqm_json(model: &Model) -> String {
    let json = bqm(model, "BINARY", model.offset, model.field().to_vec(), couplings(model).collect());
    serde_json::to_string(&json).expect("a model always serializes")
}

/// The same model in ±1 spins: with x = (s + 1)/2,
/// `h_i = linear_i/2 + Σ_j J_ij/4`, `J'_ij = J_ij/4`,
/// `offset' = offset + Σ linear_i/2 + Σ_{i<j} J_ij/4`.
pub fn ising_json(model: &Model) -> String {
    let (quarter, field) = (|c: i32| c as f64 / 4.0, model.field());
    let linear = (0..model.len())
        .map(|i| field[i] as f64 / 2.0 + model.neighbours_of(i).map(|(_, c)| quarter(c)).sum::<f64>())
        .collect();
    let offset = model.offset as f64
        + field.iter().map(|&h| h as f64 / 2.0).sum::<f64>()
        + couplings(model).map(|(_, _, c)| quarter(c)).sum::<f64>();
    let quadratic = couplings(model).map(|(i, j, c)| (i, j, quarter(c))).collect();
    serde_json::to_string(&bqm(model, "SPIN", offset, linear, quadratic)).expect("a model always serializes")
}

/// Plain text: `offset N`, one `var i cell digit` line per variable, then
/// `i j q` lines (i ≤ j; i = j is the linear term) of E = offset + Σ q·x_i·x_j.
pub fn qubo_text(model: &Model) -> String {
    let mut text = String::new();
    let _ = writeln!(text, "# sudoku-anneal QUBO, x in {{0,1}}: E(x) = offset + sum over 'i j q' lines of q*x_i*x_j; E = 0 exactly on solutions");
    let shape = model.fixed.shape;
    let _ = writeln!(text, "# board: side {}, {:?} rules; known cells: {}", shape.n, shape.variant, model.fixed);
    let _ = writeln!(text, "# var lines: variable, cell (0-based, row-major), digit 1..=side");
    let _ = writeln!(text, "offset {}", model.offset);
    for (i, s) in model.spins.iter().enumerate() {
        let _ = writeln!(text, "var {i} {} {}", s.cell, s.digit + 1);
    }
    for (i, &h) in model.field().iter().enumerate() {
        let _ = writeln!(text, "{i} {i} {h}");
    }
    for (i, j, c) in couplings(model) {
        let _ = writeln!(text, "{i} {j} {c}");
    }
    text
}

/// The model as clauses over its free spins (literal `i + 1` is "free spin
/// `i` is 1", `-(i + 1)` its negation): a state satisfies every clause
/// exactly when its energy is 0. The energy sums `(a_k + Σ x_i − 1)²` over
/// the constraints `k` (each cell, each unit × digit), with `a_k` fixed
/// ones and the sum over the free spins in `k`; it is 0 when each sum is 1:
/// - `a_k = 0`: at least one of the free spins (one clause) and at most
///   one (a clause per pair);
/// - `a_k = 1`: none of them (a unit clause each; with consistent clues the
///   other clauses imply these by counting, but a solver would have to
///   derive them);
/// - `a_k ≥ 2`: never (the empty clause; clashing clues, which the reader
///   refuses before a model is built).
pub fn cnf_clauses(model: &Model) -> Vec<Vec<i32>> {
    let geometry = model.geometry();
    let mut members = vec![Vec::new(); geometry.constraints];
    for (i, s) in model.spins.iter().enumerate() {
        for k in geometry.constraints_of(s.cell as usize, s.digit as usize) {
            members[k].push(i as i32 + 1);
        }
    }
    let mut clauses = Vec::new();
    for (free, &fixed_ones) in members.iter().zip(&model.fixed_ones) {
        match fixed_ones {
            0 => {
                clauses.push(free.clone());
                for (a, &i) in free.iter().enumerate() {
                    clauses.extend(free[a + 1..].iter().map(|&j| vec![-i, -j]));
                }
            }
            1 => clauses.extend(free.iter().map(|&i| vec![-i])),
            _ => clauses.push(vec![]),
        }
    }
    clauses
}

/// DIMACS CNF of [`cnf_clauses`], with the map from variables to cells
/// and digits as comments (`c var V cell digit`, V from 1).
pub fn dimacs_cnf(model: &Model) -> String {
    let clauses = cnf_clauses(model);
    let mut text = String::new();
    let _ = writeln!(text, "c sudoku-anneal CNF: satisfied exactly by the states of energy 0 (the puzzle's solutions)");
    let shape = model.fixed.shape;
    let _ = writeln!(text, "c board: side {}, {:?} rules; known cells: {}", shape.n, shape.variant, model.fixed);
    let _ = writeln!(text, "c var lines: variable, cell (0-based, row-major), digit 1..=side");
    for (i, s) in model.spins.iter().enumerate() {
        let _ = writeln!(text, "c var {} {} {}", i + 1, s.cell, s.digit + 1);
    }
    let _ = writeln!(text, "p cnf {} {}", model.len(), clauses.len());
    for clause in &clauses {
        for literal in clause {
            let _ = write!(text, "{literal} ");
        }
        text.push_str("0\n");
    }
    text
}
