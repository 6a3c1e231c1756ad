//! One 16-bit number per chain of a group, as a plain array whose
//! element-wise loops the compiler turns into vector instructions. The
//! sweep is compiled once for any x86-64 (SSE2) and once for AVX2 (`mod.rs`
//! picks at run time); a vector type that chose its instructions when the
//! crate was compiled (`wide`'s) would run SSE2 inside both.
//!
//! A loop straight along a slice of `Lanes` whose body is only element-wise
//! work may be vectorized across its iterations instead, with a shuffle per
//! lane (`adapt` took 40 % of a run so, on SSE2): `mod.rs` reaches the lanes
//! through a list of indices, which the compiler leaves to the element-wise
//! code.
//!
//! Every operation wraps, as the vector instructions do, and none depends
//! on the instruction set: the chains are the same bit for bit whichever
//! variant of the sweep runs.

use std::ops::{Add, AddAssign, BitAnd, BitOr, Sub, SubAssign};

/// Chains per group: two AVX2 registers, four SSE2 ones, and the default
/// chains per puzzle.
pub const LANES: usize = 32;

/// Each lane's number; masks are −1 (all bits) where true and 0 where false.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(C, align(64))]
pub struct Lanes(pub [i16; LANES]);

impl Lanes {
    #[inline(always)]
    pub fn splat(v: i16) -> Lanes {
        Lanes([v; LANES])
    }

    #[inline(always)]
    fn zip(self, other: Lanes, f: impl Fn(i16, i16) -> i16) -> Lanes {
        // A loop rather than `array::from_fn`, which is not always inlined.
        let mut out = [0; LANES];
        for ((out, &a), &b) in out.iter_mut().zip(&self.0).zip(&other.0) {
            *out = f(a, b);
        }
        Lanes(out)
    }

    #[inline(always)]
    pub fn min(self, other: Lanes) -> Lanes {
        self.zip(other, i16::min)
    }

    #[inline(always)]
    pub fn eq_mask(self, other: Lanes) -> Lanes {
        self.zip(other, |a, b| -((a == b) as i16))
    }

    #[inline(always)]
    pub fn gt_mask(self, other: Lanes) -> Lanes {
        self.zip(other, |a, b| -((a > b) as i16))
    }

    /// The high half of the product of the lanes read as unsigned.
    #[inline(always)]
    pub fn mul_high_unsigned(self, other: Lanes) -> Lanes {
        self.zip(other, |a, b| ((a as u16 as u32 * b as u16 as u32) >> 16) as i16)
    }

    #[inline(always)]
    pub fn mul(self, other: Lanes) -> Lanes {
        self.zip(other, i16::wrapping_mul)
    }

    #[inline(always)]
    pub fn double(self) -> Lanes {
        self + self
    }
}

impl Add for Lanes {
    type Output = Lanes;
    #[inline(always)]
    fn add(self, other: Lanes) -> Lanes {
        self.zip(other, i16::wrapping_add)
    }
}

impl Sub for Lanes {
    type Output = Lanes;
    #[inline(always)]
    fn sub(self, other: Lanes) -> Lanes {
        self.zip(other, i16::wrapping_sub)
    }
}

impl BitAnd for Lanes {
    type Output = Lanes;
    #[inline(always)]
    fn bitand(self, other: Lanes) -> Lanes {
        self.zip(other, |a, b| a & b)
    }
}

impl BitOr for Lanes {
    type Output = Lanes;
    #[inline(always)]
    fn bitor(self, other: Lanes) -> Lanes {
        self.zip(other, |a, b| a | b)
    }
}

impl AddAssign for Lanes {
    #[inline(always)]
    fn add_assign(&mut self, other: Lanes) {
        *self = *self + other;
    }
}

impl SubAssign for Lanes {
    #[inline(always)]
    fn sub_assign(&mut self, other: Lanes) {
        *self = *self - other;
    }
}

/// xorshift128+ on `LANES / 4` 64-bit words: 16 random bits per lane a step.
#[derive(Debug, Clone)]
pub struct Random {
    s0: [u64; LANES / 4],
    s1: [u64; LANES / 4],
}

impl Random {
    /// From `LANES / 2` words; the second half's made odd, so no state is zero.
    pub fn new(word: impl Fn(usize) -> u64) -> Random {
        Random { s0: std::array::from_fn(&word), s1: std::array::from_fn(|i| word(LANES / 4 + i) | 1) }
    }

    #[inline(always)]
    pub fn next(&mut self) -> Lanes {
        let mut out = [0u64; LANES / 4];
        for ((s0, s1), out) in self.s0.iter_mut().zip(&mut self.s1).zip(&mut out) {
            let (mut t, s) = (*s0, *s1);
            *s0 = s;
            t ^= t << 23;
            t ^= t >> 17;
            t ^= s ^ (s >> 26);
            *s1 = t;
            *out = t.wrapping_add(s);
        }
        Lanes(bytemuck::cast(out))
    }
}
