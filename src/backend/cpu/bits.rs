//! The reference of `shaders/bits.wgsl`, the GPU's bit-sliced sweep, and
//! its twin: same words, same random numbers, same integer arithmetic.
//!
//! A slot's replicas are packed 32 to a `u32` *word* (lane l of word w is
//! replica 32w + l), spin i of a word's replicas in `spins[i]` and each
//! constraint total as bit planes (`totals[P·k + p]`, as in cpu-bits). Each
//! lane has its own rung, so exchange swaps temperatures, as on the scalar
//! backends, and states never move.
//!
//! An attempt on spin i adds its constraints' totals bit-sliced and compares
//! each uphill lane's uniform u32 with its threshold bit by bit from the
//! top, one random word per round (round r draws `attempt_random(key, 64i +
//! r)`), until every lane has met a bit where the two differ. The threshold
//! bits come from three ΔE classes: v (the smallest uphill value), v + 2,
//! and ≥ v + 4 tried at p(v + 4); a lane of the last class that passes is
//! kept when `mul_high(attempt_random(key, 64i + 32 + lane), p(v + 4)) <
//! p(ΔE)`, which happens with probability p(ΔE)/p(v + 4) (to 2⁻³²).
//! Draws are counter-based, so the order of attempts does not matter: the
//! shader's class-parallel sweep equals this spin-by-spin one bit for bit.

use std::ops::Range;

use rayon::prelude::*;

use crate::backend::bitplanes::{self, add, count, lane_delta, lane_value, smallest_uphill, uphill, uphill_by, Lanes};
use crate::backend::kind::BackendKind;
use crate::backend::tables::SpinTable;
use crate::backend::{Backend, Layout, Problem};
use crate::error::{Error, Result};
use crate::grid::Shape;
use crate::rng::{attempt_random, stream_key, sweep_key, INITIAL_STATE_SWEEP};

/// Replicas per word.
pub const REPLICAS_PER_WORD: usize = 32;
/// Random indices a spin uses per sweep: 32 comparison rounds, then one per lane.
pub const DRAWS_PER_SPIN: u32 = 64;
/// Uphill ΔE classes: v, v + 2, and ≥ v + 4.
const CLASSES: usize = 3;

/// Bit planes of a constraint total on an n×n board (totals reach n).
pub fn total_planes(n: usize) -> usize {
    (usize::BITS - n.leading_zeros()) as usize
}

/// Bit planes of the sum of a spin's `width` totals: the whole sum, as the
/// shader keeps it (so `bitplanes::add` never saturates here).
pub fn exact_sum_planes(width: usize, n: usize) -> usize {
    (usize::BITS - (width * n).leading_zeros()) as usize
}

/// High word of the 64-bit product.
fn mul_high(a: u32, b: u32) -> u32 {
    ((a as u64 * b as u64) >> 32) as u32
}

/// Threshold of `delta` in a rung's row; 0 (never) past its end.
fn threshold(row: &[u32], delta: usize) -> u32 {
    row.get(delta).copied().unwrap_or(0)
}

/// A word's lanes' thresholds for one submission (the shader builds the
/// same at the start of each dispatch).
pub struct LaneTables<'a> {
    /// `rows[l]`: lane l's rung row of thresholds, `None` where no replica is.
    rows: Vec<Option<&'a [u32]>>,
    /// `bits[v − 1][r][class]`: the lanes whose threshold for the ΔE class
    /// has bit 31 − r set.
    bits: [[[u32; CLASSES]; 32]; 2],
    live: u32,
}

impl<'a> LaneTables<'a> {
    pub fn new(rows: Vec<Option<&'a [u32]>>) -> LaneTables<'a> {
        let bits = std::array::from_fn(|i| {
            std::array::from_fn(|r| {
                std::array::from_fn(|class| {
                    rows.iter().enumerate().fold(0, |acc, (l, row)| {
                        let t = row.map_or(0, |row| threshold(row, i + 1 + 2 * class));
                        acc | (t >> (31 - r) & 1) << l
                    })
                })
            })
        });
        let live = rows.iter().enumerate().fold(0u32, |acc, (l, row)| acc | u32::from(row.is_some()) << l);
        LaneTables { rows, bits, live }
    }
}

/// The lanes holding replicas in word `w` of a slot of `per_slot` replicas.
pub fn live_lanes(w: usize, per_slot: usize) -> u32 {
    match per_slot.saturating_sub(w * REPLICAS_PER_WORD) {
        n if n >= REPLICAS_PER_WORD => u32::MAX,
        n => (1 << n) - 1,
    }
}

/// Words per slot of `per_slot` replicas.
pub fn words_per_slot(per_slot: usize) -> usize {
    per_slot.div_ceil(REPLICAS_PER_WORD)
}

/// A word's `spins` initial spin words, every lane a fair coin, drawn
/// from the word's stream as if in sweep `INITIAL_STATE_SWEEP`.
fn random_spins(spins: usize, stream: u32) -> Vec<u32> {
    let key = sweep_key(stream, INITIAL_STATE_SWEEP);
    (0..spins as u32).map(|i| attempt_random(key, i)).collect()
}

/// The initial spins of `replica` (within its slot) under `seed`.
pub fn initial_state(spins: usize, seed: u64, replica: usize) -> Vec<u8> {
    let stream = stream_key(seed, (replica / REPLICAS_PER_WORD) as u32);
    random_spins(spins, stream).iter().map(|&word| u8::from(word.has(replica % REPLICAS_PER_WORD))).collect()
}

/// The states of one word's replicas.
#[derive(Debug, Clone)]
pub struct Word {
    pub spins: Vec<u32>,
    pub totals: Vec<u32>,
}

impl Word {
    /// Each live lane's spins on with probability ½ (as cpu-bits, and for
    /// the same reason), drawn from the word's stream; dead lanes all off.
    pub fn random(table: &SpinTable, planes: usize, live: u32, stream: u32) -> Word {
        let spins: Vec<u32> = random_spins(table.spins(), stream).iter().map(|&word| word & live).collect();
        Word { totals: bitplanes::totals(table, planes, &spins), spins }
    }

    /// One sweep, spin by spin.
    pub fn sweep(&mut self, table: &SpinTable, planes: usize, sums: usize, tables: &LaneTables, key: u32) {
        let live = tables.live;
        for (i, constraints) in table.spin_constraints.chunks_exact(table.width).enumerate() {
            let mut sum = [0u32; 8];
            let sum = &mut sum[..sums];
            for &k in constraints {
                add(sum, &self.totals[k as usize * planes..(k as usize + 1) * planes]);
            }
            let c = constraints.iter().filter(|&&k| k != table.padding).count();
            let x = self.spins[i];
            let up = uphill(x, sum, c) & live;
            let v = smallest_uphill(c);
            let (at_v, at_v2) = (uphill_by(x, sum, c, v), uphill_by(x, sum, c, v + 2));
            let classes = [at_v, at_v2, up & !at_v & !at_v2];
            let (mut undecided, mut below) = (up, 0);
            for (r, row) in tables.bits[v - 1].iter().enumerate() {
                if undecided == 0 {
                    break;
                }
                let threshold = classes.iter().zip(row).fold(0, |acc, (&class, &bits)| acc | (class & bits));
                let draw = attempt_random(key, DRAWS_PER_SPIN * i as u32 + r as u32);
                below |= undecided & threshold & !draw;
                undecided &= !(threshold ^ draw);
            }
            let mut accepted = (!up | (below & (at_v | at_v2))) & live;
            let mut thinned = below & classes[2];
            while thinned != 0 {
                let lane = thinned.trailing_zeros() as usize;
                thinned &= thinned - 1;
                let row = tables.rows[lane].expect("only live lanes pass");
                let draw = attempt_random(key, DRAWS_PER_SPIN * i as u32 + 32 + lane as u32);
                let delta = lane_delta(x, lane_value(sum, lane), c, lane);
                if mul_high(draw, threshold(row, v + 4)) < threshold(row, delta) {
                    accepted |= 1 << lane;
                }
            }
            self.spins[i] = x ^ accepted;
            for &k in constraints.iter().filter(|&&k| k != table.padding) {
                count(&mut self.totals[k as usize * planes..(k as usize + 1) * planes], accepted & !x, accepted & x);
            }
        }
    }

    /// Lane `lane`'s energy: Σ_k (1 − t_k)² over the real constraints (all
    /// totals but the last, the padding one).
    pub fn energy(&self, planes: usize, lane: usize) -> i32 {
        let real = self.totals.len() - planes;
        self.totals[..real].chunks_exact(planes).map(|total| (lane_value(total, lane) as i32 - 1).pow(2)).sum()
    }

    /// Lane `lane`'s spins.
    pub fn lane(&self, lane: usize) -> Vec<u8> {
        self.spins.iter().map(|&word| u8::from(word.has(lane))).collect()
    }
}

/// One slot's puzzle.
#[derive(Debug, Clone)]
struct Slot {
    table: SpinTable,
    planes: usize,
    sums: usize,
    thresholds: Vec<u32>,
    table_len: usize,
    words: Vec<Word>,
    streams: Vec<u32>,
    sweeps_done: u32,
}

/// The twin as a backend, so tests can run it where they run the GPU.
#[derive(Debug, Default)]
pub struct Bits32Backend {
    layout: Option<Layout>,
    slots: Vec<Option<Slot>>,
    energies: Vec<i32>,
}

impl Bits32Backend {
    pub fn new() -> Bits32Backend {
        Bits32Backend::default()
    }

    fn layout(&self) -> Result<Layout> {
        self.layout.ok_or_else(|| Error::Internal("the bits32 backend was used before configure".into()))
    }
}

impl Backend for Bits32Backend {
    fn kind(&self) -> BackendKind {
        BackendKind::Bits32
    }

    fn device(&self) -> String {
        format!("{} threads, {REPLICAS_PER_WORD} replicas per word", rayon::current_num_threads())
    }

    fn max_replicas(&self, _shape: Shape) -> usize {
        usize::MAX
    }

    fn configure(&mut self, layout: Layout) -> Result<()> {
        BackendKind::Bits32.check_runs(layout.dynamics)?;
        self.layout = Some(layout);
        self.slots = vec![None; layout.slots];
        self.energies = vec![0; layout.replicas()];
        Ok(())
    }

    fn load(&mut self, slot: usize, problem: &Problem) -> Result<()> {
        let per_slot = self.layout()?.replicas_per_slot;
        let table = SpinTable::new(problem.model);
        let n = problem.model.fixed.shape.n;
        let planes = total_planes(n);
        let streams: Vec<u32> = (0..words_per_slot(per_slot) as u32).map(|w| stream_key(problem.seed, w)).collect();
        let words = streams
            .iter()
            .enumerate()
            .map(|(w, &stream)| Word::random(&table, planes, live_lanes(w, per_slot), stream))
            .collect();
        self.slots[slot] = Some(Slot {
            sums: exact_sum_planes(table.width, n),
            table,
            planes,
            thresholds: problem.table.clone(),
            table_len: problem.table_len,
            words,
            streams,
            sweeps_done: 0,
        });
        Ok(())
    }

    fn unload(&mut self, slot: usize) -> Result<()> {
        self.slots[slot] = None;
        Ok(())
    }

    fn submit(&mut self, slots: Range<usize>, rung_of_replica: &[u32], counts: &[u32]) -> Result<()> {
        let per_slot = self.layout()?.replicas_per_slot;
        let energies = &mut self.energies[slots.start * per_slot..slots.end * per_slot];
        self.slots[slots]
            .par_iter_mut()
            .zip(rung_of_replica.par_chunks(per_slot))
            .zip(energies.par_chunks_mut(per_slot))
            .zip(counts)
            .for_each(|(((slot, rungs), energies), &sweeps)| {
                let Some(slot) = slot else { return };
                let first = slot.sweeps_done;
                let Slot { table, planes, sums, thresholds, table_len, words, streams, .. } = slot;
                words.par_iter_mut().zip(energies.par_chunks_mut(REPLICAS_PER_WORD)).enumerate().for_each(
                    |(w, (word, energies))| {
                        let rows = (0..REPLICAS_PER_WORD).map(|l| {
                            let rung = *rungs.get(w * REPLICAS_PER_WORD + l)? as usize;
                            Some(&thresholds[rung * *table_len..(rung + 1) * *table_len])
                        });
                        let tables = LaneTables::new(rows.collect());
                        for s in first..first + sweeps {
                            word.sweep(table, *planes, *sums, &tables, sweep_key(streams[w], s));
                        }
                        for (lane, energy) in energies.iter_mut().enumerate() {
                            *energy = word.energy(*planes, lane);
                        }
                    },
                );
                slot.sweeps_done += sweeps;
            });
        Ok(())
    }

    fn energies(&mut self, slots: Range<usize>) -> Result<Vec<i32>> {
        let per_slot = self.layout()?.replicas_per_slot;
        Ok(self.energies[slots.start * per_slot..slots.end * per_slot].to_vec())
    }

    fn spins(&mut self, replicas: &[usize]) -> Result<Vec<Vec<u8>>> {
        let per_slot = self.layout()?.replicas_per_slot;
        replicas
            .iter()
            .map(|&r| {
                let (slot, within) = (r / per_slot, r % per_slot);
                let slot = self.slots[slot]
                    .as_ref()
                    .ok_or_else(|| Error::Internal(format!("replica {r} is in an empty slot")))?;
                Ok(slot.words[within / REPLICAS_PER_WORD].lane(within % REPLICAS_PER_WORD))
            })
            .collect()
    }
}
