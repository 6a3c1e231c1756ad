//! One bit per ladder, over two 64-bit words: 128 ladders in one SSE2
//! register (baseline x86-64), so each bitwise operation of a sweep serves
//! twice the ladders of a `u64` for about the same cost (BENCHMARKS.md:
//! 1.13× the time per sweep).

use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Not};

use wide::u64x2;

use crate::backend::bitplanes::Lanes;
use crate::rng::WyRand;

/// Ladders per mask, one per lane.
pub const LADDERS_PER_MASK: usize = 128;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mask(u64x2);

impl Mask {
    pub const ZERO: Mask = Mask(u64x2::ZERO);
    pub const ONES: Mask = Mask(u64x2::MAX);

    fn words(self) -> [u64; 2] {
        self.0.to_array()
    }

    /// Only `lane`.
    pub fn lane(lane: usize) -> Mask {
        let mut words = [0; 2];
        words[lane / 64] = 1 << (lane % 64);
        Mask(u64x2::new(words))
    }

    /// Every lane a fair coin.
    pub fn random(random: &mut WyRand) -> Mask {
        Mask(u64x2::new([random.next_u64(), random.next_u64()]))
    }

    pub fn is_zero(self) -> bool {
        let [a, b] = self.words();
        a | b == 0
    }

    pub fn has(self, lane: usize) -> bool {
        self.words()[lane / 64] >> (lane % 64) & 1 == 1
    }

    /// The lanes set, in increasing order.
    pub fn lanes(self) -> impl Iterator<Item = usize> {
        self.words().into_iter().enumerate().flat_map(|(w, mut word)| {
            std::iter::from_fn(move || {
                (word != 0).then(|| {
                    let bit = word.trailing_zeros() as usize;
                    word &= word - 1;
                    64 * w + bit
                })
            })
        })
    }
}

impl Lanes for Mask {
    const ZERO: Mask = Mask::ZERO;
    const ONES: Mask = Mask::ONES;
    fn has(self, lane: usize) -> bool {
        Mask::has(self, lane)
    }
}

macro_rules! lanewise {
    ($trait:ident, $method:ident, $assign_trait:ident, $assign:ident, $op:tt) => {
        impl $trait for Mask {
            type Output = Mask;
            #[inline(always)]
            fn $method(self, other: Mask) -> Mask {
                Mask(self.0 $op other.0)
            }
        }
        impl $assign_trait for Mask {
            #[inline(always)]
            fn $assign(&mut self, other: Mask) {
                *self = *self $op other;
            }
        }
    };
}

lanewise!(BitAnd, bitand, BitAndAssign, bitand_assign, &);
lanewise!(BitOr, bitor, BitOrAssign, bitor_assign, |);
lanewise!(BitXor, bitxor, BitXorAssign, bitxor_assign, ^);

impl Not for Mask {
    type Output = Mask;
    #[inline(always)]
    fn not(self) -> Mask {
        Mask(!self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lanes_round_trip_across_words() {
        let picked = [0, 5, 63, 64, 100, LADDERS_PER_MASK - 1];
        let mask = picked.iter().fold(Mask::ZERO, |acc, &lane| acc | Mask::lane(lane));
        assert_eq!(mask.lanes().collect::<Vec<_>>(), picked);
        assert!((0..LADDERS_PER_MASK).all(|lane| mask.has(lane) == picked.contains(&lane)));
        assert_eq!(!mask & mask, Mask::ZERO);
        assert!((mask ^ mask).is_zero() && !mask.is_zero());
    }

    /// cpu-bits' default ladders fill one mask (`kind.rs` says 128 itself).
    #[test]
    fn the_default_ladders_fill_one_mask() {
        use crate::backend::kind::BackendKind;
        use crate::dynamics::Moves;
        let defaults = BackendKind::CpuBits.defaults(crate::grid::Variant::Standard, Some(Moves::Spin));
        assert_eq!(
            (defaults.small_boards.tempering.ladders, defaults.large_boards.tempering.ladders),
            (LADDERS_PER_MASK, LADDERS_PER_MASK)
        );
    }
}
