//! The `cpu-lanes` backend: cell moves with per-chain weights, fast on the
//! CPU. Sixteen chains of a puzzle sweep in lockstep, one per 16-bit lane
//! of a vector (`i16x16`: one AVX2 register, two SSE2 ones), so each chain
//! keeps its own candidates, constraint totals and weights while every
//! operation serves all sixteen.
//!
//! It runs the dynamics of `cpu/cells.rs` (docs/DESIGN.md §4) with its own
//! arithmetic and random numbers, so it is no twin: its tests compare it
//! with the exact Boltzmann distribution and its energies with the
//! model's. What differs:
//!
//! - Heat-bath weights are 15-bit: the best candidate of a cell of c
//!   weighs `ONE_c = ⌊32767 / c⌋`, so a cell's weights and their running
//!   sums stay positive in a signed 16-bit lane, where a compare is one
//!   instruction. One x above it weighs `ONE_c · q^x`, q = exp(−1/T), from
//!   x's bits: each multiplies by `q^(2^b)` where x has it and by
//!   65535/65536 where not (16-bit fixed point, rounded down; an OR rather
//!   than a select per bit, at most one unit lower per bit than the exact
//!   product). A candidate below one part in `ONE_c` of the best (at
//!   T = 1.2, about 11 weight units above it) is never drawn.
//! - A candidate's energy leaves out the cell's own candidate without
//!   writing the totals: only its own units hold it, so only its energy
//!   changes, by −2 Σ w.
//! - Random numbers come from xorshift128+, 16 bits per chain per cell,
//!   seeded per group from the counter-based streams (`rng.rs`).

use std::ops::Range;

use rayon::prelude::*;
use wide::{i16x16, i32x16, u16x16, u64x4};

use super::kind::BackendKind;
use super::slots::{Chains, Slots};
use super::tables::CellTable;
use super::{Backend, Layout, Problem};
use crate::dynamics::{Weights, HEAT_BATH_ONE};
use crate::error::Result;
use crate::grid::Shape;
use crate::rng::{attempt_random, stream_key, sweep_key, INITIAL_STATE_SWEEP};

/// Chains per group, one per lane.
pub const CHAINS_PER_GROUP: usize = 16;
/// Bits of x = e − e_min a heat-bath weight is computed from: x ≥ 2¹⁰
/// weighs what x = 2¹⁰ − 1 does, below one part in 2¹⁶ at any T ≤ 90.
const X_BITS: usize = 10;
/// The most a cell's heat-bath weights sum to: 15 bits, so the draw's
/// running sums stay positive in a signed 16-bit lane.
const WEIGHT_SUM: u16 = 32767;

/// 16 lanes of the chains' 16-bit numbers.
type Lanes = i16x16;

fn unsigned(v: Lanes) -> u16x16 {
    bytemuck::cast(v)
}

fn signed(v: u16x16) -> Lanes {
    bytemuck::cast(v)
}

/// xorshift128+ on four 64-bit lanes: 256 random bits a step, 16 per chain.
#[derive(Debug, Clone)]
struct Random {
    s0: u64x4,
    s1: u64x4,
}

impl Random {
    /// Seeded from the counter-based stream of the group.
    fn new(stream: u32) -> Random {
        let key = sweep_key(stream, INITIAL_STATE_SWEEP);
        let word = |i: u32| (attempt_random(key, 2 * i) as u64) << 32 | attempt_random(key, 2 * i + 1) as u64;
        let (s0, s1) = (std::array::from_fn(|i| word(i as u32)), std::array::from_fn(|i| word(4 + i as u32) | 1));
        Random { s0: u64x4::new(s0), s1: u64x4::new(s1) }
    }

    fn next(&mut self) -> u16x16 {
        let (mut t, s) = (self.s0, self.s1);
        self.s0 = s;
        t ^= t << 23;
        t ^= t >> 17;
        t ^= s ^ (s >> 26);
        self.s1 = t;
        bytemuck::cast(t + s)
    }
}

/// Sixteen chains of a slot.
#[derive(Debug, Clone)]
struct Group {
    /// Per constraint k, `t_k` of each chain (those of cells unused).
    totals: Vec<Lanes>,
    /// Per constraint k, `w_k` of each chain (the padding's 0).
    weights: Vec<Lanes>,
    /// Per free cell, the index of the candidate each chain's cell holds.
    choice: Vec<Lanes>,
    random: Random,
    /// `powers[b]` = q^(2^b) of each chain's rung, 16-bit, rounded down.
    powers: [u16x16; X_BITS],
}

impl Group {
    /// Each chain's cells hold random candidates; every unit weighs the initial weight.
    fn random(table: &CellTable, weights: Weights, stream: u32) -> Group {
        let mut random = Random::new(stream);
        let constraints = table.fixed_ones.len();
        let mut totals: Vec<Lanes> = table.fixed_ones.iter().map(|&t| Lanes::splat(t as i16)).collect();
        let choice: Vec<Lanes> = (0..table.len())
            .map(|i| {
                let count = table.candidates(i).len() as u16;
                let choice = signed(random.next().mul_keep_high(u16x16::splat(count)));
                for (c, j) in table.candidates(i).enumerate() {
                    let holds = choice.simd_eq(Lanes::splat(c as i16));
                    for &k in table.units_of(j) {
                        totals[k as usize] -= holds;
                    }
                }
                choice
            })
            .collect();
        totals[table.padding as usize] = Lanes::splat(0);
        let mut all_weights = vec![Lanes::splat(weights.initial() as i16); constraints];
        all_weights[table.padding as usize] = Lanes::splat(0);
        Group { totals, weights: all_weights, choice, random, powers: [u16x16::splat(0); X_BITS] }
    }

    /// Each chain's q^(2^b) for its rung; `q[l]` is lane l's q in 16-bit fixed point.
    fn set_rungs(&mut self, q: [f64; CHAINS_PER_GROUP]) {
        for (b, power) in self.powers.iter_mut().enumerate() {
            let lanes = q.map(|q| (65536.0 * q.powi(1 << b)).floor().min(65535.0) as u16);
            *power = u16x16::new(lanes);
        }
    }

    /// One sweep of cell moves. `W` unit constraints per candidate.
    fn sweep<const W: usize>(&mut self, table: &CellTable, bits: usize) {
        let (totals, weights) = (&mut self.totals, &self.weights);
        let mut energies = [Lanes::splat(0); crate::grid::MAX_N];
        let mut masses = [u16x16::splat(0); crate::grid::MAX_N];
        let largest = Lanes::splat(((1 << bits) - 1) as i16);
        for (i, choice) in self.choice.iter_mut().enumerate() {
            let candidates = table.candidates(i);
            let count = candidates.len();
            let current = *choice;
            // e_j = Σ_k w_k (2 t_k − 1), the current candidate taken out of its units.
            let mut lowest = Lanes::splat(i16::MAX);
            for (c, j) in candidates.clone().enumerate() {
                let units: &[u16; W] = table.units_of(j).try_into().expect("W units a candidate");
                let (mut held, mut weight) = (Lanes::splat(0), Lanes::splat(0));
                for &k in units {
                    held += weights[k as usize] * totals[k as usize];
                    weight += weights[k as usize];
                }
                let own = current.simd_eq(Lanes::splat(c as i16));
                let e = ((held - (own & weight)) << 1u32) - weight;
                energies[c] = e;
                lowest = lowest.min(e);
            }
            // Heat-bath weights ONE_c · q^x, x = e − lowest, and their sum.
            let one = u16x16::splat(WEIGHT_SUM / count as u16);
            let mut sum = u16x16::splat(0);
            for c in 0..count {
                let x = (energies[c] - lowest).min(largest);
                let mut mass = one;
                for (b, &power) in self.powers[..bits].iter().enumerate() {
                    // q^(2^b) where x has bit b, 65535 (one, less one part in 2^16) where not:
                    // one OR where a select costs three (BENCHMARKS.md).
                    let clear = unsigned((x & Lanes::splat(1 << b)).simd_eq(Lanes::splat(0)));
                    mass = mass.mul_keep_high(power | clear);
                }
                masses[c] = mass;
                sum += mass;
            }
            // The first candidate whose running sum passes a uniform draw in
            // 0..sum: the number of running sums at or below the draw (they
            // only grow, and the last, the sum, is above it), counted as
            // count − 1 less those above it.
            let draw = signed(self.random.next().mul_keep_high(sum));
            let (mut below, mut pick) = (Lanes::splat(0), Lanes::splat(count as i16 - 1));
            for &mass in &masses[..count - 1] {
                below += signed(mass);
                // The mask is −1 where the running sum is above the draw.
                pick += below.simd_gt(draw);
            }
            // The old candidate leaves its units, the new one joins its own;
            // often no chain changes its cell.
            if !pick.simd_eq(current).all() {
                for (c, j) in candidates.enumerate() {
                    let (joins, leaves) =
                        (pick.simd_eq(Lanes::splat(c as i16)), current.simd_eq(Lanes::splat(c as i16)));
                    // Masks are −1 where set: +1 where it joins, −1 where it leaves.
                    let delta = leaves - joins;
                    if (joins ^ leaves).any() {
                        for &k in table.units_of(j) {
                            totals[k as usize] += delta;
                        }
                    }
                }
            }
            totals[table.padding as usize] = Lanes::splat(0);
            *choice = pick;
        }
    }

    /// After a sweep: +1 on each violated unit up to `cap`, and on a
    /// relaxing sweep −1 on each weight above `base`.
    fn adapt(&mut self, units: Range<usize>, base: i16, cap: i16, relax: bool) {
        let (one, base, cap) = (Lanes::splat(1), Lanes::splat(base), Lanes::splat(cap));
        for (t, w) in self.totals[units.clone()].iter().zip(&mut self.weights[units]) {
            // + 1, less 1 where the unit holds (its mask is −1 there).
            let mut grown = (*w + one + t.simd_eq(one)).min(cap);
            if relax {
                grown += grown.simd_gt(base);
            }
            *w = grown;
        }
    }

    /// Each chain's Σ_k w_k (1 − t_k)² over `units`.
    fn energies(&self, units: Range<usize>) -> [i32; CHAINS_PER_GROUP] {
        let mut sum = i32x16::splat(0);
        for (t, w) in self.totals[units.clone()].iter().zip(&self.weights[units]) {
            let missing = Lanes::splat(1) - *t;
            sum += w.widening_mul(missing * missing);
        }
        sum.to_array()
    }

    fn lane(&self, v: &[Lanes], lane: usize) -> Vec<i16> {
        v.iter().map(|x| x.as_array()[lane]).collect()
    }
}

/// One slot's puzzle.
#[derive(Debug, Clone)]
struct Puzzle {
    table: CellTable,
    weights: Weights,
    /// Each rung's q = exp(−1/T), from its heat-bath row.
    q: Vec<f64>,
    groups: Vec<Group>,
    spins: usize,
    sweeps_done: u32,
}

/// Bits of x that give a nonzero weight at the hottest of `q` (at least 1).
fn bits(q: &[f64]) -> usize {
    let hottest = q.iter().copied().fold(0.0, f64::max);
    let zero =
        (1..1u32 << X_BITS).find(|&x| WEIGHT_SUM as f64 * hottest.powi(x as i32) < 1.0).unwrap_or((1 << X_BITS) - 1);
    (u32::BITS - zero.leading_zeros()) as usize
}

impl Chains for Puzzle {
    fn sweep(&mut self, rung_of_replica: &[u32], count: u32) {
        let Puzzle { table, weights, q, groups, sweeps_done, .. } = self;
        let (first, units, weights) = (*sweeps_done, table.unit_constraints(), *weights);
        groups.par_iter_mut().zip(rung_of_replica.par_chunks(CHAINS_PER_GROUP)).for_each(|(group, rungs)| {
            let lanes = std::array::from_fn(|l| rungs.get(l).map_or(0.0, |&r| q[r as usize]));
            group.set_rungs(lanes);
            let bits = bits(&lanes);
            for s in first..first + count {
                match table.unit_width {
                    2 => group.sweep::<2>(table, bits),
                    3 => group.sweep::<3>(table, bits),
                    4 => group.sweep::<4>(table, bits),
                    5 => group.sweep::<5>(table, bits),
                    width => unreachable!("no board has candidates in {width} units"),
                }
                if let Weights::Adaptive(rule) = weights {
                    let relax = (s + 1).is_multiple_of(rule.relax_every);
                    group.adapt(units.clone(), rule.base as i16, rule.cap as i16, relax);
                }
            }
        });
        *sweeps_done += count;
    }

    fn energies(&self) -> Vec<i32> {
        let units = self.table.unit_constraints();
        self.groups.iter().flat_map(|g| g.energies(units.clone())).collect()
    }

    fn spins(&self, replica: usize) -> Vec<u8> {
        let group = &self.groups[replica / CHAINS_PER_GROUP];
        let choice: Vec<u8> = group.lane(&group.choice, replica % CHAINS_PER_GROUP).iter().map(|&c| c as u8).collect();
        self.table.spins_of(&choice, self.spins)
    }

    fn weights(&self, replica: usize) -> Vec<u8> {
        let group = &self.groups[replica / CHAINS_PER_GROUP];
        match self.weights {
            Weights::Fixed => Vec::new(),
            Weights::Adaptive(_) => {
                let weights = &group.weights[self.table.unit_constraints()];
                group.lane(weights, replica % CHAINS_PER_GROUP).iter().map(|&w| w as u8).collect()
            }
        }
    }
}

#[derive(Debug, Default)]
pub struct LanesBackend {
    slots: Slots<Puzzle>,
}

impl LanesBackend {
    pub fn new() -> LanesBackend {
        LanesBackend::default()
    }
}

impl Backend for LanesBackend {
    fn kind(&self) -> BackendKind {
        BackendKind::CpuLanes
    }

    fn device(&self) -> String {
        format!("{} threads, {CHAINS_PER_GROUP} chains per vector", rayon::current_num_threads())
    }

    fn max_replicas(&self, _shape: Shape) -> usize {
        usize::MAX
    }

    fn configure(&mut self, layout: Layout) -> Result<()> {
        BackendKind::CpuLanes.check_runs(layout.dynamics)?;
        self.slots.configure(&layout);
        Ok(())
    }

    fn load(&mut self, slot: usize, problem: &Problem) -> Result<()> {
        let table = CellTable::new(problem.model);
        let weights = problem.dynamics.weights;
        let rungs = problem.table.len() / problem.table_len.max(1);
        // The heat-bath row's second entry is HEAT_BATH_ONE · q.
        let q = (0..rungs).map(|r| problem.row(r).get(1).map_or(0.0, |&w| w as f64 / HEAT_BATH_ONE as f64)).collect();
        let groups = (0..self.slots.replicas_per_slot().div_ceil(CHAINS_PER_GROUP))
            .map(|g| Group::random(&table, weights, stream_key(problem.seed, g as u32)))
            .collect();
        let spins = problem.model.len();
        self.slots.load(slot, Puzzle { table, weights, q, groups, spins, sweeps_done: 0 });
        Ok(())
    }

    fn unload(&mut self, slot: usize) -> Result<()> {
        self.slots.unload(slot);
        Ok(())
    }

    fn submit(&mut self, slots: Range<usize>, rung_of_replica: &[u32], counts: &[u32]) -> Result<()> {
        self.slots.submit(slots, rung_of_replica, counts);
        Ok(())
    }

    fn energies(&mut self, slots: Range<usize>) -> Result<Vec<i32>> {
        Ok(self.slots.energies(slots))
    }

    fn spins(&mut self, replicas: &[usize]) -> Result<Vec<Vec<u8>>> {
        self.slots.read(replicas, Puzzle::spins)
    }

    fn weights(&mut self, replicas: &[usize]) -> Result<Vec<Vec<u8>>> {
        self.slots.read(replicas, Puzzle::weights)
    }
}
