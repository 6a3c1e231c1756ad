//! The bit-sliced CPU backend: 128 ladders of one puzzle anneal in the bits
//! of a lane mask, two machine words that SSE2 handles as one (multi-spin
//! coding; `mask.rs`).
//!
//! For each rung of a slot there is one *group*: spin `i` of the 128 ladders
//! at that rung is the mask `spins[i]` (lane l = ladder l), and each
//! constraint total is a 128-lane binary number stored as bit planes:
//!
//! ```text
//!   totals[P·k + p]  = bit p of t_k, ladder l in lane l       (P = 4 or 5 planes)
//! ```
//!
//! An attempt on spin i for all 128 ladders adds its constraints' totals with
//! a bit-sliced adder (S = Σ_{k∋i} t_k, its own 1 included when set), and
//! with c constraints the flip is uphill where `x = 0 and 2S > c` or
//! `x = 1 and 2S < 3c` (ΔE = 2S − c, resp. 3c − 2S; model.rs). Moves with
//! ΔE ≤ 0 are accepted in every ladder at once. Uphill ladders are accepted
//! exactly when a uniform u32 of their own is below the threshold of their
//! ΔE (`Ladder::thresholds`), and the 128 comparisons run bit-sliced too:
//! one random mask gives every ladder its next bit, from the top, and a
//! ladder is decided at the first bit where its number and its threshold
//! differ, so a mask costs about log2(128) + 2 random ones, fewer at cold
//! rungs, where thresholds start with zero bits. The threshold bits come
//! from three ΔE classes: v (the smallest uphill value, 1 or 2), v + 2, and
//! ≥ v + 4 tried at p(v + 4), each ladder it accepts then kept with
//! probability p(ΔE)/p(v + 4) (rare: p(v + 4) ≤ e^−4 on every default rung).
//!
//! Exchange permutes states here, not temperatures: a group's mask holds
//! one rung, so when the host's map moves a ladder's replica to another
//! rung, its bits move to that rung's group (masked swaps between adjacent
//! groups). The backend keeps which replica sits where, so the host sees
//! the same interface as the scalar backend.
//!
//! The random streams are not the scalar backend's (they belong to a
//! group, not a replica), so this backend is no twin of the shader; its
//! tests compare it with the exact Boltzmann distribution and its energies
//! with the model's.

use std::ops::Range;

use rayon::prelude::*;

use super::kind::BackendKind;
use super::tables::SpinTable;
use super::{Backend, Layout, Problem};
use crate::backend::bitplanes::{
    add, count, lane_delta, lane_value, saturating_sum_planes, smallest_uphill, uphill, uphill_by, Lanes,
};
use crate::error::{Error, Result};
use crate::grid::Shape;
use crate::rng::{stream_key, sweep_key, WyRand, INITIAL_STATE_SWEEP};
use mask::Mask;
pub use mask::LADDERS_PER_MASK;

mod mask;

/// Uphill moves fall in three classes by ΔE: v (1 or 2, the smallest
/// uphill value), v + 2, and everything from v + 4 up, which is tried at
/// p(v + 4) and thinned by p(ΔE)/p(v + 4).
const CLASSES: usize = 3;

/// One rung's acceptance tables.
#[derive(Debug, Clone)]
struct RungTables {
    /// `bits[v − 1][r][class]`: all ones where bit 31 − r of the class's
    /// threshold is set, all zeros where it is clear.
    bits: [[[Mask; CLASSES]; 32]; 2],
    /// `zero_rounds[v − 1]`: the leading bits clear in every class's threshold.
    zero_rounds: [usize; 2],
    /// `ratio[ΔE]` = p(ΔE)/p(v + 4) · 2^32 for ΔE ≥ v + 4 of v's parity.
    ratio: Vec<u64>,
}

impl RungTables {
    fn new(thresholds: &[u32]) -> RungTables {
        let threshold = |delta: usize| thresholds.get(delta).copied().unwrap_or(0) as u64;
        let of_classes = |v: usize| -> [u64; CLASSES] { std::array::from_fn(|class| threshold(v + 2 * class)) };
        let bits = std::array::from_fn(|i| {
            std::array::from_fn(|r| of_classes(i + 1).map(|t| Mask::splat(t >> (31 - r) & 1 == 1)))
        });
        let zero_rounds = std::array::from_fn(|i| {
            (of_classes(i + 1).iter().fold(0, |acc, &t| acc | t) as u32).leading_zeros() as usize
        });
        let ratio = (0..thresholds.len())
            .map(|delta| {
                let base = threshold(smallest_uphill(delta) + 4);
                if delta < 5 || base == 0 {
                    0
                } else {
                    (threshold(delta) << 32) / base
                }
            })
            .collect();
        RungTables { bits, zero_rounds, ratio }
    }
}

/// One mask of ladders (LADDERS_PER_MASK of them) at one rung: their spins and totals.
#[derive(Debug, Clone)]
struct RungMask {
    spins: Vec<Mask>,
    totals: Vec<Mask>,
    stream: u32,
}

impl RungMask {
    /// Every ladder starts from its own uniformly random state (each spin on
    /// with probability ½, as at infinite temperature). From one shared
    /// state the first sweeps' downhill moves, taken in every ladder alike,
    /// would lead all of them the same way, and for some puzzles a long way
    /// from the solution (BENCHMARKS.md: "Each ladder from its own random
    /// state").
    fn random(table: &SpinTable, planes: usize, stream: u32) -> RungMask {
        let mut random = WyRand::new(sweep_key(stream, INITIAL_STATE_SWEEP));
        let spins: Vec<Mask> = (0..table.spins()).map(|_| Mask::random(&mut random)).collect();
        RungMask { totals: crate::backend::bitplanes::totals(table, planes, &spins), spins, stream }
    }
}

/// One colour-class sweep of one group. `W` constraints per spin, `P`
/// planes per total, `S` planes for their saturating sum.
fn sweep_group<const W: usize, const UNIFORM: bool, const P: usize, const S: usize>(
    table: &SpinTable,
    group: &mut RungMask,
    tables: &RungTables,
    sweep_number: u32,
) {
    let mut random = WyRand::new(sweep_key(group.stream, sweep_number));
    let (spin_constraints, _) = table.spin_constraints.as_chunks::<W>();
    let (totals, _) = group.totals.as_chunks_mut::<P>();
    for (spin, constraints) in group.spins.iter_mut().zip(spin_constraints) {
        let mut sum = [Mask::ZERO; S];
        for &k in constraints {
            add(&mut sum, &totals[k as usize]);
        }
        let c = if UNIFORM { W } else { constraints.iter().filter(|&&k| k != table.padding).count() };
        let x = *spin;
        let uphill = uphill(x, &sum, c);
        let v = smallest_uphill(c);
        let (at_v, at_v2) = (uphill_by(x, &sum, c, v), uphill_by(x, &sum, c, v + 2));
        let classes = [at_v, at_v2, uphill & !at_v & !at_v2];
        let below = below_thresholds(classes, &tables.bits[v - 1], tables.zero_rounds[v - 1], &mut random);
        let mut accepted = !uphill | (below & (at_v | at_v2));
        // Those with ΔE > v + 4 were tried at p(v + 4): keep each with p(ΔE)/p(v + 4).
        for lane in (below & classes[2]).lanes() {
            // The exact sum: `sum` saturates.
            let s = constraints.iter().map(|&k| lane_value(&totals[k as usize], lane)).sum();
            let delta = lane_delta(x, s, c, lane);
            if random.next_u64() >> 32 < tables.ratio[delta] {
                accepted |= Mask::lane(lane);
            }
        }
        let (on, off) = (accepted & !x, accepted & x);
        *spin = x ^ accepted;
        for &k in constraints.iter().filter(|&&k| UNIFORM || k != table.padding) {
            count(&mut totals[k as usize], on, off);
        }
    }
}

/// Rounds after the leading zero ones that run without asking whether every
/// ladder is decided: a few ladders are usually left by then, and a loop
/// exit the branch predictor cannot foresee costs more than the rounds it
/// would save (BENCHMARKS.md: 6 measured best for 128 ladders at one
/// temperature, 3–10 tried).
const UNCHECKED_ROUNDS: usize = 6;

/// The ladders of `classes` whose uniform u32 is below their class's
/// threshold. Every ladder's number is compared bit by bit from the top,
/// a random mask per round, until every ladder has met a bit where its
/// number and its threshold differ (about log2(ladders) + 2 masks).
fn below_thresholds(
    classes: [Mask; CLASSES],
    bits: &[[Mask; CLASSES]; 32],
    zero_rounds: usize,
    random: &mut WyRand,
) -> Mask {
    let (mut undecided, mut below) = (classes.iter().fold(Mask::ZERO, |acc, &m| acc | m), Mask::ZERO);
    for _ in 0..zero_rounds {
        if undecided.is_zero() {
            return Mask::ZERO;
        }
        undecided &= !Mask::random(random);
    }
    for (round, row) in bits[zero_rounds..].iter().enumerate() {
        if round >= UNCHECKED_ROUNDS && undecided.is_zero() {
            break;
        }
        let threshold = classes.iter().zip(row).fold(Mask::ZERO, |acc, (&class, &bit)| acc | (class & bit));
        let draw = Mask::random(random);
        below |= undecided & threshold & !draw;
        undecided &= !(threshold ^ draw);
    }
    below
}

/// Sweeps dispatched on the table's layout, as in the scalar backend.
fn sweep(table: &SpinTable, planes: usize, group: &mut RungMask, tables: &RungTables, sweep_number: u32) {
    match (table.width, table.uniform, planes) {
        (3, true, 4) => sweep_group::<3, true, 4, { saturating_sum_planes(3) }>(table, group, tables, sweep_number),
        (3, true, 5) => sweep_group::<3, true, 5, { saturating_sum_planes(3) }>(table, group, tables, sweep_number),
        (4, true, 4) => sweep_group::<4, true, 4, { saturating_sum_planes(4) }>(table, group, tables, sweep_number),
        (4, true, 5) => sweep_group::<4, true, 5, { saturating_sum_planes(4) }>(table, group, tables, sweep_number),
        (5, false, 4) => sweep_group::<5, false, 4, { saturating_sum_planes(5) }>(table, group, tables, sweep_number),
        (5, false, 5) => sweep_group::<5, false, 5, { saturating_sum_planes(5) }>(table, group, tables, sweep_number),
        (6, false, 4) => sweep_group::<6, false, 4, { saturating_sum_planes(6) }>(table, group, tables, sweep_number),
        (6, false, 5) => sweep_group::<6, false, 5, { saturating_sum_planes(6) }>(table, group, tables, sweep_number),
        layout => unreachable!("no board has spins in {layout:?} constraints and planes"),
    }
}

/// Energies of a group's ladders: Σ_k (1 − t_k)² over the real
/// constraints (all but the last, the padding one).
fn group_energies(group: &RungMask, planes: usize) -> [i32; LADDERS_PER_MASK] {
    let constraints = group.totals.len() / planes - 1;
    let mut energies = [0i32; LADDERS_PER_MASK];
    // Constraints with t = 0 or 2 add 1: counted bit-sliced, in `off_by_one`.
    let mut off_by_one = [Mask::ZERO; 12];
    for total in group.totals.chunks_exact(planes).take(constraints) {
        let high = total[1..].iter().fold(Mask::ZERO, |acc, &p| acc | p);
        let one = total[0] & !high;
        let zero = !total[0] & !high;
        let two = !total[0] & total[1] & !total[2..].iter().fold(Mask::ZERO, |acc, &p| acc | p);
        let mut carry = zero | two;
        for plane in off_by_one.iter_mut() {
            if carry.is_zero() {
                break;
            }
            (*plane, carry) = (*plane ^ carry, *plane & carry);
        }
        for lane in (!(one | zero | two)).lanes() {
            let t = lane_value(total, lane) as i32;
            energies[lane] += (t - 1) * (t - 1);
        }
    }
    for (lane, energy) in energies.iter_mut().enumerate() {
        *energy += lane_value(&off_by_one, lane) as i32;
    }
    energies
}

/// One slot's puzzle.
#[derive(Debug, Clone)]
struct Slot {
    table: SpinTable,
    /// Bit planes per constraint total.
    planes: usize,
    tables: Vec<RungTables>,
    /// `groups[rung · masks + m]` holds ladders LADDERS_PER_MASK·m .. LADDERS_PER_MASK·(m + 1) − 1 at `rung`.
    groups: Vec<RungMask>,
    /// `replica_at[ladder][rung]`: which replica of the ladder the groups hold at that rung.
    replica_at: Vec<Vec<u32>>,
    sweeps_done: u32,
}

impl Slot {
    /// Moves states between groups until ladder l's replica r sits at rung
    /// `rung_of_replica[l · rungs + r]` (odd-even transposition sort with
    /// masked swaps; one exchange round needs one pass).
    fn arrange(&mut self, rung_of_replica: &[u32], rungs: usize, masks: usize) {
        let wanted = |ladder: usize, replica: u32| rung_of_replica[ladder * rungs + replica as usize];
        let mut quiet_passes = 0;
        let mut pass = 0;
        while quiet_passes < 2 && rungs > 1 {
            let mut moved = false;
            for low in (pass % 2..rungs - 1).step_by(2) {
                for w in 0..masks {
                    let mut mask = Mask::ZERO;
                    for (lane, ladder) in
                        (w * LADDERS_PER_MASK..((w + 1) * LADDERS_PER_MASK).min(self.replica_at.len())).enumerate()
                    {
                        let at = &mut self.replica_at[ladder];
                        if wanted(ladder, at[low]) > wanted(ladder, at[low + 1]) {
                            at.swap(low, low + 1);
                            mask |= Mask::lane(lane);
                        }
                    }
                    if !mask.is_zero() {
                        moved = true;
                        let (lower, upper) = self.groups.split_at_mut((low + 1) * masks + w);
                        swap_lanes(&mut lower[low * masks + w], &mut upper[0], mask);
                    }
                }
            }
            quiet_passes = if moved { 0 } else { quiet_passes + 1 };
            pass += 1;
        }
    }
}

/// Exchanges the states of the ladders in `mask` between two groups.
fn swap_lanes(a: &mut RungMask, b: &mut RungMask, mask: Mask) {
    let masks = a.spins.iter_mut().chain(a.totals.iter_mut()).zip(b.spins.iter_mut().chain(b.totals.iter_mut()));
    for (x, y) in masks {
        let differ = (*x ^ *y) & mask;
        *x ^= differ;
        *y ^= differ;
    }
}

#[derive(Debug, Default)]
pub struct BitslicedBackend {
    layout: Option<Layout>,
    slots: Vec<Option<Slot>>,
    /// Every replica's energy after the last submission, as the host numbers them.
    energies: Vec<i32>,
}

impl BitslicedBackend {
    pub fn new() -> BitslicedBackend {
        BitslicedBackend::default()
    }

    fn layout(&self) -> Result<Layout> {
        self.layout.ok_or_else(|| Error::Internal("the bit-sliced backend was used before configure".into()))
    }

    /// Ladders per slot and masks per rung.
    fn ladders_and_masks(layout: &Layout) -> (usize, usize) {
        let ladders = layout.replicas_per_slot / layout.rungs;
        (ladders, ladders.div_ceil(LADDERS_PER_MASK))
    }
}

impl Backend for BitslicedBackend {
    fn kind(&self) -> BackendKind {
        BackendKind::CpuBits
    }

    fn device(&self) -> String {
        format!("{} threads, {LADDERS_PER_MASK} ladders per mask", rayon::current_num_threads())
    }

    fn max_replicas(&self, _shape: Shape) -> usize {
        usize::MAX
    }

    fn configure(&mut self, layout: Layout) -> Result<()> {
        BackendKind::CpuBits.check_runs(layout.dynamics)?;
        if layout.rungs == 0 || !layout.replicas_per_slot.is_multiple_of(layout.rungs) {
            return Err(Error::Internal(format!(
                "a slot of {} replicas is not whole ladders of {} rungs",
                layout.replicas_per_slot, layout.rungs
            )));
        }
        self.layout = Some(layout);
        self.slots = vec![None; layout.slots];
        self.energies = vec![0; layout.replicas()];
        Ok(())
    }

    fn load(&mut self, slot: usize, problem: &Problem) -> Result<()> {
        let layout = self.layout()?;
        let (ladders, masks) = Self::ladders_and_masks(&layout);
        let table = SpinTable::new(problem.model);
        let geometry = problem.model.geometry();
        let planes = if geometry.n < 16 { 4 } else { 5 };
        let tables = (0..layout.rungs).map(|rung| RungTables::new(problem.row(rung))).collect();
        let groups = (0..layout.rungs * masks)
            .map(|g| RungMask::random(&table, planes, stream_key(problem.seed, g as u32)))
            .collect();
        self.slots[slot] = Some(Slot {
            table,
            planes,
            tables,
            groups,
            replica_at: vec![(0..layout.rungs as u32).collect(); ladders],
            sweeps_done: 0,
        });
        Ok(())
    }

    fn unload(&mut self, slot: usize) -> Result<()> {
        self.slots[slot] = None;
        Ok(())
    }

    fn submit(&mut self, slots: Range<usize>, rung_of_replica: &[u32], counts: &[u32]) -> Result<()> {
        let layout = self.layout()?;
        let (ladders, masks) = Self::ladders_and_masks(&layout);
        let per_slot = layout.replicas_per_slot;
        let energies = &mut self.energies[slots.start * per_slot..slots.end * per_slot];
        self.slots[slots]
            .par_iter_mut()
            .zip(rung_of_replica.par_chunks(per_slot))
            .zip(energies.par_chunks_mut(per_slot))
            .zip(counts)
            .for_each(|(((slot, rung_of_replica), energies), &count)| {
                let Some(slot) = slot else { return };
                slot.arrange(rung_of_replica, layout.rungs, masks);
                let first = slot.sweeps_done;
                let (table, planes, tables) = (&slot.table, slot.planes, &slot.tables);
                let group_energies: Vec<[i32; LADDERS_PER_MASK]> = slot
                    .groups
                    .par_iter_mut()
                    .enumerate()
                    .map(|(g, group)| {
                        for s in first..first + count {
                            sweep(table, planes, group, &tables[g / masks], s);
                        }
                        group_energies(group, planes)
                    })
                    .collect();
                slot.sweeps_done += count;
                for ladder in 0..ladders {
                    for (rung, &replica) in slot.replica_at[ladder].iter().enumerate() {
                        energies[ladder * layout.rungs + replica as usize] =
                            group_energies[rung * masks + ladder / LADDERS_PER_MASK][ladder % LADDERS_PER_MASK];
                    }
                }
            });
        Ok(())
    }

    fn energies(&mut self, slots: Range<usize>) -> Result<Vec<i32>> {
        let per_slot = self.layout()?.replicas_per_slot;
        Ok(self.energies[slots.start * per_slot..slots.end * per_slot].to_vec())
    }

    fn spins(&mut self, replicas: &[usize]) -> Result<Vec<Vec<u8>>> {
        let layout = self.layout()?;
        let (_, masks) = Self::ladders_and_masks(&layout);
        replicas
            .iter()
            .map(|&r| {
                let (slot, within) = (r / layout.replicas_per_slot, r % layout.replicas_per_slot);
                let (ladder, replica) = (within / layout.rungs, within % layout.rungs);
                let slot = self.slots[slot]
                    .as_ref()
                    .ok_or_else(|| Error::Internal(format!("replica {r} is in an empty slot")))?;
                let rung = slot.replica_at[ladder]
                    .iter()
                    .position(|&at| at as usize == replica)
                    .expect("every replica has a rung");
                let group = &slot.groups[rung * masks + ladder / LADDERS_PER_MASK];
                Ok(group.spins.iter().map(|&mask| u8::from(mask.has(ladder % LADDERS_PER_MASK))).collect())
            })
            .collect()
    }
}
