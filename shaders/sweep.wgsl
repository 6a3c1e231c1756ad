// Colour-class Metropolis sweeps, one invocation per replica.
// Twin of `sweep` in src/backend/cpu.rs: same order of spins, same random
// numbers, same integer arithmetic, so both give bit-identical states.
//
// Each invocation owns one replica, so there are no barriers: it copies the
// replica's constraint totals (4 one-byte totals per word) and spin bits into
// workgroup memory, runs `sweep_count` sweeps, and writes them back.
// Global buffers are word-major (`buffer[word * replicas + replica]`) so
// neighbouring invocations touch neighbouring addresses; workgroup arrays are
// `[word * WG + lane]` so the lanes of a warp hit distinct banks.

// Keep in sync with src/backend/gpu/params.rs.
struct Params {
    replicas: u32,
    spins: u32,
    spin_words: u32,
    table_len: u32,
    first_sweep: u32,
    sweep_count: u32,
    seed_lo: u32,
    seed_hi: u32,
}

const WG: u32 = 64u;          // keep in sync: WORKGROUP_SIZE in params.rs
const TOTAL_WORDS: u32 = 81u; // 324 constraint totals, one byte each
const MAX_SPIN_WORDS: u32 = 23u; // 729 spins, one bit each

@group(0) @binding(0) var<uniform> params: Params;
// The 4 constraints of each free spin, 16 bits each: (k0 | k1 << 16, k2 | k3 << 16).
@group(0) @binding(1) var<storage, read> spin_constraints: array<vec2<u32>>;
// thresholds[rung * table_len + ΔE / 2]
@group(0) @binding(2) var<storage, read> thresholds: array<u32>;
@group(0) @binding(3) var<storage, read> rung_of_replica: array<u32>;
@group(0) @binding(4) var<storage, read_write> totals: array<u32>;
@group(0) @binding(5) var<storage, read_write> spins: array<u32>;
@group(0) @binding(6) var<storage, read_write> energies: array<i32>;

var<workgroup> local_totals: array<u32, 5184>; // TOTAL_WORDS * WG
var<workgroup> local_spins: array<u32, 1472>;  // MAX_SPIN_WORDS * WG

// Keep in sync with src/rng.rs.
const GOLDEN: u32 = 0x9e3779b9u;

fn mix32(value: u32) -> u32 {
    var x = value;
    x ^= x >> 16u;
    x *= 0x7feb352du;
    x ^= x >> 15u;
    x *= 0x846ca68bu;
    x ^= x >> 16u;
    return x;
}

fn stream_key(seed_lo: u32, seed_hi: u32, stream: u32) -> u32 {
    let seed_key = mix32(mix32(seed_lo ^ GOLDEN) ^ seed_hi);
    return mix32(seed_key ^ stream);
}

fn sweep_key(stream: u32, sweep: u32) -> u32 {
    return mix32(stream ^ mix32(sweep + GOLDEN));
}

fn attempt_random(key: u32, index: u32) -> u32 {
    return mix32(key ^ ((index + 1u) * GOLDEN));
}

fn total(lane: u32, k: u32) -> i32 {
    return i32((local_totals[(k >> 2u) * WG + lane] >> ((k & 3u) * 8u)) & 0xffu);
}

// Adds +1 or −1 to one byte total; totals stay within 0..=9, so no carry.
fn add_total(lane: u32, k: u32, up: bool) {
    let index = (k >> 2u) * WG + lane;
    let one = 1u << ((k & 3u) * 8u);
    local_totals[index] = select(local_totals[index] - one, local_totals[index] + one, up);
}

@compute @workgroup_size(64)
fn sweep(
    @builtin(local_invocation_index) lane: u32,
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let replica = (group.y * groups.x + group.x) * WG + lane;
    if replica >= params.replicas {
        return;
    }
    for (var w = 0u; w < TOTAL_WORDS; w++) {
        local_totals[w * WG + lane] = totals[w * params.replicas + replica];
    }
    for (var w = 0u; w < params.spin_words; w++) {
        local_spins[w * WG + lane] = spins[w * params.replicas + replica];
    }
    let stream = stream_key(params.seed_lo, params.seed_hi, replica);
    let table = rung_of_replica[replica] * params.table_len;
    var energy = energies[replica];

    for (var s = 0u; s < params.sweep_count; s++) {
        let key = sweep_key(stream, params.first_sweep + s);
        // Free spins are stored in colour-class order, so this is class by class.
        for (var i = 0u; i < params.spins; i++) {
            let packed = spin_constraints[i];
            let k = vec4<u32>(packed.x & 0xffffu, packed.x >> 16u, packed.y & 0xffffu, packed.y >> 16u);
            let word = (i >> 5u) * WG + lane;
            let bit = 1u << (i & 31u);
            let x = (local_spins[word] & bit) != 0u;
            let sum = total(lane, k.x) + total(lane, k.y) + total(lane, k.z) + total(lane, k.w);
            let field = 2 * sum - select(4, 12, x); // Σ_k (2(t_k − x) − 1)
            let delta = select(field, -field, x);
            if delta > 0 {
                let threshold = thresholds[table + u32(delta / 2)];
                if threshold == 0u || attempt_random(key, i) >= threshold {
                    continue;
                }
            }
            local_spins[word] ^= bit;
            energy += delta;
            add_total(lane, k.x, !x);
            add_total(lane, k.y, !x);
            add_total(lane, k.z, !x);
            add_total(lane, k.w, !x);
        }
    }

    for (var w = 0u; w < TOTAL_WORDS; w++) {
        totals[w * params.replicas + replica] = local_totals[w * WG + lane];
    }
    for (var w = 0u; w < params.spin_words; w++) {
        spins[w * params.replicas + replica] = local_spins[w * WG + lane];
    }
    energies[replica] = energy;
}
