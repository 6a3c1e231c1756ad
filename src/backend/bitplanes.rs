//! Bit-sliced arithmetic on lane words, shared by `cpu-bits` (128 lanes in
//! a `bitsliced::mask::Mask`) and `bits32`, the twin of `shaders/bits.wgsl`
//! (32 lanes in a `u32`): a lane is one replica, and a number per lane is
//! stored as bit planes, plane p holding bit p of every lane's number, so
//! one bitwise operation serves every lane.

use std::ops::{BitAnd, BitOr, BitXor, Not};

use crate::backend::tables::SpinTable;

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
pub fn totals<L: Lanes>(table: &SpinTable, planes: usize, spins: &[L]) -> Vec<L> {
    let mut totals = vec![L::ZERO; (table.fixed_ones.len() + 1) * planes];
    for (total, &ones) in totals.chunks_exact_mut(planes).zip(&table.fixed_ones) {
        for (p, plane) in total.iter_mut().enumerate() {
            *plane = L::splat(ones >> p & 1 == 1);
        }
    }
    for (&on, constraints) in spins.iter().zip(table.rows()) {
        for &k in constraints.iter().filter(|&&k| k != table.padding) {
            count(&mut totals[k as usize * planes..(k as usize + 1) * planes], on, L::ZERO);
        }
    }
    totals
}

/// Bit planes of a spin's saturating sum of totals (see [`add`]): enough
/// for ⌈3c/2⌉, the largest value [`uphill`] and [`uphill_by`] ask about for
/// a spin in c ≤ `width` constraints.
pub const fn saturating_sum_planes(width: usize) -> usize {
    (usize::BITS - (3 * width).div_ceil(2).leading_zeros()) as usize
}

/// Adds the bit-sliced number `total` to `sum`, saturating: a lane whose
/// sum would pass 2^planes − 1 stays there. The uphill tests read such a
/// lane right (it is above every value they ask about); its exact ΔE, when
/// needed, must come from the totals. A sum of planes enough never saturates.
#[inline(always)]
pub fn add<L: Lanes>(sum: &mut [L], total: &[L]) {
    let above = total.iter().skip(sum.len()).fold(L::ZERO, |acc, &plane| acc | plane);
    let mut carry = L::ZERO;
    for (p, s) in sum.iter_mut().enumerate() {
        let (a, b) = (*s, total.get(p).copied().unwrap_or(L::ZERO) | above);
        *s = a ^ b ^ carry;
        carry = (a & b) | (carry & (a ^ b));
    }
    for s in sum.iter_mut() {
        *s = *s | carry;
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

/// ΔE of flipping `lane`'s spin (set in `x` or not) whose totals add up to `s`.
pub fn lane_delta<L: Lanes>(x: L, s: usize, c: usize, lane: usize) -> usize {
    if x.has(lane) {
        3 * c - 2 * s
    } else {
        2 * s - c
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::attempt_random;

    /// Spins in `width` constraints whose totals reach `n` (every board
    /// kind): the saturating sum sorts each lane as its exact sum does, and
    /// an uphill lane's ΔE from the totals is the exact one.
    #[test]
    fn saturating_sums_sort_lanes_as_exact_sums_do() {
        for (width, n) in [(3, 2), (3, 9), (4, 4), (4, 9), (4, 16), (5, 9), (6, 25usize)] {
            let planes = (usize::BITS - n.leading_zeros()) as usize;
            for trial in 0..200u32 {
                let value = |k: usize, lane: usize| attempt_random(trial, (32 * k + lane) as u32) as usize % (n + 1);
                let totals: Vec<Vec<u32>> = (0..width)
                    .map(|k| {
                        (0..planes)
                            .map(|p| (0..32).fold(0, |acc, l| acc | ((value(k, l) >> p & 1) as u32) << l))
                            .collect()
                    })
                    .collect();
                let x = attempt_random(trial, u32::MAX);
                let mut sum = vec![0u32; saturating_sum_planes(width)];
                totals.iter().for_each(|total| add(&mut sum, total));
                let (c, v) = (width, smallest_uphill(width));
                for lane in 0..32 {
                    let s = (0..width).map(|k| value(k, lane)).sum::<usize>() as i64;
                    let delta = if x.has(lane) { 3 * c as i64 - 2 * s } else { 2 * s - c as i64 };
                    let case = format!("width {width}, n {n}, trial {trial}, lane {lane}, sum {s}");
                    assert_eq!(uphill(x, &sum, c).has(lane), delta > 0, "{case}");
                    assert_eq!(uphill_by(x, &sum, c, v).has(lane), delta == v as i64, "{case}");
                    assert_eq!(uphill_by(x, &sum, c, v + 2).has(lane), delta == v as i64 + 2, "{case}");
                    if delta > 0 {
                        let exact: usize = totals.iter().map(|total| lane_value(total, lane)).sum();
                        assert_eq!(lane_delta(x, exact, c, lane) as i64, delta, "{case}");
                    }
                }
            }
        }
    }
}
