//! Counter-based random numbers: every Metropolis attempt draws
//! `attempt_random(sweep_key(replica_key, sweep), spin)`, a pure function of
//! (seed, replica, sweep, spin). Nothing is carried between attempts, so the
//! CPU and GPU backends (and any thread split) draw identical numbers.
//! The bit-sliced backend, no twin of the shader, draws 64 bits at a time
//! from `WyRand`, seeded per sweep from the same keys.
//! Twin of `mix32`, `stream_key`, `sweep_key` and `attempt_random` in `shaders/common.wgsl`.

/// The hashes' odd constant, ⌊2³² / φ⌋ (common.wgsl gets it from here).
pub const GOLDEN: u32 = 0x9e37_79b9;
/// A replica's random initial state is drawn as if it were this sweep of
/// its stream: one no budget reaches.
pub const INITIAL_STATE_SWEEP: u32 = u32::MAX;

/// Chris Wellons' "lowbias32" integer hash: a bijection on u32.
pub fn mix32(mut x: u32) -> u32 {
    x ^= x >> 16;
    x = x.wrapping_mul(0x7feb_352d);
    x ^= x >> 15;
    x = x.wrapping_mul(0x846c_a68b);
    x ^= x >> 16;
    x
}

/// Key of stream `stream` under `seed` (one stream per replica).
pub fn stream_key(seed: u64, stream: u32) -> u32 {
    let seed_key = mix32(mix32(seed as u32 ^ GOLDEN) ^ (seed >> 32) as u32);
    mix32(seed_key ^ stream)
}

/// Key of one sweep of one stream.
pub fn sweep_key(stream_key: u32, sweep: u32) -> u32 {
    mix32(stream_key ^ mix32(sweep.wrapping_add(GOLDEN)))
}

/// The uniform u32 for attempt `index` (a spin, or an exchange pair) of a sweep.
pub fn attempt_random(sweep_key: u32, index: u32) -> u32 {
    mix32(sweep_key ^ index.wrapping_add(1).wrapping_mul(GOLDEN))
}

/// wyrand (Wang Yi's generator, one 64×64→128-bit multiply per draw):
/// 64 random bits at a time for the bit-sliced backend, one per ladder of a
/// word. Sequential, not counter-based; seeded per sweep from its key.
pub struct WyRand(u64);

impl WyRand {
    pub fn new(sweep_key: u32) -> WyRand {
        // Spread the keys over the state space, so that two sweeps' Weyl
        // sequences (state += constant) do not run over each other.
        WyRand((sweep_key as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15))
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0xa076_1d64_78bd_642f);
        let product = self.0 as u128 * (self.0 ^ 0xe703_7ed1_a0b4_28db) as u128;
        (product >> 64) as u64 ^ product as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attempt_randoms_are_roughly_uniform() {
        let mut buckets = [0u32; 16];
        let key = sweep_key(stream_key(7, 3), 11);
        for spin in 0..160_000 {
            buckets[(attempt_random(key, spin) >> 28) as usize] += 1;
        }
        for count in buckets {
            assert!((9_500..10_500).contains(&count), "{buckets:?}");
        }
    }

    #[test]
    fn every_lane_of_wyrand_is_a_fair_coin() {
        let mut random = WyRand::new(sweep_key(stream_key(7, 3), 11));
        let mut ones = [0u32; 64];
        for _ in 0..20_000 {
            let word = random.next_u64();
            for (lane, count) in ones.iter_mut().enumerate() {
                *count += (word >> lane & 1) as u32;
            }
        }
        for count in ones {
            assert!((9_700..10_300).contains(&count), "{ones:?}");
        }
    }
}
