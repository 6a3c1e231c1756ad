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

use std::ops::{Add, AddAssign, BitAnd, BitOr, Not, Sub, SubAssign};

/// Chains per group: two AVX2 registers, four SSE2 ones, and the default
/// chains per puzzle.
pub const LANES: usize = 32;

/// Lanes a quarter of a vector: one 128-bit half of an AVX2 register, which
/// a byte shuffle reads one table of its own for.
pub const QUARTER: usize = LANES / 4;

/// Each lane's number; masks are −1 (all bits) where true and 0 where false.
/// `N` lanes: a group's chains, or (in completion's last passes) the
/// `HALF` of them still open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(C, align(64))]
pub struct Lanes<const N: usize = LANES>(pub [i16; N]);

/// Half a group's lanes: one AVX2 register.
pub const HALF: usize = LANES / 2;

impl<const N: usize> Lanes<N> {
    #[inline(always)]
    pub fn splat(v: i16) -> Lanes<N> {
        Lanes([v; N])
    }

    #[inline(always)]
    fn zip(self, other: Lanes<N>, f: impl Fn(i16, i16) -> i16) -> Lanes<N> {
        // A loop rather than `array::from_fn`, which is not always inlined.
        let mut out = [0; N];
        for ((out, &a), &b) in out.iter_mut().zip(&self.0).zip(&other.0) {
            *out = f(a, b);
        }
        Lanes(out)
    }

    #[inline(always)]
    pub fn min(self, other: Lanes<N>) -> Lanes<N> {
        self.zip(other, i16::min)
    }

    #[inline(always)]
    pub fn eq_mask(self, other: Lanes<N>) -> Lanes<N> {
        self.zip(other, |a, b| -((a == b) as i16))
    }

    #[inline(always)]
    pub fn gt_mask(self, other: Lanes<N>) -> Lanes<N> {
        self.zip(other, |a, b| -((a > b) as i16))
    }

    /// `if_set`'s lane where this mask's is set (all ones), `if_clear`'s elsewhere.
    #[inline(always)]
    pub fn select(self, if_set: Lanes<N>, if_clear: Lanes<N>) -> Lanes<N> {
        let mut out = [0; N];
        for (((out, &m), &a), &b) in out.iter_mut().zip(&self.0).zip(&if_set.0).zip(&if_clear.0) {
            *out = if m < 0 { a } else { b };
        }
        Lanes(out)
    }

    #[inline(always)]
    pub fn mul(self, other: Lanes<N>) -> Lanes<N> {
        self.zip(other, i16::wrapping_mul)
    }

    #[inline(always)]
    pub fn double(self) -> Lanes<N> {
        self + self
    }

    /// This lane's bits that `other`'s lane does not have.
    #[inline(always)]
    pub fn and_not(self, other: Lanes<N>) -> Lanes<N> {
        self.zip(other, |a, b| a & !b)
    }

    /// Whether every lane is 0.
    #[inline(always)]
    pub fn is_zero(self) -> bool {
        let mut any = 0;
        for &x in &self.0 {
            any |= x;
        }
        any == 0
    }
}

impl Lanes {
    /// The high half of the product of the lanes read as unsigned.
    #[inline(always)]
    pub fn mul_high_unsigned(self, other: Lanes) -> Lanes {
        self.zip(other, |a, b| ((a as u16 as u32 * b as u16 as u32) >> 16) as i16)
    }

    /// [`Lanes::mul_high_unsigned`] as one `vpmulhuw` a register, written
    /// as the instruction itself: through the intrinsic, the compiler still
    /// turned the draw's product (its operand a sum) into 32-bit multiplies
    /// with widening and packing, some ten instructions a register on the
    /// chain from the sum to the pick (BENCHMARKS.md).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    pub fn mul_high_unsigned_avx2(self, other: Lanes) -> Lanes {
        use std::arch::x86_64::__m256i;
        let (mut out, other): ([__m256i; 2], [__m256i; 2]) = (bytemuck::cast(self.0), bytemuck::cast(other.0));
        for (out, other) in out.iter_mut().zip(other) {
            // SAFETY: one AVX2 instruction on registers, which this function's CPU has.
            #[allow(unsafe_code)]
            unsafe {
                std::arch::asm!("vpmulhuw {out}, {out}, {other}", out = inout(ymm_reg) *out, other = in(ymm_reg) other,
                    options(pure, nomem, nostack, preserves_flags));
            }
        }
        Lanes(bytemuck::cast(out))
    }

    /// Each lane's number from the same place in quarter `from[q]`, q its
    /// own quarter.
    #[inline(always)]
    pub fn quarters_from(self, from: [usize; 4]) -> Lanes {
        Lanes(std::array::from_fn(|l| self.0[from[l / QUARTER] * QUARTER + l % QUARTER]))
    }
}

impl<const N: usize> Not for Lanes<N> {
    type Output = Lanes<N>;
    #[inline(always)]
    fn not(self) -> Lanes<N> {
        self.zip(self, |a, _| !a)
    }
}

/// One constraint k of each chain of a group: what the sweep reads of a
/// candidate's units, and completion of their totals.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Constraint {
    /// `t_k` (those of cells unused; the padding's counts for nothing).
    pub total: Lanes,
    /// `w_k`; the padding's is 0, so a candidate's energy does not depend
    /// on the padding's total, which the moves change and nothing resets.
    pub weight: Lanes,
}

impl<const N: usize> Add for Lanes<N> {
    type Output = Lanes<N>;
    #[inline(always)]
    fn add(self, other: Lanes<N>) -> Lanes<N> {
        self.zip(other, i16::wrapping_add)
    }
}

impl<const N: usize> Sub for Lanes<N> {
    type Output = Lanes<N>;
    #[inline(always)]
    fn sub(self, other: Lanes<N>) -> Lanes<N> {
        self.zip(other, i16::wrapping_sub)
    }
}

impl<const N: usize> BitAnd for Lanes<N> {
    type Output = Lanes<N>;
    #[inline(always)]
    fn bitand(self, other: Lanes<N>) -> Lanes<N> {
        self.zip(other, |a, b| a & b)
    }
}

impl<const N: usize> BitOr for Lanes<N> {
    type Output = Lanes<N>;
    #[inline(always)]
    fn bitor(self, other: Lanes<N>) -> Lanes<N> {
        self.zip(other, |a, b| a | b)
    }
}

impl<const N: usize> AddAssign for Lanes<N> {
    #[inline(always)]
    fn add_assign(&mut self, other: Lanes<N>) {
        *self = *self + other;
    }
}

impl<const N: usize> SubAssign for Lanes<N> {
    #[inline(always)]
    fn sub_assign(&mut self, other: Lanes<N>) {
        *self = *self - other;
    }
}

/// Sixteen 16-bit values, as two tables of bytes for a byte shuffle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NibbleTable {
    low: [u8; 16],
    high: [u8; 16],
}

impl NibbleTable {
    pub fn new(values: [u16; 16]) -> NibbleTable {
        NibbleTable { low: values.map(|v| v as u8), high: values.map(|v| (v >> 8) as u8) }
    }

    #[cfg(test)]
    pub fn get(&self, index: usize) -> u16 {
        self.low[index] as u16 | (self.high[index] as u16) << 8
    }
}

/// A table's 16 bytes in both 128-bit halves of a register.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn broadcast(bytes: [u8; 16]) -> std::arch::x86_64::__m256i {
    use std::arch::x86_64::*;
    _mm256_broadcastsi128_si256(bytemuck::cast::<[u8; 16], __m128i>(bytes))
}

/// Each 16-bit lane's index (below 256) in both its bytes: the low byte
/// then reads a table's low bytes, the high byte its high bytes.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn in_both_bytes(index: std::arch::x86_64::__m256i) -> std::arch::x86_64::__m256i {
    use std::arch::x86_64::*;
    _mm256_or_si256(index, _mm256_slli_epi16::<8>(index))
}

/// The tables of a vector's four quarters in AVX2 registers, for a cell's
/// lookups: loaded once a cell rather than once a candidate.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy)]
pub struct NibbleRegisters {
    /// Per register, its two quarters' low bytes, then their high bytes.
    low: [std::arch::x86_64::__m256i; 2],
    high: [std::arch::x86_64::__m256i; 2],
}

#[cfg(target_arch = "x86_64")]
impl NibbleRegisters {
    /// One table for every quarter: the same two registers twice, so a
    /// sweep holds two table registers, not four (four cost a 9×9 run 7 %).
    #[target_feature(enable = "avx2")]
    pub fn one(table: &NibbleTable) -> NibbleRegisters {
        let (low, high) = (broadcast(table.low), broadcast(table.high));
        NibbleRegisters { low: [low; 2], high: [high; 2] }
    }

    #[target_feature(enable = "avx2")]
    pub fn new(quarters: &[NibbleTable; 4]) -> NibbleRegisters {
        // Register r holds quarters 2r and 2r + 1, its low and high halves.
        let registers = |bytes: fn(&NibbleTable) -> [u8; 16]| {
            [0, 2].map(|q| bytemuck::cast([bytes(&quarters[q]), bytes(&quarters[q + 1])]))
        };
        NibbleRegisters { low: registers(|t| t.low), high: registers(|t| t.high) }
    }

    /// Each lane's value at its index in its quarter's table: two byte
    /// shuffles per register where a product per bit of the index took
    /// eleven instructions. Every lane must hold 0 to 15.
    #[target_feature(enable = "avx2")]
    pub fn lookup(&self, index: Lanes) -> Lanes {
        use std::arch::x86_64::*;
        let high_bytes = _mm256_set1_epi16(0xFF00u16 as i16);
        let halves: [__m256i; 2] = bytemuck::cast(index.0);
        Lanes(bytemuck::cast(std::array::from_fn::<_, 2, _>(|r| {
            let both = in_both_bytes(halves[r]);
            _mm256_blendv_epi8(
                _mm256_shuffle_epi8(self.low[r], both),
                _mm256_shuffle_epi8(self.high[r], both),
                high_bytes,
            )
        })))
    }
}

/// Thirty-two 16-bit values, the same for every lane, in AVX2 registers:
/// a table for x of five bits (hot chains' weights), as two
/// [`NibbleTable`]s, entries 0 to 15 and 16 to 31.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy)]
pub struct WideRegisters {
    /// Each half's low bytes, then its high bytes.
    low: [std::arch::x86_64::__m256i; 2],
    high: [std::arch::x86_64::__m256i; 2],
}

#[cfg(target_arch = "x86_64")]
impl WideRegisters {
    #[target_feature(enable = "avx2")]
    pub fn new(halves: &[NibbleTable; 2]) -> WideRegisters {
        WideRegisters { low: halves.map(|half| broadcast(half.low)), high: halves.map(|half| broadcast(half.high)) }
    }

    /// Each lane's value at its index: four byte shuffles and three blends
    /// per register, where five products took twenty instructions. Every
    /// lane must hold 0 to 31.
    #[target_feature(enable = "avx2")]
    pub fn lookup(&self, index: Lanes) -> Lanes {
        use std::arch::x86_64::*;
        let high_bytes = _mm256_set1_epi16(0xFF00u16 as i16);
        let halves: [__m256i; 2] = bytemuck::cast(index.0);
        Lanes(bytemuck::cast(std::array::from_fn::<_, 2, _>(|r| {
            let both = in_both_bytes(halves[r]);
            // Bit 4 of the index at the top of each byte (below 32, nothing
            // crosses into the high byte): which half it reads.
            let upper = _mm256_slli_epi16::<3>(both);
            let half = |table: &[__m256i; 2]| {
                _mm256_blendv_epi8(_mm256_shuffle_epi8(table[0], both), _mm256_shuffle_epi8(table[1], both), upper)
            };
            _mm256_blendv_epi8(half(&self.low), half(&self.high), high_bytes)
        })))
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
