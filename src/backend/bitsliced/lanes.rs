//! Bit-sliced arithmetic on lane words, shared by the 128-lane CPU engine
//! (`Mask`) and the 32-lane twin of `shaders/bits.wgsl` (`u32`): a number
//! per lane is stored as bit planes, plane p holding bit p of every lane's
//! number, so one bitwise operation serves every lane.

use std::ops::{BitAnd, BitOr, BitXor, Not};

use super::mask::Mask;
use crate::backend::cpu::CpuModel;

/// A word with one bit per lane.
pub trait Lanes:
    Copy + Eq + BitAnd<Output = Self> + BitOr<Output = Self> + BitXor<Output = Self> + Not<Output = Self>
{
    const ZERO: Self;
    const ONES: Self;
    fn has(self, lane: usize) -> bool;

    /// Every lane `set`.
    fn splat(set: bool) -> Self {
        if set {
            Self::ONES
        } else {
            Self::ZERO
        }
    }
}

impl Lanes for Mask {
    const ZERO: Mask = Mask::ZERO;
    const ONES: Mask = Mask::ONES;
    fn has(self, lane: usize) -> bool {
        Mask::has(self, lane)
    }
}

impl Lanes for u32 {
    const ZERO: u32 = 0;
    const ONES: u32 = u32::MAX;
    fn has(self, lane: usize) -> bool {
        self >> lane & 1 == 1
    }
}

/// The bit-sliced constraint totals (`planes` per constraint) of the lanes'
/// states `spins`: the clues' ones, padding included (it stays 0), plus the
/// spins that are on.
pub fn totals<L: Lanes>(model: &CpuModel, planes: usize, spins: &[L]) -> Vec<L> {
    let mut totals = vec![L::ZERO; (model.fixed_ones.len() + 1) * planes];
    for (total, &ones) in totals.chunks_exact_mut(planes).zip(&model.fixed_ones) {
        for (p, plane) in total.iter_mut().enumerate() {
            *plane = L::splat(ones >> p & 1 == 1);
        }
    }
    for (&on, constraints) in spins.iter().zip(model.spin_constraints.chunks_exact(model.width)) {
        for &k in constraints.iter().filter(|&&k| k != model.padding) {
            count(&mut totals[k as usize * planes..(k as usize + 1) * planes], on, L::ZERO);
        }
    }
    totals
}

/// Adds the bit-sliced number `total` to `sum` (which has planes enough).
#[inline(always)]
pub fn add<L: Lanes>(sum: &mut [L], total: &[L]) {
    let mut carry = L::ZERO;
    for (p, s) in sum.iter_mut().enumerate() {
        let (a, b) = (*s, total.get(p).copied().unwrap_or(L::ZERO));
        *s = a ^ b ^ carry;
        carry = (a & b) | (carry & (a ^ b));
    }
}

/// Adds one to the bit-sliced number `total` in the lanes of `on` and
/// takes one from it in those of `off`.
#[inline(always)]
pub fn count<L: Lanes>(total: &mut [L], on: L, off: L) {
    let (mut carry, mut borrow) = (on, off);
    for plane in total.iter_mut() {
        let t = *plane;
        *plane = t ^ carry ^ borrow;
        (carry, borrow) = (t & carry, !t & borrow);
    }
}

/// The lanes where the bit-sliced number `planes` is at least `m`.
#[inline(always)]
pub fn at_least<L: Lanes>(planes: &[L], m: usize) -> L {
    if m >= 1 << planes.len() {
        return L::ZERO;
    }
    let (mut greater, mut equal) = (L::ZERO, L::ONES);
    for (p, &plane) in planes.iter().enumerate().rev() {
        if m >> p & 1 == 1 {
            equal = equal & plane;
        } else {
            greater = greater | (equal & plane);
            equal = equal & !plane;
        }
    }
    greater | equal
}

/// The lanes where the bit-sliced number `planes` equals `m`.
#[inline(always)]
pub fn equals<L: Lanes>(planes: &[L], m: usize) -> L {
    if m >= 1 << planes.len() {
        return L::ZERO;
    }
    planes.iter().enumerate().fold(L::ONES, |acc, (p, &plane)| acc & if m >> p & 1 == 1 { plane } else { !plane })
}

/// The smallest uphill ΔE of a spin in `c` constraints (ΔE has c's parity).
pub fn smallest_uphill(c: usize) -> usize {
    2 - c % 2
}

/// The lanes where flipping `x` is uphill, for a spin in `c` constraints
/// whose totals add up to `sum` (its own 1 included when set): x = 0 costs
/// ΔE = 2S − c, x = 1 costs 3c − 2S (model.rs).
#[inline(always)]
pub fn uphill<L: Lanes>(x: L, sum: &[L], c: usize) -> L {
    (!x & at_least(sum, c / 2 + 1)) | (x & !at_least(sum, (3 * c).div_ceil(2)))
}

/// The lanes whose flip costs exactly `delta`.
#[inline(always)]
pub fn uphill_by<L: Lanes>(x: L, sum: &[L], c: usize, delta: usize) -> L {
    (!x & equals(sum, (c + delta) / 2)) | (x & equals(sum, (3 * c - delta) / 2))
}

/// The value of `lane` in the bit-sliced number `planes`.
pub fn lane_value<L: Lanes>(planes: &[L], lane: usize) -> usize {
    planes.iter().enumerate().map(|(p, &plane)| usize::from(plane.has(lane)) << p).sum()
}

/// ΔE of flipping `lane`'s spin (set in `x` or not), from its sum.
pub fn lane_delta<L: Lanes>(x: L, sum: &[L], c: usize, lane: usize) -> usize {
    let s = lane_value(sum, lane);
    if x.has(lane) {
        3 * c - 2 * s
    } else {
        2 * s - c
    }
}
