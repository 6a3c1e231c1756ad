//! Export of the exact model the engine anneals, for other annealers.

use serde::Serialize;

use crate::model::Model;

/// A binary quadratic model as JSON: energy
/// `offset + Σ linear[i]·x_i + Σ J·x_i·x_j` over `quadratic` entries
/// `[i, j, J]` with `i < j`; `variables[i]` is `[cell, digit]` (0-based
/// cell, digit 1..=9) of free spin `i`; `fixed` the known cells.
#[derive(Serialize)]
struct BqmJson {
    vartype: &'static str,
    num_variables: usize,
    offset: i32,
    linear: Vec<i32>,
    quadratic: Vec<(usize, usize, i32)>,
    variables: Vec<(u16, u16)>,
    fixed: String,
}

pub fn bqm_json(model: &Model) -> String {
    let quadratic = (0..model.len())
        .flat_map(|i| model.neighbours_of(i).filter(move |&(j, _)| j > i).map(move |(j, c)| (i, j, c)))
        .collect();
    let json = BqmJson {
        vartype: "BINARY",
        num_variables: model.len(),
        offset: model.offset,
        linear: model.field.clone(),
        quadratic,
        variables: model.spins.iter().map(|s| (s.cell, s.digit + 1)).collect(),
        fixed: model.fixed.to_string(),
    };
    serde_json::to_string(&json).expect("a model always serializes")
}
